//! Factory Droid through the real program: `install --agent droid` adds one command entry per
//! event to the `hooks` of `~/.factory/settings.json` (or the project's) and `uninstall` takes
//! exactly them away; `hook --agent droid` reads droid's payloads (its tool names, `Execute`,
//! `Create`, ...) and answers in Claude Code's form, which droid reads; droid's own files
//! (`settings.json` and `hooks.json` under `.factory/`) run under another agent when named
//! with `--with droid`, with droid's names. The payloads are the ones droid 0.215.0 sent its
//! hooks in a real session (tests/real-agents/droid.rs runs droid itself).

use std::path::{Path, PathBuf};

use agent_hooks_tests::{
    cli::{stderr, stdout},
    relay_bin,
    rig::{AgentHook, Rig},
};
use serde_json::{json, Value};

/// A rig whose program has its relay beside it, as `cargo install` lays them out.
fn rig() -> Rig {
    relay_bin();
    Rig::new()
}

/// The command each entry runs: the relay beside the program, quoted.
fn relay_command() -> String {
    format!("'{}' --agent droid", relay_bin().display())
}

/// The events install wires, in the order it writes them.
const EVENTS: [&str; 9] = [
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "Notification",
    "SubagentStop",
    "Stop",
    "PreCompact",
    "SessionEnd",
];

fn user_settings(rig: &Rig) -> PathBuf {
    rig.home().join(".factory/settings.json")
}

/// A `PreToolUse` payload as droid 0.215.0 sends it for `tool` with `input`.
fn pre_tool_use(project: &Path, tool: &str, input: Value) -> String {
    json!({
        "session_id": "0dd65094-78da-4f1e-8d76-a5987a701b0e",
        "transcript_path": "/nonexistent/session.jsonl",
        "cwd": project,
        "permission_mode": "auto-high",
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": input,
    })
    .to_string()
}

/// Droid's shell call running `command`, with the risk fields its model fills.
fn execute(project: &Path, command: &str) -> String {
    pre_tool_use(
        project,
        "Execute",
        json!({"command": command, "riskLevel": "low", "riskLevelReason": "a test"}),
    )
}

