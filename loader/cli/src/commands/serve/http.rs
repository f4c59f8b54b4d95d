//! The resident process's HTTP side, for agents whose hooks can POST their events (`type:
//! "http"` hooks, where the profile says `http_entries`): a small HTTP/1.1 server on 127.0.0.1, written by hand
//! because it needs one route, `Content-Length` bodies and strict bounds, no more.
//!
//! Only the user can drive it: every request must carry the per-user secret (in
//! [`SECRET_HEADER`]; `install --http` writes it into the agent's entry, from
//! `<config>/http.json`, which only the user can read), a `Host` of 127.0.0.1 or localhost
//! with the port, and no `Origin` (a web page's request has one); a body is at most
//! [`PAYLOAD_LIMIT`], the head at most [`HEAD_LIMIT`]. Anything else is refused with a 4xx
//! status and the connection closed. The answer is the hook's JSON, in the form the agent
//! reads from an HTTP hook (a block is a JSON decision: there is no exit code).

use std::{
    io::{BufRead, BufReader, Read, Write},
    net::{TcpListener, TcpStream},
    path::{Path, PathBuf},
    sync::{
        atomic::{AtomicUsize, Ordering},
        Arc,
    },
    time::Duration,
};

use serde_json::{json, Value};

use super::{wire::Header, Admission, State};
use crate::{
    answering::request::PAYLOAD_LIMIT,
    relay::{Reply, VERSION},
    resident::http_config::HttpConfig,
};

/// The header that carries the secret (lower case, as it is compared).
pub const SECRET_HEADER: &str = crate::wiring::AGENT_HOOKS_SECRET_HEADER;

/// The largest request line and headers.
pub const HEAD_LIMIT: usize = 16 << 10;

/// How long a kept-alive connection may wait for its next request.
const IDLE_CONNECTION: Duration = Duration::from_secs(30);

/// How many threads wait in `accept` at least; one that served a connection while as many
/// were waiting ends.
const SPARE_ACCEPTORS: usize = 2;

/// The listener and what each connection needs, shared by the threads that accept.
struct Acceptors {
    listener: TcpListener,
    /// How many threads wait in `accept` now.
    waiting: AtomicUsize,
    state: Arc<State>,
    config: HttpConfig,
    home: PathBuf,
    xdg: Option<PathBuf>,
}

/// Listens on 127.0.0.1 for `config`'s port, in threads of their own; an error (the port is
/// taken) is said in the log and the Unix socket goes on alone.
///
/// A thread that accepts a connection serves it itself, so a new connection costs no
/// thread start and no hand-over to another thread (measured: a thread started per
/// connection made a new connection's round trip about 5.9x a bare server's on a loaded
/// machine). When it was the last one waiting, it starts another before it serves, so a
/// connection never waits for another's.
pub fn listen(state: Arc<State>, config: HttpConfig, home: PathBuf, xdg: Option<PathBuf>) {
    let listener = match TcpListener::bind(("127.0.0.1", config.port)) {
        Ok(listener) => listener,
        Err(e) => {
            eprintln!(
                "agent-hooks serve: HTTP hooks are off: 127.0.0.1:{}: {e}",
                config.port
            );
            return;
        }
    };
    eprintln!("agent-hooks serve: HTTP hooks on 127.0.0.1:{}", config.port);
    let shared = Arc::new(Acceptors {
        listener,
        waiting: AtomicUsize::new(0),
        state,
        config,
        home,
        xdg,
    });
    for _ in 0..SPARE_ACCEPTORS {
        start_acceptor(&shared);
    }
}

/// Starts one more thread that waits in `accept`.
fn start_acceptor(shared: &Arc<Acceptors>) {
    shared.waiting.fetch_add(1, Ordering::AcqRel);
    let mine = shared.clone();
    let started = std::thread::Builder::new()
        .name("http-accept".into())
        .spawn(move || acceptor(&mine));
    if let Err(e) = started {
        shared.waiting.fetch_sub(1, Ordering::AcqRel);
        eprintln!("agent-hooks serve: no thread for HTTP hooks: {e}");
    }
}

/// Accepts a connection and serves it, again and again, while fewer than
/// [`SPARE_ACCEPTORS`] others wait.
fn acceptor(shared: &Arc<Acceptors>) {
    loop {
        let accepted = shared.listener.accept();
        if shared.waiting.fetch_sub(1, Ordering::AcqRel) == 1 {
            start_acceptor(shared);
        }
        if let Ok((stream, _)) = accepted {
            match Admission::enter(&shared.state) {
                Some(_admitted) => connection(
                    &shared.state,
                    &shared.config,
                    &shared.home,
                    shared.xdg.as_deref(),
                    stream,
                ),
                None => {
                    let _ = respond(
                        &stream,
                        503,
                        &json!({"systemMessage": "agent-hooks serve: too many connections"}),
                        false,
                    );
                }
            }
        }
        if shared.waiting.load(Ordering::Acquire) >= SPARE_ACCEPTORS {
            return;
        }
        shared.waiting.fetch_add(1, Ordering::AcqRel);
    }
}

