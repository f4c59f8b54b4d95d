use super::setters;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One block of a tool's output or of a message: text, an image, or a kind this version
/// does not know (kept as is).
///
/// On the wire:
///
/// ```json
/// {
///     "type": "text",
///     "text": "API_KEY=[REDACTED]"
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContentBlock {
    /// `text`, `image`, or another kind.
    #[serde(rename = "type")]
    pub kind: String,
    /// The text of a `text` block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Every other field (an image's `data` and `mime_type`, fields of newer hosts).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ContentBlock {
    /// A `text` block.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            kind: "text".into(),
            text: Some(text.into()),
            extra: Map::new(),
        }
    }

    /// An `image` block with base64 `data`.
    pub fn image(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        let mut extra = Map::new();
        extra.insert("data".into(), Value::String(data.into()));
        extra.insert("mime_type".into(), Value::String(mime_type.into()));
        Self {
            kind: "image".into(),
            text: None,
            extra,
        }
    }

    /// The text of a `text` block.
    pub fn as_text(&self) -> Option<&str> {
        match self.kind.as_str() {
            "text" => self.text.as_deref(),
            _ => None,
        }
    }
}

/// The text of `content`'s text blocks, one per line.
pub fn text_of(content: &[ContentBlock]) -> String {
    content
        .iter()
        .filter_map(ContentBlock::as_text)
        .collect::<Vec<_>>()
        .join("\n")
}

/// A message's content: a plain string or a list of blocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Content {
    /// Plain text.
    Text(String),
    /// Blocks of text, images and others.
    Blocks(Vec<ContentBlock>),
}

impl Default for Content {
    fn default() -> Self {
        Content::Text(String::new())
    }
}

impl From<&str> for Content {
    fn from(text: &str) -> Self {
        Content::Text(text.to_owned())
    }
}

impl From<String> for Content {
    fn from(text: String) -> Self {
        Content::Text(text)
    }
}

/// A message of the conversation as the model will see it (the `context` event).
///
/// On the wire:
///
/// ```json
/// {
///     "role": "custom",
///     "custom_type": "debug-only",
///     "content": "parse took 4 ms"
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AgentMessage {
    /// `user`, `assistant`, `toolResult`, `custom`, ...
    pub role: String,
    /// For custom messages: the plugin-defined type (read from `custom_type` or, as hosts
    /// written in TypeScript send it, `customType`).
    #[serde(default, alias = "customType", skip_serializing_if = "Option::is_none")]
    pub custom_type: Option<String>,
    /// The message's content.
    #[serde(default)]
    pub content: Content,
    /// Every other field, kept so that a message passed back keeps what the host put in it.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A persistent custom message that a plugin adds to the session.
///
/// On the wire:
///
/// ```json
/// {
///     "custom_type": "audit-report",
///     "content": [
///         {
///             "type": "text",
///             "text": "3 calls audited"
///         }
///     ],
///     "display": true,
///     "details": {
///         "calls": 3
///     }
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CustomMessage {
    /// The plugin-defined type; renderers are registered per type (read from `custom_type`
    /// or `customType`).
    #[serde(alias = "customType")]
    pub custom_type: String,
    /// What the model reads.
    pub content: Content,
    /// Whether the UI shows it.
    pub display: bool,
    /// Data for renderers, not sent to the model.
    pub details: Value,
}

setters!(CustomMessage {
    custom_type: set<String>,
    content: set<Content>,
    display: val<bool>,
    details: set<Value>,
});

impl CustomMessage {
    /// A displayed message of `custom_type` with text `content`.
    pub fn new(custom_type: impl Into<String>, content: impl Into<Content>) -> Self {
        Self {
            custom_type: custom_type.into(),
            content: content.into(),
            display: true,
            details: Value::Null,
        }
    }
}

/// How a sent message is delivered while the agent is busy.
///
/// Later versions of the interface may add ways: a host reads one it does not know as
/// [`Unknown`](Self::Unknown), reports it, and delivers the message its default way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum DeliverAs {
    /// Interrupt the agent between tool calls.
    Steer,
    /// Wait until the agent finishes.
    FollowUp,
    /// A way this version of the interface does not know; the host delivers the message its
    /// default way (as if unset).
    #[serde(other)]
    Unknown,
}

/// Options of `send_message`.
///
/// On the wire:
///
/// ```json
/// {
///     "trigger_turn": true,
///     "deliver_as": "follow_up"
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SendMessageOptions {
    /// Start a model turn when the agent is idle.
    pub trigger_turn: bool,
    /// Delivery while the agent is busy; the host's default when unset.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deliver_as: Option<DeliverAs>,
}

setters!(SendMessageOptions {
    trigger_turn: val<bool>,
    deliver_as: some_val<DeliverAs>,
});

/// An image attached to a prompt.
///
/// On the wire:
///
/// ```json
/// {
///     "data": "iVBORw0KGgo=",
///     "mime_type": "image/png"
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ImageContent {
    /// Base64 data.
    pub data: String,
    /// e.g. `image/png`.
    pub mime_type: String,
}

setters!(ImageContent {
    data: set<String>,
    mime_type: set<String>,
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_custom_type_is_read_in_either_spelling_and_written_as_custom_type() {
        for key in ["custom_type", "customType"] {
            let message: AgentMessage = serde_json::from_value(
                serde_json::json!({"role": "custom", key: "debug-only", "content": "x"}),
            )
            .unwrap();
            assert_eq!(message.custom_type.as_deref(), Some("debug-only"));
            assert!(message.extra.is_empty(), "{:?}", message.extra);
            let custom: CustomMessage =
                serde_json::from_value(serde_json::json!({key: "todo", "content": "y"})).unwrap();
            assert_eq!(custom.custom_type, "todo");
            assert_eq!(
                serde_json::to_value(&custom).unwrap()["custom_type"],
                "todo"
            );
        }
    }
}
