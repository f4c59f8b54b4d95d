//! `agent-hooks serve`, the resident process `hook` talks to, through the real program:
//! started by the first `hook` call, one only, warm between calls, sessions kept apart,
//! changed hooks files seen, a malformed request answered with an error, and `hook`
//! answering itself when the resident process dies mid-call.

use std::{
    io::{Read, Write},
    os::unix::{fs::PermissionsExt, net::UnixStream},
    path::{Path, PathBuf},
    process::{Command, Output, Stdio},
    time::{Duration, Instant},
};

use agent_hooks_tests::{
    agent_hooks_bin,
    rig::{Resident, Rig},
};
use serde_json::json;

/// The resident process's log, for a rig whose `hook` calls started it.
trait Served {
    /// The pids its log says it started as.
    fn serve_pids(&self) -> Vec<String>;
}

impl Served for Rig {
    fn serve_pids(&self) -> Vec<String> {
        let log =
            std::fs::read_to_string(self.resident_folder().join("serve.log")).unwrap_or_default();
        log.lines()
            .filter_map(|l| l.strip_prefix("agent-hooks serve: pid "))
            .filter_map(|l| l.split(' ').next())
            .map(str::to_owned)
            .collect()
    }
}

fn pre(session: &str, command: &str) -> String {
    json!({"session_id": session, "hook_event_name": "PreToolUse", "tool_name": "Bash",
           "tool_input": {"command": command}})
    .to_string()
}

