//! `agent-hooks hook --agent NAME` and `agent-hooks install`/`uninstall`, through the real
//! program: an agent's payload on stdin, the agent's answer on the exit code and the two
//! channels; the agent's configuration file edited and restored byte for byte.

use std::path::Path;

use agent_hooks_tests::{
    cli::{stderr, stdout},
    copy_to, plugin,
    rig::{AgentHook, Rig},
};
use serde_json::{json, Value};

/// A PreToolUse payload as Claude Code writes it for its Bash tool.
fn claude_pre(project: &Path, command: &str) -> String {
    json!({
        "session_id": "3b1e7c52-0d4e-4a57-9f59-1c1f2b0e9d11",
        "transcript_path": "/nonexistent/transcript.jsonl",
        "cwd": project,
        "permission_mode": "bypassPermissions",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "Run it"},
        "tool_use_id": "toolu_01",
    })
    .to_string()
}

/// A BeforeTool payload as Gemini CLI writes it.
fn gemini_pre(project: &Path, command: &str) -> String {
    json!({
        "session_id": "g-1",
        "transcript_path": "/nonexistent/t.json",
        "cwd": project,
        "hook_event_name": "BeforeTool",
        "timestamp": "2026-12-01T20:00:00.000Z",
        "tool_name": "run_shell_command",
        "tool_input": {"command": command},
    })
    .to_string()
}

/// A guard in agent-hooks' own hooks folder: exit 2 on `rm -rf`.
fn guard_file(rig: &Rig) {
    let guard = r#"{"PreToolUse": [{"matcher": "exec", "hooks": [{"type": "command",
        "command": "grep -q 'rm -rf' && { echo 'the guard refuses rm -rf' >&2; exit 2; }; exit 0"}]}]}"#;
    std::fs::write(rig.user_hooks().join("guard.json"), guard).unwrap();
}

#[test]
fn a_hook_of_agent_hooks_blocks_a_claude_code_tool_call_with_exit_2() {
    let rig = Rig::new();
    guard_file(&rig);
    let out = rig.hook("claude", &[], &claude_pre(&rig.project(), "rm -rf /"));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("the guard refuses rm -rf"),
        "{}",
        stderr(&out)
    );
    assert_eq!(stdout(&out), "");
    let out = rig.hook("claude", &[], &claude_pre(&rig.project(), "ls"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "");
}

#[test]
fn a_native_plugin_blocks_under_gemini_cli() {
    let rig = Rig::new();
    copy_to(
        &plugin("block-dangerous"),
        &rig.user_hooks(),
        "libblock_dangerous.so",
    );
    let out = rig.hook("gemini", &[], &gemini_pre(&rig.project(), "rm -rf build"));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("Dangerous command blocked"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_rewrite_is_answered_in_each_agents_field() {
    let rig = Rig::new();
    let rewrite = r#"{"PreToolUse": [{"matcher": "exec", "hooks": [{"type": "command",
        "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"allow\", \"updatedInput\": {\"command\": \"rtk git status\"}}}'"}]}]}"#;
    std::fs::write(rig.user_hooks().join("rewrite.json"), rewrite).unwrap();
    let out = rig.hook("claude", &[], &claude_pre(&rig.project(), "git status"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let answer: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        answer["hookSpecificOutput"]["updatedInput"]["command"],
        "rtk git status"
    );
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "allow");
    assert_eq!(answer["hookSpecificOutput"]["hookEventName"], "PreToolUse");
    let out = rig.hook("gemini", &[], &gemini_pre(&rig.project(), "git status"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let answer: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        answer["hookSpecificOutput"]["tool_input"]["command"],
        "rtk git status"
    );
    assert_eq!(answer["hookSpecificOutput"]["hookEventName"], "BeforeTool");
    // Copilot CLI's own payload: the rewrite is `modifiedArgs` (what Copilot CLI 1.0.102
    // runs; it ignores `updatedInput`).
    let copilot = json!({"sessionId": "c-1", "timestamp": 1, "cwd": rig.project(),
        "toolName": "bash", "toolArgs": {"command": "git status", "description": "Run it"}});
    let out = rig.hook("copilot", &["--event", "preToolUse"], &copilot.to_string());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let answer: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(answer["modifiedArgs"]["command"], "rtk git status");
    assert_eq!(answer["permissionDecision"], "allow");
}

