//! What one agent is to agent-hooks, as data: a [`Profile`] per agent, written once in that
//! agent's module.

use std::time::Duration;

use crate::event::CommandEvent;

/// The `timeout` a hooks file's command hook gets when it gives none, unless its agent has
/// a default of its own.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

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

/// The value of a variable an agent gives its hooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookEnv {
    /// The project folder.
    ProjectDir,
    /// The session's id.
    SessionId,
    /// The folder of the hook's file.
    HookFileFolder,
    /// A fixed text.
    Text(&'static str),
}

/// The folders a hooks file lies in, from the outermost, as [`Profile::owns_file`] reads
/// them.
#[derive(Debug)]
pub struct FileFolders<'a> {
    /// The hooks file.
    pub path: &'a std::path::Path,
    /// The names of its folders, outermost first.
    pub folders: &'a [String],
}

impl FileFolders<'_> {
    /// Whether one of its folders is named `name`.
    pub fn has(&self, name: &str) -> bool {
        self.folders.iter().any(|f| f == name)
    }

    /// The folder the file is in.
    pub fn last(&self) -> Option<&str> {
        self.folders.last().map(String::as_str)
    }

    /// The folder above [`last`](Self::last).
    pub fn parent(&self) -> Option<&str> {
        let i = self.folders.len().checked_sub(2)?;
        Some(self.folders[i].as_str())
    }
}

/// Some of an agent's hooks files at one level: one discovery provider.
#[derive(Debug, Clone, Copy)]
pub struct Place {
    /// The provider's name, shown as the source of its entries (`codex (user)`).
    pub provider: &'static str,
    /// Its priority among the providers (higher first; its entries shadow later ones).
    pub priority: i32,
    /// Under the project folder (`true`, hooks that run once trusted), or the home folder.
    pub project: bool,
    /// What is there.
    pub files: PlaceFiles,
}

/// The files of a [`Place`], relative to the home folder or the project.
#[derive(Debug, Clone, Copy)]
pub enum PlaceFiles {
    /// These files; `true`: a settings file that counts only with a `hooks` key (a `.toml`
    /// one only with a `[hooks]` table).
    Files(&'static [(&'static str, bool)]),
    /// Every `*.json` at the top of this folder, in name order; when the variable is set,
    /// its value's `hooks` folder instead (Copilot CLI's `COPILOT_HOME`).
    Folder(&'static str, Option<&'static str>),
    /// Every file at the top of this folder whose name the function takes as one of the
    /// agent's events (Cline's hook files, named after their event), in name order; when the
    /// variable is set, its value's `hooks` folder instead (Cline's `CLINE_DIR`).
    EventFiles(&'static str, Option<&'static str>, fn(&str) -> bool),
}

/// An agent's managed (system-wide, root-owned) files.
#[derive(Debug, Clone, Copy)]
pub struct Managed {
    /// The provider's name (`claude-code (managed)`).
    pub provider: &'static str,
    /// Its priority among the managed providers.
    pub priority: i32,
    /// Each path under a system root (`etc/<agent>/...`), and whether it is a drop-in
    /// folder (every `*.json` and `*.toml` at its top, in name order) rather than a file.
    pub files: &'static [(&'static str, bool)],
}

