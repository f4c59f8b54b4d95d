//! The hooks reference's handler fields beyond `command`, `timeout`, `if`, `async`, `once`
//! and `statusMessage`, read with the meaning the agent of that reference gives them (the
//! reference, and the real agent where the two differ: tests/real-agents):
//!
//! - `args`: the exec form. `command` is the program (found on `PATH` when it has no `/`)
//!   and `args` its arguments, with no shell in between; `${CLAUDE_PROJECT_DIR}` and
//!   `${CLAUDE_PLUGIN_ROOT}` are filled in each of them as plain text, so a path with quotes,
//!   `$` or backquotes never reaches a shell.
//! - `shell`: `"powershell"` runs the command with `pwsh -Command`; `"bash"` (the default)
//!   with `/bin/sh -c`, as every command hook here: that is what the real agent does on
//!   Linux and macOS (measured: `$0` is `/bin/sh`, `BASH_VERSION` unset), although the
//!   reference says `"bash"` uses `$SHELL`.
//! - `asyncRewake`: runs in the background as `async` does, and an exit code 2 wakes the
//!   agent: its stderr (its stdout when stderr is empty) goes to the model as a message that
//!   starts a turn.
//! - `onFailure: "block"`: a failure of the hook (it could not start, timed out, was killed,
//!   exited with a code other than 0 and 2, or printed JSON that is invalid or not
//!   understood) counts as exit code 2 on its event: it blocks a tool call, a permission
//!   request or a prompt, and is fed back or shown where the event cannot block. On
//!   `PreToolUse` the hook is also required (docs/fail-closed.md). Ignored for `async`
//!   hooks and on `Stop`, `SubagentStop`, `TaskCompleted` and `TeammateIdle`, as by the
//!   reference. `"continue"` (the default) reports the failure and goes on.
//! - `continueOnBlock` belongs to `prompt` and `agent` handlers; the agent ignores it on a
//!   command hook, and so does this runner, saying so.

use std::{ffi::OsString, path::Path};

use serde_json::Value;

use super::answer::{exit_2, Answer};
use crate::event::CommandEvent;

/// The shell a command hook's `command` runs in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Shell {
    /// No `shell` given: `/bin/sh -c`.
    #[default]
    Sh,
    /// `"shell": "bash"`: `/bin/sh -c` too, as the real agent runs it (see the module's docs).
    Bash,
    /// `"shell": "powershell"`: `pwsh -NoProfile -NonInteractive -Command`.
    PowerShell,
}

/// What a failure of the hook does: its `onFailure`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum OnFailure {
    /// `"continue"` (the default): reported, and the action goes ahead.
    #[default]
    Continue,
    /// `"block"`: counts as exit code 2 on the hook's event.
    Block,
}

/// The events where `onFailure` is ignored (the reference's list).
const NO_ON_FAILURE: [CommandEvent; 4] = [
    CommandEvent::Stop,
    CommandEvent::SubagentStop,
    CommandEvent::TaskCompleted,
    CommandEvent::TeammateIdle,
];

/// A command hook's handler fields of this file (see the module's docs).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Handler {
    /// `args`: the exec form's arguments (`command` is then the program).
    pub args: Option<Vec<String>>,
    /// `shell`.
    pub shell: Shell,
    /// `asyncRewake`: in the background, and an exit code 2 wakes the agent.
    pub async_rewake: bool,
    /// `onFailure`.
    pub on_failure: OnFailure,
}

/// A problem with one of the fields: the field, what is wrong, and whether the hook still
/// runs.
pub(super) struct FieldProblem {
    pub key: &'static str,
    pub message: String,
    pub skips_hook: bool,
}

