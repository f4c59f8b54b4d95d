use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::setters;
use super::ContentBlock;

/// `tool_call`: a tool is about to run.
///
/// On the wire:
///
/// ```json
/// {
///     "tool_name": "exec",
///     "tool_call_id": "call-1",
///     "input": {
///         "command": "cargo test"
///     }
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ToolCallEvent {
    /// The tool's name, e.g. `exec`.
    pub tool_name: String,
    /// The id of this call.
    pub tool_call_id: String,
    /// The tool's input, e.g. `{"command": "ls"}`.
    pub input: Value,
}

setters!(ToolCallEvent {
    tool_name: set<String>,
    tool_call_id: set<String>,
    input: set<Value>,
});

impl ToolCallEvent {
    /// A call of `tool_name` with `input`.
    pub fn new(
        tool_name: impl Into<String>,
        tool_call_id: impl Into<String>,
        input: Value,
    ) -> Self {
        Self {
            tool_name: tool_name.into(),
            tool_call_id: tool_call_id.into(),
            input,
        }
    }
}

/// What a `tool_call` handler may return. The first block stops the call and later handlers;
/// otherwise an `input` replaces the tool's input (the next handler sees the new one).
///
/// [`ask`](Self::ask) asks the user to confirm the call, as a command hook's
/// `permissionDecision: "ask"` does: the agent asks through its UI after every hook ran, and
/// blocks the call with the reason when the user says no or there is no UI. A later
/// handler's block still wins.
///
/// On the wire an ask is `{"block": true, "ask": true, "reason": ...}`: a host of interface
/// 1.0, which does not know `ask`, reads a block with the reason, so a plugin that asks is
/// never silently allowed by an older agent. A host of 1.1 or later reads `ask` first.
///
/// An ask, as it crosses:
///
/// ```json
/// {
///     "block": true,
///     "ask": true,
///     "reason": "Run the whole test suite on main?",
///     "input": {
///         "command": "cargo test --workspace"
///     }
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(from = "ToolCallWire")]
pub struct ToolCallResult {
    /// Do not run the tool.
    pub block: bool,
    /// Added in 1.1: run it only if the user confirms (blocked without a UI).
    pub ask: bool,
    /// Why, shown to the model and the user (and the question, with `ask`).
    pub reason: Option<String>,
    /// Run the tool with this input instead.
    pub input: Option<Value>,
}

/// [`ToolCallResult`] as it crosses: an ask also says `block`, for hosts that know no ask.
#[derive(Serialize, Deserialize, Default)]
#[serde(default)]
struct ToolCallWire<R = String, I = Value> {
    block: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    ask: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<R>,
    #[serde(skip_serializing_if = "Option::is_none")]
    input: Option<I>,
}

/// Written through a borrowed wire form: a result is serialised on every call, and its
/// input may be a whole file.
impl Serialize for ToolCallResult {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        ToolCallWire {
            block: self.block || self.ask,
            ask: self.ask && !self.block,
            reason: self.reason.as_deref(),
            input: self.input.as_ref(),
        }
        .serialize(serializer)
    }
}

impl From<ToolCallWire> for ToolCallResult {
    fn from(wire: ToolCallWire) -> Self {
        Self {
            block: wire.block && !wire.ask,
            ask: wire.ask,
            reason: wire.reason,
            input: wire.input,
        }
    }
}

impl ToolCallResult {
    /// Blocks the call with `reason`.
    pub fn block(reason: impl Into<String>) -> Self {
        Self {
            block: true,
            reason: Some(reason.into()),
            ..Self::default()
        }
    }

    /// Added in 1.1: runs the call only if the user confirms; `reason` is the question's
    /// text, and the block's reason when the user says no or there is no UI.
    ///
    /// ```
    /// # use agent_hooks_abi::prelude::*;
    /// # fn register(api: &mut HookApi) {
    /// api.on(|event: &ToolCallEvent, _ctx| {
    ///     let command = event.input["command"].as_str().unwrap_or_default();
    ///     Ok(command
    ///         .starts_with("git push")
    ///         .then(|| ToolCallResult::ask("This pushes to the remote.")))
    /// });
    /// # }
    /// ```
    pub fn ask(reason: impl Into<String>) -> Self {
        Self {
            ask: true,
            reason: Some(reason.into()),
            ..Self::default()
        }
    }

    /// Lets the call run with `input` instead.
    pub fn replace_input(input: Value) -> Self {
        Self {
            input: Some(input),
            ..Self::default()
        }
    }
}

