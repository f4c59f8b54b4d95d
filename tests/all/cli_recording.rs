//! What the `agent-hooks` program shows of what plugins do to the agent (UI calls and their
//! answers, the status line, entries, messages, programs), `--ui yes|no|FILE`, and running a
//! plugin's slash command, with the plugin in a plugin process and in process.

use std::path::Path;

use agent_hooks_tests::{
    cli::{json_of, run, stderr, stdout},
    copy_to, plugin, temp_dir,
};
use serde_json::{json, Value};

/// A folder with the ui-audit plugin at `hooks/libui_audit.so`.
fn project() -> tempfile::TempDir {
    let dir = temp_dir();
    std::fs::create_dir(dir.path().join("hooks")).unwrap();
    copy_to(
        &plugin("ui-audit"),
        &dir.path().join("hooks"),
        "libui_audit.so",
    );
    dir
}

/// Runs the program in `dir` with `args` (a subcommand and its options), the plugin added
/// to the subcommand's options.
fn agent_hooks(dir: &Path, args: &[&str]) -> std::process::Output {
    let mut all = args[..1].to_vec();
    all.extend(["--no-discover", "--hook", "hooks/libui_audit.so"]);
    all.extend_from_slice(&args[1..]);
    run(dir, dir, &all, None)
}

/// Human output without the lines that time each hook (they change from run to run).
fn without_timings(text: &str) -> String {
    text.lines()
        .filter(|l| !l.contains(" ms  "))
        .map(|l| format!("{l}\n"))
        .collect()
}

const DEPLOY: &str = r#"{"tool_name": "exec", "input": {"command": "deploy prod"}}"#;

#[test]
fn without_a_ui_the_plugin_sees_none_and_what_it_did_is_shown() {
    let dir = project();
    for isolation in [&[][..], &["--in-process"][..]] {
        let mut args = vec!["emit"];
        args.extend_from_slice(isolation);
        args.extend(["tool_call", "--input", DEPLOY]);
        let output = agent_hooks(dir.path(), &args);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        assert_eq!(
            without_timings(&stdout(&output)),
            "tool_call BLOCKED: deploy needs a user, and there is no UI\n  \
             status audit = \"1 call(s) audited\"; status line: \"1 call(s) audited\"\n  \
             entry audit: {\"tool\":\"exec\"}\n"
        );
    }
}

#[test]
fn ui_yes_answers_the_confirm_and_the_call_goes_through() {
    let dir = project();
    let output = agent_hooks(
        dir.path(),
        &["emit", "--ui", "yes", "tool_call", "--input", DEPLOY],
    );
    assert_eq!(
        without_timings(&stdout(&output)),
        "tool_call allowed\n  \
         status audit = \"1 call(s) audited\"; status line: \"1 call(s) audited\"\n  \
         entry audit: {\"tool\":\"exec\"}\n  \
         confirm \"Deploy\": \"Run `deploy prod`?\" → yes\n  \
         notify (warning): deploy allowed\n"
    );

    let output = agent_hooks(
        dir.path(),
        &[
            "emit",
            "--ui",
            "yes",
            "--json",
            "tool_call",
            "--input",
            DEPLOY,
        ],
    );
    let outcome = json_of(&output);
    assert_eq!(outcome["block"], false);
    assert_eq!(
        outcome["activity"],
        json!([
            {"call": "set_status", "key": "audit", "text": "1 call(s) audited", "status_line": "1 call(s) audited"},
            {"call": "append_entry", "custom_type": "audit", "data": {"tool": "exec"}},
            {"call": "confirm", "title": "Deploy", "message": "Run `deploy prod`?", "answer": true},
            {"call": "notify", "level": "warning", "message": "deploy allowed"},
        ])
    );
    assert_eq!(outcome["warnings"], json!([]));
}

