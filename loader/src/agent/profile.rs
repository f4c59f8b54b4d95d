//! What one agent is to agent-hooks, as data: a [`Profile`] per agent, written once in that
//! agent's room (`agents/`), and what the floors below the rooms read of it.

use std::{borrow::Cow, time::Duration};

use serde_json::Value;

use super::Agent;
use crate::event::CommandEvent;

/// The `timeout` a hooks file's command hook gets when it gives none, unless its agent has
/// a default of its own.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// How a matcher is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatcherRule {
    /// An unanchored regex; `""` or none matches all.
    Regex,
    /// As [`Regex`](Self::Regex), and `*` also matches all (this project's hooks files: `*`
    /// is "every tool" in the common rule, and alone it is no valid regex, so reading it so
    /// changes no other matcher).
    RegexOrStar,
    /// The common rule: `*`, `""` or none match all; letters, digits, `_` and `|` only
    /// is an exact name or a `|` list of names; anything else an unanchored regex.
    Common,
    /// A regex for tool events, an exact string for the others.
    RegexOnTools,
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
    /// The provider's name, shown as the source of its entries (`<agent> (user)`).
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
    /// its value's `hooks` folder instead.
    Folder(&'static str, Option<&'static str>),
    /// Every file at the top of this folder whose name the function takes as one of the
    /// agent's events (hook files named after their event), in name order; when the variable
    /// (the agent's own folder) is set, its value's `hooks` folder instead.
    EventFiles(&'static str, Option<&'static str>, fn(&str) -> bool),
    /// The scripts of this folder's `pre/` and `post/` (run before and after a tool), keyed
    /// by tool and file name like every hooks folder's scripts ([`SCRIPT_FOLDERS`]).
    Scripts(&'static str),
}

/// The folders of scripts in a hooks folder, each with the event its scripts run on:
/// `pre/` before a tool, `post/` after it.
pub const SCRIPT_FOLDERS: [(&str, CommandEvent); 2] = [
    ("pre", CommandEvent::PreToolUse),
    ("post", CommandEvent::PostToolUse),
];

/// Hooks files of the user's that an agent finds by rules of its own (its extensions, its
/// plugins): one discovery provider, which runs the agent's procedure.
#[derive(Debug, Clone, Copy)]
pub struct OwnFiles {
    /// The provider's name.
    pub provider: &'static str,
    /// Its priority among the providers (higher first; its entries shadow later ones).
    pub priority: i32,
    /// The procedure: the files for the home folder and the project folder.
    pub find: fn(home: &std::path::Path, cwd: &std::path::Path) -> FoundFiles,
    /// The hooks file of one of them given as a folder (`--hook`), if the folder is one and
    /// has one.
    pub folder_hooks: Option<fn(&std::path::Path) -> Option<std::path::PathBuf>>,
}

/// What the procedure of an agent's [`OwnFiles`] found.
#[derive(Debug, Default)]
pub struct FoundFiles {
    /// Each file: its name as `list` shows it, the source its hooks say they come from, its
    /// path.
    pub files: Vec<(String, String, std::path::PathBuf)>,
    /// What the agent skips and its hooks here too, said.
    pub warnings: Vec<String>,
}

