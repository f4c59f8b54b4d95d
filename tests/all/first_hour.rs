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
    // Blocked, the reason for the model; the file's other hook, refused, is the user's to
    // know (`systemMessage`), not the model's.
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let answer: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(answer["decision"], "block", "{answer}");
    assert_eq!(answer["reason"], "no rm -rf here", "{answer}");
    assert!(
        answer["systemMessage"]
            .as_str()
            .unwrap()
            .contains("invalid matcher `*exec`"),
        "{answer}"
    );
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
    assert!(
        !said.contains("not trusted"),
        "not a matter of trust: {said}"
    );
}

/// A project's Claude Code settings with two hooks of its own: loggers, which answer nothing.
const LOGGERS: &str = r#"{
  "hooks": {
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo pre >> calls.log"}]}],
    "PostToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "echo post >> calls.log"}]}]
  }
}
"#;

/// The commands of the hooks a `list --json` report lists.
fn listed_commands(report: &serde_json::Value) -> Vec<String> {
    report["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["command"].as_str().unwrap_or_default().to_owned())
        .collect()
}

fn json_run(rig: &Rig, args: &[&str]) -> serde_json::Value {
    let out = rig.run(args);
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: {e}: {}{}", stdout(&out), stderr(&out)))
}

#[test]
fn list_and_doctor_show_no_wiring_entry_and_trust_follows_the_hooks_taken_over_and_back() {
    let rig = Rig::new();
    let settings = rig.write("project/.claude/settings.json", LOGGERS);
    let out = rig.run(&["install", "--agent", "claude", "--project", "--take-over"]);
    assert!(out.status.success(), "{}", stderr(&out));
    // The 28 entries install wrote are agent-hooks itself: not hooks, nothing to trust.
    let list = json_run(&rig, &["list", "--json"]);
    let settings_path = settings.display().to_string();
    assert_eq!(listed_commands(&list), Vec::<String>::new(), "{list}");
    let waiting = crate::dialect_files::untrusted_paths(&list);
    assert_eq!(waiting.len(), 1, "{waiting:?}");
    assert!(
        waiting[0].contains("taken-over/claude/project-"),
        "only the hooks taken over wait for trust: {waiting:?}"
    );
    let said = stdout(&rig.run(&["list"]));
    assert!(!said.contains("--agent claude"), "{said}");
    assert!(
        said.contains("Claude Code: runs agent-hooks"),
        "the wiring is shown as such: {said}"
    );
    let out = rig.run(&["trust"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        !stdout(&out).contains("  .claude/settings.json"),
        "{}",
        stdout(&out)
    );
    // doctor: the two loggers, no wiring entry, and no note about answers they never give.
    let out = rig.run(&["doctor", "--json"]);
    let doctor: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        listed_commands(&doctor),
        ["echo pre >> calls.log", "echo post >> calls.log"],
        "{doctor}"
    );
    assert_eq!(doctor["notes"], json!([]), "{doctor}");
    assert_eq!(out.status.code(), Some(0), "{doctor}");
    // Uninstall: the file is Claude Code's again, with the hooks the user trusted.
    let out = rig.run(&["uninstall", "--agent", "claude", "--project"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), LOGGERS);
    let list = json_run(&rig, &["list", "--json"]);
    assert_eq!(
        crate::dialect_files::untrusted_paths(&list),
        Vec::<String>::new(),
        "{list}"
    );
    assert!(
        list["hooks"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h["path"] == settings_path.as_str()),
        "{list}"
    );
    let said = stdout(&rig.run(&["doctor"]));
    assert!(!said.contains("agent-hooks trust"), "{said}");
    assert!(said.contains("No problems found."), "{said}");
    // The copy's trust entry went with the copy.
    let store =
        std::fs::read_to_string(rig.home().join(".config/agent-hooks/trusted-hooks.json")).unwrap();
    assert!(!store.contains("taken-over"), "{store}");
}

#[test]
fn hooks_never_trusted_stay_untrusted_after_a_take_over_and_back() {
    let rig = Rig::new();
    rig.write("project/.claude/settings.json", LOGGERS);
    let before = crate::dialect_files::untrusted_paths(&json_run(&rig, &["list", "--json"]));
    for args in [
        &["install", "--agent", "claude", "--project", "--take-over"][..],
        &["uninstall", "--agent", "claude", "--project"],
    ] {
        let out = rig.run(args);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let after = crate::dialect_files::untrusted_paths(&json_run(&rig, &["list", "--json"]));
    assert_eq!(
        after, before,
        "as before the install: still the user's to trust"
    );
}

#[test]
fn installing_again_with_the_same_options_is_a_no_op_and_other_options_say_what_to_run() {
    let rig = Rig::new();
    let settings = rig.write("project/.claude/settings.json", LOGGERS);
    let take_over = ["install", "--agent", "claude", "--project", "--take-over"];
    let out = rig.run(&take_over);
    assert!(out.status.success(), "{}", stderr(&out));
    let installed = std::fs::read_to_string(&settings).unwrap();
    // The same command again: nothing to do, and it says so.
    let out = rig.run(&take_over);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("already runs agent-hooks, installed with these options")
            && stdout(&out).contains("Nothing to do."),
        "{}",
        stdout(&out)
    );
    assert!(
        !stderr(&out).contains("without --take-over"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), installed);
    // Other options: what differs, and what to run; nothing changed.
    let out = rig.run(&[
        "install",
        "--agent",
        "claude",
        "--project",
        "--take-over",
        "--with",
        "codex",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("installed with other options")
            && err.contains("--with codex`")
            && err.contains("Nothing was changed")
            && err.contains("`agent-hooks uninstall --agent claude --project`")
            && err.contains(
                "then `agent-hooks install --agent claude --project --take-over --with codex`"
            ),
        "{err}"
    );
    let out = rig.run(&["install", "--agent", "claude", "--project"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("it was installed with --take-over, and this install is without it"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), installed);
    // Uninstall still puts the user's hooks back.
    let out = rig.run(&["uninstall", "--agent", "claude", "--project"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), LOGGERS);
}

#[test]
fn an_option_install_does_not_apply_is_refused_with_what_to_do() {
    let rig = Rig::new();
    let settings = rig.write("home/.claude/settings.json", LOGGERS);
    let out = rig.run(&["install", "--agent", "claude", "--require", "guard.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("install does not apply --require")
            && stderr(&out).contains("\"required\": true"),
        "{}",
        stderr(&out)
    );
    for (option, extra) in [
        ("--force", None),
        ("--hook", Some("x.json")),
        ("--json", None),
    ] {
        let mut args = vec!["install", "--agent", "claude", option];
        args.extend(extra);
        let out = rig.run(&args);
        assert_eq!(out.status.code(), Some(2), "{option}");
        assert!(
            stderr(&out).contains(&format!("install does not apply {option}")),
            "{}",
            stderr(&out)
        );
    }
    assert_eq!(
        std::fs::read_to_string(&settings).unwrap(),
        LOGGERS,
        "nothing was installed"
    );
}

#[test]
fn untrust_removes_a_projects_trust_and_the_entries_of_files_that_are_gone() {
    let rig = Rig::new();
    rig.write("project/.claude/settings.json", LOGGERS);
    let stale = rig.write(
        "project/.agent-hooks/hooks/old.json",
        r#"{"PreToolUse": [{"hooks": [{"type": "command", "command": "true"}]}]}"#,
    );
    assert!(rig.run(&["trust"]).status.success());
    assert_eq!(
        crate::dialect_files::untrusted_paths(&json_run(&rig, &["list", "--json"])),
        Vec::<String>::new()
    );
    // A file that is gone leaves a stale entry: --gone clears it, and only it.
    std::fs::remove_file(&stale).unwrap();
    let out = rig.run(&["untrust", "--gone"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("Removed 1 trust entry") && stdout(&out).contains("old.json"),
        "{}",
        stdout(&out)
    );
    let store_file = rig.home().join(".config/agent-hooks/trusted-hooks.json");
    let store = std::fs::read_to_string(&store_file).unwrap();
    assert!(
        !store.contains("old.json") && store.contains("settings.json"),
        "{store}"
    );
    // One file by its path, then the whole project.
    let out = rig.run(&["untrust", ".claude/settings.json"]);
    assert!(
        stdout(&out).contains("Removed 1 trust entry"),
        "{}",
        stdout(&out)
    );
    let waiting = crate::dialect_files::untrusted_paths(&json_run(&rig, &["list", "--json"]));
    assert_eq!(waiting.len(), 1, "{waiting:?}");
    assert!(waiting[0].ends_with(".claude/settings.json"), "{waiting:?}");
    assert!(rig.run(&["trust"]).status.success());
    let out = rig.run(&["untrust"]);
    assert!(
        stdout(&out).contains("Removed 1 trust entry"),
        "{}",
        stdout(&out)
    );
    assert_eq!(
        crate::dialect_files::untrusted_paths(&json_run(&rig, &["list", "--json"])).len(),
        1
    );
    // Again: nothing to remove, and it says so.
    let out = rig.run(&["untrust"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stdout(&out).contains("nothing to remove"),
        "{}",
        stdout(&out)
    );
}

/// A hooks file that does not parse, project hooks awaiting trust and what discovery warns
/// of (a file a hooks folder does not read) are told the user (Claude Code's
/// `systemMessage`), once per session, and never the model: a guard's block on a later
/// event is its reason alone.
#[test]
fn failures_are_told_the_user_once_per_session_and_never_the_model() {
    use agent_hooks_tests::rig::Resident;
    let rig = Rig::new();
    std::fs::write(rig.user_hooks().join("broken.json"), "{\"PreToolUse\": [").unwrap();
    std::fs::write(rig.user_hooks().join("guard.sh"), "exit 0\n").unwrap();
    std::fs::write(
        rig.user_hooks().join("guard.json"),
        r#"{"PreToolUse": [{"hooks": [{"type": "command",
            "command": "grep -q 'rm -rf' && { echo 'no rm -rf here' >&2; exit 2; }; exit 0"}]}]}"#,
    )
    .unwrap();
    let project_hooks = rig.project().join(".agent-hooks/hooks");
    std::fs::create_dir_all(&project_hooks).unwrap();
    std::fs::write(
        project_hooks.join("project.json"),
        r#"{"PreToolUse": [{"hooks": [{"type": "command", "command": "true"}]}]}"#,
    )
    .unwrap();
    let first = Resident::hook(&rig, &claude_pre(&rig.project(), "ls"));
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let answer: serde_json::Value = serde_json::from_str(&stdout(&first)).unwrap();
    let told = answer["systemMessage"].as_str().unwrap_or_default();
    assert!(told.contains("broken.json"), "{answer}");
    assert!(
        told.contains("project.json: not trusted yet, so it does not run: run `agent-hooks trust`"),
        "{answer}"
    );
    assert!(
        told.contains(&format!(
            "agent-hooks: {} is neither a plugin library (.so) nor a hooks file (.json), so it is not loaded",
            rig.user_hooks().join("guard.sh").display()
        )),
        "{answer}"
    );
    assert!(
        answer.get("hookSpecificOutput").is_none(),
        "no decision: {answer}"
    );
    // The same session's next events: told already.
    let second = Resident::hook(&rig, &claude_pre(&rig.project(), "ls"));
    assert_eq!(
        (second.status.code(), stdout(&second)),
        (Some(0), String::new()),
        "{}",
        stderr(&second)
    );
    let blocked = Resident::hook(&rig, &claude_pre(&rig.project(), "rm -rf ~"));
    assert_eq!(blocked.status.code(), Some(2));
    assert_eq!(stderr(&blocked), "no rm -rf here\n");
}

/// A guard in agent-hooks' own hooks folder that blocks `rm -rf ~` and force pushes, for
/// agent-hooks' name of the shell tool (`exec`).
fn exec_guard(rig: &Rig) {
    std::fs::write(
        rig.user_hooks().join("guard.json"),
        json!({"PreToolUse": [{"matcher": "exec", "hooks": [{"type": "command",
            "command": "grep -Eq 'rm -rf ~|push --force' && { echo 'the guard refuses it' >&2; exit 2; }; exit 0"}]}]})
        .to_string(),
    )
    .unwrap();
}

/// Claude Code's own PreToolUse hook in the user's settings: it leaves a mark when run.
fn claude_settings_hook(rig: &Rig) -> std::path::PathBuf {
    let mark = rig.root().join("claude-hook-ran");
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
        "command": format!("touch {}", mark.display())}]}]}});
    std::fs::create_dir_all(rig.home().join(".claude")).unwrap();
    std::fs::write(
        rig.home().join(".claude/settings.json"),
        settings.to_string(),
    )
    .unwrap();
    mark
}

