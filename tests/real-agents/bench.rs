//! The cost of one Python guard per event inside each real agent: as the agent's own
//! one-shot command hook, against the same guard as a long-running hook of agent-hooks
//! reached through the agent's one entry (`agent-hooks-hook --agent NAME`, the resident
//! process warm). Measured from the agent's side: the model asks for `REAL_AGENTS_BENCH_CALLS` (12) shell commands
//! in a row, each writing a timestamp; the gaps between consecutive timestamps are the
//! agent's turn (the model's answer, its own work, the `PreToolUse` hook, the tool's start).
//! The same session without hooks gives the floor, so a hook's cost per event is the median
//! gap with it less the median gap without. The three kinds of session are interleaved,
//! `REAL_AGENTS_BENCH_ROUNDS` (5) times, in a rotating order. The first timestamp comes after the session's first
//! hook, so the gaps hold no start-up: a resident process and a long-running guard already
//! started, as in a session after its first tool call.
//!
//! Ignored in a plain `cargo test`; `tests/real-agents/bench` runs it and prints the table.
//! A measurement, never an assertion: the figures go into BENCHMARKS.md.

#[allow(dead_code)]
#[path = "agents.rs"]
mod agents;
#[allow(dead_code)]
#[path = "model.rs"]
mod model;

use std::{path::PathBuf, process::Command};

use agents::{Agent, Run};
use serde_json::{json, Value};

/// The guard as a one-shot hook: reads the agent's payload, looks for `rm -rf /`, exits 0.
const ONE_SHOT: &str = r#"import json, re, sys
payload = json.load(sys.stdin)
if re.search(r"rm\s+-rf\s+/(\s|$)", json.dumps(payload)):
    print("blocked: rm -rf /", file=sys.stderr)
    sys.exit(2)
"#;

/// The same guard, long-running (agent-hooks' line protocol); it notes each start in the
/// file its first argument names, and counts its events in the second.
const LONG_RUNNING: &str = r#"import json, os, re, sys
with open(sys.argv[1], "a") as f:
    f.write("%d\n" % os.getpid())
events = open(sys.argv[2], "a")
def send(m):
    sys.stdout.write(json.dumps(m) + "\n"); sys.stdout.flush()
send({"type": "hello", "protocol": 1, "name": "guard"})
for line in sys.stdin:
    m = json.loads(line)
    if m.get("type") == "event":
        events.write("e\n"); events.flush()
        if re.search(r"rm\s+-rf\s+/(\s|$)", json.dumps(m.get("payload"))):
            send({"type": "answer", "id": m["id"], "output": {"decision": "block",
                  "reason": "blocked: rm -rf /"}})
        else:
            send({"type": "answer", "id": m["id"]})
    elif m.get("type") == "goodbye":
        break
"#;

/// The kinds of session, in the order of the first round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// No hook: the agent's turn alone.
    None,
    /// The guard as the agent's own one-shot command hook.
    OneShot,
    /// The guard long-running under agent-hooks, through the relay as the agent's command.
    Resident,
    /// The guard long-running under agent-hooks, through Claude Code's HTTP hook to the
    /// resident process's 127.0.0.1 listener (`install --agent claude --http`).
    Http,
    /// The least a command entry can cost in this agent: its own spawn of a small static
    /// program that reads its stdin and exits 0.
    Floor,
    /// The least an HTTP hook can cost in Claude Code: the same entry to a bare HTTP server
    /// (in this process) that answers `{}` at once.
    HttpFloor,
}

/// The kinds measured under `agent`.
fn kinds(agent: Agent) -> Vec<Kind> {
    let mut kinds = vec![Kind::None, Kind::OneShot, Kind::Resident, Kind::Floor];
    if agent == Agent::Claude {
        kinds.extend([Kind::Http, Kind::HttpFloor]);
    }
    kinds
}

/// The floor's program, in C: reads its stdin to the end (as a hook does) and exits 0.
const FLOOR_C: &str =
    "#include <unistd.h>\nint main(void){char b[65536];while(read(0,b,sizeof b)>0);return 0;}\n";

