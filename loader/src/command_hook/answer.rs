//! Reading what a command hook answered: its exit code, and the JSON fields of the agents'
//! hooks references on its stdout, each read only on the events the registry gives it. What
//! is not understood, or not valid for the event, is reported, never guessed.

use agent_hooks_abi::events::PermissionDecision;
use serde_json::{Map, Value};

use super::process::{Exit, Run, OUTPUT_CAP};
use crate::{
    agent::{Profile, Profiles},
    event::{CommandEvent, Exit2, EVENTS},
};

/// What one command hook decided, and what was wrong with its answer.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Answer {
    /// It blocks, with this reason (exit 2 where that blocks, `decision: block|deny`,
    /// `permissionDecision: deny`, `decision.behavior: deny`).
    pub block: Option<String>,
    /// Text for the model about an action that already happened (exit 2 or
    /// `decision: block` on PostToolUse and PostToolUseFailure).
    pub feedback: Option<String>,
    /// Text that replaces the tool's result for the model, for an agent whose profile says
    /// so (`Profile::reason_replaces_result_on`).
    pub replacement: Option<String>,
    /// Its permission decision (`decision: approve|allow`, `permissionDecision`,
    /// `decision.behavior`).
    pub permission: Option<PermissionDecision>,
    /// Its reason for the permission decision.
    pub permission_reason: Option<String>,
    /// The input the tool should run with instead (`updatedInput`).
    pub updated_input: Option<Value>,
    /// The output an MCP tool's result is replaced with (`updatedMCPToolOutput`).
    pub updated_tool_output: Option<Value>,
    /// PermissionRequest `decision.interrupt`: stop the agent with the denial.
    pub interrupt: bool,
    /// Text to add to the agent's context (`additionalContext`, or plain stdout where the
    /// event takes it).
    pub context: Vec<String>,
    /// It asked the agent to stop (`continue: false`), with this reason (`stopReason`).
    pub stop_agent: Option<String>,
    /// Messages for the user: `systemMessage`, and the stderr of an exit 2 on an event that
    /// cannot block.
    pub system_message: Option<String>,
    /// `suppressOutput`: its stdout is not shown in the transcript.
    pub suppress_output: bool,
    /// Other documented fields of the event, for the host (Elicitation's `action` and
    /// `content`, PermissionDenied's `retry`).
    pub extra: Map<String, Value>,
    /// It failed (it did not start, timed out, was killed, or exited with another code
    /// than 0 or 2): non-blocking, reported.
    pub failed: bool,
    /// What was wrong, for a person: failures, invalid JSON, fields not understood or not
    /// valid for the event.
    pub problems: Vec<String>,
}

