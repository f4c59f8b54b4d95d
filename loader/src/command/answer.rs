//! Reading what a command hook answered: its exit code, and the JSON dialects of spec 02 on
//! its stdout. What is not understood is reported, never guessed.

use agent_hooks_abi::events::PermissionDecision;
use serde_json::{Map, Value};

use super::{
    event::CommandEvent,
    process::{Exit, Run, OUTPUT_CAP},
};

/// What one command hook decided, and what was wrong with its answer.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Answer {
    /// It blocks, with this reason (exit 2, `decision: block|deny`,
    /// `permissionDecision: deny`).
    pub block: Option<String>,
    /// Its permission decision (`decision: approve|allow`, `permissionDecision`).
    pub permission: Option<PermissionDecision>,
    /// Its reason for the permission decision.
    pub permission_reason: Option<String>,
    /// The input the tool should run with instead (`updatedInput`).
    pub updated_input: Option<Value>,
    /// Text to add to the agent's context (`additionalContext`, or plain stdout where the
    /// event takes it).
    pub context: Vec<String>,
    /// It asked the agent to stop (`continue: false`), with this reason.
    pub stop_agent: Option<String>,
    /// A message for the user (`systemMessage`).
    pub system_message: Option<String>,
    /// It failed (it did not start, timed out, was killed, or exited with another code
    /// than 0 or 2): non-blocking, reported.
    pub failed: bool,
    /// What was wrong, for a person: failures, invalid JSON, fields not understood.
    pub problems: Vec<String>,
}

/// Reads the answer of a hook that ran for `event`.
pub fn interpret(event: CommandEvent, run: &Run) -> Answer {
    let mut answer = Answer::default();
    let stderr = String::from_utf8_lossy(&run.stderr).trim().to_owned();
    match &run.exit {
        Exit::Code(0) => read_stdout(event, &run.stdout, &mut answer),
        // It wrote its whole answer, then hung: the answer stands.
        Exit::TimedOut if complete_json(&run.stdout) => {
            read_stdout(event, &run.stdout, &mut answer);
            answer.problems.push(
                "timed out after writing a complete JSON answer; the answer was taken and its process group killed"
                    .to_owned(),
            );
        }
        Exit::Code(2) => {
            answer.block = Some(if stderr.is_empty() {
                "blocked by a hook (exit code 2)".to_owned()
            } else {
                stderr.clone()
            });
        }
        other => {
            answer.failed = true;
            answer.problems.push(failure(other, &stderr));
        }
    }
    for (truncated, stream) in [
        (run.stdout_truncated, "stdout"),
        (run.stderr_truncated, "stderr"),
    ] {
        if truncated {
            answer.problems.push(format!(
                "its {stream} was longer than {} MiB; the rest was dropped",
                OUTPUT_CAP / (1024 * 1024)
            ));
        }
    }
    answer
}

/// Whether `stdout` holds one complete JSON object.
fn complete_json(stdout: &[u8]) -> bool {
    serde_json::from_slice::<Value>(stdout).is_ok_and(|v| v.is_object())
}

/// Whether a hook that ended so never gave an answer: it did not start, was not found, was
/// killed, or ran out of time (a `required` hook then blocks).
pub fn did_not_answer(exit: &Exit) -> bool {
    matches!(
        exit,
        Exit::SpawnFailed(_) | Exit::TimedOut | Exit::Signal(_) | Exit::Code(126 | 127)
    )
}

fn failure(exit: &Exit, stderr: &str) -> String {
    let said = if stderr.is_empty() {
        String::new()
    } else {
        format!(": {}", excerpt(stderr))
    };
    match exit {
        Exit::Code(127) => format!(
            "command not found (exit code 127){said}; check the command and the script's path"
        ),
        Exit::Code(126) => format!(
            "command not executable (exit code 126){said}; make the script executable (chmod +x)"
        ),
        Exit::Code(code) => format!("exited with code {code}{said}"),
        Exit::Signal(signal) => format!("was killed by signal {signal}{said}"),
        Exit::TimedOut => "timed out; its process group was killed".to_owned(),
        Exit::SpawnFailed(e) => format!("could not be started: {e}"),
    }
}

fn excerpt(text: &str) -> String {
    let mut short: String = text.chars().take(300).collect();
    if short.len() < text.len() {
        short.push('…');
    }
    short
}

