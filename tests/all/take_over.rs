//! `agent-hooks install --take-over` and `uninstall`, through the real program: the agent's
//! own hooks move under agent-hooks (which runs them, project ones once trusted), the agent's
//! file keeps only the agent-hooks entry, and `uninstall` puts the file back byte for byte,
//! or refuses to overwrite hooks the user changed since, unless `--force`.

use std::path::{Path, PathBuf};

use agent_hooks_tests::{
    cli::{run, stderr, stdout},
    rig::Rig,
};
use serde_json::{json, Value};

/// A command that must succeed, `hook` without the resident process, and what
/// `--take-over` copied.
trait TakeOver {
    /// [`Rig::run`], which must succeed: its stdout.
    fn ok(&self, args: &[&str]) -> String;
    /// `hook --agent AGENT --no-serve` with `payload`.
    fn hook(&self, agent: &str, payload: &str) -> std::process::Output;
    /// The copies `--take-over` made.
    fn copies(&self) -> Vec<PathBuf>;
}

impl TakeOver for Rig {
    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        stdout(&out)
    }

    fn hook(&self, agent: &str, payload: &str) -> std::process::Output {
        self.run_with(&["hook", "--agent", agent, "--no-serve"], payload)
    }

    fn copies(&self) -> Vec<PathBuf> {
        let mut found = Vec::new();
        walk(
            &self.home().join(".config/agent-hooks/taken-over"),
            &mut found,
        );
        found
    }
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if entry.path().is_dir() {
            walk(&entry.path(), out);
        } else {
            out.push(entry.path());
        }
    }
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

fn claude_pre(project: &Path, command: &str) -> String {
    json!({"session_id": "c-1", "cwd": project, "hook_event_name": "PreToolUse",
           "tool_name": "Bash", "tool_input": {"command": command}})
    .to_string()
}

/// Claude Code's settings, oddly formatted, with a guard of its own, a hook on an event
/// agent-hooks does not know (kept for Claude Code) and other settings.
const CLAUDE: &str = "{\n    \"model\":   \"opus\",\n  \"hooks\": {\"PreToolUse\": [ {\"matcher\": \"Bash\",\n   \"hooks\":[{\"type\":\"command\",\"command\":\"echo 'claude guard says no' >&2; exit 2\"}]}],\n \"FutureEvent\":[{\"hooks\":[{\"type\":\"command\",\"command\":\"true\"}]}]},\n  \"z\":1}";

