//! The decision record as a user meets it: `agent-hooks hook` under an agent appends one
//! record per event to `~/.local/state/agent-hooks/decisions.jsonl`; `agent-hooks log` shows
//! it and checks its hash chain; `agent-hooks stats` sums it up per hook. Records are kept
//! whole under concurrent writers, bounded, redacted, and required by a managed policy where
//! the organisation says so.

use std::process::Output;

use agent_hooks_tests::{
    cli,
    rig::{AgentHook, Resident, Rig},
};
use serde_json::{json, Value};

/// A guard in the user's hooks folder: blocks `git push --force` with a reason.
pub(crate) fn guard(rig: &Rig) {
    rig.write(
        "home/.config/agent-hooks/hooks/guard.json",
        r#"{"hooks": {"PreToolUse": [{"matcher": "exec", "hooks": [{"type": "command",
            "command": "grep -q 'push --force' && { echo 'no force pushes' >&2; exit 2; }; exit 0"}]}]}}"#,
    );
}

/// Claude Code's `PreToolUse` of a `Bash` call running `command` in `session`.
pub(crate) fn pre(session: &str, command: &str) -> String {
    json!({"session_id": session, "hook_event_name": "PreToolUse", "tool_name": "Bash",
           "cwd": "/home/u/project", "tool_input": {"command": command}})
    .to_string()
}

/// `hook --agent claude` answering by itself (no resident process).
fn relay(rig: &Rig, payload: &str) -> Output {
    AgentHook::hook(rig, "claude", &["--no-serve"], payload)
}

