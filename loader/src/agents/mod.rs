//! The agents agent-hooks knows: one value of [`Agent`] each, and one room (module) each that
//! says, once, what agent-hooks knows of that agent: its facts (its [`Profile`]) and its
//! procedures where they are its own (the reader of a hooks-file form of its own, the payload
//! its hooks get and how their answers are read, the answer written in its form). Adding an
//! agent is its room, its variant in [`Agent`] and its line in [`Agent::profile`].
//!
//! The rooms stand above the readers of hooks files (`command_hook`), which they use, and hand
//! them what they need of an agent: its profile, or every agent's as [`PROFILES`]. Which reader
//! reads a file is chosen here ([`parse_hooks_as`]). An agent's own trust of hooks (Codex CLI's
//! hashes, Gemini CLI's trusted hooks) is in its room, and discovery, which stands above the
//! rooms, asks it through `reviews.rs`. The hooks files an agent finds by rules of its own
//! (its plugins, its extensions) are found by its room's procedure, which its profile names
//! (`own_files`); discovery's providers run them, and read every agent's places.

mod agent_hooks;
mod answer;
mod claude_code;
mod claude_form;
/// Cline's hook files, for the `agent-hooks` program: not part of the host's API.
#[doc(hidden)]
pub mod cline;
pub(crate) mod codex_cli;
mod copilot_cli;
mod cursor;
mod decision;
mod devin;
mod droid;
mod entry;
mod file_form;
pub(crate) mod gemini_cli;
mod hooks_files;
mod opencode;
mod pi;
pub(crate) mod qwen_code;
mod reviews;
mod table;

use std::{borrow::Cow, path::Path, str::FromStr};

use serde_json::Value;

pub use crate::agent::{
    Agent, FileFolders, FoundFiles, HookAnswer, HookEnv, Managed, MatcherRule, OwnFiles, Place,
    PlaceFiles, Profile, Profiles, DEFAULT_TIMEOUT, SCRIPT_FOLDERS,
};
pub use claude_code::plugin_root;
#[doc(hidden)]
pub use copilot_cli::claude_fields as copilot_claude_fields;
pub use cursor::CURSOR_VERSION;
/// The answer to the agent that runs `agent-hooks hook`, for the program: not part of the
/// host's API.
#[doc(hidden)]
pub use decision::{AgentEvent, Decision, ToAgent};
pub(crate) use hooks_files::{interpret_hook, payload_in};
pub use hooks_files::{load_hooks_file, parse_hooks, parse_hooks_as, parse_hooks_bytes};
pub(crate) use reviews::{turned_off as hooks_turned_off, Reviews};
/// The events table of `agent-hooks events`, for the program: not part of the host's API.
#[doc(hidden)]
pub use table::{events_table, payload_fields};

use crate::event::CommandEvent;

/// Brings a payload `agent` gave `agent-hooks hook` to the common fields where its form is
/// the agent's own (Cline's; Copilot CLI's own hooks files' form, whichever agent is named);
/// returns whether it came in a form of its own that its answer is written in too
/// ([`AgentEvent::own_form`]).
#[doc(hidden)]
pub fn to_common_fields(agent: Agent, payload: &mut serde_json::Map<String, Value>) -> bool {
    if agent == Agent::Cline {
        cline::claude_fields(payload);
    }
    let own_form = copilot_cli::sent_in_own_form(payload);
    if own_form {
        copilot_cli::claude_fields(payload);
    }
    own_form
}

/// Every agent's profile, handed to the readers below the rooms.
pub const PROFILES: Profiles = Profiles(Agent::profile);

/// A name `--agent` does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown agent `{name}`; agents: {known}")]
pub struct UnknownAgent {
    name: String,
    known: String,
}

