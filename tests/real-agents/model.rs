//! A scripted model on 127.0.0.1 for the real agents: one call of the agent's shell tool
//! (a command that leaves a side effect) per command of its script, one at a time, then a
//! final text. Stateless per request: the number of tool results already in the request
//! says which turn it is. It speaks what each
//! agent calls: Anthropic Messages (Claude Code, Copilot CLI, pi, Cline), OpenAI Responses (Codex CLI)
//! and Gemini `streamGenerateContent` (Gemini CLI), each with server-sent events. Every
//! request's path and body is logged, so a test can see what the model was told.
//!
//! Bounded: it binds loopback only (port 0), reads at most 64 MiB of a request, gives each
//! connection 30 s, and ends when it is dropped.

use std::{
    io::{BufRead, BufReader, Read, Write},
    net::{Shutdown, TcpListener, TcpStream},
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc, Mutex,
    },
    thread::JoinHandle,
    time::Duration,
};

use serde_json::{json, Value};

/// Largest request body read.
const MAX_BODY: usize = 64 << 20;

/// The final text the model answers once the tool ran.
pub const FINAL_TEXT: &str = "All done.";

/// One request the server got.
#[derive(Debug, Clone)]
pub struct Request {
    /// The request line's path, query included.
    pub path: String,
    /// The body, parsed (`Null` when it was not JSON).
    pub body: Value,
}

/// The fake model: serves until dropped.
pub struct FakeModel {
    port: u16,
    log: Arc<Mutex<Vec<Request>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl FakeModel {
    /// Starts it; `command` is the shell command its one tool call runs.
    pub fn start(command: &str) -> FakeModel {
        FakeModel::start_script(&[command])
    }

    /// Starts it with a script: one tool call per command, in order (the next once the
    /// agent sent the previous one's result), then the final text.
    pub fn start_script(commands: &[&str]) -> FakeModel {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
        let port = listener.local_addr().expect("a bound address").port();
        let log = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let script: Arc<Vec<String>> = Arc::new(commands.iter().map(|c| (*c).to_owned()).collect());
        let (log2, stop2) = (log.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stop2.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let (log, script) = (log2.clone(), script.clone());
                std::thread::spawn(move || serve(stream, &log, &script));
            }
        });
        FakeModel {
            port,
            log,
            stop,
            thread: Some(thread),
        }
    }

    /// Its port on 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Every request so far, in arrival order.
    pub fn requests(&self) -> Vec<Request> {
        self.log.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

impl Drop for FakeModel {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so that it sees the flag.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn serve(stream: TcpStream, log: &Mutex<Vec<Request>>, script: &[String]) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let _ = stream.set_write_timeout(Some(Duration::from_secs(30)));
    let Ok(reader_stream) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(reader_stream);
    let mut writer = stream;
    // Keep-alive: serve requests on this connection until the client closes it.
    while let Some((method, path, body)) = read_request(&mut reader) {
        let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        log.lock().unwrap_or_else(|p| p.into_inner()).push(Request {
            path: path.clone(),
            body: body.clone(),
        });
        let (content_type, payload) = answer(&method, &path, &body, script);
        let head = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\ncache-control: no-cache\r\n\r\n",
            payload.len()
        );
        if writer.write_all(head.as_bytes()).is_err() || writer.write_all(&payload).is_err() {
            return;
        }
        let _ = writer.flush();
    }
    let _ = writer.shutdown(Shutdown::Both);
}

/// Method, path and body of the next request; `None` at the end of the connection.
fn read_request(reader: &mut BufReader<TcpStream>) -> Option<(String, String, Vec<u8>)> {
    let mut line = String::new();
    if reader.read_line(&mut line).ok()? == 0 {
        return None;
    }
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_owned();
    let path = parts.next()?.to_owned();
    let mut length = 0usize;
    let mut chunked = false;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).ok()? == 0 {
            return None;
        }
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            let name = name.trim().to_ascii_lowercase();
            let value = value.trim();
            if name == "content-length" {
                length = value.parse().ok()?;
            } else if name == "transfer-encoding" && value.eq_ignore_ascii_case("chunked") {
                chunked = true;
            }
        }
    }
    let mut body = Vec::new();
    if chunked {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size).ok()?;
            let size = usize::from_str_radix(size.trim().split(';').next()?, 16).ok()?;
            if size == 0 {
                let mut end = String::new();
                reader.read_line(&mut end).ok()?;
                break;
            }
            if body.len() + size > MAX_BODY {
                return None;
            }
            let start = body.len();
            body.resize(start + size, 0);
            reader.read_exact(&mut body[start..]).ok()?;
            let mut crlf = [0u8; 2];
            reader.read_exact(&mut crlf).ok()?;
        }
    } else {
        if length > MAX_BODY {
            return None;
        }
        body.resize(length, 0);
        reader.read_exact(&mut body).ok()?;
    }
    Some((method, path, body))
}