fn out(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn err(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn records_file(rig: &Rig) -> std::path::PathBuf {
    rig.home().join(".local/state/agent-hooks/decisions.jsonl")
}

fn records(rig: &Rig) -> Vec<Value> {
    std::fs::read_to_string(records_file(rig))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is a JSON record"))
        .collect()
}

#[test]
fn each_event_answered_is_recorded_with_its_hook_and_the_answer_the_agent_got() {
    let rig = Rig::new();
    guard(&rig);
    let blocked = relay(&rig, &pre("s1", "git push --force"));
    assert_eq!(blocked.status.code(), Some(2), "{}", err(&blocked));
    let allowed = relay(&rig, &pre("s1", "ls"));
    assert_eq!(allowed.status.code(), Some(0), "{}", err(&allowed));
    let records = records(&rig);
    assert_eq!(records.len(), 2);
    let first = &records[0];
    assert_eq!(first["agent"], "claude");
    assert_eq!(first["session"], "s1");
    assert_eq!(first["project"], "/home/u/project");
    assert_eq!(first["event"], "PreToolUse");
    assert_eq!(first["tool"], "Bash");
    assert_eq!(first["input"], json!({"command": "git push --force"}));
    assert_eq!(first["decision"], "block");
    assert_eq!(first["reason"], "no force pushes");
    assert_eq!(first["code"], 2);
    assert_eq!(first["answered_by"], "relay");
    assert_eq!(first["required"], false);
    assert_eq!(first["prev"], "");
    let hook = &first["hooks"][0];
    assert_eq!(hook["kind"], "command");
    assert_eq!(hook["answer"], "block");
    assert_eq!(hook["reason"], "no force pushes");
    assert!(
        hook["id"]
            .as_str()
            .is_some_and(|id| id.ends_with("guard.json)")),
        "{hook}"
    );
    assert!(hook["ms"].as_f64().is_some_and(|ms| ms > 0.0), "{hook}");
    assert_eq!(records[1]["decision"], "none");
    assert_eq!(records[1]["prev"], first["hash"]);
    // The file is the user's alone.
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &std::path::Path| std::fs::metadata(p).map(|m| m.permissions().mode() & 0o777);
    assert_eq!(mode(&records_file(&rig)).ok(), Some(0o600));
    assert_eq!(
        mode(records_file(&rig).parent().unwrap_or(&rig.home())).ok(),
        Some(0o700)
    );
}

/// A long-running guard's run is recorded as `long-running`, beside a command hook's
/// `command`, each with its answer.
#[test]
fn a_long_running_hook_is_recorded_by_its_kind() {
    let rig = Rig::new();
    guard(&rig);
    let script = rig.user_hooks().join("long.py");
    std::fs::write(
        &script,
        r#"import json, sys
def send(m):
    sys.stdout.write(json.dumps(m) + "\n"); sys.stdout.flush()
send({"type": "hello", "protocol": 1, "name": "long"})
for line in sys.stdin:
    m = json.loads(line)
    if m.get("type") == "event":
        send({"type": "answer", "id": m["id"], "block": "the long-running guard refuses"})
    elif m.get("type") == "goodbye":
        break
"#,
    )
    .unwrap();
    std::fs::write(
        rig.user_hooks().join("long.json"),
        json!({"PreToolUse": [{"matcher": "exec", "hooks": [{"type": "command",
            "command": format!("python3 {}", script.display()), "persistent": true, "timeout": 10}]}]})
        .to_string(),
    )
    .unwrap();
    let blocked = relay(&rig, &pre("s1", "ls"));
    assert_eq!(blocked.status.code(), Some(2), "{}", err(&blocked));
    let records = records(&rig);
    assert_eq!(records.len(), 1);
    let mut kinds: Vec<(String, String)> = records[0]["hooks"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|h| (h["kind"].to_string(), h["answer"].to_string()))
        .collect();
    kinds.sort();
    assert_eq!(
        kinds,
        [
            (r#""command""#.to_owned(), r#""none""#.to_owned()),
            (r#""long-running""#.to_owned(), r#""block""#.to_owned())
        ],
        "{}",
        records[0]
    );
}

#[test]
fn log_shows_one_line_per_decision_and_filters() {
    let rig = Rig::new();
    guard(&rig);
    relay(&rig, &pre("s1", "git push --force"));
    relay(&rig, &pre("s2", "ls"));
    let log = rig.run(&["log"]);
    assert_eq!(log.status.code(), Some(0), "{}", err(&log));
    let lines: Vec<String> = out(&log).lines().map(str::to_owned).collect();
    assert_eq!(lines.len(), 2, "{}", out(&log));
    // Time, agent, event, tool, decision, the hook that decided, its reason.
    let shown = lines[0].get(21..).unwrap_or_default();
    assert!(
        shown.starts_with("claude  PreToolUse  Bash  block  grep -q 'push --force'"),
        "{shown}"
    );
    assert!(shown.ends_with(": no force pushes"), "{shown}");
    assert_eq!(lines[1].get(21..), Some("claude  PreToolUse  Bash  none"));
    let blocks = rig.run(&["log", "--decision", "block"]);
    assert_eq!(out(&blocks).lines().count(), 1, "{}", out(&blocks));
    let s2 = rig.run(&["log", "--session", "s2", "--json"]);
    let shown: Vec<Value> = out(&s2)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON lines"))
        .collect();
    assert_eq!(shown.len(), 1);
    assert_eq!(shown[0]["session"], "s2");
    assert_eq!(
        out(&rig.run(&["log", "--agent", "codex"])),
        "No decisions recorded that match (in ".to_owned()
            + &rig
                .home()
                .join(".local/state/agent-hooks")
                .display()
                .to_string()
            + ").\n"
    );
    assert_eq!(out(&rig.run(&["log", "--since", "1h"])).lines().count(), 2);
    assert_eq!(
        out(&rig.run(&["log", "--since", "2999-01-01"]))
            .lines()
            .count(),
        1
    );
    let wrong = rig.run(&["log", "--since", "yesterday"]);
    assert_eq!(wrong.status.code(), Some(2));
    assert!(
        err(&wrong).contains("--since yesterday: not a time"),
        "{}",
        err(&wrong)
    );
    assert_eq!(
        out(&rig.run(&["log", "-n", "1", "--json"])).lines().count(),
        1
    );
}

#[test]
fn verify_says_whether_the_chain_holds_and_where_it_breaks() {
    let rig = Rig::new();
    guard(&rig);
    for command in ["ls", "git push --force", "pwd", "true"] {
        relay(&rig, &pre("s1", command));
    }
    let verify = rig.run(&["log", "--verify"]);
    assert_eq!(verify.status.code(), Some(0));
    assert_eq!(
        out(&verify),
        "The chain holds: 4 records in 1 file, each as it was written and none missing.\n"
    );
    let file = records_file(&rig);
    let text = std::fs::read_to_string(&file).expect("the records");
    let lines: Vec<&str> = text.lines().collect();
    // A record changed.
    let changed = text.replacen("git push --force", "git push", 1);
    std::fs::write(&file, &changed).expect("changed");
    let verify = rig.run(&["log", "--verify"]);
    assert_eq!(verify.status.code(), Some(1));
    assert_eq!(
        out(&verify),
        format!(
            "The chain breaks at {} line 2: its content is not what was written: it was changed after. The record before it holds.\n",
            file.display()
        )
    );
    // A record removed.
    std::fs::write(&file, format!("{}\n{}\n{}\n", lines[0], lines[1], lines[3])).expect("cut");
    let verify = rig.run(&["log", "--verify"]);
    assert_eq!(verify.status.code(), Some(1));
    assert_eq!(
        out(&verify),
        format!(
            "The chain breaks at {} line 3: it does not follow the record before it: a record was removed or put in between here. The 2 records before it hold.\n",
            file.display()
        )
    );
}

#[test]
fn concurrent_writers_keep_every_record_whole_and_chained() {
    let rig = Rig::new();
    guard(&rig);
    std::thread::scope(|scope| {
        for writer in 0..6 {
            let rig = &rig;
            scope.spawn(move || {
                for n in 0..10 {
                    let out = relay(rig, &pre(&format!("w{writer}"), &format!("echo {n}")));
                    assert_eq!(out.status.code(), Some(0), "{}", err(&out));
                }
            });
        }
    });
    assert_eq!(records(&rig).len(), 60);
    let verify = rig.run(&["log", "--verify"]);
    assert_eq!(
        out(&verify),
        "The chain holds: 60 records in 1 file, each as it was written and none missing.\n"
    );
}

#[test]
fn a_line_a_killed_writer_left_unfinished_is_never_read_and_is_cut_off() {
    let rig = Rig::new();
    guard(&rig);
    relay(&rig, &pre("s1", "ls"));
    let file = records_file(&rig);
    let mut text = std::fs::read_to_string(&file).expect("the records");
    text.push_str(r#"{"time":"2026-12-06T00:00:00.000Z","agent":"cla"#);
    std::fs::write(&file, &text).expect("an unfinished line");
    let log = rig.run(&["log", "--json"]);
    assert_eq!(out(&log).lines().count(), 1, "{}", out(&log));
    let verify = rig.run(&["log", "--verify"]);
    assert_eq!(
        out(&verify),
        format!(
            "The chain holds: 1 record in 1 file, each as it was written and none missing.\nThe last line of {} is unfinished (its writer stopped mid-line); the next record cuts it off.\n",
            file.display()
        )
    );
    relay(&rig, &pre("s1", "pwd"));
    assert_eq!(records(&rig).len(), 2);
    assert_eq!(
        out(&rig.run(&["log", "--verify"])),
        "The chain holds: 2 records in 1 file, each as it was written and none missing.\n"
    );
}

#[test]
fn past_its_limit_the_file_is_moved_aside_and_the_chain_goes_on() {
    let rig = Rig::new();
    guard(&rig);
    for n in 0..30 {
        let out = cli::output_with(
            cli::command(
                &rig.project(),
                &rig.home(),
                &["hook", "--agent", "claude", "--no-serve"],
            )
            .env("AGENT_HOOKS_DECISIONS_LIMIT", "4096"),
            &pre("s1", &format!("echo {n} {}", "x".repeat(200))),
        );
        assert_eq!(out.status.code(), Some(0), "{}", err(&out));
    }
    let folder = rig.home().join(".local/state/agent-hooks");
    assert!(folder.join("decisions.1.jsonl").is_file());
    assert!(folder.join("decisions.2.jsonl").is_file());
    let verify = rig.run(&["log", "--verify"]);
    assert_eq!(verify.status.code(), Some(0), "{}", out(&verify));
    assert!(
        out(&verify).contains("records in 3 files, each as it was written and none missing (it starts after older records that were moved aside and are no longer kept)."),
        "{}",
        out(&verify)
    );
    let size = std::fs::metadata(folder.join("decisions.1.jsonl"))
        .map(|m| m.len())
        .unwrap_or(0);
    assert!(size < 4096 + 2048, "{size}");
}

#[test]
fn secrets_are_redacted_by_default_and_the_user_chooses_full_or_digest() {
    let rig = Rig::new();
    guard(&rig);
    let command = "curl -H 'Authorization: Bearer abcdef0123456789' https://example.com";
    relay(&rig, &pre("s1", command));
    let input = records(&rig)[0]["input"]["command"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(!input.contains("abcdef0123456789"), "{input}");
    assert!(input.contains("[redacted]"), "{input}");
    rig.write(
        "home/.config/agent-hooks/settings.json",
        r#"{"decisions": {"input": "digest"}}"#,
    );
    relay(&rig, &pre("s1", command));
    let second = &records(&rig)[1];
    assert_eq!(second.get("input"), None);
    assert!(second["input_digest"]
        .as_str()
        .is_some_and(|d| d.starts_with("sha256:") && d.len() == 71));
    rig.write(
        "home/.config/agent-hooks/settings.json",
        r#"{"decisions": {"record": false}}"#,
    );
    relay(&rig, &pre("s1", command));
    assert_eq!(records(&rig).len(), 2, "turned off, nothing is recorded");
}

#[test]
fn a_managed_policy_requires_the_record_and_sets_where_it_goes() {
    let rig = Rig::new();
    guard(&rig);
    let records_folder = rig.root().join("org-records");
    let policy = json!({"hooks": {}, "decisions": {"required": true, "input": "digest",
        "folder": records_folder.display().to_string()}});
    rig.write("managed/etc/agent-hooks/policy.json", &policy.to_string());
    rig.write(
        "home/.config/agent-hooks/settings.json",
        r#"{"decisions": {"record": false, "input": "full"}}"#,
    );
    let run = |args: &[&str], stdin: Option<&str>| {
        let mut command = cli::command(&rig.project(), &rig.home(), args);
        command.env("AGENT_HOOKS_MANAGED_ROOT", rig.root().join("managed"));
        match stdin {
            Some(stdin) => cli::output_with(&mut command, stdin),
            None => command.output().expect("the program runs"),
        }
    };
    let blocked = run(
        &["hook", "--agent", "claude", "--no-serve"],
        Some(&pre("s1", "git push --force")),
    );
    assert_eq!(blocked.status.code(), Some(2), "{}", err(&blocked));
    assert!(!records_file(&rig).exists());
    let text = std::fs::read_to_string(records_folder.join("decisions.jsonl"))
        .expect("recorded where the policy says");
    let record: Value = serde_json::from_str(text.trim_end()).expect("a record");
    assert_eq!(record["decision"], "block");
    assert_eq!(
        record.get("input"),
        None,
        "the organisation's digest holds over the user's full"
    );
    let log = run(&["log", "--decision", "block"], None);
    assert_eq!(
        out(&log).lines().count(),
        1,
        "log reads where the policy says: {}",
        out(&log)
    );
}

#[test]
fn a_record_that_cannot_be_written_is_told_once_and_the_event_is_answered() {
    let rig = Rig::new();
    guard(&rig);
    // The state folder is a file: nothing can be written under it.
    rig.write("home/.local/state/agent-hooks", "not a folder");
    let blocked = relay(&rig, &pre("s1", "git push --force"));
    assert_eq!(blocked.status.code(), Some(2));
    assert!(
        err(&blocked).starts_with("no force pushes"),
        "{}",
        err(&blocked)
    );
    assert!(
        err(&blocked).contains("agent-hooks: the decision record could not be written ("),
        "{}",
        err(&blocked)
    );
    assert!(
        err(&blocked).contains("the event was answered, not recorded. Check that the folder is yours and writable, or set `decisions.record` to false in settings.json"),
        "{}",
        err(&blocked)
    );
}

#[test]
fn stats_sums_up_each_hook_the_slowest_first() {
    let rig = Rig::new();
    guard(&rig);
    rig.write(
        "home/.config/agent-hooks/hooks/slow.json",
        r#"{"hooks": {"PreToolUse": [{"matcher": "exec", "hooks": [{"type": "command", "command": "sleep 0.2"}]}]}}"#,
    );
    relay(&rig, &pre("s1", "git push --force"));
    relay(&rig, &pre("s1", "ls"));
    let stats = rig.run(&["stats"]);
    let text = out(&stats);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0], "2 events, 2 hooks, the slowest first (times in ms):",
        "{text}"
    );
    assert!(
        lines[2].ends_with("sleep 0.2 (") || lines[2].contains("  sleep 0.2 ("),
        "{text}"
    );
    assert!(lines[3].contains("  grep -q 'push --force'"), "{text}");
    let figures: Vec<&str> = lines[3].split_whitespace().take(6).collect();
    assert_eq!(figures, ["2", "1", "0", "0", "0", "0"], "{text}");
    let json: Value = serde_json::from_str(&out(&rig.run(&["stats", "--json"]))).expect("JSON");
    assert_eq!(json[0]["calls"], 2);
    assert!(
        json[0]["p50_ms"].as_f64().is_some_and(|ms| ms >= 200.0),
        "{json}"
    );
}

#[test]
fn the_resident_process_records_what_it_answered() {
    let rig = Rig::new();
    guard(&rig);
    let blocked = Resident::hook(&rig, &pre("s1", "git push --force"));
    assert_eq!(blocked.status.code(), Some(2), "{}", err(&blocked));
    let records = records(&rig);
    assert_eq!(records.len(), 1);
    assert_eq!(records[0]["answered_by"], "resident");
    assert_eq!(records[0]["decision"], "block");
}

/// The user's settings file, written.
fn settings(rig: &Rig, text: &str) {
    rig.write("home/.config/agent-hooks/settings.json", text);
}

#[test]
fn observe_mode_records_what_a_guard_would_have_blocked_while_the_tool_runs() {
    let rig = Rig::new();
    guard(&rig);
    settings(&rig, r#"{"decisions": {"observe": true}}"#);
    let out = relay(&rig, &pre("s1", "git push --force"));
    assert_eq!(
        out.status.code(),
        Some(0),
        "observed, not applied: {}",
        err(&out)
    );
    assert_eq!(err(&out), "");
    let record = &records(&rig)[0];
    assert_eq!(record["decision"], "none");
    assert_eq!(record["would_have"], "block: no force pushes");
    assert_eq!(record["hooks"][0]["observed"], true);
    assert_eq!(record["hooks"][0]["answer"], "block");
    let line = out_of(&rig.run(&["log"]));
    assert!(
        line.ends_with(
            "/home/.config/agent-hooks/hooks/guard.json) would have blocked: no force pushes)\n"
        ),
        "{line}"
    );
    assert!(
        line.contains("  Bash  none  (observed: grep -q 'push --force'"),
        "{line}"
    );
    let list = out_of(&rig.run(&["list"]));
    assert!(
        list.contains("(observing: recorded, not applied)"),
        "{list}"
    );
}

fn out_of(output: &Output) -> String {
    out(output)
}

#[test]
fn one_hook_observes_and_the_others_still_decide() {
    let rig = Rig::new();
    guard(&rig);
    rig.write(
        "home/.config/agent-hooks/hooks/trial.json",
        r#"{"hooks": {"PreToolUse": [{"matcher": "exec", "hooks": [{"type": "command", "observe": true,
            "command": "grep -q 'npm publish' && { echo 'no publishing yet' >&2; exit 2; }; exit 0"}]}]}}"#,
    );
    let publish = relay(&rig, &pre("s1", "npm publish"));
    assert_eq!(publish.status.code(), Some(0), "{}", err(&publish));
    let push = relay(&rig, &pre("s1", "git push --force"));
    assert_eq!(
        push.status.code(),
        Some(2),
        "the guard still blocks: {}",
        err(&push)
    );
    let records = records(&rig);
    assert_eq!(records[0]["would_have"], "block: no publishing yet");
    assert_eq!(records[1]["decision"], "block");
    assert_eq!(records[1].get("would_have"), None);
}