#[test]
fn a_ui_file_answers_in_order_or_by_title() {
    let dir = project();
    std::fs::write(dir.path().join("no.json"), "[false]").unwrap();
    std::fs::write(dir.path().join("by-title.json"), r#"{"Deploy": true}"#).unwrap();
    let output = agent_hooks(
        dir.path(),
        &["emit", "--ui", "no.json", "tool_call", "--input", DEPLOY],
    );
    let text = stdout(&output);
    assert!(
        text.starts_with("tool_call BLOCKED: refused by the user\n"),
        "{text}"
    );
    assert!(
        text.contains("\n  confirm \"Deploy\": \"Run `deploy prod`?\" → no\n  notify (warning): deploy refused\n"),
        "{text}"
    );
    let output = agent_hooks(
        dir.path(),
        &[
            "emit",
            "--ui",
            "by-title.json",
            "--json",
            "tool_call",
            "--input",
            DEPLOY,
        ],
    );
    let outcome = json_of(&output);
    assert_eq!(outcome["block"], false);
    assert_eq!(outcome["activity"][2]["answer"], true);
}

#[test]
fn a_ui_file_that_runs_out_or_does_not_fit_is_reported_by_position() {
    let dir = project();
    std::fs::write(dir.path().join("answers.json"), r#"["messages", 3]"#).unwrap();
    let output = agent_hooks(
        dir.path(),
        &["command", "--ui", "answers.json", "audit", "now"],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.ends_with(
            "  warning: --ui answers.json: answer 2 (3) does not fit input \"Reason\", which takes a string or null; answered as without a UI\n  \
             warning: --ui answers.json: no answer left for editor \"Notes\" (all 2 were used); answered as without a UI\n  \
             warning: --ui answers.json: no answer left for custom \"color-picker\" (all 2 were used); answered as without a UI\n"
        ),
        "{text}"
    );
    let output = agent_hooks(
        dir.path(),
        &["command", "--ui", "answers.json", "--json", "audit", "now"],
    );
    assert_eq!(
        json_of(&output)["warnings"],
        json!([
            "--ui answers.json: answer 2 (3) does not fit input \"Reason\", which takes a string or null; answered as without a UI",
            "--ui answers.json: no answer left for editor \"Notes\" (all 2 were used); answered as without a UI",
            "--ui answers.json: no answer left for custom \"color-picker\" (all 2 were used); answered as without a UI",
        ])
    );

    std::fs::write(
        dir.path().join("title.json"),
        r#"{"Audit scope": "everything"}"#,
    )
    .unwrap();
    let output = agent_hooks(
        dir.path(),
        &["command", "--ui", "title.json", "--json", "audit"],
    );
    assert_eq!(
        json_of(&output)["warnings"],
        json!([
            "--ui title.json: answer \"Audit scope\" (\"everything\") does not fit select \"Audit scope\", which takes one of the options, or null; answered as without a UI",
            "--ui title.json: no answer for input \"Reason\"; answered as without a UI",
            "--ui title.json: no answer for editor \"Notes\"; answered as without a UI",
            "--ui title.json: no answer for custom \"color-picker\"; answered as without a UI",
        ])
    );
}

#[test]
fn a_bad_ui_file_stops_the_run_with_its_name_and_position() {
    let dir = project();
    std::fs::write(dir.path().join("broken.json"), "[true,\n  nope]").unwrap();
    std::fs::write(dir.path().join("yes.json"), "true").unwrap();
    let cases = [
        (
            "broken.json",
            "agent-hooks: --ui broken.json: not JSON: expected ident at line 2 column 4\n",
        ),
        (
            "yes.json",
            "agent-hooks: --ui yes.json: must hold a JSON array of answers in order, or an object of answers keyed by the prompt's title; found a boolean\n",
        ),
        (
            "missing.json",
            "agent-hooks: --ui missing.json: cannot read it: No such file or directory (os error 2) (give `yes`, `no` or a JSON file of answers)\n",
        ),
    ];
    for (file, error) in cases {
        let output = agent_hooks(dir.path(), &["emit", "--ui", file, "turn_end"]);
        assert_eq!(output.status.code(), Some(2));
        assert_eq!(stderr(&output), error);
    }
}

#[test]
fn command_runs_a_plugin_command_and_shows_everything_it_did() {
    let dir = project();
    for isolation in [&[][..], &["--in-process"][..]] {
        let mut args = vec!["command"];
        args.extend_from_slice(isolation);
        args.extend(["--ui", "yes", "/audit", "--since", "monday"]);
        let output = agent_hooks(dir.path(), &args);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        assert_eq!(
            stdout(&output),
            "/audit ran\n  \
             select \"Audit scope\" [\"tools\",\"messages\"] → \"tools\"\n  \
             input \"Reason\" (\"why audit now?\") → \"\"\n  \
             editor \"Notes\" (\"no notes\") → \"no notes\"\n  \
             exec echo audit --since monday → exit 0, stdout \"audit --since monday\\n\"\n  \
             message [audit-report]: \"scope=tools, reason=, notes=no notes, echo=audit --since monday\"\n  \
             editor text set: \"/audit --since monday\"\n  \
             editor text read: \"/audit --since monday\"\n  \
             notify (info): editor: /audit --since monday\n  \
             custom \"color-picker\" {\"default\":\"red\"} → nothing (dismissed)\n  \
             status audit cleared; status line: \"\"\n"
        );
    }
    let output = agent_hooks(dir.path(), &["command", "--json", "audit"]);
    let outcome = json_of(&output);
    assert_eq!(outcome["ok"], true);
    assert_eq!(outcome["command"], "audit");
    assert_eq!(outcome["args"], "");
    let activity = outcome["activity"].as_array().unwrap();
    assert_eq!(
        activity[0],
        json!({"call": "select", "title": "Audit scope", "options": ["tools", "messages"], "answer": null})
    );
    assert_eq!(
        activity[3],
        json!({"call": "exec", "command": "echo", "args": ["audit", ""], "output": {"stdout": "audit \n", "stderr": "", "code": 0, "killed": false, "truncated": false}})
    );
    assert_eq!(
        activity[4],
        json!({"call": "send_message", "message": {"custom_type": "audit-report", "content": "scope=-, reason=-, notes=-, echo=audit", "display": true, "details": null}, "options": {"trigger_turn": false}})
    );
    assert_eq!(
        activity[6],
        json!({"call": "get_editor_text", "answer": ""}),
        "without a UI the editor text reads empty"
    );
}

#[test]
fn an_unknown_command_names_the_known_ones() {
    let dir = project();
    let output = agent_hooks(dir.path(), &["command", "nope"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        "agent-hooks: unknown command `/nope`; registered commands: /audit (hooks/libui_audit.so), /audit-fail (hooks/libui_audit.so)\n"
    );
    let empty = temp_dir();
    let output = run(
        empty.path(),
        empty.path(),
        &["command", "--no-discover", "audit"],
        None,
    );
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        "agent-hooks: unknown command `/audit`: no loaded plugin registers a command (see `agent-hooks list`)\n"
    );
}

#[test]
fn a_command_that_fails_exits_1_with_its_error() {
    let dir = project();
    let output = agent_hooks(dir.path(), &["command", "audit-fail"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stdout(&output),
        "/audit-fail FAILED: the audit log is locked / close the other session first\n  abort requested\n"
    );
    let output = agent_hooks(dir.path(), &["command", "--json", "audit-fail"]);
    assert_eq!(output.status.code(), Some(1));
    let outcome = json_of(&output);
    assert_eq!(outcome["ok"], false);
    assert_eq!(
        outcome["error"],
        "the audit log is locked\nclose the other session first"
    );
    assert_eq!(outcome["errors"][0]["event"], "/audit-fail");
    assert_eq!(outcome["activity"], json!([{"call": "abort"}]));
}

#[test]
fn a_command_s_session_actions_are_recorded_and_done() {
    let dir = temp_dir();
    std::fs::create_dir(dir.path().join("hooks")).unwrap();
    copy_to(
        &plugin("handoff"),
        &dir.path().join("hooks"),
        "libhandoff.so",
    );
    let output = run(
        dir.path(),
        dir.path(),
        &[
            "command",
            "--no-discover",
            "--hook",
            "hooks/libhandoff.so",
            "handoff",
        ],
        None,
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        stdout(&output),
        "/handoff ran\n  wait_for_idle\n  new_session {\"parent_session\":null,\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"Continue from prior session summary.\"}]}]}\n"
    );
}

#[test]
fn replay_runs_command_lines_and_shows_native_context_as_added() {
    let dir = project();
    let session = [
        json!({"event": "before_agent_start", "prompt": "hi"}),
        json!({"command": "audit", "args": "now"}),
        json!({"command": "audit", "args": 3}),
        json!({"event": "turn_start", "turnIndex": 2}),
    ]
    .map(|l| l.to_string())
    .join("\n");
    std::fs::write(dir.path().join("session.jsonl"), session).unwrap();
    let output = agent_hooks(dir.path(), &["replay", "--json", "session.jsonl"]);
    let records: Vec<Value> = stdout(&output)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        records[0]["outcome"]["message"]["content"],
        "audit is on for this session"
    );
    assert_eq!(records[1]["command"], "audit");
    assert_eq!(records[1]["args"], "now");
    assert_eq!(records[1]["outcome"], json!({"ok": true, "error": null}));
    assert_eq!(records[1]["activity"][3]["output"]["stdout"], "audit now\n");
    assert_eq!(
        records[2],
        json!({"line": 3, "error": "\"args\" of a command must be a string"})
    );
    assert_eq!(
        records[3]["warnings"],
        json!(["--input: `turnIndex` is not a field of turn_start (did you mean `turn_index`?); native hooks do not see it"])
    );

    let output = agent_hooks(dir.path(), &["replay", "session.jsonl"]);
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with(
            "    1  before_agent_start   context added: [audit-context] audit is on for this session ("
        ),
        "{text}"
    );
    assert!(
        lines[1].starts_with("    2  /audit               ran ("),
        "{text}"
    );
    assert_eq!(
        lines[2],
        "       select \"Audit scope\" [\"tools\",\"messages\"] → nothing (dismissed)"
    );

    let output = agent_hooks(
        dir.path(),
        &[
            "emit",
            "before_agent_start",
            "--input",
            r#"{"prompt": "hi"}"#,
        ],
    );
    assert_eq!(
        without_timings(&stdout(&output)),
        "before_agent_start context added: [audit-context] audit is on for this session\n"
    );
}

#[test]
fn a_custom_component_is_answered_by_its_kind() {
    let dir = project();
    std::fs::write(
        dir.path().join("answers.json"),
        r#"{"Audit scope": "messages", "Reason": "weekly", "Notes": "none", "color-picker": "blue"}"#,
    )
    .unwrap();
    let output = agent_hooks(
        dir.path(),
        &["command", "--ui", "answers.json", "--json", "audit"],
    );
    let outcome = json_of(&output);
    assert_eq!(outcome["warnings"], json!([]));
    let activity = outcome["activity"].as_array().unwrap();
    assert_eq!(
        activity[activity.len() - 2..],
        [
            json!({"call": "custom", "kind": "color-picker", "data": {"default": "red"}, "answer": "blue"}),
            json!({"call": "set_status", "key": "audit", "text": "blue", "status_line": "blue"}),
        ]
    );
    assert_eq!(
        activity[4]["message"]["content"],
        "scope=messages, reason=weekly, notes=none, echo=audit"
    );
}

#[test]
fn the_factory_is_told_of_the_ui_and_an_ask_is_confirmed_through_it_in_replay() {
    let dir = temp_dir();
    std::fs::create_dir(dir.path().join("hooks")).unwrap();
    copy_to(
        &plugin("boundary"),
        &dir.path().join("hooks"),
        "libboundary.so",
    );
    std::fs::write(
        dir.path().join("hooks/libboundary.json"),
        r#"{"ask": ["deploy"]}"#,
    )
    .unwrap();
    let run_with = |ui: &str, args: &[&str], stdin: Option<&str>| {
        let mut all = vec![
            args[0],
            "--no-discover",
            "--hook",
            "hooks/libboundary.so",
            "--ui",
            ui,
        ];
        all.extend_from_slice(&args[1..]);
        run(dir.path(), dir.path(), &all, stdin)
    };
    let info = r#"{"tool_name": "exec", "input": {"command": "info"}}"#;
    for (ui, has_ui) in [("no", false), ("yes", true)] {
        let output = run_with(ui, &["emit", "--json", "tool_call", "--input", info], None);
        assert_eq!(json_of(&output)["input"]["has_ui"], has_ui, "--ui {ui}");
    }
    let session = r#"{"event": "tool_call", "tool_name": "exec", "input": {"command": "deploy"}}"#;
    for (ui, said, answer) in [
        (
            "no",
            "BLOCKED: Not confirmed by the user: boundary asks: run `deploy`?",
            "no",
        ),
        ("yes", "ok: \"ran `deploy`\"", "yes"),
    ] {
        let output = run_with(ui, &["replay", "-"], Some(session));
        let text = stdout(&output);
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines[0].starts_with(&format!("    1  tool_call            {said} (")),
            "--ui {ui}: {text}"
        );
        assert_eq!(
            lines[1],
            format!("       confirm \"Allow exec?\": \"boundary asks: run `deploy`?\" → {answer}"),
            "--ui {ui}"
        );
    }
}

