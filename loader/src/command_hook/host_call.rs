//! Hooks the agent answers itself (the `mcp_tool`, `prompt` and `agent` types):
//! what the hooks file gives, the request the agent gets, and how its reply is read.
//!
//! An `mcp_tool` hook's tool output is read as a command hook's stdout (JSON answers,
//! plain text as the event takes it). A `prompt` or `agent` hook's reply is
//! `{"ok": true}` (nothing to say) or `{"ok": false, "reason": "..."}`, which is taken as a
//! command hook's exit 2 with the reason on stderr (so it blocks where exit 2 blocks); any
//! other JSON object is read as a command hook's stdout, and a reply that is not JSON is an
//! error of the hook.

use std::time::Duration;

use serde_json::{Map, Value};

use super::process::{Exit, Run};
use crate::host::{HostCallError, HostCallKind, McpToolCall, ModelRequest};

/// How long a `prompt` hook may take when its file gives no `timeout` (the reference's).
pub const PROMPT_TIMEOUT: Duration = Duration::from_secs(30);

/// A hook the agent answers, as its file gives it.
#[derive(Debug, Clone, PartialEq)]
pub enum HostCall {
    /// `type: "mcp_tool"`: `server`, `tool`, `input`.
    McpTool {
        /// The MCP server.
        server: String,
        /// Its tool.
        tool: String,
        /// The arguments, with `${path}` placeholders into the payload.
        input: Value,
    },
    /// `type: "prompt"`: `prompt`, `model`.
    Prompt {
        /// The prompt, with `$ARGUMENTS`.
        prompt: String,
        /// The model, if named.
        model: Option<String>,
    },
    /// `type: "agent"`: `prompt`, `model`.
    Agent {
        /// The prompt, with `$ARGUMENTS`.
        prompt: String,
        /// The model, if named.
        model: Option<String>,
    },
}

impl HostCall {
    /// Which kind it is.
    pub fn kind(&self) -> HostCallKind {
        match self {
            HostCall::McpTool { .. } => HostCallKind::McpTool,
            HostCall::Prompt { .. } => HostCallKind::Prompt,
            HostCall::Agent { .. } => HostCallKind::Agent,
        }
    }

    /// How `list` and reports name it (the hook's `command`): `mcp_tool server/tool`,
    /// `prompt: <text>`, `agent: <text>`.
    pub fn describe(&self) -> String {
        match self {
            HostCall::McpTool { server, tool, .. } => format!("mcp_tool {server}/{tool}"),
            HostCall::Prompt { prompt, .. } => format!("prompt: {prompt}"),
            HostCall::Agent { prompt, .. } => format!("agent: {prompt}"),
        }
    }

    /// The `mcp_tool` call for `payload`: `input` with each `${path}` replaced (a string
    /// that is one placeholder takes the field's value as it is; inside other text, its
    /// text; a missing field is empty).
    pub fn mcp_call(&self, payload: &Value) -> Option<McpToolCall> {
        match self {
            HostCall::McpTool {
                server,
                tool,
                input,
            } => Some(McpToolCall {
                server: server.clone(),
                tool: tool.clone(),
                input: fill(input, payload),
                payload: payload.clone(),
            }),
            _ => None,
        }
    }

    /// The model request of a `prompt` or `agent` hook for `payload`.
    pub fn model_request(&self, payload: &Value) -> Option<ModelRequest> {
        let (prompt, model) = match self {
            HostCall::Prompt { prompt, model } | HostCall::Agent { prompt, model } => {
                (prompt, model)
            }
            HostCall::McpTool { .. } => return None,
        };
        let arguments = payload.to_string();
        let prompt = if prompt.contains("$ARGUMENTS") {
            prompt.replace("$ARGUMENTS", &arguments)
        } else {
            format!("{prompt}\n\n{arguments}")
        };
        Some(ModelRequest {
            prompt,
            model: model.clone(),
            payload: payload.clone(),
        })
    }
}

/// `value` with its `${path}` placeholders filled from `payload`.
fn fill(value: &Value, payload: &Value) -> Value {
    match value {
        Value::String(text) => fill_text(text, payload),
        Value::Array(items) => Value::Array(items.iter().map(|v| fill(v, payload)).collect()),
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .map(|(k, v)| (k.clone(), fill(v, payload)))
                .collect::<Map<String, Value>>(),
        ),
        other => other.clone(),
    }
}

fn fill_text(text: &str, payload: &Value) -> Value {
    let lookup = |path: &str| {
        path.split('.')
            .try_fold(payload, |at, key| at.get(key))
            .cloned()
            .unwrap_or(Value::Null)
    };
    if let Some(path) = text
        .strip_prefix("${")
        .and_then(|t| t.strip_suffix('}'))
        .filter(|p| !p.contains(['{', '}']))
    {
        return lookup(path);
    }
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        let Some(end) = rest[start..].find('}') else {
            break;
        };
        out.push_str(&rest[..start]);
        match lookup(&rest[start + 2..start + end]) {
            Value::String(s) => out.push_str(&s),
            Value::Null => {}
            other => out.push_str(&other.to_string()),
        }
        rest = &rest[start + end + 1..];
    }
    out.push_str(rest);
    Value::String(out)
}

