//! What a Claude Code user does in a first hour with agent-hooks, through the real program
//! with a private home and project: take over a project's hooks, look at them with `list`
//! and `doctor`, install again, add a long-running guard, uninstall, and clear trust.

use std::path::Path;

use agent_hooks_tests::{
    cli::{stderr, stdout},
    rig::{AgentHook, Rig},
};
use serde_json::json;

/// A PreToolUse payload as Claude Code writes it for its Bash tool.
fn claude_pre(project: &Path, command: &str) -> String {
    json!({
        "session_id": "first-hour-1",
        "cwd": project,
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": "toolu_01",
    })
    .to_string()
}

#[test]
fn a_lone_star_matcher_in_an_agent_hooks_file_matches_every_tool() {
    let rig = Rig::new();
    // Written as in Claude Code's settings: `*` for every tool.
    std::fs::write(
        rig.user_hooks().join("guard.json"),
        r#"{"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command",
            "command": "grep -q 'rm -rf' && { echo 'no rm -rf here' >&2; exit 2; }; exit 0"}]}],
           "PostToolUse": [{"matcher": "*exec", "hooks": [{"type": "command", "command": "true"}]}]}"#,
    )
    .unwrap();
    let out = rig.hook("claude", &[], &claude_pre(&rig.project(), "rm -rf ~"));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("no rm -rf here"), "{}", stderr(&out));
    // Another invalid regex is still refused, saying why and what `*` means.
    let out = rig.run(&["list"]);
    let said = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains("invalid matcher `*exec`: it is not a valid regular expression")
            && said.contains("`*` alone matches every tool, and in a regular expression `.*` is any text; its hooks are skipped"),
        "{said}"
    );
    assert!(
        said.contains("PreToolUse: grep -q"),
        "the `*` hook is listed, with no matcher (every tool): {said}"
    );
}

#[test]
fn a_long_running_guard_that_prints_a_debugging_line_is_told_it_broke_the_protocol() {
    let rig = Rig::new();
    let guard = rig.write(
        "home/guard.sh",
        "#!/bin/sh\n\
         echo '{\"type\":\"hello\",\"protocol\":1,\"name\":\"guard\"}'\n\
         while read -r line; do\n\
           case \"$line\" in *'\"type\":\"event\"'*) echo \"debug: got an event\" ;; esac\n\
         done\n",
    );
    std::fs::write(
        rig.user_hooks().join("guard.json"),
        json!({"PreToolUse": [{"matcher": "exec", "hooks": [{"type": "command",
            "command": format!("sh {}", guard.display()), "persistent": true, "timeout": 5}]}]})
        .to_string(),
    )
    .unwrap();
    let out = rig.hook("claude", &["--no-serve"], &claude_pre(&rig.project(), "ls"));
    let said = format!("{}{}", stdout(&out), stderr(&out));
    assert!(
        said.contains("wrote a line that is not a protocol message")
            && said.contains("debug: got an event")
            && said.contains("a protocol error, so it was stopped: everything a long-running hook prints on stdout must be a protocol message (one JSON object per line); print debugging output on stderr instead"),
        "{said}"
    );
    assert!(!said.contains("not trusted"), "not a matter of trust: {said}");
}
