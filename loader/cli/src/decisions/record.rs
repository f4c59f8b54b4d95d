//! What one record holds: the event as the agent sent it, each hook that ran and what it
//! answered, and the answer the agent got.

use agent_hooks::{
    abi::events::PermissionDecision,
    agents::Decision,
    command_hook::{Answer, CommandHookReport, Exit, HookKind},
    HandlerTiming, HookError,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The longest record line: a record whose tool input would make it longer keeps the
/// input's digest instead, and its hooks' reasons are cut.
pub const LINE_LIMIT: usize = 64 * 1024;

/// The longest reason kept whole in a record.
const REASON_LIMIT: usize = 2048;

/// One event answered: a line of the records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// When it was answered: RFC 3339, UTC, milliseconds.
    pub time: String,
    /// The agent (its `--agent` name).
    pub agent: String,
    /// The agent's version, when its payload says it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_version: Option<String>,
    /// The agent's session id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// The project folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    /// The event (`PreToolUse`).
    pub event: String,
    /// The tool, by the agent's name for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// The tool's input, as the settings keep it (`full` or `redacted`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<Value>,
    /// The tool input's digest (`digest`, or an input too large to keep).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_digest: Option<String>,
    /// Each hook that ran, in the order it ran.
    #[serde(default)]
    pub hooks: Vec<HookRun>,
    /// What the agent was told: `block`, `ask`, `rewrite`, `allow`, `stop`, `replace`,
    /// `context`, `error` (the hooks could not run) or `none`.
    pub decision: String,
    /// The reason given with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The exit code the agent got.
    pub code: u8,
    /// Who answered: `resident` (the resident process) or `relay` (`agent-hooks hook` alone).
    pub answered_by: String,
    /// A required hook decided: it could not run, so the call was blocked.
    #[serde(default)]
    pub required: bool,
    /// What observing hooks would have made of it, when more than what was applied
    /// (`block: REASON`): their answers were recorded, not applied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub would_have: Option<String>,
    /// The problems the user was told with this answer.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<String>,
    /// The hash of the record before it (empty for the first).
    #[serde(default)]
    pub prev: String,
    /// Its own hash (SHA-256 of the line without this field), written last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hash: Option<String>,
}

/// One hook's part in an event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HookRun {
    /// The hook: a command and its file, or a plugin's path.
    pub id: String,
    /// `command`, `long-running` or `plugin`.
    pub kind: String,
    /// What it answered: `block`, `ask`, `rewrite`, `allow`, `stop`, `replace`, `feedback`,
    /// `context`, `background` (not waited for), `error` or `none`.
    pub answer: String,
    /// The reason it gave.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// How long it took, in milliseconds.
    pub ms: f64,
    /// How it failed: a timeout, a crash, an answer that could not be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// It observes: its answer was recorded, not applied.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub observed: bool,
}

/// The word for what the hooks of an event decided, and its reason.
pub fn decided(decision: &Decision) -> (&'static str, Option<String>) {
    if let Some(reason) = &decision.block {
        return ("block", Some(reason.clone()));
    }
    if let Some(("deny", reason)) = &decision.permission {
        return ("block", reason.clone());
    }
    if let Some(reason) = &decision.stop {
        return ("stop", Some(reason.clone()));
    }
    if let Some(reason) = &decision.ask {
        return ("ask", Some(reason.clone()));
    }
    if decision.input.is_some() {
        return ("rewrite", None);
    }
    if let Some((_, reason)) = &decision.permission {
        return ("allow", reason.clone());
    }
    if decision.approve {
        return ("allow", None);
    }
    if let Some(text) = &decision.replacement {
        return ("replace", Some(text.clone()));
    }
    if decision.content.is_some() {
        return ("replace", None);
    }
    if !decision.context.is_empty() || !decision.feedback.is_empty() {
        return ("context", None);
    }
    ("none", None)
}

