//! An agent that records what hooks ask of it, with an optional scripted UI.

use std::sync::Mutex;

use agent_hooks::{
    abi::{
        events::{CustomMessage, SendMessageOptions},
        NewSessionOptions, NotifyLevel, SessionActionOutcome, SessionInfo,
    },
    AgentHost, HostUi,
};
use serde_json::Value;

/// Records every call, in order, as a line of text; keeps messages, entries and sessions.
#[derive(Default)]
pub struct RecordingAgent {
    /// The UI hooks see; `None` means no UI.
    pub ui: Option<ScriptedUi>,
    /// One line per call, e.g. `wait_for_idle`.
    pub calls: Mutex<Vec<String>>,
    /// Messages sent by hooks.
    pub messages: Mutex<Vec<CustomMessage>>,
    /// The options each message was sent with, in the same order.
    pub message_options: Mutex<Vec<SendMessageOptions>>,
    /// Entries appended by hooks, as `(custom_type, data)`.
    pub entries: Mutex<Vec<(String, Value)>>,
    /// Sessions started by hooks.
    pub sessions: Mutex<Vec<NewSessionOptions>>,
}

impl RecordingAgent {
    /// The calls its UI was asked, one line each (none without a UI).
    pub fn ui_calls(&self) -> Vec<String> {
        self.ui
            .as_ref()
            .map(|ui| ui.calls.lock().unwrap().clone())
            .unwrap_or_default()
    }

    /// An agent with a UI that answers `confirm` with `answer`.
    pub fn with_ui(answer: bool) -> Self {
        Self {
            ui: Some(ScriptedUi {
                confirm_answer: answer,
                calls: Mutex::default(),
            }),
            ..Self::default()
        }
    }

    fn record(&self, call: String) {
        self.calls.lock().unwrap().push(call);
    }

    /// The calls so far.
    pub fn calls(&self) -> Vec<String> {
        self.calls.lock().unwrap().clone()
    }
}

impl AgentHost for RecordingAgent {
    fn send_message(&self, message: CustomMessage, options: SendMessageOptions) {
        self.record(format!("send_message {}", message.custom_type));
        self.messages.lock().unwrap().push(message);
        self.message_options.lock().unwrap().push(options);
    }

    fn append_entry(&self, custom_type: &str, data: Value) {
        self.record(format!("append_entry {custom_type}"));
        self.entries
            .lock()
            .unwrap()
            .push((custom_type.to_owned(), data));
    }

    fn session(&self) -> SessionInfo {
        SessionInfo::default()
            .id("session-1")
            .file("/sessions/one.jsonl")
    }

    fn wait_for_idle(&self) -> Result<(), String> {
        self.record("wait_for_idle".into());
        Ok(())
    }

    fn new_session(&self, options: NewSessionOptions) -> Result<SessionActionOutcome, String> {
        self.record("new_session".into());
        self.sessions.lock().unwrap().push(options);
        Ok(SessionActionOutcome::default())
    }

    fn stop_requested(&self, reason: &str) {
        self.record(format!("stop_requested {reason}"));
    }

    fn ui(&self) -> Option<&dyn HostUi> {
        self.ui.as_ref().map(|ui| ui as &dyn HostUi)
    }

    fn transcript_path(&self) -> Option<String> {
        Some("/sessions/one.jsonl".into())
    }

    fn environment_file(&self, lines: &[String]) {
        self.record(format!("environment_file {}", lines.join(" | ")));
    }
}

/// A UI that answers `confirm` as scripted and records what it was asked.
pub struct ScriptedUi {
    /// What `confirm` answers.
    pub confirm_answer: bool,
    /// One line per call.
    pub calls: Mutex<Vec<String>>,
}

impl HostUi for ScriptedUi {
    fn confirm(&self, title: &str, message: &str) -> bool {
        self.calls
            .lock()
            .unwrap()
            .push(format!("confirm {title}: {message}"));
        self.confirm_answer
    }

    fn notify(&self, message: &str, level: NotifyLevel) {
        self.calls
            .lock()
            .unwrap()
            .push(format!("notify {}: {message}", level.name()));
    }

    fn set_status(&self, key: &str, text: Option<&str>) {
        self.calls
            .lock()
            .unwrap()
            .push(format!("set_status {key}: {}", text.unwrap_or("<cleared>")));
    }
}

/// An agent whose UI answers the scripted hooks (`tests/support/scripted.rs`): it records
/// each handler call as `(tag, event, payload)` and answers with the action scripted for
/// the tag.
#[derive(Default)]
pub struct ScriptedAgent {
    /// Actions by tag, e.g. `"scripted-a#2" => {"return": {"block": true}}`.
    pub script: Mutex<std::collections::HashMap<String, Value>>,
    /// Every handler call, in order: `(tag, event, payload)`.
    pub log: Mutex<Vec<(String, String, Value)>>,
    /// What hooks notified.
    pub notified: Mutex<Vec<String>>,
    /// Messages sent by hooks.
    pub messages: Mutex<Vec<CustomMessage>>,
    /// The options each message was sent with, in the same order.
    pub message_options: Mutex<Vec<SendMessageOptions>>,
}

impl ScriptedAgent {
    /// An agent that answers `tag` with `action`, for each pair.
    pub fn new<'a>(script: impl IntoIterator<Item = (&'a str, Value)>) -> Self {
        let agent = Self::default();
        agent.script.lock().unwrap().extend(
            script
                .into_iter()
                .map(|(tag, action)| (tag.to_owned(), action)),
        );
        agent
    }

    /// The tags of the handlers that ran, in order.
    pub fn ran(&self) -> Vec<String> {
        self.log
            .lock()
            .unwrap()
            .iter()
            .map(|(tag, _, _)| tag.clone())
            .collect()
    }

    /// The payload the handler `tag` received last.
    pub fn payload_seen_by(&self, tag: &str) -> Value {
        self.log
            .lock()
            .unwrap()
            .iter()
            .rev()
            .find(|(t, _, _)| t == tag)
            .map(|(_, _, payload)| payload.clone())
            .unwrap_or(Value::Null)
    }
}

impl AgentHost for ScriptedAgent {
    fn send_message(&self, message: CustomMessage, _options: SendMessageOptions) {
        self.messages.lock().unwrap().push(message);
    }

    fn ui(&self) -> Option<&dyn HostUi> {
        Some(self)
    }
}

impl HostUi for ScriptedAgent {
    fn custom(&self, kind: &str, data: Value) -> Option<Value> {
        if kind != "script" {
            return None;
        }
        let tag = data["tag"].as_str().unwrap_or_default().to_owned();
        let event = data["event"].as_str().unwrap_or_default().to_owned();
        let action = self.script.lock().unwrap().get(&tag).cloned();
        self.log
            .lock()
            .unwrap()
            .push((tag, event, data["payload"].clone()));
        action
    }

    fn notify(&self, message: &str, _level: NotifyLevel) {
        self.notified.lock().unwrap().push(message.to_owned());
    }
}