/// The answer to one request: content type and body.
fn answer(method: &str, path: &str, body: &Value, script: &[String]) -> (&'static str, Vec<u8>) {
    if method == "GET" {
        // Model lists and the like: an empty list.
        return (
            "application/json",
            json!({"data": [], "models": []}).to_string().into_bytes(),
        );
    }
    if path.contains("/responses") {
        return ("text/event-stream", responses(body, script));
    }
    if path.contains(":streamGenerateContent") {
        return ("text/event-stream", gemini_stream(body, script));
    }
    if path.contains(":generateContent") {
        let reply = gemini_reply(body, script);
        return ("application/json", reply.to_string().into_bytes());
    }
    if path.contains(":countTokens") {
        return (
            "application/json",
            json!({"totalTokens": 10}).to_string().into_bytes(),
        );
    }
    if path.contains("/messages/count_tokens") {
        return (
            "application/json",
            json!({"input_tokens": 10}).to_string().into_bytes(),
        );
    }
    if path.contains("/messages") {
        if body["stream"] == json!(true) {
            return ("text/event-stream", anthropic_stream(body, script));
        }
        let reply = anthropic_message(body, script);
        return ("application/json", reply.to_string().into_bytes());
    }
    ("application/json", json!({}).to_string().into_bytes())
}

/// The tool the agent offers for shell commands, by the names each agent uses.
fn shell_tool(names: &[String]) -> Option<String> {
    [
        "Bash",
        "bash",
        "shell_command",
        "shell",
        "exec_command",
        "run_shell_command",
        "Execute",
        "run_commands",
    ]
    .iter()
    .find(|n| names.iter().any(|have| have == *n))
    .map(|n| (*n).to_owned())
}

/// The arguments of a shell call with `command` for the tool named `tool`.
fn shell_arguments(tool: &str, command: &str) -> Value {
    match tool {
        "shell" => json!({"command": ["bash", "-lc", command]}),
        "exec_command" => json!({"cmd": command}),
        // Factory Droid's shell tool asks the model to rate the command's risk.
        "Execute" => json!({"command": command, "riskLevel": "low",
            "riskLevelReason": "the scripted command"}),
        "run_commands" => json!({"commands": [command]}),
        _ => json!({"command": command, "description": "Run the scripted command"}),
    }
}

/// How many tool results `value` holds, at any depth (each agent nests them differently).
fn tool_results(value: &Value) -> usize {
    match value {
        Value::Object(fields) => {
            let own = match fields.get("type").and_then(Value::as_str) {
                Some("tool_result" | "function_call_output") => 1,
                _ => usize::from(fields.contains_key("functionResponse")),
            };
            own + fields.values().map(tool_results).sum::<usize>()
        }
        Value::Array(items) => items.iter().map(tool_results).sum(),
        _ => 0,
    }
}

fn sse(events: &[(&str, Value)]) -> Vec<u8> {
    let mut out = String::new();
    for (name, data) in events {
        if !name.is_empty() {
            out.push_str(&format!("event: {name}\n"));
        }
        out.push_str(&format!("data: {data}\n\n"));
    }
    out.into_bytes()
}

/// Anthropic: the tool names offered, when this is the agent's main loop (it offers tools).
fn anthropic_tool(body: &Value) -> Option<String> {
    let names: Vec<String> = body["tools"]
        .as_array()?
        .iter()
        .filter_map(|t| t["name"].as_str().map(str::to_owned))
        .collect();
    shell_tool(&names)
}

/// The next command of `script` after `done` tool results, with its call's number (from 1).
fn next(script: &[String], done: usize) -> Option<(usize, &str)> {
    script.get(done).map(|c| (done + 1, c.as_str()))
}

/// What the Anthropic model answers: a shell call per command of the script in a main
/// loop, then the final text.
fn anthropic_turn(body: &Value, script: &[String]) -> Option<(usize, String, Value)> {
    let tool = anthropic_tool(body)?;
    let (n, command) = next(script, tool_results(&body["messages"]))?;
    let args = shell_arguments(&tool, command);
    Some((n, tool, args))
}

