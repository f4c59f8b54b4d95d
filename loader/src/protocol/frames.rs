//! The plugin-process protocol: the messages the agent and a plugin process exchange, and
//! how they are framed. Types and framing only; no processes, no threads.
//!
//! # Framing
//!
//! Each message is a frame: its length as 4 bytes, little-endian, then that many bytes of
//! JSON. A length over [`MAX_FRAME`] is refused before anything is allocated; a frame that
//! is not a known message is a protocol fault that ends the connection (the process is
//! then restarted like one that crashed).
//!
//! # Conversation
//!
//! 1. The plugin process starts and sends [`FromPlugin::Hello`] (protocol and interface
//!    versions). The agent checks the protocol's major version.
//! 2. The agent sends [`ToPlugin::Load`]; the plugin process loads the library with the
//!    agent's own checks, applies its resource limits, runs the factory and answers
//!    [`FromPlugin::Loaded`] (name, version, handlers, commands, renderers) or
//!    [`FromPlugin::LoadFailed`] (the same `LoadError` an in-process load gives).
//! 3. For each call into the plugin, the agent sends [`ToPlugin::Call`] with an id; the
//!    plugin answers [`FromPlugin::Done`] with that id. Meanwhile the plugin may send
//!    [`FromPlugin::Request`]s naming that call (UI, session, model: what the call's
//!    context offers), each answered by [`ToPlugin::Reply`]. Requests that belong to no call
//!    (`send_message`, `append_entry`, `exec`, which a plugin may make at any time) carry no
//!    call id. Calls may overlap: ids route answers.
//! 4. [`ToPlugin::Goodbye`], or the end of its input, ends the plugin process.
//!
//! Event payloads cross as the JSON text the runner serialised once for the emit. A plugin
//! process that says so in its hello ([`FromPlugin::Hello`]'s `raw_payload`) gets a call's
//! payload as it is, after the frame's JSON, whose `payload_bytes` gives its length
//! ([`write_call`]): neither escaped by the agent nor unescaped by the plugin process, only
//! checked to be UTF-8 of that length (the plugin parses it anyway). Others get it in the
//! JSON as a string, `payload`.
//!
//! # Growth
//!
//! The protocol follows the interface's policy (the `agent_hooks_abi` crate docs): within
//! one major version it is frozen like the checked boundary, with one [`HostRequest`]
//! variant per method of `HostApi` and `HostContext`. What a minor version of the interface
//! adds is a host service, which crosses as [`HostRequest::Service`] (a name and JSON), so a
//! new service needs no new message. Messages may gain optional fields (`#[serde(default)]`),
//! never lose or change one. A request this side does not know is answered with an error
//! ("unsupported"), never a broken connection; an unknown service is answered with the
//! interface's typed `ServiceError::Unsupported`. Both ends are the agent's own binary, so
//! a plugin built against an older or newer interface minor speaks this same protocol.

use std::io::{self, Read, Write};
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::LoadError;

/// The protocol's version: a plugin process of another major is refused.
pub const PROTOCOL_VERSION: u32 = 1;

/// The largest frame either side accepts: 64 MiB.
pub const MAX_FRAME: usize = 64 * 1024 * 1024;

/// What the agent sends a plugin process.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToPlugin {
    /// Load the library and run its factory.
    Load {
        /// The library, resolved (for messages).
        library: PathBuf,
        /// Where to read the library's bytes: the agent's sealed copy of what it checked
        /// (`/proc/<agent>/fd/<n>`). Absent: read and check `library` itself.
        #[serde(default)]
        image: Option<PathBuf>,
        /// The path as the user gave it, for messages.
        given: String,
        /// The agent's working folder.
        cwd: PathBuf,
        /// Resource limits to apply before loading.
        #[serde(default)]
        limits: Limits,
    },
    /// Call the plugin.
    Call {
        /// Names this call in the answer and in the plugin's requests.
        id: u64,
        /// What to call.
        target: Target,
        /// The event's JSON (a handler), the text after the command's name (a command), or
        /// the message's JSON (a renderer).
        payload: String,
    },
    /// The answer to a [`FromPlugin::Request`].
    Reply {
        /// The request's id.
        id: u64,
        /// Its result.
        result: Answer,
    },
    /// Exit now.
    Goodbye,
}

/// Resource limits of a plugin process (`setrlimit`); `None` leaves the inherited limit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Limits {
    /// Address space, in bytes (`RLIMIT_AS`).
    pub address_space: Option<u64>,
    /// Open files (`RLIMIT_NOFILE`).
    pub open_files: Option<u64>,
}