impl Agent {
    /// What agent-hooks knows of it: its room's profile.
    pub fn profile(self) -> &'static Profile {
        match self {
            Agent::AgentHooks => &agent_hooks::PROFILE,
            Agent::ClaudeCode => &claude_code::PROFILE,
            Agent::Codex => &codex_cli::PROFILE,
            Agent::Gemini => &gemini_cli::PROFILE,
            Agent::Copilot => &copilot_cli::PROFILE,
            Agent::Cursor => &cursor::PROFILE,
            Agent::Devin => &devin::PROFILE,
            Agent::Pi => &pi::PROFILE,
            Agent::Qwen => &qwen_code::PROFILE,
            Agent::OpenCode => &opencode::OPENCODE,
            Agent::Kilo => &opencode::KILO,
            Agent::Droid => &droid::PROFILE,
            Agent::Cline => &cline::PROFILE,
        }
    }

    /// Its name, as `list` shows it (`claude-code`).
    pub fn name(self) -> &'static str {
        self.profile().name
    }

    /// Its name for people (`Claude Code`).
    pub fn title(self) -> &'static str {
        self.profile().title
    }

    /// The name `--agent` takes (`claude`), or [`name`](Self::name) for an agent that does
    /// not run agent-hooks.
    pub fn hook_name(self) -> &'static str {
        self.profile().hook_name.unwrap_or(self.profile().name)
    }

    /// The agents that run agent-hooks (`agent-hooks hook --agent NAME`), in the order
    /// `list` shows them.
    pub fn hooked() -> impl Iterator<Item = Agent> {
        Self::ALL
            .into_iter()
            .filter(|a| a.profile().hook_name.is_some())
    }

    /// The agent that runs agent-hooks named `name`: its `--agent` name or its name, in any
    /// case.
    pub fn hooked_by_name(name: &str) -> Result<Agent, UnknownAgent> {
        let lower = name.to_ascii_lowercase();
        Self::hooked()
            .find(|a| a.hook_name() == lower || a.name() == lower)
            .ok_or_else(|| UnknownAgent {
                name: lower,
                known: Self::hooked()
                    .map(Agent::hook_name)
                    .collect::<Vec<_>>()
                    .join(", "),
            })
    }

    /// The agent of the hooks file at `path`, from where it lies: the folder under a system
    /// root's `etc` for a managed file, else the first of [`BY_FILE`](Self::BY_FILE) that
    /// owns the place; a file none owns is agent-hooks' own.
    pub fn of_file(path: &Path) -> Agent {
        let folders: Vec<String> = path
            .parent()
            .into_iter()
            .flat_map(Path::components)
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let managed = folders
            .windows(2)
            .rev()
            .find(|pair| pair[0] == "etc")
            .map(|pair| pair[1].as_str());
        if let Some(folder) = managed {
            let owner = Self::ALL
                .into_iter()
                .find(|a| a.managed_folder() == Some(folder));
            if let Some(owner) = owner {
                return owner;
            }
        }
        let at = FileFolders {
            path,
            folders: &folders,
        };
        Self::BY_FILE
            .into_iter()
            .find(|a| (a.profile().owns_file)(&at))
            .unwrap_or(Agent::AgentHooks)
    }

    /// The folder under a system root's `etc` that holds its managed files.
    pub fn managed_folder(self) -> Option<&'static str> {
        let (path, _) = self.profile().managed?.files.first()?;
        path.split('/').nth(1)
    }

    /// How its matchers are read; `settings_form` tells whether the events stand under a
    /// `"hooks"` key.
    pub fn matcher_rule(self, settings_form: bool) -> MatcherRule {
        self.profile().matcher_rule(settings_form)
    }

    /// Whether a hook's text that is not JSON is shown to the user on exit 0 and blocks on
    /// exit codes above 2 (Gemini CLI), rather than read as Claude Code reads it.
    pub fn plain_text_is_a_message(self) -> bool {
        self.profile().plain_text_is_a_message
    }

    /// Whether it reads `additionalContext` on `event` (Gemini CLI does not on BeforeTool).
    pub fn reads_context(self, event: CommandEvent) -> bool {
        self.profile().reads_context(event)
    }

    /// Whether, when one of an event's hooks blocks, it shows the model the reasons of the
    /// event's other hooks too, an allowing hook's included (Gemini CLI), rather than the
    /// blocking hooks' alone.
    pub fn shows_every_reason_with_a_block(self) -> bool {
        self.profile().shows_every_reason_with_a_block
    }

    /// Whether a block's reason on `event` replaces the tool's result for the model (Gemini
    /// CLI's AfterTool, Codex CLI's PostToolUse), rather than being added after it (Claude
    /// Code's PostToolUse).
    pub fn feedback_replaces_result(self, event: CommandEvent) -> bool {
        self.profile().feedback_replaces_result(event)
    }

    /// Payload fields it sends that the others do not: Gemini CLI's `timestamp`.
    pub fn extra_fields(self) -> &'static [&'static str] {
        self.profile().extra_fields
    }

    /// A tool's `tool_response` with the fields it documents under other names: Gemini
    /// CLI's AfterTool response has `llmContent` and `returnDisplay`.
    pub fn tool_response(self, response: &Value) -> Cow<'_, Value> {
        self.profile().tool_response(response)
    }

    /// The name of the common payload field `field` in its payloads of `event`, or `None`
    /// where it does not send it (Claude Code sends no `permission_mode` at `SessionStart`
    /// and `SessionEnd`; Codex calls the turn's id `turn_id`; Gemini CLI sends no
    /// `permission_mode`, `prompt_id` or `tool_use_id`).
    pub fn payload_field(self, event: CommandEvent, field: &'static str) -> Option<&'static str> {
        self.profile().payload_field(event, field)
    }

    /// Whether it sends the common payload field `field` on no event (Gemini CLI's
    /// `tool_use_id`).
    pub fn never_sends(self, field: &str) -> bool {
        self.profile().never_sends(field)
    }

    /// Whether its payloads are not Claude Code's fields (Copilot CLI, Cursor).
    pub fn own_payload(self) -> bool {
        self.profile().own_payload
    }

    /// Whether it gives hooks `CLAUDE_ENV_FILE`.
    pub fn has_env_file(self) -> bool {
        self.profile().has_env_file
    }

    /// How many seconds one unit of `timeout` is: Gemini CLI gives milliseconds.
    pub fn timeout_unit(self) -> f64 {
        self.profile().timeout_unit
    }

    /// The default `timeout` of its hooks files' command hooks: Codex's 600 s, Copilot
    /// CLI's 30 s, [`DEFAULT_TIMEOUT`] for the others.
    pub fn default_timeout(self) -> std::time::Duration {
        self.profile().default_timeout
    }

    /// The name its hooks files give `event` (and its hooks see as `hook_event_name`): its
    /// own name where it has one, otherwise Claude Code's. Every file accepts every name;
    /// this is the one its agent writes.
    pub fn event_name(self, event: CommandEvent) -> &'static str {
        self.profile().event_name(event)
    }

    /// The names of `event` in an agent with an event list of its own (Copilot CLI,
    /// Cursor; `None` for the others, whose names are [`aliases`](Self::aliases) over
    /// Claude Code's): one event may have several (Cursor's `beforeShellExecution` and
    /// `beforeReadFile` are both `PreToolUse`), or none.
    pub fn own_event_names(self, event: CommandEvent) -> Option<Vec<&'static str>> {
        self.profile().own_event_names(event)
    }

    /// The event its name `name` stands for, in an agent with an event list of its own:
    /// `Some(None)` for one of its events agent-hooks has no moment for, `None` for a name
    /// not in its list.
    pub fn own_event(self, name: &str) -> Option<Option<CommandEvent>> {
        self.profile().own_event(name)
    }

    /// The Claude Code name of `name` where it is one of this agent's own event names with a
    /// moment here (Copilot CLI's `preToolUse` is `PreToolUse`); any other name as it is.
    pub fn claude_event_name(self, name: &str) -> &str {
        match self.own_event(name) {
            Some(Some(event)) => event.name(),
            _ => name,
        }
    }

    /// Other agents' names of events beside Claude Code's (Gemini CLI's `BeforeTool`,
    /// Devin's `PostCompaction`), accepted in any hooks file and shown to those hooks as
    /// `hook_event_name`: (name, event, agent).
    pub fn aliases() -> impl Iterator<Item = (&'static str, CommandEvent, Agent)> {
        PROFILES.aliases()
    }

    /// The other names its matchers also select a tool named `name` by (Codex CLI's
    /// `Edit|Write` selects its `apply_patch`).
    pub fn matcher_aliases(self, name: &str) -> &'static [&'static str] {
        self.profile().matcher_aliases(name)
    }

    /// The agent whose tool names and input fields a hook of this agent sees for an event
    /// its file names `event_name`: a Claude Code (PascalCase) event name in a Copilot CLI
    /// file (its VS Code-compatible form) sees Claude Code's (`Bash`, not `bash`).
    pub fn tool_dialect(self, event_name: &str) -> Agent {
        PROFILES.tool_dialect(self, event_name)
    }
}