fn anthropic_message(body: &Value, script: &[String]) -> Value {
    let model = body["model"].clone();
    let (content, stop) = match anthropic_turn(body, script) {
        Some((n, tool, input)) => (
            json!([{"type": "tool_use", "id": format!("toolu_fake_{n}"), "name": tool, "input": input}]),
            "tool_use",
        ),
        None => (json!([{"type": "text", "text": FINAL_TEXT}]), "end_turn"),
    };
    json!({"id": "msg_fake", "type": "message", "role": "assistant", "model": model,
        "content": content, "stop_reason": stop, "stop_sequence": null,
        "usage": {"input_tokens": 10, "output_tokens": 5}})
}

fn anthropic_stream(body: &Value, script: &[String]) -> Vec<u8> {
    let model = body["model"].clone();
    let mut events = vec![(
        "message_start",
        json!({"type": "message_start", "message": {"id": "msg_fake", "type": "message",
            "role": "assistant", "model": model, "content": [], "stop_reason": null,
            "stop_sequence": null, "usage": {"input_tokens": 10, "output_tokens": 1}}}),
    )];
    let stop = match anthropic_turn(body, script) {
        Some((n, tool, input)) => {
            events.push((
                "content_block_start",
                json!({"type": "content_block_start", "index": 0, "content_block":
                    {"type": "tool_use", "id": format!("toolu_fake_{n}"), "name": tool, "input": {}}}),
            ));
            events.push((
                "content_block_delta",
                json!({"type": "content_block_delta", "index": 0, "delta":
                    {"type": "input_json_delta", "partial_json": input.to_string()}}),
            ));
            "tool_use"
        }
        None => {
            events.push((
                "content_block_start",
                json!({"type": "content_block_start", "index": 0, "content_block":
                    {"type": "text", "text": ""}}),
            ));
            events.push((
                "content_block_delta",
                json!({"type": "content_block_delta", "index": 0, "delta":
                    {"type": "text_delta", "text": FINAL_TEXT}}),
            ));
            "end_turn"
        }
    };
    events.push((
        "content_block_stop",
        json!({"type": "content_block_stop", "index": 0}),
    ));
    events.push((
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null},
            "usage": {"output_tokens": 5}}),
    ));
    events.push(("message_stop", json!({"type": "message_stop"})));
    sse(&events)
}

/// OpenAI Responses (Codex): a function call to the shell tool, then the final text.
fn responses(body: &Value, script: &[String]) -> Vec<u8> {
    let names: Vec<String> = body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["name"].as_str().map(str::to_owned))
        .collect();
    let turn = shell_tool(&names).and_then(|tool| {
        next(script, tool_results(&body["input"])).map(|(n, command)| (n, tool, command))
    });
    let item = match turn {
        Some((n, tool, command)) => json!({"type": "function_call", "id": format!("fc_fake_{n}"),
            "call_id": format!("call_fake_{n}"),
            "name": tool, "arguments": shell_arguments(&tool, command).to_string(),
            "status": "completed"}),
        None => json!({"type": "message", "id": "msg_fake_1", "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": FINAL_TEXT, "annotations": []}]}),
    };
    let usage = json!({"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 15});
    sse(&[
        (
            "response.created",
            json!({"type": "response.created", "response": {"id": "resp_fake"}}),
        ),
        (
            "response.output_item.done",
            json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
        ),
        (
            "response.completed",
            json!({"type": "response.completed", "response": {"id": "resp_fake", "usage": usage}}),
        ),
    ])
}

/// Gemini: the function names offered.
fn gemini_tool(body: &Value) -> Option<String> {
    let names: Vec<String> = body["tools"]
        .as_array()?
        .iter()
        .flat_map(|t| t["functionDeclarations"].as_array().into_iter().flatten())
        .filter_map(|f| f["name"].as_str().map(str::to_owned))
        .collect();
    shell_tool(&names)
}

fn gemini_reply(body: &Value, script: &[String]) -> Value {
    let turn = gemini_tool(body).and_then(|tool| {
        next(script, tool_results(&body["contents"])).map(|(_, command)| (tool, command))
    });
    let part = match turn {
        Some((tool, command)) => {
            json!({"functionCall": {"name": tool, "args": shell_arguments(&tool, command)}})
        }
        None => json!({"text": FINAL_TEXT}),
    };
    json!({"candidates": [{"content": {"role": "model", "parts": [part]},
            "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
        "modelVersion": "gemini-2.5-flash"})
}

fn gemini_stream(body: &Value, script: &[String]) -> Vec<u8> {
    sse(&[("", gemini_reply(body, script))])
}