/// What a [`ToPlugin::Call`] calls.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Target {
    /// The `index`-th handler the plugin registered for `event`.
    Handler {
        /// The event's name.
        event: String,
        /// Its position among the plugin's handlers of that event.
        index: usize,
        /// The payload's serial (see `EventHandler::handle`).
        serial: u64,
    },
    /// The `index`-th command the plugin registered.
    Command {
        /// Its position.
        index: usize,
    },
    /// The `index`-th renderer the plugin registered.
    Renderer {
        /// Its position.
        index: usize,
        /// The render options, as JSON.
        options: String,
    },
}

/// What a plugin process sends the agent.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FromPlugin {
    /// The first message.
    Hello {
        /// [`PROTOCOL_VERSION`] of the plugin process.
        protocol: u32,
        /// The interface version it was built with.
        interface_version: String,
        /// It reads a call's payload after the frame's JSON ([`write_call`]).
        #[serde(default)]
        raw_payload: bool,
    },
    /// The library loaded and its factory ran.
    Loaded(Registered),
    /// The library did not load.
    LoadFailed {
        /// Why, as an in-process load would say it.
        error: LoadError,
    },
    /// The answer to a [`ToPlugin::Call`].
    Done {
        /// The call's id.
        id: u64,
        /// What the plugin's code returned.
        result: CallOutcome,
    },
    /// The plugin asks the agent for something.
    Request {
        /// Names this request in the reply.
        id: u64,
        /// The call it belongs to, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        call: Option<u64>,
        /// What it asks.
        request: HostRequest,
    },
}

/// What a plugin registered from its factory.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Registered {
    /// Its crate's name.
    pub name: String,
    /// Its crate's version.
    pub version: String,
    /// The event of each handler, in registration order.
    pub handlers: Vec<String>,
    /// Its commands: name and description.
    pub commands: Vec<(String, String)>,
    /// The custom types of its renderers.
    pub renderers: Vec<String>,
    /// What the host noticed while loading it.
    pub warnings: Vec<String>,
}

/// What one call into plugin code returned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum CallOutcome {
    /// A result (JSON), or none.
    Ok {
        /// The result's JSON; for a command, nothing.
        #[serde(default)]
        output: Option<String>,
    },
    /// An error, or a panic the SDK caught.
    Failed {
        /// What went wrong.
        message: String,
        /// Whether it was a panic.
        #[serde(default)]
        panicked: bool,
    },
}

/// The result of a [`FromPlugin::Request`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Answer {
    /// The value (for a method that returns nothing, `null`).
    Ok {
        /// The value.
        #[serde(default)]
        value: Value,
    },
    /// The host refused or failed.
    Err {
        /// Why.
        message: String,
    },
}

/// What a plugin may ask of the agent: one variant per method of the call context and of the
/// host API. Arguments that are JSON on the ABI are JSON text here too.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "method", rename_all = "snake_case")]
pub enum HostRequest {
    /// `has_ui` → bool.
    HasUi,
    /// `cwd` → string.
    Cwd,
    /// `session` → JSON text.
    Session,
    /// `model` → JSON text.
    Model,
    /// `is_idle` → bool.
    IsIdle,
    /// `abort`.
    Abort,
    /// `has_queued_messages` → bool.
    HasQueuedMessages,
    /// `ui.select` → string or null.
    UiSelect {
        /// The title.
        title: String,
        /// The options.
        options: Vec<String>,
    },
    /// `ui.confirm` → bool.
    UiConfirm {
        /// The title.
        title: String,
        /// The question.
        message: String,
    },
    /// `ui.input` → string or null.
    UiInput {
        /// The title.
        title: String,
        /// The placeholder.
        placeholder: String,
    },
    /// `ui.editor` → string or null.
    UiEditor {
        /// The title.
        title: String,
        /// The text to start from.
        prefill: String,
    },
    /// `ui.notify`.
    UiNotify {
        /// The text.
        message: String,
        /// `info`, `warning` or `error`.
        level: String,
    },
    /// `ui.set_status`.
    UiSetStatus {
        /// The key.
        key: String,
        /// The text; null clears the key.
        text: Option<String>,
    },
    /// `ui.custom` → JSON text or null.
    UiCustom {
        /// The component.
        kind: String,
        /// Its data, JSON text.
        data: String,
    },
    /// `ui.set_editor_text`.
    UiSetEditorText {
        /// The text.
        text: String,
    },
    /// `ui.get_editor_text` → string.
    UiGetEditorText,
    /// `ui.theme` → JSON text.
    UiTheme,
    /// `wait_for_idle` (commands).
    WaitForIdle,
    /// `new_session` (commands) → JSON text.
    NewSession {
        /// JSON `NewSessionOptions`.
        options: String,
    },
    /// `branch` (commands) → JSON text.
    Branch {
        /// The entry.
        entry_id: String,
    },
    /// `navigate_tree` (commands) → JSON text.
    NavigateTree {
        /// The target.
        target_id: String,
        /// JSON `NavigateTreeOptions`.
        options: String,
    },
    /// `send_message`.
    SendMessage {
        /// JSON `CustomMessage`.
        message: String,
        /// JSON `SendMessageOptions`.
        options: String,
    },
    /// `append_entry`.
    AppendEntry {
        /// The entry's type.
        custom_type: String,
        /// JSON data.
        data: String,
    },
    /// `exec` → JSON `ExecOutput`.
    Exec {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// JSON `ExecOptions`.
        options: String,
    },
    /// `call`: a host service (of the call's context when the request names a call, of the
    /// hook's API otherwise) → its JSON answer as text; an error is a JSON `ServiceError`.
    /// Services are how the interface grows within a major version, so this variant never
    /// changes: a new service is a new name, not a new variant.
    Service {
        /// The service's name.
        service: String,
        /// Its JSON request.
        request: String,
    },
    /// A method this side does not know (the other side is newer); answered "unsupported".
    #[serde(other)]
    Unsupported,
}

