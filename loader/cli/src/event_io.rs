//! Events by name, from JSON, through the runner, to JSON: what `emit` and `replay` share.

use agent_hooks::{
    abi::{events::*, EventKind},
    agents::Decision,
    command_hook::{CommandEvent, CommandOutcome},
    Combine, HookError, HookRunner,
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

/// One event's combined outcome, typed as the runner gave it: shown as JSON for `emit` and
/// `replay`, read as a [`Decision`] for the answer to an agent.
pub trait Ran: Send {
    /// The outcome as `emit` and `replay` show it: the fields a person (or a script) needs.
    fn show(&self) -> Value;
    /// What the hooks decided; `said`: what the event's command hooks said.
    fn decision(&self, said: Option<&CommandOutcome>) -> Decision;
}

/// An event and its outcome.
struct Typed<E: Combine> {
    event: E,
    outcome: E::Outcome,
}

impl<E: Combine + Send> Ran for Typed<E> {
    fn show(&self) -> Value {
        self.event.shown(&self.outcome)
    }

    fn decision(&self, said: Option<&CommandOutcome>) -> Decision {
        with_said(self.event.decision(&self.outcome, said), said)
    }
}

/// `d` with what every event's command hooks can say besides: a stop (`continue: false`)
/// where nothing else stops, messages for the user, `suppressOutput`.
pub fn with_said(mut d: Decision, said: Option<&CommandOutcome>) -> Decision {
    if let Some(said) = said {
        if d.stop.is_none() {
            d.stop = said.stop.clone();
        }
        d.messages.extend(said.system_messages.iter().cloned());
        d.suppress_output = said.suppress_output;
    }
    d
}

impl Ran for CommandOutcome {
    fn show(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    fn decision(&self, said: Option<&CommandOutcome>) -> Decision {
        let d = Decision {
            block: self.block.then(|| {
                let reasons: Vec<&str> = self
                    .reasons
                    .iter()
                    .map(String::as_str)
                    .filter(|r| !r.is_empty())
                    .collect();
                reasons.join("\n")
            }),
            context: self
                .context
                .iter()
                .filter(|c| !c.is_empty())
                .cloned()
                .collect(),
            extra: self.extra.clone(),
            ..Decision::default()
        };
        with_said(d, said)
    }
}

/// Runs `input` as the runner's event `E`; `failure`: a failed tool's result
/// (PostToolUseFailure), whose hooks get the payload as given (no `is_error` added).
async fn run_one<E: Combine + Default + Send + 'static>(
    runner: &HookRunner,
    input: Value,
    failure: bool,
) -> Result<Result<Box<dyn Ran>, HookError>, String> {
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
        .map(|outcome| Box::new(Typed { event, outcome }) as Box<dyn Ran>))
}

/// Emits `emitted` with payload `input`; the combined outcome, or the error of a strict
/// event. An unreadable payload is an `Err` of the outer result. Command hooks get
/// every field of `input` as given, the runner filling only what is missing.
pub async fn emit(
    runner: &HookRunner,
    emitted: Emitted,
    input: Value,
) -> Result<Result<Box<dyn Ran>, HookError>, String> {
    let (kind, failure) = match emitted {
        Emitted::Command(event) => {
            let fields = match input {
                Value::Object(fields) => fields,
                _ => return Err(format!("the payload of {event} must be a JSON object")),
            };
            let outcome = runner.emit_command(event, fields).await;
            return Ok(Ok(Box::new(outcome)));
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
