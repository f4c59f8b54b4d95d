//! Codex's and Gemini CLI's own files, read as those agents read them: Codex's `[hooks]` in
//! `config.toml` and its review of hooks by hash (`[hooks.state]`), Gemini CLI's
//! extensions, `sequential` groups, settings with comments and `trusted_hooks.json`. The
//! files from public repositories are in `tests/fixtures/dialects/` with their licences;
//! the hashes are the ones Codex 0.171.0's `codex app-server` lists for them.

use std::path::Path;

use agent_hooks_tests::{
    cli::{json_of, run, stdout},
    commands::Project,
    temp_dir, workspace_root,
};
use serde_json::Value;

/// The hashes `codex app-server` (Codex 0.171.0) gives the two hooks of the skillsaw
/// fixture's `.codex/config.toml`.
const PRE_TOOL_USE_HASH: &str =
    "sha256:23e64bba24e3d6ba0f5acfaec65632025bd8818155950a6e6c8a21de654fc23c";
const SESSION_START_HASH: &str =
    "sha256:a2180df73f320bf324c9689c3914d30f375a77ca404a85cd158e155b816c0602";

fn fixture(relative: &str) -> String {
    std::fs::read_to_string(
        workspace_root()
            .join("tests/fixtures/dialects")
            .join(relative),
    )
    .unwrap()
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn hooks_of(report: &Value) -> Vec<&Value> {
    report["hooks"].as_array().unwrap().iter().collect()
}

/// The paths a `list --json` report lists as awaiting trust.
pub(crate) fn untrusted_paths(report: &Value) -> Vec<String> {
    report["untrusted"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["path"].as_str().unwrap().to_owned())
        .collect()
}

/// Codex's user trusted the project's hooks in Codex: `[hooks.state]` in
/// `~/.codex/config.toml`, with the hash of each.
fn codex_trusts(home: &Path, project: &Path, pre_tool_use: &str, session_start: &str) {
    let file = std::fs::canonicalize(project)
        .unwrap()
        .join(".codex/config.toml");
    let file = file.display();
    write(
        &home.join(".codex/config.toml"),
        &format!(
            "[hooks.state.\"{file}:pre_tool_use:0:0\"]\ntrusted_hash = \"{pre_tool_use}\"\n\n[hooks.state.\"{file}:session_start:0:0\"]\ntrusted_hash = \"{session_start}\"\n"
        ),
    );
}

#[test]
fn a_codex_config_toml_from_a_public_repository_is_read_as_codex_reads_it() {
    let project = Project::new("ledger");
    let config = fixture("codex-config-hooks-clean/.codex/config.toml");
    project.write(".codex/config.toml", &config);
    let home = temp_dir();

    // Not trusted anywhere: listed as untrusted.
    let report = json_of(&run(&project.root, home.path(), &["list", "--json"], None));
    assert!(hooks_of(&report).is_empty(), "{report}");
    assert_eq!(untrusted_paths(&report).len(), 1, "{report}");
    assert!(untrusted_paths(&report)[0].ends_with(".codex/config.toml"));

    // Codex's user trusted both hooks as they are: they run, with Codex's timeouts.
    codex_trusts(
        home.path(),
        &project.root,
        PRE_TOOL_USE_HASH,
        SESSION_START_HASH,
    );
    let report = json_of(&run(&project.root, home.path(), &["list", "--json"], None));
    assert!(untrusted_paths(&report).is_empty(), "{report}");
    let hooks = hooks_of(&report);
    let summary: Vec<(String, String, f64, String)> = hooks
        .iter()
        .map(|h| {
            (
                h["events"][0].as_str().unwrap().to_owned(),
                h["command"].as_str().unwrap().to_owned(),
                h["timeout_s"].as_f64().unwrap(),
                h["dialect"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (
                "PreToolUse".to_owned(),
                "./scripts/audit-shell.sh".to_owned(),
                15.0,
                "codex".to_owned()
            ),
            (
                "SessionStart".to_owned(),
                "./scripts/warm-fixtures.sh".to_owned(),
                20.0,
                "codex".to_owned()
            ),
        ]
    );
    assert_eq!(hooks[0]["matcher"], "shell");
    assert_eq!(hooks[0]["source"], "codex (project)");
    let human = stdout(&run(&project.root, home.path(), &["list"], None));
    assert!(human.contains("command (codex)"), "{human}");

    // A hook changed since Codex's user trusted it: the file is not trusted any more.
    project.write(
        ".codex/config.toml",
        &config.replace("audit-shell.sh\"", "audit-shell.sh --everything\""),
    );
    let report = json_of(&run(&project.root, home.path(), &["list", "--json"], None));
    assert!(hooks_of(&report).is_empty(), "{report}");
    assert_eq!(untrusted_paths(&report).len(), 1, "{report}");
    // Trusted with agent-hooks, the changed hook still does not run, and doctor says why.
    let report = json_of(&run(
        &project.root,
        home.path(),
        &["list", "--trust-project", "--json"],
        None,
    ));
    let commands: Vec<&str> = hooks_of(&report)
        .iter()
        .map(|h| h["command"].as_str().unwrap())
        .collect();
    assert_eq!(commands, ["./scripts/warm-fixtures.sh"], "{report}");
    let doctor = stdout(&run(
        &project.root,
        home.path(),
        &["doctor", "--trust-project"],
        None,
    ));
    assert!(
        doctor.contains("changed since Codex's user trusted it"),
        "{doctor}"
    );
}

#[test]
fn a_codex_hook_turned_off_in_codex_does_not_run_and_doctor_says_why() {
    let project = Project::new("p");
    let home = temp_dir();
    let codex = home.path().join(".codex/config.toml");
    write(
        &codex,
        &format!(
            "model = \"gpt-5-codex\"\n\n[[hooks.PreToolUse]]\nmatcher = \"Bash\"\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"echo one\"\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"echo two\"\n\n[hooks.state.\"{}:pre_tool_use:0:0\"]\nenabled = false\n",
            codex.display()
        ),
    );
    let report = json_of(&run(&project.root, home.path(), &["list", "--json"], None));
    let hooks = hooks_of(&report);
    assert_eq!(hooks.len(), 1, "{report}");
    assert_eq!(hooks[0]["command"], "echo two");
    // Codex's default timeout, not Claude Code's.
    assert_eq!(hooks[0]["timeout_s"], 600.0);
    assert_eq!(hooks[0]["source"], "codex (user)");
    let doctor = stdout(&run(&project.root, home.path(), &["doctor"], None));
    assert!(doctor.contains("turned off in Codex"), "{doctor}");

    // A broken config.toml says where.
    write(&codex, "[[hooks.PreToolUse]\n");
    let doctor = stdout(&run(&project.root, home.path(), &["doctor"], None));
    assert!(doctor.contains("invalid TOML"), "{doctor}");
    assert!(doctor.contains("line 1, column"), "{doctor}");
}

/// Installs Gemini CLI's own example extension (tests/fixtures) into `home`.
fn install_example_extension(home: &Path) -> std::path::PathBuf {
    let root = home.join(".gemini/extensions/hooks-example");
    for file in [
        "gemini-extension.json",
        "hooks/hooks.json",
        "scripts/on-start.js",
    ] {
        write(
            &root.join(file),
            &fixture(&format!("gemini-extension-hooks-example/{file}")),
        );
    }
    root
}

#[test]
fn a_gemini_cli_extension_s_hooks_run_as_the_extension_s() {
    let project = Project::new("p");
    let home = temp_dir();
    let root = install_example_extension(home.path());

    let report = json_of(&run(&project.root, home.path(), &["list", "--json"], None));
    let hooks = hooks_of(&report);
    assert_eq!(hooks.len(), 1, "{report}");
    assert_eq!(hooks[0]["dialect"], "gemini-cli");
    assert_eq!(hooks[0]["source"], "gemini-cli extension hooks-example");
    assert_eq!(hooks[0]["events"][0], "SessionStart");
    assert_eq!(
        hooks[0]["command"].as_str().unwrap(),
        format!("node {}/scripts/on-start.js", root.display())
    );
    let human = stdout(&run(&project.root, home.path(), &["list"], None));
    assert!(
        human.contains("command (gemini-cli extension hooks-example)"),
        "{human}"
    );
    // Its SessionStart hook runs; its plain text is a message to the user, as in Gemini CLI.
    let outcome = json_of(&run(
        &project.root,
        home.path(),
        &["emit", "SessionStart", "--json"],
        None,
    ));
    let messages = outcome["command_hooks"].to_string() + &outcome["system_messages"].to_string();
    assert!(
        messages.contains("This is running from a script in the hooks-example extension"),
        "{outcome}"
    );

    // Turned off for this project (extension-enablement.json): not read.
    let project_path = std::fs::canonicalize(&project.root).unwrap();
    write(
        &home
            .path()
            .join(".gemini/extensions/extension-enablement.json"),
        &format!(
            r#"{{"hooks-example": {{"overrides": ["!{}/*"]}}}}"#,
            project_path.display()
        ),
    );
    let report = json_of(&run(&project.root, home.path(), &["list", "--json"], None));
    assert!(hooks_of(&report).is_empty(), "{report}");

    // Gemini CLI's hooks turned off in the user's settings: not read either.
    std::fs::remove_file(
        home.path()
            .join(".gemini/extensions/extension-enablement.json"),
    )
    .unwrap();
    write(
        &home.path().join(".gemini/settings.json"),
        r#"{"hooksConfig": {"enabled": false}}"#,
    );
    let report = json_of(&run(&project.root, home.path(), &["list", "--json"], None));
    assert!(hooks_of(&report).is_empty(), "{report}");
}

#[test]
fn an_extension_without_a_manifest_is_skipped_with_a_warning() {
    let project = Project::new("p");
    let home = temp_dir();
    write(
        &home
            .path()
            .join(".gemini/extensions/stray/hooks/hooks.json"),
        r#"{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "echo x"}]}]}}"#,
    );
    let report = json_of(&run(&project.root, home.path(), &["list", "--json"], None));
    assert!(hooks_of(&report).is_empty(), "{report}");
    assert!(
        report["warnings"]
            .to_string()
            .contains("has no readable gemini-extension.json"),
        "{report}"
    );
}

/// Two `BeforeTool` hooks: the first takes 300 ms and rewrites the command, the second
/// records what it got and when each ended.
fn two_before_tool_hooks(project: &Project, sequential: bool) {
    project.script(
        "first.sh",
        "#!/bin/sh\ncat > /dev/null\nsleep 0.3\necho first >> order.log\necho '{\"hookSpecificOutput\": {\"hookEventName\": \"BeforeTool\", \"tool_input\": {\"command\": \"echo rewritten\"}}}'\n",
    );
    project.script(
        "second.sh",
        "#!/bin/sh\ncat > second.json\necho second >> order.log\n",
    );
    project.write(
        ".gemini/settings.json",
        &format!(
            r#"{{
  // Gemini CLI reads its settings with comments.
  "hooks": {{
    "BeforeTool": [
      {{"matcher": "run_shell_command", "sequential": {sequential}, "hooks": [
        {{"name": "first", "type": "command", "command": "./first.sh"}},
        {{"name": "second", "type": "command", "command": "./second.sh"}} /* the last */
      ]}}
    ]
  }}
}}"#
        ),
    );
}

fn emit_shell_call(project: &Project, home: &Path) -> Value {
    json_of(&run(
        &project.root,
        home,
        &[
            "emit",
            "PreToolUse",
            "--input",
            r#"{"tool_name": "exec", "tool_input": {"command": "ls"}}"#,
            "--trust-project",
            "--json",
        ],
        None,
    ))
}

#[test]
fn a_sequential_group_runs_in_order_and_passes_the_rewrite_on() {
    let project = Project::new("p");
    let home = temp_dir();
    two_before_tool_hooks(&project, true);
    emit_shell_call(&project, home.path());
    assert_eq!(project.read("order.log"), "first\nsecond\n");
    let second: Value = serde_json::from_str(&project.read("second.json")).unwrap();
    assert_eq!(second["tool_input"]["command"], "echo rewritten");

    // Not sequential: they start together, and the second sees the call as it was.
    let project = Project::new("q");
    two_before_tool_hooks(&project, false);
    emit_shell_call(&project, home.path());
    assert_eq!(project.read("order.log"), "second\nfirst\n");
    let second: Value = serde_json::from_str(&project.read("second.json")).unwrap();
    assert_eq!(second["tool_input"]["command"], "ls");
}

#[test]
fn gemini_cli_s_trust_of_project_hooks_is_honoured_and_a_changed_hook_is_not_trusted() {
    let project = Project::new("p");
    let home = temp_dir();
    two_before_tool_hooks(&project, true);
    let report = json_of(&run(&project.root, home.path(), &["list", "--json"], None));
    assert!(hooks_of(&report).is_empty(), "{report}");
    assert_eq!(untrusted_paths(&report).len(), 1, "{report}");

    // Gemini CLI recorded both hooks for this project (its `trusted_hooks.json`).
    let root = std::fs::canonicalize(&project.root).unwrap();
    let trusted = home.path().join(".gemini/trusted_hooks.json");
    write(
        &trusted,
        &serde_json::json!({ root.display().to_string(): ["first:./first.sh", "second:./second.sh"] })
            .to_string(),
    );
    let report = json_of(&run(&project.root, home.path(), &["list", "--json"], None));
    assert_eq!(hooks_of(&report).len(), 2, "{report}");
    assert!(untrusted_paths(&report).is_empty(), "{report}");

    // One command changed: its key is new to Gemini CLI, so the file is untrusted again.
    let settings = project.read(".gemini/settings.json");
    project.write(
        ".gemini/settings.json",
        &settings.replace("./second.sh", "./second.sh --all"),
    );
    let report = json_of(&run(&project.root, home.path(), &["list", "--json"], None));
    assert!(hooks_of(&report).is_empty(), "{report}");
    assert_eq!(untrusted_paths(&report).len(), 1, "{report}");
}

#[test]
fn a_sequential_before_agent_hook_gets_the_context_the_one_before_added() {
    let project = Project::new("p");
    let home = temp_dir();
    project.script(
        "first.sh",
        "#!/bin/sh\ncat > /dev/null\necho '{\"hookSpecificOutput\": {\"hookEventName\": \"BeforeAgent\", \"additionalContext\": \"the branch is main\"}}'\n",
    );
    project.script("second.sh", "#!/bin/sh\ncat > second.json\n");
    project.write(
        ".gemini/settings.json",
        r#"{"hooks": {"BeforeAgent": [{"sequential": true, "hooks": [
            {"type": "command", "command": "./first.sh"},
            {"type": "command", "command": "./second.sh"}
        ]}]}}"#,
    );
    run(
        &project.root,
        home.path(),
        &[
            "emit",
            "UserPromptSubmit",
            "--input",
            r#"{"prompt": "fix the bug"}"#,
            "--trust-project",
            "--json",
        ],
        None,
    );
    let second: Value = serde_json::from_str(&project.read("second.json")).unwrap();
    assert_eq!(second["prompt"], "fix the bug\n\nthe branch is main");
}