fn err(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A long-running hook that writes its pid into `pids` on every event and blocks `rm -rf`.
fn long_running_guard(rig: &Rig) -> PathBuf {
    let pids = rig.root().join("pids");
    python_guard(rig, json!(true), &pids, r#"str(os.getpid()) + "\n""#);
    pids
}

/// A long-running Python guard, marked `persistent`, that appends `written` (a Python
/// expression over the event message `m`) to `file` on every event and blocks `rm -rf`.
fn python_guard(rig: &Rig, persistent: serde_json::Value, file: &Path, written: &str) {
    let script = format!(
        r#"import json, os, sys
def send(m):
    sys.stdout.write(json.dumps(m) + "\n"); sys.stdout.flush()
send({{"type": "hello", "protocol": 1, "name": "guard"}})
for line in sys.stdin:
    m = json.loads(line)
    if m.get("type") == "event":
        open({file:?}, "a").write({written})
        command = (m["payload"].get("tool_input") or {{}}).get("command", "")
        if "rm -rf" in command:
            send({{"type": "answer", "id": m["id"], "block": "the guard refuses rm -rf"}})
        else:
            send({{"type": "answer", "id": m["id"]}})
    elif m.get("type") == "goodbye":
        break
"#,
        file = file.display().to_string()
    );
    let path = rig.user_hooks().join("guard.py");
    std::fs::write(&path, script).unwrap();
    let hooks = json!({"PreToolUse": [{"matcher": "exec", "hooks": [{"type": "command",
        "command": format!("python3 {}", path.display()), "persistent": persistent, "timeout": 10}]}]});
    std::fs::write(rig.user_hooks().join("guard.json"), hooks.to_string()).unwrap();
}

#[test]
fn the_first_hook_starts_it_and_the_next_events_reuse_its_warm_hooks() {
    let rig = Rig::new();
    let pids = long_running_guard(&rig);
    let out = rig.hook(&pre("s1", "rm -rf /"));
    assert_eq!(out.status.code(), Some(2), "{}", err(&out));
    assert!(
        err(&out).contains("the guard refuses rm -rf"),
        "{}",
        err(&out)
    );
    for _ in 0..3 {
        let out = rig.hook(&pre("s1", "ls"));
        assert_eq!(out.status.code(), Some(0), "{}", err(&out));
        assert_eq!(err(&out), "");
    }
    let seen = std::fs::read_to_string(&pids).unwrap();
    let seen: Vec<&str> = seen.lines().collect();
    assert_eq!(seen.len(), 4);
    assert!(
        seen.iter().all(|p| *p == seen[0]),
        "one guard process served the four events: {seen:?}"
    );
    assert_eq!(rig.serve_pids().len(), 1);
    let mode = std::fs::metadata(rig.resident_folder())
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o700);
}

#[test]
fn one_resident_process_whatever_the_race() {
    let rig = Rig::new();
    let children: Vec<_> = (0..6)
        .map(|i| {
            let mut child = rig
                .command(&["hook", "--agent", "claude"])
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            let payload = pre(&format!("s{i}"), "ls");
            child
                .stdin
                .take()
                .unwrap()
                .write_all(payload.as_bytes())
                .unwrap();
            child
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", err(&out));
    }
    std::thread::sleep(Duration::from_millis(300));
    let log = std::fs::read_to_string(rig.resident_folder().join("serve.log")).unwrap();
    let listening = log.matches("listening on").count();
    assert_eq!(listening, 1, "{log}");
}

#[test]
fn a_slow_hook_of_one_session_does_not_hold_another() {
    let rig = Rig::new();
    let slow = json!({"PreToolUse": [{"matcher": "exec", "hooks": [{"type": "command",
        "command": "grep -q slow-one && sleep 4; exit 0", "timeout": 10}]}]});
    std::fs::write(rig.user_hooks().join("slow.json"), slow.to_string()).unwrap();
    // Start the resident process first.
    assert_eq!(rig.hook(&pre("warm", "ls")).status.code(), Some(0));
    let mut a = rig
        .command(&["hook", "--agent", "claude"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    a.stdin
        .take()
        .unwrap()
        .write_all(pre("session-a", "echo slow-one").as_bytes())
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let started = Instant::now();
    let b = rig.hook(&pre("session-b", "ls"));
    let took = started.elapsed();
    assert_eq!(b.status.code(), Some(0), "{}", err(&b));
    assert!(took < Duration::from_secs(3), "session b waited {took:?}");
    assert_eq!(a.wait().unwrap().code(), Some(0));
}

#[test]
fn a_changed_hooks_file_is_seen_on_the_next_event() {
    let rig = Rig::new();
    assert_eq!(rig.hook(&pre("s", "rm -rf x")).status.code(), Some(0));
    let guard = json!({"PreToolUse": [{"matcher": "exec", "hooks": [{"type": "command",
        "command": "echo 'new guard' >&2; exit 2"}]}]});
    std::fs::write(rig.user_hooks().join("new.json"), guard.to_string()).unwrap();
    let out = rig.hook(&pre("s", "rm -rf x"));
    assert_eq!(out.status.code(), Some(2), "{}", err(&out));
    assert!(err(&out).contains("new guard"));
    assert_eq!(rig.serve_pids().len(), 1, "the same resident process");
}

#[test]
fn a_malformed_request_gets_an_error_and_the_process_goes_on() {
    let rig = Rig::new();
    assert_eq!(rig.hook(&pre("s", "ls")).status.code(), Some(0));
    let socket = rig.resident_folder().join("serve.sock");
    // The last one longer than a header may be (1 MiB).
    let long = vec![b'x'; 1_100_000];
    for garbage in [&b"not json\n"[..], b"{\"v\": 99}\n", &long[..]] {
        let mut stream = UnixStream::connect(&socket).unwrap();
        let _ = stream.write_all(garbage);
        let _ = stream.shutdown(std::net::Shutdown::Write);
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        let answer: serde_json::Value = serde_json::from_str(answer.trim()).unwrap();
        assert_eq!(answer["code"], 1);
        assert!(
            answer["stderr"]
                .as_str()
                .unwrap()
                .starts_with("agent-hooks serve: "),
            "{answer}"
        );
    }
    let out = rig.hook(&pre("s", "ls"));
    assert_eq!(out.status.code(), Some(0), "{}", err(&out));
    assert_eq!(rig.serve_pids().len(), 1);
}

fn kill(pid: &str) {
    let _ = Command::new("kill").args(["-9", pid]).status();
}

#[test]
fn killed_mid_call_the_hook_answers_itself_and_says_so() {
    let rig = Rig::new();
    let hooks = json!({"PreToolUse": [{"matcher": "exec", "hooks": [{"type": "command",
        "command": "sleep 1; grep -q 'rm -rf' && { echo blocked >&2; exit 2; }; exit 0", "timeout": 10}]}]});
    std::fs::write(rig.user_hooks().join("slow-guard.json"), hooks.to_string()).unwrap();
    assert_eq!(rig.hook(&pre("s", "ls")).status.code(), Some(0));
    let pid = rig.serve_pids()[0].clone();
    let folder = rig.resident_folder();
    let killer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(400));
        kill(&pid);
        folder
    });
    let out = rig.hook(&pre("s", "rm -rf /"));
    killer.join().unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "the answer is not lost: {}",
        err(&out)
    );
    assert!(
        err(&out).contains("the resident process could not answer"),
        "{}",
        err(&out)
    );
    // The next event starts a new one.
    let out = rig.hook(&pre("s", "ls"));
    assert_eq!(out.status.code(), Some(0), "{}", err(&out));
    assert_eq!(rig.serve_pids().len(), 2);
}

#[test]
fn it_refuses_a_folder_of_another_user_and_the_hook_still_answers() {
    // The folder cannot be made (a file stands where it goes): the hook runs the hooks
    // itself and says why.
    let rig = Rig::new();
    std::fs::create_dir_all(rig.home().join(".cache/agent-hooks")).unwrap();
    std::fs::write(rig.home().join(".cache/agent-hooks/run"), "in the way").unwrap();
    let guard = json!({"PreToolUse": [{"matcher": "exec", "hooks": [{"type": "command",
        "command": "exit 2"}]}]});
    std::fs::write(rig.user_hooks().join("g.json"), guard.to_string()).unwrap();
    let out = rig.hook(&pre("s", "ls"));
    assert_eq!(out.status.code(), Some(2), "{}", err(&out));
    assert!(
        err(&out).contains("the hooks ran in this process"),
        "{}",
        err(&out)
    );
}