impl Agent {
    /// The file that takes the place of the entries `install` writes into `entry_file` for
    /// some of the installed events, and those events (Factory Droid's `hooks.json` beside
    /// its `settings.json`); `None` where nothing does.
    pub fn entry_shadowed(self, entry_file: &Path) -> Option<(std::path::PathBuf, Vec<String>)> {
        match self {
            Agent::Droid => droid::shadowing(entry_file, self.profile().installed_events),
            _ => None,
        }
    }
}

impl CommandEvent {
    /// Reads an event name: a Claude Code name, or another agent's alias (with its agent).
    pub fn lookup(name: &str) -> Option<(CommandEvent, Option<Agent>)> {
        PROFILES.lookup(name)
    }
}

impl Default for crate::host::ToolNames {
    /// agent-hooks' own tools with each agent's names and file fields, from the agents'
    /// profiles.
    fn default() -> Self {
        Self::of_profiles(PROFILES)
    }
}

impl FromStr for CommandEvent {
    type Err = ();

    /// A Claude Code name, or another agent's alias.
    fn from_str(name: &str) -> Result<Self, ()> {
        Self::lookup(name).map(|(event, _)| event).ok_or(())
    }
}

impl FromStr for Agent {
    type Err = UnknownAgent;

    /// An agent that runs agent-hooks, by [`hooked_by_name`](Self::hooked_by_name).
    fn from_str(name: &str) -> Result<Self, UnknownAgent> {
        Self::hooked_by_name(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::EVENTS;

    #[test]
    fn aliases_are_not_claude_code_names() {
        for (alias, _, _) in Agent::aliases() {
            assert!(EVENTS.iter().all(|s| s.name != alias), "{alias}");
        }
    }

    #[test]
    fn aliases_read_as_their_event() {
        assert_eq!(
            CommandEvent::lookup("PostCompaction"),
            Some((CommandEvent::PostCompact, Some(Agent::Devin)))
        );
        assert_eq!("BeforeTool".parse(), Ok(CommandEvent::PreToolUse));
        assert_eq!("Nope".parse::<CommandEvent>(), Err(()));
    }

    #[test]
    fn every_agent_is_in_all_at_its_position() {
        for (i, agent) in Agent::ALL.iter().enumerate() {
            assert_eq!(agent.position(), i, "{}", agent.name());
        }
        for agent in Agent::ALL {
            assert!(
                agent == Agent::AgentHooks || Agent::BY_FILE.contains(&agent),
                "{} is asked for its files",
                agent.name()
            );
        }
    }

    #[test]
    fn names_are_unique_and_read_back() {
        for agent in Agent::hooked() {
            assert_eq!(agent.hook_name().parse(), Ok(agent));
            assert_eq!(agent.name().parse(), Ok(agent));
            assert_eq!(agent.hook_name().to_uppercase().parse(), Ok(agent));
        }
        assert_eq!(
            "cursor".parse::<Agent>().map_err(|e| e.to_string()),
            Err(
                "unknown agent `cursor`; agents: claude, codex, gemini, copilot, devin, pi, qwen, opencode, kilo, droid, cline"
                    .into()
            )
        );
    }

    #[test]
    fn the_folder_names_the_agent() {
        for (path, agent) in [
            ("/p/.codex/hooks.json", Agent::Codex),
            ("/h/.gemini/settings.json", Agent::Gemini),
            ("/p/.devin/hooks.v1.json", Agent::Devin),
            ("/h/.config/devin/config.json", Agent::Devin),
            ("/p/.claude/settings.json", Agent::ClaudeCode),
            ("/p/.github/hooks/guard.json", Agent::Copilot),
            ("/h/.copilot/hooks/audit.json", Agent::Copilot),
            ("/etc/github-copilot/policy.d/10-gate.json", Agent::Copilot),
            ("/p/.github/workflows/ci.json", Agent::AgentHooks),
            ("/p/.github/copilot/settings.json", Agent::Copilot),
            ("/h/.copilot/settings.json", Agent::Copilot),
            ("/p/.cursor/hooks.json", Agent::Cursor),
            ("/p/hooks.json", Agent::AgentHooks),
            ("/etc/claude-code/managed-settings.json", Agent::ClaudeCode),
            (
                "/etc/claude-code/managed-settings.d/a.json",
                Agent::ClaudeCode,
            ),
            ("/tmp/root/etc/gemini-cli/settings.json", Agent::Gemini),
            ("/etc/agent-hooks/policy.json", Agent::AgentHooks),
            ("/p/.qwen/settings.json", Agent::Qwen),
            ("/etc/qwen-code/system-defaults.json", Agent::Qwen),
            ("/h/.factory/settings.json", Agent::Droid),
            ("/p/.factory/hooks.json", Agent::Droid),
            ("/etc/factory/settings.json", Agent::Droid),
            ("/h/Documents/Cline/Hooks/PreToolUse", Agent::Cline),
            ("/h/.cline/hooks/TaskStart.py", Agent::Cline),
            ("/p/.clinerules/hooks/PostToolUse.sh", Agent::Cline),
            ("/p/.clinerules/workflows/x.json", Agent::AgentHooks),
        ] {
            assert_eq!(Agent::of_file(Path::new(path)), agent, "{path}");
        }
    }

    #[test]
    fn names_and_fields_map_both_ways() {
        let names = crate::host::ToolNames::default();
        assert_eq!(names.name_in(Agent::ClaudeCode, "exec"), "Bash");
        assert_eq!(names.name_in(Agent::Gemini, "exec"), "run_shell_command");
        assert_eq!(names.name_in(Agent::Devin, "exec"), "exec");
        assert_eq!(names.name_in(Agent::Copilot, "read"), "view");
        assert_eq!(names.own_name(Agent::Copilot, "bash"), Some("exec"));
        assert_eq!(names.name_in(Agent::Cursor, "exec"), "Shell");
        assert_eq!(names.own_name(Agent::ClaudeCode, "Bash"), Some("exec"));
        assert_eq!(
            names.own_name(Agent::Gemini, "run_shell_command"),
            Some("exec")
        );
        assert_eq!(names.own_name(Agent::Gemini, "Bash"), None);
        assert_eq!(names.name_in(Agent::ClaudeCode, "mcp__gh__x"), "mcp__gh__x");
        let own = serde_json::json!({"path": "/p/a.rs", "offset": 1});
        let claude = names.input_in(Agent::ClaudeCode, "read", &own);
        assert_eq!(
            claude,
            serde_json::json!({"file_path": "/p/a.rs", "offset": 1})
        );
        let updated = serde_json::json!({"file_path": "/p/b.rs", "offset": 1});
        assert_eq!(
            names.input_back(Agent::ClaudeCode, "read", &updated, &own),
            serde_json::json!({"path": "/p/b.rs", "offset": 1})
        );
        let already = serde_json::json!({"file_path": "/p/a.rs"});
        assert_eq!(names.input_in(Agent::ClaudeCode, "read", &already), already);
        assert_eq!(
            names.input_back(Agent::ClaudeCode, "read", &already, &already),
            already
        );
    }
}
