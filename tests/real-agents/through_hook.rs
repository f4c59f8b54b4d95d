//! Real Claude Code sessions wired to agent-hooks with `agent-hooks install --agent claude
//! --project`: the model's tool call goes through `agent-hooks hook --agent claude`, and
//! what happened is read from the agent's own result (did the tool's side effect appear,
//! what the model was told next), never from agent-hooks' word.
//!
//! Ignored in a plain `cargo test` (it needs the agents installed): `tests/real-agents/run`
//! runs it with the rest of the real-agents suite.

#[allow(dead_code)]
#[path = "agents.rs"]
mod agents;
#[path = "dialect_files.rs"]
mod dialect_files;
#[allow(dead_code)]
#[path = "model.rs"]
mod model;

use std::{process::Command, time::Duration};

use agents::{Agent, Run};
use serde_json::json;

/// What one session left.
struct Session {
    run: Run,
    outcome: agents::Outcome,
    /// Every request body the model got, as text.
    told: Vec<String>,
    /// The settings file before install.
    before: String,
}

impl Session {
    fn side_effect(&self) -> Option<String> {
        std::fs::read_to_string(self.run.project().join("side-effect.txt")).ok()
    }

    fn describe(&self) -> String {
        format!(
            "{}\n--- model requests: {}",
            self.outcome.describe(),
            self.told.len()
        )
    }
}