/// Why a frame could not be read.
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    /// The other side closed the connection.
    #[error("the connection closed")]
    Closed,
    /// Reading failed.
    #[error("cannot read a frame: {0}")]
    Io(#[from] io::Error),
    /// The frame is larger than [`MAX_FRAME`].
    #[error("a frame of {0} bytes is larger than the limit of {MAX_FRAME} bytes")]
    TooLarge(usize),
    /// A long-running hook's line is longer than [`MAX_LINE`](super::lines::MAX_LINE).
    #[error("a line longer than the limit of {0} bytes")]
    LineTooLong(usize),
    /// The frame is not a message this side knows.
    #[error("a frame is not a valid message: {0}")]
    Invalid(#[from] serde_json::Error),
}

/// Writes `message` as one frame and flushes.
pub fn write_frame(out: &mut impl Write, message: &impl Serialize) -> io::Result<()> {
    let mut frame = frame_buffer(WRITE_CAPACITY);
    serde_json::to_writer(&mut frame, message).map_err(io::Error::other)?;
    send_frame(out, frame)
}

/// Writes [`ToPlugin::Call`] `id` as one frame and flushes: with `raw`, its payload after
/// the frame's JSON as it is (`"payload_bytes"` long, for a plugin process whose hello
/// said `raw_payload`), else in the JSON as a string, as [`write_frame`] writes the call.
pub fn write_call(
    out: &mut impl Write,
    id: u64,
    target: &Target,
    payload: &str,
    raw: bool,
) -> io::Result<()> {
    let header = CallHeader {
        kind: CallTag::Call,
        id,
        target,
        payload: (!raw).then_some(payload),
        payload_bytes: raw.then_some(payload.len()),
    };
    let mut frame = frame_buffer(WRITE_CAPACITY.max(payload.len() + 256));
    serde_json::to_writer(&mut frame, &header).map_err(io::Error::other)?;
    if raw {
        frame.extend_from_slice(payload.as_bytes());
    }
    send_frame(out, frame)
}

/// A frame's buffer: room for its length, filled in once the rest is written (one buffer,
/// no copy).
fn frame_buffer(capacity: usize) -> Vec<u8> {
    let mut frame = Vec::with_capacity(capacity);
    frame.extend_from_slice(&[0; 4]);
    frame
}

/// Fills in `frame`'s length, writes it and flushes.
fn send_frame(out: &mut impl Write, mut frame: Vec<u8>) -> io::Result<()> {
    let body = frame.len() - 4;
    let len = u32::try_from(body)
        .ok()
        .filter(|n| (*n as usize) <= MAX_FRAME)
        .ok_or_else(|| io::Error::other(FrameError::TooLarge(body)))?;
    frame[..4].copy_from_slice(&len.to_le_bytes());
    out.write_all(&frame)?;
    out.flush()
}

/// A [`ToPlugin::Call`] as [`write_call`] writes it: the derived form's fields in its order,
/// the payload in the JSON or after it.
#[derive(Serialize)]
struct CallHeader<'a> {
    #[serde(rename = "type")]
    kind: CallTag,
    id: u64,
    target: &'a Target,
    #[serde(skip_serializing_if = "Option::is_none")]
    payload: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    payload_bytes: Option<usize>,
}

