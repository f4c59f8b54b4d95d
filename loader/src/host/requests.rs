//! What hooks of the `mcp_tool`, `prompt` and `agent` types ask the agent for:
//! a call of one of its MCP servers' tools, one turn of its model, or a subagent's run. The
//! agent answers through [`AgentHost`](crate::AgentHost); one that does not says so with
//! [`HostCallError::NotSupported`], and the hook's report says it did not run.

use serde_json::Value;

/// The handler types the agent answers itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HostCallKind {
    /// `mcp_tool`: a tool of one of the agent's MCP servers.
    McpTool,
    /// `prompt`: one turn of the agent's model.
    Prompt,
    /// `agent`: a subagent with the agent's tools, run to its final answer.
    Agent,
}

impl HostCallKind {
    /// The `type` in hooks files.
    pub fn name(self) -> &'static str {
        match self {
            HostCallKind::McpTool => "mcp_tool",
            HostCallKind::Prompt => "prompt",
            HostCallKind::Agent => "agent",
        }
    }

    /// The [`AgentHost`](crate::AgentHost) method that answers it.
    pub fn method(self) -> &'static str {
        match self {
            HostCallKind::McpTool => "AgentHost::call_mcp_tool",
            HostCallKind::Prompt => "AgentHost::prompt_model",
            HostCallKind::Agent => "AgentHost::run_subagent",
        }
    }
}

/// An `mcp_tool` hook's call.
#[derive(Debug, Clone, PartialEq)]
pub struct McpToolCall {
    /// The MCP server, by the name the agent's configuration gives it.
    pub server: String,
    /// The tool of that server.
    pub tool: String,
    /// The tool's arguments: the hook's `input`, with each `${path}` replaced by that field
    /// of the event's payload (`${tool_input.file_path}`).
    pub input: Value,
    /// The event's payload, as a command hook would get it on stdin.
    pub payload: Value,
}

/// A `prompt` or `agent` hook's request to the agent's model.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelRequest {
    /// The hook's prompt with `$ARGUMENTS` replaced by the payload's JSON (appended after a
    /// blank line when the prompt does not name it).
    pub prompt: String,
    /// The model the hook names (`model`), if any; the agent's choice otherwise.
    pub model: Option<String>,
    /// The event's payload, as a command hook would get it on stdin.
    pub payload: Value,
}

/// Why the agent gave no answer to a hook's call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HostCallError {
    /// The agent does not offer this to hooks (the default of every method).
    #[error("this agent does not support `{}` hooks ({} is not implemented){}; the hook did not run", kind.name(), kind.method(), hint.as_deref().map(|h| format!(": {h}")).unwrap_or_default())]
    NotSupported {
        /// What was asked for.
        kind: HostCallKind,
        /// What the user can do, if the agent knows.
        hint: Option<String>,
    },
    /// The call was made and failed: the server is not connected, the tool reported an
    /// error, the model could not be reached.
    #[error("{0}")]
    Failed(String),
}

impl HostCallError {
    /// Not supported, without a hint.
    pub fn not_supported(kind: HostCallKind) -> Self {
        HostCallError::NotSupported { kind, hint: None }
    }
}