#[test]
fn observe_mode_for_listed_projects_only() {
    let rig = Rig::new();
    guard(&rig);
    let trial = rig.root().join("trial");
    std::fs::create_dir_all(&trial).expect("a second project");
    settings(
        &rig,
        &json!({"decisions": {"observe": [trial.display().to_string()]}}).to_string(),
    );
    let here = relay(&rig, &pre("s1", "git push --force"));
    assert_eq!(
        here.status.code(),
        Some(2),
        "the project is not listed: {}",
        err(&here)
    );
    let there = cli::output_with(
        &mut cli::command(
            &trial,
            &rig.home(),
            &["hook", "--agent", "claude", "--no-serve"],
        ),
        &pre("s1", "git push --force"),
    );
    assert_eq!(
        there.status.code(),
        Some(0),
        "the listed project observes: {}",
        err(&there)
    );
}

#[test]
fn a_required_hook_is_never_observed_away_unless_the_managed_policy_allows_it() {
    let rig = Rig::new();
    rig.write(
        "home/.config/agent-hooks/hooks/guard.json",
        r#"{"hooks": {"PreToolUse": [{"matcher": "exec", "hooks": [{"type": "command", "required": true, "observe": true,
            "command": "grep -q 'push --force' && { echo 'no force pushes' >&2; exit 2; }; exit 0"}]}]}}"#,
    );
    let out = relay(&rig, &pre("s1", "git push --force"));
    // Required, so applied: a block, which comes as Claude Code's JSON decision because the
    // answer also tells the user why the hook is not observed (`systemMessage`).
    let answer: Value = serde_json::from_str(&out_of(&out)).unwrap_or_default();
    assert_eq!(
        (out.status.code(), &answer["decision"], &answer["reason"]),
        (Some(0), &json!("block"), &json!("no force pushes")),
        "required, so applied: {answer} {}",
        err(&out)
    );
    assert!(
        answer["systemMessage"].as_str().is_some_and(
            |m| m.contains("is set to observe, but it is required, so its answers are applied")
        ),
        "{answer}"
    );
    let list = out_of(&rig.run(&["list"]));
    assert!(
        list.contains("is set to observe, but it is required, so its answers are applied: the managed policy's `decisions.observeRequired` would allow it"),
        "{list}"
    );
    rig.write(
        "managed/etc/agent-hooks/policy.json",
        r#"{"hooks": {}, "decisions": {"observeRequired": true}}"#,
    );
    let allowed = cli::output_with(
        cli::command(
            &rig.project(),
            &rig.home(),
            &["hook", "--agent", "claude", "--no-serve"],
        )
        .env("AGENT_HOOKS_MANAGED_ROOT", rig.root().join("managed")),
        &pre("s1", "git push --force"),
    );
    assert_eq!(allowed.status.code(), Some(0), "{}", err(&allowed));
}

