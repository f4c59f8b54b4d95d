//! What an agent is to the floors below the agents' rooms: the [`Agent`] that names one,
//! the [`Profile`] type its room fills in, and [`Profiles`], the agents' registry as the
//! rooms hand it down (the rooms, `agents/`, stand above the readers of hooks files, which
//! they use; a reader is given the facts it needs rather than asking the rooms for them).

mod profile;

pub use profile::{
    FileFolders, FoundFiles, HookAnswer, HookEnv, Managed, MatcherRule, OwnFiles, Place,
    PlaceFiles, Profile, DEFAULT_TIMEOUT, SCRIPT_FOLDERS,
};

use crate::event::CommandEvent;

/// An agent: the one a hooks file was written for, or the one `agent-hooks hook` runs under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Agent {
    /// agent-hooks' own hooks files (docs/command-hooks.md).
    AgentHooks,
    /// Claude Code.
    ClaudeCode,
    /// OpenAI Codex CLI.
    Codex,
    /// Gemini CLI.
    Gemini,
    /// GitHub Copilot CLI.
    Copilot,
    /// Cursor (its files are read; it does not run here).
    Cursor,
    /// Devin CLI.
    Devin,
    /// pi (`@earendil-works/pi-coding-agent`), through an extension of agent-hooks'.
    Pi,
    /// Qwen Code (`@qwen-code/qwen-code`).
    Qwen,
    /// OpenCode (`opencode-ai`), through a plugin of agent-hooks'.
    OpenCode,
    /// Kilo Code's CLI (`@kilocode/cli`), through the same plugin as OpenCode.
    Kilo,
    /// Factory Droid (`droid`).
    Droid,
    /// Cline (the `cline` CLI), through hook files of agent-hooks' in its hooks folders.
    Cline,
}

impl Agent {
    /// Every agent, in the order of the events table's columns.
    pub const ALL: [Agent; 13] = [
        Agent::AgentHooks,
        Agent::ClaudeCode,
        Agent::Codex,
        Agent::Gemini,
        Agent::Copilot,
        Agent::Cursor,
        Agent::Devin,
        Agent::Pi,
        Agent::Qwen,
        Agent::OpenCode,
        Agent::Kilo,
        Agent::Droid,
        Agent::Cline,
    ];

    /// The order in which the agents are asked whether a hooks file is theirs (the most
    /// particular places first); a file none claims is agent-hooks' own.
    pub const BY_FILE: [Agent; 12] = [
        Agent::Copilot,
        Agent::Cursor,
        Agent::Codex,
        Agent::Gemini,
        Agent::Devin,
        Agent::ClaudeCode,
        Agent::Pi,
        Agent::Qwen,
        Agent::OpenCode,
        Agent::Kilo,
        Agent::Droid,
        Agent::Cline,
    ];

    /// Its place in [`ALL`](Self::ALL).
    pub fn position(self) -> usize {
        Self::ALL.iter().position(|a| *a == self).unwrap_or(0)
    }
}

/// Every agent's [`Profile`], as the agents' rooms hand them to the readers below them
/// (`agents::PROFILES`).
#[derive(Debug, Clone, Copy)]
pub struct Profiles(pub fn(Agent) -> &'static Profile);

impl Profiles {
    /// What agent-hooks knows of `agent`.
    pub fn of(self, agent: Agent) -> &'static Profile {
        (self.0)(agent)
    }

    /// Other agents' names of events beside the common ones, accepted in any hooks file and
    /// shown to those hooks as `hook_event_name`: (name, event, agent).
    pub fn aliases(self) -> impl Iterator<Item = (&'static str, CommandEvent, Agent)> {
        Agent::ALL
            .into_iter()
            .filter(move |a| !self.of(*a).events_of_its_own)
            .flat_map(move |a| {
                self.of(a)
                    .event_names
                    .iter()
                    .filter_map(move |(name, event)| event.map(|e| (*name, e, a)))
            })
    }

    /// The agents' events this runner has no moment for at all: (name, why).
    pub fn unsupported(self) -> impl Iterator<Item = (&'static str, &'static str)> {
        Agent::ALL
            .into_iter()
            .flat_map(move |a| self.of(a).unsupported_events.iter().copied())
    }

    /// Reads an event name: a common name, or an agent's alias (with its agent).
    pub fn lookup(self, name: &str) -> Option<(CommandEvent, Option<Agent>)> {
        if let Some(spec) = crate::event::EVENTS.iter().find(|s| s.name == name) {
            return Some((spec.event, None));
        }
        self.aliases()
            .find(|(alias, _, _)| *alias == name)
            .map(|(_, event, agent)| (event, Some(agent)))
    }

    /// The agent whose tool names and input fields a hook of `agent` sees for an event its
    /// file names `event_name`: a common (PascalCase) event name in a file of an agent whose
    /// profile says [`claude_form_for_claude_names`](Profile::claude_form_for_claude_names)
    /// sees the common ones.
    pub fn tool_dialect(self, agent: Agent, event_name: &str) -> Agent {
        let pascal = !event_name.starts_with(|c: char| c.is_ascii_lowercase());
        if self.of(agent).claude_form_for_claude_names && pascal {
            Agent::ClaudeCode
        } else {
            agent
        }
    }
}
