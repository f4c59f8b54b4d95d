//! The agent a hooks file was written for: it decides the matcher rule, the unit of
//! `timeout`, the event and tool names its hooks see, and the environment they get.

use std::{borrow::Cow, fmt, path::Path};

use serde_json::Value;

use super::{
    answer::Answer,
    event::{CommandEvent, EVENTS},
    process::{Exit, Run},
};

/// The agent a hooks file was written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// This project's own hooks files (docs/command-hooks.md).
    Agent,
    /// Claude Code: `.claude/settings*.json`, a plugin's `hooks/hooks.json`.
    ClaudeCode,
    /// OpenAI Codex: `.codex/hooks.json`.
    Codex,
    /// Gemini CLI: `.gemini/settings.json`.
    Gemini,
    /// Devin CLI: `.devin/hooks.v1.json`, `~/.config/devin/config.json`.
    Devin,
    /// GitHub Copilot CLI: `.github/hooks/*.json`, `~/.copilot/hooks/*.json`,
    /// `/etc/github-copilot/policy.d/*.json` (its own format: `super::copilot`).
    Copilot,
    /// Cursor: `.cursor/hooks.json`, `~/.cursor/hooks.json` (its own format:
    /// `super::cursor`).
    Cursor,
}

/// How a matcher is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatcherRule {
    /// An unanchored regex; `""` or none matches all (Devin's files).
    Regex,
    /// As [`Regex`](Self::Regex), and `*` also matches all (this project's hooks files: `*`
    /// is "every tool" in Claude Code, Qwen Code and Factory Droid, and alone it is no
    /// valid regex, so reading it so changes no other matcher).
    RegexOrStar,
    /// Claude Code's rule: `*`, `""` or none match all; letters, digits, `_` and `|` only
    /// is an exact name or a `|` list of names; anything else an unanchored regex.
    Claude,
    /// Gemini CLI's rule: a regex for tool events, an exact string for the others.
    Gemini,
}

impl Dialect {
    /// Every dialect, in the order of the enum (the columns of the events table).
    pub const ALL: [Dialect; 7] = [
        Dialect::Agent,
        Dialect::ClaudeCode,
        Dialect::Codex,
        Dialect::Gemini,
        Dialect::Copilot,
        Dialect::Cursor,
        Dialect::Devin,
    ];

    /// Its place in [`ALL`](Self::ALL). A new dialect must be added here and there: this
    /// match does not compile without it.
    pub fn position(self) -> usize {
        match self {
            Dialect::Agent => 0,
            Dialect::ClaudeCode => 1,
            Dialect::Codex => 2,
            Dialect::Gemini => 3,
            Dialect::Copilot => 4,
            Dialect::Cursor => 5,
            Dialect::Devin => 6,
        }
    }