#[test]
fn replay_of_claude_code_payloads_blocks_with_agent_claude_and_warns_without() {
    let rig = Rig::new();
    exec_guard(&rig);
    let mark = claude_settings_hook(&rig);
    let project = rig.project();
    // As the newcomer recorded them: Claude Code's payloads, each with its `event`; the
    // last one as Claude Code sends it, named by `hook_event_name` alone.
    let mut lines: Vec<String> = ["rm -rf ~", "git push --force origin main", "ls"]
        .iter()
        .map(|command| {
            let mut line: serde_json::Value =
                serde_json::from_str(&claude_pre(&project, command)).unwrap();
            line["event"] = json!("PreToolUse");
            line.to_string()
        })
        .collect();
    let session = rig.write("session.jsonl", &lines.join("\n"));
    let session = session.to_str().unwrap();
    let without = rig.run(&["replay", session]);
    assert_eq!(without.status.code(), Some(0), "{}", stderr(&without));
    assert!(
        stdout(&without).contains("3 events, 0 blocked"),
        "{}",
        stdout(&without)
    );
    let said = stderr(&without);
    let warnings: Vec<&str> = said
        .lines()
        .filter(|l| l.contains("--agent claude"))
        .map(|l| l.trim())
        .collect::<Vec<_>>();
    assert_eq!(
        warnings.len(),
        1,
        "one warning per tool name: {}",
        stderr(&without)
    );
    assert!(warnings[0].contains("`Bash`"), "{}", warnings[0]);
    // Without --agent, Claude Code's own settings are hooks like any other.
    assert!(mark.exists());
    std::fs::remove_file(&mark).unwrap();

    lines.push(claude_pre(&project, "rm -rf ~"));
    let session = rig.write("session.jsonl", &lines.join("\n"));
    let session = session.to_str().unwrap();
    let with = rig.run(&["replay", "--agent", "claude", session]);
    assert_eq!(with.status.code(), Some(0), "{}", stderr(&with));
    assert!(
        stdout(&with).contains("4 events, 3 blocked"),
        "{}",
        stdout(&with)
    );
    assert!(
        stdout(&with).contains("the guard refuses it"),
        "{}",
        stdout(&with)
    );
    assert!(!stderr(&with).contains("warning"), "{}", stderr(&with));
    // Under --agent claude, Claude Code's own hooks are Claude Code's to run, as under
    // `hook --agent claude`.
    assert!(
        !mark.exists(),
        "Claude Code's own hook ran under --agent claude"
    );
}

