//! Copilot CLI's and Cursor's own hooks files, with real hook files from public
//! repositories (tests/fixtures/public-hooks/, each with its licence and where it came
//! from): read from where those agents read them, run in their dialect, and shown as such
//! by `agent-hooks list`.
//!
//! - awesome-copilot's tool-guardian (github/awesome-copilot, MIT): its script reads
//!   `toolInput`, which Copilot CLI's `preToolUse` does not send (it sends `toolArgs`); its
//!   fallback `grep` then fails under `set -o pipefail` and the script exits 1 on every
//!   call. Copilot CLI 1.0.102 denies every tool call then (measured with the real agent:
//!   "Denied by preToolUse hook ... (hook errored)"), and so does agent-hooks' dialect.
//! - 1Password's agent-hooks (1Password/agent-hooks, MIT): one script for several agents,
//!   which tells Cursor by `cursor_version` and answers `{"permission": "allow"}`, and
//!   Copilot's `PreToolUse` (VS Code form) as a Claude Code hook. Without 1Password it
//!   allows (it fails open).

use std::{path::Path, sync::Arc};

use agent_hooks::{
    abi::{events::PermissionDecision, prelude::*},
    agents::Agent,
    command_hook::{CommandHookReport, CommandHooks},
    HookRunner, ToolCallOutcome,
};
use agent_hooks_tests::{
    cli::{run, stdout},
    temp_dir, workspace_root, RecordingAgent,
};
use serde_json::json;

fn fixture(name: &str) -> std::path::PathBuf {
    workspace_root()
        .join("tests/fixtures/public-hooks")
        .join(name)
}

/// Copies `from` (a folder) into `to`, keeping modes.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Runs one `exec` tool call of `command` through the hooks of `file` in `project`, and
/// gives the outcome with every command hook's report.
fn tool_call(
    project: &Path,
    file: &Path,
    command: &str,
) -> (ToolCallOutcome, Vec<CommandHookReport>) {
    let mut hooks = CommandHooks::new();
    hooks.load_file(file);
    assert!(hooks.issues().is_empty(), "{:?}", hooks.issues());
    let mut runner = HookRunner::new(Vec::new(), project);
    runner.add_command_hooks(hooks);
    runner.attach(Arc::new(RecordingAgent::default()));
    let reports = Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = reports.clone();
    runner.on_command_hook(move |r| sink.lock().unwrap().push(r.clone()));
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let outcome = runtime
        .block_on(runner.emit(&ToolCallEvent::new(
            "exec",
            "call-1",
            json!({"command": command, "description": "d"}),
        )))
        .unwrap();
    let reports = reports.lock().unwrap().clone();
    (outcome, reports)
}

