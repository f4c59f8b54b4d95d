//! Events by name, from JSON, through the runner, to JSON: what `emit` and `replay` share.

use agent_hooks::{
    abi::{events::*, EventKind},
    command_hook::CommandEvent,
    Combine, HookError, HookRunner, ToolCallOutcome,
};
use serde_json::{json, Value};

/// An event to emit: a runner event (with the command event it stands for, when it was
/// named by one), or a command event the runner has no moment for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Emitted {
    /// Through [`HookRunner::emit`]: native handlers and command hooks.
    Runner(EventKind, Option<CommandEvent>),
    /// Through [`HookRunner::emit_command`]: command hooks only.
    Command(CommandEvent),
}

impl Emitted {
    /// The name shown: the runner's name of the event when it has one.
    pub fn name(self) -> &'static str {
        match self {
            Emitted::Runner(kind, _) => kind.name(),
            Emitted::Command(event) => event.name(),
        }
    }

    /// The runner event, if any.
    pub fn kind(self) -> Option<EventKind> {
        match self {
            Emitted::Runner(kind, _) => Some(kind),
            Emitted::Command(_) => None,
        }
    }
}

/// An event name: a runner name (`tool_call`), a command-hook name (`PreToolUse`,
/// `Notification`), or another agent's alias (`BeforeTool`, `PostCompaction`).
pub fn parse_event(name: &str) -> Result<Emitted, String> {
    if let Ok(kind) = name.parse::<EventKind>() {
        return Ok(Emitted::Runner(kind, None));
    }
    if let Ok(event) = name.parse::<CommandEvent>() {
        return Ok(match event.runner_event() {
            Some(kind) => Emitted::Runner(kind, Some(event)),
            None => Emitted::Command(event),
        });
    }
    let runner: Vec<&str> = EventKind::ALL.iter().map(|e| e.name()).collect();
    let commands: Vec<&str> = CommandEvent::ALL.iter().map(|e| e.name()).collect();
    Err(format!(
        "unknown event `{name}`; runner events: {}; command-hook events: {}",
        runner.join(", "),
        commands.join(", ")
    ))
}

/// Accepts a command hook's payload for the tool events: `tool_input` for `input`,
/// `tool_response` for `content` and `is_error`.
fn normalize(mut input: Value) -> Value {
    let Some(fields) = input.as_object_mut() else {
        return input;
    };
    if let Some(tool_input) = fields.remove("tool_input") {
        fields.entry("input").or_insert(tool_input);
    }
    if let Some(error) = fields
        .get("error")
        .and_then(Value::as_str)
        .map(str::to_owned)
    {
        fields
            .entry("content")
            .or_insert_with(|| json!([{"type": "text", "text": error}]));
        fields.entry("is_error").or_insert(json!(true));
    }
    if let Some(response) = fields.remove("tool_response") {
        let is_error = response["success"].as_bool() == Some(false);
        let text = if is_error {
            &response["error"]
        } else {
            &response["output"]
        };
        fields.entry("content").or_insert_with(
            || json!([{"type": "text", "text": text.as_str().unwrap_or_default()}]),
        );
        fields.entry("is_error").or_insert(json!(is_error));
    }
    input
}

/// `input` without the fields whose kind of value is not the one `E` has there (a newer
/// agent's `tool_name: null`, an object where a text was): the event's hooks run with what
/// can be read, and command hooks still get every field as the agent gave it. A payload an
/// event cannot be read from would otherwise run no hook at all, and a guard would be off.
fn leniently<E: Default + serde::Serialize>(mut input: Value) -> Value {
    let template = serde_json::to_value(E::default()).unwrap_or(Value::Null);
    let kind = |v: &Value| std::mem::discriminant(v);
    if let (Some(fields), Some(expected)) = (input.as_object_mut(), template.as_object()) {
        fields.retain(|name, value| match expected.get(name) {
            Some(Value::Null) | None => true,
            Some(Value::Number(_)) => value.is_number(),
            Some(wanted) => kind(wanted) == kind(value),
        });
    }
    input
}

/// How an event's outcome is shown: the fields a person (or a script) needs.
trait Shown: Combine {
    fn show(&self, outcome: Self::Outcome) -> Value;
}

macro_rules! shown_as_serialized {
    ($($ty:ty),* $(,)?) => {
        $(impl Shown for $ty {
            fn show(&self, outcome: Self::Outcome) -> Value {
                serde_json::to_value(outcome).unwrap_or(Value::Null)
            }
        })*
    };
}