/// What a frame's buffer starts with when it is written: most frames fit.
const WRITE_CAPACITY: usize = 4 << 10;

/// How much a frame's buffer holds before its bytes arrive.
const START_CAPACITY: usize = 8 << 10;

/// Reads one frame and decodes it. The buffer grows as bytes arrive, up to the length the
/// prefix gives (at most [`MAX_FRAME`]).
pub fn read_frame<T: Message>(input: &mut impl Read) -> Result<T, FrameError> {
    let mut len = [0u8; 4];
    match input.read_exact(&mut len) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Err(FrameError::Closed),
        Err(e) => return Err(e.into()),
    }
    let len = u32::from_le_bytes(len) as usize;
    if len > MAX_FRAME {
        return Err(FrameError::TooLarge(len));
    }
    // Grown as the bytes arrive, not sized by the prefix: a lying length (4 bytes saying
    // 64 MiB, then nothing) costs what came, not what it said.
    let mut json = Vec::with_capacity(len.min(START_CAPACITY));
    input.take(len as u64).read_to_end(&mut json)?;
    if json.len() < len {
        return Err(FrameError::Closed);
    }
    Ok(T::decode(&json)?)
}

/// A message a frame holds.
pub trait Message: Sized {
    /// Decodes a frame's JSON.
    fn decode(json: &[u8]) -> serde_json::Result<Self>;
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum CallTag {
    Call,
}

/// The JSON of a call whose payload follows it ([`write_call`] with `raw`). Any other field
/// (a `payload` in the JSON) makes it not one, at once.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCallFrame {
    #[serde(rename = "type")]
    _type: CallTag,
    id: u64,
    target: Target,
    payload_bytes: usize,
}

/// A call whose payload follows its JSON: exactly `payload_bytes` of UTF-8, to the end of
/// the frame. `None` when the frame is not one (the derived decoding knows no payload after
/// the JSON).
pub(super) fn raw_call(frame: &[u8]) -> Option<ToPlugin> {
    let mut json = serde_json::Deserializer::from_slice(frame).into_iter::<RawCallFrame>();
    let RawCallFrame {
        id,
        target,
        payload_bytes,
        ..
    } = json.next()?.ok()?;
    let payload = frame.get(json.byte_offset()..)?;
    if payload.len() != payload_bytes {
        return None;
    }
    let payload = std::str::from_utf8(payload).ok()?.to_owned();
    Some(ToPlugin::Call {
        id,
        target,
        payload,
    })
}

impl Message for ToPlugin {
    fn decode(json: &[u8]) -> serde_json::Result<Self> {
        match raw_call(json) {
            Some(call) => Ok(call),
            None => serde_json::from_slice(json),
        }
    }
}

impl Message for FromPlugin {
    fn decode(json: &[u8]) -> serde_json::Result<Self> {
        serde_json::from_slice(json)
    }
}

#[cfg(test)]
mod tests {
    //! Golden JSON of every message: a renamed field or variant changes the protocol, and
    //! must fail here (a round trip alone would not notice).

    use serde_json::json;

    use super::*;

    fn golden(message: &impl Serialize, expected: Value) {
        assert_eq!(serde_json::to_value(message).unwrap(), expected);
    }

