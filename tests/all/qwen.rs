//! Qwen Code through the real program: `hook --agent qwen` reads Qwen Code's payload (its
//! tool names) and answers in the fields Qwen Code 0.24.4 reads; Qwen Code's own settings
//! are read in its dialect (its matchers, its timeouts, `disableAllHooks`) and run under
//! another agent when named; `install --agent qwen` writes one entry per event into
//! `.qwen/settings.json` and `uninstall` gives back the same bytes; `--take-over` moves
//! Qwen Code's own hooks under agent-hooks and back.

use std::path::Path;

use agent_hooks_tests::{
    cli::{stderr, stdout},
    copy_to, plugin,
    rig::{AgentHook, Rig},
};
use serde_json::{json, Value};

/// A PreToolUse payload as Qwen Code 0.24.4 writes it for its shell tool.
fn qwen_pre(project: &Path, command: &str) -> String {
    json!({
        "session_id": "f3f24985-ab64-4389-ba0e-5527da4475ef",
        "transcript_path": "/nonexistent/chats/f3f24985.jsonl",
        "cwd": project,
        "hook_event_name": "PreToolUse",
        "timestamp": "2026-12-06T07:48:11.246Z",
        "permission_mode": "yolo",
        "prompt_id": "f3f24985-ab64-4389-ba0e-5527da4475ef########0",
        "tool_name": "run_shell_command",
        "tool_input": {"command": command, "description": "Run it"},
        "tool_use_id": "toolu_1796543291246_izpssgbbj",
        "tool_call_id": "toolu_0",
    })
    .to_string()
}

/// A PostToolUse payload as Qwen Code 0.24.4 writes it for its shell tool.
fn qwen_post(project: &Path, command: &str) -> String {
    json!({
        "session_id": "f3f24985",
        "transcript_path": "/nonexistent/chats/f3f24985.jsonl",
        "cwd": project,
        "hook_event_name": "PostToolUse",
        "timestamp": "2026-12-06T07:48:11.296Z",
        "permission_mode": "yolo",
        "tool_name": "run_shell_command",
        "tool_input": {"command": command, "description": "Run it"},
        "tool_response": {"llmContent": "Command: ls\nOutput: a\nExit Code: 0", "returnDisplay": ""},
        "tool_use_id": "toolu_1",
        "tool_call_id": "toolu_0",
        "duration_ms": 15,
    })
    .to_string()
}

fn answer(out: &std::process::Output) -> Value {
    serde_json::from_str(&stdout(out)).unwrap_or_else(|e| panic!("{e}: {}", stdout(out)))
}

#[test]
fn a_native_plugin_blocks_qwen_codes_shell_call() {
    let rig = Rig::new();
    copy_to(
        &plugin("block-dangerous"),
        &rig.user_hooks(),
        "libblock_dangerous.so",
    );
    let out = rig.hook("qwen", &[], &qwen_pre(&rig.project(), "rm -rf build"));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("Dangerous command blocked"),
        "{}",
        stderr(&out)
    );
    let out = rig.hook("qwen", &[], &qwen_pre(&rig.project(), "ls"));
    assert_eq!(
        (out.status.code(), stdout(&out), stderr(&out)),
        (Some(0), String::new(), String::new())
    );
}

/// Qwen Code 0.24.4 reads no rewritten input before a tool (it runs the call as the model
/// made it): a rewrite is a denial that gives the model the rewritten input, and the user
/// is told why.
#[test]
fn a_rewrite_is_denied_with_the_rewritten_input_named() {
    let rig = Rig::new();
    let rewrite = r#"{"PreToolUse": [{"matcher": "exec", "hooks": [{"type": "command",
        "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"allow\", \"updatedInput\": {\"command\": \"rtk git status\"}}}'"}]}]}"#;
    std::fs::write(rig.user_hooks().join("rewrite.json"), rewrite).unwrap();
    let out = rig.hook("qwen", &[], &qwen_pre(&rig.project(), "git status"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let answer = answer(&out);
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "deny");
    assert_eq!(answer["hookSpecificOutput"]["hookEventName"], "PreToolUse");
    assert_eq!(
        answer["hookSpecificOutput"]["permissionDecisionReason"],
        "This call was not run: a hook changed its input to {\"command\":\"rtk git status\"}, and Qwen Code cannot run a changed call. Make the call with that input instead."
    );
    assert!(
        answer["systemMessage"]
            .as_str()
            .unwrap()
            .starts_with("agent-hooks: a hook rewrote this tool call"),
        "{answer}"
    );
}

