//! What the user hands the program is read within bounds: a 2 GB
//! `--input @file`, a 1 GB `--ui` file (both sparse files: refused from their size, none of
//! it read), `--input -` past its bound on stdin, and a replayed line of 100 MiB between two
//! good lines: each refused with a message that says what, the bound and what to do. The
//! real program.

use agent_hooks_tests::{
    cli::{run, stderr, stdout},
    commands::Project,
    s, temp_dir,
};
use serde_json::Value;

fn sparse(project: &Project, name: &str, size: u64) -> String {
    let path = project.root.join(name);
    let file = std::fs::File::create(&path).unwrap();
    file.set_len(size).unwrap();
    s(&path)
}

#[test]
fn a_2_gb_input_file_is_refused_from_its_size() {
    let project = Project::new("repo");
    let home = temp_dir();
    let file = sparse(&project, "huge.json", 2 << 30);
    let input = format!("@{file}");
    let output = run(
        &project.root,
        home.path(),
        &["emit", "tool_call", "--input", &input],
        None,
    );
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert_eq!(
        stderr(&output),
        format!("agent-hooks: --input @{file} is 2147483648 bytes, over the most it may hold (64 MiB): it was not used; give a smaller one\n")
    );
}

#[test]
fn input_on_stdin_past_its_bound_is_refused() {
    let project = Project::new("repo");
    let home = temp_dir();
    let big = "x".repeat((64 << 20) + 1);
    let output = run(
        &project.root,
        home.path(),
        &["emit", "tool_call", "--input", "-"],
        Some(&big),
    );
    assert_eq!(
        stderr(&output),
        "agent-hooks: --input - (stdin) is over the most it may hold (64 MiB): it was not used; give a smaller one\n"
    );
}

