//! OpenCode and Kilo Code through the real program: `install --agent opencode|kilo` writes
//! agent-hooks' plugin and nothing else, `uninstall` takes exactly it away (and the folders
//! it made), `list` and `doctor` say whether each is wired, and `hook --agent opencode`
//! reads the request that plugin sends (OpenCode's event and tool names) and answers in the
//! form it reads.

use std::path::{Path, PathBuf};

use agent_hooks_tests::{
    cli::{stderr, stdout},
    relay_bin,
    rig::{AgentHook, Rig},
};
use serde_json::json;

/// The user-level plugin's path of `agent`.
fn user_plugin(rig: &Rig, agent: &str) -> PathBuf {
    let dir = if agent == "kilo" { "kilo" } else { "opencode" };
    rig.home()
        .join(".config")
        .join(dir)
        .join("plugins/agent-hooks.ts")
}

/// A rig whose program has its relay beside it, as `cargo install` lays them out: `install`
/// writes the relay into the plugin only when it is there.
fn rig() -> Rig {
    relay_bin();
    Rig::new()
}

/// The command the plugin runs: the relay beside the program, quoted.
fn relay_command(agent: &str) -> String {
    format!("'{}' --agent {agent}", relay_bin().display())
}

fn install_and_uninstall(agent: &str, title: &str, folder: &str) {
    let rig = rig();
    rig.write(&format!("home/.config/{folder}/{folder}.json"), "{}\n");
    rig.write(
        &format!("home/.config/{folder}/plugins/mine.ts"),
        "export const Mine = async () => ({});\n",
    );
    let before = agent_hooks_tests::tree(&rig.home(), |p| {
        !p.starts_with(".config/opencode") && !p.starts_with(".config/kilo")
    });
    let out = rig.run(&["install", "--agent", agent]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let plugin = user_plugin(&rig, agent);
    assert_eq!(
        stdout(&out),
        format!(
            "{title} now runs `{}` for 8 events: {}\n\
             {title} loads it when it starts; a project's plugins load with no trust asked.\n\
             Undo with: agent-hooks uninstall --agent {agent}\n",
            relay_command(agent),
            plugin.display()
        )
    );
    let text = std::fs::read_to_string(&plugin).unwrap();
    assert!(
        text.contains(&format!("const COMMAND = {};", json!(relay_command(agent)))),
        "{text}"
    );
    assert!(
        text.contains(&format!("const AGENT = \"{agent}\";")),
        "{text}"
    );
    assert!(text.contains("export const AgentHooks = async (input: any)"));
    let out = rig.run(&["uninstall", "--agent", agent]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with(&format!(
            "{title} no longer runs agent-hooks: {}\n",
            plugin.display()
        )),
        "{}",
        stdout(&out)
    );
    let after = agent_hooks_tests::tree(&rig.home(), |p| {
        !p.starts_with(".config/opencode") && !p.starts_with(".config/kilo")
    });
    assert_eq!(after, before);
}

#[test]
fn install_writes_opencode_s_plugin_and_uninstall_leaves_its_folder_as_it_was() {
    install_and_uninstall("opencode", "OpenCode", "opencode");
}

#[test]
fn install_writes_kilo_s_plugin_and_uninstall_leaves_its_folder_as_it_was() {
    install_and_uninstall("kilo", "Kilo Code", "kilo");
}

#[test]
fn a_project_s_plugin_goes_in_its_opencode_or_kilo_folder_and_its_folders_go_with_it() {
    for (agent, folder) in [("opencode", ".opencode"), ("kilo", ".kilo")] {
        let rig = rig();
        let out = rig.run(&["install", "--agent", agent, "--project"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let plugin = rig.project().join(folder).join("plugins/agent-hooks.ts");
        assert!(plugin.is_file(), "{}", stdout(&out));
        assert!(stdout(&out).ends_with(&format!(
            "Undo with: agent-hooks uninstall --agent {agent} --project\n"
        )));
        assert!(!user_plugin(&rig, agent).exists());
        let out = rig.run(&["uninstall", "--agent", agent, "--project"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert!(!rig.project().join(folder).exists());
    }
}

#[test]
fn installing_opencode_again_is_a_no_op_and_a_changed_plugin_is_left_alone() {
    let rig = rig();
    assert!(rig
        .run(&["install", "--agent", "opencode"])
        .status
        .success());
    let plugin = user_plugin(&rig, "opencode");
    let written = std::fs::read_to_string(&plugin).unwrap();
    let out = rig.run(&["install", "--agent", "opencode"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        format!(
            "OpenCode already runs agent-hooks, installed with these options: {}. Nothing to do.\n",
            plugin.display()
        )
    );
    assert_eq!(std::fs::read_to_string(&plugin).unwrap(), written);
    let changed = format!("{written}// mine\n");
    std::fs::write(&plugin, &changed).unwrap();
    let out = rig.run(&["uninstall", "--agent", "opencode"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        format!(
            "agent-hooks: {} was changed since agent-hooks wrote it; remove it by hand if you no longer want it\n",
            plugin.display()
        )
    );
    assert_eq!(std::fs::read_to_string(&plugin).unwrap(), changed);
}

#[test]
fn list_and_doctor_say_whether_opencode_and_kilo_are_wired() {
    let rig = rig();
    let out = rig.run(&["doctor"]);
    for line in [
        "  OpenCode: not wired (agent-hooks install --agent opencode)\n",
        "  Kilo Code: not wired (agent-hooks install --agent kilo)\n",
    ] {
        assert!(stdout(&out).contains(line), "{}", stdout(&out));
    }
    assert!(rig
        .run(&["install", "--agent", "opencode"])
        .status
        .success());
    assert!(rig.run(&["install", "--agent", "kilo"]).status.success());
    for command in ["list", "doctor"] {
        let out = rig.run(&[command]);
        for (title, agent) in [("OpenCode", "opencode"), ("Kilo Code", "kilo")] {
            let wired = format!(
                "  {title}: runs agent-hooks: {}\n",
                user_plugin(&rig, agent).display()
            );
            assert!(stdout(&out).contains(&wired), "{}", stdout(&out));
        }
    }
}

#[test]
fn doctor_says_when_the_program_opencode_s_plugin_runs_is_gone() {
    let rig = rig();
    let out = rig.run(&[
        "install",
        "--agent",
        "opencode",
        "--program",
        "/nonexistent/agent-hooks",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = rig.run(&["doctor"]);
    let said = format!(
        "{}: OpenCode's entry runs /nonexistent/agent-hooks, which is gone (uninstalled or moved): OpenCode's events get no hooks",
        user_plugin(&rig, "opencode").display()
    );
    assert!(
        stdout(&out).contains(&said) || stderr(&out).contains(&said),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
}

#[test]
fn install_with_take_over_is_refused_for_opencode_which_has_no_hooks_files() {
    let rig = rig();
    let out = rig.run(&["install", "--agent", "opencode", "--take-over"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "agent-hooks: install does not apply --take-over: this agent has no hooks files of its own to move under agent-hooks; run install without it\n"
    );
    assert!(!rig.home().join(".config/opencode").exists());
}

/// A `tool.execute.before` request as OpenCode's plugin sends it.
fn before(project: &Path, tool: &str, input: serde_json::Value) -> String {
    json!({
        "hook_event_name": "tool.execute.before",
        "cwd": project,
        "session_id": "ses_db5a5964bffeCu6o2pXrWOW7cO",
        "tool_name": tool,
        "tool_input": input,
        "tool_use_id": "toolu_1",
    })
    .to_string()
}

#[test]
fn a_claude_code_guard_on_bash_blocks_opencode_s_bash_and_nothing_else() {
    let rig = rig();
    rig.write(
        "home/.claude/settings.json",
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
            "command": "echo 'no shell under this guard' >&2; exit 2"}]}]}}"#,
    );
    let bash = before(&rig.project(), "bash", json!({"command": "ls"}));
    for agent in ["opencode", "kilo"] {
        let out = rig.hook(agent, &["--with", "claude"], &bash);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert_eq!(stderr(&out), "no shell under this guard\n");
        assert_eq!(stdout(&out), "");
    }
    let read = before(&rig.project(), "read", json!({"path": "README.md"}));
    let out = rig.hook("opencode", &["--with", "claude"], &read);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "");
    // Without --with, Claude Code's files are not OpenCode's: nothing runs.
    let out = rig.hook("opencode", &[], &bash);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn a_claude_code_hook_sees_opencode_s_write_as_write_with_file_path_and_its_rewrite_comes_back_as_path(
) {
    let rig = rig();
    let rewrite = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "updatedInput": {"file_path": "other.txt", "content": "y"}}})
    .to_string();
    rig.write(
        "home/.claude/settings.json",
        &json!({"hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command",
            "command": format!("p=$(cat); echo \"$p\" | grep -q '\"file_path\":\"notes.txt\"' && echo '{rewrite}'")}]}]}})
        .to_string(),
    );
    let write = before(
        &rig.project(),
        "write",
        // The plugin sends OpenCode's `filePath` as `path`, and takes `path` back.
        json!({"path": "notes.txt", "content": "x"}),
    );
    let out = rig.hook("opencode", &["--with", "claude"], &write);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let answer: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        answer,
        json!({"hookSpecificOutput": {"hookEventName": "tool.execute.before",
            "updatedInput": {"path": "other.txt", "content": "y"}}})
    );
}

