//! Cline through the real program: `install --agent cline` writes one hook file per event
//! (each running `agent-hooks hook --agent cline`) and refuses to write over the user's own
//! unless `--take-over`, which moves them under agent-hooks; `uninstall` takes exactly those
//! away and puts the moved files back byte for byte; `hook --agent cline` reads Cline's
//! payload (its event and tool names) and answers in Cline's terms; Cline's own hook files,
//! run under another agent with `--with cline`, get Cline's payload and are read as Cline
//! reads them (the answer on stdout, the exit code ignored).

use std::os::unix::fs::PermissionsExt;

use agent_hooks_tests::{
    cli::{stderr, stdout},
    relay_bin,
    rig::{AgentHook, Rig},
};
use serde_json::{json, Value};

/// Cline's user hooks folder, under the rig's root.
const USER_HOOKS: &str = "home/Documents/Cline/Hooks";

/// The events install writes a file for.
const EVENTS: [&str; 8] = [
    "TaskStart",
    "TaskResume",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "TaskComplete",
    "TaskError",
    "SessionShutdown",
];

fn rig() -> Rig {
    relay_bin();
    Rig::new()
}

/// A payload of Cline 3.0.65's PreToolUse (as it sends it, measured) for `commands`.
fn pre_tool_use(project: &str, command: &str) -> String {
    json!({"clineVersion": "", "timestamp": "2026-12-06T07:48:04.022Z", "taskId": "conv_1",
        "sessionContext": {"rootSessionId": "1"}, "workspaceRoots": [project],
        "workspaceInfo": {"rootPath": project, "hint": "project"}, "userId": "unknown",
        "agent_id": "agent_1", "parent_agent_id": null, "hookName": "tool_call", "iteration": 1,
        "tool_call": {"id": "toolu_1", "name": "run_commands", "input": {"commands": [command]}},
        "preToolUse": {"toolName": "run_commands",
            "parameters": {"commands": json!([command]).to_string()}}})
    .to_string()
}

fn answer(out: &std::process::Output) -> Value {
    serde_json::from_str(stdout(out).trim()).unwrap_or(Value::Null)
}

