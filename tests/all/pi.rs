//! pi through the real program: `install --agent pi` writes agent-hooks' extension and
//! nothing else, `uninstall` takes exactly it away (and the folders it made), `list` and
//! `doctor` say whether pi is wired, and `hook --agent pi` reads the request that extension
//! sends (pi's event and tool names) and answers in the form it reads.

use std::path::{Path, PathBuf};

use agent_hooks_tests::{
    cli::{stderr, stdout},
    relay_bin,
    rig::{AgentHook, Rig},
};
use serde_json::json;

/// The user-level extension's path.
fn user_extension(rig: &Rig) -> PathBuf {
    rig.home().join(".pi/agent/extensions/agent-hooks.ts")
}

/// A rig whose program has its relay beside it, as `cargo install` lays them out: `install`
/// writes the relay into the extension only when it is there.
fn rig() -> Rig {
    relay_bin();
    Rig::new()
}

/// The command the extension runs: the relay beside the program, quoted.
fn relay_command() -> String {
    format!("'{}' --agent pi", relay_bin().display())
}

#[test]
fn install_writes_the_extension_with_the_program_in_it_and_uninstall_leaves_pi_s_folder_as_it_was()
{
    let rig = rig();
    rig.write("home/.pi/agent/settings.json", "{}\n");
    rig.write(
        "home/.pi/agent/extensions/mine.ts",
        "export default () => {};\n",
    );
    let before = agent_hooks_tests::tree(&rig.home(), |_| false);
    let out = rig.run(&["install", "--agent", "pi"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let extension = user_extension(&rig);
    assert_eq!(
        stdout(&out),
        format!(
            "pi now runs `{}` for 8 events: {}\n\
             pi loads it when it starts (/reload in a running pi); a project's extensions load once pi trusts the project.\n\
             Undo with: agent-hooks uninstall --agent pi\n",
            relay_command(),
            extension.display()
        )
    );
    let text = std::fs::read_to_string(&extension).unwrap();
    assert!(
        text.contains(&format!("const COMMAND = {};", json!(relay_command()))),
        "{text}"
    );
    assert!(text.contains("export default function agentHooks(pi"));
    let out = rig.run(&["uninstall", "--agent", "pi"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with(&format!(
            "pi no longer runs agent-hooks: {}\n",
            extension.display()
        )),
        "{}",
        stdout(&out)
    );
    let after: Vec<_> = agent_hooks_tests::tree(&rig.home(), |_| false)
        .into_iter()
        .filter(|(p, _)| p.starts_with(".pi"))
        .collect();
    let before: Vec<_> = before
        .into_iter()
        .filter(|(p, _)| p.starts_with(".pi"))
        .collect();
    assert_eq!(after, before);
}

#[test]
fn a_project_s_extension_goes_in_its_pi_extensions_and_its_folders_go_with_it() {
    let rig = rig();
    let out = rig.run(&["install", "--agent", "pi", "--project"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let extension = rig.project().join(".pi/extensions/agent-hooks.ts");
    assert!(
        stdout(&out).starts_with(&format!(
            "pi now runs `{}` for 8 events: {}\n",
            relay_command(),
            extension.display()
        )),
        "{}",
        stdout(&out)
    );
    assert!(stdout(&out).ends_with("Undo with: agent-hooks uninstall --agent pi --project\n"));
    assert!(extension.is_file());
    assert!(!user_extension(&rig).exists());
    let out = rig.run(&["uninstall", "--agent", "pi", "--project"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!rig.project().join(".pi").exists());
}

#[test]
fn installing_pi_again_is_a_no_op_that_says_so() {
    let rig = rig();
    assert!(rig.run(&["install", "--agent", "pi"]).status.success());
    let extension = user_extension(&rig);
    let written = std::fs::read_to_string(&extension).unwrap();
    let out = rig.run(&["install", "--agent", "pi"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        format!(
            "pi already runs agent-hooks, installed with these options: {}. Nothing to do.\n",
            extension.display()
        )
    );
    assert_eq!(std::fs::read_to_string(&extension).unwrap(), written);
}

#[test]
fn uninstall_refuses_an_extension_the_user_changed_and_says_what_to_do() {
    let rig = rig();
    assert!(rig.run(&["install", "--agent", "pi"]).status.success());
    let extension = user_extension(&rig);
    let changed = format!("{}// mine\n", std::fs::read_to_string(&extension).unwrap());
    std::fs::write(&extension, &changed).unwrap();
    let out = rig.run(&["uninstall", "--agent", "pi"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        format!(
            "agent-hooks: {} was changed since agent-hooks wrote it; remove it by hand if you no longer want it\n",
            extension.display()
        )
    );
    assert_eq!(std::fs::read_to_string(&extension).unwrap(), changed);
}

#[test]
fn list_and_doctor_say_whether_pi_is_wired() {
    let rig = rig();
    let not_wired = "  pi: not wired (agent-hooks install --agent pi)\n";
    let out = rig.run(&["doctor"]);
    assert!(stdout(&out).contains(not_wired), "{}", stdout(&out));
    assert!(rig.run(&["install", "--agent", "pi"]).status.success());
    let wired = format!(
        "  pi: runs agent-hooks: {}\n",
        user_extension(&rig).display()
    );
    for command in ["list", "doctor"] {
        let out = rig.run(&[command]);
        assert!(stdout(&out).contains(&wired), "{}", stdout(&out));
    }
}

/// A `tool_call` request as pi's extension sends it.
fn tool_call(project: &Path, tool: &str, input: serde_json::Value) -> String {
    json!({
        "hook_event_name": "tool_call",
        "cwd": project,
        "session_id": "019af0c2-5b1e-7000-8000-000000000001",
        "tool_name": tool,
        "tool_input": input,
        "tool_use_id": "toolu_1",
    })
    .to_string()
}

#[test]
fn a_claude_code_guard_on_bash_blocks_pi_s_bash_and_nothing_else() {
    let rig = rig();
    rig.write(
        "home/.claude/settings.json",
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
            "command": "echo 'no shell under this guard' >&2; exit 2"}]}]}}"#,
    );
    let bash = tool_call(&rig.project(), "bash", json!({"command": "ls"}));
    let out = rig.hook("pi", &["--with", "claude"], &bash);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(stderr(&out), "no shell under this guard\n");
    assert_eq!(stdout(&out), "");
    let read = tool_call(&rig.project(), "read", json!({"path": "README.md"}));
    let out = rig.hook("pi", &["--with", "claude"], &read);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "");
    // Without --with, Claude Code's files are not pi's: nothing runs.
    let out = rig.hook("pi", &[], &bash);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn a_rewritten_input_comes_back_in_pi_s_fields_under_pi_s_event_name() {
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
    let bash = tool_call(&rig.project(), "bash", json!({"command": "rm -rf /"}));
    let out = rig.hook("pi", &[], &bash);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let answer: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        answer,
        json!({"hookSpecificOutput": {"hookEventName": "tool_call",
            "updatedInput": {"command": "echo safe"}}})
    );
}

#[test]
fn doctor_says_when_the_program_pi_s_extension_runs_is_gone() {
    let rig = rig();
    let out = rig.run(&[
        "install",
        "--agent",
        "pi",
        "--program",
        "/nonexistent/agent-hooks",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = rig.run(&["doctor"]);
    let said = format!(
        "{}: pi's entry runs /nonexistent/agent-hooks, which is gone (uninstalled or moved): pi's events get no hooks",
        user_extension(&rig).display()
    );
    assert!(
        stdout(&out).contains(&said) || stderr(&out).contains(&said),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
}

#[test]
fn a_claude_code_hook_on_write_sees_pi_s_write_with_claude_code_s_fields() {
    let rig = rig();
    rig.write(
        "home/.claude/settings.json",
        r#"{"hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command",
            "command": "p=$(cat); echo \"$p\" | grep -q '\"tool_name\":\"Write\"' && echo \"$p\" | grep -q '\"file_path\":\"notes.txt\"' && { echo 'seen as Write with file_path' >&2; exit 2; }; exit 0"}]}]}}"#,
    );
    let write = tool_call(
        &rig.project(),
        "write",
        json!({"path": "notes.txt", "content": "x"}),
    );
    let out = rig.hook("pi", &["--with", "claude"], &write);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(stderr(&out), "seen as Write with file_path\n");
}