    /// The agent's name for people (the events table's column).
    pub fn agent(self) -> &'static str {
        match self {
            Dialect::Agent => "agent-hooks",
            Dialect::ClaudeCode => "Claude Code",
            Dialect::Codex => "Codex",
            Dialect::Gemini => "Gemini CLI",
            Dialect::Copilot => "Copilot CLI",
            Dialect::Cursor => "Cursor",
            Dialect::Devin => "Devin",
        }
    }

    /// Its name, as `list` shows it.
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Agent => "agent-hooks",
            Dialect::ClaudeCode => "claude-code",
            Dialect::Codex => "codex",
            Dialect::Gemini => "gemini-cli",
            Dialect::Devin => "devin",
            Dialect::Copilot => "copilot-cli",
            Dialect::Cursor => "cursor",
        }
    }

    /// The dialect of the hooks file at `path`, from where it lies: a `.claude`, `.codex`,
    /// `.gemini` or `.devin` folder (or `~/.config/devin`), a Claude Code plugin's
    /// `hooks/hooks.json`, Copilot CLI's `.github/hooks/`, `.copilot/hooks/` or
    /// `github-copilot/policy.d/`, a `.cursor` folder; anything else is this project's own
    /// format.
    pub fn of_file(path: &Path) -> Dialect {
        let folders: Vec<String> = path
            .parent()
            .into_iter()
            .flat_map(Path::components)
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let last = folders.last().map(String::as_str);
        // A managed file: the folder right under an `etc` folder names its agent.
        let managed = folders
            .windows(2)
            .rev()
            .find(|pair| pair[0] == "etc")
            .map(|pair| pair[1].as_str());
        match managed {
            Some("claude-code") => return Dialect::ClaudeCode,
            Some("gemini-cli") => return Dialect::Gemini,
            Some("github-copilot") => return Dialect::Copilot,
            Some("codex") => return Dialect::Codex,
            Some("agent-hooks") => return Dialect::Agent,
            _ => {}
        }
        let parent = folders.len().checked_sub(2).map(|i| folders[i].as_str());
        let copilot = matches!(
            (parent, last),
            (Some(".github" | ".copilot"), Some("hooks"))
                | (Some(".github"), Some("copilot"))
                | (_, Some(".copilot"))
        );
        if copilot {
            Dialect::Copilot
        } else if folders.iter().any(|f| f == ".cursor") {
            Dialect::Cursor
        } else if folders.iter().any(|f| f == ".codex") {
            Dialect::Codex
        } else if folders.iter().any(|f| f == ".gemini") {
            Dialect::Gemini
        } else if folders.iter().any(|f| f == ".devin") || last == Some("devin") {
            Dialect::Devin
        } else if folders.iter().any(|f| f == ".claude") || plugin_root(path).is_some() {
            Dialect::ClaudeCode
        } else {
            Dialect::Agent
        }
    }

    /// How its matchers are read; `settings_form` tells whether the events stand under a
    /// `"hooks"` key (this project's files then follow Claude Code's rule, as
    /// docs/command-hooks.md says).
    pub fn matcher_rule(self, settings_form: bool) -> MatcherRule {
        match self {
            Dialect::Agent if settings_form => MatcherRule::Claude,
            Dialect::Agent => MatcherRule::RegexOrStar,
            Dialect::Devin => MatcherRule::Regex,
            // Their own readers compile their matchers (`super::copilot`, `super::cursor`).
            Dialect::Copilot | Dialect::Cursor => MatcherRule::Regex,
            // Codex reads a plain name as exact, as Claude Code does (measured with the real
            // agent, tests/real-agents: `Bas` does not match `Bash`).
            Dialect::ClaudeCode | Dialect::Codex => MatcherRule::Claude,
            Dialect::Gemini => MatcherRule::Gemini,
        }
    }

    /// Gives an answer (of the hook's `run`) the meaning its agent gives it where that
    /// differs from Claude Code's. Gemini CLI (measured with the real agent,
    /// tests/real-agents): a hook's text that is not JSON (stdout, or stderr when stdout is
    /// empty) is shown to the user on exit 0 and blocks with it as the reason on any exit
    /// code but 0, 1 and 2 (exit 2 blocks as everywhere); BeforeTool's `additionalContext`
    /// is not read; AfterTool's `decision: deny` (and exit 2) replaces the tool's result for
    /// the model with the reason, where Claude Code's PostToolUse appends it.
    pub fn adapt(self, event: CommandEvent, run: &Run, answer: &mut Answer) {
        if self.plain_text_is_a_message() {
            Self::plain_text(event, run, answer);
        }
        if !self.reads_context(event) {
            answer.context.clear();
        }
        if self.feedback_replaces_result(event) {
            answer.replacement = answer.feedback.take();
        }
    }

    /// Gemini CLI's reading of a hook's text that is not JSON.
    fn plain_text(event: CommandEvent, run: &Run, answer: &mut Answer) {
        let stdout = String::from_utf8_lossy(&run.stdout);
        let stderr = String::from_utf8_lossy(&run.stderr);
        let text = match stdout.trim() {
            "" => stderr.trim(),
            text => text,
        };
        if !text.is_empty() && !text.starts_with('{') {
            match run.exit {
                Exit::Code(0) => {
                    answer.context.retain(|c| c != text);
                    answer.system_message = Some(text.to_owned());
                }
                Exit::Code(code) if code > 2 => {
                    answer.failed = false;
                    answer.problems.clear();
                    super::answer::exit_2(event, text.to_owned(), answer);
                }
                _ => {}
            }
        }
    }

    /// Whether a hook's text that is not JSON is shown to the user on exit 0 and blocks on
    /// exit codes above 2 (Gemini CLI), rather than read as Claude Code reads it.
    pub fn plain_text_is_a_message(self) -> bool {
        self == Dialect::Gemini
    }

    /// Whether its agent reads `additionalContext` on `event` (Gemini CLI does not on
    /// BeforeTool).
    pub fn reads_context(self, event: CommandEvent) -> bool {
        !(self == Dialect::Gemini && event == CommandEvent::PreToolUse)
    }

    /// Whether its agent, when one of an event's hooks blocks, shows the model the reasons of
    /// the event's other hooks too, an allowing hook's included (Gemini CLI), rather than the
    /// blocking hooks' alone.
    pub fn shows_every_reason_with_a_block(self) -> bool {
        self == Dialect::Gemini
    }

    /// Whether a block's reason on `event` replaces the tool's result for the model (Gemini
    /// CLI's AfterTool, Codex CLI's PostToolUse), rather than being added after it (Claude
    /// Code's PostToolUse).
    pub fn feedback_replaces_result(self, event: CommandEvent) -> bool {
        matches!(self, Dialect::Gemini | Dialect::Codex) && event == CommandEvent::PostToolUse
    }

    /// Payload fields its agent sends that the others do not: Gemini CLI's `timestamp`.
    pub fn extra_fields(self) -> &'static [&'static str] {
        match self {
            Dialect::Gemini | Dialect::Copilot => &["timestamp"],
            _ => &[],
        }
    }

    /// A tool's `tool_response` with the fields its agent documents under other names:
    /// Gemini CLI's AfterTool response has `llmContent` and `returnDisplay`.
    pub fn tool_response(self, response: &Value) -> Cow<'_, Value> {
        match response {
            Value::Object(fields) if self == Dialect::Gemini => {
                let output = fields.get("output").cloned().unwrap_or(Value::Null);
                let mut fields = fields.clone();
                fields.entry("llmContent").or_insert(output.clone());
                fields.entry("returnDisplay").or_insert(output);
                Cow::Owned(Value::Object(fields))
            }
            _ => Cow::Borrowed(response),
        }
    }

    /// The name of the common payload field `field` in this dialect's payloads of `event`,
    /// or `None` where its agent does not send it (measured with the real agents,
    /// tests/real-agents): Claude Code sends no `permission_mode` at `SessionStart` and
    /// `SessionEnd`; Codex calls the turn's id `turn_id`; Gemini CLI sends no
    /// `permission_mode`, `prompt_id` or `tool_use_id`.
    pub fn payload_field(self, event: CommandEvent, field: &'static str) -> Option<&'static str> {
        match (self, field) {
            (Dialect::Gemini, "permission_mode" | "prompt_id" | "tool_use_id") => None,
            (Dialect::ClaudeCode, "permission_mode")
                if matches!(event, CommandEvent::SessionStart | CommandEvent::SessionEnd) =>
            {
                None
            }
            (Dialect::Codex, "prompt_id") => Some("turn_id"),
            _ => Some(field),
        }
    }

    /// Whether its payloads are not Claude Code's fields (Copilot CLI, Cursor): then
    /// [`payload`](Self::payload) gives them.
    pub fn own_payload(self) -> bool {
        matches!(self, Dialect::Copilot | Dialect::Cursor)
    }

    /// Whether its agent gives hooks `CLAUDE_ENV_FILE` (Claude Code's, and this project's
    /// and Devin's files, which follow it).
    pub fn has_env_file(self) -> bool {
        !matches!(
            self,
            Dialect::Codex | Dialect::Gemini | Dialect::Copilot | Dialect::Cursor
        )
    }

    /// How many seconds one unit of `timeout` is: Gemini CLI gives milliseconds.
    pub fn timeout_unit(self) -> f64 {
        match self {
            Dialect::Gemini => 0.001,
            _ => 1.0,
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The root of the Claude Code plugin a hooks file belongs to: `<root>/hooks/hooks.json`
/// next to `<root>/.claude-plugin/plugin.json`.
pub fn plugin_root(hooks_file: &Path) -> Option<&Path> {
    let hooks_dir = hooks_file.parent()?;
    if hooks_dir.file_name()? != "hooks" || hooks_file.file_name()? != "hooks.json" {
        return None;
    }
    let root = hooks_dir.parent()?;
    root.join(".claude-plugin")
        .join("plugin.json")
        .is_file()
        .then_some(root)
}

/// Another agent's name for an event: Devin's `PostCompaction`, Gemini CLI's names.
#[derive(Debug, Clone, Copy)]
pub struct Alias {
    /// The name in that agent's hooks files.
    pub name: &'static str,
    /// The event it is.
    pub event: CommandEvent,
    /// The agent whose name it is.
    pub dialect: Dialect,
}

/// Other agents' names of events, accepted in any hooks file and shown to those hooks as
/// `hook_event_name`.
#[rustfmt::skip]
pub static ALIASES: [Alias; 6] = [
    Alias { name: "PostCompaction", event: CommandEvent::PostCompact, dialect: Dialect::Devin },
    Alias { name: "BeforeTool", event: CommandEvent::PreToolUse, dialect: Dialect::Gemini },
    Alias { name: "AfterTool", event: CommandEvent::PostToolUse, dialect: Dialect::Gemini },
    Alias { name: "BeforeAgent", event: CommandEvent::UserPromptSubmit, dialect: Dialect::Gemini },
    Alias { name: "AfterAgent", event: CommandEvent::Stop, dialect: Dialect::Gemini },
    Alias { name: "PreCompress", event: CommandEvent::PreCompact, dialect: Dialect::Gemini },
];

impl CommandEvent {
    /// Reads an event name: a Claude Code name, or another agent's alias (with its agent).
    pub fn lookup(name: &str) -> Option<(CommandEvent, Option<Dialect>)> {
        if let Some(spec) = EVENTS.iter().find(|s| s.name == name) {
            return Some((spec.event, None));
        }
        ALIASES
            .iter()
            .find(|a| a.name == name)
            .map(|a| (a.event, Some(a.dialect)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_are_not_claude_code_names() {
        for alias in &ALIASES {
            assert!(
                EVENTS.iter().all(|s| s.name != alias.name),
                "{}",
                alias.name
            );
        }
    }

    #[test]
    fn aliases_read_as_their_event() {
        assert_eq!(
            CommandEvent::lookup("PostCompaction"),
            Some((CommandEvent::PostCompact, Some(Dialect::Devin)))
        );
        assert_eq!("BeforeTool".parse(), Ok(CommandEvent::PreToolUse));
        assert_eq!("Nope".parse::<CommandEvent>(), Err(()));
    }

    #[test]
    fn every_dialect_is_in_all_at_its_position() {
        for (i, dialect) in Dialect::ALL.iter().enumerate() {
            assert_eq!(dialect.position(), i, "{dialect}");
        }
    }

    #[test]
    fn the_folder_names_the_dialect() {
        for (path, dialect) in [
            ("/p/.codex/hooks.json", Dialect::Codex),
            ("/h/.gemini/settings.json", Dialect::Gemini),
            ("/p/.devin/hooks.v1.json", Dialect::Devin),
            ("/h/.config/devin/config.json", Dialect::Devin),
            ("/p/.claude/settings.json", Dialect::ClaudeCode),
            ("/p/.github/hooks/guard.json", Dialect::Copilot),
            ("/h/.copilot/hooks/audit.json", Dialect::Copilot),
            (
                "/etc/github-copilot/policy.d/10-gate.json",
                Dialect::Copilot,
            ),
            ("/p/.github/workflows/ci.json", Dialect::Agent),
            ("/p/.github/copilot/settings.json", Dialect::Copilot),
            ("/h/.copilot/settings.json", Dialect::Copilot),
            ("/p/.cursor/hooks.json", Dialect::Cursor),
            ("/p/hooks.json", Dialect::Agent),
            (
                "/etc/claude-code/managed-settings.json",
                Dialect::ClaudeCode,
            ),
            (
                "/etc/claude-code/managed-settings.d/a.json",
                Dialect::ClaudeCode,
            ),
            ("/tmp/root/etc/gemini-cli/settings.json", Dialect::Gemini),
            ("/etc/agent-hooks/policy.json", Dialect::Agent),
        ] {
            assert_eq!(Dialect::of_file(Path::new(path)), dialect, "{path}");
        }
    }
}