/// The run a reply of the agent stands for, and the failure when there was no reply.
pub(crate) fn reply_run(
    kind: HostCallKind,
    reply: Result<String, HostCallError>,
    duration: Duration,
) -> (Run, Option<String>) {
    let run = |exit: Exit, stdout: String, stderr: String| Run {
        exit,
        stdout: stdout.into_bytes(),
        stderr: stderr.into_bytes(),
        stdout_truncated: false,
        stderr_truncated: false,
        duration,
    };
    let text = match reply {
        Ok(text) => text,
        Err(error) => {
            let failure = error.to_string();
            return (
                run(
                    Exit::SpawnFailed(failure.clone()),
                    String::new(),
                    String::new(),
                ),
                Some(failure),
            );
        }
    };
    if kind == HostCallKind::McpTool {
        return (run(Exit::Code(0), text, String::new()), None);
    }
    let reply = unfenced(&text);
    match serde_json::from_str::<Value>(reply) {
        Ok(Value::Object(fields)) => match fields.get("ok") {
            Some(Value::Bool(true)) => (run(Exit::Code(0), String::new(), String::new()), None),
            Some(Value::Bool(false)) => {
                let reason = fields
                    .get("reason")
                    .and_then(Value::as_str)
                    .filter(|r| !r.trim().is_empty())
                    .unwrap_or("the model said no, without a reason")
                    .to_owned();
                (run(Exit::Code(2), String::new(), reason), None)
            }
            Some(other) => {
                let failure = format!(
                    "the model's reply has `ok`: {other}, not true or false; nothing was decided"
                );
                (
                    run(Exit::Code(1), text.clone(), String::new()),
                    Some(failure),
                )
            }
            None => (run(Exit::Code(0), reply.to_owned(), String::new()), None),
        },
        _ => {
            let shown: String = text.chars().take(200).collect();
            let failure = format!(
                "the model's reply is not the JSON a `{}` hook answers with ({{\"ok\": true}} or {{\"ok\": false, \"reason\": \"...\"}}): {shown:?}; nothing was decided",
                kind.name()
            );
            (
                run(Exit::Code(1), text.clone(), String::new()),
                Some(failure),
            )
        }
    }
}

/// The reply without a Markdown code fence around it (models write them).
fn unfenced(text: &str) -> &str {
    let trimmed = text.trim();
    trimmed
        .strip_prefix("```json")
        .or_else(|| trimmed.strip_prefix("```"))
        .and_then(|t| t.strip_suffix("```"))
        .map(str::trim)
        .unwrap_or(trimmed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn placeholders_take_the_payloads_fields() {
        let call = HostCall::McpTool {
            server: "semgrep".into(),
            tool: "scan".into(),
            input: json!({"path": "${tool_input.file_path}", "note": "at ${cwd}: ${missing}!", "n": "${tool_input.n}", "keep": 3}),
        };
        let payload = json!({"cwd": "/p", "tool_input": {"file_path": "/p/a.rs", "n": 7}});
        let call = call.mcp_call(&payload).unwrap();
        assert_eq!(
            call.input,
            json!({"path": "/p/a.rs", "note": "at /p: !", "n": 7, "keep": 3})
        );
    }

    #[test]
    fn the_prompt_gets_the_payload_where_it_says_or_after_it() {
        let payload = json!({"a": 1});
        let with = HostCall::Prompt {
            prompt: "Check $ARGUMENTS now".into(),
            model: None,
        };
        assert_eq!(
            with.model_request(&payload).unwrap().prompt,
            r#"Check {"a":1} now"#
        );
        let without = HostCall::Agent {
            prompt: "Check".into(),
            model: Some("m".into()),
        };
        let request = without.model_request(&payload).unwrap();
        assert_eq!(request.prompt, "Check\n\n{\"a\":1}");
        assert_eq!(request.model.as_deref(), Some("m"));
    }

    #[test]
    fn replies_read_as_runs() {
        let read = |kind, reply: Result<&str, HostCallError>| {
            let (run, failure) = reply_run(kind, reply.map(str::to_owned), Duration::ZERO);
            (
                run.exit,
                String::from_utf8(run.stdout).unwrap(),
                String::from_utf8(run.stderr).unwrap(),
                failure,
            )
        };
        assert_eq!(
            read(
                HostCallKind::Prompt,
                Ok("```json\n{\"ok\": false, \"reason\": \"tests fail\"}\n```")
            ),
            (Exit::Code(2), String::new(), "tests fail".into(), None)
        );
        assert_eq!(
            read(HostCallKind::Agent, Ok(r#"{"ok": true}"#)),
            (Exit::Code(0), String::new(), String::new(), None)
        );
        assert_eq!(
            read(
                HostCallKind::Prompt,
                Ok(r#"{"decision": "block", "reason": "r"}"#)
            )
            .1,
            r#"{"decision": "block", "reason": "r"}"#
        );
        let (_, _, _, failure) = read(HostCallKind::Prompt, Ok("Sure, looks fine"));
        assert!(failure
            .unwrap()
            .starts_with("the model's reply is not the JSON a `prompt` hook answers with"));
        assert_eq!(
            read(HostCallKind::McpTool, Ok("plain")),
            (Exit::Code(0), "plain".into(), String::new(), None)
        );
        let (exit, _, _, failure) = read(
            HostCallKind::McpTool,
            Err(HostCallError::not_supported(HostCallKind::McpTool)),
        );
        assert!(matches!(exit, Exit::SpawnFailed(_)));
        assert_eq!(
            failure.unwrap(),
            "this agent does not support `mcp_tool` hooks (AgentHost::call_mcp_tool is not implemented); the hook did not run"
        );
    }
}