/// A secret for the HTTP sessions (any 64 hex digits do: it is the run's own home).
const SECRET: &str = "5ec7e75ec7e75ec7e75ec7e75ec7e75ec7e75ec7e75ec7e75ec7e75ec7e75ec7";

/// A bare HTTP server on 127.0.0.1 that answers every request `{}`, each connection in a
/// thread, kept alive; gives its port. It lives as long as the test process.
fn http_floor() -> u16 {
    use std::io::{BufRead, BufReader, Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("address").port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || {
                let _ = stream.set_nodelay(true);
                let Ok(mut writer) = stream.try_clone() else {
                    return;
                };
                let mut reader = BufReader::new(stream);
                loop {
                    let mut length = 0;
                    loop {
                        let mut line = String::new();
                        if reader.read_line(&mut line).unwrap_or(0) == 0 {
                            return;
                        }
                        if line == "\r\n" {
                            break;
                        }
                        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                            length = v.trim().parse().unwrap_or(0);
                        }
                    }
                    let mut body = vec![0; length];
                    if reader.read_exact(&mut body).is_err() {
                        return;
                    }
                    let answer = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}";
                    if writer.write_all(answer.as_bytes()).is_err() {
                        return;
                    }
                }
            });
        }
    });
    port
}

/// Builds the floor's program (`cc -static -O2`) into the tests' target folder.
fn floor_program() -> PathBuf {
    let dir = agent_hooks_tests::target_dir().join("real-agents");
    std::fs::create_dir_all(&dir).expect("target folder");
    let source = dir.join("floor-hook.c");
    let program = dir.join("floor-hook");
    std::fs::write(&source, FLOOR_C).expect("write");
    let status = Command::new("cc")
        .args(["-static", "-O2", "-o"])
        .arg(&program)
        .arg(&source)
        .status()
        .expect("cc runs");
    assert!(status.success(), "cc -static failed");
    program
}

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// `agent-hooks` and its relay `agent-hooks-hook`, built with `--release` (what a user
/// installs), into the tests' target folder. Gives the relay.
fn release_relay() -> PathBuf {
    let status = agent_hooks_tests::cargo_command()
        .args([
            "build",
            "-j2",
            "--release",
            "-p",
            "agent-hooks-cli",
            "--bins",
        ])
        .arg("--manifest-path")
        .arg(agent_hooks_tests::workspace_root().join("Cargo.toml"))
        .arg("--target-dir")
        .arg(agent_hooks_tests::target_dir())
        .status()
        .expect("cargo runs");
    assert!(status.success());
    let relay = agent_hooks_tests::target_dir().join("release/agent-hooks-hook");
    assert!(relay.is_file(), "{}", relay.display());
    relay
}

/// The agent's own hooks map with one `PreToolUse` command hook (no matcher: the shell is
/// the only tool called), in the agent's names and units.
fn hooks_map(agent: Agent, command: &str) -> Value {
    match agent {
        Agent::Claude | Agent::Codex | Agent::Droid => {
            json!({"PreToolUse": [{"hooks": [{"type": "command", "command": command, "timeout": 30}]}]})
        }
        Agent::Gemini => {
            json!({"BeforeTool": [{"hooks": [{"type": "command", "name": "guard", "command": command, "timeout": 30000}]}]})
        }
        Agent::Copilot => unreachable!("Copilot CLI's hooks go into .github/hooks"),
        Agent::Qwen => unreachable!("the bench does not run Qwen Code"),
    }
}