#[test]
fn an_agent_hooks_hook_on_exec_sees_opencode_s_bash_and_its_events_by_their_moments() {
    let rig = rig();
    let seen = rig.home().join("seen.jsonl");
    rig.write(
        "home/.config/agent-hooks/hooks/seen.json",
        &json!({
            "PreToolUse": [{"matcher": "exec", "hooks": [{"type": "command",
                "command": format!("cat >> '{}'; echo >> '{}'", seen.display(), seen.display())}]}],
            "Stop": [{"hooks": [{"type": "command",
                "command": format!("cat >> '{}'; echo >> '{}'", seen.display(), seen.display())}]}],
        })
        .to_string(),
    );
    let bash = before(&rig.project(), "bash", json!({"command": "ls"}));
    let out = rig.hook("opencode", &[], &bash);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let idle = json!({"hook_event_name": "session.idle", "cwd": rig.project(),
        "session_id": "ses_1", "stop_hook_active": false})
    .to_string();
    let out = rig.hook("opencode", &[], &idle);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&seen)
        .unwrap()
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(lines[0]["hook_event_name"], "PreToolUse");
    assert_eq!(lines[0]["tool_name"], "exec");
    assert_eq!(lines[0]["tool_input"], json!({"command": "ls"}));
    assert_eq!(lines[1]["hook_event_name"], "Stop");
}

#[test]
fn a_native_plugin_s_change_of_a_result_comes_back_whole_for_opencode() {
    let rig = rig();
    agent_hooks_tests::copy_to(
        &agent_hooks_tests::plugin("redact-secrets"),
        &rig.user_hooks(),
        "libredact_secrets.so",
    );
    let result = json!({
        "hook_event_name": "tool.execute.after",
        "cwd": rig.project(),
        "session_id": "ses_1",
        "tool_name": "read",
        "tool_input": {"path": ".env"},
        "tool_use_id": "toolu_1",
        "tool_response": {"output": "API_KEY=s3cr3t\nDEBUG=1", "metadata": null},
    })
    .to_string();
    let out = rig.hook("opencode", &[], &result);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let answer: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        answer,
        json!({"content": [{"type": "text", "text": "API_KEY=[REDACTED]\nDEBUG=1"}]})
    );
}
