//! Cursor's hooks files (`.cursor/hooks.json`, `~/.cursor/hooks.json`), read and answered as
//! Cursor's hooks documentation describes them. Cursor does not run headless here, so
//! unlike the other dialects this one is taken from the documentation, not measured
//! (docs/command-hooks.md says so):
//!
//! - events in camelCase; `beforeShellExecution`, `beforeMCPExecution` and `beforeReadFile`
//!   are `PreToolUse` of the shell tool, of MCP tools and of the read tool;
//!   `afterShellExecution`, `afterMCPExecution` and `afterFileEdit` are `PostToolUse` of
//!   the shell, MCP and file-writing tools; `beforeSubmitPrompt` is `UserPromptSubmit`,
//!   `stop` is `Stop`, `preToolUse`/`postToolUse` are themselves;
//! - a hook is `{"command": ..., "timeout": seconds, "matcher": ..., "failClosed": bool}`;
//! - payloads carry `conversation_id`, `generation_id`, `hook_event_name`,
//!   `workspace_roots` and the event's fields (`command` and `cwd` for a shell command,
//!   `file_path`, `tool_name` and `tool_input`, `prompt`, `status` and `loop_count` at
//!   `stop`);
//! - answers: `permission` (`allow`, `deny`, `ask`) with `user_message` (for the user) and
//!   `agent_message` (for the agent), `updated_input`, `continue: false` (a prompt is not
//!   sent), `followup_message` (`stop`: the agent goes on with it), `additional_context`;
//!   exit 2 blocks, any other failure lets the action go on unless `failClosed`.

use std::path::Path;

use agent_hooks_abi::events::PermissionDecision;
use serde_json::{json, Map, Value};

use super::{CURSOR_VERSION, PROFILE};
use crate::agent::{Agent, MatcherRule};
use crate::command_hook::{
    exit_2,
    flat_file::{self, Format, Named},
    Answer, CommandHook, ConfigIssue, Exit, Matcher, Run,
};
use crate::event::CommandEvent;

/// The tool an event such as `beforeShellExecution` is about, as a matcher of Cursor's tool
/// names (`Shell`, `Read`, `Write`; MCP tools as `mcp__server__tool` or `MCP:tool`).
fn implied(name: &str) -> Option<Matcher> {
    let names = |n: &[&str]| Some(Matcher::Names(n.iter().map(|s| (*s).to_owned()).collect()));
    match name {
        "beforeShellExecution" | "afterShellExecution" => names(&["Shell"]),
        "beforeReadFile" => names(&["Read"]),
        "afterFileEdit" => names(&["Write"]),
        "beforeMCPExecution" | "afterMCPExecution" => {
            regex::Regex::new("^(mcp__|MCP:)").ok().map(Matcher::Regex)
        }
        _ => None,
    }
}

fn named(name: &str) -> Option<Named> {
    Some(match PROFILE.own_event(name)? {
        Some(event) => Named::Event(event, implied(name)),
        None => Named::Unsupported(
            "a Cursor event of its editor (agent responses and thoughts, Tab completions) this runner has no moment for",
        ),
    })
}

fn command(fields: &Map<String, Value>) -> Result<String, String> {
    match fields.get("command").and_then(Value::as_str).map(str::trim) {
        Some(command) if !command.is_empty() => Ok(command.to_owned()),
        _ => Err("missing `command`; skipped".into()),
    }
}

fn matcher(pattern: &str, _name: &str, event: CommandEvent) -> Result<Matcher, String> {
    Matcher::compile(Some(pattern), MatcherRule::Common, event.has_tool()).map_err(|e| {
        e.to_string()
            .lines()
            .last()
            .unwrap_or_default()
            .trim()
            .to_owned()
    })
}

static FORMAT: Format = Format {
    dialect: Agent::Cursor,
    profile: &PROFILE,
    event: named,
    command,
    matcher,
};

/// Reads a Cursor hooks file.
pub(crate) fn parse(bytes: &[u8], source: &Path) -> (Vec<CommandHook>, Vec<ConfigIssue>) {
    flat_file::parse(&FORMAT, bytes, source)
}