/// An agent's managed (system-wide, root-owned) files.
#[derive(Debug, Clone, Copy)]
pub struct Managed {
    /// The provider's name (`<agent> (managed)`).
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
    /// Its name, as `list` shows it.
    pub name: &'static str,
    /// Its name for people.
    pub title: &'static str,
    /// The name `agent-hooks hook --agent` and `install --agent` take, for an
    /// agent that runs agent-hooks; `None` for one whose files agent-hooks only reads.
    pub hook_name: Option<&'static str>,
    /// Where its hooks files are that a plain provider finds (its plugins and extensions are
    /// its [`own_files`](Self::own_files)).
    pub places: &'static [Place],
    /// Its managed files.
    pub managed: Option<Managed>,
    /// Whether a hooks file at this place is its own (asked in the order of
    /// [`Agent::BY_FILE`]).
    pub owns_file: fn(&FileFolders) -> bool,
    /// How its matchers are read in a file whose events stand under a `"hooks"` key, and
    /// in one whose events are its top level.
    pub matcher_rule: (MatcherRule, MatcherRule),
    /// How many seconds one unit of `timeout` is.
    pub timeout_unit: f64,
    /// How many seconds one unit of a `timeout` is where that depends on the number (1000 or
    /// more read as milliseconds, say), in place of [`timeout_unit`](Self::timeout_unit).
    pub timeout_unit_by_value: Option<fn(&Value) -> f64>,
    /// The `timeout` of a command hook that gives none.
    pub default_timeout: Duration,
    /// Its names of events, where they are not the common ones: (name, event), `None` where
    /// agent-hooks has no moment for the event.
    pub event_names: &'static [(&'static str, Option<CommandEvent>)],
    /// Whether [`event_names`](Self::event_names) is its whole list of events (its files
    /// take no common names), rather than aliases beside the common ones.
    pub events_of_its_own: bool,
    /// Keys beside the events in its `hooks` object that are not events.
    pub not_events: &'static [&'static str],
    /// The key beside the events that lists the names of hooks turned off, if it has one.
    pub disabled_list: Option<&'static str>,
    /// The events its `agent-hooks hook` entry is installed for, by its names.
    pub installed_events: &'static [&'static str],
    /// The file `install` writes its entry into, under the home folder and under the
    /// project (empty for an agent that does not run agent-hooks).
    pub entry_files: (&'static str, &'static str),
    /// Whether that file is a hooks file of agent-hooks' own, written whole
    /// (`Agent::entry_file`), rather than entries added to the
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
    pub also_runs_project_files_of: &'static [Agent],
    /// Whether it ignores `once` in a settings file's hook (and runs the hook every time).
    pub ignores_once: bool,
    /// Whether its managed files carry rules over every hook (`allowManagedHooksOnly`, ...).
    pub managed_rules: bool,
    /// Whether its payloads and answers are its own rather than the common fields.
    pub own_payload: bool,
    /// Whether a hook's text that is not JSON is shown to the user on exit 0 and blocks on
    /// exit codes above 2, rather than read as the common form reads it.
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
    /// Whether it reads `continue: false` in the answer before a tool (where it does not, it
    /// runs the tool when the answer holds one: it gets the block alone).
    pub reads_continue_before_a_tool: bool,
    /// The field of a rewritten tool input in its answer (`updatedInput`).
    pub rewritten_input_field: &'static str,
    /// Whether a rewritten input needs `permissionDecision: allow` beside it to be run
    /// (otherwise it runs the original input).
    pub rewrite_needs_allow: bool,
    /// Whether its answer denies and asks with the top-level `decision` (`deny`, `ask`)
    /// rather than the common `block` and `hookSpecificOutput.permissionDecision`.
    pub top_level_decision: bool,
    /// Whether a hook on one of the common (PascalCase) event names sees the common tool
    /// names and fields rather than its own.
    pub claude_form_for_claude_names: bool,
    /// The key of its settings file that names a status line command (`statusLine`), which
    /// gets a JSON status input on stdin and whose first line of output it shows the user.
    pub status_line: Option<&'static str>,
    /// The events on which it turns every failure of a hook of its own files into a deny
    /// (docs/command-hooks.md says which), so that a hook that cannot run blocks every call
    /// it matches.
    pub failure_denies_on: &'static [CommandEvent],
    /// What it does with a `PreToolUse` hook's answer where agent-hooks deliberately does
    /// otherwise (docs/real-agents.md, measured with the real agent): the sentence (`<agent>
    /// runs the tool when this hook ...`) and the answers it is about.
    pub runs_the_tool_anyway: Option<(&'static str, &'static [HookAnswer])>,
    /// What else the resident process watches beside its places, under the home folder and
    /// under the project: its own folder (made or removed, it changes what is found) and
    /// the files it reads beside them.
    pub other_places: &'static [&'static str],
    /// Why it takes no HTTP entries of agent-hooks' where it has HTTP hooks of its own (what
    /// `install --http` says).
    pub http_refused: Option<&'static str>,
    /// Its events this runner has no moment for at all (not even one a host could emit):
    /// (name, why), named in the configuration issue, never silently dropped.
    pub unsupported_events: &'static [(&'static str, &'static str)],
    /// The hooks files of the user's it finds by rules of its own (its extensions, its
    /// plugins), each a provider.
    pub own_files: &'static [OwnFiles],
}

/// An answer a hook may give, as a note on what an agent does with it names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookAnswer {
    /// `"continue": false`.
    Continue,
    /// `deny` (`decision`, `permissionDecision`).
    Deny,
    /// `"ask"`.
    Ask,
    /// Exit code 2.
    Exit2,
}