/// After a tool Qwen Code reads `additionalContext` and `continue` only: a block's reason
/// (exit 2, or `decision: block`) reaches its model as context.
#[test]
fn what_a_hook_tells_the_model_after_a_tool_is_context() {
    let rig = Rig::new();
    let post = r#"{"PostToolUse": [{"matcher": "exec", "hooks": [{"type": "command",
        "command": "echo 'the output holds a secret' >&2; exit 2"}]}]}"#;
    std::fs::write(rig.user_hooks().join("post.json"), post).unwrap();
    let out = rig.hook("qwen", &[], &qwen_post(&rig.project(), "ls"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        answer(&out),
        json!({"hookSpecificOutput": {"hookEventName": "PostToolUse",
            "additionalContext": "the output holds a secret"}})
    );
}

/// Qwen Code's own settings: under `hook --agent qwen` they are Qwen Code's to run (it runs
/// them itself); under Claude Code they run when named, a matcher on Qwen Code's tool name
/// selecting Claude Code's `Bash`, and one on Claude Code's name (an alias Qwen Code
/// takes) too.
#[test]
fn qwen_codes_settings_run_under_another_agent_when_named() {
    let rig = Rig::new();
    rig.write(
        "home/.qwen/settings.json",
        r#"{
  // Qwen Code strips comments
  "hooks": {"PreToolUse": [
    {"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "echo \"qwen-guard $QWEN_PROJECT_DIR\" >&2; exit 2", "timeout": 5}]},
    {"matcher": "Write", "hooks": [{"type": "command", "command": "echo qwen-write-guard >&2; exit 2"}]}
  ]},
  "$version": 4
}"#,
    );
    let out = rig.hook("qwen", &[], &qwen_pre(&rig.project(), "ls"));
    assert_eq!(out.status.code(), Some(0), "its own: {}", stderr(&out));
    let claude = json!({"session_id": "c", "transcript_path": "/nonexistent/t.jsonl",
        "cwd": rig.project(), "permission_mode": "default", "hook_event_name": "PreToolUse",
        "tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t"});
    let out = rig.hook("claude", &[], &claude.to_string());
    assert_eq!(out.status.code(), Some(0), "not named: {}", stderr(&out));
    let out = rig.hook("claude", &["--with", "qwen"], &claude.to_string());
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        format!("qwen-guard {}\n", rig.project().display())
    );
    let write = json!({"session_id": "c", "transcript_path": "/nonexistent/t.jsonl",
        "cwd": rig.project(), "permission_mode": "default", "hook_event_name": "PreToolUse",
        "tool_name": "Write", "tool_input": {"file_path": "a.txt", "content": "x"},
        "tool_use_id": "t"});
    let out = rig.hook("claude", &["--with", "qwen"], &write.to_string());
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(stderr(&out), "qwen-write-guard\n");
}

/// `list` reads Qwen Code's settings as it does: a timeout under 1000 is seconds, 1000 or
/// more milliseconds; `disableAllHooks: true` turns the file's hooks off, said where the
/// user looks.
#[test]
fn qwen_codes_timeouts_and_its_switch_are_read_as_it_reads_them() {
    let rig = Rig::new();
    let settings = rig.write(
        "home/.qwen/settings.json",
        r#"{"hooks": {"Stop": [{"hooks": [
            {"type": "command", "command": "seconds", "timeout": 5},
            {"type": "command", "command": "milliseconds", "timeout": 5000}
        ]}]}}"#,
    );
    let list = stdout(&rig.run(&["list"]));
    assert!(list.contains("Stop: seconds"), "{list}");
    let mut hooks = agent_hooks::command_hook::CommandHooks::new();
    hooks.load_file(&settings);
    let timeouts: Vec<(String, u128)> = hooks
        .hooks()
        .map(|h| (h.kind.label().into_owned(), h.timeout.as_millis()))
        .collect();
    assert_eq!(
        timeouts,
        vec![("seconds".into(), 5000), ("milliseconds".into(), 5000)]
    );
    rig.write(
        "home/.qwen/settings.json",
        r#"{"disableAllHooks": true, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "off"}]}]}}"#,
    );
    let out = rig.run(&["doctor"]);
    let text = format!("{}{}", stdout(&out), stderr(&out));
    assert!(
        text.contains(
            "Qwen Code's hooks are turned off in this file (`disableAllHooks: true`); none of its hooks run"
        ),
        "{text}"
    );
}

/// Qwen Code's settings with its own key and an existing hook.
const QWEN_SETTINGS: &str = "{\n  \"model\": {\"name\": \"qwen3-coder-plus\"},\n  // mine\n  \"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"x\"}]}]},\n  \"$version\": 4\n}\n";

