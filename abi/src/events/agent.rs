use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{AgentMessage, CustomMessage, ImageContent};

/// `context`: the messages about to be sent to the model.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ContextEvent {
    /// The messages, oldest first.
    pub messages: Vec<AgentMessage>,
}

/// What a `context` handler may return: the messages to use instead (the next handler gets
/// them).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ContextResult {
    /// The replacement messages.
    pub messages: Vec<AgentMessage>,
}

/// `before_agent_start`: a prompt is about to start the agent.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct BeforeAgentStartEvent {
    /// The user's prompt.
    pub prompt: String,
    /// Images attached to it.
    pub images: Vec<ImageContent>,
}

/// What a `before_agent_start` handler may return (the first message returned is kept).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct BeforeAgentStartResult {
    /// A message to inject before the prompt.
    pub message: Option<CustomMessage>,
}

/// `agent_start`: the agent started working on a prompt.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct AgentStartEvent {}

/// `agent_end`: the agent finished working on a prompt.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct AgentEndEvent {
    /// The messages produced while working.
    pub messages: Vec<AgentMessage>,
}

/// `turn_start`: a turn started.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct TurnStartEvent {
    /// The turn's index within the prompt, from 0.
    pub turn_index: u32,
    /// Milliseconds since the Unix epoch.
    pub timestamp: u64,
}

/// `turn_end`: a turn ended.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct TurnEndEvent {
    /// The turn's index within the prompt, from 0.
    pub turn_index: u32,
    /// The assistant's message.
    pub message: Option<AgentMessage>,
    /// The results of the turn's tool calls.
    pub tool_results: Vec<AgentMessage>,
}

/// `auto_compaction_start`: automatic compaction started.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct AutoCompactionStartEvent {
    /// `threshold` or `overflow`.
    pub reason: String,
}

/// `auto_compaction_end`: automatic compaction ended.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct AutoCompactionEndEvent {
    /// Whether it was aborted.
    pub aborted: bool,
    /// Whether the agent retries the request.
    pub will_retry: bool,
}

/// `auto_retry_start`: an automatic retry started.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct AutoRetryStartEvent {
    /// This attempt, from 1.
    pub attempt: u32,
    /// The most attempts there will be.
    pub max_attempts: u32,
    /// The wait before this attempt.
    pub delay_ms: u64,
    /// The error retried.
    pub error_message: String,
}

/// `auto_retry_end`: an automatic retry ended.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct AutoRetryEndEvent {
    /// Whether the retry succeeded.
    pub success: bool,
    /// The last attempt.
    pub attempt: u32,
    /// The error, when it did not.
    pub final_error: Option<String>,
}

/// `ttsr_triggered`: a time-sensitive reminder rule triggered.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct TtsrTriggeredEvent {
    /// The rules that triggered.
    pub rules: Vec<Value>,
}

/// `todo_reminder`: the agent is reminded of unfinished todos.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct TodoReminderEvent {
    /// The unfinished todos.
    pub todos: Vec<Value>,
    /// How many reminders were given so far.
    pub attempt: u32,
}
