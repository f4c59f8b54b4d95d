//! Failing closed: every load failure is reported by `emit` and `replay` (stderr, `errors`,
//! and exit code 1 under `--strict`); a required hook that did not load, start or answer in
//! time blocks every tool call, naming itself; an answer written in full before a hook hung
//! is honoured. The real program, real plugins and processes.

use agent_hooks_tests::{
    cli::{json_of, run, stdout},
    commands::Project,
    copy_to, plugin, s, temp_dir,
};
use serde_json::{json, Value};

const RM_RF: &str = r#"{"tool_name": "exec", "tool_input": {"command": "rm -rf /"}}"#;

/// A project whose security plugin fails to load, next to a plugin that loads.
fn project_with_a_broken_guard() -> Project {
    let project = Project::new("repo");
    let hooks = project.root.join(".agent-hooks/hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    copy_to(&plugin("redact-secrets"), &hooks, "libredact.so");
    copy_to(&plugin("factory-error"), &hooks, "libguard.so");
    project
}

fn guard_error(project: &Project) -> String {
    let path = s(&project.root.join(".agent-hooks/hooks/libguard.so"));
    format!("{path}: the plugin's factory failed: missing configuration file ~/.example.toml")
}

#[test]
fn emit_and_replay_report_every_load_failure_and_strict_fails() {
    let project = project_with_a_broken_guard();
    let home = temp_dir();
    let args = ["emit", "tool_call", "--input", RM_RF, "--trust-project"];
    let output = run(&project.root, home.path(), &args, None);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        format!("agent-hooks: not loaded: {}\n", guard_error(&project))
    );

    let output = run(
        &project.root,
        home.path(),
        &[&args[..], &["--json", "--strict"]].concat(),
        None,
    );
    assert_eq!(output.status.code(), Some(1));
    let outcome = json_of(&output);
    let path = s(&project.root.join(".agent-hooks/hooks/libguard.so"));
    assert_eq!(
        outcome["errors"],
        json!([{"hook_path": path, "event": "load", "kind": "failed", "panicked": false,
                "error": "the plugin's factory failed: missing configuration file ~/.example.toml"}])
    );

    let session = format!(
        "{}\n",
        json!({"event": "tool_call", "tool_name": "exec", "input": {"command": "ls"}})
    );
    let output = run(
        &project.root,
        home.path(),
        &["replay", "-", "--trust-project", "--strict"],
        Some(&session),
    );
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        format!("agent-hooks: not loaded: {}\n", guard_error(&project))
    );
    assert!(
        stdout(&output).contains(
            "Summary: 1 events, 0 blocked, 0 rewritten, 0 hook errors, 1 hooks not loaded in"
        ),
        "{}",
        stdout(&output)
    );
}

/// `--require libguard.so`: the guard did not load, so every tool call is blocked, with a
/// message that names it and why.
#[test]
fn a_required_plugin_that_did_not_load_blocks_every_tool_call() {
    let project = project_with_a_broken_guard();
    let home = temp_dir();
    let input = r#"{"tool_name": "read", "input": {"path": "README.md"}}"#;
    let output = run(
        &project.root,
        home.path(),
        &[
            "emit",
            "tool_call",
            "--input",
            input,
            "--trust-project",
            "--require",
            "libguard.so",
            "--json",
        ],
        None,
    );
    let outcome = json_of(&output);
    assert_eq!(outcome["block"], true);
    assert_eq!(
        outcome["reason"],
        "required hook libguard.so is not running (it did not load: the plugin's factory failed: missing configuration file ~/.example.toml), so every tool call is blocked until it is fixed"
    );

    let output = run(
        &project.root,
        home.path(),
        &[
            "emit",
            "tool_call",
            "--input",
            input,
            "--trust-project",
            "--require",
            "plugin:*:libmissing.so",
            "--json",
        ],
        None,
    );
    assert_eq!(
        json_of(&output)["reason"],
        "required hook plugin:*:libmissing.so is not running (no such hook was found), so every tool call is blocked until it is fixed"
    );
}

fn emit_pre_tool_use(project: &Project) -> Value {
    let home = temp_dir();
    let output = run(
        &project.root,
        home.path(),
        &[
            "emit",
            "PreToolUse",
            "--input",
            RM_RF,
            "--trust-project",
            "--json",
        ],
        None,
    );
    json_of(&output)
}

/// A required command hook that cannot start (exit 127) or runs out of time blocks the
/// call; the same hook not required lets it go on, reported.
#[test]
fn a_required_command_hook_that_does_not_answer_blocks() {
    for (command, failure) in [
        ("./missing-guard.sh", "command not found (exit code 127): sh: 1: ./missing-guard.sh: not found; check the command and the script's path"),
        ("sleep 30", "timed out; its process group was killed"),
    ] {
        for required in [true, false] {
            let project = Project::new("repo");
            let file = project.write(
                ".agent-hooks/hooks/guard.json",
                &json!({"PreToolUse": [{"matcher": "exec", "hooks": [
                    {"type": "command", "command": command, "timeout": 1, "required": required}
                ]}]})
                .to_string(),
            );
            let outcome = emit_pre_tool_use(&project);
            if required {
                assert_eq!(outcome["block"], true, "{outcome}");
                assert_eq!(
                    outcome["reason"],
                    format!("required hook `{command}` ({}) {failure}, so the call is blocked: fix the hook, or stop requiring it", s(&file))
                );
            } else {
                assert_eq!(outcome["block"], false, "{outcome}");
                assert_eq!(outcome["errors"].as_array().unwrap().len(), 1, "{outcome}");
            }
        }
    }
}

/// A hook that prints its block decision, then hangs until its timeout: the decision stands.
#[test]
fn a_complete_answer_written_before_a_timeout_is_honoured() {
    let project = Project::new("repo");
    project.write(
        ".agent-hooks/hooks/guard.json",
        &json!({"PreToolUse": [{"matcher": "exec", "hooks": [{"type": "command",
            "command": "printf '{\"decision\": \"block\", \"reason\": \"no rm -rf\"}'; sleep 30",
            "timeout": 1}]}]})
        .to_string(),
    );
    let outcome = emit_pre_tool_use(&project);
    assert_eq!(outcome["block"], true, "{outcome}");
    assert_eq!(outcome["reason"], "no rm -rf");
    let errors = outcome["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "{outcome}");
    assert!(
        errors[0]["error"]
            .as_str()
            .unwrap()
            .ends_with("timed out after writing a complete JSON answer; the answer was taken and its process group killed"),
        "{outcome}"
    );
}
