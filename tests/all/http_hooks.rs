//! HTTP hooks (`install --agent claude --http`): the resident process listens on 127.0.0.1
//! with a per-user secret, answers Claude Code's HTTP hooks in the JSON they read, and
//! refuses whoever is not the user's agent (no or a wrong secret, a wrong Host, a web page's
//! Origin, a body past the limit, a head past its limit, anything but a POST).

use std::{
    io::{BufRead, BufReader, Read, Write},
    net::TcpStream,
    os::unix::fs::PermissionsExt,
    path::PathBuf,
    time::Duration,
};

use agent_hooks_tests::rig::{Resident, Rig};
use serde_json::{json, Value};

/// Where the resident process listens for HTTP hooks, and its secret.
trait Http {
    /// `http.json`'s port and secret.
    fn http_config(&self) -> (u16, String);
}

impl Http for Rig {
    fn http_config(&self) -> (u16, String) {
        let text =
            std::fs::read_to_string(self.home().join(".config/agent-hooks/http.json")).unwrap();
        let value: Value = serde_json::from_str(&text).unwrap();
        (
            value["port"].as_u64().unwrap() as u16,
            value["secret"].as_str().unwrap().to_owned(),
        )
    }
}

/// Sends `head` (the request line and headers, without the blank line) and `body` on
/// `stream`, and reads one response: its status and its JSON body.
fn exchange(stream: &mut TcpStream, head: &str, body: &[u8]) -> (u16, Value) {
    stream
        .write_all(format!("{head}\r\n\r\n").as_bytes())
        .unwrap();
    let _ = stream.write_all(body);
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    let status: u16 = line.split(' ').nth(1).unwrap_or("0").parse().unwrap();
    let mut length = 0;
    loop {
        let mut header = String::new();
        reader.read_line(&mut header).unwrap();
        if header.trim().is_empty() {
            break;
        }
        if let Some(n) = header.to_ascii_lowercase().strip_prefix("content-length:") {
            length = n.trim().parse().unwrap();
        }
    }
    let mut answer = vec![0; length];
    reader.read_exact(&mut answer).unwrap();
    (
        status,
        serde_json::from_slice(&answer).unwrap_or(Value::Null),
    )
}

fn connect(port: u16) -> TcpStream {
    let stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    stream
}

fn post(port: u16, extra: &str, body: &str) -> (u16, Value) {
    let head = format!(
        "POST /hook/claude HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nContent-Length: {}{extra}",
        body.len()
    );
    exchange(&mut connect(port), &head, body.as_bytes())
}

fn pre(command: &str) -> String {
    json!({"session_id": "h-1", "hook_event_name": "PreToolUse", "tool_name": "Bash",
           "tool_input": {"command": command}})
    .to_string()
}

