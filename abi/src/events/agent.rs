use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::setters;
use super::{AgentMessage, CustomMessage, ImageContent};

/// `context`: the messages about to be sent to the model.
///
/// On the wire:
///
/// ```json
/// {
///     "messages": [
///         {
///             "role": "user",
///             "content": "fix the parser"
///         },
///         {
///             "role": "custom",
///             "custom_type": "debug-only",
///             "content": [
///                 {
///                     "type": "text",
///                     "text": "parse took 4 ms"
///                 }
///             ]
///         }
///     ]
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ContextEvent {
    /// The messages, oldest first.
    pub messages: Vec<AgentMessage>,
}

setters!(ContextEvent {
    messages: val<Vec<AgentMessage>>,
});

/// What a `context` handler may return: the messages to use instead (the next handler gets
/// them).
///
/// On the wire:
///
/// ```json
/// {
///     "messages": [
///         {
///             "role": "user",
///             "content": "fix the parser"
///         }
///     ]
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ContextResult {
    /// The replacement messages.
    pub messages: Vec<AgentMessage>,
}

setters!(ContextResult {
    messages: val<Vec<AgentMessage>>,
});

/// `before_agent_start`: a prompt is about to start the agent.
///
/// On the wire:
///
/// ```json
/// {
///     "prompt": "fix the parser",
///     "images": [
///         {
///             "data": "iVBORw0KGgo=",
///             "mime_type": "image/png"
///         }
///     ]
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct BeforeAgentStartEvent {
    /// The user's prompt.
    pub prompt: String,
    /// Images attached to it.
    pub images: Vec<ImageContent>,
}

setters!(BeforeAgentStartEvent {
    prompt: set<String>,
    images: val<Vec<ImageContent>>,
});

/// What a `before_agent_start` handler may return (the first message returned is kept).
///
/// On the wire:
///
/// ```json
/// {
///     "message": {
///         "custom_type": "project-rules",
///         "content": "Run cargo fmt before committing.",
///         "display": false,
///         "details": null
///     }
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct BeforeAgentStartResult {
    /// A message to inject before the prompt.
    pub message: Option<CustomMessage>,
}

setters!(BeforeAgentStartResult {
    message: some<CustomMessage>,
});

/// `agent_start`: the agent started working on a prompt.
///
/// On the wire:
///
/// ```json
/// {}
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct AgentStartEvent {}

/// `agent_end`: the agent finished working on a prompt.
///
/// On the wire:
///
/// ```json
/// {
///     "messages": [
///         {
///             "role": "assistant",
///             "content": "Done: the parser is fixed."
///         }
///     ]
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct AgentEndEvent {
    /// The messages produced while working.
    pub messages: Vec<AgentMessage>,
}

setters!(AgentEndEvent {
    messages: val<Vec<AgentMessage>>,
});

/// `turn_start`: a turn started.
///
/// On the wire:
///
/// ```json
/// {
///     "turn_index": 0,
///     "timestamp": 1796040000000
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct TurnStartEvent {
    /// The turn's index within the prompt, from 0.
    pub turn_index: u32,
    /// Milliseconds since the Unix epoch.
    pub timestamp: u64,
}

setters!(TurnStartEvent {
    turn_index: val<u32>,
    timestamp: val<u64>,
});

/// `turn_end`: a turn ended.
///
/// On the wire:
///
/// ```json
/// {
///     "turn_index": 0,
///     "message": {
///         "role": "assistant",
///         "content": "Running the tests."
///     },
///     "tool_results": [
///         {
///             "role": "toolResult",
///             "content": [
///                 {
///                     "type": "text",
///                     "text": "ok"
///                 }
///             ]
///         }
///     ]
/// }
/// ```
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

setters!(TurnEndEvent {
    turn_index: val<u32>,
    message: some<AgentMessage>,
    tool_results: val<Vec<AgentMessage>>,
});

/// `auto_compaction_start`: automatic compaction started.
///
/// On the wire:
///
/// ```json
/// {
///     "reason": "threshold"
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct AutoCompactionStartEvent {
    /// `threshold` or `overflow`.
    pub reason: String,
}

setters!(AutoCompactionStartEvent {
    reason: set<String>,
});

/// `auto_compaction_end`: automatic compaction ended.
///
/// On the wire:
///
/// ```json
/// {
///     "aborted": false,
///     "will_retry": true
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct AutoCompactionEndEvent {
    /// Whether it was aborted.
    pub aborted: bool,
    /// Whether the agent retries the request.
    pub will_retry: bool,
}

setters!(AutoCompactionEndEvent {
    aborted: val<bool>,
    will_retry: val<bool>,
});

/// `auto_retry_start`: an automatic retry started.
///
/// On the wire:
///
/// ```json
/// {
///     "attempt": 2,
///     "max_attempts": 3,
///     "delay_ms": 4000,
///     "error_message": "rate limited"
/// }
/// ```
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

setters!(AutoRetryStartEvent {
    attempt: val<u32>,
    max_attempts: val<u32>,
    delay_ms: val<u64>,
    error_message: set<String>,
});

/// `auto_retry_end`: an automatic retry ended.
///
/// On the wire:
///
/// ```json
/// {
///     "success": false,
///     "attempt": 3,
///     "final_error": "rate limited"
/// }
/// ```
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

setters!(AutoRetryEndEvent {
    success: val<bool>,
    attempt: val<u32>,
    final_error: some<String>,
});

/// `ttsr_triggered`: a time-sensitive reminder rule triggered.
///
/// On the wire:
///
/// ```json
/// {
///     "rules": [
///         {
///             "name": "no-secrets"
///         }
///     ]
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct TtsrTriggeredEvent {
    /// The rules that triggered.
    pub rules: Vec<Value>,
}

setters!(TtsrTriggeredEvent {
    rules: val<Vec<Value>>,
});

/// `todo_reminder`: the agent is reminded of unfinished todos.
///
/// On the wire:
///
/// ```json
/// {
///     "todos": [
///         {
///             "text": "write the changelog",
///             "done": false
///         }
///     ],
///     "attempt": 1
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct TodoReminderEvent {
    /// The unfinished todos.
    pub todos: Vec<Value>,
    /// How many reminders were given so far.
    pub attempt: u32,
}

setters!(TodoReminderEvent {
    todos: val<Vec<Value>>,
    attempt: val<u32>,
});