shown_as_serialized!(
    SessionStartEvent,
    SessionBeforeSwitchEvent,
    SessionSwitchEvent,
    SessionBeforeBranchEvent,
    SessionBranchEvent,
    SessionBeforeCompactEvent,
    SessionCompactingEvent,
    SessionCompactEvent,
    SessionBeforeTreeEvent,
    SessionTreeEvent,
    SessionShutdownEvent,
    AgentStartEvent,
    AgentEndEvent,
    TurnStartEvent,
    TurnEndEvent,
    AutoCompactionStartEvent,
    AutoCompactionEndEvent,
    AutoRetryStartEvent,
    AutoRetryEndEvent,
    TtsrTriggeredEvent,
    TodoReminderEvent,
    PermissionRequestEvent,
    BeforeAgentStartEvent,
);

impl Shown for ToolCallEvent {
    fn show(&self, outcome: Self::Outcome) -> Value {
        tool_call_json(&self.input, outcome)
    }
}

/// A `tool_call` outcome as `emit` and `replay` show it; `input` is the call's input as
/// given.
pub fn tool_call_json(input: &Value, outcome: ToolCallOutcome) -> Value {
    let rewritten = outcome.input.is_some();
    json!({
        "block": outcome.block,
        "reason": outcome.reason,
        "input": outcome.input.unwrap_or_else(|| input.clone()),
        "rewritten": rewritten,
        "ask": outcome.ask,
        "approved": outcome.approved,
        "context": outcome.context,
    })
}

impl Shown for ToolResultEvent {
    fn show(&self, outcome: Self::Outcome) -> Value {
        json!({
            "content": outcome.content.unwrap_or_else(|| self.content.clone()),
            "details": outcome.details.unwrap_or_else(|| self.details.clone()),
            "is_error": outcome.is_error.unwrap_or(self.is_error),
        })
    }
}

impl Shown for ContextEvent {
    fn show(&self, outcome: Self::Outcome) -> Value {
        let changed = outcome.messages.is_some();
        json!({
            "messages": outcome.messages.unwrap_or_else(|| self.messages.clone()),
            "changed": changed,
        })
    }
}

impl Shown for StopEvent {
    fn show(&self, outcome: Self::Outcome) -> Value {
        json!({
            "block": outcome.block,
            "reason": (!outcome.reasons.is_empty()).then(|| outcome.reasons.join("\n")),
            "loop_bound_reached": outcome.loop_bound_reached,
            "stopped": outcome.stopped,
        })
    }
}

/// Runs `input` as the runner's event `E`; `failure`: a failed tool's result
/// (PostToolUseFailure), whose hooks get the payload as given (no `is_error` added).
async fn run_one<E: Shown + Default>(
    runner: &HookRunner,
    input: Value,
    failure: bool,
) -> Result<Result<Value, HookError>, String> {
    let given = input.as_object().cloned().unwrap_or_default();
    let mut normalized = normalize(input);
    if let (true, Some(fields)) = (failure, normalized.as_object_mut()) {
        fields.entry("is_error").or_insert(json!(true));
    }
    // Read from the value in place: no copy of the payload on the way of every event.
    let event: E = match E::deserialize(&normalized) {
        Ok(event) => event,
        Err(e) => serde_json::from_value(leniently::<E>(normalized))
            .map_err(|_| format!("invalid payload for {}: {e}", E::KIND))?,
    };
    Ok(runner
        .emit_with(&event, &given)
        .await
        .map(|outcome| event.show(outcome)))
}

/// Emits `emitted` with payload `input`; the combined outcome as JSON, or the error of a
/// strict event. An unreadable payload is an `Err` of the outer result. Command hooks get
/// every field of `input` as given, the runner filling only what is missing.
pub async fn emit(
    runner: &HookRunner,
    emitted: Emitted,
    input: Value,
) -> Result<Result<Value, HookError>, String> {
    let (kind, failure) = match emitted {
        Emitted::Command(event) => {
            let fields = match input {
                Value::Object(fields) => fields,
                _ => return Err(format!("the payload of {event} must be a JSON object")),
            };
            let outcome = runner.emit_command(event, fields).await;
            return Ok(Ok(serde_json::to_value(outcome).unwrap_or(Value::Null)));
        }
        Emitted::Runner(kind, failure) => (kind, failure == Some(CommandEvent::PostToolUseFailure)),
    };
    macro_rules! dispatch {
        ($($ty:ty => $kind:ident, $out:ty;)*) => {
            match kind {
                $(EventKind::$kind => run_one::<$ty>(runner, input, failure).await,)*
                _ => Err(format!("{kind} cannot be emitted by this version of agent-hooks")),
            }
        };
    }
    agent_hooks::abi::for_each_event!(dispatch)
}

