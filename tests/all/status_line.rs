//! agent-hooks in Claude Code's status line, as a user sets it up: `install --status-line`
//! writes `statusLine` running `agent-hooks status --agent claude` when the user has no
//! status line of their own (and says how to show both when they have), `uninstall` gives
//! the file back byte for byte; the line itself asks the resident process how the session
//! stands (its hooks, problems, the last block) and never runs discovery.

use std::process::Output;

use agent_hooks_tests::{
    cli,
    rig::{Resident, Rig},
};
use serde_json::{json, Value};

use crate::decision_log::guard;

fn out(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn err(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Claude Code's user settings with a model and a hook of the user's.
const SETTINGS: &str = "{\n  \"model\": \"opus\",\n  \"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"x\"}]}]}\n}\n";

#[test]
fn install_status_line_writes_claude_code_s_status_line_and_uninstall_gives_the_bytes_back() {
    let rig = Rig::new();
    let settings = rig.write("home/.claude/settings.json", SETTINGS);
    let installed = rig.run(&[
        "install",
        "--agent",
        "claude",
        "--program",
        "agent-hooks",
        "--status-line",
    ]);
    assert!(installed.status.success(), "{}", err(&installed));
    assert!(
        out(&installed).contains(&format!(
            "Claude Code shows agent-hooks' status line: `agent-hooks status --agent claude` ({})",
            settings.display()
        )),
        "{}",
        out(&installed)
    );
    let value: Value =
        serde_json::from_str(&std::fs::read_to_string(&settings).expect("read")).expect("JSON");
    assert_eq!(
        value["statusLine"],
        json!({"type": "command", "command": "agent-hooks status --agent claude", "padding": 0})
    );
    assert_eq!(value["model"], "opus");
    let removed = rig.run(&["uninstall", "--agent", "claude"]);
    assert!(removed.status.success(), "{}", err(&removed));
    assert_eq!(std::fs::read_to_string(&settings).expect("read"), SETTINGS);
}

#[test]
fn a_status_line_of_the_user_s_is_left_alone_and_install_says_how_to_show_both() {
    let rig = Rig::new();
    let theirs =
        "{\n  \"statusLine\": {\"type\": \"command\", \"command\": \"~/bin/my-line\"}\n}\n";
    let settings = rig.write("home/.claude/settings.json", theirs);
    let installed = rig.run(&[
        "install",
        "--agent",
        "claude",
        "--program",
        "agent-hooks",
        "--status-line",
    ]);
    assert!(installed.status.success(), "{}", err(&installed));
    let said = out(&installed);
    assert!(
        said.contains("Claude Code shows a status line of yours already")
            && said.contains("so agent-hooks' was not added")
            && said.contains(
                "input=$(cat); printf '%s' \"$input\" | ~/bin/my-line; printf '%s' \"$input\" | agent-hooks status --agent claude"
            ),
        "{said}"
    );
    let value: Value =
        serde_json::from_str(&std::fs::read_to_string(&settings).expect("read")).expect("JSON");
    assert_eq!(value["statusLine"]["command"], "~/bin/my-line");
    assert!(rig
        .run(&["uninstall", "--agent", "claude"])
        .status
        .success());
    assert_eq!(std::fs::read_to_string(&settings).expect("read"), theirs);
}

#[test]
fn status_line_is_added_to_an_install_made_without_it_and_refused_where_there_is_none() {
    let rig = Rig::new();
    let settings = rig.write("home/.claude/settings.json", SETTINGS);
    let args = ["install", "--agent", "claude", "--program", "agent-hooks"];
    assert!(rig.run(&args).status.success());
    let again = rig.run(&[&args[..], &["--status-line"]].concat());
    assert!(again.status.success(), "{}", err(&again));
    assert!(
        out(&again).contains("Claude Code shows agent-hooks' status line"),
        "{}",
        out(&again)
    );
    assert!(std::fs::read_to_string(&settings)
        .expect("read")
        .contains("\"statusLine\""));
    assert!(rig
        .run(&["uninstall", "--agent", "claude"])
        .status
        .success());
    assert_eq!(std::fs::read_to_string(&settings).expect("read"), SETTINGS);
    let gemini = rig.run(&["install", "--agent", "gemini", "--status-line"]);
    assert_eq!(gemini.status.code(), Some(2), "{}", err(&gemini));
    assert!(
        err(&gemini).contains("--status-line") && err(&gemini).contains("no status line command"),
        "{}",
        err(&gemini)
    );
}

/// The status line as Claude Code runs it: its status input on stdin.
fn status_line(rig: &Rig, session: &str) -> String {
    let input = json!({"session_id": session, "cwd": rig.project(),
        "model": {"id": "claude-opus", "display_name": "Opus"},
        "workspace": {"current_dir": rig.project(), "project_dir": rig.project()}});
    let output = cli::output_with(
        &mut Resident::command(rig, &["status", "--agent", "claude"]),
        &input.to_string(),
    );
    assert!(output.status.success(), "{}", err(&output));
    out(&output)
}

#[test]
fn the_status_line_says_how_the_session_stands_from_the_resident_process() {
    let rig = Rig::new();
    guard(&rig);
    assert_eq!(
        status_line(&rig, "s1"),
        "agent-hooks: not running (the session's next event starts it)\n"
    );
    let payload = json!({"session_id": "s1", "hook_event_name": "PreToolUse",
        "tool_name": "Bash", "cwd": rig.project(),
        "tool_input": {"command": "git push --force"}});
    let blocked = Resident::hook(&rig, &payload.to_string());
    assert_eq!(blocked.status.code(), Some(2), "{}", err(&blocked));
    let line = status_line(&rig, "s1");
    assert!(
        line.starts_with("agent-hooks: 1 hook · last block "),
        "{line}"
    );
    assert!(line.ends_with(" Bash: no force pushes\n"), "{line}");
    // A session the resident process does not serve yet, in another folder.
    let elsewhere = rig.write("other/.keep", "");
    let input = json!({"session_id": "s2", "cwd": elsewhere.parent()});
    let output = cli::output_with(
        &mut Resident::command(&rig, &["status", "--agent", "claude"]),
        &input.to_string(),
    );
    assert!(
        out(&output).starts_with("agent-hooks: waiting for this session's first event · "),
        "{}",
        out(&output)
    );
}