#[test]
fn the_relay_program_answers_through_the_resident_process_and_install_uses_it() {
    let rig = Rig::new();
    let pids = long_running_guard(&rig);
    let run_relay = |payload: &str, extra: &[&str]| {
        agent_hooks_tests::cli::output_with(rig.relay().args(extra), payload)
    };
    let out = run_relay(&pre("s1", "rm -rf /"), &[]);
    assert_eq!(out.status.code(), Some(2), "{}", err(&out));
    assert!(
        err(&out).contains("the guard refuses rm -rf"),
        "{}",
        err(&out)
    );
    let out = run_relay(&pre("s1", "ls"), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", err(&out));
    // The same guard process, warm in the resident process, served both.
    let seen = std::fs::read_to_string(&pids).unwrap();
    let seen: Vec<&str> = seen.lines().collect();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[0], seen[1]);
    // An option it does not read itself: agent-hooks hook runs with the same arguments.
    let out = run_relay(&pre("s1", "rm -rf /"), &["--no-serve"]);
    assert_eq!(out.status.code(), Some(2), "{}", err(&out));
    // A malformed payload is agent-hooks' non-blocking error, relayed.
    let out = run_relay("not json", &[]);
    assert_eq!(out.status.code(), Some(1), "{}", err(&out));
    assert!(err(&out).contains("hooks did not run"), "{}", err(&out));
    // install writes the relay into the entry.
    let out = rig
        .command(&["install", "--agent", "claude"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", err(&out));
    let settings = std::fs::read_to_string(rig.home().join(".claude/settings.json")).unwrap();
    assert!(
        settings.contains("agent-hooks-hook' --agent claude"),
        "{settings}"
    );
}

#[test]
fn a_change_that_keeps_the_time_and_size_is_seen_by_watching() {
    // The fallback compares times and sizes: only the watcher sees this change.
    let rig = Rig::new();
    let file = rig.user_hooks().join("g.json");
    let guard = |code: u8| {
        json!({"PreToolUse": [{"matcher": "exec", "hooks": [{"type": "command",
            "command": format!("echo 'guard {code}' >&2; exit {code}")}]}]})
        .to_string()
    };
    std::fs::write(&file, guard(0)).unwrap();
    let out = rig.hook(&pre("s", "ls"));
    assert_eq!(out.status.code(), Some(0), "{}", err(&out));
    let modified = std::fs::metadata(&file).unwrap().modified().unwrap();
    std::fs::write(&file, guard(2)).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&file)
        .unwrap()
        .set_modified(modified)
        .unwrap();
    // The watcher's event arrives within a moment.
    std::thread::sleep(Duration::from_millis(300));
    let out = rig.hook(&pre("s", "ls"));
    assert_eq!(out.status.code(), Some(2), "{}", err(&out));
    assert!(err(&out).contains("guard 2"), "{}", err(&out));
    assert_eq!(rig.serve_pids().len(), 1, "no restart");
    let log = std::fs::read_to_string(rig.resident_folder().join("serve.log")).unwrap();
    assert!(!log.contains("file watching is off"), "{log}");
}

#[test]
fn without_watching_a_changed_file_is_still_seen_and_the_log_says_so() {
    let rig = Rig::new();
    let run = |payload: &str| {
        let mut child = rig
            .command(&["hook", "--agent", "claude"])
            .env("AGENT_HOOKS_SERVE_NO_WATCH", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(payload.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    };
    assert_eq!(run(&pre("s", "ls")).status.code(), Some(0));
    let guard = json!({"PreToolUse": [{"matcher": "exec", "hooks": [{"type": "command",
        "command": "echo 'new guard' >&2; exit 2"}]}]});
    std::fs::write(rig.user_hooks().join("new.json"), guard.to_string()).unwrap();
    let out = run(&pre("s", "ls"));
    assert_eq!(out.status.code(), Some(2), "{}", err(&out));
    let log = std::fs::read_to_string(rig.resident_folder().join("serve.log")).unwrap();
    assert!(log.contains("file watching is off"), "{log}");
}

#[test]
fn trusting_a_project_hook_while_it_runs_is_seen_on_the_next_event() {
    let rig = Rig::new();
    let dir = rig.project().join(".agent-hooks/hooks");
    std::fs::create_dir_all(&dir).unwrap();
    let guard = json!({"PreToolUse": [{"matcher": "exec", "hooks": [{"type": "command",
        "command": "echo 'project guard' >&2; exit 2"}]}]});
    std::fs::write(dir.join("p.json"), guard.to_string()).unwrap();
    let out = rig.hook(&pre("s", "ls"));
    assert_eq!(out.status.code(), Some(0), "untrusted: {}", err(&out));
    let trust = rig.command(&["trust"]).output().unwrap();
    assert!(trust.status.success(), "{}", err(&trust));
    std::thread::sleep(Duration::from_millis(300));
    let out = rig.hook(&pre("s", "ls"));
    assert_eq!(out.status.code(), Some(2), "trusted now: {}", err(&out));
    assert!(err(&out).contains("project guard"));
    // Changed after trust: untrusted again, without a restart.
    std::fs::write(
        dir.join("p.json"),
        guard.to_string().replace("exit 2", "exit 2 "),
    )
    .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let out = rig.hook(&pre("s", "ls"));
    assert_eq!(
        out.status.code(),
        Some(0),
        "changed, untrusted: {}",
        err(&out)
    );
    assert_eq!(rig.serve_pids().len(), 1);
}

#[test]
fn past_its_cap_of_connections_the_client_answers_itself_and_says_so() {
    let rig = Rig::new();
    // The slow hook says when it has started, so that the second call comes while the first
    // holds the one connection, however loaded the machine.
    let started = rig.root().join("slow-started");
    let slow = json!({"PreToolUse": [{"matcher": "exec", "hooks": [{"type": "command",
        "command": format!("p=$(cat); case \"$p\" in *slow-one*) touch '{}'; sleep 5;; esac; case \"$p\" in *'rm -rf'*) echo refused >&2; exit 2;; esac; exit 0", started.display()), "timeout": 15}]}]});
    std::fs::write(rig.user_hooks().join("slow.json"), slow.to_string()).unwrap();
    let spawn = |payload: String| {
        let mut child = rig
            .command(&["hook", "--agent", "claude"])
            .env("AGENT_HOOKS_SERVE_MAX_CONNECTIONS", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(payload.as_bytes())
            .unwrap();
        child
    };
    // Started with a cap of one connection.
    assert_eq!(
        spawn(pre("warm", "ls"))
            .wait_with_output()
            .unwrap()
            .status
            .code(),
        Some(0)
    );
    let a = spawn(pre("session-a", "echo slow-one"));
    let waiting = std::time::Instant::now();
    while !started.exists() {
        assert!(
            waiting.elapsed() < Duration::from_secs(30),
            "the slow hook never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let b = spawn(pre("session-b", "rm -rf x"))
        .wait_with_output()
        .unwrap();
    assert_eq!(
        b.status.code(),
        Some(2),
        "answered all the same: {}",
        err(&b)
    );
    assert!(err(&b).contains("refused"), "{}", err(&b));
    assert!(
        err(&b).contains("it serves 1 connections at once already")
            && err(&b).contains("the hooks ran in this process"),
        "{}",
        err(&b)
    );
    let a = a.wait_with_output().unwrap();
    assert_eq!(a.status.code(), Some(0), "{}", err(&a));
    assert_eq!(err(&a), "", "the first was served by the resident process");
    assert_eq!(rig.serve_pids().len(), 1);
}

#[test]
fn killed_between_events_the_next_event_is_answered() {
    let rig = Rig::new();
    let guard = json!({"PreToolUse": [{"matcher": "exec", "hooks": [{"type": "command",
        "command": "grep -q 'rm -rf' && { echo 'the guard refuses' >&2; exit 2; }; exit 0"}]}]});
    std::fs::write(rig.user_hooks().join("g.json"), guard.to_string()).unwrap();
    assert_eq!(rig.hook(&pre("s", "ls")).status.code(), Some(0));
    let first = rig.serve_pids()[0].clone();
    kill(&first);
    std::thread::sleep(Duration::from_millis(200));
    let out = rig.hook(&pre("s", "rm -rf /"));
    assert_eq!(out.status.code(), Some(2), "{}", err(&out));
    assert!(err(&out).contains("the guard refuses"), "{}", err(&out));
    // A new resident process answered it (the socket of the dead one is replaced).
    let pids = rig.serve_pids();
    assert_eq!(pids.len(), 2, "{pids:?}");
    assert_ne!(pids[1], first);
    let out = rig.hook(&pre("s", "ls"));
    assert_eq!(out.status.code(), Some(0), "{}", err(&out));
    assert_eq!(err(&out), "", "served warm again");
}

#[test]
fn the_agents_own_files_beside_its_settings_do_not_restart_warm_hooks() {
    let rig = Rig::new();
    let pids = long_running_guard(&rig);
    let claude = rig.home().join(".claude");
    std::fs::create_dir_all(&claude).unwrap();
    std::fs::write(claude.join("settings.json"), "{}").unwrap();
    assert_eq!(rig.hook(&pre("s", "ls")).status.code(), Some(0));
    // What Claude Code writes next to its settings as it works.
    std::fs::write(claude.join("history.jsonl"), "{}\n").unwrap();
    std::fs::create_dir_all(claude.join("projects")).unwrap();
    std::fs::write(claude.join("projects/t.jsonl"), "{}\n").unwrap();
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(rig.hook(&pre("s", "ls")).status.code(), Some(0));
    // Its settings changing does build the session again.
    std::fs::write(claude.join("settings.json"), "{\"model\": \"x\"}").unwrap();
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(rig.hook(&pre("s", "ls")).status.code(), Some(0));
    let seen = std::fs::read_to_string(&pids).unwrap();
    let seen: Vec<&str> = seen.lines().collect();
    assert_eq!(seen.len(), 3, "{seen:?}");
    assert_eq!(seen[0], seen[1], "the same warm guard: {seen:?}");
    assert_ne!(
        seen[1], seen[2],
        "started again after the settings changed: {seen:?}"
    );
}

/// A plugin that logs a flood of warnings through the resident process: its log is kept
/// under its limit (`AGENT_HOOKS_SERVE_LOG_LIMIT`), the older records moved to
/// `serve.log.1` and the oldest dropped, the newest kept; the process goes on answering,
/// and `doctor` says it is up and where its log is.
#[test]
fn its_log_stays_under_its_limit_and_keeps_the_newest_records() {
    let rig = Rig::new();
    agent_hooks_tests::copy_to(
        &agent_hooks_tests::plugin("boundary"),
        &rig.user_hooks(),
        "libboundary.so",
    );
    let limit = 64 * 1024;
    let hook = |command: &str| {
        let mut hook = rig.command(&["hook", "--agent", "claude"]);
        hook.env("AGENT_HOOKS_SERVE_LOG_LIMIT", limit.to_string());
        agent_hooks_tests::cli::output_with(&mut hook, &pre("s", command))
    };
    // 40 warnings of some 4.1 KiB: 16 fill a file, so the first 16 are dropped.
    let out = hook("shout 40 4000");
    assert_eq!(out.status.code(), Some(0), "{}", err(&out));
    assert_eq!(err(&out), "");
    let log = std::fs::read_to_string(rig.resident_folder().join("serve.log")).unwrap();
    let older = std::fs::read_to_string(rig.resident_folder().join("serve.log.1")).unwrap();
    for file in [&log, &older] {
        assert!(file.len() <= limit + 8192, "{} bytes", file.len());
    }
    assert!(log.contains("shout 39 "), "the newest record is kept");
    assert!(older.contains("shout 31 ") && !older.contains("shout 15 "));
    assert!(!log.contains("shout 0 ") && !older.contains("shout 0 "));
    let out = hook("ls");
    assert_eq!(
        out.status.code(),
        Some(0),
        "it goes on answering: {}",
        err(&out)
    );
    let mut doctor = rig.command(&["doctor"]);
    doctor.env("AGENT_HOOKS_SERVE_LOG_LIMIT", limit.to_string());
    let doctor = String::from_utf8_lossy(&doctor.output().unwrap().stdout).into_owned();
    let size = std::fs::metadata(rig.resident_folder().join("serve.log"))
        .unwrap()
        .len();
    let expected = format!(
        "  resident process: up, on {}\n  its log: {} ({} KiB, kept under 64 KiB)\n",
        rig.resident_folder().join("serve.sock").display(),
        rig.resident_folder().join("serve.log").display(),
        size.div_ceil(1024)
    );
    assert!(doctor.contains(&expected), "{doctor}");
}

/// A hook of agent-hooks' own that writes, per event, what it got of three variables.
fn environment_recorder(rig: &Rig) -> PathBuf {
    let log = rig.root().join("env.log");
    let record = format!(
        "echo \"${{CLAUDE_CODE_NOT_YET_INVENTED-unset}} ${{CLAUDE_ENV_FILE-unset}} ${{AGENT_HOOKS_PROJECT_DIR-unset}}\" >> {}",
        log.display()
    );
    let hooks = json!({
        "SessionStart": [{"hooks": [{"type": "command", "command": record}]}],
        "PreToolUse": [{"hooks": [{"type": "command", "command": record}]}],
    });
    std::fs::write(rig.user_hooks().join("env.json"), hooks.to_string()).unwrap();
    log
}

/// What the agent gives a hook in its environment reaches the hooks the resident process
/// runs, event by event, whole: a variable no agent sets today is there, and one the agent
/// gave an earlier event only (`CLAUDE_ENV_FILE`, at `SessionStart`) is not.
#[test]
fn the_agents_environment_of_each_event_reaches_its_hooks() {
    let rig = Rig::new();
    let log = environment_recorder(&rig);
    let start = json!({"session_id": "s", "hook_event_name": "SessionStart", "source": "startup"});
    let out = agent_hooks_tests::cli::output_with(
        rig.command(&["hook", "--agent", "claude"])
            .env("CLAUDE_ENV_FILE", "/given/at/start"),
        &start.to_string(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", err(&out));
    let out = agent_hooks_tests::cli::output_with(
        rig.command(&["hook", "--agent", "claude"])
            .env("CLAUDE_CODE_NOT_YET_INVENTED", "42")
            .env("AGENT_HOOKS_PROJECT_DIR", "/not/the/agents/to/give"),
        &pre("s", "ls"),
    );
    assert_eq!(out.status.code(), Some(0), "{}", err(&out));
    assert_eq!(err(&out), "");
    assert_eq!(
        rig.serve_pids().len(),
        1,
        "both through the resident process"
    );
    let project = rig.project().display().to_string();
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        format!("unset /given/at/start {project}\n42 unset {project}\n")
    );
}

/// An environment too large to carry to the resident process: the hooks run in the `hook`
/// process itself (which has it), and stderr says why.
#[test]
fn an_environment_past_the_limit_is_answered_by_the_hook_process_itself() {
    let rig = Rig::new();
    let log = environment_recorder(&rig);
    let mut command = rig.command(&["hook", "--agent", "claude"]);
    command.env("CLAUDE_CODE_NOT_YET_INVENTED", "7");
    // Ten variables of 110 KiB: past the header's 1 MiB, each under the kernel's bound on
    // one string.
    for i in 0..10 {
        command.env(format!("BIG_{i}"), "x".repeat(110 << 10));
    }
    let out = agent_hooks_tests::cli::output_with(&mut command, &pre("s", "ls"));
    assert_eq!(out.status.code(), Some(0), "{}", err(&out));
    assert!(
        err(&out).contains("the resident process could not answer (the event's header (with the agent's environment) is larger than 1048576 bytes); the hooks ran in this process"),
        "{}",
        err(&out)
    );
    let project = rig.project().display().to_string();
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        format!("7 unset {project}\n")
    );
}

/// Whether process `pid` still runs (a zombie has ended).
fn runs(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            stat.rsplit_once(')')
                .map(|(_, rest)| rest.trim_start().to_owned())
        })
        .is_some_and(|rest| !rest.starts_with('Z') && !rest.starts_with('X'))
}

/// Waits up to `seconds` for `done`.
fn within(seconds: u64, done: impl Fn() -> bool) -> bool {
    let until = Instant::now() + Duration::from_secs(seconds);
    while Instant::now() < until {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    done()
}

/// An "agent": a shell script that runs the relay for one event of `session` through `sh
/// -c`, as an agent runs its hook, then stays (as `sleep`, the same process) until it is
/// killed. Returns it
/// once the event was answered, with the answer's exit code.
fn agent_process(rig: &Rig, relay: &std::path::Path, session: &str) -> (std::process::Child, i32) {
    let payload = rig.root().join(format!("{session}.json"));
    std::fs::write(&payload, pre(session, "ls")).unwrap();
    let done = rig.root().join(format!("{session}.done"));
    let script = rig.root().join("agent.sh");
    std::fs::write(
        &script,
        // Through `sh -c`, as agents run a hook's command line: that shell ends with the
        // event, and the session must not end with it.
        "sh -c '\"$0\" --agent claude < \"$1\" > /dev/null 2>&1; exit $?' \"$1\" \"$2\"\necho $? > \"$3\"\nexec sleep 600\n",
    )
    .unwrap();
    let child = Command::new("sh")
        .arg(&script)
        .arg(relay)
        .arg(&payload)
        .arg(&done)
        .current_dir(rig.project())
        .env("HOME", rig.home())
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_RUNTIME_DIR")
        .env_remove("AGENT_HOOKS_NO_SERVE")
        .env("AGENT_HOOKS_SERVE_IDLE", "60")
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    // The shell creates the file before it writes the code: a code is read once whole.
    let read = || {
        std::fs::read_to_string(&done)
            .ok()
            .filter(|t| t.ends_with('\n'))
            .and_then(|t| t.trim().parse().ok())
    };
    assert!(
        within(20, || read().is_some()),
        "the agent's event was answered"
    );
    let code = read().unwrap_or(-1);
    (child, code)
}

#[test]
fn a_sessions_hooks_end_with_the_agent_that_opened_it_and_others_go_on() {
    let rig = Rig::new();
    let relay = agent_hooks_tests::relay_bin();
    let pids = long_running_guard(&rig);
    let guards = || -> Vec<String> {
        std::fs::read_to_string(&pids)
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect()
    };
    let (mut first, code) = agent_process(&rig, &relay, "s1");
    assert_eq!(code, 0);
    let (mut second, code) = agent_process(&rig, &relay, "s2");
    assert_eq!(code, 0);
    let seen = guards();
    assert_eq!(seen.len(), 2, "{seen:?}");
    let (guard_1, guard_2) = (seen[0].clone(), seen[1].clone());
    assert_ne!(guard_1, guard_2, "one guard per session");
    // Past the watchdog's look at the ended `sh -c` shells: the sessions live on.
    std::thread::sleep(Duration::from_millis(1200));
    assert!(
        runs(&guard_1) && runs(&guard_2),
        "a session ended with its hook's shell"
    );
    // The first agent is killed outright: its session's guard ends with it.
    first.kill().unwrap();
    first.wait().unwrap();
    assert!(
        within(5, || !runs(&guard_1)),
        "the guard of the killed agent's session still runs"
    );
    // The other session is served on, by its warm guard.
    assert!(runs(&guard_2), "the other session's guard was ended too");
    let out = rig.hook(&pre("s2", "rm -rf /"));
    assert_eq!(out.status.code(), Some(2), "{}", err(&out));
    assert_eq!(guards().last(), Some(&guard_2));
    assert_eq!(
        rig.serve_pids().len(),
        1,
        "the resident process kept serving"
    );
    second.kill().unwrap();
    second.wait().unwrap();
}

#[test]
fn serve_stop_stops_it_removes_its_socket_and_says_so() {
    let rig = Rig::new();
    let pids = long_running_guard(&rig);
    assert_eq!(rig.hook(&pre("s", "ls")).status.code(), Some(0));
    let serve = rig.serve_pids()[0].clone();
    let guard = std::fs::read_to_string(&pids).unwrap().trim().to_owned();
    let socket = rig.resident_folder().join("serve.sock");
    assert!(socket.exists());
    let out = rig.command(&["serve", "--stop"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", err(&out));
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        said.contains(&format!("stopped the resident process (pid {serve})")),
        "{said}"
    );
    assert!(!socket.exists(), "its socket is gone");
    assert!(within(5, || !runs(&serve)), "it ended");
    assert!(within(5, || !runs(&guard)), "its session's guard ended");
    // Nothing to stop: said, and not an error.
    let out = rig.command(&["serve", "--stop"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", err(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("no resident process runs"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn a_sigterm_ends_it_with_its_sessions_hooks_and_leaves_no_socket() {
    let rig = Rig::new();
    let pids = long_running_guard(&rig);
    assert_eq!(rig.hook(&pre("s", "ls")).status.code(), Some(0));
    let serve = rig.serve_pids()[0].clone();
    let guard = std::fs::read_to_string(&pids).unwrap().trim().to_owned();
    let socket = rig.resident_folder().join("serve.sock");
    assert!(socket.exists());
    let _ = Command::new("kill").args(["-TERM", &serve]).status();
    assert!(within(5, || !runs(&serve)), "it ended");
    assert!(!socket.exists(), "a SIGTERM left its socket behind");
    assert!(within(5, || !runs(&guard)), "its session's guard ended");
}

#[test]
fn uninstalling_the_last_wired_agent_stops_it() {
    let rig = Rig::new();
    let out = rig
        .command(&["install", "--agent", "claude"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", err(&out));
    assert_eq!(rig.hook(&pre("s", "ls")).status.code(), Some(0));
    let serve = rig.serve_pids()[0].clone();
    let socket = rig.resident_folder().join("serve.sock");
    assert!(socket.exists());
    let out = rig
        .command(&["uninstall", "--agent", "claude"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", err(&out));
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        said.contains(&format!("stopped its resident process (pid {serve})")),
        "{said}"
    );
    assert!(!socket.exists());
    assert!(within(5, || !runs(&serve)), "it ended");
}

/// The relay program run as an agent runs it for `rig`, as version `version` of the
/// program (the tests' stand-in for two installed versions of one build: the variable the
/// program reads in place of its version, passed on to the resident process it starts).
fn relay_as(rig: &Rig, version: &str, payload: &str) -> Output {
    agent_hooks_tests::cli::output_with(
        rig.relay().env("AGENT_HOOKS_TEST_PROGRAM_VERSION", version),
        payload,
    )
}

#[test]
fn an_event_from_an_upgraded_program_is_answered_by_a_resident_process_of_its_version() {
    let rig = Rig::new();
    let pids = long_running_guard(&rig);
    // Version A's session: its resident process starts and answers.
    let out = relay_as(&rig, "1.0.0-a", &pre("s1", "ls"));
    assert_eq!(out.status.code(), Some(0), "{}", err(&out));
    let old = rig.serve_pids();
    assert_eq!(old.len(), 1, "{old:?}");
    // Version B installed over it: its first event makes A give way, and B's own resident
    // process answers it (no fallback to answering in the relay's process).
    let out = relay_as(&rig, "1.0.0-b", &pre("s1", "rm -rf /"));
    assert_eq!(out.status.code(), Some(2), "{}", err(&out));
    assert!(
        err(&out).contains("the guard refuses rm -rf"),
        "{}",
        err(&out)
    );
    assert!(!err(&out).contains("could not answer"), "{}", err(&out));
    let both = rig.serve_pids();
    assert_eq!(both.len(), 2, "{both:?}");
    assert_ne!(both[0], both[1]);
    let log = std::fs::read_to_string(rig.resident_folder().join("serve.log")).unwrap();
    assert!(
        log.contains("agent-hooks serve: agent-hooks 1.0.0-a"),
        "{log}"
    );
    assert!(
        log.contains(
            "a client of agent-hooks 1.0.0-b asked, this is agent-hooks 1.0.0-a: giving way to it"
        ),
        "{log}"
    );
    assert!(
        log.contains("agent-hooks serve: agent-hooks 1.0.0-b"),
        "{log}"
    );
    // The event's hooks ran once, in B's resident process (a guard of its own).
    let seen = std::fs::read_to_string(&pids).unwrap();
    let seen: Vec<&str> = seen.lines().collect();
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert_ne!(
        seen[0], seen[1],
        "B's resident process runs a guard of its own"
    );
    // A ends once it has given way.
    let a = format!("/proc/{}", both[0]);
    let started = Instant::now();
    while std::path::Path::new(&a).exists() && started.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(!std::path::Path::new(&a).exists(), "A still runs");
    // B's next event is B's resident process's, warm.
    let out = relay_as(&rig, "1.0.0-b", &pre("s1", "ls"));
    assert_eq!(out.status.code(), Some(0), "{}", err(&out));
    assert_eq!(rig.serve_pids().len(), 2);
    let seen = std::fs::read_to_string(&pids).unwrap();
    let seen: Vec<&str> = seen.lines().collect();
    assert_eq!(seen.len(), 3);
    assert_eq!(seen[1], seen[2]);
}

#[test]
fn from_an_npm_package_install_wires_a_link_that_doctor_finds_gone_after_an_uninstall() {
    let rig = Rig::new();
    // The binaries as an npm platform package holds them.
    let package = rig
        .root()
        .join("prefix/lib/node_modules/agent-hooks-linux-x64/bin");
    std::fs::create_dir_all(&package).unwrap();
    let program = agent_hooks_tests::copy_to(&agent_hooks_bin(), &package, "agent-hooks");
    agent_hooks_tests::copy_to(
        &agent_hooks_tests::relay_bin(),
        &package,
        "agent-hooks-hook",
    );
    let out = Command::new(&program)
        .args(["install", "--agent", "claude"])
        .current_dir(rig.project())
        .env("HOME", rig.home())
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_DATA_HOME")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", err(&out));
    let settings = std::fs::read_to_string(rig.home().join(".claude/settings.json")).unwrap();
    let link = rig
        .home()
        .join(".local/share/agent-hooks/bin/agent-hooks-hook");
    assert!(
        settings.contains(&format!("{}' --agent claude", link.display())),
        "{settings}"
    );
    assert_eq!(
        std::fs::read_link(&link).unwrap(),
        package.join("agent-hooks-hook")
    );
    // An event through the entry's link is answered.
    let out = agent_hooks_tests::cli::output_with(
        Command::new(&link)
            .args(["--agent", "claude"])
            .current_dir(rig.project())
            .env("HOME", rig.home())
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("XDG_RUNTIME_DIR")
            .env("AGENT_HOOKS_SERVE_IDLE", "60"),
        &pre("s1", "ls"),
    );
    assert_eq!(out.status.code(), Some(0), "{}", err(&out));
    let doctor = rig.command(&["doctor"]).output().unwrap();
    let text = String::from_utf8_lossy(&doctor.stdout).into_owned();
    assert!(!text.contains("which is gone"), "{text}");
    // The package uninstalled: the link leads nowhere, and doctor says so and what to do.
    std::fs::remove_dir_all(rig.root().join("prefix")).unwrap();
    let doctor = rig.command(&["doctor"]).output().unwrap();
    let text = String::from_utf8_lossy(&doctor.stdout).into_owned();
    assert!(
        text.contains(&format!(
            "Claude Code's entry runs {}, which is gone (uninstalled or moved)",
            link.display()
        )),
        "{text}"
    );
    assert!(
        text.contains("agent-hooks uninstall --agent claude"),
        "{text}"
    );
}

/// The guard of [`long_running_guard`], marked `persistent` as given, writing its pid and
/// each event's session.
fn guard_for_every_session(rig: &Rig, persistent: serde_json::Value) -> PathBuf {
    let seen = rig.root().join("seen");
    python_guard(
        rig,
        persistent,
        &seen,
        r#""%d %s\n" % (os.getpid(), m["payload"].get("session_id"))"#,
    );
    seen
}

fn end(session: &str) -> String {
    json!({"session_id": session, "hook_event_name": "SessionEnd", "reason": "exit"}).to_string()
}

#[test]
fn a_hook_for_every_session_is_warm_for_the_next_session() {
    let rig = Rig::new();
    let seen = guard_for_every_session(&rig, json!("user"));
    let out = rig.hook(&pre("s1", "rm -rf /"));
    assert_eq!(out.status.code(), Some(2), "{}", err(&out));
    assert!(
        err(&out).contains("the guard refuses rm -rf"),
        "{}",
        err(&out)
    );
    assert_eq!(rig.hook(&end("s1")).status.code(), Some(0));
    // A new session: the same process, which sees each event's session.
    assert_eq!(rig.hook(&pre("s2", "ls")).status.code(), Some(0));
    let out = rig.hook(&pre("s3", "rm -rf ~"));
    assert_eq!(out.status.code(), Some(2), "{}", err(&out));
    let seen = std::fs::read_to_string(&seen).unwrap();
    let seen: Vec<(&str, &str)> = seen.lines().filter_map(|l| l.split_once(' ')).collect();
    assert_eq!(
        seen.iter().map(|(_, s)| *s).collect::<Vec<_>>(),
        ["s1", "s2", "s3"]
    );
    assert!(
        seen.iter().all(|(pid, _)| *pid == seen[0].0),
        "one process served the three sessions: {seen:?}"
    );
}

#[test]
fn a_hook_for_one_session_is_started_again_for_the_next() {
    let rig = Rig::new();
    let seen = guard_for_every_session(&rig, json!(true));
    assert_eq!(rig.hook(&pre("s1", "ls")).status.code(), Some(0));
    assert_eq!(rig.hook(&end("s1")).status.code(), Some(0));
    assert_eq!(rig.hook(&pre("s2", "ls")).status.code(), Some(0));
    let seen = std::fs::read_to_string(&seen).unwrap();
    let pids: Vec<&str> = seen.lines().filter_map(|l| l.split(' ').next()).collect();
    assert_eq!(pids.len(), 2);
    assert_ne!(pids[0], pids[1], "each session its own process: {seen}");
}
