//! The decision record's export to an OpenTelemetry collector, as an organisation sets it
//! up: the standard `OTEL_EXPORTER_OTLP_ENDPOINT` in the agent's environment, the resident
//! process sending each record as an OTLP log record over HTTP. The collector here is a
//! receiver on 127.0.0.1 that decodes what it gets with the OpenTelemetry project's own
//! protocol definitions. A collector that is away costs the event nothing: the records wait
//! in the file, `doctor` says so, and they are sent when it answers.

use std::{
    io::{BufRead, BufReader, Read, Write},
    net::TcpListener,
    process::Output,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use agent_hooks_tests::{
    cli,
    rig::{Resident, Rig},
    tls::Authority,
};
use opentelemetry_proto::tonic::{
    collector::logs::v1::ExportLogsServiceRequest,
    common::v1::{any_value::Value as Any, KeyValue},
    logs::v1::LogRecord,
};
use prost::Message;

use crate::decision_log::{guard, pre};
use serde_json::Value;

/// One request the receiver took: its path, content type and body decoded.
struct Received {
    path: String,
    content_type: String,
    request: ExportLogsServiceRequest,
}

/// A collector's OTLP/HTTP receiver on 127.0.0.1: answers 200 to each request and keeps it.
struct Receiver {
    port: u16,
    got: Arc<Mutex<Vec<Received>>>,
    /// `http`, or `https` for a receiver that speaks TLS.
    scheme: &'static str,
}

impl Receiver {
    fn on(listener: TcpListener) -> Receiver {
        Receiver::listening(listener, None)
    }

    /// A receiver that speaks TLS with a certificate `authority` issued.
    fn tls(authority: Authority) -> Receiver {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a port on loopback");
        Receiver::listening(listener, Some(Arc::new(authority)))
    }

    fn listening(listener: TcpListener, authority: Option<Arc<Authority>>) -> Receiver {
        let port = listener.local_addr().expect("its address").port();
        let got = Arc::new(Mutex::new(Vec::new()));
        let keep = got.clone();
        let scheme = if authority.is_some() { "https" } else { "http" };
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let keep = keep.clone();
                let authority = authority.clone();
                std::thread::spawn(move || match authority {
                    Some(authority) => serve(authority.accept(stream), &keep),
                    None => serve(stream, &keep),
                });
            }
        });
        Receiver { port, got, scheme }
    }

    fn start() -> Receiver {
        Receiver::on(TcpListener::bind("127.0.0.1:0").expect("a port on loopback"))
    }

    fn endpoint(&self) -> String {
        format!("{}://127.0.0.1:{}", self.scheme, self.port)
    }

    /// The log records received, waiting up to 30 s for at least `count`.
    fn records(&self, count: usize) -> Vec<LogRecord> {
        let started = Instant::now();
        loop {
            let records: Vec<LogRecord> = self
                .got
                .lock()
                .expect("the receiver's list")
                .iter()
                .flat_map(|r| r.request.resource_logs.iter())
                .flat_map(|r| r.scope_logs.iter())
                .flat_map(|s| s.log_records.iter().cloned())
                .collect();
            if records.len() >= count || started.elapsed() > Duration::from_secs(30) {
                return records;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// Answers the requests of one connection (kept alive or not; plain or TLS).
fn serve(stream: impl Read + Write, got: &Mutex<Vec<Received>>) {
    let mut reader = BufReader::new(stream);
    loop {
        let mut start = String::new();
        if reader.read_line(&mut start).unwrap_or(0) == 0 {
            return;
        }
        let path = start
            .split_whitespace()
            .nth(1)
            .unwrap_or_default()
            .to_owned();
        let (mut length, mut content_type) = (0usize, String::new());
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header).unwrap_or(0) == 0 {
                return;
            }
            let header = header.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':') {
                match name.trim().to_ascii_lowercase().as_str() {
                    "content-length" => length = value.trim().parse().unwrap_or(0),
                    "content-type" => content_type = value.trim().to_owned(),
                    _ => {}
                }
            }
        }
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        let request = ExportLogsServiceRequest::decode(body.as_slice())
            .expect("the body is an OTLP logs export request");
        got.lock().expect("the receiver's list").push(Received {
            path,
            content_type,
            request,
        });
        let answer =
            "HTTP/1.1 200 OK\r\nContent-Type: application/x-protobuf\r\nContent-Length: 0\r\n\r\n";
        let stream = reader.get_mut();
        if stream.write_all(answer.as_bytes()).is_err() || stream.flush().is_err() {
            return;
        }
    }
}

/// The attribute `key` of `record`, as text.
fn attribute(record: &LogRecord, key: &str) -> Option<String> {
    attribute_in(&record.attributes, key)
}