/// The payload of a Cursor hook named `event_name`, from the payload in Claude Code's
/// fields (tool names and fields already Cursor's).
pub(crate) fn payload(event: CommandEvent, event_name: &str, claude: Map<String, Value>) -> Value {
    let get = |key: &str| claude.get(key).cloned().unwrap_or(Value::Null);
    let input = get("tool_input");
    let output = claude
        .get("tool_response")
        .map(|r| match r.get("output").or(r.get("stdout")) {
            Some(Value::String(s)) => s.clone(),
            _ => r.to_string(),
        });
    let mut out = Map::new();
    out.insert("conversation_id".into(), get("session_id"));
    let generation = claude
        .get("prompt_id")
        .cloned()
        .unwrap_or_else(|| get("session_id"));
    out.insert("generation_id".into(), generation);
    out.insert("hook_event_name".into(), json!(event_name));
    out.insert("workspace_roots".into(), json!([get("cwd")]));
    // Hooks written for several agents tell Cursor by this field (or CURSOR_VERSION).
    out.insert("cursor_version".into(), json!(CURSOR_VERSION));
    if let Some(path) = claude.get("transcript_path") {
        out.insert("transcript_path".into(), path.clone());
    }
    match event_name {
        "beforeShellExecution" | "afterShellExecution" => {
            out.insert(
                "command".into(),
                input.get("command").cloned().unwrap_or(Value::Null),
            );
            out.insert("cwd".into(), get("cwd"));
            if let Some(output) = output {
                out.insert("output".into(), json!(output));
            }
        }
        "beforeMCPExecution" | "afterMCPExecution" => {
            out.insert("tool_name".into(), get("tool_name"));
            out.insert("tool_input".into(), json!(input.to_string()));
            if let Some(output) = output {
                out.insert("result_json".into(), json!(output));
            }
        }
        "beforeReadFile" => {
            out.insert(
                "file_path".into(),
                input.get("file_path").cloned().unwrap_or(Value::Null),
            );
        }
        "afterFileEdit" => {
            out.insert(
                "file_path".into(),
                input.get("file_path").cloned().unwrap_or(Value::Null),
            );
            let old = input.get("old_string").or(input.get("old_str")).cloned();
            let new = input
                .get("new_string")
                .or(input.get("new_str"))
                .or(input.get("content"))
                .cloned();
            out.insert(
                "edits".into(),
                json!([{"old_string": old.unwrap_or(json!("")), "new_string": new.unwrap_or(json!(""))}]),
            );
        }
        "beforeSubmitPrompt" => {
            out.insert("prompt".into(), get("prompt"));
            out.insert("attachments".into(), json!([]));
        }
        "stop" | "subagentStop" => {
            out.insert("status".into(), json!("completed"));
            let again = claude.get("stop_hook_active") == Some(&Value::Bool(true));
            out.insert("loop_count".into(), json!(u8::from(again)));
        }
        _ => {
            for (key, value) in &claude {
                let skip = matches!(
                    key.as_str(),
                    "session_id"
                        | "prompt_id"
                        | "hook_event_name"
                        | "permission_mode"
                        | "transcript_path"
                );
                match key.as_str() {
                    _ if skip => {}
                    "tool_response" => {
                        out.insert(
                            "tool_output".into(),
                            json!(output.clone().unwrap_or_default()),
                        );
                    }
                    _ => {
                        out.insert(key.clone(), value.clone());
                    }
                }
            }
        }
    }
    if event == CommandEvent::PreToolUse && event_name == "preToolUse" {
        out.entry("cwd").or_insert(get("cwd"));
    }
    Value::Object(out)
}

/// Reads what a Cursor hook answered for `event`.
pub(crate) fn interpret(event: CommandEvent, event_name: &str, run: &Run) -> Answer {
    let mut answer = Answer::default();
    let stderr = String::from_utf8_lossy(&run.stderr).trim().to_owned();
    match &run.exit {
        Exit::Code(0) => read(event, event_name, &run.stdout, &mut answer),
        Exit::Code(2) => {
            let said = if stderr.is_empty() {
                "blocked by a hook (exit code 2)".to_owned()
            } else {
                stderr
            };
            exit_2(event, said, &mut answer);
        }
        other => {
            answer.failed = true;
            let how = match other {
                Exit::Code(code) => format!("exited with code {code}"),
                Exit::Signal(signal) => format!("was killed by signal {signal}"),
                Exit::TimedOut => "timed out; its process group was killed".into(),
                Exit::SpawnFailed(e) => format!("could not be started: {e}"),
            };
            answer.problems.push(format!(
                "{how}; as in Cursor, the action goes on (unless the hook has `failClosed`)"
            ));
        }
    }
    answer
}

