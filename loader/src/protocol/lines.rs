//! The plugin-process protocol as a long-running hook speaks it: the same conversation
//! (hello, calls by id, requests during a call answered by id, goodbye), one JSON object per
//! line, with event payloads and JSON arguments as JSON values rather than JSON text. A
//! script in any language implements it with its standard library (`docs/long-running-hooks.md`
//! in the repository is its reference).
//!
//! Lines, not the plugin host's length-prefixed frames: a length prefix is four binary bytes
//! that a shell script cannot read or write, and that Python or node must pack by hand; a
//! line is what every language's standard input reads, and JSON text never holds a raw
//! newline, so a line is one message. The cost is a scan for `\n`, which the agent bounds
//! ([`MAX_LINE`]) before it allocates more.

use std::io::{self, BufRead, Write};

use serde_json::{json, value::RawValue, Map, Value};

use super::frames::{
    CallOutcome, FrameError, FromPlugin, HostRequest, Registered, Target, ToPlugin,
};

/// The version of the line protocol: a hook that says another major is refused.
pub const LINE_PROTOCOL_VERSION: u32 = 1;

/// The longest line the agent reads from a long-running hook: 8 MiB. A longer line is a
/// protocol fault (the hook is restarted); nothing past the limit is kept.
pub const MAX_LINE: usize = 8 * 1024 * 1024;

/// Why a hook's line is not a message.
#[derive(Debug, thiserror::Error)]
pub enum LineError {
    /// Not JSON, or not an object with a `type`.
    #[error("a line that is not a protocol message ({0})")]
    Garbage(String),
    /// A known message without a field it needs, or with a field of the wrong type.
    #[error("a `{kind}` message that is not valid: {problem}")]
    Invalid {
        /// The message's `type`.
        kind: String,
        /// What is wrong.
        problem: String,
    },
}

/// The line that tells a hook the agent no longer waits for event `id` (the emit that sent
/// it was cancelled): the hook should stop what it does for it. What it still says for it
/// is dropped; a hook that does not know the message ignores it, as it ignores every type
/// it does not know.
pub fn cancel(id: u64) -> Vec<u8> {
    line(&json!({"type": "cancel", "id": id}))
}

/// The agent's first line to a hook.
pub fn host_hello() -> Vec<u8> {
    line(&json!({
        "type": "hello",
        "protocol": LINE_PROTOCOL_VERSION,
        "agent": "agent-hooks",
        "version": env!("CARGO_PKG_VERSION"),
    }))
}

/// Event `id`'s line, for a payload the runner serialised itself (compact JSON, so on one
/// line): written around the payload as it is, neither parsed again nor copied first, as
/// [`encode`] would. A payload with a newline in it (not the runner's) goes through
/// [`encode`], which checks it.
pub fn event(id: u64, event: &str, payload: &str) -> Vec<u8> {
    if memchr::memchr(b'\n', payload.as_bytes()).is_some() {
        let call = ToPlugin::Call {
            id,
            target: Target::Handler {
                event: event.to_owned(),
                index: 0,
                serial: 0,
            },
            payload: payload.to_owned(),
        };
        return encode(&call).unwrap_or_default();
    }
    let mut bytes = Vec::with_capacity(payload.len() + event.len() + 64);
    bytes.extend_from_slice(b"{\"type\":\"event\",\"id\":");
    // Writing to a vector does not fail.
    let _ = write!(bytes, "{id}");
    bytes.extend_from_slice(b",\"event\":");
    // A string always serialises.
    let _ = serde_json::to_writer(&mut bytes, event);
    bytes.extend_from_slice(b",\"payload\":");
    bytes.extend_from_slice(payload.as_bytes());
    bytes.extend_from_slice(b"}\n");
    bytes
}