/// A request as read: its method, target and the headers needed.
struct Head {
    method: String,
    target: String,
    host: Option<String>,
    origin: bool,
    secret: Option<String>,
    length: Option<usize>,
    chunked: bool,
    close: bool,
}

/// Reads one request's head; `Ok(None)` when the client closed between requests.
fn read_head(reader: &mut impl BufRead) -> Result<Option<Head>, (u16, &'static str)> {
    let mut head = Vec::new();
    loop {
        let before = head.len();
        let read = reader
            .take((HEAD_LIMIT + 1 - head.len().min(HEAD_LIMIT)) as u64)
            .read_until(b'\n', &mut head)
            .map_err(|_| (408, "the request was not read in time"))?;
        if read == 0 {
            return if head.is_empty() {
                Ok(None)
            } else {
                Err((400, "the request ended inside its head"))
            };
        }
        if head.len() > HEAD_LIMIT {
            return Err((431, "the request's head is too large"));
        }
        if &head[before..] == b"\r\n" || &head[before..] == b"\n" {
            break;
        }
    }
    let text = std::str::from_utf8(&head).map_err(|_| (400, "the request's head is not text"))?;
    let mut lines = text.lines();
    let mut first = lines.next().unwrap_or_default().split(' ');
    let (method, target, version) = (first.next(), first.next(), first.next());
    let (Some(method), Some(target), Some(version)) = (method, target, version) else {
        return Err((400, "not an HTTP request"));
    };
    if version != "HTTP/1.1" && version != "HTTP/1.0" {
        return Err((505, "only HTTP/1.1"));
    }
    let mut parsed = Head {
        method: method.to_owned(),
        target: target.to_owned(),
        host: None,
        origin: false,
        secret: None,
        length: None,
        chunked: false,
        close: version == "HTTP/1.0",
    };
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        match name.trim().to_ascii_lowercase().as_str() {
            "host" => parsed.host = Some(value.to_owned()),
            "origin" => parsed.origin = true,
            SECRET_HEADER => parsed.secret = Some(value.to_owned()),
            "content-length" => {
                parsed.length = Some(value.parse().map_err(|_| (400, "a bad Content-Length"))?)
            }
            "transfer-encoding" => parsed.chunked = true,
            "connection" => parsed.close = value.eq_ignore_ascii_case("close"),
            _ => {}
        }
    }
    Ok(Some(parsed))
}

/// Compares in a time that does not depend on where the texts differ.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// Serves the requests of one connection (kept alive) until it closes or one is refused.
fn connection(
    state: &State,
    config: &HttpConfig,
    home: &Path,
    xdg: Option<&Path>,
    stream: TcpStream,
) {
    let _ = stream.set_read_timeout(Some(IDLE_CONNECTION));
    let _ = stream.set_nodelay(true);
    let Ok(reader) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(reader);
    loop {
        let head = match read_head(&mut reader) {
            Ok(Some(head)) => head,
            Ok(None) => return,
            Err((status, why)) => {
                let _ = refuse(&stream, status, why);
                return;
            }
        };
        let hosts = [
            format!("127.0.0.1:{}", config.port),
            format!("localhost:{}", config.port),
        ];
        let refused = if head.origin {
            Some((403, "a request from a web page (it has an Origin)"))
        } else if !head.host.as_ref().is_some_and(|h| hosts.contains(h)) {
            Some((403, "a wrong Host"))
        } else if !head
            .secret
            .as_ref()
            .is_some_and(|s| same(s, &config.secret))
        {
            Some((401, "no secret, or a wrong one"))
        } else if head.method != "POST" {
            Some((405, "only POST"))
        } else if head.chunked {
            Some((411, "a body without Content-Length"))
        } else if head.length.is_some_and(|n| n > PAYLOAD_LIMIT) {
            Some((413, "the payload is larger than the limit"))
        } else {
            None
        };
        if let Some((status, why)) = refused {
            let _ = refuse(&stream, status, why);
            return;
        }
        let Some((agent, with)) = route(&head.target) else {
            let _ = refuse(&stream, 404, "no such route: POST /hook/AGENT");
            return;
        };
        let mut body = vec![0; head.length.unwrap_or(0)];
        if reader.read_exact(&mut body).is_err() {
            let _ = refuse(&stream, 400, "the body ended before its Content-Length");
            return;
        }
        let parsed = serde_json::from_slice::<Value>(&body).ok();
        let cwd = parsed
            .as_ref()
            .and_then(|v| v["cwd"].as_str().map(PathBuf::from))
            .filter(|p| p.is_absolute() && p.is_dir())
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_else(|| home.to_path_buf());
        let header = Header {
            v: VERSION,
            agent,
            event: None,
            with,
            home: home.to_path_buf(),
            xdg_config_home: xdg.map(Path::to_path_buf),
            cwd,
            hooks: Vec::new(),
            no_discover: false,
            trust_project: false,
            required: Vec::new(),
            in_process: false,
            // An HTTP hook carries no environment: its hooks get the resident process's.
            env: None,
            // Nor its agent's process: the session ends at its end or when idle.
            agent_pid: None,
            status: false,
            length: None,
            ui: None,
            keep: false,
            // Served by the resident process itself: no client of another version.
            program: None,
        };
        super::touch(state);
        let event = parsed
            .as_ref()
            .and_then(|v| v["hook_event_name"].as_str().map(str::to_owned))
            .unwrap_or_default();
        let reply = super::reply_for(state, &header, Ok(body), None);
        if respond(&stream, 200, &answer(&event, &reply), head.close).is_err() || head.close {
            return;
        }
    }
}

