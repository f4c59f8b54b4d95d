//! Command hooks: shell commands configured in JSON (spec 02), run as real processes with a
//! JSON payload on stdin, answering with an exit code and JSON on stdout.

mod answer;
mod config;
mod event;
mod matcher;
mod process;

use std::{
    path::{Path, PathBuf},
    sync::Arc,
    time::Duration,
};

pub use answer::{did_not_answer, interpret, Answer};
pub use config::{
    load_hooks_file, parse_hooks, parse_hooks_bytes, CommandHook, ConfigIssue, Severity,
    DEFAULT_TIMEOUT, MAX_TIMEOUT,
};
pub use event::CommandEvent;
pub use matcher::{Dialect, Matcher};
pub use process::{run, Exit, Run, RunSpec, KILL_GRACE, OUTPUT_CAP};

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

    /// Adds the hooks of the hooks file at `path` (either form of spec 02) after those
    /// already there; its problems are added to [`issues`](Self::issues).
    pub fn load_file(&mut self, path: &Path) -> &mut Self {
        let (hooks, issues) = load_hooks_file(path);
        self.extend(hooks, issues)
    }

    /// Adds the hooks of hooks JSON `bytes`, read (and checked) from `source`.
    pub fn load_bytes(&mut self, bytes: &[u8], source: &Path) -> &mut Self {
        let (hooks, issues) = parse_hooks_bytes(bytes, source);
        self.extend(hooks, issues)
    }

    /// Adds the hooks of hooks JSON `text`, read from `source`.
    pub fn parse(&mut self, text: &str, source: &Path) -> &mut Self {
        let (hooks, issues) = parse_hooks(text, source);
        self.extend(hooks, issues)
    }

    fn extend(&mut self, hooks: Vec<CommandHook>, issues: Vec<ConfigIssue>) -> &mut Self {
        self.hooks.extend(hooks.into_iter().map(Arc::new));
        self.issues.extend(issues);
        self
    }

    /// Adds a legacy hook script: an executable in a `pre/` (`PreToolUse`) or `post/`
    /// (`PostToolUse`) folder named `<tool>.<ext>`, which runs for that tool (`*`: every
    /// tool) with the same protocol as any command hook.
    pub fn add_script(&mut self, script: &Path, event: CommandEvent) -> &mut Self {
        let tool = script
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let matcher = if tool == "*" {
            Matcher::All
        } else {
            Matcher::Names(vec![tool.clone()])
        };
        self.hooks.push(Arc::new(CommandHook {
            event,
            matcher_text: Some(tool),
            matcher,
            command: shell_quote(&script.to_string_lossy()),
            timeout: DEFAULT_TIMEOUT,
            source: script.to_path_buf(),
            required: false,
        }));
        self
    }

    /// Adds `other`'s hooks and issues after these.
    pub fn append(&mut self, other: CommandHooks) -> &mut Self {
        self.hooks.extend(other.hooks);
        self.issues.extend(other.issues);
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

    /// The hooks that run on `event` for `tool_name`, in configuration order; a command
    /// configured twice for the event (e.g. in two files) runs once, the first time.
    pub(crate) fn matching(
        &self,
        event: CommandEvent,
        tool_name: Option<&str>,
    ) -> Vec<Arc<CommandHook>> {
        let mut selected: Vec<Arc<CommandHook>> = Vec::new();
        for hook in &self.hooks {
            let matches = hook.event == event
                && (!event.has_tool() || tool_name.is_none_or(|t| hook.matcher.matches(t)));
            if matches && !selected.iter().any(|s| s.command == hook.command) {
                selected.push(hook.clone());
            }
        }
        selected
    }
}

/// Quotes `text` for `sh`, so that a path with spaces or quotes is one word.
pub fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// What one command hook did in one emit, for the host to log.
#[derive(Debug, Clone)]
pub struct CommandHookReport {
    /// The event it ran for.
    pub event: CommandEvent,
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
    /// Its stderr was cut at [`OUTPUT_CAP`].
    pub stderr_truncated: bool,
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
        let matching = hooks.matching(CommandEvent::PreToolUse, Some("exec"));
        assert_eq!(matching.len(), 1);
        assert_eq!(matching[0].source, Path::new("a.json"));
        assert!(hooks
            .matching(CommandEvent::PreToolUse, Some("read"))
            .is_empty());
    }
}