/// `message` as the line a hook reads; `None` for what a hook is never sent (`load`, a
/// renderer call).
pub fn encode(message: &ToPlugin) -> Option<Vec<u8>> {
    let value = match message {
        ToPlugin::Call {
            id,
            target: Target::Handler { event, .. },
            payload,
        } => {
            if let Some(payload) = as_written(payload) {
                return Some(line(&EventLine {
                    kind: "event",
                    id: *id,
                    event,
                    payload,
                }));
            }
            json!({"type": "event", "id": id, "event": event, "payload": parsed(payload)})
        }
        ToPlugin::Call {
            id,
            target: Target::Command { index },
            payload,
        } => json!({"type": "command", "id": id, "index": index, "args": payload}),
        ToPlugin::Reply { id, result } => json!({"type": "reply", "id": id, "result": result}),
        ToPlugin::Goodbye => json!({"type": "goodbye"}),
        ToPlugin::Load { .. }
        | ToPlugin::Call {
            target: Target::Renderer { .. },
            ..
        } => return None,
    };
    Some(line(&value))
}

/// An event's line, its payload written as the runner serialised it.
#[derive(serde::Serialize)]
struct EventLine<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    id: u64,
    event: &'a str,
    payload: &'a RawValue,
}

/// The payload as it is, when it is JSON on one line (what the runner writes): an event's
/// payload, which can hold a whole file, is neither parsed into a value nor written again.
fn as_written(payload: &str) -> Option<&RawValue> {
    if payload.contains('\n') {
        return None;
    }
    serde_json::from_str(payload).ok()
}

