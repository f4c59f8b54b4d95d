//! The agent the CLI attaches to its runner: it records everything hooks do to the agent
//! (UI calls, status-line changes, entries, messages, programs, session actions), in order,
//! and answers prompts as `--ui` says.

use std::sync::{Arc, Mutex};

use agent_hooks::{
    abi::{
        events::{CustomMessage, SendMessageOptions},
        NavigateTreeOptions, NewSessionOptions, NotifyLevel, SessionActionOutcome,
    },
    AgentHost, HostCallError, HostCallKind, HostUi, McpToolCall, ModelRequest, ProgramRun,
    StatusLine,
};
use serde_json::{json, Value};

use crate::{
    host_script::HostScript,
    serve::ui::{Question, UiFrame},
    sync::lock,
    ui_script::{Prompt, UiMode},
};

/// How wide the status line is drawn in the record.
const STATUS_WIDTH: usize = 120;

/// The agent's own UI, live for one call (under `serve`, a client that answers the
/// resident process's UI frames): that call's questions and notices go to it, instead of
/// being answered as `--ui` says.
pub trait LiveUi: Send + Sync {
    /// Asks `frame`'s question (its id is the UI's to set): the answer, or `None` when none
    /// came (the no-UI answer stands).
    fn ask(&self, frame: UiFrame, question: Question<'_>) -> Option<Value>;
    /// Shows a notice (`notify`, `set_status`).
    fn tell(&self, frame: UiFrame);
}

/// The CLI's agent: records, and answers as `--ui` says.
pub struct Recorder {
    mode: Mutex<UiMode>,
    /// The agent's UI for the call being answered, if it has one.
    live: Mutex<Option<Arc<dyn LiveUi>>>,
    has_ui: bool,
    status: StatusLine,
    editor_text: Mutex<String>,
    recorded: Mutex<Recorded>,
    /// The answers of `--host-script`, if given.
    host_script: Mutex<Option<HostScript>>,
}

/// How many activity entries one event's record keeps; the rest are counted.
pub const MAX_ACTIVITY: usize = 1000;

/// How many bytes (as JSON) of activity one event's record keeps; the rest are counted.
pub const MAX_ACTIVITY_BYTES: usize = 8 << 20;

/// What was recorded since the last take.
#[derive(Default)]
pub struct Recorded {
    /// What hooks did, in order, one JSON object each (`{"call": ..., ...}`), up to
    /// [`MAX_ACTIVITY`] entries and [`MAX_ACTIVITY_BYTES`]; then one `{"call": "dropped"}`.
    pub activity: Vec<Value>,
    /// Problems with the `--ui` script.
    pub warnings: Vec<String>,
    /// The bytes of `activity`, as JSON.
    bytes: usize,
    /// Entries past the bounds, not kept.
    dropped: usize,
}

impl Recorded {
    /// Keeps `entry` unless the record is full; then counts it.
    fn push(&mut self, entry: Value) {
        let size = entry.to_string().len();
        if self.activity.len() >= MAX_ACTIVITY || self.bytes + size > MAX_ACTIVITY_BYTES {
            self.dropped += 1;
            return;
        }
        self.bytes += size;
        self.activity.push(entry);
    }
}

impl Recorder {
    /// A recorder answering as `mode` says.
    pub fn new(mode: UiMode) -> Self {
        Self {
            has_ui: mode.has_ui(),
            mode: Mutex::new(mode),
            live: Mutex::new(None),
            status: StatusLine::new(),
            editor_text: Mutex::new(String::new()),
            recorded: Mutex::new(Recorded::default()),
            host_script: Mutex::new(None),
        }
    }

    /// This recorder, answering `mcp_tool`, `prompt` and `agent` hooks from `script`.
    pub fn answering(self, script: Option<HostScript>) -> Self {
        *lock(&self.host_script) = script;
        self
    }

    /// Answers a hook's call from `--host-script` and records it with its answer.
    fn host_call(
        &self,
        kind: HostCallKind,
        tool: &str,
        mut entry: Value,
    ) -> Result<String, HostCallError> {
        let answer = match &mut *lock(&self.host_script) {
            Some(script) => script.answer(kind, tool),
            None => Err(HostCallError::NotSupported {
                kind,
                hint: Some(
                    "the agent-hooks program answers them only from --host-script FILE (docs/cli.md)"
                        .into(),
                ),
            }),
        };
        entry["answer"] = match &answer {
            Ok(text) => json!(text),
            Err(error) => json!({"error": error.to_string()}),
        };
        self.record(entry);
        answer
    }