    #[test]
    fn messages_to_the_plugin() {
        golden(
            &ToPlugin::Load {
                library: "/p/libguard.so".into(),
                image: Some("/proc/41/fd/9".into()),
                given: "libguard.so".into(),
                cwd: "/p".into(),
                limits: Limits {
                    address_space: Some(1 << 30),
                    open_files: None,
                },
            },
            json!({"type": "load", "library": "/p/libguard.so", "image": "/proc/41/fd/9", "given": "libguard.so", "cwd": "/p",
                   "limits": {"address_space": 1073741824, "open_files": null}}),
        );
        golden(
            &ToPlugin::Call {
                id: 7,
                target: Target::Handler {
                    event: "tool_call".into(),
                    index: 1,
                    serial: 42,
                },
                payload: "{}".into(),
            },
            json!({"type": "call", "id": 7, "target": {"kind": "handler", "event": "tool_call", "index": 1, "serial": 42}, "payload": "{}"}),
        );
        golden(
            &Target::Command { index: 0 },
            json!({"kind": "command", "index": 0}),
        );
        golden(
            &Target::Renderer {
                index: 2,
                options: "{\"expanded\":true}".into(),
            },
            json!({"kind": "renderer", "index": 2, "options": "{\"expanded\":true}"}),
        );
        golden(
            &ToPlugin::Reply {
                id: 3,
                result: Answer::Ok { value: json!(true) },
            },
            json!({"type": "reply", "id": 3, "result": {"status": "ok", "value": true}}),
        );
        golden(
            &Answer::Err {
                message: "no".into(),
            },
            json!({"status": "err", "message": "no"}),
        );
        golden(&ToPlugin::Goodbye, json!({"type": "goodbye"}));
    }

    #[test]
    fn messages_from_the_plugin() {
        golden(
            &FromPlugin::Hello {
                protocol: 1,
                interface_version: "0.1.0".into(),
                raw_payload: true,
            },
            json!({"type": "hello", "protocol": 1, "interface_version": "0.1.0", "raw_payload": true}),
        );
        // A plugin process of before `raw_payload` says nothing of it.
        let older: FromPlugin = serde_json::from_str(
            r#"{"type": "hello", "protocol": 1, "interface_version": "1.0.0"}"#,
        )
        .unwrap();
        assert!(matches!(
            older,
            FromPlugin::Hello {
                raw_payload: false,
                ..
            }
        ));
        golden(
            &FromPlugin::Loaded(Registered {
                name: "guard".into(),
                version: "1.0.0".into(),
                handlers: vec!["tool_call".into()],
                commands: vec![("audit".into(), "Show the audit".into())],
                renderers: vec!["todo".into()],
                warnings: vec![],
            }),
            json!({"type": "loaded", "name": "guard", "version": "1.0.0", "handlers": ["tool_call"],
                   "commands": [["audit", "Show the audit"]], "renderers": ["todo"], "warnings": []}),
        );
        golden(
            &FromPlugin::LoadFailed {
                error: LoadError::FactoryFailed {
                    message: "no config".into(),
                },
            },
            json!({"type": "load_failed", "error": {"kind": "factory_failed", "message": "no config"}}),
        );
        golden(
            &FromPlugin::Done {
                id: 7,
                result: CallOutcome::Ok {
                    output: Some("{\"block\":true}".into()),
                },
            },
            json!({"type": "done", "id": 7, "result": {"status": "ok", "output": "{\"block\":true}"}}),
        );
        golden(
            &CallOutcome::Failed {
                message: "boom".into(),
                panicked: true,
            },
            json!({"status": "failed", "message": "boom", "panicked": true}),
        );
        golden(
            &FromPlugin::Request {
                id: 9,
                call: Some(7),
                request: HostRequest::UiConfirm {
                    title: "Run it?".into(),
                    message: "rm -rf build".into(),
                },
            },
            json!({"type": "request", "id": 9, "call": 7, "request": {"method": "ui_confirm", "title": "Run it?", "message": "rm -rf build"}}),
        );
        golden(
            &FromPlugin::Request {
                id: 10,
                call: None,
                request: HostRequest::Exec {
                    command: "git".into(),
                    args: vec!["status".into()],
                    options: "{}".into(),
                },
            },
            json!({"type": "request", "id": 10, "request": {"method": "exec", "command": "git", "args": ["status"], "options": "{}"}}),
        );
        golden(
            &FromPlugin::Request {
                id: 11,
                call: Some(7),
                request: HostRequest::Service {
                    service: "log".into(),
                    request: "{\"line\":\"hi\"}".into(),
                },
            },
            json!({"type": "request", "id": 11, "call": 7, "request": {"method": "service", "service": "log", "request": "{\"line\":\"hi\"}"}}),
        );
    }