impl Handler {
    /// Reads the fields of `entry`, a hook of `event` (`http`: an HTTP hook, where only
    /// `onFailure` applies; `run_async`: its `async`). `None` when the hook must not run.
    pub(super) fn read(
        entry: &Value,
        event: CommandEvent,
        http: bool,
        run_async: bool,
        problems: &mut Vec<FieldProblem>,
    ) -> Option<Handler> {
        let mut problem = |key, message: String, skips_hook| {
            problems.push(FieldProblem {
                key,
                message,
                skips_hook,
            })
        };
        let mut handler = Handler::default();
        let only_command =
            |key: &str| format!("`{key}` applies to command hooks only; ignored on this http hook");
        match entry.get("args") {
            None | Some(Value::Null) => {}
            Some(_) if http => problem("args", only_command("args"), false),
            Some(Value::Array(items)) => {
                let args: Option<Vec<String>> = items
                    .iter()
                    .map(|v| v.as_str().map(str::to_owned))
                    .collect();
                match args {
                    Some(args) => handler.args = Some(args),
                    None => {
                        problem(
                            "args",
                            "`args` must be a list of strings; this hook does not run".into(),
                            true,
                        );
                        return None;
                    }
                }
            }
            Some(other) => {
                problem(
                    "args",
                    format!(
                        "`args` must be a list of strings, not {other}; this hook does not run"
                    ),
                    true,
                );
                return None;
            }
        }
        match entry.get("shell") {
            None | Some(Value::Null) => {}
            Some(_) if http => problem("shell", only_command("shell"), false),
            Some(Value::String(name)) if name == "bash" => handler.shell = Shell::Bash,
            Some(Value::String(name)) if name == "powershell" => handler.shell = Shell::PowerShell,
            Some(other) => {
                problem(
                    "shell",
                    format!("`shell` must be \"bash\" or \"powershell\", not {other}; this hook does not run"),
                    true,
                );
                return None;
            }
        }
        if handler.args.is_some() && handler.shell != Shell::Sh {
            problem(
                "shell",
                "`args` runs the program without a shell, so `shell` is ignored".into(),
                false,
            );
        }
        match entry.get("asyncRewake") {
            None | Some(Value::Null) => {}
            Some(_) if http => problem("asyncRewake", only_command("asyncRewake"), false),
            Some(Value::Bool(rewake)) => handler.async_rewake = *rewake,
            Some(other) => problem(
                "asyncRewake",
                format!("`asyncRewake` must be true or false, not {other}; taken as false"),
                false,
            ),
        }
        let in_background = run_async || handler.async_rewake;
        match entry.get("onFailure") {
            None | Some(Value::Null) => {}
            Some(Value::String(what)) if what == "continue" => {}
            Some(value) => {
                if value.as_str() != Some("block") {
                    problem(
                        "onFailure",
                        format!("`onFailure` must be \"continue\" or \"block\", not {value}; taken as \"block\" (a failure blocks)"),
                        false,
                    );
                }
                if in_background {
                    problem(
                        "onFailure",
                        "a hook that runs in the background (`async`, `asyncRewake`) decides nothing, so `onFailure` is ignored".into(),
                        false,
                    );
                } else if NO_ON_FAILURE.contains(&event) {
                    problem(
                        "onFailure",
                        format!("`onFailure` is ignored on {event} (a failure there never keeps the agent going)"),
                        false,
                    );
                } else {
                    handler.on_failure = OnFailure::Block;
                }
            }
        }
        if entry.get("continueOnBlock").is_some_and(|v| !v.is_null()) {
            problem(
                "continueOnBlock",
                "`continueOnBlock` applies to prompt and agent hooks; the common form ignores it on this hook, and so does this runner".into(),
                false,
            );
        }
        Some(handler)
    }

    /// Whether the hook runs in the background (`async`, or `asyncRewake`, which implies it).
    pub fn in_background(&self, run_async: bool) -> bool {
        run_async || self.async_rewake
    }

    /// With `onFailure: "block"`, makes a failed answer (the hook did not start, timed out,
    /// was killed, exited with another code than 0 and 2, or printed invalid JSON) count
    /// as an exit code 2 on `event`, its failure the reason.
    pub(crate) fn apply_on_failure(&self, event: CommandEvent, command: &str, answer: &mut Answer) {
        if self.on_failure != OnFailure::Block || answer.block.is_some() {
            return;
        }
        let invalid = answer
            .problems
            .iter()
            .find(|p| p.starts_with("printed invalid JSON"));
        let failure = match (answer.failed, invalid) {
            (true, _) => answer.problems.first().cloned(),
            (false, Some(problem)) => Some(problem.clone()),
            (false, None) => None,
        };
        let Some(failure) = failure else {
            return;
        };
        answer.failed = false;
        exit_2(
            event,
            format!("hook `{command}` {failure}; its onFailure is \"block\", so this failure counts as a block"),
            answer,
        );
    }