    /// Takes what was recorded since the last call.
    pub fn take(&self) -> Recorded {
        let mut taken = std::mem::take(&mut *lock(&self.recorded));
        if taken.dropped > 0 {
            taken.activity.push(json!({
                "call": "dropped",
                "count": taken.dropped,
                "message": format!(
                    "{} more UI calls and messages of hooks were not recorded: the record of one event holds at most {MAX_ACTIVITY} of them and {} MiB",
                    taken.dropped,
                    MAX_ACTIVITY_BYTES >> 20
                ),
            }));
        }
        taken
    }

    fn record(&self, entry: Value) {
        lock(&self.recorded).push(entry);
    }

    /// Sends the UI calls of hooks to `live` (the agent's UI for one call) until it is
    /// set again; `None`: answered as `--ui` says.
    pub fn attach(&self, live: Option<Arc<dyn LiveUi>>) {
        *lock(&self.live) = live;
    }

    /// The live UI, if one is attached.
    fn live(&self) -> Option<Arc<dyn LiveUi>> {
        lock(&self.live).clone()
    }

    /// Answers a prompt and records it with its answer: the live UI's answer (`question`
    /// asked as `frame`) when one is attached, else `--ui`'s.
    fn prompt(&self, prompt: Prompt<'_>, title: &str, mut entry: Value) -> Value {
        self.prompt_with(prompt, title, None, &mut entry)
    }

    /// [`prompt`](Self::prompt), asking the live UI when `asked` (its frame and question)
    /// is given and one is attached.
    fn prompt_with(
        &self,
        prompt: Prompt<'_>,
        title: &str,
        asked: Option<(UiFrame, Question<'_>)>,
        entry: &mut Value,
    ) -> Value {
        let live = asked.and_then(|asked| self.live().map(|live| (live, asked)));
        let mut answered = match live {
            Some((live, (frame, question))) => crate::ui_script::Answered {
                value: live.ask(frame, question).unwrap_or(Value::Null),
                warning: None,
            },
            None => lock(&self.mode).answer(prompt, title),
        };
        if matches!(prompt, Prompt::Confirm) {
            // Dismissed is no.
            answered.value = Value::Bool(answered.value == true);
        }
        entry["answer"] = answered.value.clone();
        let mut recorded = lock(&self.recorded);
        recorded.push(entry.take());
        recorded.warnings.extend(answered.warning);
        answered.value
    }

    fn session_action(&self, entry: Value) -> Result<SessionActionOutcome, String> {
        self.record(entry);
        Ok(SessionActionOutcome::default())
    }
}

fn text(value: Value) -> Option<String> {
    value.as_str().map(str::to_owned)
}

impl HostUi for Recorder {
    fn select(&self, title: &str, options: &[String]) -> Option<String> {
        let mut entry = json!({"call": "select", "title": title, "options": options});
        let frame = UiFrame::Select {
            id: 0,
            title: title.to_owned(),
            options: options.to_vec(),
            timeout_ms: 0,
        };
        let asked = Some((frame, Question::Select(options)));
        text(self.prompt_with(Prompt::Select(options), title, asked, &mut entry))
    }

    fn confirm(&self, title: &str, message: &str) -> bool {
        let mut entry = json!({"call": "confirm", "title": title, "message": message});
        let frame = UiFrame::Confirm {
            id: 0,
            title: title.to_owned(),
            message: message.to_owned(),
            timeout_ms: 0,
        };
        let asked = Some((frame, Question::Confirm));
        self.prompt_with(Prompt::Confirm, title, asked, &mut entry) == true
    }

    fn input(&self, title: &str, placeholder: &str) -> Option<String> {
        let mut entry = json!({"call": "input", "title": title, "placeholder": placeholder});
        let frame = UiFrame::Input {
            id: 0,
            title: title.to_owned(),
            placeholder: placeholder.to_owned(),
            timeout_ms: 0,
        };
        let asked = Some((frame, Question::Input));
        text(self.prompt_with(Prompt::Input, title, asked, &mut entry))
    }