    #[test]
    fn every_host_request_has_its_wire_name() {
        let names: Vec<String> = [
            HostRequest::HasUi,
            HostRequest::Cwd,
            HostRequest::Session,
            HostRequest::Model,
            HostRequest::IsIdle,
            HostRequest::Abort,
            HostRequest::HasQueuedMessages,
            HostRequest::UiGetEditorText,
            HostRequest::UiTheme,
            HostRequest::WaitForIdle,
        ]
        .iter()
        .map(|r| {
            serde_json::to_value(r).unwrap()["method"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
        assert_eq!(
            names,
            [
                "has_ui",
                "cwd",
                "session",
                "model",
                "is_idle",
                "abort",
                "has_queued_messages",
                "ui_get_editor_text",
                "ui_theme",
                "wait_for_idle"
            ]
        );
    }

    #[test]
    fn a_request_from_a_newer_side_is_unsupported_not_a_broken_connection() {
        let request: FromPlugin = serde_json::from_value(
            json!({"type": "request", "id": 1, "call": 2, "request": {"method": "ui_play_sound", "name": "ding"}}),
        )
        .unwrap();
        match request {
            FromPlugin::Request { request, .. } => assert_eq!(request, HostRequest::Unsupported),
            other => panic!("{other:?}"),
        }
    }

    /// A call whose payload follows its JSON: the bytes, and what the plugin process reads.
    #[test]
    fn a_call_s_payload_after_the_json_is_read_as_it_is() {
        let target = Target::Handler {
            event: "tool_call".into(),
            index: 1,
            serial: 42,
        };
        let payload = r#"{"input":{"command":"ls \"a b\"\n"}}"#;
        let mut raw = Vec::new();
        write_call(&mut raw, 7, &target, payload, true).unwrap();
        let json = r#"{"type":"call","id":7,"target":{"kind":"handler","event":"tool_call","index":1,"serial":42},"payload_bytes":36}"#;
        assert_eq!(payload.len(), 36);
        assert_eq!(&raw[4..], format!("{json}{payload}").as_bytes());
        assert_eq!(&raw[..4], &((json.len() + 36) as u32).to_le_bytes());
        let call = ToPlugin::Call {
            id: 7,
            target: target.clone(),
            payload: payload.into(),
        };
        assert_eq!(read_frame::<ToPlugin>(&mut raw.as_slice()).unwrap(), call);

        // Without `raw`: the frame `write_frame` writes of the same call.
        let mut escaped = Vec::new();
        write_call(&mut escaped, 7, &target, payload, false).unwrap();
        let mut derived = Vec::new();
        write_frame(&mut derived, &call).unwrap();
        assert_eq!(escaped, derived);
        assert_eq!(
            read_frame::<ToPlugin>(&mut escaped.as_slice()).unwrap(),
            call
        );
    }

    /// A payload shorter or longer than it says, not UTF-8, or beside a `payload` in the
    /// JSON: the frame is not a message (the connection ends, as for any such frame).
    #[test]
    fn a_payload_after_the_json_that_lies_is_refused() {
        let json =
            r#"{"type":"call","id":7,"target":{"kind":"command","index":0},"payload_bytes":4}"#;
        let refused = |frame: &[u8]| <ToPlugin as Message>::decode(frame).is_err();
        assert!(!refused(format!("{json}abcd").as_bytes()));
        assert!(refused(format!("{json}abc").as_bytes()));
        assert!(refused(format!("{json}abcde").as_bytes()));
        let mut not_text = json.as_bytes().to_vec();
        not_text.extend_from_slice(&[b'a', 0xFF, b'c', b'd']);
        assert!(refused(&not_text));
        let both = r#"{"type":"call","id":7,"target":{"kind":"command","index":0},"payload":"x","payload_bytes":4}abcd"#;
        assert!(refused(both.as_bytes()));
    }

    #[test]
    fn frames_are_length_prefixed_and_bounded() {
        let mut bytes = Vec::new();
        write_frame(&mut bytes, &ToPlugin::Goodbye).unwrap();
        assert_eq!(&bytes[..4], &(18u32).to_le_bytes());
        assert_eq!(&bytes[4..], br#"{"type":"goodbye"}"#);
        let back: ToPlugin = read_frame(&mut bytes.as_slice()).unwrap();
        assert_eq!(back, ToPlugin::Goodbye);

        let huge = ((MAX_FRAME + 1) as u32).to_le_bytes();
        assert!(matches!(
            read_frame::<ToPlugin>(&mut huge.as_slice()),
            Err(FrameError::TooLarge(n)) if n == MAX_FRAME + 1
        ));
        assert!(matches!(
            read_frame::<ToPlugin>(&mut [].as_slice()),
            Err(FrameError::Closed)
        ));
        let mut garbage = 5u32.to_le_bytes().to_vec();
        garbage.extend_from_slice(b"hello");
        assert!(matches!(
            read_frame::<ToPlugin>(&mut garbage.as_slice()),
            Err(FrameError::Invalid(_))
        ));
    }
}