#[test]
fn emit_of_a_claude_code_payload_blocks_with_agent_claude_and_warns_without() {
    let rig = Rig::new();
    exec_guard(&rig);
    let payload = claude_pre(&rig.project(), "rm -rf ~");
    let without = rig.run(&["emit", "PreToolUse", "--input", &payload]);
    assert_eq!(without.status.code(), Some(0), "{}", stderr(&without));
    assert!(
        stdout(&without).contains("tool_call allowed"),
        "{}",
        stdout(&without)
    );
    assert!(
        stderr(&without).contains("warning") && stderr(&without).contains("--agent claude"),
        "{}",
        stderr(&without)
    );
    let with = rig.run(&[
        "emit",
        "PreToolUse",
        "--agent",
        "claude",
        "--input",
        &payload,
    ]);
    assert_eq!(with.status.code(), Some(0), "{}", stderr(&with));
    assert!(
        stdout(&with).contains("tool_call BLOCKED"),
        "{}",
        stdout(&with)
    );
    assert!(
        stdout(&with).contains("the guard refuses it"),
        "{}",
        stdout(&with)
    );
    assert!(!stderr(&with).contains("warning"), "{}", stderr(&with));
}

#[test]
fn doctor_with_agent_claude_leaves_claude_codes_own_hooks_to_it() {
    let rig = Rig::new();
    exec_guard(&rig);
    claude_settings_hook(&rig);
    let all = json_run(&rig, &["doctor", "--json"]);
    assert!(
        listed_commands(&all)
            .iter()
            .any(|c| c.starts_with("touch ")),
        "{all}"
    );
    let claude = json_run(&rig, &["doctor", "--json", "--agent", "claude"]);
    let commands = listed_commands(&claude);
    assert!(
        !commands.iter().any(|c| c.starts_with("touch ")),
        "{claude}"
    );
    assert!(
        commands.iter().any(|c| c.contains("the guard refuses it")),
        "{claude}"
    );
}