#[test]
fn a_plugin_observes_by_its_settings() {
    let rig = Rig::new();
    let plugin = agent_hooks_tests::plugin("block-dangerous");
    let plugin = plugin.display().to_string();
    let file = std::path::Path::new(&plugin)
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    settings(
        &rig,
        &json!({"plugins": {file: {"observe": true}}}).to_string(),
    );
    let out = relay_with(&rig, &["--hook", &plugin], &pre("s1", "rm -rf build"));
    assert_eq!(out.status.code(), Some(0), "{}", err(&out));
    let record = &records(&rig)[0];
    assert_eq!(record["hooks"][0]["kind"], "plugin");
    assert_eq!(record["hooks"][0]["observed"], true);
    assert_eq!(
        record["would_have"],
        "block: Dangerous command blocked: `rm -rf` needs a user to confirm it, and there is no UI"
    );
    // Without the setting, the same plugin blocks.
    settings(&rig, "{}");
    let out = relay_with(&rig, &["--hook", &plugin], &pre("s1", "rm -rf build"));
    assert_eq!(out.status.code(), Some(2), "{}", err(&out));
}

fn relay_with(rig: &Rig, extra: &[&str], payload: &str) -> Output {
    let mut args = vec!["--no-serve"];
    args.extend_from_slice(extra);
    AgentHook::hook(rig, "claude", &args, payload)
}