/// `/hook/AGENT[?with=A,B]`: the agent and the agents named with `with`.
fn route(target: &str) -> Option<(String, Vec<String>)> {
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let agent = path.strip_prefix("/hook/")?;
    if agent.is_empty() || agent.contains('/') {
        return None;
    }
    let with = query
        .split('&')
        .filter_map(|pair| pair.strip_prefix("with="))
        .flat_map(|list| list.split(','))
        .filter(|a| !a.is_empty())
        .map(str::to_owned)
        .collect();
    Some((agent.to_owned(), with))
}

/// The reply of `hook` (an exit code and two channels) as the JSON an HTTP hook answers
/// with: a block is the event's decision (an HTTP hook has no exit code), a non-blocking
/// error a `systemMessage`, text on stdout the event's context.
pub fn answer(event: &str, reply: &Reply) -> Value {
    let stdout = reply.stdout.trim();
    let stderr = reply.stderr.trim();
    match reply.code {
        2 => match event {
            "PreToolUse" => json!({"hookSpecificOutput": {"hookEventName": event,
                "permissionDecision": "deny", "permissionDecisionReason": stderr}}),
            "PermissionRequest" => json!({"hookSpecificOutput": {"hookEventName": event,
                "decision": {"behavior": "deny", "message": stderr}}}),
            "UserPromptSubmit" | "PostToolUse" | "PostToolUseFailure" | "Stop" | "SubagentStop" => {
                json!({"decision": "block", "reason": stderr})
            }
            _ => json!({"systemMessage": stderr}),
        },
        0 => {
            let mut value = match serde_json::from_str::<Value>(stdout) {
                Ok(Value::Object(object)) => Value::Object(object),
                _ if stdout.is_empty() => json!({}),
                _ if matches!(event, "SessionStart" | "UserPromptSubmit") => json!({
                    "hookSpecificOutput": {"hookEventName": event, "additionalContext": stdout}}),
                _ => json!({"systemMessage": stdout}),
            };
            if !stderr.is_empty() && value.get("systemMessage").is_none() {
                value["systemMessage"] = Value::String(stderr.to_owned());
            }
            value
        }
        _ => json!({"systemMessage": stderr}),
    }
}

fn respond(mut stream: &TcpStream, status: u16, body: &Value, close: bool) -> std::io::Result<()> {
    let body = body.to_string();
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        411 => "Length Required",
        413 => "Content Too Large",
        431 => "Request Header Fields Too Large",
        503 => "Service Unavailable",
        _ => "HTTP Version Not Supported",
    };
    let connection = if close { "close" } else { "keep-alive" };
    let text = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: {connection}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(text.as_bytes())?;
    stream.flush()
}

/// Refuses a request: the status, why, and the connection closed.
fn refuse(stream: &TcpStream, status: u16, why: &str) -> std::io::Result<()> {
    respond(
        stream,
        status,
        &json!({"error": format!("agent-hooks serve: refused: {why}")}),
        true,
    )?;
    stream.shutdown(std::net::Shutdown::Write)?;
    let _ = stream.set_read_timeout(Some(Duration::from_millis(200)));
    let _ = std::io::copy(&mut stream.take(1 << 20), &mut std::io::sink());
    Ok(())
}
