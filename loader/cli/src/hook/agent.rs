//! The agents `agent-hooks hook` runs under: what each calls its events and tools, which
//! hooks files are its own (it runs them itself), and where its configuration is.

use std::{fmt, str::FromStr};

use agent_hooks::command_hook::Dialect;

/// An agent whose hook entry is `agent-hooks hook --agent NAME`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentName {
    /// Claude Code (`@anthropic-ai/claude-code`).
    Claude,
    /// OpenAI Codex CLI (`@openai/codex`).
    Codex,
    /// Gemini CLI (`@google/gemini-cli`).
    Gemini,
    /// GitHub Copilot CLI (`@github/copilot`).
    Copilot,
    /// Devin CLI.
    Devin,
}

impl AgentName {
    /// Every agent, in the order `list` shows them.
    pub const ALL: [AgentName; 5] = [
        AgentName::Claude,
        AgentName::Codex,
        AgentName::Gemini,
        AgentName::Copilot,
        AgentName::Devin,
    ];

    /// The name given to `--agent`.
    pub fn name(self) -> &'static str {
        match self {
            AgentName::Claude => "claude",
            AgentName::Codex => "codex",
            AgentName::Gemini => "gemini",
            AgentName::Copilot => "copilot",
            AgentName::Devin => "devin",
        }
    }

    /// The agent's name for people.
    pub fn title(self) -> &'static str {
        match self {
            AgentName::Claude => "Claude Code",
            AgentName::Codex => "Codex CLI",
            AgentName::Gemini => "Gemini CLI",
            AgentName::Copilot => "Copilot CLI",
            AgentName::Devin => "Devin CLI",
        }
    }

    /// The dialect of its payloads and answers: its tool names and input fields.
    pub fn dialect(self) -> Dialect {
        match self {
            AgentName::Claude => Dialect::ClaudeCode,
            AgentName::Copilot => Dialect::Copilot,
            AgentName::Codex => Dialect::Codex,
            AgentName::Gemini => Dialect::Gemini,
            AgentName::Devin => Dialect::Devin,
        }
    }

    /// The discovery providers whose hooks files this agent runs itself: `hook` leaves them
    /// out, so that no hook runs twice. (Copilot CLI also runs a project's
    /// `.claude/settings.json`.) Its root-owned policy files it runs itself too; they are
    /// the managed layer's, not a provider of this list.
    pub fn own_providers(self) -> &'static [&'static str] {
        match self {
            AgentName::Claude => &["claude (user)", "claude (project)", "claude plugins"],
            AgentName::Codex => &["codex (user)", "codex (project)"],
            AgentName::Gemini => &["gemini (user)", "gemini (project)", "gemini-cli extensions"],
            AgentName::Copilot => &[
                "copilot (user)",
                "copilot settings (user)",
                "copilot (project)",
                "copilot settings (project)",
                "claude (project)",
            ],
            AgentName::Devin => &["devin (user)", "devin (project)"],
        }
    }

    /// The discovery providers of this agent's hooks files, which run under another agent
    /// only when the user asks for them (`--with`).
    pub fn providers(self) -> &'static [&'static str] {
        match self {
            AgentName::Claude => &["claude (user)", "claude (project)", "claude plugins"],
            AgentName::Codex => &["codex (user)", "codex (project)"],
            AgentName::Gemini => &["gemini (user)", "gemini (project)", "gemini-cli extensions"],
            AgentName::Copilot => &[
                "copilot (user)",
                "copilot settings (user)",
                "copilot (project)",
                "copilot settings (project)",
            ],
            AgentName::Devin => &["devin (user)", "devin (project)"],
        }
    }

    /// The events its hook entry is installed for, by the agent's names: every event the
    /// pinned version accepts in its settings (read from the installed program), except
    /// where the mere presence of a hook changes what the agent does even when the hook
    /// answers nothing, and where agent-hooks has nothing to run:
    ///
    /// - Claude Code 2.1.332: `WorktreeCreate` (a hook replaces git's worktree creation: it
    ///   must make the folder and print its path), `WorktreeRemove` (replaces the removal),
    ///   `FileChanged` (its matcher names the files Claude Code watches; an entry starts a
    ///   watcher), `Elicitation` (a hook stands in for the user's answer to an MCP server's
    ///   question), `MessageDisplay` (with a hook, the answer is no longer shown as it
    ///   streams but handed through the hook line by line), `PreSkillShellCommand` (with a
    ///   hook, a coordinator session no longer runs a skill's shell commands at all, and a
    ///   hook that does not answer refuses the command);
    /// - Codex CLI 0.171.0: `Interrupt` (agent-hooks has no such event);
    /// - Gemini CLI 0.61.0: `BeforeModel`, `AfterModel`, `BeforeToolSelection` (the runner
    ///   has no model-request moment: an entry would only start a process per request);
    /// - Copilot CLI 1.0.102: `userPromptTransformed` and `preMcpToolCall` (no moment here).
    pub fn events(self) -> &'static [&'static str] {
        match self {
            AgentName::Claude => &[
                "SessionStart",
                "Setup",
                "InstructionsLoaded",
                "UserPromptSubmit",
                "UserPromptExpansion",
                "PreToolUse",
                "PermissionRequest",
                "PermissionDenied",
                "PostToolUse",
                "PostToolUseFailure",
                "PostToolBatch",
                "Notification",
                "SubagentStart",
                "SubagentStop",
                "Stop",
                "StopFailure",
                "TeammateIdle",
                "TaskCreated",
                "TaskCompleted",
                "ConfigChange",
                "CwdChanged",
                "DirectoryAdded",
                "PreCompact",
                "PostCompact",
                "PreModelSwitch",
                "PostModelSwitch",
                "ElicitationResult",
                "SessionEnd",
            ],
            AgentName::Codex => &[
                "SessionStart",
                "UserPromptSubmit",
                "PreToolUse",
                "PermissionRequest",
                "PostToolUse",
                "SubagentStart",
                "SubagentStop",
                "Stop",
                "PreCompact",
                "PostCompact",
                "SessionEnd",
            ],
            AgentName::Gemini => &[
                "SessionStart",
                "BeforeAgent",
                "BeforeTool",
                "AfterTool",
                "AfterAgent",
                "PreCompress",
                "Notification",
                "SessionEnd",
            ],
            AgentName::Copilot => &[
                "sessionStart",
                "userPromptSubmitted",
                "preToolUse",
                "permissionRequest",
                "postToolUse",
                "postToolUseFailure",
                "subagentStart",
                "subagentStop",
                "agentStop",
                "errorOccurred",
                "preCompact",
                "notification",
                "sessionEnd",
            ],
            AgentName::Devin => &[
                "SessionStart",
                "UserPromptSubmit",
                "PreToolUse",
                "PostToolUse",
                "Stop",
                "SessionEnd",
            ],
        }
    }

    /// The command-hook event a name of this agent stands for (`BeforeTool` → `PreToolUse`,
    /// Copilot CLI's `preToolUse` → `PreToolUse`, from the Copilot CLI dialect's table), as a
    /// name `events::parse_event` reads.
    pub fn event_name(self, name: &str) -> String {
        let copilot = agent_hooks::command_hook::COPILOT_EVENTS
            .iter()
            .find(|(n, _)| *n == name)
            .and_then(|(_, event)| *event);
        match copilot {
            Some(event) => event.name().to_owned(),
            None => name.to_owned(),
        }
    }
}

impl fmt::Display for AgentName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for AgentName {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, String> {
        let name = name.to_ascii_lowercase();
        let found = match name.as_str() {
            "claude" | "claude-code" => AgentName::Claude,
            "codex" => AgentName::Codex,
            "gemini" | "gemini-cli" => AgentName::Gemini,
            "copilot" | "copilot-cli" => AgentName::Copilot,
            "devin" => AgentName::Devin,
            _ => {
                let names: Vec<&str> = AgentName::ALL.iter().map(|a| a.name()).collect();
                return Err(format!(
                    "unknown agent `{name}`; agents: {}",
                    names.join(", ")
                ));
            }
        };
        Ok(found)
    }
}