#[test]
fn a_1_gb_ui_file_is_refused_from_its_size() {
    let project = Project::new("repo");
    let home = temp_dir();
    let file = sparse(&project, "answers.json", 1 << 30);
    let input = r#"{"tool_name": "exec", "input": {"command": "ls"}}"#;
    let output = run(
        &project.root,
        home.path(),
        &["emit", "tool_call", "--input", input, "--ui", &file],
        None,
    );
    assert_ne!(output.status.code(), Some(0));
    assert!(
        stderr(&output).contains(&format!("--ui {file} is 1073741824 bytes, over the most it may hold (16 MiB): it was not used; give a smaller one (give `yes`, `no` or a JSON file of answers)")),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_replayed_line_of_100_mib_is_skipped_with_a_clear_error_between_good_lines() {
    let project = Project::new("repo");
    let home = temp_dir();
    let good = r#"{"event": "turn_start", "turn_index": 1}"#;
    let session = format!("{good}\n{}\n{good}\n", "x".repeat(100 << 20));
    let file = project.write("session.jsonl", &session);
    let output = run(
        &project.root,
        home.path(),
        &["replay", &s(&file), "--json"],
        None,
    );
    let records: Vec<Value> = stdout(&output)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(records.len(), 4, "{records:?}");
    assert_eq!(records[0]["line"], 1);
    assert_eq!(records[1]["line"], 2);
    assert_eq!(
        records[1]["error"],
        "the line is 104857600 bytes, over the most a line may hold (64 MiB): it was skipped"
    );
    assert_eq!(records[2]["line"], 3);
    assert!(records[2]["error"].is_null(), "{}", records[2]);
}

/// A plugin that sends 5,000 UI notices from one call: the CLI's record of the event keeps
/// the first 1,000 and says once how many more were not recorded.
#[test]
fn the_activity_record_of_one_event_is_bounded_and_says_what_it_dropped() {
    let project = Project::new("repo");
    let home = temp_dir();
    let hooks = project.root.join(".agent-hooks/hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    agent_hooks_tests::copy_to(
        &agent_hooks_tests::plugin("hostile"),
        &hooks,
        "libhostile.so",
    );
    let input = r#"{"tool_name": "exec", "input": {"fault": "notify_flood", "count": 5000}}"#;
    let output = run(
        &project.root,
        home.path(),
        &[
            "emit",
            "tool_call",
            "--input",
            input,
            "--trust-project",
            "--json",
        ],
        None,
    );
    let outcome: Value = serde_json::from_str(&stdout(&output)).unwrap();
    let activity = outcome["activity"].as_array().unwrap();
    assert_eq!(activity.len(), 1001, "{}", stderr(&output));
    assert_eq!(activity[999]["message"], "notice 999");
    assert_eq!(
        activity[1000],
        serde_json::json!({"call": "dropped", "count": 4000,
            "message": "4000 more UI calls and messages of hooks were not recorded: the record of one event holds at most 1000 of them and 8 MiB"})
    );
}

/// The `hostile` plugin loaded in a plugin process (`isolated`) or in the agent's process,
/// with a recording agent attached and the runner's error messages collected.
struct Hostile {
    _dir: tempfile::TempDir,
    runner: agent_hooks::HookRunner,
    agent: std::sync::Arc<agent_hooks_tests::RecordingAgent>,
    errors: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

fn hostile(isolated: bool) -> Hostile {
    use agent_hooks::{load_hooks_with, HookRunner, LoadOptions};
    use std::sync::{Arc, Mutex};
    let dir = temp_dir();
    let mut options = if isolated {
        LoadOptions::isolated()
    } else {
        LoadOptions::in_process()
    };
    options.plugin_host = Some(agent_hooks_tests::agent_hooks_bin());
    let library = agent_hooks_tests::plugin("hostile");
    let loaded = load_hooks_with([s(&library)], dir.path(), &options);
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    let runner = HookRunner::new(loaded.hooks, dir.path());
    let agent = Arc::new(agent_hooks_tests::RecordingAgent::default());
    runner.attach(agent.clone());
    let errors = Arc::new(Mutex::new(Vec::new()));
    let sink = errors.clone();
    runner.on_error(move |e| sink.lock().unwrap().push(e.message.clone()));
    Hostile {
        _dir: dir,
        runner,
        agent,
        errors,
    }
}

/// The same flood from a thread of the plugin after its call returned, between calls: the
/// agent gets the first 1,000 (what a hook sends until its next call counts with its last
/// one), the flood is reported once, and the plugin answers its next call, in the agent's
/// process and in a process of its own.
#[test]
fn a_flood_of_messages_between_calls_is_bounded_and_reported_once() {
    use agent_hooks::abi::prelude::*;
    use std::time::{Duration, Instant};
    for isolated in [false, true] {
        let Hostile {
            _dir,
            runner,
            agent,
            errors,
        } = hostile(isolated);
        let flood = ToolCallEvent::new(
            "exec",
            "call-1",
            serde_json::json!({"fault": "message_flood_later", "count": 1500, "size": 1000}),
        );
        let outcome = runner.emit_blocking(&flood).unwrap();
        assert!(!outcome.block);
        let started = Instant::now();
        while errors.lock().unwrap().is_empty() && started.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(10));
        }
        // The rest of the flood, dropped, has time to come.
        std::thread::sleep(Duration::from_millis(300));
        assert_eq!(
            agent.messages.lock().unwrap().len(),
            1000,
            "isolated: {isolated}"
        );
        assert_eq!(
            *errors.lock().unwrap(),
            ["a hook sent more than 1000 messages and entries, or 16 MiB of them, from one call; the rest of this call's are dropped (send fewer, or batch them into one)"],
            "isolated: {isolated}"
        );
        let next = ToolCallEvent::new("exec", "call-2", serde_json::json!({"fault": "none"}));
        let outcome = runner.emit_blocking(&next).unwrap();
        assert!(
            outcome.input.is_some_and(|input| input["pid"].is_u64()),
            "isolated: {isolated}: the plugin answers its next call"
        );
        assert_eq!(errors.lock().unwrap().len(), 1);
    }
}

/// A plugin that sends 1,500 messages of 1 KB from one handler, in the agent's process and
/// in a process of its own: the agent gets the first 1,000, the flood is reported once, and
/// the next call may send again.
#[test]
fn a_flood_of_messages_from_one_handler_is_bounded_and_reported_once() {
    use agent_hooks::abi::prelude::*;
    for isolated in [false, true] {
        let Hostile {
            _dir,
            runner,
            agent,
            errors,
        } = hostile(isolated);
        let flood = ToolCallEvent::new(
            "exec",
            "call-1",
            serde_json::json!({"fault": "message_flood", "count": 1500, "size": 1000}),
        );
        runner.emit_blocking(&flood).unwrap();
        assert_eq!(
            agent.messages.lock().unwrap().len(),
            1000,
            "isolated: {isolated}"
        );
        assert_eq!(
            *errors.lock().unwrap(),
            ["a hook sent more than 1000 messages and entries, or 16 MiB of them, from one call; the rest of this call's are dropped (send fewer, or batch them into one)"],
            "isolated: {isolated}"
        );
        let few = ToolCallEvent::new(
            "exec",
            "call-2",
            serde_json::json!({"fault": "message_flood", "count": 3, "size": 10}),
        );
        runner.emit_blocking(&few).unwrap();
        assert_eq!(agent.messages.lock().unwrap().len(), 1003);
        assert_eq!(errors.lock().unwrap().len(), 1);
    }
}