#[test]
fn the_calling_agents_own_hooks_file_is_its_own_and_others_run_only_when_named() {
    let rig = Rig::new();
    // A user-level Claude Code hook (no trust needed) that blocks everything.
    rig.write(
        "home/.claude/settings.json",
        r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "echo claude-hook-ran >&2; exit 2"}]}]}}"#,
    );
    let payload = claude_pre(&rig.project(), "ls");
    let out = rig.hook("claude", &["--with", "claude"], &payload);
    assert_eq!(
        out.status.code(),
        Some(0),
        "Claude Code runs it itself: {}",
        stderr(&out)
    );
    let gemini = gemini_pre(&rig.project(), "ls");
    let out = rig.hook("gemini", &[], &gemini);
    assert_eq!(out.status.code(), Some(0), "not named: {}", stderr(&out));
    let out = rig.hook("gemini", &["--with", "claude"], &gemini);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("claude-hook-ran"), "{}", stderr(&out));
}

#[test]
fn another_wired_agents_entry_is_not_run_again() {
    let rig = Rig::new();
    // Claude Code wired to agent-hooks, then Gemini CLI running Claude Code's files: the
    // entry would call agent-hooks again (and block, to show it ran).
    rig.write(
        "home/.claude/settings.json",
        r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "/opt/bin/agent-hooks hook --agent claude; echo ran-again >&2; exit 2"}]}]}}"#,
    );
    let out = rig.hook(
        "gemini",
        &["--with", "claude"],
        &gemini_pre(&rig.project(), "ls"),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn an_untrusted_project_hook_does_not_run() {
    let rig = Rig::new();
    rig.write(
        "project/.agent-hooks/hooks/evil.json",
        r#"{"PreToolUse": [{"hooks": [{"type": "command", "command": "touch evil-ran; exit 2"}]}]}"#,
    );
    let out = rig.hook("claude", &[], &claude_pre(&rig.project(), "ls"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!rig.project().join("evil-ran").exists());
}

#[test]
fn a_malformed_payload_is_a_non_blocking_error_unless_a_hook_is_required() {
    let rig = Rig::new();
    for payload in ["not json", "[1, 2]", r#"{"tool_name": "Bash"}"#] {
        let out = rig.hook("claude", &[], payload);
        assert_eq!(out.status.code(), Some(1), "{payload}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(err.contains("hooks did not run"), "{err}");
        assert!(err.contains("Claude Code goes on without them"), "{err}");
    }
    guard_file(&rig);
    let out = rig.hook("claude", &["--require", "guard.json"], "not json");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("required hook guard.json could not run"),
        "{err}"
    );
    assert!(err.contains("agent-hooks doctor"), "{err}");
}

#[test]
fn a_payload_past_the_limit_is_refused() {
    let rig = Rig::new();
    let big = format!(
        "{{\"hook_event_name\": \"PreToolUse\", \"x\": \"{}\"}}",
        "a".repeat(17 << 20)
    );
    // The program stops reading past the limit: the write of the rest fails (EPIPE), as it
    // would for the agent, which is why this does not use `run`.
    let mut child = std::process::Command::new(agent_hooks_tests::agent_hooks_bin())
        .args(["hook", "--agent", "claude"])
        .current_dir(rig.project())
        .env("HOME", rig.home())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        let _ = stdin.write_all(big.as_bytes());
    });
    let out = child.wait_with_output().unwrap();
    let _ = writer.join();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("larger than 16777216 bytes"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_hook_that_hangs_is_cut_at_its_timeout_and_the_call_goes_on() {
    let rig = Rig::new();
    let slow = r#"{"PreToolUse": [{"hooks": [{"type": "command", "command": "sleep 30", "timeout": 1}]}]}"#;
    std::fs::write(rig.user_hooks().join("slow.json"), slow).unwrap();
    let started = std::time::Instant::now();
    let out = rig.hook("claude", &[], &claude_pre(&rig.project(), "ls"));
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    // The problem is the user's (`systemMessage`), with no decision: the call goes on.
    assert_eq!(out.status.code(), Some(0), "reported: {}", stderr(&out));
    let answer: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(answer.as_object().unwrap().len(), 1, "{answer}");
    assert!(
        answer["systemMessage"]
            .as_str()
            .unwrap()
            .starts_with("agent-hooks: "),
        "{answer}"
    );
    // Copilot CLI reads any exit but 0 of a preToolUse hook as a deny, but runs the tool when
    // its own hook times out: there the problem is reported with exit 0.
    let copilot = json!({"sessionId": "c-1", "timestamp": 1, "cwd": rig.project(),
        "toolName": "bash", "toolArgs": {"command": "ls"}});
    let out = rig.hook("copilot", &["--event", "preToolUse"], &copilot.to_string());
    assert_eq!(out.status.code(), Some(0), "reported: {}", stderr(&out));
    assert!(stderr(&out).contains("agent-hooks:"), "{}", stderr(&out));
    // Shown to the user as Copilot CLI shows a hook's progress, with no decision.
    let progress: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(progress["type"], "progress", "{progress}");
    assert!(
        progress["message"]
            .as_str()
            .unwrap()
            .contains("timed out after 1s"),
        "{progress}"
    );
}

/// Claude Code's settings with odd spacing, key order and an existing hook.
const CLAUDE_SETTINGS: &str = "{\n    \"model\":   \"opus\",\n  \"hooks\": {\"PreToolUse\": [ ],\n \"Stop\":[{\"hooks\":[{\"type\":\"command\",\"command\":\"x\"}]}]},\n  \"z\":1}";

#[test]
fn install_writes_one_entry_per_event_and_uninstall_gives_the_same_bytes() {
    let rig = Rig::new();
    rig.hooks_on_every_event("claude");
    let settings = rig.write("home/.claude/settings.json", CLAUDE_SETTINGS);
    let out = rig.run(&["install", "--agent", "claude", "--program", "agent-hooks"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = std::fs::read_to_string(&settings).unwrap();
    let value: Value = serde_json::from_str(&text).unwrap();
    for event in [
        "PreToolUse",
        "PostToolUse",
        "Stop",
        "SessionStart",
        "UserPromptSubmit",
    ] {
        let groups = value["hooks"][event].as_array().unwrap();
        let ours: Vec<&Value> = groups
            .iter()
            .filter(|g| g["hooks"][0]["command"] == "agent-hooks hook --agent claude")
            .collect();
        assert_eq!(ours.len(), 1, "{event}: {text}");
    }
    assert_eq!(value["hooks"]["Stop"].as_array().unwrap().len(), 2);
    assert_eq!(value["model"], "opus");
    let list = rig.run(&["list"]);
    assert!(
        stdout(&list).contains(&format!(
            "Claude Code: runs agent-hooks: {}",
            settings.display()
        )),
        "{}",
        stdout(&list)
    );
    // Twice is once.
    let again = rig.run(&["install", "--agent", "claude", "--program", "agent-hooks"]);
    assert!(stdout(&again).contains("already runs agent-hooks"));
    let out = rig.run(&["uninstall", "--agent", "claude"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), CLAUDE_SETTINGS);
}

/// `install` writes the entry for every event the pinned agent accepts but those whose
/// mere hook changes what the agent does (or that agent-hooks has nothing to run for), and
/// `hook` answers each of them, with no hook of agent-hooks for it, with what the agent
/// reads as no effect: exit 0, nothing on either channel.
#[test]
fn install_covers_every_event_of_the_pinned_agent_but_those_a_hook_would_change() {
    let cases: [(&str, &str, &[&str], &[&str]); 4] = [
        (
            "claude",
            "home/.claude/settings.json",
            &[
                "SessionStart",
                "Setup",
                "InstructionsLoaded",
                "UserPromptSubmit",
                "UserPromptExpansion",
                "PreToolUse",
                "PermissionRequest",
                "PermissionDenied",
                "PostToolUse",
                "PostToolUseFailure",
                "PostToolBatch",
                "Notification",
                "SubagentStart",
                "SubagentStop",
                "Stop",
                "StopFailure",
                "TeammateIdle",
                "TaskCreated",
                "TaskCompleted",
                "ConfigChange",
                "CwdChanged",
                "DirectoryAdded",
                "PreCompact",
                "PostCompact",
                "PreModelSwitch",
                "PostModelSwitch",
                "ElicitationResult",
                "SessionEnd",
            ],
            &[
                "WorktreeCreate",
                "WorktreeRemove",
                "FileChanged",
                "Elicitation",
                "MessageDisplay",
                "PreSkillShellCommand",
            ],
        ),
        (
            "codex",
            "home/.codex/hooks.json",
            &[
                "SessionStart",
                "UserPromptSubmit",
                "PreToolUse",
                "PermissionRequest",
                "PostToolUse",
                "SubagentStart",
                "SubagentStop",
                "Stop",
                "PreCompact",
                "PostCompact",
                "SessionEnd",
            ],
            &["Interrupt"],
        ),
        (
            "gemini",
            "home/.gemini/settings.json",
            &[
                "SessionStart",
                "BeforeAgent",
                "BeforeTool",
                "AfterTool",
                "AfterAgent",
                "PreCompress",
                "Notification",
                "SessionEnd",
            ],
            &["BeforeModel", "AfterModel", "BeforeToolSelection"],
        ),
        (
            "copilot",
            "home/.copilot/hooks/agent-hooks.json",
            &[
                "sessionStart",
                "userPromptSubmitted",
                "preToolUse",
                "permissionRequest",
                "postToolUse",
                "postToolUseFailure",
                "subagentStart",
                "subagentStop",
                "agentStop",
                "errorOccurred",
                "preCompact",
                "notification",
                "sessionEnd",
            ],
            &["userPromptTransformed", "preMcpToolCall"],
        ),
    ];
    for (agent, file, installed, left_out) in cases {
        let rig = Rig::new();
        // A hook on each event: install wires only the events some hook uses.
        rig.hooks_on_every_event(agent);
        let out = rig.run(&["install", "--agent", agent, "--program", "agent-hooks"]);
        assert!(out.status.success(), "{agent}: {}", stderr(&out));
        let text = std::fs::read_to_string(rig.root().join(file)).unwrap();
        let value: Value = serde_json::from_str(&text).unwrap();
        let events: Vec<&str> = value["hooks"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let mut expected = installed.to_vec();
        expected.sort_unstable();
        let mut got = events.clone();
        got.sort_unstable();
        assert_eq!(got, expected, "{agent}: {text}");
        for event in left_out {
            assert!(!events.contains(event), "{agent} {event}: {text}");
        }
        for event in installed {
            let payload = json!({
                "session_id": "s-1",
                "transcript_path": "/nonexistent/transcript.jsonl",
                "cwd": rig.project(),
                "hook_event_name": event,
                "hookName": event,
            });
            let out = rig.hook(agent, &[], &payload.to_string());
            assert_eq!(
                out.status.code(),
                Some(0),
                "{agent} {event}: {}",
                stderr(&out)
            );
            assert_eq!(stdout(&out), "", "{agent} {event}");
            assert_eq!(stderr(&out), "", "{agent} {event}");
        }
        let out = rig.run(&["uninstall", "--agent", agent]);
        assert!(out.status.success(), "{agent}: {}", stderr(&out));
        assert!(
            !rig.root().join(file).exists(),
            "{agent}: the file was made by install"
        );
    }
}

#[test]
fn uninstall_keeps_what_the_user_changed_elsewhere_in_the_file() {
    let rig = Rig::new();
    let settings = rig.write("project/.claude/settings.json", CLAUDE_SETTINGS);
    let out = rig.run(&[
        "install",
        "--agent",
        "claude",
        "--project",
        "--program",
        "agent-hooks",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let edited = std::fs::read_to_string(&settings)
        .unwrap()
        .replace("\"opus\"", "\"sonnet\"");
    std::fs::write(&settings, &edited).unwrap();
    let out = rig.run(&["uninstall", "--agent", "claude", "--project"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(&settings).unwrap(),
        CLAUDE_SETTINGS.replace("\"opus\"", "\"sonnet\"")
    );
}

#[test]
fn install_into_commented_gemini_settings_and_a_file_that_was_not_there() {
    let rig = Rig::new();
    let commented = "// mine\n{ \"general\": {\"x\": 1}, /* keep */ }\n";
    let gemini = rig.write("home/.gemini/settings.json", commented);
    let every = rig.hooks_on_every_event("gemini");
    assert!(rig.run(&["install", "--agent", "gemini"]).status.success());
    let text = std::fs::read_to_string(&gemini).unwrap();
    assert!(text.contains("\"BeforeTool\": [{"), "{text}");
    assert!(text.contains("\"timeout\":600000"), "{text}");
    assert!(rig
        .run(&["uninstall", "--agent", "gemini"])
        .status
        .success());
    assert_eq!(std::fs::read_to_string(&gemini).unwrap(), commented);
    std::fs::remove_file(every).unwrap();
    rig.hooks_on_every_event("codex");
    // Codex: no file before, none after.
    let codex = rig.home().join(".codex/hooks.json");
    assert!(rig.run(&["install", "--agent", "codex"]).status.success());
    let value: Value = serde_json::from_str(&std::fs::read_to_string(&codex).unwrap()).unwrap();
    assert_eq!(
        value["hooks"]["PreToolUse"].as_array().map(Vec::len),
        Some(1)
    );
    assert!(rig.run(&["uninstall", "--agent", "codex"]).status.success());
    assert!(!codex.exists());
    // Copilot CLI's own file, owned whole.
    assert!(rig
        .run(&["install", "--agent", "copilot", "--project"])
        .status
        .success());
    let copilot = rig.project().join(".github/hooks/agent-hooks.json");
    let value: Value = serde_json::from_str(&std::fs::read_to_string(&copilot).unwrap()).unwrap();
    assert!(value["hooks"]["preToolUse"][0]["bash"]
        .as_str()
        .unwrap()
        .ends_with(" --agent copilot --event preToolUse"));
    assert!(rig
        .run(&["uninstall", "--agent", "copilot", "--project"])
        .status
        .success());
    assert!(!copilot.exists());
}

#[test]
fn a_file_that_is_not_json_is_left_alone_with_a_reason() {
    let rig = Rig::new();
    let broken = "{\"hooks\": [1, 2}";
    let settings = rig.write("home/.claude/settings.json", broken);
    let out = rig.run(&["install", "--agent", "claude"]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains("is not a JSON object that agent-hooks can edit"),
        "{err}"
    );
    assert!(err.contains("add the entry by hand"), "{err}");
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), broken);
}

/// Gemini CLI rewrites its user settings when it migrates them (pretty-printed, its own
/// order): the text install wrote is gone, its entries are not. uninstall says so, and
/// does not claim the agent no longer runs agent-hooks.
#[test]
fn uninstall_after_the_agent_rewrote_its_file_says_the_entries_are_left() {
    let rig = Rig::new();
    let gemini = rig.write("home/.gemini/settings.json", "{\"general\": {\"x\": 1}}\n");
    assert!(rig.run(&["install", "--agent", "gemini"]).status.success());
    let value: Value = serde_json::from_str(&std::fs::read_to_string(&gemini).unwrap()).unwrap();
    std::fs::write(&gemini, serde_json::to_string_pretty(&value).unwrap()).unwrap();
    let out = rig.run(&["uninstall", "--agent", "gemini"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!(
            "Gemini CLI still runs agent-hooks: what install wrote into {} was changed since (1 of its 1 insertions are not there as written",
            gemini.display()
        )),
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("`agent-hooks-hook --agent gemini`"),
        "{}",
        stderr(&out)
    );
    assert!(!stdout(&out).contains("no longer runs"), "{}", stdout(&out));
    let list = rig.run(&["list"]);
    assert!(
        stdout(&list).contains("Gemini CLI: runs agent-hooks"),
        "{}",
        stdout(&list)
    );
}

/// Run by `hook` itself (`--no-serve`), a plugin's warning goes to the resident process's
/// log, as when that process runs it, not to the agent's stderr: there Claude Code gives a
/// block's reason to its model, which gets the reason alone.
#[test]
fn a_plugins_log_records_go_to_the_log_and_the_agent_gets_the_reason_alone() {
    let rig = Rig::new();
    copy_to(&plugin("boundary"), &rig.user_hooks(), "libboundary.so");
    let guard = r#"{"PreToolUse": [{"matcher": "exec", "hooks": [{"type": "command",
        "command": "echo 'the guard refuses' >&2; exit 2"}]}]}"#;
    std::fs::write(rig.user_hooks().join("guard.json"), guard).unwrap();
    let mut command = agent_hooks_tests::cli::command(
        &rig.project(),
        &rig.home(),
        &["hook", "--agent", "claude", "--no-serve"],
    );
    command.env_remove("XDG_RUNTIME_DIR");
    let out = agent_hooks_tests::cli::output_with(&mut command, &claude_pre(&rig.project(), "log"));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(stderr(&out), "the guard refuses\n");
    let log = std::fs::read_to_string(rig.resident_folder().join("serve.log")).unwrap();
    let library = rig.user_hooks().join("libboundary.so");
    assert_eq!(
        log,
        format!(
            " WARN agent_hooks::plugin: from Host::log plugin={}\n",
            library.display()
        )
    );
}

/// The events of the file `install --agent AGENT --project` writes, with each entry's
/// command (Copilot CLI's own files name it `bash`).
fn installed_entries(rig: &Rig, agent: &str) -> Vec<(String, String)> {
    let file = match agent {
        "claude" => ".claude/settings.json",
        "codex" => ".codex/hooks.json",
        "gemini" => ".gemini/settings.json",
        "copilot" => ".github/hooks/agent-hooks.json",
        "devin" => ".devin/hooks.v1.json",
        other => panic!("no file for {other}"),
    };
    let out = rig.run(&["install", "--agent", agent, "--project"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = std::fs::read_to_string(rig.project().join(file)).unwrap();
    let file: Value = serde_json::from_str(&text).unwrap();
    let mut entries = Vec::new();
    for (event, groups) in file["hooks"].as_object().unwrap() {
        for group in groups.as_array().unwrap() {
            let hooks = group.get("hooks").and_then(Value::as_array);
            for hook in hooks.cloned().unwrap_or_else(|| vec![group.clone()]) {
                let command = hook["command"].as_str().or(hook["bash"].as_str());
                entries.push((event.clone(), command.unwrap().to_owned()));
            }
        }
    }
    entries
}

/// A payload of `agent`'s `event` with the fields of every kind of event (a tool's, a
/// prompt's, a start's), as the agent writes it (Copilot CLI: its own camelCase form).
fn any_payload(rig: &Rig, agent: &str, event: &str) -> String {
    let cwd = rig.project();
    if agent == "copilot" {
        return json!({"timestamp": 1_765_000_000_000_u64, "cwd": cwd, "sessionId": "s",
            "toolName": "bash", "toolArgs": "{\"command\":\"ls\"}", "prompt": "hello",
            "source": "new"})
        .to_string();
    }
    let tool = if agent == "gemini" {
        "run_shell_command"
    } else {
        "Bash"
    };
    json!({"session_id": "s", "transcript_path": "/nonexistent/t.jsonl", "cwd": cwd,
        "hook_event_name": event, "tool_name": tool, "tool_input": {"command": "ls"},
        "tool_use_id": "t-1", "tool_response": {"stdout": "a\n", "stderr": ""},
        "prompt": "hello", "source": "startup", "stop_hook_active": false,
        "permission_mode": "default", "reason": "other", "trigger": "manual"})
    .to_string()
}

/// No decision is no decision: with hooks of agent-hooks on every event that run and
/// answer nothing, every entry `install` writes gives the agent nothing to act on (exit 0,
/// no stdout, no stderr), so that the agent's own permission flow is untouched.
#[test]
fn when_no_hook_decides_the_agent_gets_nothing_to_act_on() {
    agent_hooks_tests::relay_bin();
    // Every event Claude Code's entry is written for, in Claude Code's names, which
    // agent-hooks' own hooks files read too.
    let every = Rig::new();
    every.hooks_on_every_event("claude");
    let events: Vec<String> = installed_entries(&every, "claude")
        .into_iter()
        .map(|(event, _)| event)
        .collect();
    for agent in ["claude", "codex", "gemini", "copilot", "devin"] {
        let rig = Rig::new();
        let ran = rig.root().join("ran.log");
        let record = format!("cat > /dev/null; echo ran >> '{}'", ran.display());
        let quiet: serde_json::Map<String, Value> = events
            .iter()
            .map(|e| {
                let hooks = json!([{"hooks": [{"type": "command", "command": record}]}]);
                (e.clone(), hooks)
            })
            .collect();
        std::fs::write(
            rig.user_hooks().join("quiet.json"),
            Value::Object(quiet).to_string(),
        )
        .unwrap();
        let entries = installed_entries(&rig, agent);
        assert!(entries.len() > 5, "{agent}: {entries:?}");
        for (event, command) in &entries {
            let out = agent_hooks_tests::cli::output_with(
                std::process::Command::new("/bin/sh")
                    .args(["-c", command])
                    .current_dir(rig.project())
                    .env("HOME", rig.home())
                    .env_remove("XDG_CONFIG_HOME")
                    .env_remove("XDG_RUNTIME_DIR")
                    .env_remove("AGENT_HOOKS_NO_SERVE"),
                &any_payload(&rig, agent, event),
            );
            assert_eq!(
                (out.status.code(), stdout(&out), stderr(&out)),
                (Some(0), String::new(), String::new()),
                "{agent} {event}"
            );
        }
        let runs = std::fs::read_to_string(&ran).unwrap_or_default();
        assert!(
            runs.lines().count() >= 6,
            "{agent}: the hooks ran for the events agent-hooks has: {runs:?}"
        );
    }
}