#[test]
fn status_says_what_observes_and_the_last_block() {
    let rig = Rig::new();
    guard(&rig);
    relay(&rig, &pre("s1", "git push --force"));
    relay(&rig, &pre("s1", "ls"));
    let status = out(&rig.run(&["status"]));
    let time = records(&rig)[0]["time"]
        .as_str()
        .and_then(|t| t.get(11..16))
        .unwrap_or_default()
        .to_owned();
    assert!(
        status.ends_with(&format!(" · last block {time} Bash: no force pushes\n")),
        "{status}"
    );
    assert!(status.starts_with("agent-hooks: 1 hook · "), "{status}");
    settings(&rig, r#"{"decisions": {"observe": true}}"#);
    let status = out(&rig.run(&["status"]));
    assert!(
        status.starts_with("agent-hooks: 1 hook · 1 observing · "),
        "{status}"
    );
    let json: Value = serde_json::from_str(&out(&rig.run(&["status", "--json"]))).expect("JSON");
    assert_eq!(json["observing"], 1);
    assert_eq!(json["last_block"]["reason"], "no force pushes");
}

#[test]
fn log_follow_shows_each_record_as_it_is_written() {
    use std::io::{BufRead, BufReader};
    let rig = Rig::new();
    guard(&rig);
    relay(&rig, &pre("s1", "ls"));
    let mut follow = cli::command(
        &rig.project(),
        &rig.home(),
        &["log", "--follow", "-n", "0", "--decision", "block"],
    )
    .stdout(std::process::Stdio::piped())
    .spawn()
    .expect("log --follow starts");
    let stdout = follow.stdout.take().expect("its stdout");
    let (sender, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if sender.send(line).is_err() {
                break;
            }
        }
    });
    // What the filter leaves out is not shown.
    relay(&rig, &pre("s1", "pwd"));
    relay(&rig, &pre("s2", "git push --force"));
    let line = lines.recv_timeout(std::time::Duration::from_secs(10));
    let _ = follow.kill();
    let _ = follow.wait();
    let line = line.expect("the block shown within 10 s");
    assert!(
        line.contains("  claude  PreToolUse  Bash  block  grep -q"),
        "{line}"
    );
    assert!(line.ends_with(": no force pushes"), "{line}");
}