/// Everything agent-hooks knows of one agent that is a fact rather than a procedure: its
/// names, its hooks files' rules, what its hooks see and what it makes of their answers, the
/// variables it gives them, and the events `agent-hooks install` wires. Measured with the
/// real agent where the agent runs here (tests/real-agents), from its docs where it does not.
#[derive(Debug)]
pub struct Profile {
    /// Its name, as `list` shows it (`claude-code`).
    pub name: &'static str,
    /// Its name for people (`Claude Code`).
    pub title: &'static str,
    /// The name `agent-hooks hook --agent` and `install --agent` take (`claude`), for an
    /// agent that runs agent-hooks; `None` for one whose files agent-hooks only reads.
    pub hook_name: Option<&'static str>,
    /// Where its hooks files are that a plain provider finds (Claude Code's settings and
    /// plugins, and Gemini CLI's extensions, have providers of their own in `discover/`).
    pub places: &'static [Place],
    /// Its managed files.
    pub managed: Option<Managed>,
    /// Whether a hooks file at this place is its own (asked in the order of
    /// [`Agent::BY_FILE`](super::Agent::BY_FILE)).
    pub owns_file: fn(&FileFolders) -> bool,
    /// How its matchers are read in a file whose events stand under a `"hooks"` key, and
    /// in one whose events are its top level.
    pub matcher_rule: (MatcherRule, MatcherRule),
    /// How many seconds one unit of `timeout` is.
    pub timeout_unit: f64,
    /// The `timeout` of a command hook that gives none.
    pub default_timeout: Duration,
    /// Its names of events, where they are not Claude Code's: (name, event), `None` where
    /// agent-hooks has no moment for the event.
    pub event_names: &'static [(&'static str, Option<CommandEvent>)],
    /// Whether [`event_names`](Self::event_names) is its whole list of events (its files
    /// take no Claude Code names), rather than aliases beside Claude Code's.
    pub events_of_its_own: bool,
    /// Keys beside the events in its `hooks` object that are not events.
    pub not_events: &'static [&'static str],
    /// The key beside the events that lists the names of hooks turned off (Gemini CLI's
    /// `disabled`), if it has one.
    pub disabled_list: Option<&'static str>,
    /// The events its `agent-hooks hook` entry is installed for, by its names.
    pub installed_events: &'static [&'static str],
    /// The file `install` writes its entry into, under the home folder and under the
    /// project (empty for an agent that does not run agent-hooks).
    pub entry_files: (&'static str, &'static str),
    /// Whether that file is a hooks file of agent-hooks' own, written whole
    /// ([`Agent::entry_file`](super::Agent::entry_file)), rather than entries added to the
    /// agent's own file.
    pub entry_file_whole: bool,
    /// The fields its entry's hook carries besides `type` and `command`: a name, and a
    /// `timeout` in its unit (agent-hooks bounds each hook itself; the entry allows 10
    /// minutes where the agent's default is shorter).
    pub entry_fields: (Option<&'static str>, Option<u64>),
    /// Whether it takes agent-hooks' HTTP entries (`install --http`).
    pub http_entries: bool,
    /// Whether its settings files may hold comments and trailing commas (it does not read
    /// strict JSON).
    pub lenient_json: bool,
    /// What `install` adds for the user after wiring it, when the agent asks something of
    /// them.
    pub after_install: Option<&'static str>,
    /// The exit code of a problem that blocks nothing, as its own hooks fail open.
    pub fail_open_exit: u8,
    /// The agents whose project-level hooks files it also runs itself.
    pub also_runs_project_files_of: &'static [super::Agent],
    /// Whether it ignores `once` in a settings file's hook (and runs the hook every time).
    pub ignores_once: bool,
    /// Whether its managed files carry rules over every hook (`allowManagedHooksOnly`, ...).
    pub managed_rules: bool,
    /// Whether its payloads and answers are its own rather than Claude Code's fields.
    pub own_payload: bool,
    /// Whether a hook's text that is not JSON is shown to the user on exit 0 and blocks on
    /// exit codes above 2, rather than read as Claude Code reads it.
    pub plain_text_is_a_message: bool,
    /// The events on which it does not read a hook's `additionalContext`.
    pub ignores_context_on: &'static [CommandEvent],
    /// The events on which a block's reason replaces the tool's result for the model,
    /// rather than being added after it.
    pub reason_replaces_result_on: &'static [CommandEvent],
    /// Whether, when one of an event's hooks blocks, it shows the model the reasons of the
    /// event's other hooks too, an allowing hook's included.
    pub shows_every_reason_with_a_block: bool,
    /// Payload fields it sends that the others do not.
    pub extra_fields: &'static [&'static str],
    /// Common payload fields it sends under another name: (common name, its name).
    pub renamed_fields: &'static [(&'static str, &'static str)],
    /// Common payload fields it does not send: (field, the events; none: on every event).
    pub absent_fields: &'static [(&'static str, &'static [CommandEvent])],
    /// Fields of a tool's response it also gives under these names, holding `output`.
    pub tool_output_also_as: &'static [&'static str],
    /// The variables it gives its hooks besides `AGENT_HOOKS_PROJECT_DIR`.
    pub env: &'static [(&'static str, HookEnv)],
    /// Whether it gives its hooks `CLAUDE_ENV_FILE`.
    pub has_env_file: bool,
    /// agent-hooks' own tools by its names: (own name, its name).
    pub tools: &'static [(&'static str, &'static str)],
    /// The name it gives a file tool's `path` field.
    pub file_path_field: Option<&'static str>,
    /// Other names its matchers also select a tool by: (tool, names).
    pub matcher_aliases: &'static [(&'static str, &'static [&'static str])],
    /// Whether it reads `continue: false` in the answer before a tool (Codex CLI does not,
    /// and runs the tool when the answer holds one: it gets the block alone).
    pub reads_continue_before_a_tool: bool,
    /// The field of a rewritten tool input in its answer (`updatedInput`).
    pub rewritten_input_field: &'static str,
    /// Whether a rewritten input needs `permissionDecision: allow` beside it to be run
    /// (Codex CLI runs the original input otherwise).
    pub rewrite_needs_allow: bool,
    /// Whether its answer denies and asks with the top-level `decision` (`deny`, `ask`)
    /// rather than Claude Code's `block` and `hookSpecificOutput.permissionDecision`.
    pub top_level_decision: bool,
    /// Whether a hook on one of Claude Code's (PascalCase) event names sees Claude Code's
    /// tool names and fields rather than its own (Copilot CLI's VS Code-compatible form).
    pub claude_form_for_claude_names: bool,
    /// The key of its settings file that names a status line command (`statusLine`), which
    /// gets a JSON status input on stdin and whose first line of output it shows the user.
    pub status_line: Option<&'static str>,
}