/// `tool_result`: a tool ran.
///
/// On the wire:
///
/// ```json
/// {
///     "tool_name": "read",
///     "tool_call_id": "call-2",
///     "input": {
///         "path": ".env"
///     },
///     "content": [
///         {
///             "type": "text",
///             "text": "API_KEY=abc"
///         }
///     ],
///     "details": {
///         "bytes": 11
///     },
///     "is_error": false
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ToolResultEvent {
    /// The tool's name.
    pub tool_name: String,
    /// The id of the call.
    pub tool_call_id: String,
    /// The input it ran with.
    pub input: Value,
    /// Its output.
    pub content: Vec<ContentBlock>,
    /// Tool-specific data.
    pub details: Value,
    /// Whether it failed.
    pub is_error: bool,
}

setters!(ToolResultEvent {
    tool_name: set<String>,
    tool_call_id: set<String>,
    input: set<Value>,
    content: val<Vec<ContentBlock>>,
    details: set<Value>,
    is_error: val<bool>,
});

impl ToolResultEvent {
    /// The result of a call of `tool_name` with `input`; set its output with the setters.
    pub fn new(
        tool_name: impl Into<String>,
        tool_call_id: impl Into<String>,
        input: Value,
    ) -> Self {
        Self {
            tool_name: tool_name.into(),
            tool_call_id: tool_call_id.into(),
            input,
            ..Self::default()
        }
    }
}

/// What a `tool_result` handler may return: each field given replaces the tool's
/// (the last replacement wins).
///
/// On the wire:
///
/// ```json
/// {
///     "content": [
///         {
///             "type": "text",
///             "text": "API_KEY=[REDACTED]"
///         }
///     ],
///     "details": {
///         "redacted": 1
///     },
///     "is_error": false
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ToolResultPatch {
    /// Replacement output.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<Vec<ContentBlock>>,
    /// Replacement details.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
    /// Replacement error status.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
}

setters!(ToolResultPatch {
    content: some_val<Vec<ContentBlock>>,
    details: some<Value>,
    is_error: some_val<bool>,
});

/// `permission_request`: a tool needs the user's permission.
///
/// On the wire:
///
/// ```json
/// {
///     "tool_name": "exec",
///     "tool_call_id": "call-3",
///     "input": {
///         "command": "rm -rf target"
///     }
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct PermissionRequestEvent {
    /// The tool's name.
    pub tool_name: String,
    /// The id of the call.
    pub tool_call_id: String,
    /// The tool's input.
    pub input: Value,
}

setters!(PermissionRequestEvent {
    tool_name: set<String>,
    tool_call_id: set<String>,
    input: set<Value>,
});

impl PermissionRequestEvent {
    /// A request to run `tool_name` with `input`.
    pub fn new(
        tool_name: impl Into<String>,
        tool_call_id: impl Into<String>,
        input: Value,
    ) -> Self {
        Self {
            tool_name: tool_name.into(),
            tool_call_id: tool_call_id.into(),
            input,
        }
    }
}

/// A permission decision.
///
/// Later versions of the interface may add decisions: a host reads one it does not know as
/// [`Unknown`](Self::Unknown), reports it and ignores it, so a newer plugin's result keeps
/// its other fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum PermissionDecision {
    /// Run without asking.
    Approve,
    /// Do not run.
    Deny,
    /// Ask the user.
    Ask,
    /// A decision this version of the interface does not know; it counts as none.
    #[serde(other)]
    Unknown,
}

/// What a `permission_request` handler may return (deny wins over ask, ask over approve).
///
/// On the wire:
///
/// ```json
/// {
///     "decision": "deny",
///     "reason": "Not in this folder."
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct PermissionResult {
    /// The decision; nothing means "no opinion".
    pub decision: Option<PermissionDecision>,
    /// Why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

setters!(PermissionResult {
    decision: some_val<PermissionDecision>,
    reason: some<String>,
});

/// `stop`: the agent is about to stop.
///
/// On the wire:
///
/// ```json
/// {
///     "stop_hook_active": false
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct StopEvent {
    /// Whether a stop hook is already keeping the agent going.
    pub stop_hook_active: bool,
}

setters!(StopEvent {
    stop_hook_active: val<bool>,
});

/// What a `stop` handler may return.
///
/// On the wire:
///
/// ```json
/// {
///     "block": true,
///     "reason": "The tests do not pass yet; run them again."
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct StopResult {
    /// Keep the agent going.
    pub block: bool,
    /// The agent's next instruction when blocking.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl StopResult {
    /// Keeps the agent going with `reason` as its next instruction.
    pub fn block(reason: impl Into<String>) -> Self {
        Self {
            block: true,
            reason: Some(reason.into()),
        }
    }
}