#[test]
fn claude_codes_http_hooks_are_answered_and_strangers_are_refused() {
    let rig = Rig::new();
    let settings = rig.home().join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let before = "{ \"model\": \"opus\" }\n";
    std::fs::write(&settings, before).unwrap();
    std::fs::set_permissions(&settings, std::fs::Permissions::from_mode(0o644)).unwrap();
    let guard = json!({"PreToolUse": [{"matcher": "exec", "hooks": [{"type": "command",
        "command": "grep -q 'rm -rf' && { echo 'the guard refuses rm -rf' >&2; exit 2; }; exit 0"}]}]});
    std::fs::write(
        rig.home().join(".config/agent-hooks/hooks/guard.json"),
        guard.to_string(),
    )
    .unwrap();
    let out = rig
        .command(&["install", "--agent", "claude", "--http"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (port, secret) = rig.http_config();
    let text = std::fs::read_to_string(&settings).unwrap();
    let value: Value = serde_json::from_str(&text).unwrap();
    let pre_entry = &value["hooks"]["PreToolUse"][0]["hooks"][0];
    assert_eq!(pre_entry["type"], "http", "{text}");
    assert_eq!(
        pre_entry["url"],
        format!("http://127.0.0.1:{port}/hook/claude")
    );
    assert_eq!(
        pre_entry["headers"]["X-Agent-Hooks-Secret"],
        secret.as_str()
    );
    assert_eq!(
        value["hooks"]["SessionStart"][0]["hooks"][0]["type"], "command",
        "SessionStart starts the resident process: {text}"
    );
    let mode = |p: &PathBuf| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&settings), 0o600, "the secret is the user's alone");
    assert_eq!(
        mode(&rig.home().join(".config/agent-hooks/http.json")),
        0o600
    );
    // SessionStart (a command) starts the resident process, which listens on the port.
    let start =
        json!({"session_id": "h-1", "hook_event_name": "SessionStart", "source": "startup"});
    let out = rig.hook(&start.to_string());
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let secret_header = format!("\r\nX-Agent-Hooks-Secret: {secret}");
    let (status, answer) = post(port, &secret_header, &pre("rm -rf /"));
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "deny");
    assert!(answer["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap()
        .contains("the guard refuses rm -rf"));
    // Two requests on one kept-alive connection.
    let mut stream = connect(port);
    for _ in 0..2 {
        let body = pre("ls");
        let head = format!(
            "POST /hook/claude HTTP/1.1\r\nHost: localhost:{port}\r\nContent-Length: {}{secret_header}",
            body.len()
        );
        let (status, answer) = exchange(&mut stream, &head, body.as_bytes());
        assert_eq!((status, answer), (200, json!({})));
    }
    // Strangers.
    let wrong = format!("\r\nX-Agent-Hooks-Secret: {}", "0".repeat(64));
    assert_eq!(post(port, "", &pre("ls")).0, 401, "no secret");
    assert_eq!(post(port, &wrong, &pre("ls")).0, 401, "a wrong secret");
    let origin = format!("{secret_header}\r\nOrigin: http://evil.example");
    assert_eq!(post(port, &origin, &pre("ls")).0, 403, "a web page");
    let body = pre("ls");
    let host = format!(
        "POST /hook/claude HTTP/1.1\r\nHost: evil.example:{port}\r\nContent-Length: {}{secret_header}",
        body.len()
    );
    assert_eq!(exchange(&mut connect(port), &host, body.as_bytes()).0, 403);
    let big = format!(
        "POST /hook/claude HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: {}{secret_header}",
        64 << 20
    );
    let (status, answer) = exchange(&mut connect(port), &big, b"");
    assert_eq!(status, 413, "{answer}");
    assert!(answer["error"]
        .as_str()
        .unwrap()
        .contains("larger than the limit"));
    let get = format!("GET /hook/claude HTTP/1.1\r\nHost: 127.0.0.1:{port}{secret_header}");
    assert_eq!(exchange(&mut connect(port), &get, b"").0, 405);
    let chunked = format!("POST /hook/claude HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nTransfer-Encoding: chunked{secret_header}");
    assert_eq!(exchange(&mut connect(port), &chunked, b"").0, 411);
    let long = format!(
        "POST /hook/claude HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Long: {}",
        "x".repeat(20_000)
    );
    assert_eq!(exchange(&mut connect(port), &long, b"").0, 431);
    // It goes on serving the user.
    assert_eq!(post(port, &secret_header, &pre("rm -rf x")).0, 200);
    // list says where it listens.
    let list = rig.command(&["list"]).output().unwrap();
    let list = String::from_utf8_lossy(&list.stdout).into_owned();
    assert!(
        list.contains(&format!("HTTP hooks: listening on 127.0.0.1:{port}")),
        "{list}"
    );
    // Uninstall: the same bytes and the same mode.
    let out = rig
        .command(&["uninstall", "--agent", "claude"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), before);
    assert_eq!(mode(&settings), 0o644);
}

#[test]
fn http_is_refused_where_it_cannot_be_safe() {
    let rig = Rig::new();
    for (args, says) in [
        (
            &["install", "--agent", "copilot", "--http"][..],
            "--http is for Claude Code only",
        ),
        (
            &["install", "--agent", "claude", "--http", "--project"][..],
            "cannot be used with",
        ),
    ] {
        let out = rig.command(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
    }
    assert!(!rig.home().join(".config/agent-hooks/http.json").exists());
}