#[test]
fn under_gemini_cli_its_extensions_hooks_are_its_own_and_under_another_agent_run_when_named() {
    let project = Project::new("p");
    let home = temp_dir();
    let root = home.path().join(".gemini/extensions/guard");
    write(
        &root.join("gemini-extension.json"),
        r#"{"name": "guard", "version": "0.1.0"}"#,
    );
    write(
        &root.join("hooks/hooks.json"),
        r#"{"hooks": {"BeforeTool": [{"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "echo extension-ran >&2; exit 2"}]}]}}"#,
    );
    let claude = serde_json::json!({
        "session_id": "s-1", "cwd": project.root, "hook_event_name": "PreToolUse",
        "tool_name": "Bash", "tool_input": {"command": "ls"},
    })
    .to_string();
    let gemini = serde_json::json!({
        "session_id": "g-1", "cwd": project.root, "hook_event_name": "BeforeTool",
        "tool_name": "run_shell_command", "tool_input": {"command": "ls"},
    })
    .to_string();
    let hook = |args: &[&str], payload: &str| {
        run(&project.root, home.path(), args, Some(payload))
            .status
            .code()
    };
    // Gemini CLI runs its extensions' hooks itself: never again through agent-hooks.
    assert_eq!(hook(&["hook", "--agent", "gemini"], &gemini), Some(0));
    assert_eq!(
        hook(&["hook", "--agent", "gemini", "--with", "gemini"], &gemini),
        Some(0)
    );
    // Under Claude Code, only when named.
    assert_eq!(hook(&["hook", "--agent", "claude"], &claude), Some(0));
    assert_eq!(
        hook(&["hook", "--agent", "claude", "--with", "gemini"], &claude),
        Some(2)
    );
}