#[test]
fn install_writes_one_entry_per_event_and_uninstall_gives_the_same_bytes() {
    let rig = Rig::new();
    // A hook on each event: install wires only the events some hook uses.
    rig.hooks_on_every_event("qwen");
    let settings = rig.write("project/.qwen/settings.json", QWEN_SETTINGS);
    let out = rig.run(&[
        "install",
        "--agent",
        "qwen",
        "--project",
        "--program",
        "agent-hooks",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with(&format!(
            "Qwen Code now runs `agent-hooks hook --agent qwen` for 18 events: {}\n",
            settings.display()
        )),
        "{}",
        stdout(&out)
    );
    let text = std::fs::read_to_string(&settings).unwrap();
    assert!(text.contains("// mine"), "{text}");
    let stripped: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let value: Value = serde_json::from_str(&stripped).unwrap();
    let events: Vec<&String> = value["hooks"].as_object().unwrap().keys().collect();
    assert_eq!(events.len(), 18, "{text}");
    assert!(!events.iter().any(|e| *e == "MessageDisplay"), "{text}");
    for (event, groups) in value["hooks"].as_object().unwrap() {
        let ours: Vec<&Value> = groups
            .as_array()
            .unwrap()
            .iter()
            .filter(|g| g["hooks"][0]["command"] == "agent-hooks hook --agent qwen")
            .collect();
        assert_eq!(ours.len(), 1, "{event}: {text}");
        assert_eq!(
            ours[0]["hooks"][0],
            json!({"type": "command", "name": "agent-hooks",
                "command": "agent-hooks hook --agent qwen", "timeout": 600}),
            "{event}"
        );
    }
    assert_eq!(value["hooks"]["Stop"].as_array().unwrap().len(), 2);
    let list = stdout(&rig.run(&["list"]));
    assert!(
        list.contains(&format!(
            "Qwen Code: runs agent-hooks: {}",
            settings.display()
        )),
        "{list}"
    );
    let again = rig.run(&[
        "install",
        "--agent",
        "qwen",
        "--project",
        "--program",
        "agent-hooks",
    ]);
    assert!(
        stdout(&again).contains("already runs agent-hooks"),
        "{}",
        stdout(&again)
    );
    let out = rig.run(&["uninstall", "--agent", "qwen", "--project"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), QWEN_SETTINGS);
    // No file before, none after.
    let user = rig.home().join(".qwen/settings.json");
    assert!(rig.run(&["install", "--agent", "qwen"]).status.success());
    assert!(user.exists());
    assert!(rig.run(&["uninstall", "--agent", "qwen"]).status.success());
    assert!(!user.exists());
}

/// Every installed event, answered with nothing to act on when no hook decides.
#[test]
fn each_installed_event_gets_nothing_to_act_on_without_a_hook() {
    let rig = Rig::new();
    let out = rig.run(&["install", "--agent", "qwen", "--program", "agent-hooks"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = std::fs::read_to_string(rig.home().join(".qwen/settings.json")).unwrap();
    let value: Value = serde_json::from_str(&text).unwrap();
    for event in value["hooks"].as_object().unwrap().keys() {
        let payload = json!({"session_id": "s", "transcript_path": "/nonexistent/t.jsonl",
            "cwd": rig.project(), "hook_event_name": event, "timestamp": "2026-12-06T07:48:11Z",
            "permission_mode": "yolo", "tool_name": "run_shell_command",
            "tool_input": {"command": "ls"}, "tool_use_id": "t-1",
            "tool_response": {"llmContent": "a", "returnDisplay": ""}, "prompt": "hello",
            "source": "startup", "stop_hook_active": false, "reason": "other",
            "trigger": "manual"});
        let out = rig.hook("qwen", &[], &payload.to_string());
        assert_eq!(
            (out.status.code(), stdout(&out), stderr(&out)),
            (Some(0), String::new(), String::new()),
            "{event}"
        );
    }
}

/// `--take-over`: Qwen Code's own hooks move under agent-hooks, run there (once trusted, for
/// a project's), and come back byte for byte.
#[test]
fn qwen_codes_hooks_are_taken_over_and_put_back() {
    let rig = Rig::new();
    let qwen = "{\n  // the guard\n  \"hooks\": {\"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"echo qwen-guard >&2; exit 2\", \"timeout\": 5}]}]},\n  \"$version\": 4\n}\n";
    let file = rig.write("home/.qwen/settings.json", qwen);
    let out = rig.run(&["install", "--agent", "qwen", "--take-over"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(!text.contains("qwen-guard"), "{text}");
    assert!(text.contains(" --agent qwen\""), "{text}");
    let out = rig.hook("qwen", &[], &qwen_pre(&rig.project(), "ls"));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("qwen-guard"), "{}", stderr(&out));
    let out = rig.run(&["uninstall", "--agent", "qwen"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), qwen);
}
