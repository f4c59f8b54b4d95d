//! Command hooks: shell commands configured in JSON (docs/command-hooks.md), run as real processes with a
//! JSON payload on stdin, answering with an exit code and JSON on stdout. (A plugin's slash
//! command is something else: [`SlashCommand`](crate::SlashCommand).)
//!
//! ```
//! use std::path::Path;
//!
//! use agent_hooks::command_hook::{CommandEvent, CommandHooks};
//!
//! let mut hooks = CommandHooks::new();
//! hooks.parse(
//!     r#"{"hooks": {"PreToolUse": [{"matcher": "Bash",
//!         "hooks": [{"type": "command", "command": "./guard.sh"}]}]}}"#,
//!     Path::new("settings.json"),
//! );
//! assert!(hooks.issues().is_empty());
//! assert!(hooks.listens(CommandEvent::PreToolUse));
//! // Give them to the runner: `HookRunner::add_command_hooks(hooks)`.
//! ```

mod answer;
mod condition;
mod config;

pub(crate) mod flat_file;
mod handler;
mod host_call;
mod http;
mod matcher;
mod outcome;
mod process;

use std::{
    path::{Path, PathBuf},
    sync::Arc,
    time::Duration,
};

use serde_json::{Map, Value};

use crate::agent::{Agent, Profiles};

pub use crate::event::{CommandEvent, EventSpec, Exit2, EVENTS};
pub use crate::host::{HostCallError, HostCallKind, McpToolCall, ModelRequest};
pub use crate::host::{ToolAlias, ToolNames};
pub(crate) use answer::adapt;
pub use answer::Answer;
pub(crate) use answer::{did_not_answer, exit_2, interpret as interpret_answer, read_json};
pub use condition::Condition;
pub(crate) use config::parse_hooks_value;
pub use config::{CommandHook, ConfigIssue, HookKind, Persistence, Severity};
/// For the `agent-hooks` program: not part of the host's API.
pub use handler::{Handler, OnFailure, Shell};
pub(crate) use host_call::reply_run;
pub use host_call::HostCall;
pub(crate) use host_call::PROMPT_TIMEOUT;
pub use http::{HttpTarget, Posted};
pub use matcher::Matcher;
pub(crate) use outcome::strength;
pub use outcome::CommandOutcome;
pub(crate) use process::{run, RunSpec};
pub use process::{Exit, Run, OUTPUT_CAP};

/// The command hooks of an agent, from any number of hooks files and script folders, in
/// configuration order.
#[derive(Debug, Clone, Default)]
pub struct CommandHooks {
    hooks: Vec<Arc<CommandHook>>,
    issues: Vec<ConfigIssue>,
}

impl CommandHooks {
    /// No hooks.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds hooks read from a file, and the file's problems, after those already there.
    pub(crate) fn extend(
        &mut self,
        hooks: Vec<CommandHook>,
        issues: Vec<ConfigIssue>,
    ) -> &mut Self {
        self.hooks.extend(hooks.into_iter().map(Arc::new));
        self.issues.extend(issues);
        self
    }

    /// Makes required (as `"required": true` in its file does) every hook `chosen` picks;
    /// returns how many it picked.
    pub(crate) fn require_where(&mut self, chosen: impl Fn(&CommandHook) -> bool) -> usize {
        let mut picked = 0;
        for hook in &mut self.hooks {
            if chosen(hook) {
                Arc::make_mut(hook).required = true;
                picked += 1;
            }
        }
        picked
    }

    /// Sets which hooks observe (their answers recorded, not applied): those `observes`
    /// says.
    pub(crate) fn observe_where(&mut self, mut observes: impl FnMut(&CommandHook) -> bool) {
        for hook in &mut self.hooks {
            let observe = observes(hook);
            if hook.observe != observe {
                Arc::make_mut(hook).observe = observe;
            }
        }
    }

    /// Changes the target of every HTTP hook with `edit` (a managed policy narrowing the
    /// variables headers may use).
    pub(crate) fn edit_http(&mut self, mut edit: impl FnMut(&mut HttpTarget)) {
        for hook in &mut self.hooks {
            if matches!(hook.kind, HookKind::Http(_)) {
                if let HookKind::Http(target) = &mut Arc::make_mut(hook).kind {
                    edit(target);
                }
            }
        }
    }

    /// Adds a problem found after the files were read (a hook that did not start).
    pub(crate) fn push_issue(&mut self, issue: ConfigIssue) {
        self.issues.push(issue);
    }

    /// Adds `other`'s hooks and issues after these.
    pub fn append(&mut self, other: CommandHooks) -> &mut Self {
        self.hooks.extend(other.hooks);
        self.issues.extend(other.issues);
        self
    }

    /// Makes every long-running hook that starts on its first event (`"persistent": true`)
    /// start when a runner gets the hooks instead (as `"persistent": "startup"`), so that one
    /// that does not start is an issue of the runner's hooks at once: for a check such as
    /// `agent-hooks doctor`, which runs no event.
    pub fn start_long_running_at_once(&mut self) -> &mut Self {
        for hook in &mut self.hooks {
            if matches!(
                hook.kind.persistence(),
                Some(Persistence::Session | Persistence::User)
            ) {
                if let HookKind::LongRunning { persistence, .. } = &mut Arc::make_mut(hook).kind {
                    *persistence = Persistence::Startup;
                }
            }
        }
        self
    }