#[test]
fn install_adds_one_entry_per_event_and_uninstall_leaves_droid_s_settings_as_they_were() {
    let rig = rig();
    let own = "{\n  // the user's own\n  \"model\": \"custom:Fake-0\",\n  \"hooks\": {\"PreToolUse\": [{\"matcher\": \"Execute\", \"hooks\": [{\"type\": \"command\", \"command\": \"true\"}]}]}\n}\n";
    let settings = rig.write("home/.factory/settings.json", own);
    // A hook on each event: install wires only the events some hook uses.
    let every = rig.hooks_on_every_event("droid");
    let out = rig.run(&["install", "--agent", "droid"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        format!(
            "Factory Droid now runs `{}` for 9 events: {}\nUndo with: agent-hooks uninstall --agent droid\n",
            relay_command(),
            settings.display()
        )
    );
    let text = std::fs::read_to_string(&settings).unwrap();
    assert!(text.contains("// the user's own"), "{text}");
    // Every event gets one group with the one command entry (before the user's own group on
    // PreToolUse, which stays).
    let entry = format!(
        "{{\"hooks\":[{{\"type\":\"command\",\"command\":{},\"timeout\":600}}]}}",
        json!(relay_command())
    );
    assert_eq!(text.matches(&entry).count(), EVENTS.len(), "{text}");
    for event in EVENTS {
        assert_eq!(
            text.matches(&format!("\"{event}\": [{entry}")).count(),
            1,
            "{event}: {text}"
        );
    }
    assert!(
        text.contains(
            r#"{"matcher": "Execute", "hooks": [{"type": "command", "command": "true"}]}"#
        ),
        "{text}"
    );
    let wired = format!(
        "  Factory Droid: runs agent-hooks: {}\n",
        settings.display()
    );
    for command in ["list", "doctor"] {
        let out = rig.run(&[command]);
        assert!(stdout(&out).contains(&wired), "{}", stdout(&out));
    }
    let out = rig.run(&["uninstall", "--agent", "droid"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), own);
    std::fs::remove_file(every).unwrap();
    let out = rig.run(&["doctor"]);
    assert!(
        stdout(&out).contains("  Factory Droid: not wired (agent-hooks install --agent droid)\n"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_project_install_goes_into_the_project_s_factory_settings_and_leaves_no_file_behind() {
    let rig = rig();
    rig.hooks_on_every_event("droid");
    let out = rig.run(&["install", "--agent", "droid", "--project"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let settings = rig.project().join(".factory/settings.json");
    let value: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    let events: Vec<&str> = value["hooks"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    let mut expected = EVENTS.to_vec();
    expected.sort_unstable();
    let mut got = events.clone();
    got.sort_unstable();
    assert_eq!(got, expected);
    assert!(!user_settings(&rig).exists());
    let out = rig.run(&["uninstall", "--agent", "droid", "--project"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!settings.exists());
}

#[test]
fn install_refuses_where_droid_s_hooks_json_would_shadow_the_entries_and_doctor_says_so_later() {
    let rig = rig();
    let hooks_json = rig.write(
        "home/.factory/hooks.json",
        r#"{"PostToolUse": [{"matcher": "Create", "hooks": [{"type": "command", "command": "fmt"}]}]}"#,
    );
    let settings = user_settings(&rig);
    let out = rig.run(&["install", "--agent", "droid"]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert_eq!(
        stderr(&out),
        format!(
            "agent-hooks: {h} lists PostToolUse: Factory Droid reads that file's hooks for those events in place of the `hooks` of {s}, so agent-hooks would not run on them. Move those hooks into the `hooks` of {s} (Factory Droid runs both files' other events), then run install again\n",
            h = hooks_json.display(),
            s = settings.display()
        )
    );
    assert!(!settings.exists());
    // Installed first, shadowed after: doctor says which events agent-hooks no longer gets.
    std::fs::remove_file(&hooks_json).unwrap();
    assert!(rig.run(&["install", "--agent", "droid"]).status.success());
    rig.write("home/.factory/hooks.json", r#"{"Stop": []}"#);
    let out = rig.run(&["doctor"]);
    let said = format!(
        "{s}: {h} lists Stop, which Factory Droid reads in place of agent-hooks' entries there: agent-hooks does not run on them; move those hooks into the `hooks` of {s}",
        h = hooks_json.display(),
        s = settings.display()
    );
    assert!(stdout(&out).contains(&said), "{}", stdout(&out));
}

#[test]
fn a_claude_code_guard_on_bash_blocks_droid_s_execute_and_nothing_else() {
    let rig = rig();
    rig.write(
        "home/.claude/settings.json",
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
            "command": "echo \"no shell: $(cat | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d[\"tool_name\"], d[\"tool_input\"][\"command\"])')\" >&2; exit 2"}]}]}}"#,
    );
    let call = execute(&rig.project(), "ls -la");
    let out = rig.hook("droid", &["--with", "claude"], &call);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    // The Claude Code hook saw Bash with its command; droid gets the reason on stderr.
    assert_eq!(stderr(&out), "no shell: Bash ls -la\n");
    assert_eq!(stdout(&out), "");
    let read = pre_tool_use(
        &rig.project(),
        "Read",
        json!({"file_path": "/nonexistent/README.md"}),
    );
    let out = rig.hook("droid", &["--with", "claude"], &read);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "");
    // Without --with, Claude Code's files are not droid's: nothing runs.
    let out = rig.hook("droid", &[], &call);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn a_claude_code_hook_on_write_sees_droid_s_create_as_write_and_its_rewrite_comes_back_as_create() {
    let rig = rig();
    let rewrite = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "allow",
        "updatedInput": {"file_path": "/nonexistent/safe.txt", "content": "x"}}})
    .to_string();
    let seen = rig.root().join("seen.json");
    rig.write(
        "home/.claude/settings.json",
        &json!({"hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command",
            "command": format!("cat > '{}'; echo '{rewrite}'", seen.display())}]}]}})
        .to_string(),
    );
    let create = pre_tool_use(
        &rig.project(),
        "Create",
        json!({"file_path": "/nonexistent/unsafe.txt", "content": "x"}),
    );
    let out = rig.hook("droid", &["--with", "claude"], &create);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let payload: Value = serde_json::from_str(&std::fs::read_to_string(&seen).unwrap()).unwrap();
    assert_eq!(payload["tool_name"], "Write");
    assert_eq!(
        payload["tool_input"]["file_path"],
        "/nonexistent/unsafe.txt"
    );
    let answer: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        answer,
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "updatedInput": {"file_path": "/nonexistent/safe.txt", "content": "x"}}})
    );
}

#[test]
fn agent_hooks_own_hook_on_exec_rewrites_droid_s_command_in_droid_s_fields() {
    let rig = rig();
    let rewrite = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "updatedInput": {"command": "echo safe"}}})
    .to_string();
    rig.write(
        "home/.config/agent-hooks/hooks/rewrite.json",
        &json!({"PreToolUse": [{"matcher": "exec", "hooks": [{"type": "command",
            "command": format!("echo '{rewrite}'")}]}]})
        .to_string(),
    );
    let out = rig.hook("droid", &[], &execute(&rig.project(), "rm -rf /"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let answer: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        answer,
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
            "updatedInput": {"command": "echo safe"}}})
    );
}