#[test]
fn claude_hooks_move_under_agent_hooks_and_come_back_byte_for_byte() {
    let rig = Rig::new();
    let settings = rig.write("home/.claude/settings.json", CLAUDE);
    // Before: Claude Code runs its own guard; agent-hooks does not run it a second time.
    let out = rig.hook("claude", &claude_pre(&rig.project(), "ls"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let said = rig.ok(&[
        "install",
        "--agent",
        "claude",
        "--take-over",
        "--program",
        "agent-hooks",
    ]);
    assert!(
        said.contains("Its 1 hooks there moved under agent-hooks"),
        "{said}"
    );
    let text = read(&settings);
    let value: Value = serde_json::from_str(&text).unwrap();
    let entry =
        json!([{"hooks": [{"type": "command", "command": "agent-hooks hook --agent claude"}]}]);
    assert_eq!(value["hooks"]["PreToolUse"], entry, "{text}");
    assert_eq!(value["hooks"]["SessionStart"], entry, "{text}");
    // Only the events a hook uses (the guard moved under agent-hooks) and SessionStart.
    assert_eq!(value["hooks"]["Stop"], Value::Null, "{text}");
    assert_eq!(
        value["hooks"]["FutureEvent"][0]["hooks"][0]["command"], "true",
        "an event agent-hooks does not run stays Claude Code's: {text}"
    );
    assert_eq!(value["model"], "opus");
    let copies = rig.copies();
    assert_eq!(copies.len(), 1, "{copies:?}");
    assert!(copies[0].ends_with("taken-over/claude/user/.claude/settings.json"));
    // Now agent-hooks runs Claude Code's guard, in Claude Code's dialect.
    let out = rig.hook("claude", &claude_pre(&rig.project(), "ls"));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("claude guard says no"),
        "{}",
        stderr(&out)
    );
    // Not under another agent unless it names Claude Code with --with.
    let gemini = json!({"session_id": "g", "cwd": rig.project(), "hook_event_name": "BeforeTool",
                        "tool_name": "run_shell_command", "tool_input": {"command": "ls"}})
    .to_string();
    assert_eq!(rig.hook("gemini", &gemini).status.code(), Some(0));
    let out = run(
        &rig.project(),
        &rig.home(),
        &[
            "hook",
            "--agent",
            "gemini",
            "--with",
            "claude",
            "--no-serve",
        ],
        Some(&gemini),
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    // list shows where the hooks are now.
    let list = rig.ok(&["list"]);
    assert!(list.contains("claude (taken over)"), "{list}");
    // Undo: the same bytes, and no copy left.
    rig.ok(&["uninstall", "--agent", "claude"]);
    assert_eq!(read(&settings), CLAUDE);
    assert_eq!(rig.copies(), Vec::<PathBuf>::new());
    let out = rig.hook("claude", &claude_pre(&rig.project(), "ls"));
    assert_eq!(out.status.code(), Some(0), "Claude Code's own again");
}

#[test]
fn uninstall_keeps_edits_elsewhere_and_refuses_to_overwrite_edited_hooks() {
    let rig = Rig::new();
    let settings = rig.write("home/.claude/settings.json", CLAUDE);
    rig.ok(&[
        "install",
        "--agent",
        "claude",
        "--take-over",
        "--program",
        "agent-hooks",
    ]);
    // An edit outside `hooks` is kept by the undo.
    let edited = read(&settings).replace("\"opus\"", "\"sonnet\"");
    std::fs::write(&settings, &edited).unwrap();
    rig.ok(&["uninstall", "--agent", "claude"]);
    assert_eq!(read(&settings), CLAUDE.replace("\"opus\"", "\"sonnet\""));

    // An edit inside the `hooks` agent-hooks wrote: the undo refuses, and changes nothing.
    std::fs::write(&settings, CLAUDE).unwrap();
    rig.ok(&[
        "install",
        "--agent",
        "claude",
        "--take-over",
        "--program",
        "agent-hooks",
    ]);
    let edited = read(&settings).replacen(
        "\"PreToolUse\": [",
        "\"PreToolUse\": [{\"hooks\":[{\"type\":\"command\",\"command\":\"added-later\"}]},",
        1,
    );
    std::fs::write(&settings, &edited).unwrap();
    let out = rig.run(&["uninstall", "--agent", "claude"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("were changed since `install --take-over` wrote them"),
        "{err}"
    );
    assert!(err.contains("uninstall --force"), "{err}");
    assert_eq!(read(&settings), edited);
    assert_eq!(rig.copies().len(), 1);
    // An edit of the copy agent-hooks runs is the user's version of those hooks.
    let copy = rig.copies()[0].clone();
    std::fs::write(&copy, read(&copy).replace("says no", "says NO")).unwrap();
    // --force puts the hooks back as the copy holds them, the rest of the file as it is,
    // and keeps what they replace.
    let out = rig.run(&["uninstall", "--agent", "claude", "--force"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let restored = read(&settings);
    assert!(
        restored.starts_with("{\n    \"model\":   \"opus\",\n  \"hooks\": {")
            && restored.ends_with("},\n  \"z\":1}"),
        "{restored}"
    );
    let value: Value = serde_json::from_str(&restored).unwrap();
    assert_eq!(
        value["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
        "echo 'claude guard says NO' >&2; exit 2"
    );
    assert_eq!(
        value["hooks"]["FutureEvent"][0]["hooks"][0]["command"],
        "true"
    );
    assert!(
        stdout(&out).contains("Your changes to the hooks agent-hooks ran for you are back in"),
        "{}",
        stdout(&out)
    );
    let left: Vec<String> = rig
        .copies()
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, ["settings.json.replaced"]);
    let replaced = rig
        .copies()
        .into_iter()
        .find(|p| p.extension().unwrap() == "replaced");
    assert!(read(&replaced.unwrap()).contains("added-later"));
    // The record is gone: uninstalling again says so.
    let said = rig.ok(&["uninstall", "--agent", "claude"]);
    assert!(said.contains("not installed"), "{said}");
}

#[test]
fn project_codex_hooks_taken_over_run_once_trusted() {
    let rig = Rig::new();
    let codex = "{\"hooks\":{\n\"PreToolUse\":[{\"matcher\":\"Bash\",\"hooks\":[{\"type\":\"command\",\"command\":\"echo codex-guard >&2; exit 2\",\"timeout\":5}]}]}}\n";
    let file = rig.write("project/.codex/hooks.json", codex);
    let said = rig.ok(&[
        "install",
        "--agent",
        "codex",
        "--project",
        "--take-over",
        "--program",
        "agent-hooks",
    ]);
    assert!(said.contains("they run once you trust them"), "{said}");
    let value: Value = serde_json::from_str(&read(&file)).unwrap();
    assert_eq!(
        value["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
        "agent-hooks hook --agent codex"
    );
    let payload =
        json!({"session_id": "x-1", "cwd": rig.project(), "hook_event_name": "PreToolUse",
                         "tool_name": "Bash", "tool_input": {"command": "ls"}})
        .to_string();
    let out = rig.hook("codex", &payload);
    assert_eq!(
        out.status.code(),
        Some(0),
        "untrusted, it does not run: {}",
        stderr(&out)
    );
    rig.ok(&["trust"]);
    let out = rig.hook("codex", &payload);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("codex-guard"), "{}", stderr(&out));
    rig.ok(&["uninstall", "--agent", "codex", "--project"]);
    assert_eq!(read(&file), codex);
    assert!(rig.copies().is_empty(), "{:?}", rig.copies());
}

#[test]
fn gemini_hooks_with_comments_are_taken_over_and_put_back() {
    let rig = Rig::new();
    let gemini = "// my settings\n{\n  \"general\": {\"x\": 1}, /* keep */\n  \"hooks\": {\n    // the guard\n    \"BeforeTool\": [{\"matcher\": \"run_shell_command\", \"hooks\": [{\"type\": \"command\", \"command\": \"echo gemini-guard >&2; exit 2\", \"timeout\": 5000},]},],\n  },\n}\n";
    let file = rig.write("home/.gemini/settings.json", gemini);
    rig.ok(&[
        "install",
        "--agent",
        "gemini",
        "--take-over",
        "--program",
        "agent-hooks",
    ]);
    let text = read(&file);
    assert!(
        text.starts_with("// my settings\n{\n  \"general\": {\"x\": 1}, /* keep */"),
        "{text}"
    );
    assert!(!text.contains("gemini-guard"), "{text}");
    let copy = rig.copies().pop().unwrap();
    assert!(
        copy.ends_with(".gemini/settings.json"),
        "{}",
        copy.display()
    );
    let copied: Value = serde_json::from_str(&read(&copy)).unwrap();
    assert_eq!(
        copied["hooks"]["BeforeTool"][0]["hooks"][0]["timeout"],
        5000
    );
    let payload =
        json!({"session_id": "g-1", "cwd": rig.project(), "hook_event_name": "BeforeTool",
                         "tool_name": "run_shell_command", "tool_input": {"command": "ls"}})
        .to_string();
    let out = rig.hook("gemini", &payload);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("gemini-guard"), "{}", stderr(&out));
    rig.ok(&["uninstall", "--agent", "gemini"]);
    assert_eq!(read(&file), gemini);
}

/// A preToolUse payload as Copilot CLI writes it for its bash tool.
fn copilot_pre(project: &Path, command: &str) -> String {
    json!({"timestamp": 1_700_000_000_000_u64, "cwd": project, "toolName": "bash",
           "toolArgs": {"command": command}})
    .to_string()
}

/// `hook --agent copilot --event preToolUse --no-serve` with `payload`.
fn copilot_hook(rig: &Rig, payload: &str) -> std::process::Output {
    run(
        &rig.project(),
        &rig.home(),
        &[
            "hook",
            "--agent",
            "copilot",
            "--event",
            "preToolUse",
            "--no-serve",
        ],
        Some(payload),
    )
}

/// Copilot CLI's own guard, oddly formatted: it denies `rm`.
const COPILOT_GUARD: &str = "{ \"version\": 1,\n  \"hooks\": {\"preToolUse\": [{\"type\": \"command\",\n    \"bash\": \"grep -q rm && echo '{\\\"permissionDecision\\\":\\\"deny\\\",\\\"permissionDecisionReason\\\":\\\"copilot guard says no\\\"}'; exit 0\"}]}}\n";

/// A second file of Copilot CLI's, on another event.
const COPILOT_AUDIT: &str =
    "{\"version\":1,\"hooks\":{\"sessionStart\":[{\"type\":\"command\",\"bash\":\"true\"}]}}";

#[test]
fn copilot_hooks_files_move_under_agent_hooks_and_come_back_byte_for_byte() {
    use std::os::unix::fs::PermissionsExt;
    let rig = Rig::new();
    let guard = rig.write("project/.github/hooks/guard.json", COPILOT_GUARD);
    let audit = rig.write("project/.github/hooks/audit.json", COPILOT_AUDIT);
    std::fs::set_permissions(&audit, std::fs::Permissions::from_mode(0o640)).unwrap();
    // Before: Copilot CLI runs its own files; agent-hooks does not run them a second time.
    let out = copilot_hook(&rig, &copilot_pre(&rig.project(), "rm x"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stdout(&out).contains("deny"), "{}", stdout(&out));
    let said = rig.ok(&[
        "install",
        "--agent",
        "copilot",
        "--project",
        "--take-over",
        "--program",
        "agent-hooks",
    ]);
    assert!(
        said.contains("Its 2 hooks files there moved under agent-hooks"),
        "{said}"
    );
    assert!(said.contains("agent-hooks trust"), "{said}");
    // Copilot CLI's folder holds agent-hooks' file alone.
    let mut left: Vec<String> = std::fs::read_dir(rig.project().join(".github/hooks"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["agent-hooks.json"]);
    let mut copies = rig.copies();
    copies.sort();
    assert_eq!(copies.len(), 2, "{copies:?}");
    assert!(
        copies[0].ends_with(".github/hooks/audit.json"),
        "{copies:?}"
    );
    assert!(
        copies[1].ends_with(".github/hooks/guard.json"),
        "{copies:?}"
    );
    assert!(copies[0]
        .to_string_lossy()
        .contains("taken-over/copilot/project-"));
    assert_eq!(read(&copies[1]), COPILOT_GUARD);
    // A project's hooks: not run before they are trusted.
    let out = copilot_hook(&rig, &copilot_pre(&rig.project(), "rm x"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stdout(&out).contains("deny"), "{}", stdout(&out));
    rig.ok(&["trust"]);
    // Now agent-hooks runs Copilot CLI's guard, in Copilot CLI's form.
    let out = copilot_hook(&rig, &copilot_pre(&rig.project(), "rm x"));
    let answer = stdout(&out);
    assert!(
        answer.contains("\"permissionDecision\":\"deny\"")
            && answer.contains("copilot guard says no"),
        "{answer} {}",
        stderr(&out)
    );
    let out = copilot_hook(&rig, &copilot_pre(&rig.project(), "ls"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stdout(&out).contains("deny"), "{}", stdout(&out));
    // Not under another agent unless it names Copilot CLI with --with.
    let out = rig.hook("claude", &claude_pre(&rig.project(), "rm x"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // Undo: the same bytes and modes, agent-hooks' file and the copies gone.
    rig.ok(&["uninstall", "--agent", "copilot", "--project"]);
    assert_eq!(read(&guard), COPILOT_GUARD);
    assert_eq!(read(&audit), COPILOT_AUDIT);
    assert_eq!(
        std::fs::metadata(&audit).unwrap().permissions().mode() & 0o777,
        0o640
    );
    assert!(!rig
        .project()
        .join(".github/hooks/agent-hooks.json")
        .exists());
    assert_eq!(rig.copies(), Vec::<PathBuf>::new());
}

#[test]
fn copilot_user_hooks_run_at_once_and_uninstall_refuses_to_overwrite_a_new_file() {
    let rig = Rig::new();
    let guard = rig.write("home/.copilot/hooks/guard.json", COPILOT_GUARD);
    rig.ok(&[
        "install",
        "--agent",
        "copilot",
        "--take-over",
        "--program",
        "agent-hooks",
    ]);
    assert!(!guard.exists());
    assert!(rig.home().join(".copilot/hooks/agent-hooks.json").is_file());
    // The user's own hooks need no trust.
    let out = copilot_hook(&rig, &copilot_pre(&rig.project(), "rm x"));
    assert!(
        stdout(&out).contains("copilot guard says no"),
        "{} {}",
        stdout(&out),
        stderr(&out)
    );
    // A new file where the guard was: uninstall changes nothing and says what to do.
    rig.write(
        "home/.copilot/hooks/guard.json",
        "{\"version\":1,\"hooks\":{}}",
    );
    let out = rig.run(&["uninstall", "--agent", "copilot"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("were made again") && stderr(&out).contains("uninstall --force"),
        "{}",
        stderr(&out)
    );
    assert_eq!(read(&guard), "{\"version\":1,\"hooks\":{}}");
    assert!(rig.home().join(".copilot/hooks/agent-hooks.json").is_file());
    // --force puts the old file back and keeps the new one beside the copy.
    rig.ok(&["uninstall", "--agent", "copilot", "--force"]);
    assert_eq!(read(&guard), COPILOT_GUARD);
    assert!(!rig.home().join(".copilot/hooks/agent-hooks.json").exists());
    let kept = rig.copies();
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert!(kept[0].to_string_lossy().ends_with("guard.json.replaced"));
    assert_eq!(read(&kept[0]), "{\"version\":1,\"hooks\":{}}");
}

#[test]
fn a_take_over_after_a_plain_install_is_refused_with_what_to_do() {
    let rig = Rig::new();
    // Installed plainly first, a take-over is refused with what to do.
    rig.write("home/.claude/settings.json", CLAUDE);
    rig.ok(&["install", "--agent", "claude", "--program", "agent-hooks"]);
    let out = rig.run(&["install", "--agent", "claude", "--take-over"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("run `agent-hooks uninstall` first"),
        "{}",
        stderr(&out)
    );
}

/// What the newcomer did: `uninstall` refused (a hook was added where agent-hooks wrote its
/// entries) and said to move it into the copy; moved there, the next `uninstall` gives it
/// back with the others, in the agent's file, run by the agent again. Nothing set aside.
#[test]
fn a_hook_moved_into_the_copy_as_uninstall_advises_comes_back_with_the_others() {
    let rig = Rig::new();
    let settings = rig.write("home/.claude/settings.json", CLAUDE);
    rig.ok(&[
        "install",
        "--agent",
        "claude",
        "--take-over",
        "--program",
        "agent-hooks",
    ]);
    let wired = read(&settings);
    let added = "{\"hooks\":[{\"type\":\"command\",\"command\":\"added-later\"}]}";
    let edited = wired.replacen(
        "\"PreToolUse\": [",
        &format!("\"PreToolUse\": [{added},"),
        1,
    );
    std::fs::write(&settings, &edited).unwrap();
    let out = rig.run(&["uninstall", "--agent", "claude"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("Move what you added into"),
        "{}",
        stderr(&out)
    );
    // As advised: the added hook taken out of the agent's file, put into the copy.
    std::fs::write(&settings, &wired).unwrap();
    let copy = rig.copies()[0].clone();
    let mut held: Value = serde_json::from_str(&read(&copy)).unwrap();
    held["hooks"]["PreToolUse"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::from_str(added).unwrap());
    std::fs::write(&copy, held.to_string()).unwrap();
    let out = rig.run(&["uninstall", "--agent", "claude"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let value: Value = serde_json::from_str(&read(&settings)).unwrap();
    let commands: Vec<&str> = value["hooks"]["PreToolUse"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["hooks"][0]["command"].as_str().unwrap())
        .collect();
    assert_eq!(
        commands,
        ["echo 'claude guard says no' >&2; exit 2", "added-later"]
    );
    assert_eq!(rig.copies(), Vec::<PathBuf>::new(), "nothing set aside");
}