/// A command hook's run, `kind` being the hook's kind: a long-running hook's process serves
/// the session; the other kinds run once per event.
pub(super) fn command_run(report: &CommandHookReport, kind: Option<&HookKind>) -> HookRun {
    let (answer, reason) = if report.background {
        ("background", None)
    } else {
        answered(&report.answer)
    };
    let failure = match &report.exit {
        Exit::TimedOut => Some("timed out".to_owned()),
        Exit::Signal(signal) => Some(format!("killed by signal {signal}")),
        Exit::SpawnFailed(why) => Some(format!("did not start: {why}")),
        Exit::Code(_) if report.answer.failed || !report.answer.problems.is_empty() => {
            Some(report.answer.problems.join("; "))
        }
        Exit::Code(_) => None,
    };
    HookRun {
        id: format!("{} ({})", report.command, report.source.display()),
        kind: match kind {
            Some(HookKind::LongRunning { .. }) => "long-running",
            Some(HookKind::Command { .. } | HookKind::Http(_) | HookKind::HostCall(_)) | None => {
                "command"
            }
        }
        .to_owned(),
        answer: if failure.is_some() && answer == "none" {
            "error"
        } else {
            answer
        }
        .to_owned(),
        reason: reason.map(cut),
        ms: millis(report.duration),
        failure: failure.filter(|f| !f.is_empty()).map(cut),
        observed: report.observed,
    }
}

/// How strong an answer is, for what observing hooks would have done: a block above a
/// stop, an ask, a rewrite, an allow, ... and nothing.
pub fn strength(answer: &str) -> u8 {
    match answer {
        "block" => 7,
        "stop" => 6,
        "ask" => 5,
        "rewrite" => 4,
        "allow" => 3,
        "replace" => 2,
        "feedback" | "context" => 1,
        _ => 0,
    }
}

fn answered(answer: &Answer) -> (&'static str, Option<String>) {
    if let Some(reason) = &answer.block {
        return ("block", Some(reason.clone()));
    }
    if let Some(reason) = &answer.stop_agent {
        return ("stop", Some(reason.clone()));
    }
    match answer.permission {
        Some(PermissionDecision::Deny) => return ("block", answer.permission_reason.clone()),
        Some(PermissionDecision::Ask) => return ("ask", answer.permission_reason.clone()),
        _ => {}
    }
    if answer.updated_input.is_some() {
        return ("rewrite", None);
    }
    if answer.permission.is_some() {
        return ("allow", answer.permission_reason.clone());
    }
    if let Some(text) = &answer.replacement {
        return ("replace", Some(text.clone()));
    }
    if let Some(text) = &answer.feedback {
        return ("feedback", Some(text.clone()));
    }
    if !answer.context.is_empty() {
        return ("context", None);
    }
    ("none", None)
}

/// A native handler's call (a plugin, or a long-running hook's registered handler), with
/// the error it gave, if any.
pub(super) fn native_run(timing: &HandlerTiming, error: Option<&HookError>) -> HookRun {
    let fields = timing
        .answer
        .as_deref()
        .and_then(|a| serde_json::from_str::<Value>(a).ok())
        .unwrap_or(Value::Null);
    let text = |key: &str| fields.get(key).and_then(Value::as_str).map(str::to_owned);
    let on = |key: &str| fields.get(key).and_then(Value::as_bool) == Some(true);
    let (answer, reason) = if error.is_some() {
        ("error".to_owned(), None)
    } else if on("block") || text("decision").as_deref() == Some("deny") {
        ("block".to_owned(), text("reason"))
    } else if on("ask") || text("decision").as_deref() == Some("ask") {
        ("ask".to_owned(), text("reason"))
    } else if fields.get("input").is_some_and(|i| !i.is_null()) {
        ("rewrite".to_owned(), None)
    } else if text("decision").as_deref() == Some("allow") {
        ("allow".to_owned(), text("reason"))
    } else {
        ("none".to_owned(), None)
    };
    let path = &timing.hook_path;
    let plugin = [".so", ".dylib", ".dll"]
        .iter()
        .any(|ext| path.ends_with(ext));
    HookRun {
        id: path.clone(),
        kind: if plugin { "plugin" } else { "long-running" }.to_owned(),
        failure: error.map(|e| cut(e.message.clone())),
        answer,
        reason: reason.map(cut),
        ms: millis(timing.duration),
        observed: timing.observed,
    }
}

fn millis(duration: std::time::Duration) -> f64 {
    (duration.as_secs_f64() * 1e6).round() / 1e3
}

/// A reason cut at [`REASON_LIMIT`].
pub fn cut(mut text: String) -> String {
    if text.len() > REASON_LIMIT {
        let mut end = REASON_LIMIT;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push('…');
    }
    text
}

/// Now, as a record's `time`.
pub fn now() -> String {
    time_of(jiff::Timestamp::now())
}

/// `time` as a record's `time`: RFC 3339, UTC, milliseconds (so that times sort as text).
pub fn time_of(time: jiff::Timestamp) -> String {
    time.strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}
