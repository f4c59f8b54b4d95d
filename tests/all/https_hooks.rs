//! HTTP hooks (`"type": "http"`) at an `https://` address, as a user's hooks file names its
//! policy server: the server's certificate is checked against the system's trusted roots
//! (here `SSL_CERT_FILE` names the test's authority, as a user's system store would hold an
//! organisation's). A server whose certificate is not trusted gets nothing, blocks nothing,
//! and the user is told why.

use std::{
    io::{BufRead, BufReader, Read, Write},
    net::TcpListener,
    process::Output,
    sync::mpsc,
};

use agent_hooks_tests::{
    cli,
    rig::{Resident, Rig},
    tls::Authority,
};

use crate::decision_log::pre;

/// A policy server over TLS on 127.0.0.1 that answers one request with `answer` (a JSON
/// body) and sends what it got (the request's head) on the channel; its URL.
fn policy_server(authority: Authority, answer: &'static str) -> (String, mpsc::Receiver<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a port on loopback");
    let url = format!(
        "https://127.0.0.1:{}/hook",
        listener.local_addr().expect("its address").port()
    );
    let (sent, got) = mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(authority.accept(stream));
            let mut head = String::new();
            let mut length = 0;
            loop {
                let mut line = String::new();
                // A client that refused the certificate ends the handshake: no request.
                if reader.read_line(&mut line).unwrap_or(0) == 0 {
                    break;
                }
                if line == "\r\n" {
                    break;
                }
                if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = value.trim().parse().unwrap_or(0);
                }
                head.push_str(&line);
            }
            if head.is_empty() {
                continue;
            }
            let mut body = vec![0; length];
            if reader.read_exact(&mut body).is_err() {
                continue;
            }
            let stream = reader.get_mut();
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{answer}",
                answer.len()
            );
            let _ = stream.flush();
            let _ = sent.send(head);
        }
    });
    (url, got)
}

/// The user's hooks file with one HTTP hook at `url` for every tool call.
fn http_hook(rig: &Rig, url: &str) {
    rig.write(
        "home/.config/agent-hooks/hooks/policy.json",
        &format!(
            r#"{{"hooks": {{"PreToolUse": [{{"matcher": "exec", "hooks": [{{"type": "http", "url": "{url}", "timeout": 10}}]}}]}}}}"#
        ),
    );
}

/// `hook --agent claude` with `vars` in the agent's environment.
fn hook(rig: &Rig, vars: &[(&str, &str)], payload: &str) -> Output {
    let mut command = Resident::command(rig, &["hook", "--agent", "claude"]);
    command.envs(vars.iter().copied());
    cli::output_with(&mut command, payload)
}

#[test]
fn an_https_hook_whose_server_is_trusted_decides() {
    let rig = Rig::new();
    let authority = Authority::new(rig.root(), false);
    let ca = authority.certificate.display().to_string();
    let (url, got) = policy_server(
        authority,
        r#"{"decision": "block", "reason": "policy says no"}"#,
    );
    http_hook(&rig, &url);
    let blocked = hook(
        &rig,
        &[("SSL_CERT_FILE", ca.as_str())],
        &pre("s1", "git push --force"),
    );
    let said = String::from_utf8_lossy(&blocked.stderr);
    assert_eq!(blocked.status.code(), Some(2), "{said}");
    assert_eq!(said.trim(), "policy says no");
    let head = got
        .recv_timeout(std::time::Duration::from_secs(10))
        .expect("the server got the request");
    assert!(head.starts_with("POST /hook HTTP/1.1"), "{head}");
}

#[test]
fn an_https_hook_whose_certificate_is_not_trusted_blocks_nothing_and_says_why() {
    let rig = Rig::new();
    // The authority is in no trusted store.
    let (url, got) = policy_server(
        Authority::new(rig.root(), false),
        r#"{"decision": "block", "reason": "policy says no"}"#,
    );
    http_hook(&rig, &url);
    let answered = hook(&rig, &[], &pre("s1", "ls"));
    let out = String::from_utf8_lossy(&answered.stdout);
    assert_eq!(answered.status.code(), Some(0), "{out}");
    assert!(
        out.contains(&format!("POST {url} failed: ")) && out.contains("UnknownIssuer"),
        "the user is told: {out}"
    );
    assert!(got.try_recv().is_err(), "no request crossed");
}