/// A droid hooks file whose `PreToolUse` hook on `Execute` records its stdin and the
/// variables droid gives its hooks into `seen`, then blocks.
fn droid_guard(seen: &Path) -> String {
    json!({"PreToolUse": [{"matcher": "Execute", "hooks": [{"type": "command",
        "command": format!(
            "cat > '{s}'; echo \"$FACTORY_PROJECT_DIR|$DROID_PROJECT_DIR\" > '{s}.env'; echo 'droid guard says no' >&2; exit 2",
            s = seen.display()
        )}]}]})
    .to_string()
}

#[test]
fn droid_s_own_file_runs_under_claude_code_with_droid_s_names_when_named() {
    let rig = rig();
    let seen = rig.root().join("seen.json");
    rig.write("home/.factory/hooks.json", &droid_guard(&seen));
    let bash = json!({
        "session_id": "s-1", "transcript_path": "/nonexistent/t.jsonl", "cwd": rig.project(),
        "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": "make"}, "tool_use_id": "toolu_1",
    })
    .to_string();
    // Not named: droid's file is droid's.
    let out = rig.hook("claude", &[], &bash);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!seen.exists());
    let out = rig.hook("claude", &["--with", "droid"], &bash);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(stderr(&out), "droid guard says no\n");
    let payload: Value = serde_json::from_str(&std::fs::read_to_string(&seen).unwrap()).unwrap();
    assert_eq!(payload["tool_name"], "Execute");
    assert_eq!(payload["tool_input"]["command"], "make");
    assert_eq!(payload["hook_event_name"], "PreToolUse");
    // Droid sends no tool_use_id.
    assert_eq!(payload.get("tool_use_id"), None, "{payload}");
    let project = rig.project().display().to_string();
    assert_eq!(
        std::fs::read_to_string(format!("{}.env", seen.display())).unwrap(),
        format!("{project}|{project}\n")
    );
}

#[test]
fn a_project_s_droid_file_runs_under_another_agent_only_once_trusted() {
    let rig = rig();
    let seen = rig.root().join("seen.json");
    rig.write(
        "project/.factory/settings.json",
        &json!({"hooks": serde_json::from_str::<Value>(&droid_guard(&seen)).unwrap()}).to_string(),
    );
    let bash = json!({
        "session_id": "s-1", "cwd": rig.project(), "hook_event_name": "PreToolUse",
        "tool_name": "Bash", "tool_input": {"command": "make"},
    })
    .to_string();
    let out = rig.hook("claude", &["--with", "droid"], &bash);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!seen.exists(), "an untrusted project's droid hook ran");
    assert!(rig.run(&["trust"]).status.success());
    let out = rig.hook("claude", &["--with", "droid"], &bash);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(seen.exists());
}

#[test]
fn list_names_droid_s_files_and_their_dialect() {
    let rig = rig();
    let seen = rig.root().join("seen.json");
    let file = rig.write("home/.factory/hooks.json", &droid_guard(&seen));
    let out = rig.run(&["list"]);
    let text = stdout(&out);
    let line = text
        .lines()
        .find(|l| l.contains(&file.display().to_string()))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains("command (factory-droid)"), "{line}");
    assert!(line.contains("droid (user)"), "{line}");
    assert!(line.contains("PreToolUse [Execute]"), "{line}");
}

#[test]
fn feedback_after_droid_s_tool_is_an_exit_2_with_the_text_on_stderr_as_droid_reads_it() {
    let rig = rig();
    rig.write(
        "home/.claude/settings.json",
        r#"{"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
            "command": "echo 'the output holds a secret' >&2; exit 2"}]}]}}"#,
    );
    let post = json!({
        "session_id": "0dd65094-78da-4f1e-8d76-a5987a701b0e",
        "transcript_path": "/nonexistent/session.jsonl",
        "cwd": rig.project(),
        "permission_mode": "auto-high",
        "hook_event_name": "PostToolUse",
        "tool_name": "Execute",
        "tool_input": {"command": "cat .env", "riskLevel": "low", "riskLevelReason": "a test"},
        "tool_response": "Command completed successfully\n\n[Process exited with code 0]",
    })
    .to_string();
    let out = rig.hook("droid", &["--with", "claude"], &post);
    // Droid reads no `decision`/`reason` after a tool: the feedback is exit 2's stderr.
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert_eq!(stderr(&out), "the output holds a secret\n");
    assert_eq!(stdout(&out), "");
}

#[test]
fn a_droid_group_s_command_regex_is_said_not_read() {
    let rig = rig();
    let file = rig.write(
        "home/.factory/hooks.json",
        r#"{"PreToolUse": [{"matcher": "Execute", "commandRegex": "^git push", "hooks": [{"type": "command", "command": "guard"}]}]}"#,
    );
    let out = rig.run(&["list"]);
    let said = format!(
        "{} (PreToolUse[0].commandRegex): `commandRegex` is not read here: its hooks run on every call the matcher selects, whatever the command",
        file.display()
    );
    assert!(
        stdout(&out).contains(&said) || stderr(&out).contains(&said),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
}