/// Claude Code's own timing of its `PreToolUse` hooks, from its `--include-hook-events`
/// stream as read (each line after the time it was read, [`agents::STAMP_HOOK_EVENTS`]):
/// from `hook_started` to `hook_response` of each hook, in milliseconds, but the first
/// event's (which may start the resident process).
fn hook_times(stdout: &str) -> Vec<f64> {
    let mut started = std::collections::HashMap::new();
    let mut times = Vec::new();
    for line in stdout.lines() {
        let Some((at, json)) = line.split_once(' ') else {
            continue;
        };
        let (Ok(at), Ok(event)) = (at.parse::<u128>(), serde_json::from_str::<Value>(json)) else {
            continue;
        };
        if event["hook_event"] != "PreToolUse" {
            continue;
        }
        let id = event["hook_id"].as_str().unwrap_or_default().to_owned();
        match event["subtype"].as_str() {
            Some("hook_started") => {
                started.insert(id, at);
            }
            Some("hook_response") => {
                if let Some(from) = started.remove(&id) {
                    times.push(at.saturating_sub(from) as f64 / 1e6);
                }
            }
            _ => {}
        }
    }
    if !times.is_empty() {
        times.remove(0);
    }
    times
}

/// One session of `kind`: the gaps between its tool calls, and Claude Code's own timing of
/// its hooks (empty under the other agents), in milliseconds.
fn session(
    agent: Agent,
    kind: Kind,
    install: &std::path::Path,
    relay: &std::path::Path,
    floor: &std::path::Path,
) -> (Vec<f64>, Vec<f64>) {
    let calls = env_number("REAL_AGENTS_BENCH_CALLS", 12);
    // Each command differs (a comment with its number): Gemini CLI stops a session that
    // repeats one call ("Loop detected") after a few.
    let script: Vec<String> = (0..calls)
        .map(|i| format!("date +%s%N >> stamps.txt # {i}"))
        .collect();
    let script: Vec<&str> = script.iter().map(String::as_str).collect();
    let model = model::FakeModel::start_script(&script);
    let run = Run::new();
    let guard = run.write("home/guard.py", ONE_SHOT);
    let command = match kind {
        Kind::None => None,
        Kind::OneShot => Some(format!("python3 '{}'", guard.display())),
        Kind::Floor | Kind::HttpFloor => Some(format!("'{}'", floor.display())),
        Kind::Resident | Kind::Http => {
            let dir = run.home().join(".config/agent-hooks/hooks");
            std::fs::create_dir_all(&dir).expect("hooks folder");
            std::fs::write(dir.join("guard.py"), LONG_RUNNING).expect("write");
            let hooks = json!({"PreToolUse": [{"hooks": [{"type": "command",
                "command": format!("python3 '{}' '{}' '{}'", dir.join("guard.py").display(),
                    run.home().join("guard-starts").display(),
                    run.home().join("guard-events").display()),
                "persistent": true, "timeout": 10}]}]});
            std::fs::write(dir.join("guard.json"), hooks.to_string()).expect("write");
            let event = if agent == Agent::Copilot {
                " --event preToolUse"
            } else {
                ""
            };
            Some(format!(
                "'{}' --agent {}{event}",
                relay.display(),
                match agent {
                    Agent::Claude => "claude",
                    Agent::Codex => "codex",
                    Agent::Gemini => "gemini",
                    Agent::Copilot => "copilot",
                    Agent::Qwen => "qwen",
                    Agent::Droid => "droid",
                }
            ))
        }
    };
    let hooks = match (&command, agent) {
        (Some(_), Agent::Claude) if kind == Kind::HttpFloor => {
            let port = http_floor();
            json!({"PreToolUse": [{"hooks": [{"type": "http",
                "url": format!("http://127.0.0.1:{port}/hook/claude"), "timeout": 30}]}]})
        }
        (Some(command), Agent::Claude) if kind == Kind::Http => {
            // What `install --agent claude --http` writes, for PreToolUse alone; SessionStart
            // keeps the command entry that starts the resident process, which then listens
            // on the port of `http.json`.
            let port = std::net::TcpListener::bind("127.0.0.1:0")
                .and_then(|l| l.local_addr())
                .expect("a free port")
                .port();
            run.write(
                "home/.config/agent-hooks/http.json",
                &json!({"port": port, "secret": SECRET}).to_string(),
            );
            json!({
                "SessionStart": [{"hooks": [{"type": "command", "command": command, "timeout": 30}]}],
                "PreToolUse": [{"hooks": [{"type": "http",
                    "url": format!("http://127.0.0.1:{port}/hook/claude"),
                    "headers": {"X-Agent-Hooks-Secret": SECRET}, "timeout": 30}]}],
            })
        }
        (Some(command), a) if a != Agent::Copilot => hooks_map(agent, command),
        _ => json!({}),
    };
    let settings = agents::configure(agent, &run, model.port(), &hooks);
    if agent == Agent::Copilot {
        std::fs::remove_file(&settings).expect("remove");
        if let Some(command) = &command {
            run.write(
                "project/.github/hooks/guard.json",
                &json!({"version": 1, "hooks": {"preToolUse": [
                    {"type": "command", "bash": command, "timeoutSec": 30}]}})
                .to_string(),
            );
        }
    }
    let outcome = agents::launch(agent, install, &run, model.port());
    if matches!(kind, Kind::Resident | Kind::Http) {
        // Outside the hooks folder: a change there makes the resident process build the
        // session again.
        let starts = std::fs::read_to_string(run.home().join("guard-starts")).unwrap_or_default();
        let events = std::fs::read_to_string(run.home().join("guard-events")).unwrap_or_default();
        eprintln!(
            "{}: the long-running guard started {} time(s) in one session",
            agent.name(),
            starts.lines().count()
        );
        // Each tool call went through agent-hooks to the guard (through the HTTP hook too).
        assert!(
            events.lines().count() >= calls,
            "{} {kind:?}: the guard saw {} events for {calls} calls\n{}",
            agent.name(),
            events.lines().count(),
            outcome.describe()
        );
    }
    let stamps: Vec<u64> = std::fs::read_to_string(run.project().join("stamps.txt"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect();
    assert_eq!(
        stamps.len(),
        calls,
        "{} {kind:?}: {} of {calls} calls ran\n{}",
        agent.name(),
        stamps.len(),
        outcome.describe()
    );
    let gaps = stamps
        .windows(2)
        .map(|w| (w[1].saturating_sub(w[0])) as f64 / 1e6)
        .collect();
    (gaps, hook_times(&outcome.stdout))
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(|a, b| a.total_cmp(b));
    let n = values.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}

/// The median of each round's median gap of `kind` less the same round's median gap
/// without hooks, and the least and greatest of those per-round differences.
fn per_round(rounds: &[Vec<Vec<f64>>], k: usize) -> (f64, f64, f64) {
    let mut diffs: Vec<f64> = rounds
        .iter()
        .map(|round| median(&mut round[k].clone()) - median(&mut round[0].clone()))
        .collect();
    let low = diffs.iter().copied().fold(f64::INFINITY, f64::min);
    let high = diffs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (median(&mut diffs), low, high)
}

/// Runs the interleaved rounds for `agent` and prints its row.
fn measure(agent: Agent) {
    let rounds = env_number("REAL_AGENTS_BENCH_ROUNDS", 5);
    let install = agents::install_dir();
    let relay = release_relay();
    let floor = floor_program();
    let kinds = kinds(agent);
    agents::STAMP_HOOK_EVENTS.store(agent == Agent::Claude, std::sync::atomic::Ordering::Relaxed);
    // Per round, per kind, the gaps; per kind, the agent's own timing of its hooks.
    let mut all: Vec<Vec<Vec<f64>>> = Vec::new();
    let mut own: Vec<Vec<f64>> = vec![Vec::new(); kinds.len()];
    for round in 0..rounds {
        let mut this = vec![Vec::new(); kinds.len()];
        for i in 0..kinds.len() {
            let k = (round + i) % kinds.len();
            let (gaps, times) = session(agent, kinds[k], &install, &relay, &floor);
            this[k] = gaps;
            own[k].extend(times);
        }
        all.push(this);
    }
    let pooled = |k: usize| median(&mut all.iter().flat_map(|r| r[k].clone()).collect::<Vec<_>>());
    let none = pooled(0);
    let cost = |k: usize| pooled(k) - none;
    let (one_shot, resident, floor_cost) = (cost(1), cost(2), cost(3));
    let gaps = all.first().map_or(0, |r| r[0].len());
    println!(
        "| {} | {none:.1} ms | {:.1} ms | {:.1} ms | {one_shot:.1} ms | {resident:.1} ms | {:.1}x | {rounds} x {gaps} gaps |",
        agent.name(),
        pooled(1),
        pooled(2),
        one_shot / resident,
    );
    let name = |k: Kind| match k {
        Kind::None => "no hook",
        Kind::OneShot => "one-shot guard",
        Kind::Resident => "long-running guard, relay",
        Kind::Http => "long-running guard, HTTP hook",
        Kind::Floor => "floor: a static program as the command",
        Kind::HttpFloor => "floor of an HTTP hook: a bare server answering {}",
    };
    for (k, kind) in kinds.iter().enumerate().skip(1) {
        let (mid, low, high) = per_round(&all, k);
        println!(
            "- {}: {}: per event {:.2} ms (pooled), per round {mid:.2} ms [{low:.2} .. {high:.2}]; one-shot / this {:.1}x",
            agent.name(),
            name(*kind),
            cost(k),
            one_shot / cost(k),
        );
    }
    if agent == Agent::Claude {
        let one_shot_own = median(&mut own[1].clone());
        for (k, kind) in kinds.iter().enumerate().skip(1) {
            let n = own[k].len();
            let this = median(&mut own[k].clone());
            println!(
                "- {}: {} as Claude Code times it (hook_started to hook_response): {this:.2} ms, median of {n}; one-shot / this {:.1}x",
                agent.name(),
                name(*kind),
                one_shot_own / this
            );
        }
    }
    println!(
        "- {}: the one-shot guard / the floor of a command entry: {:.1}x reachable at most through a command entry",
        agent.name(),
        one_shot / floor_cost
    );
}

#[test]
#[ignore = "a measurement: tests/real-agents/bench"]
fn guard_cost_under_claude_code() {
    measure(Agent::Claude);
}

#[test]
#[ignore = "a measurement: tests/real-agents/bench"]
fn guard_cost_under_codex_cli() {
    measure(Agent::Codex);
}

#[test]
#[ignore = "a measurement: tests/real-agents/bench"]
fn guard_cost_under_gemini_cli() {
    measure(Agent::Gemini);
}

#[test]
#[ignore = "a measurement: tests/real-agents/bench"]
fn guard_cost_under_copilot_cli() {
    measure(Agent::Copilot);
}

/// How a Claude Code session of the wiring bench is wired.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wired {
    /// Not at all: Claude Code without agent-hooks.
    Not,
    /// `agent-hooks install --agent claude --project` with no hook: the events some hook
    /// uses (none) and `SessionStart`.
    Lean,
    /// The relay's entry on every event `install` can wire, as `install` wrote before it
    /// wired only the events hooks use.
    Every,
}

/// One session of `wired` with no hook of agent-hooks: its whole time (from the start of
/// `claude -p` to its end) and the gaps between its tool calls, in milliseconds.
fn wired_session(
    wired: Wired,
    install: &std::path::Path,
    program: &std::path::Path,
) -> (f64, Vec<f64>) {
    let calls = env_number("REAL_AGENTS_BENCH_CALLS", 12);
    let script: Vec<String> = (0..calls)
        .map(|i| format!("date +%s%N >> stamps.txt # {i}"))
        .collect();
    let script: Vec<&str> = script.iter().map(String::as_str).collect();
    let model = model::FakeModel::start_script(&script);
    let run = Run::new();
    let relay = program.with_file_name("agent-hooks-hook");
    let hooks = match wired {
        Wired::Every => {
            let entry = json!([{"hooks": [{"type": "command",
                "command": format!("'{}' --agent claude", relay.display())}]}]);
            Value::Object(
                agent_hooks::agents::Agent::ClaudeCode
                    .profile()
                    .installed_events
                    .iter()
                    .map(|e| ((*e).to_owned(), entry.clone()))
                    .collect(),
            )
        }
        Wired::Not | Wired::Lean => json!({}),
    };
    agents::configure(Agent::Claude, &run, model.port(), &hooks);
    if wired == Wired::Lean {
        let out = Command::new(program)
            .args(["install", "--agent", "claude", "--project"])
            .current_dir(run.project())
            .env("HOME", run.home())
            .env_remove("XDG_CONFIG_HOME")
            .output()
            .expect("agent-hooks runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = std::fs::read_to_string(run.project().join(".claude/settings.json"))
            .expect("installed");
        assert!(
            text.contains("SessionStart") && !text.contains("PreToolUse"),
            "{text}"
        );
    }
    let outcome = agents::launch(Agent::Claude, install, &run, model.port());
    let stamps: Vec<u64> = std::fs::read_to_string(run.project().join("stamps.txt"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect();
    assert_eq!(
        stamps.len(),
        calls,
        "{wired:?}: {} of {calls} calls ran\n{}",
        stamps.len(),
        outcome.describe()
    );
    let gaps = stamps
        .windows(2)
        .map(|w| (w[1].saturating_sub(w[0])) as f64 / 1e6)
        .collect();
    (outcome.took.as_secs_f64() * 1e3, gaps)
}

/// What the wiring costs a Claude Code session with no hook of agent-hooks: sessions not
/// wired, wired by `install` (SessionStart and UserPromptSubmit), and wired on every event as before, in
/// rotating order, `REAL_AGENTS_BENCH_ROUNDS` (5) rounds of `REAL_AGENTS_BENCH_CALLS` (12)
/// tool calls each. Prints, per kind, the median whole session and the median gap between
/// tool calls (the agent's turn with its hooks), and each against the unwired sessions.
#[test]
#[ignore = "a measurement: tests/real-agents/bench wiring"]
fn wiring_cost_under_claude_code() {
    let rounds = env_number("REAL_AGENTS_BENCH_ROUNDS", 5);
    let install = agents::install_dir();
    let program = release_relay().with_file_name("agent-hooks");
    let kinds = [Wired::Not, Wired::Lean, Wired::Every];
    let mut sessions: Vec<Vec<f64>> = vec![Vec::new(); kinds.len()];
    let mut gaps: Vec<Vec<f64>> = vec![Vec::new(); kinds.len()];
    // Per round, each kind's session time over the unwired session's of that round.
    let mut ratios: Vec<Vec<f64>> = vec![Vec::new(); kinds.len()];
    for round in 0..rounds {
        let mut this = [0.0; 3];
        for i in 0..kinds.len() {
            let k = (round + i) % kinds.len();
            let (took, g) = wired_session(kinds[k], &install, &program);
            this[k] = took;
            sessions[k].push(took);
            gaps[k].extend(g);
        }
        for k in 0..kinds.len() {
            ratios[k].push(this[k] / this[0]);
        }
    }
    let name = |k: Wired| match k {
        Wired::Not => "not wired",
        Wired::Lean => "wired by install, no hook (SessionStart and UserPromptSubmit)",
        Wired::Every => "wired on every event, no hook (as before)",
    };
    let none_session = median(&mut sessions[0].clone());
    let none_gap = median(&mut gaps[0].clone());
    let calls = env_number("REAL_AGENTS_BENCH_CALLS", 12);
    for (k, kind) in kinds.iter().enumerate() {
        let session = median(&mut sessions[k].clone());
        let gap = median(&mut gaps[k].clone());
        println!(
            "| claude, {} | {session:.0} ms | {:.2}x (per round {:.2}x) | {gap:.1} ms | {:.2}x | {rounds} x {calls} calls |",
            name(*kind),
            session / none_session,
            median(&mut ratios[k].clone()),
            gap / none_gap,
        );
    }
}