fn attribute_in(attributes: &[KeyValue], key: &str) -> Option<String> {
    let value = attributes.iter().find(|kv| kv.key == key)?.value.as_ref()?;
    match value.value.as_ref()? {
        Any::StringValue(text) => Some(text.clone()),
        Any::IntValue(n) => Some(n.to_string()),
        Any::BoolValue(b) => Some(b.to_string()),
        Any::DoubleValue(d) => Some(d.to_string()),
        other => Some(format!("{other:?}")),
    }
}

/// `hook --agent claude` through the resident process, with the collector at `endpoint` in
/// the agent's environment.
fn hook(rig: &Rig, endpoint: &str, payload: &str) -> Output {
    hook_with(rig, &[("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)], payload)
}

/// `hook --agent claude` through the resident process, with `vars` in the agent's
/// environment.
fn hook_with(rig: &Rig, vars: &[(&str, &str)], payload: &str) -> Output {
    let mut command = Resident::command(rig, &["hook", "--agent", "claude"]);
    command.envs(vars.iter().copied());
    cli::output_with(&mut command, payload)
}

fn doctor(rig: &Rig, endpoint: &str) -> String {
    doctor_with(rig, &[("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)])
}

fn doctor_with(rig: &Rig, vars: &[(&str, &str)]) -> String {
    let mut command = Resident::command(rig, &["doctor"]);
    command.envs(vars.iter().copied());
    let output = cli::output_with(&mut command, "");
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn local_records(rig: &Rig) -> Vec<Value> {
    std::fs::read_to_string(rig.home().join(".local/state/agent-hooks/decisions.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

fn err(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn each_decision_reaches_the_collector_as_a_log_record_with_its_hooks() {
    let collector = Receiver::start();
    let rig = Rig::new();
    guard(&rig);
    let blocked = hook(&rig, &collector.endpoint(), &pre("s1", "git push --force"));
    assert_eq!(blocked.status.code(), Some(2), "{}", err(&blocked));
    let allowed = hook(&rig, &collector.endpoint(), &pre("s1", "ls"));
    assert_eq!(allowed.status.code(), Some(0), "{}", err(&allowed));
    let records = collector.records(2);
    assert_eq!(records.len(), 2, "both events exported");
    {
        let got = collector.got.lock().expect("the receiver's list");
        assert_eq!(got[0].path, "/v1/logs");
        assert_eq!(got[0].content_type, "application/x-protobuf");
        let resource = got[0].request.resource_logs[0]
            .resource
            .as_ref()
            .expect("a resource");
        assert_eq!(
            attribute_in(&resource.attributes, "service.name").as_deref(),
            Some("agent-hooks")
        );
        let scope = got[0].request.resource_logs[0].scope_logs[0]
            .scope
            .as_ref()
            .expect("a scope");
        assert_eq!(scope.name, "agent-hooks");
    }
    let block = &records[0];
    assert_eq!(block.event_name, "agent_hooks.decision");
    assert_eq!(block.severity_text, "WARN");
    for (key, value) in [
        ("gen_ai.agent.name", "claude"),
        ("session.id", "s1"),
        ("gen_ai.conversation.id", "s1"),
        ("gen_ai.tool.name", "Bash"),
        ("agent_hooks.event", "PreToolUse"),
        ("agent_hooks.decision", "block"),
        ("agent_hooks.reason", "no force pushes"),
        ("agent_hooks.answered_by", "resident"),
        ("agent_hooks.exit_code", "2"),
        ("agent_hooks.hook_count", "1"),
        (
            "agent_hooks.tool.input",
            r#"{"command":"git push --force"}"#,
        ),
    ] {
        assert_eq!(attribute(block, key).as_deref(), Some(value), "{key}");
    }
    let hooks: Value =
        serde_json::from_str(&attribute(block, "agent_hooks.hooks").unwrap_or_default())
            .expect("the hooks as JSON");
    assert_eq!(hooks[0]["answer"], "block");
    assert_eq!(hooks[0]["reason"], "no force pushes");
    // The exported record is the local one: its hash is the one the chain holds.
    let local = local_records(&rig);
    assert_eq!(
        attribute(block, "agent_hooks.record.hash").as_deref(),
        local[0]["hash"].as_str()
    );
    assert_eq!(records[1].severity_text, "INFO");
    assert_eq!(
        attribute(&records[1], "agent_hooks.decision").as_deref(),
        Some("none")
    );
    let said = doctor(&rig, &collector.endpoint());
    assert!(!said.contains("decision export"), "all is well: {said}");
}

#[test]
fn a_collector_away_costs_no_event_is_told_by_doctor_and_gets_the_records_when_back() {
    // A port on loopback nobody listens on, for now.
    let port = TcpListener::bind("127.0.0.1:0")
        .expect("a port")
        .local_addr()
        .expect("its address")
        .port();
    let endpoint = format!("http://127.0.0.1:{port}");
    let rig = Rig::new();
    guard(&rig);
    let blocked = hook(&rig, &endpoint, &pre("s1", "git push --force"));
    assert_eq!(blocked.status.code(), Some(2), "{}", err(&blocked));
    // The exporter has tried and failed: doctor says so, with what waits.
    let progress = rig.home().join(".local/state/agent-hooks/export.json");
    let started = Instant::now();
    while !std::fs::read_to_string(&progress).is_ok_and(|t| t.contains("failing_since")) {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the exporter never said it failed"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let said = doctor(&rig, &endpoint);
    let expected = format!(
        "decision export: the collector at {endpoint}/v1/logs has not taken records since "
    );
    assert!(said.contains(&expected), "{said}");
    assert!(
        said.contains("records waiting in the records file: 1, sent when it takes them"),
        "{said}"
    );
    let log = std::fs::read_to_string(rig.resident_folder().join("serve.log")).unwrap_or_default();
    assert!(
        log.contains(&format!(
            "records could not be sent to the collector at {endpoint}/v1/logs"
        )),
        "{log}"
    );
    // The collector comes back on its port: the waiting record reaches it.
    let collector = Receiver::on(TcpListener::bind(("127.0.0.1", port)).expect("the port again"));
    let records = collector.records(1);
    assert_eq!(records.len(), 1);
    assert_eq!(
        attribute(&records[0], "agent_hooks.reason").as_deref(),
        Some("no force pushes")
    );
    let started = Instant::now();
    while doctor(&rig, &endpoint).contains("decision export") {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "doctor still says the collector is away"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn a_wrong_export_setting_is_told_by_doctor_and_the_events_are_answered() {
    let rig = Rig::new();
    guard(&rig);
    rig.write(
        "home/.config/agent-hooks/settings.json",
        r#"{"decisions": {"export": {"endpoint": "https://collector.example:4318", "certificate": "/nowhere/ca.pem"}}}"#,
    );
    let blocked = hook(&rig, "", &pre("s1", "git push --force"));
    assert_eq!(blocked.status.code(), Some(2), "{}", err(&blocked));
    let said = doctor(&rig, "");
    assert!(
        said.contains(
            "decision export: the certificate authority file /nowhere/ca.pem cannot be read: "
        ),
        "{said}"
    );
}

#[test]
fn records_reach_a_collector_over_tls_that_checks_the_clients_certificate() {
    let rig = Rig::new();
    guard(&rig);
    let authority = Authority::new(rig.root(), true);
    let ca = authority.certificate.display().to_string();
    let collector = Receiver::tls(authority);
    let endpoint = collector.endpoint();
    let client = rig.root().join("client.pem").display().to_string();
    let key = rig.root().join("client.key").display().to_string();
    let vars = [
        ("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint.as_str()),
        ("OTEL_EXPORTER_OTLP_CERTIFICATE", ca.as_str()),
        ("OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE", client.as_str()),
        ("OTEL_EXPORTER_OTLP_CLIENT_KEY", key.as_str()),
    ];
    let blocked = hook_with(&rig, &vars, &pre("s1", "git push --force"));
    assert_eq!(blocked.status.code(), Some(2), "{}", err(&blocked));
    let records = collector.records(1);
    assert_eq!(records.len(), 1, "the record crossed TLS");
    assert_eq!(
        attribute(&records[0], "agent_hooks.reason").as_deref(),
        Some("no force pushes")
    );
    assert_eq!(
        collector.got.lock().expect("the receiver's list")[0].path,
        "/v1/logs"
    );
    let said = doctor_with(&rig, &vars);
    assert!(!said.contains("decision export"), "all is well: {said}");
}

#[test]
fn a_collector_whose_certificate_is_not_trusted_gets_nothing_and_doctor_says_why() {
    let rig = Rig::new();
    guard(&rig);
    // Its authority is in no trusted store, and no variable names it.
    let collector = Receiver::tls(Authority::new(rig.root(), false));
    let endpoint = collector.endpoint();
    let blocked = hook(&rig, &endpoint, &pre("s1", "git push --force"));
    assert_eq!(blocked.status.code(), Some(2), "{}", err(&blocked));
    let progress = rig.home().join(".local/state/agent-hooks/export.json");
    let started = Instant::now();
    while !std::fs::read_to_string(&progress).is_ok_and(|t| t.contains("failing_since")) {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the exporter never said it failed"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let said = doctor(&rig, &endpoint);
    assert!(
        said.contains(&format!(
            "decision export: the collector at {endpoint}/v1/logs has not taken records since "
        )) && said.contains("UnknownIssuer"),
        "{said}"
    );
    assert!(collector.records(0).is_empty(), "nothing crossed");
}