/// `doctor` starts each long-running hook once: one that crashes on start (a missing
/// import) is a problem, with its traceback; one that says hello is not.
#[test]
fn doctor_reports_a_long_running_guard_that_does_not_start() {
    let rig = Rig::new();
    let hooks = rig.user_hooks();
    let broken = hooks.join("broken-guard.py");
    std::fs::write(&broken, "import no_such_module_here\n").unwrap();
    let good = hooks.join("good-guard.py");
    std::fs::write(
        &good,
        "import json, sys\nsys.stdout.write(json.dumps({\"type\": \"hello\", \"protocol\": 1, \"name\": \"good\"}) + \"\\n\"); sys.stdout.flush()\nfor line in sys.stdin:\n    pass\n",
    )
    .unwrap();
    let entry = |script: &std::path::Path| {
        json!({"type": "command", "command": format!("python3 '{}'", script.display()),
               "persistent": true, "timeout": 5})
    };
    std::fs::write(
        hooks.join("guards.json"),
        json!({"PreToolUse": [{"hooks": [entry(&broken), entry(&good)]}]}).to_string(),
    )
    .unwrap();
    let out = rig.run(&["doctor"]);
    let said = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains("broken-guard.py'` did not start")
            && said.contains("ModuleNotFoundError: No module named 'no_such_module_here'")
            && said.contains("(doctor started it to check)"),
        "{said}"
    );
    assert!(!said.contains("good-guard.py'` did not start"), "{said}");
}

/// `status` says in one line what runs, what stands in its way, and what is wired.
#[test]
fn status_says_in_one_line_what_runs_and_what_is_wired() {
    let rig = Rig::new();
    let out = rig.run(&["status"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "agent-hooks: 0 hooks · resident not running · no agent wired\n"
    );
    exec_guard(&rig);
    std::fs::write(rig.user_hooks().join("broken.json"), "{").unwrap();
    assert_eq!(
        rig.run(&["install", "--agent", "claude"]).status.code(),
        Some(0)
    );
    let out = rig.run(&["status"]);
    assert_eq!(
        stdout(&out),
        "agent-hooks: 1 hook · 1 problem (agent-hooks doctor) · resident not running · wired: Claude Code\n"
    );
    let out = rig.run(&["status", "--json"]);
    let parts: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        parts,
        json!({"hooks": 1, "problems": 1, "awaiting_trust": 0, "resident": false,
               "wired": ["Claude Code"], "observing": 0, "last_block": null})
    );
}