/// Reads the answer of a hook that ran for `event`.
pub(crate) fn interpret(event: CommandEvent, run: &Run, profiles: Profiles) -> Answer {
    let mut answer = Answer::default();
    let stderr = String::from_utf8_lossy(&run.stderr).trim().to_owned();
    match &run.exit {
        Exit::Code(0) => read_stdout(event, &run.stdout, &mut answer, profiles),
        // It wrote its whole answer, then hung: the answer stands.
        Exit::TimedOut if complete_json(&run.stdout) => {
            read_stdout(event, &run.stdout, &mut answer, profiles);
            answer.problems.push(
                "timed out after writing a complete JSON answer; the answer was taken and its process group killed"
                    .to_owned(),
            );
        }
        Exit::Code(2) => {
            let said = if stderr.is_empty() {
                "blocked by a hook (exit code 2)".to_owned()
            } else {
                stderr.clone()
            };
            exit_2(event, said, &mut answer);
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
pub(crate) fn did_not_answer(exit: &Exit) -> bool {
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

/// What an exit 2 does at `event`, saying `said`: blocks, is fed back, or is shown.
pub(crate) fn exit_2(event: CommandEvent, said: String, answer: &mut Answer) {
    match event.spec().exit2 {
        Exit2::Blocks => answer.block = Some(said),
        Exit2::Feedback => answer.feedback = Some(said),
        Exit2::ShownToUser => answer.system_message = Some(said),
    }
}

fn read_stdout(event: CommandEvent, stdout: &[u8], answer: &mut Answer, profiles: Profiles) {
    let text = String::from_utf8_lossy(stdout);
    let trimmed = text.trim();
    if !trimmed.starts_with('{') {
        if !trimmed.is_empty() && event.plain_stdout_is_context() {
            answer.context.push(trimmed.to_owned());
        }
        return;
    }
    match serde_json::from_str::<Value>(trimmed) {
        Ok(Value::Object(fields)) => read_json(event, &fields, answer, profiles),
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

/// Reads the common answer fields (also what a hook of an agent with a form of its own may
/// answer with on a common event name).
pub(crate) fn read_json(
    event: CommandEvent,
    fields: &Map<String, Value>,
    answer: &mut Answer,
    profiles: Profiles,
) {
    let spec = event.spec();
    let text = |key: &str| fields.get(key).and_then(Value::as_str).map(str::to_owned);
    let reason = text("reason");
    for (key, value) in fields {
        match key.as_str() {
            "decision" if !spec.decision => answer.problems.push(format!(
                "printed `decision`, which {event} does not read; ignored"
            )),
            "decision" => read_decision(event, value, reason.clone(), answer),
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
            "suppressOutput" => answer.suppress_output = value.as_bool() == Some(true),
            "reason" | "stopReason" => {}
            "hookSpecificOutput" => match value.as_object() {
                Some(specific) => read_specific(event, specific, answer, profiles),
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

/// The top-level `decision`: `block`/`deny` blocks where the event can block and is fed back
/// to the model where the action already happened; `approve`/`allow` and `ask` are
/// permission decisions.
fn read_decision(event: CommandEvent, value: &Value, reason: Option<String>, answer: &mut Answer) {
    match value.as_str() {
        Some("approve" | "allow") => {
            answer.permission = Some(PermissionDecision::Approve);
            answer.permission_reason = reason;
        }
        Some("block" | "deny") => {
            let reason = reason.unwrap_or_else(|| format!("blocked by a hook (decision {value})"));
            match event.spec().exit2 {
                Exit2::Feedback => answer.feedback = Some(reason),
                _ => answer.block = Some(reason),
            }
        }
        Some("ask") => {
            answer.permission = Some(PermissionDecision::Ask);
            answer.permission_reason = reason;
        }
        _ => answer.problems.push(format!(
            "unknown decision {value}; no decision was taken from it"
        )),
    }
}

fn read_specific(
    event: CommandEvent,
    fields: &Map<String, Value>,
    answer: &mut Answer,
    profiles: Profiles,
) {
    if let Some(named) = fields.get("hookEventName").and_then(Value::as_str) {
        // Any agent's name of the event will do.
        if profiles.lookup(named).map(|(named, _)| named) != Some(event) {
            answer.problems.push(format!(
                "its hookSpecificOutput is for {named}, but it ran for {event}; ignored"
            ));
            return;
        }
    }
    let spec = event.spec();
    for (key, value) in fields {
        let key = key.as_str();
        if key == "hookEventName" {
            continue;
        }
        if !spec.specific.contains(&key) {
            let elsewhere: Vec<&str> = EVENTS
                .iter()
                .filter(|s| s.specific.contains(&key))
                .map(|s| s.name)
                .collect();
            answer.problems.push(if elsewhere.is_empty() {
                format!("printed hookSpecificOutput.{key}, which is not understood; ignored")
            } else {
                format!(
                    "printed hookSpecificOutput.{key}, which {event} does not read (only {}); ignored",
                    elsewhere.join(", ")
                )
            });
            continue;
        }
        match key {
            "permissionDecisionReason" => {}
            "updatedInput" | "tool_input" if value.is_object() => {
                answer.updated_input = Some(value.clone())
            }
            "updatedInput" | "tool_input" => answer
                .problems
                .push(format!("{key} must be an object; ignored")),
            "updatedMCPToolOutput" => answer.updated_tool_output = Some(value.clone()),
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
                read_permission(value.as_str(), reason, value, answer);
            }
            "decision" => read_permission_request(value, answer),
            _ => {
                answer.extra.insert(key.to_owned(), value.clone());
            }
        }
    }
    if event == CommandEvent::PreSkillShellCommand {
        skill_command_refusal(fields, answer);
    }
}

/// The agent runs a skill's shell command only when no hook answers anything but
/// `allow`: an `ask` or `defer` (no one can approve a skill's command) and an `updatedInput`
/// (never applied) keep it from running, as a block with its reason.
fn skill_command_refusal(fields: &Map<String, Value>, answer: &mut Answer) {
    let reason = fields
        .get("permissionDecisionReason")
        .and_then(Value::as_str)
        .filter(|r| !r.is_empty());
    let asked = matches!(
        fields.get("permissionDecision").and_then(Value::as_str),
        Some("ask" | "defer")
    );
    let why = if asked {
        "the hook asked for approval, which a skill's shell command cannot wait for"
    } else if fields.contains_key("updatedInput") {
        "the hook changed the command, which is not applied to a skill's shell command"
    } else {
        return;
    };
    answer
        .problems
        .retain(|p| !p.starts_with("unknown permission decision"));
    answer.permission = Some(PermissionDecision::Deny);
    answer.updated_input = None;
    answer.block = Some(match (answer.block.take(), reason) {
        (Some(block), _) => block,
        (None, Some(reason)) => format!("{reason}; {why}"),
        (None, None) => why.to_owned(),
    });
}

fn read_permission(
    decision: Option<&str>,
    reason: Option<String>,
    value: &Value,
    answer: &mut Answer,
) {
    match decision {
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
            answer.block =
                Some(reason.unwrap_or_else(|| "denied by a hook (permissionDecision)".into()));
        }
        _ => answer.problems.push(format!(
            "unknown permission decision {value}; no decision was taken from it"
        )),
    }
}

/// PermissionRequest's `hookSpecificOutput.decision`: `{behavior, updatedInput, message,
/// interrupt, updatedPermissions}`.
fn read_permission_request(value: &Value, answer: &mut Answer) {
    let Some(decision) = value.as_object() else {
        answer.problems.push(format!(
            "hookSpecificOutput.decision must be an object with `behavior`, not {value}; ignored"
        ));
        return;
    };
    let message = decision
        .get("message")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let behavior = decision.get("behavior").unwrap_or(&Value::Null);
    read_permission(behavior.as_str(), message, behavior, answer);
    for (key, value) in decision {
        match key.as_str() {
            "behavior" | "message" => {}
            "updatedInput" if value.is_object() => answer.updated_input = Some(value.clone()),
            "interrupt" => answer.interrupt = value.as_bool() == Some(true),
            "updatedPermissions" => answer.problems.push(
                "decision.updatedPermissions asks to change permission rules, which this runner does not keep; ignored".into(),
            ),
            other => answer.problems.push(format!(
                "printed hookSpecificOutput.decision.{other}, which is not understood; ignored"
            )),
        }
    }
}

/// Gives an answer (of the hook's `run`) the meaning the agent of `profile` gives it where
/// that differs from the common form: a hook's text that is not JSON (stdout, or stderr when
/// stdout is empty) shown to the user on exit 0 and a block with it as the reason on any exit
/// code but 0, 1 and 2 (`plain_text_is_a_message`; exit 2 blocks as everywhere), no
/// `additionalContext` on the events it reads none on (`ignores_context_on`), and a block's
/// reason that replaces the tool's result for the model rather than being added after it
/// (`reason_replaces_result_on`).
pub fn adapt(agent: &Profile, event: CommandEvent, run: &Run, answer: &mut Answer) {
    if agent.plain_text_is_a_message {
        plain_text(event, run, answer);
    }
    if !agent.reads_context(event) {
        answer.context.clear();
    }
    if agent.feedback_replaces_result(event) {
        answer.replacement = answer.feedback.take();
    }
}

/// A hook's text that is not JSON, read as a message to the user on exit 0 and as a block
/// on exit codes above 2.
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
                exit_2(event, text.to_owned(), answer);
            }
            _ => {}
        }
    }
}