/// A HookError as JSON.
pub fn error_json(error: &HookError) -> Value {
    json!({
        "hook_path": error.hook_path,
        "event": error.event,
        "kind": error.kind.name(),
        "panicked": error.panicked(),
        "error": error.message,
    })
}

/// A one-line summary of an outcome, for people.
pub fn summary(emitted: Emitted, outcome: &Value) -> String {
    let text = |v: &Value| v.as_str().unwrap_or_default().replace('\n', " / ");
    let Some(kind) = emitted.kind() else {
        return command_summary(outcome);
    };
    match kind {
        EventKind::ToolCall if outcome["approved"] == true && outcome["rewritten"] == true => {
            format!("approved by a hook, rewritten to {}", outcome["input"])
        }
        EventKind::ToolCall if outcome["approved"] == true && outcome["block"] != true => {
            "approved by a hook (no permission prompt)".into()
        }
        EventKind::ToolCall if outcome["block"] == true => {
            format!("BLOCKED: {}", text(&outcome["reason"]))
        }
        EventKind::ToolCall if outcome["ask"].is_string() => format!(
            "asks the user: {} (the agent confirms; blocked without a UI)",
            text(&outcome["ask"])
        ),
        EventKind::ToolCall if outcome["rewritten"] == true => {
            format!("rewritten to {}", outcome["input"])
        }
        EventKind::ToolCall => "allowed".into(),
        EventKind::ToolResult => {
            let content: Vec<String> = outcome["content"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|b| b["text"].as_str().map(str::to_owned))
                .collect();
            let status = if outcome["is_error"] == true {
                "error"
            } else {
                "ok"
            };
            format!("{status}: {:?}", content.join(" "))
        }
        EventKind::Context => {
            let n = outcome["messages"].as_array().map_or(0, Vec::len);
            if outcome["changed"] == true {
                format!("{n} messages after hooks")
            } else {
                format!("{n} messages, unchanged")
            }
        }
        EventKind::BeforeAgentStart if outcome["block"] == true => {
            format!("REJECTED: {}", text(&outcome["reason"]))
        }
        EventKind::BeforeAgentStart => context_added(outcome, "no context added"),
        EventKind::PermissionRequest => match outcome["decision"].as_str() {
            Some(decision) => decision.to_owned(),
            None => "no decision (the user is asked)".into(),
        },
        EventKind::Stop if outcome["stopped"].is_string() => {
            format!("stops (continue: false): {}", text(&outcome["stopped"]))
        }
        EventKind::Stop if outcome["loop_bound_reached"] == true => {
            "allowed to stop: the stop-hook loop bound was reached".into()
        }
        EventKind::Stop if outcome["block"] == true => {
            format!("KEPT GOING: {}", text(&outcome["reason"]))
        }
        EventKind::Stop => "stops".into(),
        EventKind::SessionStart => context_added(outcome, "started"),
        _ if outcome.is_null() => "notified".into(),
        _ => outcome.to_string(),
    }
}

/// The summary of a command event the runner has no moment for.
fn command_summary(outcome: &Value) -> String {
    let text = |v: &Value| v.as_str().unwrap_or_default().replace('\n', " / ");
    if outcome["ran"] == 0 {
        return "no hook ran".into();
    }
    if let Some(reason) = outcome["stop"].as_str() {
        return format!("STOP (continue: false): {reason}");
    }
    if outcome["block"] == true {
        let reasons: Vec<String> = outcome["reasons"]
            .as_array()
            .into_iter()
            .flatten()
            .map(text)
            .collect();
        return format!("BLOCKED: {}", reasons.join(" / "));
    }
    context_added(outcome, "ran")
}

/// "context added: ..." for the context an outcome adds (a native hook's message, then
/// command hooks' text), or `otherwise`.
fn context_added(outcome: &Value, otherwise: &str) -> String {
    let message = outcome.get("message").filter(|m| !m.is_null()).map(|m| {
        format!(
            "[{}] {}",
            m["custom_type"].as_str().unwrap_or_default(),
            content_text(&m["content"])
        )
    });
    let context: Vec<&str> = message
        .as_deref()
        .into_iter()
        .chain(
            outcome["context"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str),
        )
        .collect();
    if context.is_empty() {
        otherwise.to_owned()
    } else {
        format!("context added: {}", context.join(" / "))
    }
}

/// The text of a message's `content` (a string, or blocks whose text parts are joined).
pub fn content_text(content: &Value) -> String {
    match serde_json::from_value::<Content>(content.clone()) {
        Ok(Content::Text(text)) => text,
        Ok(Content::Blocks(blocks)) => text_of(&blocks),
        Err(_) => String::new(),
    }
}