#[test]
fn a_link_in_place_of_the_records_is_not_followed() {
    let rig = Rig::new();
    guard(&rig);
    let folder = rig.home().join(".local/state/agent-hooks");
    std::fs::create_dir_all(&folder).expect("the state folder");
    let elsewhere = rig.root().join("someone-elses-file");
    std::fs::write(&elsewhere, "theirs\n").expect("a file");
    std::os::unix::fs::symlink(&elsewhere, folder.join("decisions.jsonl")).expect("a link");
    let out = relay(&rig, &pre("s1", "git push --force"));
    assert_eq!(
        out.status.code(),
        Some(2),
        "answered all the same: {}",
        err(&out)
    );
    assert!(
        err(&out).contains("agent-hooks: the decision record could not be written ("),
        "{}",
        err(&out)
    );
    assert_eq!(
        std::fs::read_to_string(&elsewhere).ok().as_deref(),
        Some("theirs\n")
    );
}

#[test]
fn doctor_says_when_the_record_cannot_be_written_or_its_settings_are_wrong() {
    let rig = Rig::new();
    guard(&rig);
    let doctor = rig.run(&["doctor"]);
    assert!(
        !out(&doctor).contains("decision record"),
        "{}",
        out(&doctor)
    );
    // doctor made the folder and its file, writing nothing.
    let folder = rig.home().join(".local/state/agent-hooks");
    assert_eq!(
        std::fs::read_to_string(folder.join("decisions.jsonl"))
            .ok()
            .as_deref(),
        Some("")
    );
    std::fs::remove_dir_all(&folder).expect("the folder removed");
    rig.write("home/.local/state/agent-hooks", "not a folder");
    settings(&rig, r#"{"decisions": {"input": "everything"}}"#);
    let doctor = rig.run(&["doctor"]);
    assert_eq!(doctor.status.code(), Some(1), "{}", out(&doctor));
    let said = out(&doctor);
    assert!(
        said.contains("decision record: it cannot be written ("),
        "{said}"
    );
    assert!(
        said.contains("`decisions.input` must be \"full\", \"redacted\" or \"digest\", not \"everything\"; inputs are kept redacted"),
        "{said}"
    );
}