#[test]
fn awesome_copilots_tool_guardian_exits_1_on_copilot_payloads_and_so_denies_every_call() {
    let dir = temp_dir();
    let project = dir.path();
    let guardian = fixture("awesome-copilot-tool-guardian");
    // Installed as its README says: the folder in the project, the hooks file in
    // .github/hooks/.
    copy_tree(&guardian, &project.join("hooks/tool-guardian"));
    let file = project.join(".github/hooks/tool-guardian.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::copy(guardian.join("hooks.json"), &file).unwrap();

    let (outcome, reports) = tool_call(project, &file, "git status");
    assert_eq!(reports.len(), 1);
    assert_eq!(reports[0].dialect, Agent::Copilot);
    assert_eq!(format!("{:?}", reports[0].exit), "Code(1)", "{reports:?}");
    assert!(outcome.block, "{outcome:?}");
    assert!(
        outcome
            .reason
            .as_deref()
            .is_some_and(|r| r.contains("exited with code 1")),
        "{outcome:?}"
    );
    // The payload it got is Copilot CLI's (its log says which tool it saw).
    let log = std::fs::read_to_string(project.join("logs/copilot/tool-guardian/guard.log"));
    assert!(log.is_err(), "it exits before its log: {log:?}");
}

#[test]
fn onepasswords_hook_tells_cursor_from_the_payload_and_is_answered_in_cursors_form() {
    let dir = temp_dir();
    let project = dir.path();
    copy_tree(&fixture("1password-agent-hooks"), project);
    let file = project.join(".cursor/hooks.json");
    let (outcome, reports) = tool_call(project, &file, "ls");
    assert_eq!(reports.len(), 1, "{reports:?}");
    let report = &reports[0];
    assert_eq!(report.dialect, Agent::Cursor);
    assert_eq!(
        report.answer.permission,
        Some(PermissionDecision::Approve),
        "it answered as to Cursor ({{\"permission\": \"allow\"}}): {report:?}"
    );
    assert!(report.answer.problems.is_empty(), "{report:?}");
    assert!(!outcome.block, "{outcome:?}");

    // A read is not a shell command: `beforeShellExecution` does not run for it.
    let mut hooks = CommandHooks::new();
    hooks.load_file(&file);
    let mut runner = HookRunner::new(Vec::new(), project);
    runner.add_command_hooks(hooks);
    let ran = Arc::new(std::sync::Mutex::new(0));
    let count = ran.clone();
    runner.on_command_hook(move |_| *count.lock().unwrap() += 1);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let read = runtime
        .block_on(runner.emit(&ToolCallEvent::new("read", "c", json!({"path": "a"}))))
        .unwrap();
    assert!(!read.block);
    assert_eq!(*ran.lock().unwrap(), 0);

    // Its Copilot file names `PreToolUse`: the VS Code form, which the script reads as
    // Claude Code's (CLAUDE_PROJECT_DIR is set) and allows without printing anything.
    let copilot = project.join(".github/hooks/hooks.json");
    let mut hooks = CommandHooks::new();
    hooks.load_file(&copilot);
    let timeouts: Vec<u64> = hooks.hooks().map(|h| h.timeout.as_secs()).collect();
    assert_eq!(timeouts, [15], "its `timeout` is seconds");
    let (outcome, reports) = tool_call(project, &copilot, "ls");
    assert_eq!(reports.len(), 1, "{reports:?}");
    assert_eq!(reports[0].dialect, Agent::Copilot);
    assert!(reports[0].answer.problems.is_empty(), "{reports:?}");
    assert!(!outcome.block);
}

#[test]
fn list_shows_copilot_and_cursor_hooks_as_such_and_where_they_are() {
    let dir = temp_dir();
    let home = temp_dir();
    let project = dir.path();
    copy_tree(&fixture("1password-agent-hooks"), project);
    std::fs::create_dir_all(home.path().join(".copilot/hooks")).unwrap();
    std::fs::write(
        home.path().join(".copilot/hooks/audit.json"),
        r#"{"version": 1, "hooks": {"sessionEnd": [{"bash": "true"}], "beforeEverything": [{"bash": "true"}]}}"#,
    )
    .unwrap();
    // Copilot CLI's settings files count with a `hooks` key only.
    std::fs::write(
        home.path().join(".copilot/settings.json"),
        r#"{"model": "x", "hooks": {"agentStop": [{"bash": "./inline-stop.sh"}]}}"#,
    )
    .unwrap();
    std::fs::create_dir_all(project.join(".github/copilot")).unwrap();
    std::fs::write(
        project.join(".github/copilot/settings.json"),
        r#"{"model": "x"}"#,
    )
    .unwrap();
    let output = run(project, home.path(), &["list", "--trust-project"], None);
    let text = stdout(&output);
    assert!(text.contains("agentStop: ./inline-stop.sh"), "{text}");
    assert!(!text.contains(".github/copilot/settings.json"), "{text}");
    assert!(!text.contains("no `version`"), "{text}");
    assert!(text.contains("command (copilot-cli)"), "{text}");
    assert!(text.contains("command (cursor)"), "{text}");
    assert!(text.contains(".github/hooks/hooks.json"), "{text}");
    assert!(text.contains(".cursor/hooks.json"), "{text}");
    assert!(text.contains(".copilot/hooks/audit.json"), "{text}");
    assert!(
        text.contains("unknown event `beforeEverything`"),
        "the problem is shown: {text}"
    );
}

#[test]
fn doctor_explains_the_copilot_and_cursor_hooks_it_cannot_run() {
    let dir = temp_dir();
    let home = temp_dir();
    let project = dir.path();
    std::fs::create_dir_all(project.join(".github/hooks")).unwrap();
    std::fs::create_dir_all(project.join(".cursor")).unwrap();
    std::fs::write(
        project.join(".github/hooks/a.json"),
        r#"{"version": 1, "hooks": {
            "preToolUse": [{"powershell": "./g.ps1"}, {"bash": "./missing.sh"}],
            "sessionStart": [{"type": "prompt", "prompt": "/init"}],
            "userPromptTransformed": [{"bash": "true"}]}}"#,
    )
    .unwrap();
    std::fs::write(
        project.join(".cursor/hooks.json"),
        r#"{"version": 1, "hooks": {"afterTabFileEdit": [{"command": "true"}]}}"#,
    )
    .unwrap();
    let output = run(project, home.path(), &["doctor", "--trust-project"], None);
    let text = stdout(&output);
    assert!(!output.status.success(), "{text}");
    for expected in [
        "only a `powershell` command, which Copilot CLI runs on Windows only",
        "a `prompt` hook submits text as the user",
        "event `userPromptTransformed` is not supported",
        "event `afterTabFileEdit` is not supported",
        "the script missing.sh does not exist; the hook would fail with exit code 127, and in Copilot CLI's dialect any failure of `preToolUse` denies the call",
    ] {
        assert!(text.contains(expected), "{expected}:\n{text}");
    }
}