fn read(event: CommandEvent, event_name: &str, stdout: &[u8], answer: &mut Answer) {
    let text = String::from_utf8_lossy(stdout);
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return;
    }
    let Ok(Value::Object(fields)) = serde_json::from_str::<Value>(trimmed) else {
        answer.problems.push(
            "printed something that is not a JSON object; no decision was taken from it".into(),
        );
        return;
    };
    let text = |key: &str| fields.get(key).and_then(Value::as_str).map(str::to_owned);
    let reason = text("agent_message").or_else(|| text("user_message"));
    for (key, value) in &fields {
        match (event, key.as_str()) {
            (CommandEvent::PreToolUse, "permission") => match value.as_str() {
                Some("allow") => answer.permission = Some(PermissionDecision::Approve),
                Some("ask") => {
                    answer.permission = Some(PermissionDecision::Ask);
                    answer.permission_reason = reason.clone();
                }
                Some("deny") => {
                    answer.permission = Some(PermissionDecision::Deny);
                    answer.block = Some(
                        reason
                            .clone()
                            .unwrap_or_else(|| "denied by a hook (permission)".into()),
                    );
                }
                _ => answer
                    .problems
                    .push(format!("unknown permission {value}; ignored")),
            },
            (CommandEvent::PreToolUse, "updated_input") if value.is_object() => {
                answer.updated_input = Some(value.clone())
            }
            (CommandEvent::UserPromptSubmit, "continue") if value == &Value::Bool(false) => {
                answer.block = Some(
                    text("user_message")
                        .unwrap_or_else(|| "the prompt was stopped by a hook".into()),
                );
            }
            (CommandEvent::SessionStart, "continue") if value == &Value::Bool(false) => {
                answer.stop_agent = Some(
                    text("user_message").unwrap_or_else(|| "a hook asked the agent to stop".into()),
                );
            }
            (_, "continue") => {}
            (CommandEvent::Stop | CommandEvent::SubagentStop, "followup_message") => {
                if let Some(message) = value.as_str().filter(|m| !m.trim().is_empty()) {
                    answer.block = Some(message.to_owned());
                }
            }
            (_, "additional_context") => {
                if let Some(context) = value.as_str().filter(|c| !c.trim().is_empty()) {
                    answer.context.push(context.to_owned());
                }
            }
            (CommandEvent::PostToolUse, "updated_mcp_tool_output") => {
                answer.updated_tool_output = Some(value.clone())
            }
            (_, "user_message") => answer.system_message = value.as_str().map(str::to_owned),
            (_, "agent_message") => {}
            (_, other) => answer.problems.push(format!(
                "printed the field `{other}`, which Cursor does not read on {event_name}; ignored"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn run(code: i32, stdout: &str) -> Run {
        Run {
            exit: Exit::Code(code),
            stdout: stdout.as_bytes().to_vec(),
            stderr: b"said".to_vec(),
            stdout_truncated: false,
            stderr_truncated: false,
            duration: Duration::ZERO,
        }
    }

    #[test]
    fn events_name_their_tool_and_answers_are_read() {
        let text = r#"{"version": 1, "hooks": {
            "beforeShellExecution": [{"command": "./shell.sh"}],
            "beforeMCPExecution": [{"command": "./mcp.sh", "timeout": 5}],
            "afterFileEdit": [{"command": "./fmt.sh"}],
            "stop": [{"command": "./again.sh"}],
            "afterTabFileEdit": [{"command": "./tab.sh"}]
        }}"#;
        let (hooks, issues) = parse(text.as_bytes(), Path::new("/p/.cursor/hooks.json"));
        assert_eq!(hooks.len(), 4);
        assert_eq!(issues.len(), 1, "{issues:?}");
        assert!(hooks[0].matcher.matches("Shell") && !hooks[0].matcher.matches("Read"));
        assert!(hooks[1].matcher.matches("mcp__gh__issue"));
        assert_eq!(hooks[1].timeout, Duration::from_secs(5));
        assert_eq!(hooks[2].event, CommandEvent::PostToolUse);

        let pre = CommandEvent::PreToolUse;
        let deny = interpret(
            pre,
            "beforeShellExecution",
            &run(
                0,
                r#"{"permission": "deny", "user_message": "no", "agent_message": "not rm"}"#,
            ),
        );
        assert_eq!(deny.block.as_deref(), Some("not rm"));
        assert_eq!(deny.system_message.as_deref(), Some("no"));
        let exit2 = interpret(pre, "beforeShellExecution", &run(2, ""));
        assert_eq!(exit2.block.as_deref(), Some("said"));
        let failed = interpret(pre, "beforeShellExecution", &run(1, ""));
        assert!(failed.block.is_none() && failed.failed);
        let again = interpret(
            CommandEvent::Stop,
            "stop",
            &run(0, r#"{"followup_message": "fix the test"}"#),
        );
        assert_eq!(again.block.as_deref(), Some("fix the test"));
        let prompt = interpret(
            CommandEvent::UserPromptSubmit,
            "beforeSubmitPrompt",
            &run(0, r#"{"continue": false, "user_message": "no secrets"}"#),
        );
        assert_eq!(prompt.block.as_deref(), Some("no secrets"));
    }

    #[test]
    fn a_shell_command_is_sent_as_cursor_sends_it() {
        let claude = json!({"session_id": "s", "cwd": "/p", "hook_event_name": "PreToolUse",
            "permission_mode": "default", "tool_name": "Shell", "tool_input": {"command": "ls"}});
        let Value::Object(claude) = claude else {
            unreachable!()
        };
        let sent = payload(CommandEvent::PreToolUse, "beforeShellExecution", claude);
        assert_eq!(
            sent,
            json!({"conversation_id": "s", "generation_id": "s", "hook_event_name": "beforeShellExecution",
                "workspace_roots": ["/p"], "cursor_version": CURSOR_VERSION, "command": "ls", "cwd": "/p"})
        );
    }
}
