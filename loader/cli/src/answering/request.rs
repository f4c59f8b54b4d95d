//! One event as an agent sends it to `agent-hooks hook`: its payload read (bounded), the
//! event named, the tool named as agent-hooks names it.

use std::{io::Read, path::PathBuf};

use agent_hooks::{agents::Agent, command_hook::ToolNames};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

pub use crate::relay::PAYLOAD_LIMIT;

/// Why an agent's payload could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
pub enum RequestError {
    /// Reading stdin failed.
    #[error("the payload could not be read from stdin: {0}")]
    Read(String),
    /// Past [`PAYLOAD_LIMIT`].
    #[error("the payload is larger than {limit} bytes")]
    TooLarge {
        /// The limit.
        limit: usize,
    },
    /// Not JSON, or not an object.
    #[error("the payload is not a JSON object ({0})")]
    NotJson(String),
    /// No event named, in the payload or with `--event`.
    #[error("the payload has no `hook_event_name` and no --event was given")]
    NoEvent,
}

/// An event to run: the agent's fields, with the tool's name as agent-hooks names it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// The agent that sent it.
    pub agent: String,
    /// The command-hook event name (`PreToolUse`; an agent's alias, `BeforeTool`, as it is).
    pub event: String,
    /// The agent's name of the event, as it sent it.
    pub agent_event: String,
    /// The agent's session id, when it gave one.
    pub session_id: Option<String>,
    /// The project folder, when the payload gives one.
    pub cwd: Option<PathBuf>,
    /// The agent's name of the tool (`Bash`), for tool events.
    pub agent_tool: Option<String>,
    /// The payload's fields, `tool_name` being agent-hooks' name of the tool (`exec`).
    pub payload: Map<String, Value>,
    /// It came in a form of the agent's own (no event name, its own field names), which its
    /// answer takes too.
    pub own_form: bool,
}

impl Request {
    /// Reads a payload of `agent`; `event` names the event when the payload does not.
    pub fn parse(bytes: &[u8], agent: Agent, event: Option<&str>) -> Result<Request, RequestError> {
        let value: Value =
            serde_json::from_slice(bytes).map_err(|e| RequestError::NotJson(e.to_string()))?;
        let Value::Object(mut payload) = value else {
            return Err(RequestError::NotJson(format!(
                "a JSON {} was given",
                kind_of(&value)
            )));
        };
        let own_form = agent_hooks::agents::to_common_fields(agent, &mut payload);
        let agent_event = payload
            .get("hook_event_name")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or_else(|| event.map(str::to_owned))
            .ok_or(RequestError::NoEvent)?;
        let event = agent.claude_event_name(&agent_event).to_owned();
        payload.insert("hook_event_name".into(), Value::String(event.clone()));
        let agent_tool = payload
            .get("tool_name")
            .and_then(Value::as_str)
            .map(str::to_owned);
        if let Some(tool) = &agent_tool {
            let own = own_tool_name(agent, tool);
            payload.insert("tool_name".into(), Value::String(own));
        }
        let text = |key: &str| payload.get(key).and_then(Value::as_str).map(str::to_owned);
        Ok(Request {
            agent: agent.hook_name().to_owned(),
            session_id: text("session_id").or_else(|| text("sessionId")),
            cwd: text("cwd").map(PathBuf::from),
            event,
            agent_event,
            agent_tool,
            payload,
            own_form,
        })
    }

    /// The fields to emit the event with.
    pub fn fields(&self) -> Value {
        let mut fields = self.payload.clone();
        // The common form's shell result is `{stdout, stderr, interrupted}`: give native
        // hooks its output as `output` when the agent gave none.
        if let Some(Value::Object(response)) = fields.get_mut("tool_response") {
            if !response.contains_key("output") {
                let output = ["stdout", "llmContent", "output"]
                    .iter()
                    .find_map(|k| response.get(*k).and_then(Value::as_str))
                    .map(str::to_owned);
                if let Some(output) = output {
                    response.insert("output".into(), Value::String(output));
                }
            }
        }
        Value::Object(fields)
    }
}

/// Reads a payload from `input`, at most [`PAYLOAD_LIMIT`] bytes.
pub fn read_bounded(input: &mut impl Read) -> Result<Vec<u8>, RequestError> {
    match crate::relay::read_bounded(input) {
        Err(e) => Err(RequestError::Read(e.to_string())),
        Ok(Err(_)) => Err(RequestError::TooLarge {
            limit: PAYLOAD_LIMIT,
        }),
        Ok(Ok(bytes)) => Ok(bytes),
    }
}

/// agent-hooks' name of the tool `agent` calls `tool` (`Bash` → `exec`; an agent's own name
/// of it, and the common name where its payloads take the common form), by its profile's
/// `tools`.
pub fn own_tool_name(agent: Agent, tool: &str) -> String {
    // Made once: the table is built from every agent's profile, which the resident process
    // would otherwise do again for each event.
    static NAMES: std::sync::LazyLock<ToolNames> = std::sync::LazyLock::new(ToolNames::default);
    let names = &*NAMES;
    let own = names.own_name(agent, tool).or_else(|| {
        agent
            .profile()
            .claude_form_for_claude_names
            .then(|| names.own_name(Agent::ClaudeCode, tool))
            .flatten()
    });
    own.unwrap_or(tool).to_owned()
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}
