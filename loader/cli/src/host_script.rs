//! `--host-script FILE`: what the agent's MCP servers and model answer hooks of the
//! `mcp_tool`, `prompt` and `agent` types when the CLI runs them (docs/cli.md).
//!
//! The file is a JSON object with up to three keys:
//!
//! - `"mcp_tool"`: an object keyed by `server/tool`, each an answer or a list of answers;
//! - `"prompt"` and `"agent"`: an answer or a list of answers.
//!
//! A list is answered in order, one per call; a single answer answers every call. An answer
//! is a string (the tool's output, the model's reply), `{"error": "..."}` (the call failed
//! with that message), or any other JSON value (its JSON text is the reply, so
//! `{"ok": false, "reason": "..."}` can be written as it is). A call the file has no answer
//! for is reported as not supported, naming the file and what was missing.

use std::collections::{HashMap, VecDeque};

use agent_hooks::{HostCallError, HostCallKind};
use serde_json::{Map, Value};

/// An error in `--host-script`.
#[derive(Debug, thiserror::Error)]
pub enum HostScriptError {
    /// The file cannot be read, is too large or is not text: the message says which.
    #[error("{message} (give a JSON file of the answers of mcp_tool, prompt and agent hooks)")]
    Bounded {
        /// What happened, naming the file.
        message: String,
    },
    /// The file is not JSON.
    #[error("--host-script {file}: not JSON: {source}")]
    Json {
        /// The file as given.
        file: String,
        /// Where and why.
        source: serde_json::Error,
    },
    /// The file holds JSON of another shape.
    #[error("--host-script {file}: {problem}")]
    Shape {
        /// The file as given.
        file: String,
        /// What is wrong.
        problem: String,
    },
}

/// Answers, in order or one for every call.
enum Answers {
    InOrder { left: VecDeque<Value>, used: usize },
    Always(Value),
}

impl Answers {
    fn of(value: Value) -> Self {
        match value {
            Value::Array(items) => Answers::InOrder {
                left: items.into(),
                used: 0,
            },
            one => Answers::Always(one),
        }
    }

    fn next(&mut self) -> Result<Value, usize> {
        match self {
            Answers::Always(one) => Ok(one.clone()),
            Answers::InOrder { left, used } => match left.pop_front() {
                Some(answer) => {
                    *used += 1;
                    Ok(answer)
                }
                None => Err(*used),
            },
        }
    }
}

/// The answers of a `--host-script` file.
pub struct HostScript {
    file: String,
    tools: HashMap<String, Answers>,
    prompt: Option<Answers>,
    agent: Option<Answers>,
}

impl HostScript {
    /// Reads the file (relative to the current folder), bounded as `--ui` files are.
    pub fn read(file: &str) -> Result<Self, HostScriptError> {
        let text = crate::bounded::read_file(
            file,
            crate::bounded::MAX_UI_FILE,
            &format!("--host-script {file}"),
        )
        .map_err(|message| HostScriptError::Bounded { message })?;
        let value: Value = serde_json::from_str(&text).map_err(|source| HostScriptError::Json {
            file: file.to_owned(),
            source,
        })?;
        let shape = |problem: String| HostScriptError::Shape {
            file: file.to_owned(),
            problem,
        };
        let Value::Object(mut top) = value else {
            return Err(shape(
                "must hold a JSON object with the keys `mcp_tool`, `prompt` and `agent`".into(),
            ));
        };
        if let Some(other) = top
            .keys()
            .find(|k| !matches!(k.as_str(), "mcp_tool" | "prompt" | "agent"))
        {
            return Err(shape(format!(
                "unknown key `{other}` (known: `mcp_tool`, `prompt`, `agent`)"
            )));
        }
        let tools = match top.remove("mcp_tool") {
            None => Map::new(),
            Some(Value::Object(tools)) => tools,
            Some(_) => {
                return Err(shape(
                    "`mcp_tool` must be an object keyed by `server/tool`".into(),
                ))
            }
        };
        if let Some(key) = tools.keys().find(|k| !k.contains('/')) {
            return Err(shape(format!(
                "`mcp_tool` key `{key}` must name `server/tool`"
            )));
        }
        Ok(Self {
            file: file.to_owned(),
            tools: tools
                .into_iter()
                .map(|(k, v)| (k, Answers::of(v)))
                .collect(),
            prompt: top.remove("prompt").map(Answers::of),
            agent: top.remove("agent").map(Answers::of),
        })
    }

    /// The next answer for `kind` (`tool` is `server/tool` for an `mcp_tool` hook).
    pub fn answer(&mut self, kind: HostCallKind, tool: &str) -> Result<String, HostCallError> {
        let file = self.file.clone();
        let (answers, what) = match kind {
            HostCallKind::McpTool => (self.tools.get_mut(tool), format!("`mcp_tool` {tool:?}")),
            HostCallKind::Prompt => (self.prompt.as_mut(), "`prompt`".to_owned()),
            HostCallKind::Agent => (self.agent.as_mut(), "`agent`".to_owned()),
        };
        let Some(answers) = answers else {
            return Err(HostCallError::NotSupported {
                kind,
                hint: Some(format!("--host-script {file} has no answer for {what}")),
            });
        };
        match answers.next() {
            Err(used) => Err(HostCallError::Failed(format!(
                "--host-script {file}: no answer left for {what} (all {used} were used)"
            ))),
            Ok(Value::String(text)) => Ok(text),
            Ok(Value::Object(fields)) if fields.len() == 1 && fields.contains_key("error") => {
                Err(HostCallError::Failed(match &fields["error"] {
                    Value::String(message) => message.clone(),
                    other => other.to_string(),
                }))
            }
            Ok(other) => Ok(other.to_string()),
        }
    }
}