fn read_stdout(event: CommandEvent, stdout: &[u8], answer: &mut Answer) {
    let text = String::from_utf8_lossy(stdout);
    let trimmed = text.trim();
    if !trimmed.starts_with('{') {
        if !trimmed.is_empty() && event.plain_stdout_is_context() {
            answer.context.push(trimmed.to_owned());
        }
        return;
    }
    match serde_json::from_str::<Value>(trimmed) {
        Ok(Value::Object(fields)) => read_json(event, &fields, answer),
        Ok(_) | Err(_) => {
            let detail = serde_json::from_str::<Value>(trimmed)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_else(|| "not an object".into());
            answer.problems.push(format!(
                "printed invalid JSON ({detail}); no decision was taken from it"
            ));
        }
    }
}

fn read_json(event: CommandEvent, fields: &Map<String, Value>, answer: &mut Answer) {
    let text = |key: &str| fields.get(key).and_then(Value::as_str).map(str::to_owned);
    let reason = text("reason");
    for (key, value) in fields {
        match key.as_str() {
            "decision" => match value.as_str() {
                Some("approve" | "allow") => answer.permission = Some(PermissionDecision::Approve),
                Some("block" | "deny") => {
                    answer.block = Some(
                        reason
                            .clone()
                            .unwrap_or_else(|| format!("blocked by a hook (decision {value})")),
                    );
                }
                Some("ask") => answer.permission = Some(PermissionDecision::Ask),
                _ => answer.problems.push(format!(
                    "unknown decision {value}; no decision was taken from it"
                )),
            },
            "continue" => match value.as_bool() {
                Some(false) => {
                    answer.stop_agent = Some(
                        text("stopReason")
                            .unwrap_or_else(|| "a hook asked the agent to stop".into()),
                    );
                }
                Some(true) => {}
                None => answer
                    .problems
                    .push(format!("`continue` must be true or false, not {value}")),
            },
            "systemMessage" => answer.system_message = value.as_str().map(str::to_owned),
            "reason" | "stopReason" | "suppressOutput" => {}
            "hookSpecificOutput" => match value.as_object() {
                Some(specific) => read_specific(event, specific, answer),
                None => answer
                    .problems
                    .push("`hookSpecificOutput` must be an object".into()),
            },
            other => answer.problems.push(format!(
                "printed the field `{other}`, which is not understood; ignored"
            )),
        }
    }
}

fn read_specific(event: CommandEvent, fields: &Map<String, Value>, answer: &mut Answer) {
    if let Some(named) = fields.get("hookEventName").and_then(Value::as_str) {
        if named != event.name() {
            answer.problems.push(format!(
                "its hookSpecificOutput is for {named}, but it ran for {event}; ignored"
            ));
            return;
        }
    }
    for (key, value) in fields {
        match key.as_str() {
            "hookEventName" | "permissionDecisionReason" => {}
            "updatedInput" if event == CommandEvent::PreToolUse && value.is_object() => {
                answer.updated_input = Some(value.clone());
            }
            "updatedInput" => answer.problems.push(format!(
                "updatedInput must be an object, for PreToolUse; ignored on {event}"
            )),
            "additionalContext" => match value.as_str() {
                Some(text) if !text.trim().is_empty() => answer.context.push(text.to_owned()),
                Some(_) => {}
                None => answer
                    .problems
                    .push("additionalContext must be a string".into()),
            },
            "permissionDecision" => {
                let reason = fields
                    .get("permissionDecisionReason")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                match value.as_str() {
                    Some("allow" | "approve") => {
                        answer.permission = Some(PermissionDecision::Approve);
                        answer.permission_reason = reason;
                    }
                    Some("ask") => {
                        answer.permission = Some(PermissionDecision::Ask);
                        answer.permission_reason = reason;
                    }
                    Some("deny" | "block") => {
                        answer.permission = Some(PermissionDecision::Deny);
                        answer.block = Some(
                            reason
                                .unwrap_or_else(|| "denied by a hook (permissionDecision)".into()),
                        );
                    }
                    _ => answer.problems.push(format!(
                        "unknown permissionDecision {value}; no decision was taken from it"
                    )),
                }
            }
            other => answer.problems.push(format!(
                "printed hookSpecificOutput.{other}, which is not understood; ignored"
            )),
        }
    }
}