fn line(value: &impl serde::Serialize) -> Vec<u8> {
    let mut bytes = serde_json::to_vec(value).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

/// The payload's JSON as a value (the runner serialised it; text that is not JSON is sent
/// as a string).
fn parsed(payload: &str) -> Value {
    serde_json::from_str(payload).unwrap_or_else(|_| Value::String(payload.to_owned()))
}

/// Reads one line of at most [`MAX_LINE`] bytes, without its `\n`. Blank lines are skipped.
pub fn read_line(input: &mut impl BufRead) -> Result<Vec<u8>, FrameError> {
    loop {
        let mut line = Vec::new();
        loop {
            let available = match input.fill_buf() {
                Ok(available) => available,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(FrameError::Io(e)),
            };
            if available.is_empty() {
                return Err(FrameError::Closed);
            }
            let (taken, complete) = match available.iter().position(|b| *b == b'\n') {
                Some(end) => (end + 1, true),
                None => (available.len(), false),
            };
            // Room for the longest line and its `\n`; what is past it is never kept.
            let room = (MAX_LINE + 1).saturating_sub(line.len());
            line.extend_from_slice(&available[..taken.min(room)]);
            input.consume(taken);
            if taken > room || (!complete && line.len() > MAX_LINE) {
                return Err(FrameError::LineTooLong(MAX_LINE));
            }
            if complete {
                break;
            }
        }
        line.pop();
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        if !line.iter().all(u8::is_ascii_whitespace) {
            return Ok(line);
        }
    }
}

/// What one line from a hook says: the messages of the plugin protocol it stands for (a
/// hook's hello is both a hello and what it registered), or none for a message of a kind
/// this agent does not know (a newer hook's), which is ignored.
pub fn decode(line: &[u8]) -> Result<Vec<FromPlugin>, LineError> {
    let value: Value =
        serde_json::from_slice(line).map_err(|e| LineError::Garbage(e.to_string()))?;
    let Value::Object(mut fields) = value else {
        return Err(LineError::Garbage("not a JSON object".into()));
    };
    let kind = match fields.remove("type") {
        Some(Value::String(kind)) => kind,
        _ => return Err(LineError::Garbage("no `type`".into())),
    };
    let invalid = |problem: &str| LineError::Invalid {
        kind: kind.clone(),
        problem: problem.to_owned(),
    };
    let id = fields.get("id").and_then(Value::as_u64);
    match kind.as_str() {
        "hello" => {
            let protocol = fields
                .get("protocol")
                .and_then(Value::as_u64)
                .and_then(|p| u32::try_from(p).ok())
                .ok_or_else(|| invalid("`protocol` must be a number"))?;
            let registered = Registered {
                name: text(&fields, "name").unwrap_or_default(),
                version: text(&fields, "version").unwrap_or_default(),
                handlers: strings(&fields, "events").map_err(|p| invalid(&p))?,
                commands: commands(&fields).map_err(|p| invalid(&p))?,
                renderers: Vec::new(),
                warnings: Vec::new(),
            };
            Ok(vec![
                FromPlugin::Hello {
                    protocol,
                    interface_version: String::new(),
                    raw_payload: false,
                },
                FromPlugin::Loaded(registered),
            ])
        }
        "answer" => {
            let id = id.ok_or_else(|| invalid("`id` must be the event's number"))?;
            let result = match fields.remove("error") {
                Some(Value::String(message)) => CallOutcome::Failed {
                    message,
                    panicked: false,
                },
                Some(Value::Null) | None => {
                    fields.remove("id");
                    CallOutcome::Ok {
                        output: Some(Value::Object(fields).to_string()),
                    }
                }
                Some(_) => return Err(invalid("`error` must be a string")),
            };
            Ok(vec![FromPlugin::Done { id, result }])
        }
        "request" => {
            let id = id.ok_or_else(|| invalid("`id` must be a number"))?;
            let call = match fields.remove("event") {
                Some(Value::Null) | None => None,
                Some(call) => Some(
                    call.as_u64()
                        .ok_or_else(|| invalid("`event` must be the event's id"))?,
                ),
            };
            fields.remove("id");
            // What the plugin protocol carries as JSON text, a script sends as JSON.
            for key in ["message", "options", "data", "request"] {
                if let Some(value) = fields.get_mut(key) {
                    if !value.is_string() && !value.is_null() {
                        *value = Value::String(value.to_string());
                    }
                }
            }
            if !fields.get("method").is_some_and(Value::is_string) {
                return Err(invalid("`method` must name what is asked"));
            }
            if fields.get("method").and_then(Value::as_str) == Some("send_message") {
                fields
                    .entry("options")
                    .or_insert_with(|| Value::String("{}".into()));
            }
            let request = serde_json::from_value::<HostRequest>(Value::Object(fields))
                .map_err(|e| invalid(&e.to_string()))?;
            Ok(vec![FromPlugin::Request { id, call, request }])
        }
        _ => Ok(Vec::new()),
    }
}

fn text(fields: &Map<String, Value>, key: &str) -> Option<String> {
    fields.get(key).and_then(Value::as_str).map(str::to_owned)
}

fn strings(fields: &Map<String, Value>, key: &str) -> Result<Vec<String>, String> {
    match fields.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| {
                item.as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| format!("`{key}` must be a list of names"))
            })
            .collect(),
        Some(_) => Err(format!("`{key}` must be a list of names")),
    }
}

fn commands(fields: &Map<String, Value>) -> Result<Vec<(String, String)>, String> {
    let problem = || "`commands` must be a list of {\"name\", \"description\"}".to_owned();
    match fields.get("commands") {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| {
                let name = item
                    .get("name")
                    .and_then(Value::as_str)
                    .ok_or_else(problem)?;
                let description = item
                    .get("description")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                Ok((name.to_owned(), description.to_owned()))
            })
            .collect(),
        Some(_) => Err(problem()),
    }
}

#[cfg(test)]
mod tests {
    //! Golden lines of every message: a renamed field changes the protocol that scripts
    //! implement, and must fail here.

    use super::*;
    use crate::protocol::frames::Answer;

    /// The id and the output (as a JSON value) of a line's answer, by `read`.
    fn answer_of(read: Result<Vec<FromPlugin>, LineError>) -> Option<(u64, Value)> {
        match read.ok()?.as_slice() {
            [FromPlugin::Done {
                id,
                result:
                    CallOutcome::Ok {
                        output: Some(output),
                    },
            }] => Some((*id, serde_json::from_str(output).ok()?)),
            _ => None,
        }
    }