#[test]
fn a_claude_code_hook_s_rewrite_of_write_comes_back_in_pi_s_fields() {
    let rig = rig();
    let rewrite = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "updatedInput": {"file_path": "other.txt", "content": "y"}}})
    .to_string();
    rig.write(
        "home/.claude/settings.json",
        &json!({"hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command",
            "command": format!("echo '{rewrite}'")}]}]}})
        .to_string(),
    );
    let write = tool_call(
        &rig.project(),
        "write",
        json!({"path": "notes.txt", "content": "x"}),
    );
    let out = rig.hook("pi", &["--with", "claude"], &write);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let answer: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        answer,
        json!({"hookSpecificOutput": {"hookEventName": "tool_call",
            "updatedInput": {"path": "other.txt", "content": "y"}}})
    );
}

#[test]
fn install_with_take_over_is_refused_for_pi_which_has_no_hooks_files() {
    let rig = rig();
    let out = rig.run(&["install", "--agent", "pi", "--take-over"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "agent-hooks: install does not apply --take-over: this agent has no hooks files of its own to move under agent-hooks; run install without it\n"
    );
    assert!(!rig.home().join(".pi").exists());
}

#[test]
fn a_native_plugin_s_change_of_a_result_comes_back_whole_for_pi() {
    let rig = rig();
    agent_hooks_tests::copy_to(
        &agent_hooks_tests::plugin("redact-secrets"),
        &rig.user_hooks(),
        "libredact_secrets.so",
    );
    let result = json!({
        "hook_event_name": "tool_result",
        "cwd": rig.project(),
        "session_id": "019af0c2-5b1e-7000-8000-000000000001",
        "tool_name": "read",
        "tool_input": {"path": ".env"},
        "tool_use_id": "toolu_1",
        "tool_response": {"output": "API_KEY=s3cr3t\nDEBUG=1", "is_error": false},
    })
    .to_string();
    let out = rig.hook("pi", &[], &result);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let answer: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        answer,
        json!({"content": [{"type": "text", "text": "API_KEY=[REDACTED]\nDEBUG=1"}]})
    );
    // Under Claude Code the same answer carries no result (it takes none).
    let claude = result
        .replace("\"tool_result\"", "\"PostToolUse\"")
        .replace("\"read\"", "\"Read\"");
    let out = rig.hook("claude", &[], &claude);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "");
}
