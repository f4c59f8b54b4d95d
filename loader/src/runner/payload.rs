//! A command hook's stdin payload, written straight from the event's fields: nothing of the
//! event (a tool's input can be a whole file) is copied to build it.

use std::borrow::Cow;

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value};

use crate::{agents::Agent, command_hook::ToolNames};

/// The payload of one hook: the common fields first, in their order, then the event's own
/// fields in theirs. A field the event gives that is also a common one takes the common
/// one's place. The tool's name and input are written in the hook's dialect.
pub(super) struct Payload<'a> {
    /// `session_id`, `cwd`, ...: what the runner and the host add.
    pub common: Vec<(&'static str, Cow<'a, str>)>,
    /// The event's fields (what the caller gave winning over what the runner derived).
    pub fields: &'a Map<String, Value>,
    pub dialect: Agent,
    pub tools: &'a ToolNames,
}

impl Payload<'_> {
    /// The payload as JSON.
    pub(super) fn to_text(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

impl Serialize for Payload<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let tool = self.fields.get("tool_name").and_then(Value::as_str);
        let mut map = serializer.serialize_map(None)?;
        for (key, value) in &self.common {
            match self.fields.get(*key) {
                Some(given) => map.serialize_entry(key, given)?,
                None => map.serialize_entry(key, value)?,
            }
        }
        for (key, value) in self.fields {
            if self.common.iter().any(|(common, _)| common == key) {
                continue;
            }
            match (key.as_str(), tool) {
                ("tool_name", Some(tool)) => {
                    map.serialize_entry(key, self.tools.name_in(self.dialect, tool))?
                }
                ("tool_input", Some(tool)) => {
                    map.serialize_entry(key, &self.tools.input_view(self.dialect, tool, value))?
                }
                ("tool_response", _) => {
                    map.serialize_entry(key, &self.dialect.tool_response(value))?
                }
                (key, _) if key == "tool_use_id" && self.dialect.never_sends(key) => {}
                _ => map.serialize_entry(key, value)?,
            }
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn payload(dialect: Agent, fields: Value) -> String {
        let Value::Object(fields) = fields else {
            unreachable!("the fields are an object")
        };
        let common = vec![
            ("session_id", Cow::Borrowed("s-1")),
            ("cwd", Cow::Borrowed("/p")),
            ("hook_event_name", Cow::Borrowed("PreToolUse")),
        ];
        let tools = ToolNames::default();
        let payload = Payload {
            common,
            fields: &fields,
            dialect,
            tools: &tools,
        };
        payload.to_text()
    }

    #[test]
    fn common_fields_come_first_and_given_ones_take_their_place() {
        let fields = json!({
            "tool_name": "read",
            "cwd": "/given",
            "tool_input": {"path": "/p/a.rs", "offset": 1},
            "tool_use_id": "t-1",
        });
        assert_eq!(
            payload(Agent::ClaudeCode, fields),
            r#"{"session_id":"s-1","cwd":"/given","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"offset":1,"file_path":"/p/a.rs"},"tool_use_id":"t-1"}"#
        );
    }

    #[test]
    fn a_tool_response_gets_the_fields_its_dialect_names() {
        let fields = json!({"tool_name": "exec", "tool_response": {"output": "ok"}});
        assert_eq!(
            payload(Agent::Gemini, fields.clone()),
            r#"{"session_id":"s-1","cwd":"/p","hook_event_name":"PreToolUse","tool_name":"run_shell_command","tool_response":{"output":"ok","llmContent":"ok","returnDisplay":"ok"}}"#
        );
        assert_eq!(
            payload(Agent::ClaudeCode, fields),
            r#"{"session_id":"s-1","cwd":"/p","hook_event_name":"PreToolUse","tool_name":"Bash","tool_response":{"output":"ok"}}"#
        );
    }
}