#[test]
fn a_command_s_text_is_everything_after_its_name() {
    let dir = project();
    let text_of = |args: &[&str]| {
        let mut all = vec![args[0], "--json"];
        all.extend_from_slice(&args[1..]);
        let output = agent_hooks(dir.path(), &all);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{args:?}: {}",
            stderr(&output)
        );
        json_of(&output)["args"].clone()
    };
    // The program's own options after the name are the command's text.
    assert_eq!(
        text_of(&["command", "audit", "--json", "-v", "--hook", "x", "--help"]),
        "--json -v --hook x --help"
    );
    assert_eq!(
        text_of(&["command", "audit", "since", "--json"]),
        "since --json"
    );
    // A `--` right after the name is dropped; a later one is text.
    assert_eq!(text_of(&["command", "/audit", "--", "--json"]), "--json");
    assert_eq!(
        text_of(&["command", "audit", "--", "a", "--", "b"]),
        "a -- b"
    );
    assert_eq!(text_of(&["command", "--", "audit", "-x"]), "-x");
    assert_eq!(text_of(&["command", "audit"]), "");
    // Before the name, they are the program's.
    let output = agent_hooks(dir.path(), &["command", "--json", "audit", "x"]);
    assert_eq!(json_of(&output)["args"], "x");

    let help = run(dir.path(), dir.path(), &["command", "--help"], None);
    assert!(
        stdout(&help).contains(
            "Everything after NAME is the command's text, options included, joined with spaces"
        ) && stdout(&help).contains("Usage: agent-hooks command [OPTIONS] <NAME> [TEXT]..."),
        "{}",
        stdout(&help)
    );
    let missing = run(dir.path(), dir.path(), &["command"], None);
    assert_eq!(missing.status.code(), Some(2));
    assert!(stderr(&missing).contains("<NAME>"), "{}", stderr(&missing));
}
