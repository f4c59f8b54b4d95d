//! What the hooks of one event decided, in neutral terms, the event as the agent sent it,
//! and what the agent gets back: the three values every agent's answer is written from and
//! to.

use serde_json::{Map, Value};

/// What the hooks of one event decided, in neutral terms.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Decision {
    /// The action is blocked, with this reason.
    pub block: Option<String>,
    /// The tool runs with this input instead.
    pub input: Option<Value>,
    /// The tool runs without the agent's permission prompt.
    pub approve: bool,
    /// The agent asks its user, with this reason.
    pub ask: Option<String>,
    /// A permission request's answer: `allow` or `deny`, with the reasons.
    pub permission: Option<(&'static str, Option<String>)>,
    /// Text added to the model's context.
    pub context: Vec<String>,
    /// Text for the model about a tool that already ran.
    pub feedback: Vec<String>,
    /// Text that replaces a tool's result for the model.
    pub replacement: Option<String>,
    /// The tool's result as the hooks left it (its content blocks), where one changed it:
    /// for an agent that takes a changed result whole (pi).
    pub content: Option<Value>,
    /// The agent stops (`continue: false`), with this reason for the user.
    pub stop: Option<String>,
    /// Messages for the user (`systemMessage`).
    pub messages: Vec<String>,
    /// The tool's output is not shown in the transcript.
    pub suppress_output: bool,
    /// The other `hookSpecificOutput` fields of events the runner has no moment for
    /// (MessageDisplay's `displayContent`, ...), passed on as the hooks gave them.
    pub extra: Map<String, Value>,
}

/// The event being answered, as the agent sent it.
#[derive(Debug, Clone, Copy)]
pub struct AgentEvent<'a> {
    /// Its Claude Code name (`PreToolUse`), or another agent's alias (`BeforeTool`).
    pub event: &'a str,
    /// Its name in the agent's payload, given back as `hookEventName`.
    pub agent_event: &'a str,
    /// Whether it came in Copilot CLI's own form (camelCase payload), which is answered in
    /// that form.
    pub own_form: bool,
}

impl AgentEvent<'_> {
    /// Whether it is the moment before a tool runs.
    pub(super) fn before_a_tool(&self) -> bool {
        matches!(self.event, "PreToolUse" | "BeforeTool")
    }
}

/// What the agent gets: an exit code, stdout, and lines for stderr.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToAgent {
    /// The exit code.
    pub code: u8,
    /// Standard output: the JSON answer, if any.
    pub stdout: String,
    /// Lines for standard error.
    pub notes: Vec<String>,
}
