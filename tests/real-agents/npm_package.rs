//! The npm package under a real Claude Code session, as a user gets it: the packages packed
//! by `clients/npm/build` (from the debug build), installed with `npm install -g` into a
//! fresh prefix from their tarballs, the prefix's `agent-hooks install --agent claude
//! --project`, then a session in which a native plugin blocks the model's first command and
//! a long-running Python guard rewrites its second.

use std::{path::Path, process::Command};

use serde_json::json;

use super::{
    agents::{self, Agent, Run},
    model, user_hooks, REWRITER,
};

/// Runs `command` and asserts that it succeeded.
fn ran(command: &mut Command, what: &str) -> String {
    let output = command.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        output.status.success(),
        "{what}: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The tarball in `folder` whose name starts with `name` and a version.
fn tarball(folder: &Path, name: &str) -> std::path::PathBuf {
    std::fs::read_dir(folder)
        .expect("the tarballs' folder")
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_prefix(name))
                .and_then(|rest| rest.strip_prefix('-'))
                .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
        })
        .unwrap_or_else(|| panic!("no tarball of {name} in {}", folder.display()))
}

#[test]
#[ignore = "runs the real Claude Code: tests/real-agents/run"]
fn the_npm_package_installed_globally_wires_a_real_claude_code_session() {
    let root = agent_hooks_tests::workspace_root();
    let install = agents::install_dir();
    let run = Run::new();
    let out = run.path("npm");
    // It runs cargo: as a plain invocation, so that it rebuilds nothing the suite built.
    ran(
        agent_hooks_tests::as_plain_invocation(&mut Command::new(root.join("clients/npm/build")))
            .arg(&out)
            .env("AGENT_HOOKS_NPM_PROFILE", "dev")
            .current_dir(&root),
        "clients/npm/build",
    );
    let prefix = run.path("prefix");
    let tarballs = out.join("tarballs");
    for package in ["agent-hooks-linux-x64", "agent-hooks"] {
        ran(
            Command::new("npm")
                .args(["install", "-g", "--offline", "--no-audit", "--no-fund"])
                .arg("--prefix")
                .arg(&prefix)
                .arg(tarball(&tarballs, package))
                .env("HOME", run.home())
                .env("npm_config_cache", run.path("tmp/npm-cache"))
                .env("npm_config_update_notifier", "false"),
            &format!("npm install -g {package}"),
        );
    }
    let program = prefix.join("bin/agent-hooks");
    let said = ran(
        Command::new(&program)
            .args(["install", "--agent", "claude", "--project"])
            .current_dir(run.project())
            .env("HOME", run.home())
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("XDG_DATA_HOME")
            .env_remove("XDG_STATE_HOME"),
        "agent-hooks install from the npm prefix",
    );
    assert!(said.contains("Claude Code now runs"), "{said}");
    let settings = std::fs::read_to_string(run.project().join(".claude/settings.json"))
        .expect("the project's settings");
    let stable = run
        .home()
        .join(".local/share/agent-hooks/bin/agent-hooks-hook");
    assert!(
        settings.contains(&stable.display().to_string()),
        "the entry runs the stable link to the package's relay: {settings}"
    );
    // The hooks: the sample plugin, and a long-running Python guard.
    let dir = user_hooks(&run);
    agent_hooks_tests::copy_to(
        &agent_hooks_tests::plugin("block-dangerous"),
        &dir,
        "libblock_dangerous.so",
    );
    std::fs::write(dir.join("rewriter.py"), REWRITER).expect("write the guard");
    let hooks = json!({"PreToolUse": [{"matcher": "exec", "hooks": [{"type": "command",
        "command": format!("python3 {}", dir.join("rewriter.py").display()),
        "persistent": true, "timeout": 10}]}]});
    std::fs::write(dir.join("rewriter.json"), hooks.to_string()).expect("write");
    // Installing again wires the hooks' event (install wires the events hooks use).
    ran(
        Command::new(&program)
            .args(["install", "--agent", "claude", "--project"])
            .current_dir(run.project())
            .env("HOME", run.home())
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("XDG_DATA_HOME")
            .env_remove("XDG_STATE_HOME"),
        "agent-hooks install again",
    );
    let model = model::FakeModel::start_script(&[
        "rm -rf gone; echo ran >> side-effect.txt",
        "echo original >> side-effect.txt",
    ]);
    let outcome = agents::launch(Agent::Claude, &install, &run, model.port());
    let side_effect = std::fs::read_to_string(run.project().join("side-effect.txt")).ok();
    assert_eq!(
        side_effect.as_deref(),
        Some("rewritten\n"),
        "the plugin's block and the guard's rewrite: {}",
        outcome.describe()
    );
    let told: Vec<String> = model
        .requests()
        .iter()
        .map(|r| r.body.to_string())
        .collect();
    assert!(
        told.iter().any(|t| t.contains("Dangerous command blocked")),
        "the model was not told of the block: {}",
        outcome.describe()
    );
    // The resident process that answered is the package's program.
    let resident = std::fs::read_dir(run.home().join(".cache/agent-hooks/run"))
        .expect("the resident process's folder")
        .flatten()
        .next()
        .expect("a folder")
        .path();
    let log = std::fs::read_to_string(resident.join("serve.log")).unwrap_or_default();
    assert!(
        log.contains(&format!("{}", prefix.join("lib/node_modules").display())),
        "the resident process is not the package's program: {log}"
    );
}
