//! `install` wires only the events some hook of agent-hooks uses, and the first of a session
//! and of a turn (`SessionStart`, `UserPromptSubmit`): an event with nothing to run does not
//! start the relay. The entries follow the hooks: a
//! second `install` says what it added and took out, `trust` and `untrust` re-sync them, the
//! resident process adds what a changed hooks file needs, and the first event of a session
//! adds what is missing and tells the user (never the model) which hook does not run in
//! that session. Whatever the syncs did, `uninstall` gives the file back byte for byte.

use std::time::{Duration, Instant};

use agent_hooks_tests::{
    cli::{stderr, stdout},
    relay_bin,
    rig::{AgentHook, Resident, Rig},
};
use nix::fcntl::{Flock, FlockArg};
use serde_json::{json, Value};

/// Claude Code's settings of the user's own: odd spacing, a hook of its own on `Stop`.
const OWN: &str = "{\n    \"model\":   \"opus\",\n  \"hooks\": {\"Stop\":[{\"hooks\":[{\"type\":\"command\",\"command\":\"x\"}]}]},\n  \"z\":1}";

/// The events whose lists hold agent-hooks' entry in a settings file's text.
fn wired(text: &str) -> Vec<String> {
    let value: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"));
    let mut events: Vec<String> = value["hooks"]
        .as_object()
        .map(|hooks| {
            hooks
                .iter()
                .filter(|(_, groups)| groups.to_string().contains("hook --agent"))
                .map(|(event, _)| event.clone())
                .collect()
        })
        .unwrap_or_default();
    events.sort();
    events
}

/// A hooks file of agent-hooks' own with one command hook on `event` (`required` or not).
fn hook_on(event: &str, command: &str, required: bool) -> String {
    json!({ event: [{"hooks": [{"type": "command", "command": command, "required": required}]}]})
        .to_string()
}