#[test]
fn install_writes_a_hook_file_per_event_and_uninstall_leaves_the_folder_as_it_was() {
    let rig = rig();
    rig.write(&format!("{USER_HOOKS}/notes.md"), "mine\n");
    let before = agent_hooks_tests::tree(&rig.home(), |_| false);
    let out = rig.run(&["install", "--agent", "cline"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let dir = rig.root().join(USER_HOOKS);
    let command = format!("'{}' --agent cline", relay_bin().display());
    assert_eq!(
        stdout(&out),
        format!(
            "Cline now runs `{command}` for 8 events: {}\n\
             Cline reads its hook files when a task starts; a running Cline hub (`cline hub`) keeps the environment it was started with.\n\
             Undo with: agent-hooks uninstall --agent cline\n",
            dir.join("PreToolUse").display()
        )
    );
    for event in EVENTS {
        let file = dir.join(event);
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        assert!(
            text.starts_with("#!/bin/sh\n# agent-hooks: wires Cline"),
            "{text}"
        );
        assert!(text.ends_with(&format!("exec {command}\n")), "{text}");
        let mode = std::fs::metadata(&file).map_or(0, |m| m.permissions().mode());
        assert_eq!(mode & 0o777, 0o755, "{event}");
    }
    let list = rig.run(&["list"]);
    assert!(
        stdout(&list).contains(&format!(
            "Cline: runs agent-hooks: {}",
            dir.join("PreToolUse").display()
        )),
        "{}",
        stdout(&list)
    );
    // A second install changes nothing.
    let again = rig.run(&["install", "--agent", "cline"]);
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    let out = rig.run(&["uninstall", "--agent", "cline"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let after: Vec<_> = agent_hooks_tests::tree(&rig.home(), |_| false)
        .into_iter()
        .filter(|(p, _)| p.starts_with("Documents"))
        .collect();
    let before: Vec<_> = before
        .into_iter()
        .filter(|(p, _)| p.starts_with("Documents"))
        .collect();
    assert_eq!(after, before);
}

#[test]
fn install_refuses_to_write_over_the_user_s_hook_files_and_take_over_moves_them_and_back() {
    let rig = rig();
    let mine = rig.write(
        &format!("{USER_HOOKS}/PreToolUse.py"),
        "#!/usr/bin/env python3\nprint('{}')\n",
    );
    std::fs::set_permissions(&mine, std::fs::Permissions::from_mode(0o700)).unwrap();
    let out = rig.run(&["install", "--agent", "cline"]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert_eq!(
        stderr(&out),
        format!(
            "agent-hooks: {} holds hook files of your own (PreToolUse.py): install with --take-over to move them under agent-hooks, which runs them (uninstall puts them back), or move them away\n",
            rig.root().join(USER_HOOKS).display()
        )
    );
    assert!(!rig.root().join(USER_HOOKS).join("PreToolUse").exists());
    let before = agent_hooks_tests::tree(&rig.root().join(USER_HOOKS), |_| false);
    let out = rig.run(&["install", "--agent", "cline", "--take-over"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!mine.exists());
    let copy = rig
        .home()
        .join(".config/agent-hooks/taken-over/cline/user/Documents/Cline/Hooks/PreToolUse.py");
    assert!(copy.is_file(), "{}", stdout(&out));
    // agent-hooks runs the copy as Cline ran it (its interpreter) for Cline's events.
    let list = rig.run(&["list"]);
    assert!(
        stdout(&list).contains(&format!("PreToolUse: 'python3' '{}'", copy.display())),
        "{}",
        stdout(&list)
    );
    let out = rig.run(&["uninstall", "--agent", "cline"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        agent_hooks_tests::tree(&rig.root().join(USER_HOOKS), |_| false),
        before
    );
    let mode = std::fs::metadata(&mine).map_or(0, |m| m.permissions().mode());
    assert_eq!(mode & 0o777, 0o700);
}

#[test]
fn hook_reads_cline_s_payload_and_a_claude_code_block_is_cline_s_cancel() {
    let rig = rig();
    let got = rig.root().join("got.json");
    rig.write(
        "project/.claude/settings.json",
        &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
            "command": format!("cat > '{}'; echo 'no rm here' >&2; exit 2", got.display())}]}]}})
        .to_string(),
    );
    rig.run(&["trust"]);
    let project = rig.project().display().to_string();
    let out = rig.hook(
        "cline",
        &["--with", "claude"],
        &pre_tool_use(&project, "rm -rf x"),
    );
    // Cline reads no exit code: the answer is its JSON, exit 0.
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        answer(&out),
        json!({"cancel": true, "errorMessage": "no rm here"})
    );
    let seen: Value =
        serde_json::from_str(&std::fs::read_to_string(&got).unwrap_or_default()).unwrap();
    assert_eq!(seen["hook_event_name"], "PreToolUse");
    assert_eq!(seen["tool_name"], "Bash");
    assert_eq!(seen["tool_input"], json!({"command": "rm -rf x"}));
    assert_eq!(seen["session_id"], "conv_1");
    assert_eq!(seen["tool_use_id"], "toolu_1");
    // Without --with, the Claude Code file is not run: an empty answer.
    let out = rig.hook("cline", &[], &pre_tool_use(&project, "rm -rf x"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(answer(&out), json!({}));
}

#[test]
fn a_rewrite_comes_back_as_cline_s_override_input_and_context_as_its_context_modification() {
    let rig = rig();
    rig.write(
        "home/.config/agent-hooks/hooks/rewrite.json",
        &json!({"PreToolUse": [{"matcher": "exec", "hooks": [{"type": "command",
            "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"updatedInput\": {\"command\": \"echo safe\"}, \"additionalContext\": \"rewritten by policy\"}}'"}]}]})
        .to_string(),
    );
    let project = rig.project().display().to_string();
    let out = rig.hook("cline", &[], &pre_tool_use(&project, "echo unsafe"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        answer(&out),
        json!({"overrideInput": {"commands": ["echo safe"]}, "contextModification": "rewritten by policy"})
    );
}

/// A Cline hook file (in a project's `.clinerules/hooks/`) that keeps its payload and
/// answers `answer_text` with exit `code`.
fn cline_hook(rig: &Rig, answer_text: &str, code: i32) -> std::path::PathBuf {
    let got = rig.root().join("cline-got.json");
    rig.write(
        "project/.clinerules/hooks/PreToolUse.sh",
        &format!(
            "#!/bin/sh\ncat > '{}'\nprintf '%s\\n' '{answer_text}'\nexit {code}\n",
            got.display()
        ),
    );
    got
}

/// Claude Code's PreToolUse payload for `command`, in `project`.
fn claude_pre_tool_use(project: &str, command: &str) -> String {
    json!({"session_id": "s1", "transcript_path": "/t", "cwd": project,
        "hook_event_name": "PreToolUse", "permission_mode": "default", "tool_name": "Bash",
        "tool_input": {"command": command}, "tool_use_id": "toolu_9"})
    .to_string()
}

#[test]
fn cline_s_hook_file_under_claude_code_gets_cline_s_payload_and_its_cancel_blocks() {
    let rig = rig();
    let got = cline_hook(
        &rig,
        r#"{"cancel": true, "errorMessage": "the Cline guard says no"}"#,
        1,
    );
    rig.run(&["trust"]);
    let project = rig.project().display().to_string();
    let out = rig.hook(
        "claude",
        &["--with", "cline"],
        &claude_pre_tool_use(&project, "ls"),
    );
    let seen: Value =
        serde_json::from_str(&std::fs::read_to_string(&got).unwrap_or_default()).unwrap();
    assert_eq!(seen["hookName"], "tool_call");
    assert_eq!(seen["taskId"], "s1");
    assert_eq!(seen["workspaceRoots"], json!([project]));
    assert_eq!(
        seen["tool_call"],
        json!({"id": "toolu_9", "name": "run_commands", "input": {"commands": ["ls"]}})
    );
    assert_eq!(
        seen["preToolUse"],
        json!({"toolName": "run_commands", "parameters": {"commands": "[\"ls\"]"}})
    );
    // Cline's cancel stops the tool and the agent: Claude Code's `continue: false`.
    let answer = answer(&out);
    assert_eq!(answer["continue"], false, "{answer}");
    assert_eq!(
        answer["hookSpecificOutput"]["permissionDecision"], "deny",
        "{answer}"
    );
    assert!(
        answer.to_string().contains("the Cline guard says no"),
        "{answer}"
    );
    // Its exit code 1 is told to the user, not taken as a decision.
    assert!(
        answer["systemMessage"]
            .as_str()
            .is_some_and(|m| m.contains("exited with code 1; Cline reads no exit code")),
        "{answer}"
    );
}

#[test]
fn cline_s_hook_file_s_override_input_and_bad_json_read_as_cline_reads_them() {
    let rig = rig();
    cline_hook(
        &rig,
        r#"{"overrideInput": {"commands": ["echo safe"]}, "contextModification": "from Cline"}"#,
        0,
    );
    rig.run(&["trust"]);
    let project = rig.project().display().to_string();
    let out = rig.hook(
        "claude",
        &["--with", "cline"],
        &claude_pre_tool_use(&project, "ls"),
    );
    let answer_value = answer(&out);
    assert_eq!(
        answer_value["hookSpecificOutput"]["updatedInput"],
        json!({"command": "echo safe"}),
        "{answer_value}"
    );
    assert_eq!(
        answer_value["hookSpecificOutput"]["additionalContext"], "from Cline",
        "{answer_value}"
    );
    cline_hook(&rig, "not json", 2);
    rig.run(&["trust"]);
    let out = rig.hook(
        "claude",
        &["--with", "cline"],
        &claude_pre_tool_use(&project, "ls"),
    );
    // Neither exit 2 nor the output blocks: Cline reads neither; the user is told.
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let answer_value = answer(&out);
    assert!(
        answer_value.get("hookSpecificOutput").is_none(),
        "{answer_value}"
    );
    let message = answer_value["systemMessage"].as_str().unwrap_or_default();
    assert!(message.contains("exited with code 2"), "{message}");
    assert!(
        message.contains("printed something that is not JSON"),
        "{message}"
    );
}

#[test]
fn events_lists_cline_s_column() {
    let rig = rig();
    let out = rig.run(&["events"]);
    assert!(stdout(&out).contains("Cline"), "{}", stdout(&out));
}