    /// Keeps only the hooks for which `keep` says true (the issues stay).
    pub fn retain(&mut self, mut keep: impl FnMut(&CommandHook) -> bool) -> &mut Self {
        self.hooks.retain(|hook| keep(hook));
        self
    }

    /// The hooks, in configuration order.
    pub fn hooks(&self) -> impl Iterator<Item = &CommandHook> + '_ {
        self.hooks.iter().map(Arc::as_ref)
    }

    /// The problems found in the files.
    pub fn issues(&self) -> &[ConfigIssue] {
        &self.issues
    }

    /// Whether any hook listens to `event`.
    pub fn listens(&self, event: CommandEvent) -> bool {
        self.hooks.iter().any(|h| h.event == event)
    }

    /// The hooks that run on `event` with payload `fields`, in configuration order: their
    /// matcher selects the event's subject (a tool by its name in the hook's dialect), and
    /// their `if` rule the tool call. A command configured twice for the event (e.g. in two
    /// files) runs once, the first time.
    pub(crate) fn matching(
        &self,
        event: CommandEvent,
        fields: &Map<String, Value>,
        tools: &ToolNames,
        profiles: Profiles,
        cwd: &Path,
    ) -> Vec<Arc<CommandHook>> {
        let subject = event
            .subject()
            .and_then(|key| fields.get(key))
            .and_then(Value::as_str);
        let tool_input = fields.get("tool_input").unwrap_or(&Value::Null);
        let mut selected: Vec<Arc<CommandHook>> = Vec::new();
        for hook in &self.hooks {
            if hook.event != event || selected.iter().any(|s| s.kind.label() == hook.kind.label()) {
                continue;
            }
            let dialect = profiles.tool_dialect(hook.dialect, &hook.event_name);
            let name = match subject {
                Some(tool) if event.has_tool() => tools.name_in(dialect, tool),
                other => other.unwrap_or_default(),
            };
            // A matcher needs the subject: without it, only a match-all matcher runs.
            let selects = match (&hook.matcher, event.subject()) {
                (Matcher::All, _) | (_, None) => true,
                _ => {
                    subject.is_some()
                        && (hook.matcher.matches(name)
                            || profiles
                                .of(hook.dialect)
                                .matcher_aliases(name)
                                .iter()
                                .any(|alias| hook.matcher.matches(alias)))
                }
            };
            if !selects {
                continue;
            }
            if let Some(condition) = &hook.condition {
                let input = match subject {
                    Some(tool) => tools.input_view(dialect, tool, tool_input),
                    None => std::borrow::Cow::Owned(Value::Null),
                };
                if !condition.matches(name, &input, cwd) {
                    continue;
                }
            }
            selected.push(hook.clone());
        }
        selected
    }
}

/// Quotes `text` for `sh`, so that a path with spaces or quotes is one word. For the
/// `agent-hooks` program: not part of the host's API.
#[doc(hidden)]
pub fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// What one command hook did in one emit, for the host to log.
#[derive(Debug, Clone)]
pub struct CommandHookReport {
    /// The event it ran for.
    pub event: CommandEvent,
    /// The agent its file was written for.
    pub dialect: Agent,
    /// It ran in the background (`async`): its answer decided nothing.
    pub background: bool,
    /// Its command.
    pub command: String,
    /// The file (or script) it came from.
    pub source: PathBuf,
    /// How its process ended.
    pub exit: Exit,
    /// How long it ran.
    pub duration: Duration,
    /// Its stdout was cut at [`OUTPUT_CAP`].
    pub stdout_truncated: bool,
    /// Its stderr was cut at [`OUTPUT_CAP`] (a long-running hook's at
    /// [`STDERR_LOG`](crate::isolation::STDERR_LOG)).
    pub stderr_truncated: bool,
    /// What it wrote to stderr (a long-running hook: since the previous event), for the
    /// host's log.
    pub stderr: String,
    /// It observes: its answer (below) was recorded, not applied.
    pub observed: bool,
    /// What it decided, and what was wrong with its answer.
    pub answer: Answer,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_keeps_spaces_and_quotes_in_one_word() {
        assert_eq!(shell_quote("/a b/it's.sh"), r"'/a b/it'\''s.sh'");
    }

    #[test]
    fn the_same_command_in_two_files_runs_once() {
        let mut hooks = CommandHooks::new();
        let file = r#"{"PreToolUse": [{"matcher": "exec", "hooks": [{"command": "./guard.sh"}]}]}"#;
        hooks.parse(file, Path::new("a.json"));
        hooks.parse(file, Path::new("b.json"));
        let call = |tool: &str| {
            let fields = serde_json::json!({"tool_name": tool});
            hooks.matching(
                CommandEvent::PreToolUse,
                fields.as_object().unwrap(),
                &ToolNames::default(),
                crate::agents::PROFILES,
                Path::new("/p"),
            )
        };
        let matching = call("exec");
        assert_eq!(matching.len(), 1);
        assert_eq!(matching[0].source, Path::new("a.json"));
        assert!(call("read").is_empty());
    }
}