    fn editor(&self, title: &str, prefill: &str) -> Option<String> {
        let entry = json!({"call": "editor", "title": title, "prefill": prefill});
        text(self.prompt(Prompt::Editor(prefill), title, entry))
    }

    fn notify(&self, message: &str, level: NotifyLevel) {
        if let Some(live) = self.live() {
            live.tell(UiFrame::Notify {
                message: message.to_owned(),
                level: level.name().to_owned(),
            });
        }
        self.record(json!({"call": "notify", "level": level.name(), "message": message}));
    }

    fn set_status(&self, key: &str, text: Option<&str>) {
        self.status.set(key, text);
        if let Some(live) = self.live() {
            live.tell(UiFrame::SetStatus {
                key: key.to_owned(),
                text: text.map(str::to_owned),
            });
        }
        let line = self.status.render(STATUS_WIDTH);
        self.record(json!({"call": "set_status", "key": key, "text": text, "status_line": line}));
    }

    fn custom(&self, kind: &str, data: Value) -> Option<Value> {
        let entry = json!({"call": "custom", "kind": kind, "data": data});
        Some(self.prompt(Prompt::Custom, kind, entry)).filter(|v| !v.is_null())
    }

    fn set_editor_text(&self, text: &str) {
        if self.has_ui {
            *lock(&self.editor_text) = text.to_owned();
        }
        self.record(json!({"call": "set_editor_text", "text": text}));
    }

    fn get_editor_text(&self) -> String {
        let text = lock(&self.editor_text).clone();
        self.record(json!({"call": "get_editor_text", "answer": text}));
        text
    }
}

impl AgentHost for Recorder {
    fn call_mcp_tool(&self, call: &McpToolCall) -> Result<String, HostCallError> {
        let tool = format!("{}/{}", call.server, call.tool);
        let entry = json!({"call": "mcp_tool", "server": call.server, "tool": call.tool, "input": call.input});
        self.host_call(HostCallKind::McpTool, &tool, entry)
    }

    fn prompt_model(&self, request: &ModelRequest) -> Result<String, HostCallError> {
        let entry = json!({"call": "prompt", "prompt": request.prompt, "model": request.model});
        self.host_call(HostCallKind::Prompt, "", entry)
    }

    fn run_subagent(&self, request: &ModelRequest) -> Result<String, HostCallError> {
        let entry = json!({"call": "agent", "prompt": request.prompt, "model": request.model});
        self.host_call(HostCallKind::Agent, "", entry)
    }

    fn send_message(&self, message: CustomMessage, options: SendMessageOptions) {
        self.record(json!({"call": "send_message", "message": message, "options": options}));
    }

    fn append_entry(&self, custom_type: &str, data: Value) {
        self.record(json!({"call": "append_entry", "custom_type": custom_type, "data": data}));
    }

    fn abort(&self) {
        self.record(json!({"call": "abort"}));
    }

    fn wait_for_idle(&self) -> Result<(), String> {
        self.record(json!({"call": "wait_for_idle"}));
        Ok(())
    }

    fn new_session(&self, options: NewSessionOptions) -> Result<SessionActionOutcome, String> {
        self.session_action(json!({"call": "new_session", "options": options}))
    }

    fn branch(&self, entry_id: &str) -> Result<SessionActionOutcome, String> {
        self.session_action(json!({"call": "branch", "entry_id": entry_id}))
    }

    fn navigate_tree(
        &self,
        target_id: &str,
        options: NavigateTreeOptions,
    ) -> Result<SessionActionOutcome, String> {
        self.session_action(
            json!({"call": "navigate_tree", "target_id": target_id, "options": options}),
        )
    }

    fn ui(&self) -> Option<&dyn HostUi> {
        Some(self)
    }

    fn has_ui(&self) -> bool {
        self.has_ui || lock(&self.live).is_some()
    }

