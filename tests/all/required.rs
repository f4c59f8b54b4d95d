//! Required means required, whatever kind of hook: a hook named by
//! `--require` or marked `"required": true` blocks every tool call it cannot answer, on
//! every call of a session, with a reason that says what to do: a native plugin that
//! crashes, and then is disabled; a long-running hook that crashes, and then is disabled;
//! a one-shot command hook that dies. The real program replays six calls in one session.

use agent_hooks_tests::{
    cli::{run, stdout},
    commands::Project,
    copy_to, plugin, s, temp_dir,
};
use serde_json::{json, Value};

/// Replays `lines` in `project` with `extra` arguments; the outcome of each line.
fn replay(project: &Project, lines: &[Value], extra: &[&str]) -> Vec<Value> {
    let session: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let file = project.write("session.jsonl", &session);
    let home = temp_dir();
    let file = s(&file);
    let args = [
        &["replay", file.as_str(), "--trust-project", "--json"][..],
        extra,
    ]
    .concat();
    let output = run(&project.root, home.path(), &args, None);
    let records: Vec<Value> = stdout(&output)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    assert_eq!(records.len(), lines.len() + 1, "{}", stdout(&output));
    records[..lines.len()]
        .iter()
        .map(|r| r["outcome"].clone())
        .collect()
}

fn blocked(outcomes: &[Value]) -> Vec<bool> {
    outcomes.iter().map(|o| o["block"] == true).collect()
}

fn reason(outcome: &Value) -> String {
    outcome["reason"].as_str().unwrap_or_default().to_owned()
}

/// A native plugin that segfaults on every call is disabled after three crashes: required,
/// it still blocks calls 4 to 6, saying it is disabled and what to do; not required, those
/// calls run (as documented: it fails open).
#[test]
fn a_required_native_plugin_blocks_after_it_is_disabled() {
    let project = Project::new("repo");
    let hooks = project.root.join(".agent-hooks/hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    copy_to(&plugin("hostile"), &hooks, "libguard.so");
    let call = json!({"event": "tool_call", "tool_name": "exec", "input": {"fault": "segfault"}});
    let lines = vec![call; 6];

    let outcomes = replay(&project, &lines, &["--require", "libguard.so"]);
    assert_eq!(blocked(&outcomes), [true; 6], "{outcomes:?}");
    for outcome in &outcomes[..3] {
        assert!(
            reason(outcome).contains("it is required, so the call is blocked: fix the hook"),
            "{outcome}"
        );
    }
    for outcome in &outcomes[3..] {
        let reason = reason(outcome);
        assert!(
            reason.contains("is disabled for the rest of the session")
                && reason.contains("it is required, so every tool call is blocked until the agent starts again with the plugin fixed"),
            "{reason}"
        );
    }

    let outcomes = replay(&project, &lines, &[]);
    assert_eq!(
        blocked(&outcomes),
        [true, true, true, false, false, false],
        "{outcomes:?}"
    );
}

/// A long-running hook that crashes on every event: with `--require` (its file's name) or
/// `"required": true`, all six calls are blocked, the last three after it is disabled; with
/// neither, none is.
#[test]
fn a_required_long_running_hook_blocks_every_call_either_way_it_is_required() {
    for (in_file, flag) in [(false, true), (true, false), (false, false)] {
        let project = Project::new("repo");
        project.script("crash.sh", "#!/bin/sh\necho 'dying now' >&2\nexit 3\n");
        let hook = json!({"type": "command", "command": "sh ./crash.sh", "persistent": true,
                          "timeout": 5, "required": in_file});
        project.write(
            ".agent-hooks/hooks/guard.json",
            &json!({"PreToolUse": [{"matcher": "exec", "hooks": [hook]}]}).to_string(),
        );
        let call = json!({"event": "PreToolUse", "tool_name": "exec",
                          "tool_input": {"command": "ls"}});
        let extra: &[&str] = if flag {
            &["--require", "guard.json"]
        } else {
            &[]
        };
        let outcomes = replay(&project, &vec![call; 6], extra);
        let required = in_file || flag;
        assert_eq!(blocked(&outcomes), [required; 6], "{outcomes:?}");
        if required {
            assert!(
                reason(&outcomes[0]).contains("exited with status 3")
                    && reason(&outcomes[0])
                        .ends_with("so the call is blocked: fix the hook, or stop requiring it"),
                "{}",
                reason(&outcomes[0])
            );
            assert!(
                reason(&outcomes[5]).contains("is disabled for the rest of the session"),
                "{}",
                reason(&outcomes[5])
            );
        }
    }
}

/// A one-shot command hook killed by a signal on every call: required by `--require` (its
/// file's path), every call is blocked; `--require` is looked at for each call's hooks,
/// not only when they load.
#[test]
fn a_one_shot_command_hook_required_on_the_command_line_blocks_when_it_dies() {
    let project = Project::new("repo");
    let file = project.write(
        ".agent-hooks/hooks/guard.json",
        &json!({"PreToolUse": [{"matcher": "exec", "hooks": [
            {"type": "command", "command": "kill -SEGV $$"}
        ]}]})
        .to_string(),
    );
    let call = json!({"event": "PreToolUse", "tool_name": "exec",
                      "tool_input": {"command": "ls"}});
    let path = s(&file);
    let outcomes = replay(&project, &vec![call.clone(); 3], &["--require", &path]);
    assert_eq!(blocked(&outcomes), [true; 3], "{outcomes:?}");
    assert!(
        reason(&outcomes[0]).starts_with("required hook `kill -SEGV $$`"),
        "{}",
        reason(&outcomes[0])
    );
    let outcomes = replay(&project, &vec![call; 3], &[]);
    assert_eq!(blocked(&outcomes), [false; 3], "{outcomes:?}");
}