fn agent_hooks(run: &Run, args: &[&str]) -> std::process::Output {
    let output = Command::new(agent_hooks_tests::agent_hooks_bin())
        .args(args)
        .current_dir(run.project())
        .env("HOME", run.home())
        .env_remove("XDG_CONFIG_HOME")
        .output()
        .expect("agent-hooks runs");
    assert!(
        output.status.success(),
        "agent-hooks {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// A Claude Code session whose one tool call runs `command`, with agent-hooks installed in
/// the project and `setup` adding hooks.
fn claude_session(command: &str, setup: impl FnOnce(&Run)) -> Session {
    session(Agent::Claude, command, setup)
}

/// [`claude_session`] for any of the agents: installed where the agent's hooks file is
/// (the project's for Claude Code and Gemini CLI, the user's for Codex CLI, Copilot CLI's
/// own `.github/hooks/` in the project).
fn session(agent: Agent, command: &str, setup: impl FnOnce(&Run)) -> Session {
    relay_bin();
    let install = agents::install_dir();
    let model = model::FakeModel::start(command);
    let run = Run::new();
    let settings = agents::configure(agent, &run, model.port(), &json!({}));
    let before = std::fs::read_to_string(&settings).expect("settings written");
    let (name, level) = match agent {
        Agent::Claude => ("claude", "--project"),
        Agent::Codex => ("codex", "--user"),
        Agent::Gemini => ("gemini", "--project"),
        Agent::Copilot => ("copilot", "--project"),
    };
    if agent == Agent::Copilot {
        // Copilot CLI runs the project's .claude/settings.json itself: leave it empty.
        std::fs::remove_file(&settings).expect("remove");
    }
    agent_hooks(&run, &["install", "--agent", name, level]);
    let file = match agent {
        Agent::Copilot => run.path("project/.github/hooks/agent-hooks.json"),
        _ => settings.clone(),
    };
    let entry = std::fs::read_to_string(&file).expect("installed");
    assert!(entry.contains("agent-hooks-hook' --agent"), "{entry}");
    setup(&run);
    let outcome = agents::launch(agent, &install, &run, model.port());
    let told = model
        .requests()
        .iter()
        .map(|r| r.body.to_string())
        .collect();
    Session {
        run,
        outcome,
        told,
        before,
    }
}

/// Builds the small relay program `agent-hooks-hook` next to `agent-hooks`, so that
/// `install` writes it into the agent's entry (as after `cargo install`).
fn relay_bin() {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .args([
            "build",
            "-p",
            "agent-hooks-cli",
            "--bin",
            "agent-hooks-hook",
        ])
        .arg("--manifest-path")
        .arg(agent_hooks_tests::workspace_root().join("Cargo.toml"))
        .arg("--target-dir")
        .arg(agent_hooks_tests::target_dir());
    if !cfg!(debug_assertions) {
        command.arg("--release");
    }
    assert!(command.status().expect("cargo runs").success());
    let relay = agent_hooks_tests::agent_hooks_bin().with_file_name("agent-hooks-hook");
    assert!(relay.is_file(), "{}", relay.display());
}

fn user_hooks(run: &Run) -> std::path::PathBuf {
    let dir = run.home().join(".config/agent-hooks/hooks");
    std::fs::create_dir_all(&dir).expect("hooks folder");
    dir
}

#[test]
#[ignore = "runs the real Claude Code: tests/real-agents/run"]
fn a_native_plugin_blocks_the_command_and_the_model_is_told_why() {
    let s = claude_session("rm -rf gone; echo ran >> side-effect.txt", |run| {
        agent_hooks_tests::copy_to(
            &agent_hooks_tests::plugin("block-dangerous"),
            &user_hooks(run),
            "libblock_dangerous.so",
        );
    });
    assert_eq!(s.side_effect(), None, "the tool ran: {}", s.describe());
    assert!(
        s.told
            .last()
            .is_some_and(|t| t.contains("Dangerous command blocked")),
        "the model was not told: {}",
        s.describe()
    );
}

/// A long-running Python guard (persistent) that rewrites `original` into `rewritten`.
const REWRITER: &str = r#"import json, sys
def send(m):
    sys.stdout.write(json.dumps(m) + "\n"); sys.stdout.flush()
send({"type": "hello", "protocol": 1, "name": "rewriter"})
for line in sys.stdin:
    m = json.loads(line)
    if m.get("type") == "event":
        command = (m.get("payload", {}).get("tool_input") or {}).get("command", "")
        if "original" in command:
            out = {"hookSpecificOutput": {"hookEventName": "PreToolUse",
                   "updatedInput": {"command": command.replace("original", "rewritten")}}}
            send({"type": "answer", "id": m["id"], "output": out})
        else:
            send({"type": "answer", "id": m["id"]})
    elif m.get("type") == "goodbye":
        break
"#;

#[test]
#[ignore = "runs the real Claude Code: tests/real-agents/run"]
fn a_long_running_python_guard_rewrites_the_command() {
    rewrites_under(Agent::Claude);
}

#[test]
#[ignore = "runs the real Codex CLI: tests/real-agents/run"]
fn a_long_running_python_guard_rewrites_the_command_under_codex_cli() {
    rewrites_under(Agent::Codex);
}

#[test]
#[ignore = "runs the real Gemini CLI: tests/real-agents/run"]
fn a_long_running_python_guard_rewrites_the_command_under_gemini_cli() {
    rewrites_under(Agent::Gemini);
}

fn rewrites_under(agent: Agent) {
    let s = session(agent, "echo original >> side-effect.txt", |run| {
        let dir = user_hooks(run);
        std::fs::write(dir.join("rewriter.py"), REWRITER).expect("write the guard");
        let hooks = json!({"PreToolUse": [{"matcher": "exec", "hooks": [{"type": "command",
            "command": format!("python3 {}", dir.join("rewriter.py").display()),
            "persistent": true, "timeout": 10}]}]});
        std::fs::write(dir.join("rewriter.json"), hooks.to_string()).expect("write");
    });
    assert_eq!(
        s.side_effect().as_deref(),
        Some("rewritten\n"),
        "{}",
        s.describe()
    );
}

#[test]
#[ignore = "runs the real Claude Code: tests/real-agents/run"]
fn an_untrusted_project_hook_does_not_run_and_the_tool_does() {
    let s = claude_session("echo ran >> side-effect.txt", |run| {
        run.write(
            "project/.agent-hooks/hooks/evil.json",
            r#"{"PreToolUse": [{"hooks": [{"type": "command", "command": "touch evil-ran; exit 2"}]}]}"#,
        );
    });
    assert!(
        !s.run.project().join("evil-ran").exists(),
        "{}",
        s.describe()
    );
    assert_eq!(
        s.side_effect().as_deref(),
        Some("ran\n"),
        "{}",
        s.describe()
    );
}

#[test]
#[ignore = "runs the real Claude Code: tests/real-agents/run"]
fn a_hook_that_hangs_is_cut_at_its_timeout() {
    let s = claude_session("echo ran >> side-effect.txt", |run| {
        let hooks = r#"{"PreToolUse": [{"hooks": [{"type": "command", "command": "sleep 60", "timeout": 2}]}]}"#;
        std::fs::write(user_hooks(run).join("slow.json"), hooks).expect("write");
    });
    assert_eq!(
        s.side_effect().as_deref(),
        Some("ran\n"),
        "{}",
        s.describe()
    );
    assert!(s.outcome.took < Duration::from_secs(45), "{}", s.describe());
}

#[test]
#[ignore = "runs the real Claude Code: tests/real-agents/run"]
fn install_then_uninstall_leaves_the_agents_file_as_it_was() {
    let s = claude_session("echo ran >> side-effect.txt", |_| {});
    assert_eq!(
        s.side_effect().as_deref(),
        Some("ran\n"),
        "{}",
        s.describe()
    );
    agent_hooks(&s.run, &["uninstall", "--agent", "claude", "--project"]);
    let after = std::fs::read_to_string(s.run.path("project/.claude/settings.json"))
        .expect("settings still there");
    assert_eq!(after, s.before);
}

/// The native plugin's block under each of the other agents.
fn blocks_under(agent: Agent) {
    let s = session(agent, "rm -rf gone; echo ran >> side-effect.txt", |run| {
        agent_hooks_tests::copy_to(
            &agent_hooks_tests::plugin("block-dangerous"),
            &user_hooks(run),
            "libblock_dangerous.so",
        );
    });
    assert_eq!(s.side_effect(), None, "the tool ran: {}", s.describe());
    assert!(
        s.told
            .iter()
            .any(|t| t.contains("Dangerous command blocked")),
        "the model was not told: {}",
        s.describe()
    );
}

#[test]
#[ignore = "runs the real Codex CLI: tests/real-agents/run"]
fn a_native_plugin_blocks_under_codex_cli() {
    blocks_under(Agent::Codex);
}

#[test]
#[ignore = "runs the real Gemini CLI: tests/real-agents/run"]
fn a_native_plugin_blocks_under_gemini_cli() {
    blocks_under(Agent::Gemini);
}

#[test]
#[ignore = "runs the real Copilot CLI: tests/real-agents/run"]
fn a_native_plugin_blocks_under_copilot_cli() {
    blocks_under(Agent::Copilot);
}

#[test]
#[ignore = "runs the real Claude Code: tests/real-agents/run"]
fn a_gemini_cli_hooks_file_runs_under_claude_code_when_named() {
    let s = claude_session("echo ran >> side-effect.txt", |run| {
        // Installed again, with --with gemini.
        agent_hooks(run, &["uninstall", "--agent", "claude", "--project"]);
        agent_hooks(
            run,
            &[
                "install",
                "--agent",
                "claude",
                "--project",
                "--with",
                "gemini",
            ],
        );
        run.write(
            "home/.gemini/settings.json",
            r#"{"hooks": {"BeforeTool": [{"matcher": "run_shell_command", "hooks": [{"type": "command",
                "command": "echo 'M-gemini-dialect-block' >&2; exit 2", "timeout": 5000}]}]}}"#,
        );
    });
    assert_eq!(s.side_effect(), None, "the tool ran: {}", s.describe());
    assert!(
        s.told.iter().any(|t| t.contains("M-gemini-dialect-block")),
        "the model was not told: {}",
        s.describe()
    );
}

#[test]
#[ignore = "runs the real Claude Code: tests/real-agents/run"]
fn a_copilot_cli_hooks_file_runs_under_claude_code_when_named() {
    let s = claude_session("echo ran >> side-effect.txt", |run| {
        // Installed again, with --with copilot.
        agent_hooks(run, &["uninstall", "--agent", "claude", "--project"]);
        agent_hooks(
            run,
            &[
                "install",
                "--agent",
                "claude",
                "--project",
                "--with",
                "copilot",
            ],
        );
        // Copilot CLI's own format: its tool name (`bash`, an anchored matcher) and its
        // top-level answer.
        run.write(
            "home/.copilot/hooks/guard.json",
            r#"{"version": 1, "hooks": {"preToolUse": [{"matcher": "bash", "timeoutSec": 10,
                "bash": "echo '{\"permissionDecision\": \"deny\", \"permissionDecisionReason\": \"M-copilot-dialect-deny\"}'"}]}}"#,
        );
    });
    assert_eq!(s.side_effect(), None, "the tool ran: {}", s.describe());
    assert!(
        s.told.iter().any(|t| t.contains("M-copilot-dialect-deny")),
        "the model was not told: {}",
        s.describe()
    );
}