    fn program_ran(&self, run: &ProgramRun<'_>) {
        let mut entry = json!({"call": "exec", "command": run.command, "args": run.args});
        match run.result {
            Ok(output) => entry["output"] = json!(output),
            Err(error) => entry["error"] = json!(error),
        }
        self.record(entry);
    }
}

/// The answer to a hook's call of the agent: its text as it is (quoted when it spans
/// lines), or the error.
fn host_answer(answer: &Value) -> String {
    match answer {
        Value::String(text) if !text.contains('\n') => text.clone(),
        Value::String(text) => format!("{text:?}"),
        other => match other["error"].as_str() {
            Some(error) => format!("error: {error}"),
            None => other.to_string(),
        },
    }
}

/// What hooks did, one line each, for people.
pub fn activity_lines(activity: &[Value]) -> Vec<String> {
    activity.iter().map(activity_line).collect()
}

fn activity_line(entry: &Value) -> String {
    let s = |key: &str| entry[key].as_str().unwrap_or_default().to_owned();
    let answer = || match &entry["answer"] {
        Value::Null => "nothing (dismissed)".to_owned(),
        Value::Bool(true) => "yes".to_owned(),
        Value::Bool(false) => "no".to_owned(),
        other => other.to_string(),
    };
    match entry["call"].as_str().unwrap_or_default() {
        "notify" => format!("notify ({}): {}", s("level"), s("message")),
        "dropped" => s("message"),
        "confirm" => format!(
            "confirm {:?}: {:?} → {}",
            s("title"),
            s("message"),
            answer()
        ),
        "select" => format!(
            "select {:?} {} → {}",
            s("title"),
            entry["options"],
            answer()
        ),
        "input" => format!(
            "input {:?} ({:?}) → {}",
            s("title"),
            s("placeholder"),
            answer()
        ),
        "editor" => format!(
            "editor {:?} ({:?}) → {}",
            s("title"),
            s("prefill"),
            answer()
        ),
        "custom" => format!("custom {:?} {} → {}", s("kind"), entry["data"], answer()),
        "mcp_tool" => format!(
            "mcp_tool {}/{} {} → {}",
            s("server"),
            s("tool"),
            entry["input"],
            host_answer(&entry["answer"])
        ),
        "prompt" | "agent" => format!(
            "{} {:?} → {}",
            s("call"),
            s("prompt"),
            host_answer(&entry["answer"])
        ),
        "set_status" => {
            let change = match entry["text"].as_str() {
                Some(text) => format!("status {} = {text:?}", s("key")),
                None => format!("status {} cleared", s("key")),
            };
            format!("{change}; status line: {:?}", s("status_line"))
        }
        "set_editor_text" => format!("editor text set: {:?}", s("text")),
        "get_editor_text" => format!("editor text read: {:?}", s("answer")),
        "append_entry" => format!("entry {}: {}", s("custom_type"), entry["data"]),
        "send_message" => message_line(entry),
        "exec" => exec_line(entry),
        "abort" => "abort requested".into(),
        "wait_for_idle" => "wait_for_idle".into(),
        "new_session" => format!("new_session {}", entry["options"]),
        "branch" => format!("branch {:?}", s("entry_id")),
        "navigate_tree" => format!("navigate_tree {:?}", s("target_id")),
        other => format!("{other} {entry}"),
    }
}

fn message_line(entry: &Value) -> String {
    let message = &entry["message"];
    let text = crate::event_io::content_text(&message["content"]);
    let trigger = if entry["options"]["trigger_turn"] == true {
        " (starts a turn)"
    } else {
        ""
    };
    format!(
        "message [{}]: {text:?}{trigger}",
        message["custom_type"].as_str().unwrap_or_default()
    )
}

fn exec_line(entry: &Value) -> String {
    let mut command = vec![entry["command"].as_str().unwrap_or_default().to_owned()];
    command.extend(
        entry["args"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|a| a.as_str().unwrap_or_default().to_owned()),
    );
    let ran = command.join(" ");
    if let Some(error) = entry["error"].as_str() {
        return format!("exec {ran} → could not run: {error}");
    }
    let output = &entry["output"];
    let status = match (output["killed"] == true, output["code"].as_i64()) {
        (true, _) => "killed".to_owned(),
        (false, Some(code)) => format!("exit {code}"),
        (false, None) => "ended by a signal".to_owned(),
    };
    format!(
        "exec {ran} → {status}, stdout {:?}",
        output["stdout"].as_str().unwrap_or_default()
    )
}