impl Profile {
    /// The test of a file's name that its places of hook files named after events take
    /// ([`PlaceFiles::EventFiles`]), where it has such places.
    pub fn event_file_names(&self) -> Option<fn(&str) -> bool> {
        self.places.iter().find_map(|place| match place.files {
            PlaceFiles::EventFiles(_, _, is_event) => Some(is_event),
            _ => None,
        })
    }

    /// How its matchers are read; `settings_form` tells whether the events stand under a
    /// `"hooks"` key.
    pub fn matcher_rule(&self, settings_form: bool) -> MatcherRule {
        let (settings, flat) = self.matcher_rule;
        if settings_form {
            settings
        } else {
            flat
        }
    }

    /// Whether it reads `additionalContext` on `event`.
    pub fn reads_context(&self, event: CommandEvent) -> bool {
        !self.ignores_context_on.contains(&event)
    }

    /// Whether a block's reason on `event` replaces the tool's result for the model, rather
    /// than being added after it.
    pub fn feedback_replaces_result(&self, event: CommandEvent) -> bool {
        self.reason_replaces_result_on.contains(&event)
    }

    /// A tool's `tool_response` with the fields it documents under other names
    /// ([`tool_output_also_as`](Self::tool_output_also_as)).
    pub fn tool_response<'v>(&self, response: &'v Value) -> Cow<'v, Value> {
        let names = self.tool_output_also_as;
        match response {
            Value::Object(fields) if !names.is_empty() => {
                let output = fields.get("output").cloned().unwrap_or(Value::Null);
                let mut fields = fields.clone();
                for name in names {
                    fields.entry(*name).or_insert(output.clone());
                }
                Cow::Owned(Value::Object(fields))
            }
            _ => Cow::Borrowed(response),
        }
    }

    /// The name of the common payload field `field` in its payloads of `event`, or `None`
    /// where it does not send it ([`renamed_fields`](Self::renamed_fields),
    /// [`absent_fields`](Self::absent_fields)).
    pub fn payload_field(&self, event: CommandEvent, field: &'static str) -> Option<&'static str> {
        let absent = self
            .absent_fields
            .iter()
            .any(|(name, on)| *name == field && (on.is_empty() || on.contains(&event)));
        if absent {
            return None;
        }
        let renamed = self.renamed_fields.iter().find(|(name, _)| *name == field);
        Some(renamed.map_or(field, |(_, theirs)| *theirs))
    }

    /// Whether it sends the common payload field `field` on no event.
    pub fn never_sends(&self, field: &str) -> bool {
        self.absent_fields
            .iter()
            .any(|(name, on)| *name == field && on.is_empty())
    }

    /// The name its hooks files give `event` (and its hooks see as `hook_event_name`): its
    /// own name where it has one, otherwise the common one. Every file accepts every name;
    /// this is the one its agent writes.
    pub fn event_name(&self, event: CommandEvent) -> &'static str {
        self.event_names
            .iter()
            .find(|(_, e)| *e == Some(event))
            .map_or(event.name(), |(name, _)| name)
    }

    /// The names of `event` in an agent with an event list of its own (`None` for the
    /// others, whose names are aliases over the common ones): one event may have several (a
    /// shell command's and a file read's events may both be `PreToolUse`), or none.
    pub fn own_event_names(&self, event: CommandEvent) -> Option<Vec<&'static str>> {
        self.events_of_its_own.then(|| {
            self.event_names
                .iter()
                .filter(|(_, e)| *e == Some(event))
                .map(|(name, _)| *name)
                .collect()
        })
    }

    /// The event its name `name` stands for, in an agent with an event list of its own:
    /// `Some(None)` for one of its events agent-hooks has no moment for, `None` for a name
    /// not in its list.
    pub fn own_event(&self, name: &str) -> Option<Option<CommandEvent>> {
        if !self.events_of_its_own {
            return None;
        }
        self.event_names
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, event)| *event)
    }

    /// The other names its matchers also select a tool named `name` by.
    pub fn matcher_aliases(&self, name: &str) -> &'static [&'static str] {
        self.matcher_aliases
            .iter()
            .find(|(tool, _)| *tool == name)
            .map_or(&[], |(_, names)| names)
    }
}