fn install(rig: &Rig, extra: &[&str]) -> String {
    let mut args = vec!["install", "--agent", "claude", "--program", "agent-hooks"];
    args.extend_from_slice(extra);
    let out = rig.run(&args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    stdout(&out)
}

fn session_start(session: &str) -> String {
    json!({"session_id": session, "hook_event_name": "SessionStart", "source": "startup"})
        .to_string()
}

#[test]
fn with_no_hook_install_wires_only_the_starts_of_a_session_and_a_turn_under_every_agent_it_adds_entries_to(
) {
    for (agent, file, start) in [
        (
            "claude",
            "home/.claude/settings.json",
            ["SessionStart", "UserPromptSubmit"],
        ),
        (
            "codex",
            "home/.codex/hooks.json",
            ["SessionStart", "UserPromptSubmit"],
        ),
        (
            "gemini",
            "home/.gemini/settings.json",
            ["SessionStart", "BeforeAgent"],
        ),
        (
            "qwen",
            "home/.qwen/settings.json",
            ["SessionStart", "UserPromptSubmit"],
        ),
        (
            "droid",
            "home/.factory/settings.json",
            ["SessionStart", "UserPromptSubmit"],
        ),
    ] {
        let rig = Rig::new();
        let out = rig.run(&["install", "--agent", agent, "--program", "agent-hooks"]);
        assert_eq!(out.status.code(), Some(0), "{agent}: {}", stderr(&out));
        let path = rig.root().join(file);
        assert!(
            stdout(&out).starts_with(&format!(
                "{} now runs `agent-hooks hook --agent {agent}` for {}: {}\n",
                match agent {
                    "claude" => "Claude Code",
                    "codex" => "Codex CLI",
                    "gemini" => "Gemini CLI",
                    "qwen" => "Qwen Code",
                    _ => "Factory Droid",
                },
                start.join(", "),
                path.display()
            )),
            "{agent}: {}",
            stdout(&out)
        );
        let text = std::fs::read_to_string(&path).unwrap();
        let strict: String = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        let mut start = start.to_vec();
        start.sort_unstable();
        assert_eq!(wired(&strict), start, "{agent}: {text}");
        let out = rig.run(&["uninstall", "--agent", agent]);
        assert_eq!(out.status.code(), Some(0), "{agent}: {}", stderr(&out));
        assert!(
            !path.exists(),
            "{agent}: install made the file, uninstall took it"
        );
    }
}

#[test]
fn a_required_hook_s_event_is_wired_by_install_and_a_user_level_install_wires_the_project_it_runs_in(
) {
    let rig = Rig::new();
    rig.write(
        "home/.config/agent-hooks/hooks/guard.json",
        &hook_on("PreToolUse", "true", true),
    );
    // A project hook, trusted: the user's entries serve it too, where no project entry does.
    rig.write(
        "project/.agent-hooks/hooks/post.json",
        &hook_on("PostToolBatch", "true", false),
    );
    let out = rig.run(&["trust"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    install(&rig, &[]);
    let settings = rig.home().join(".claude/settings.json");
    assert_eq!(
        wired(&std::fs::read_to_string(&settings).unwrap()),
        [
            "PostToolBatch",
            "PreToolUse",
            "SessionStart",
            "UserPromptSubmit"
        ],
        "the required guard's event, and the project's where install ran"
    );
}

#[test]
fn install_again_says_what_it_added_and_took_out_and_uninstall_gives_the_same_bytes() {
    let rig = Rig::new();
    let settings = rig.write("project/.claude/settings.json", OWN);
    let said = install(&rig, &["--project"]);
    assert!(
        said.contains("for SessionStart, UserPromptSubmit: "),
        "{said}"
    );
    let hooks = rig.write(
        "home/.config/agent-hooks/hooks/post.json",
        &hook_on("PostToolUse", "true", false),
    );
    let said = install(&rig, &["--project"]);
    assert_eq!(
        said,
        format!(
            "Claude Code already runs agent-hooks, installed with these options; its entries now follow your hooks: {}: wired PostToolUse (a hook of agent-hooks uses it)\n",
            settings.display()
        )
    );
    let text = std::fs::read_to_string(&settings).unwrap();
    assert_eq!(
        wired(&text),
        ["PostToolUse", "SessionStart", "UserPromptSubmit"],
        "{text}"
    );
    assert!(
        text.contains("\"command\":\"x\""),
        "the user's own hook stays: {text}"
    );
    // Twice is once.
    let said = install(&rig, &["--project"]);
    assert!(said.ends_with("Nothing to do.\n"), "{said}");
    // The hook goes: so does its event's entry.
    std::fs::remove_file(hooks).unwrap();
    let said = install(&rig, &["--project"]);
    assert!(
        said.ends_with(&format!(
            "{}: no longer wired: PostToolUse (no hook of agent-hooks uses it)\n",
            settings.display()
        )),
        "{said}"
    );
    let out = rig.run(&["uninstall", "--agent", "claude", "--project"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), OWN);
}

#[test]
fn the_first_event_of_a_session_wires_what_a_new_hook_needs_and_tells_the_user_which_hook_waits() {
    let rig = Rig::new();
    let settings = rig.write("project/.claude/settings.json", OWN);
    install(&rig, &["--project"]);
    let hooks = rig.write(
        "home/.config/agent-hooks/hooks/post.json",
        &hook_on("PostToolUse", "echo logged >&2", false),
    );
    let out = AgentHook::hook(&rig, "claude", &[], &session_start("s-1"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // To the user: Claude Code shows `systemMessage` to the user, not to its model.
    let answer: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let message = answer["systemMessage"].as_str().unwrap_or_default();
    assert!(
        message.contains(&format!(
            "agent-hooks: `echo logged >&2` ({}) on PostToolUse may not run in this session: Claude Code read its hooks when the session started, before PostToolUse was wired to agent-hooks. It is wired now and runs from the next session",
            hooks.display()
        )),
        "{answer}"
    );
    assert!(
        message.contains(&format!(
            "agent-hooks: {}: wired PostToolUse (a hook of agent-hooks uses it)",
            settings.display()
        )),
        "{answer}"
    );
    assert!(answer.get("hookSpecificOutput").is_none(), "{answer}");
    assert_eq!(answer.get("continue"), None, "{answer}");
    let text = std::fs::read_to_string(&settings).unwrap();
    assert_eq!(
        wired(&text),
        ["PostToolUse", "SessionStart", "UserPromptSubmit"],
        "{text}"
    );
    // The next session has it: nothing to tell.
    let out = AgentHook::hook(&rig, "claude", &[], &session_start("s-2"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "");
    // The record followed: uninstall gives the same bytes.
    let out = rig.run(&["uninstall", "--agent", "claude", "--project"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), OWN);
}

#[test]
fn a_required_hook_that_cannot_run_in_the_session_stops_it_at_its_start() {
    let rig = Rig::new();
    install(&rig, &["--project"]);
    rig.write(
        "home/.config/agent-hooks/hooks/guard.json",
        &hook_on("PreToolUse", "true", true),
    );
    let out = AgentHook::hook(&rig, "claude", &[], &session_start("s-1"));
    let answer: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(answer["continue"], false, "{answer}");
    assert!(
        answer["stopReason"]
            .as_str()
            .unwrap_or_default()
            .contains("a required hook cannot run in this session"),
        "{answer}"
    );
    assert!(
        answer["systemMessage"]
            .as_str()
            .unwrap_or_default()
            .contains("the required hook `true`"),
        "{answer}"
    );
    let text = std::fs::read_to_string(rig.project().join(".claude/settings.json")).unwrap();
    assert_eq!(
        wired(&text),
        ["PreToolUse", "SessionStart", "UserPromptSubmit"],
        "{text}"
    );
}

#[test]
fn a_session_that_goes_on_without_its_required_hook_is_stopped_at_its_next_event_and_the_next_session_runs_it(
) {
    let rig = Rig::new();
    install(&rig, &["--project"]);
    let guard_log = rig.root().join("guard.log");
    rig.write(
        "home/.config/agent-hooks/hooks/guard.json",
        &hook_on(
            "PreToolUse",
            &format!("cat > /dev/null; echo guarded >> '{}'", guard_log.display()),
            true,
        ),
    );
    let out = AgentHook::hook(&rig, "claude", &[], &session_start("held"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let stop = "agent-hooks: a required hook cannot run in this session (Claude Code read its hooks before they were wired for it); start a new session";
    // The agent went on: its next prompt is blocked (Claude Code's exit 2, its stderr shown
    // to the user), and the user reads why.
    let prompt = |session: &str| {
        json!({"session_id": session, "hook_event_name": "UserPromptSubmit", "prompt": "go"})
            .to_string()
    };
    let out = AgentHook::hook(&rig, "claude", &[], &prompt("held"));
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert_eq!(stderr(&out).trim_end(), stop);
    // Nor a tool call, should one reach agent-hooks (its hooks run, as on every event that
    // reaches agent-hooks, and the call is denied whatever they say).
    let tool = json!({"session_id": "held", "hook_event_name": "PreToolUse",
        "tool_name": "Bash", "tool_input": {"command": "ls"}})
    .to_string();
    let out = AgentHook::hook(&rig, "claude", &[], &tool);
    let answer: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(answer["continue"], false, "{answer}");
    assert_eq!(
        answer["hookSpecificOutput"]["permissionDecision"], "deny",
        "{answer}"
    );
    assert_eq!(answer["stopReason"], stop, "{answer}");
    assert_eq!(
        std::fs::read_to_string(&guard_log).ok().as_deref(),
        Some("guarded\n")
    );
    // A new session started with the guard wired: it runs, and nothing stops it.
    let out = AgentHook::hook(&rig, "claude", &[], &session_start("next"));
    assert_eq!(stdout(&out), "", "{}", stderr(&out));
    let out = AgentHook::hook(&rig, "claude", &[], &prompt("next"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "", "{}", stderr(&out));
    let tool = tool.replace("\"held\"", "\"next\"");
    let out = AgentHook::hook(&rig, "claude", &[], &tool);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(&guard_log).ok().as_deref(),
        Some("guarded\nguarded\n"),
        "{}",
        stderr(&out)
    );
    assert_eq!(stdout(&out), "", "{}", stderr(&out));
}

#[test]
fn a_session_s_start_waits_while_another_writer_holds_the_install_record_and_then_wires_its_hook() {
    let rig = Rig::new();
    let settings = rig.write("project/.claude/settings.json", OWN);
    install(&rig, &["--project"]);
    rig.write(
        "home/.config/agent-hooks/hooks/post.json",
        &hook_on("PostToolUse", "true", false),
    );
    // Another writer (an install, an uninstall, another session's start) holds the record.
    let lock = std::fs::File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(rig.home().join(".config/agent-hooks/installed.json.lock"))
        .unwrap();
    let held = Flock::lock(lock, FlockArg::LockExclusive).unwrap_or_else(|(_, e)| panic!("{e}"));
    std::thread::scope(|scope| {
        let start = scope.spawn(|| AgentHook::hook(&rig, "claude", &[], &session_start("s-1")));
        // Long enough for the start to have wired the hook had it not waited.
        std::thread::sleep(Duration::from_secs(6));
        assert!(!start.is_finished(), "the session's start did not wait");
        assert_eq!(
            wired(&std::fs::read_to_string(&settings).unwrap()),
            ["SessionStart", "UserPromptSubmit"]
        );
        drop(held);
        let out = start.join().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    });
    let text = std::fs::read_to_string(&settings).unwrap();
    assert_eq!(text.matches("hook --agent claude").count(), 3, "{text}");
    assert_eq!(
        wired(&text),
        ["PostToolUse", "SessionStart", "UserPromptSubmit"],
        "{text}"
    );
    let out = rig.run(&["uninstall", "--agent", "claude", "--project"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), OWN);
}

#[test]
fn the_resident_process_wires_the_event_of_a_hooks_file_added_while_it_runs() {
    relay_bin();
    let rig = Rig::new();
    let settings = rig.write("project/.claude/settings.json", OWN);
    install(&rig, &["--project"]);
    let out = Resident::hook(&rig, &session_start("s-1"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "");
    rig.write(
        "home/.config/agent-hooks/hooks/batch.json",
        &hook_on("PostToolBatch", "true", false),
    );
    // The resident process writes the file, then says so in its log: wait for both.
    let said = format!(
        "agent-hooks serve: your hooks changed: {}: wired PostToolBatch",
        settings.display()
    );
    let since = Instant::now();
    let mut text = String::new();
    let mut log = String::new();
    while since.elapsed() < Duration::from_secs(20) {
        text = std::fs::read_to_string(&settings).unwrap();
        log = std::fs::read_to_string(rig.resident_folder().join("serve.log")).unwrap_or_default();
        if wired(&text).len() == 3 && log.contains(&said) {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(
        wired(&text),
        ["PostToolBatch", "SessionStart", "UserPromptSubmit"],
        "{text}"
    );
    assert!(log.contains(&said), "{log}");
    let out = rig.run(&["uninstall", "--agent", "claude", "--project"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), OWN);
}

#[test]
fn trust_wires_the_events_of_the_project_hooks_it_lets_run_and_untrust_takes_them_out() {
    let rig = Rig::new();
    let settings = rig.write("project/.claude/settings.json", OWN);
    rig.write(
        "project/.agent-hooks/hooks/pre.json",
        &hook_on("PreToolUse", "true", false),
    );
    install(&rig, &["--project"]);
    // Awaiting trust, it does not run: its event is not wired.
    assert_eq!(
        wired(&std::fs::read_to_string(&settings).unwrap()),
        ["SessionStart", "UserPromptSubmit"]
    );
    let out = rig.run(&["trust"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).ends_with(&format!(
            "Wiring: {}: wired PreToolUse (a hook of agent-hooks uses it)\n",
            settings.display()
        )),
        "{}",
        stdout(&out)
    );
    assert_eq!(
        wired(&std::fs::read_to_string(&settings).unwrap()),
        ["PreToolUse", "SessionStart", "UserPromptSubmit"]
    );
    let out = rig.run(&["untrust", ".agent-hooks/hooks/pre.json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("no longer wired: PreToolUse"),
        "{}",
        stdout(&out)
    );
    let out = rig.run(&["uninstall", "--agent", "claude", "--project"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), OWN);
}

#[test]
fn a_taken_over_file_follows_the_hooks_and_comes_back_byte_for_byte() {
    let rig = Rig::new();
    let own = "{\n  \"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"true\"}]}]}\n}\n";
    let settings = rig.write("home/.claude/settings.json", own);
    let said = install(&rig, &["--take-over"]);
    assert!(
        said.starts_with(&format!(
            "Claude Code now runs only agent-hooks for SessionStart, UserPromptSubmit, Stop: {}\n",
            settings.display()
        )),
        "{said}"
    );
    rig.write(
        "home/.config/agent-hooks/hooks/pre.json",
        &hook_on("PreToolUse", "true", false),
    );
    let said = install(&rig, &["--take-over"]);
    assert!(said.contains("wired PreToolUse"), "{said}");
    let text = std::fs::read_to_string(&settings).unwrap();
    assert_eq!(
        wired(&text),
        ["PreToolUse", "SessionStart", "Stop", "UserPromptSubmit"],
        "{text}"
    );
    let out = rig.run(&["uninstall", "--agent", "claude"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), own);
}

#[test]
fn the_status_line_stays_as_written_when_the_entries_follow_the_hooks() {
    let rig = Rig::new();
    let settings = rig.write("home/.claude/settings.json", OWN);
    let said = install(&rig, &["--status-line"]);
    assert!(said.contains("shows agent-hooks' status line"), "{said}");
    rig.write(
        "home/.config/agent-hooks/hooks/pre.json",
        &hook_on("PreToolUse", "true", false),
    );
    let said = install(&rig, &["--status-line"]);
    assert!(said.contains("wired PreToolUse"), "{said}");
    let text = std::fs::read_to_string(&settings).unwrap();
    assert_eq!(
        wired(&text),
        ["PreToolUse", "SessionStart", "UserPromptSubmit"],
        "{text}"
    );
    let value: Value = serde_json::from_str(&text).unwrap();
    assert!(
        value["statusLine"]["command"]
            .as_str()
            .is_some_and(|c| c.ends_with("status --agent claude")),
        "{text}"
    );
    let out = rig.run(&["uninstall", "--agent", "claude"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), OWN);
}