    /// `null` is a block with no reason.
    #[test]
    fn a_null_block_is_a_block_with_no_reason() {
        assert_eq!(
            answer_of(decode(br#"{"type":"answer","id":3,"block":null}"#)),
            Some((3, json!({"block": null})))
        );
    }

    fn reply(id: u64, result: Answer) -> Value {
        sent(&ToPlugin::Reply { id, result })
    }

    fn sent(message: &ToPlugin) -> Value {
        let bytes = encode(message).unwrap();
        assert_eq!(bytes.last(), Some(&b'\n'));
        assert_eq!(bytes.iter().filter(|b| **b == b'\n').count(), 1);
        serde_json::from_slice(&bytes).unwrap()
    }

    #[test]
    fn an_event_payload_is_written_as_given_on_one_line() {
        let event = |payload: &str| ToPlugin::Call {
            id: 1,
            target: Target::Handler {
                event: "Stop".into(),
                index: 0,
                serial: 0,
            },
            payload: payload.into(),
        };
        let written = encode(&event(r#"{"b":1,"a":[1,2]}"#)).unwrap();
        assert_eq!(
            written,
            b"{\"type\":\"event\",\"id\":1,\"event\":\"Stop\",\"payload\":{\"b\":1,\"a\":[1,2]}}\n"
        );
        // Spread over lines, or not JSON: parsed (or sent as a string), still one line.
        let spread = encode(&event("{\n  \"b\": 1\n}")).unwrap();
        assert_eq!(
            spread,
            b"{\"type\":\"event\",\"id\":1,\"event\":\"Stop\",\"payload\":{\"b\":1}}\n"
        );
        let text = encode(&event("not json")).unwrap();
        assert_eq!(
            text,
            b"{\"type\":\"event\",\"id\":1,\"event\":\"Stop\",\"payload\":\"not json\"}\n"
        );
    }

    #[test]
    fn a_runner_payload_is_written_around_as_encode_writes_it() {
        let call = |payload: &str| ToPlugin::Call {
            id: 7,
            target: Target::Handler {
                event: "Pre\"Tool".into(),
                index: 0,
                serial: 0,
            },
            payload: payload.into(),
        };
        for payload in [r#"{"b":1,"a":[1,2]}"#, "{\n  \"b\": 1\n}"] {
            assert_eq!(
                event(7, "Pre\"Tool", payload),
                encode(&call(payload)).unwrap(),
                "{payload}"
            );
        }
    }

    #[test]
    fn what_the_agent_sends() {
        let hello: Value = serde_json::from_slice(&host_hello()).unwrap();
        assert_eq!(hello["type"], "hello");
        assert_eq!(hello["protocol"], 1);
        assert_eq!(
            sent(&ToPlugin::Call {
                id: 7,
                target: Target::Handler {
                    event: "PreToolUse".into(),
                    index: 0,
                    serial: 0
                },
                payload: r#"{"tool_name":"exec","tool_input":{"command":"ls\n"}}"#.into(),
            }),
            json!({"type": "event", "id": 7, "event": "PreToolUse",
                   "payload": {"tool_name": "exec", "tool_input": {"command": "ls\n"}}})
        );
        assert_eq!(
            sent(&ToPlugin::Call {
                id: 8,
                target: Target::Command { index: 1 },
                payload: "all".into(),
            }),
            json!({"type": "command", "id": 8, "index": 1, "args": "all"})
        );
        assert_eq!(
            reply(3, Answer::Ok { value: json!(true) }),
            json!({"type": "reply", "id": 3, "result": {"status": "ok", "value": true}})
        );
        assert_eq!(
            reply(
                4,
                Answer::Err {
                    message: "no UI".into()
                }
            ),
            json!({"type": "reply", "id": 4, "result": {"status": "err", "message": "no UI"}})
        );
        assert_eq!(sent(&ToPlugin::Goodbye), json!({"type": "goodbye"}));
        assert_eq!(cancel(7), b"{\"type\":\"cancel\",\"id\":7}\n".to_vec());
    }

    #[test]
    fn what_a_hook_sends() {
        let messages = decode(
            br#"{"type":"hello","protocol":1,"name":"guard","events":["tool_call"],"commands":[{"name":"count","description":"Show the count"}],"future":1}"#,
        )
        .unwrap();
        assert!(matches!(messages[0], FromPlugin::Hello { protocol: 1, .. }));
        let FromPlugin::Loaded(registered) = &messages[1] else {
            panic!("{messages:?}")
        };
        assert_eq!(registered.name, "guard");
        assert_eq!(registered.handlers, ["tool_call"]);
        assert_eq!(
            registered.commands,
            [("count".to_owned(), "Show the count".to_owned())]
        );

        let done = decode(br#"{"type":"answer","id":7,"block":"no rm -rf"}"#).unwrap();
        let [FromPlugin::Done {
            id: 7,
            result: CallOutcome::Ok {
                output: Some(output),
            },
        }] = done.as_slice()
        else {
            panic!("{done:?}")
        };
        assert_eq!(
            serde_json::from_str::<Value>(output).unwrap(),
            json!({"block": "no rm -rf"})
        );
        let failed = decode(br#"{"type":"answer","id":7,"error":"bad"}"#).unwrap();
        assert!(matches!(
            failed.as_slice(),
            [FromPlugin::Done { id: 7, result: CallOutcome::Failed { message, .. } }] if message == "bad"
        ));

        let asked = decode(
            br#"{"type":"request","id":2,"event":7,"method":"ui_confirm","title":"Push","message":"Force?"}"#,
        )
        .unwrap();
        let [FromPlugin::Request {
            id: 2,
            call: Some(7),
            request,
        }] = asked.as_slice()
        else {
            panic!("{asked:?}")
        };
        assert_eq!(
            *request,
            HostRequest::UiConfirm {
                title: "Push".into(),
                message: "Force?".into()
            }
        );
        let sent = decode(
            br#"{"type":"request","id":3,"method":"send_message","message":{"custom_type":"n","content":"hi"}}"#,
        )
        .unwrap();
        assert!(
            matches!(
                sent.as_slice(),
                [FromPlugin::Request { call: None, request: HostRequest::SendMessage { message, options }, .. }]
                    if message == r#"{"custom_type":"n","content":"hi"}"# && options == "{}"
            ),
            "{sent:?}"
        );
        let unknown =
            decode(br#"{"type":"request","id":4,"event":7,"method":"teleport"}"#).unwrap();
        assert!(matches!(
            unknown.as_slice(),
            [FromPlugin::Request {
                request: HostRequest::Unsupported,
                ..
            }]
        ));
    }

    #[test]
    fn unknown_kinds_are_ignored_and_garbage_is_refused() {
        assert!(decode(br#"{"type":"progress","id":1}"#).unwrap().is_empty());
        for garbage in [&b"hello"[..], b"[1,2]", b"{\"id\":1}", b"{\"type\":"] {
            assert!(
                matches!(decode(garbage), Err(LineError::Garbage(_))),
                "{}",
                String::from_utf8_lossy(garbage)
            );
        }
        assert!(matches!(
            decode(br#"{"type":"answer"}"#),
            Err(LineError::Invalid { .. })
        ));
    }

    #[test]
    fn lines_are_bounded() {
        let mut input: &[u8] = b"\n{\"a\":1}\r\n{\"b\":2}";
        assert_eq!(read_line(&mut input).unwrap(), b"{\"a\":1}");
        assert_eq!(
            read_line(&mut input).unwrap_err().to_string(),
            "the connection closed"
        );
        let mut huge = io::BufReader::new(io::Read::take(io::repeat(b'x'), MAX_LINE as u64 + 10));
        assert!(matches!(
            read_line(&mut huge),
            Err(FrameError::LineTooLong(MAX_LINE))
        ));
        let mut exact = vec![b'y'; MAX_LINE];
        exact.push(b'\n');
        assert_eq!(read_line(&mut &exact[..]).unwrap().len(), MAX_LINE);
    }
}