    /// The program and arguments that run `command`, or `None` for the default `/bin/sh
    /// -c`: the exec form with its placeholders filled in, or the chosen shell.
    pub(crate) fn argv(
        &self,
        command: &str,
        project: &Path,
        plugin_root: Option<&Path>,
    ) -> Option<Vec<OsString>> {
        if let Some(args) = &self.args {
            let fill = |text: &str| {
                let mut text = text.replace("${CLAUDE_PROJECT_DIR}", &project.to_string_lossy());
                if let Some(root) = plugin_root {
                    text = text.replace("${CLAUDE_PLUGIN_ROOT}", &root.to_string_lossy());
                }
                OsString::from(text)
            };
            return Some(
                std::iter::once(command)
                    .chain(args.iter().map(String::as_str))
                    .map(fill)
                    .collect(),
            );
        }
        let shell: &[&str] = match self.shell {
            Shell::Sh | Shell::Bash => return None,
            Shell::PowerShell => &["pwsh", "-NoProfile", "-NonInteractive", "-Command"],
        };
        Some(
            shell
                .iter()
                .copied()
                .chain([command])
                .map(OsString::from)
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(entry: Value, event: CommandEvent) -> (Option<Handler>, Vec<String>) {
        let mut problems = Vec::new();
        let handler = Handler::read(&entry, event, false, false, &mut problems);
        (
            handler,
            problems
                .into_iter()
                .map(|p| format!("{}: {}", p.key, p.message))
                .collect(),
        )
    }

    #[test]
    fn the_exec_form_fills_placeholders_as_plain_text_and_takes_no_shell() {
        let (handler, problems) = read(
            json!({"args": ["${CLAUDE_PROJECT_DIR}/it's $HOME `x`", "${CLAUDE_PLUGIN_ROOT}/a"], "shell": "bash"}),
            CommandEvent::PreToolUse,
        );
        let handler = handler.unwrap();
        assert_eq!(
            problems,
            ["shell: `args` runs the program without a shell, so `shell` is ignored"]
        );
        let argv = handler
            .argv(
                "${CLAUDE_PLUGIN_ROOT}/bin/check",
                Path::new("/p q"),
                Some(Path::new("/plug")),
            )
            .unwrap();
        assert_eq!(argv, ["/plug/bin/check", "/p q/it's $HOME `x`", "/plug/a"]);
    }

    #[test]
    fn on_failure_block_applies_where_claude_code_applies_it() {
        let (handler, problems) = read(json!({"onFailure": "block"}), CommandEvent::PreToolUse);
        assert_eq!(handler.unwrap().on_failure, OnFailure::Block);
        assert!(problems.is_empty());
        let (handler, problems) = read(json!({"onFailure": "block"}), CommandEvent::Stop);
        assert_eq!(handler.unwrap().on_failure, OnFailure::Continue);
        assert_eq!(problems.len(), 1);
        let (handler, problems) = read(
            json!({"onFailure": "block", "asyncRewake": true}),
            CommandEvent::PostToolUse,
        );
        let handler = handler.unwrap();
        assert!(handler.async_rewake && handler.on_failure == OnFailure::Continue);
        assert_eq!(problems.len(), 1);
        let (handler, _) = read(json!({"onFailure": "stop"}), CommandEvent::PreToolUse);
        assert_eq!(
            handler.unwrap().on_failure,
            OnFailure::Block,
            "unknown: fails closed"
        );
    }

    #[test]
    fn bad_args_or_shell_keep_the_hook_from_running() {
        assert!(read(json!({"args": "a b"}), CommandEvent::PreToolUse)
            .0
            .is_none());
        assert!(read(json!({"args": [1]}), CommandEvent::PreToolUse)
            .0
            .is_none());
        assert!(read(json!({"shell": "fish"}), CommandEvent::PreToolUse)
            .0
            .is_none());
        let (handler, problems) = read(json!({"continueOnBlock": true}), CommandEvent::Stop);
        assert!(handler.is_some());
        assert_eq!(problems.len(), 1);
    }
}
