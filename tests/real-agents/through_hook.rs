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
#[path = "lean_wiring.rs"]
mod lean_wiring;
#[allow(dead_code)]
#[path = "model.rs"]
mod model;
#[path = "npm_package.rs"]
mod npm_package;
#[path = "status_line.rs"]
mod status_line;

use std::{
    path::PathBuf,
    sync::atomic::{AtomicBool, Ordering},
    time::{Duration, Instant},
};

use agents::{agent_hooks, user_hooks, Agent, Run};
use serde_json::json;

/// What one session left.
struct Session {
    run: Run,
    outcome: agents::Outcome,
    /// Every request body the model got, as text.
    told: Vec<String>,
    /// The file `install` wrote into, and what it held before (`None`: it did not exist).
    file: PathBuf,
    before: Option<String>,
    /// The `install` level: `--user` or `--project`.
    level: &'static str,
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

    /// Whether the model was told `marker` in any request.
    fn told(&self, marker: &str) -> bool {
        self.told.iter().any(|t| t.contains(marker))
    }
}

/// A Claude Code session whose one tool call runs `command`, with agent-hooks installed in
/// the project and `setup` adding hooks.
fn claude_session(command: &str, setup: impl FnOnce(&Run)) -> Session {
    session(Agent::Claude, command, setup)
}

/// How a session is wired to agent-hooks, and what the model asks for.
#[derive(Clone, Copy)]
struct Wiring<'a> {
    /// `install --user`; otherwise the agent's usual level (the project's file, the
    /// user's for Codex CLI).
    user: bool,
    /// `install --with`: other agents' hooks files to run.
    with: Option<&'a str>,
    /// The model's tool calls, in order.
    script: &'a [&'a str],
}

impl<'a> Wiring<'a> {
    fn new(agent: Agent, script: &'a [&'a str]) -> Wiring<'a> {
        Wiring {
            user: agent == Agent::Codex,
            with: None,
            script,
        }
    }
}

/// The file `install --agent` writes into, at the user's or the project's level.
fn installed_file(agent: Agent, run: &Run, user: bool) -> PathBuf {
    let base = if user { run.home() } else { run.project() };
    base.join(match (agent, user) {
        (Agent::Claude, _) => ".claude/settings.json",
        (Agent::Codex, _) => ".codex/hooks.json",
        (Agent::Gemini, _) => ".gemini/settings.json",
        (Agent::Droid, _) => ".factory/settings.json",
        (Agent::Copilot, true) => ".copilot/hooks/agent-hooks.json",
        (Agent::Copilot, false) => ".github/hooks/agent-hooks.json",
        (Agent::Qwen, _) => ".qwen/settings.json",
    })
}

/// [`claude_session`] for any of the agents: installed where the agent's hooks file is
/// (the project's for Claude Code and Gemini CLI, the user's for Codex CLI, Copilot CLI's
/// own `.github/hooks/` in the project).
fn session(agent: Agent, command: &str, setup: impl FnOnce(&Run)) -> Session {
    session_wired(agent, Wiring::new(agent, &[command]), setup, |_, _| {})
}

/// One session of `agent` wired as `wiring` says, `setup` adding hooks before it starts
/// and `during` running in a thread of its own while the agent runs.
fn session_wired(
    agent: Agent,
    wiring: Wiring,
    setup: impl FnOnce(&Run),
    during: impl FnOnce(&Run, &AtomicBool) + Send,
) -> Session {
    agent_hooks_tests::relay_bin();
    let install = agents::install_dir();
    let model = model::FakeModel::start_script(wiring.script);
    let run = Run::new();
    let settings = agents::configure(agent, &run, model.port(), &json!({}));
    if agent == Agent::Copilot {
        // Copilot CLI runs the project's .claude/settings.json itself: leave it empty.
        std::fs::remove_file(&settings).expect("remove");
    }
    let level = if wiring.user { "--user" } else { "--project" };
    let file = installed_file(agent, &run, wiring.user);
    let before = std::fs::read_to_string(&file).ok();
    let mut args = vec!["install", "--agent", agent.short_name(), level];
    if let Some(with) = wiring.with {
        args.extend(["--with", with]);
    }
    agent_hooks(&run, &args);
    let entry = std::fs::read_to_string(&file).expect("installed");
    assert!(entry.contains("agent-hooks-hook' --agent"), "{entry}");
    setup(&run);
    // `install` wires the events some hook uses: run again, it wires those of the hooks
    // `setup` added (the agent reads its entries when a session starts), unless `setup`
    // wired it otherwise itself.
    if std::fs::read_to_string(&file).ok().as_ref() == Some(&entry) {
        agent_hooks(&run, &args);
    }
    let done = AtomicBool::new(false);
    let outcome = std::thread::scope(|scope| {
        scope.spawn(|| during(&run, &done));
        let outcome = agents::launch(agent, &install, &run, model.port());
        done.store(true, Ordering::SeqCst);
        outcome
    });
    let told = model
        .requests()
        .iter()
        .map(|r| r.body.to_string())
        .collect();
    Session {
        run,
        outcome,
        told,
        file,
        before,
        level,
    }
}

/// Whether this case runs only in a full run (`REAL_AGENTS_FULL=1`) and this is not one: it
/// says so, and the test ends there.
fn only_in_full_run(case: &str) -> bool {
    if std::env::var_os("REAL_AGENTS_FULL").is_some() {
        return false;
    }
    eprintln!("{case}: runs with REAL_AGENTS_FULL=1 only");
    true
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
    // The session left a record of the block, whose chain holds.
    let verify = agent_hooks(&s.run, &["log", "--verify"]);
    let said = String::from_utf8_lossy(&verify.stdout);
    assert!(said.starts_with("The chain holds: "), "{said}");
    let log = agent_hooks(&s.run, &["log", "--json", "--decision", "block"]);
    let blocks: Vec<serde_json::Value> = String::from_utf8_lossy(&log.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    assert_eq!(blocks.len(), 1, "{blocks:?}");
    let block = &blocks[0];
    assert_eq!(block["agent"], "claude");
    assert_eq!(block["event"], "PreToolUse");
    assert_eq!(block["tool"], "Bash");
    assert_eq!(block["answered_by"], "resident");
    assert_eq!(block["hooks"][0]["kind"], "plugin");
    assert!(
        block["reason"]
            .as_str()
            .is_some_and(|r| r.starts_with("Dangerous command blocked")),
        "{block}"
    );
    let stats = agent_hooks(&s.run, &["stats", "--json"]);
    let stats: serde_json::Value = serde_json::from_slice(&stats.stdout).expect("stats as JSON");
    assert!(
        stats.as_array().into_iter().flatten().any(|h| h["hook"]
            .as_str()
            .is_some_and(|id| id.ends_with("libblock_dangerous.so"))
            && h["blocks"] == 1),
        "{stats}"
    );
}

/// A plugin's warning is not the model's business: with the hooks run in the `hook` process
/// itself (`--no-serve` on the entry), a plugin that logs a warning and a guard that blocks
/// (exit 2, whose stderr Claude Code gives its model) leave the model told the guard's
/// reason and not the warning, which is in the resident process's log.
#[test]
#[ignore = "runs the real Claude Code: tests/real-agents/run"]
fn a_plugins_warning_goes_to_the_log_and_the_model_is_told_the_reason_alone() {
    let s = claude_session("log", |run| {
        agent_hooks_tests::copy_to(
            &agent_hooks_tests::plugin("boundary"),
            &user_hooks(run),
            "libboundary.so",
        );
        let guard = json!({"PreToolUse": [{"matcher": "exec", "hooks": [{"type": "command",
            "command": "echo 'the guard refuses log' >&2; exit 2"}]}]});
        std::fs::write(user_hooks(run).join("guard.json"), guard.to_string())
            .expect("write the guard");
        // Installed again for the hooks' events, then each entry made to run the hooks in
        // its own process.
        agent_hooks(run, &["install", "--agent", "claude", "--project"]);
        let settings = run.project().join(".claude/settings.json");
        let entry = std::fs::read_to_string(&settings).expect("installed");
        let no_serve = entry.replace(" --agent claude", " --agent claude --no-serve");
        assert_ne!(entry, no_serve, "{entry}");
        std::fs::write(&settings, no_serve).expect("write the settings");
    });
    assert!(
        s.told
            .last()
            .is_some_and(|t| t.contains("the guard refuses log")),
        "the model was not told the reason: {}",
        s.describe()
    );
    assert!(
        !s.told("from Host::log") && !s.told("WARN"),
        "the model was told the plugin's warning: {}",
        s.describe()
    );
    let run_folder = s.run.home().join(".cache/agent-hooks/run");
    let log = std::fs::read_dir(&run_folder)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| std::fs::read_to_string(entry.path().join("serve.log")).ok())
        .collect::<String>();
    assert!(
        log.contains("WARN agent_hooks::plugin: from Host::log"),
        "not in the log: {log:?}"
    );
}

/// What discovery warns of is the user's: with a file in the hooks folder that is not read
/// there, Claude Code shows the user the warning (at the session's start), its model is not
/// told it, and a guard's block still reaches the model with its reason alone.
#[test]
#[ignore = "runs the real Claude Code: tests/real-agents/run"]
fn a_stray_file_in_a_hooks_folder_is_told_the_user_and_never_the_model() {
    const STRAY: &str = "is neither a plugin library";
    let s = claude_session("echo ran >> side-effect.txt", |run| {
        std::fs::write(user_hooks(run).join("notes.txt"), "not a hook").expect("write");
        let guard = json!({"PreToolUse": [{"matcher": "exec", "hooks": [{"type": "command",
            "command": "echo 'the guard refuses it' >&2; exit 2"}]}]});
        std::fs::write(user_hooks(run).join("guard.json"), guard.to_string())
            .expect("write the guard");
    });
    assert_eq!(s.side_effect(), None, "the guard blocked: {}", s.describe());
    assert!(
        s.told("the guard refuses it") && !s.told(STRAY),
        "the model is told the reason alone: {}",
        s.describe()
    );
    assert!(
        s.outcome.stdout.contains(STRAY) && s.outcome.stdout.contains("notes.txt"),
        "the user was shown the warning: {}",
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

#[test]
#[ignore = "runs the real Copilot CLI: tests/real-agents/run"]
fn a_long_running_python_guard_rewrites_the_command_under_copilot_cli() {
    // Copilot CLI 1.0.102 runs a preToolUse hook's `modifiedArgs` (not `updatedInput`).
    rewrites_under(Agent::Copilot);
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
    untrusted_under(Agent::Claude);
}

#[test]
#[ignore = "runs the real Codex CLI: tests/real-agents/run"]
fn an_untrusted_project_hook_does_not_run_under_codex_cli() {
    untrusted_under(Agent::Codex);
}

#[test]
#[ignore = "runs the real Gemini CLI: tests/real-agents/run"]
fn an_untrusted_project_hook_does_not_run_under_gemini_cli() {
    if only_in_full_run("an untrusted project hook under Gemini CLI") {
        return;
    }
    untrusted_under(Agent::Gemini);
}

#[test]
#[ignore = "runs the real Copilot CLI: tests/real-agents/run"]
fn an_untrusted_project_hook_does_not_run_under_copilot_cli() {
    if only_in_full_run("an untrusted project hook under Copilot CLI") {
        return;
    }
    untrusted_under(Agent::Copilot);
}

/// A project's own agent-hooks file, never trusted, next to a trusted user hook that
/// proves the session went through agent-hooks: the user's runs, the project's does not,
/// and the tool runs.
fn untrusted_under(agent: Agent) {
    let s = session(agent, "echo ran >> side-effect.txt", |run| {
        run.write(
            "project/.agent-hooks/hooks/evil.json",
            r#"{"PreToolUse": [{"hooks": [{"type": "command", "command": "touch evil-ran; exit 2"}]}]}"#,
        );
        witness(run);
    });
    assert!(
        !s.run.project().join("evil-ran").exists(),
        "{}",
        s.describe()
    );
    assert!(
        witnessed(&s.run),
        "agent-hooks did not run: {}",
        s.describe()
    );
    assert_eq!(
        s.side_effect().as_deref(),
        Some("ran\n"),
        "{}",
        s.describe()
    );
}

/// A trusted user hook of agent-hooks that leaves a mark before each tool call: proof that
/// the agent's entry reached agent-hooks.
fn witness(run: &Run) {
    let mark = run.project().join("witnessed");
    let hooks = json!({"PreToolUse": [{"hooks": [{"type": "command",
        "command": format!("echo x >> '{}'", mark.display()), "timeout": 10}]}]});
    std::fs::write(user_hooks(run).join("witness.json"), hooks.to_string()).expect("write");
}

fn witnessed(run: &Run) -> bool {
    run.project().join("witnessed").exists()
}

#[test]
#[ignore = "runs the real Claude Code: tests/real-agents/run"]
fn a_hook_that_hangs_is_cut_at_its_timeout() {
    hang_cut_under(Agent::Claude);
}

#[test]
#[ignore = "runs the real Codex CLI: tests/real-agents/run"]
fn a_hook_that_hangs_is_cut_at_its_timeout_under_codex_cli() {
    hang_cut_under(Agent::Codex);
}

#[test]
#[ignore = "runs the real Gemini CLI: tests/real-agents/run"]
fn a_hook_that_hangs_is_cut_at_its_timeout_under_gemini_cli() {
    if only_in_full_run("a hanging hook under Gemini CLI") {
        return;
    }
    hang_cut_under(Agent::Gemini);
}

#[test]
#[ignore = "runs the real Copilot CLI: tests/real-agents/run"]
fn a_hook_that_hangs_is_cut_at_its_timeout_under_copilot_cli() {
    if only_in_full_run("a hanging hook under Copilot CLI") {
        return;
    }
    hang_cut_under(Agent::Copilot);
}

/// A hook of agent-hooks that sleeps 60 s with a 2 s timeout: cut, the tool runs, and the
/// session ends well before the sleep would have.
fn hang_cut_under(agent: Agent) {
    let s = session(agent, "echo ran >> side-effect.txt", |run| {
        let hooks = r#"{"PreToolUse": [{"hooks": [{"type": "command", "command": "touch slow-started; sleep 60", "timeout": 2}]}]}"#;
        std::fs::write(user_hooks(run).join("slow.json"), hooks).expect("write");
    });
    assert!(
        s.run.project().join("slow-started").exists(),
        "the hanging hook never started: {}",
        s.describe()
    );
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
    install_uninstall_under(Agent::Claude, false);
}

#[test]
#[ignore = "runs the real Codex CLI: tests/real-agents/run"]
fn install_user_then_uninstall_leaves_codex_clis_file_as_it_was() {
    install_uninstall_under(Agent::Codex, true);
}

#[test]
#[ignore = "runs the real Gemini CLI: tests/real-agents/run"]
fn install_user_then_uninstall_leaves_gemini_clis_file_as_it_was() {
    install_uninstall_under(Agent::Gemini, true);
}

#[test]
#[ignore = "runs the real Copilot CLI: tests/real-agents/run"]
fn install_user_then_uninstall_leaves_copilot_clis_files_as_they_were() {
    install_uninstall_under(Agent::Copilot, true);
}

/// `install` (at the user's level when `user`), a session that goes through the entry (a
/// witness hook of agent-hooks runs), then `uninstall`: the agent's file is back byte for
/// byte, or gone when install created it; the other files of its folder untouched.
fn install_uninstall_under(agent: Agent, user: bool) {
    let script = ["echo ran >> side-effect.txt"];
    let wiring = Wiring {
        user,
        ..Wiring::new(agent, &script)
    };
    let mut neighbours = Vec::new();
    let s = session_wired(
        agent,
        wiring,
        |run| {
            witness(run);
            // A file of the user's own next to the one agent-hooks writes.
            let folder = installed_file(agent, run, user)
                .parent()
                .expect("a folder")
                .to_owned();
            let mine = folder.join("mine.json");
            if !mine.exists() {
                std::fs::write(&mine, "{\"version\": 1, \"hooks\": {}}\n").expect("write");
                neighbours.push(mine);
            }
        },
        |_, _| {},
    );
    assert!(
        witnessed(&s.run),
        "agent-hooks did not run: {}",
        s.describe()
    );
    assert_eq!(
        s.side_effect().as_deref(),
        Some("ran\n"),
        "{}",
        s.describe()
    );
    agent_hooks(
        &s.run,
        &["uninstall", "--agent", agent.short_name(), s.level],
    );
    let after = std::fs::read_to_string(&s.file).ok();
    assert_eq!(after, s.before, "{}", s.file.display());
    for mine in neighbours {
        assert_eq!(
            std::fs::read_to_string(&mine).ok().as_deref(),
            Some("{\"version\": 1, \"hooks\": {}}\n"),
            "{}",
            mine.display()
        );
    }
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
    other_agents_file_under(Agent::Claude, Agent::Gemini);
}

#[test]
#[ignore = "runs the real Codex CLI: tests/real-agents/run"]
fn a_claude_code_hooks_file_runs_under_codex_cli_when_named() {
    other_agents_file_under(Agent::Codex, Agent::Claude);
}

#[test]
#[ignore = "runs the real Gemini CLI: tests/real-agents/run"]
fn a_codex_cli_hooks_file_runs_under_gemini_cli_when_named() {
    other_agents_file_under(Agent::Gemini, Agent::Codex);
}

#[test]
#[ignore = "runs the real Copilot CLI: tests/real-agents/run"]
fn a_gemini_cli_hooks_file_runs_under_copilot_cli_when_named() {
    // Not Claude Code's: Copilot CLI runs a .claude/settings.json itself.
    other_agents_file_under(Agent::Copilot, Agent::Gemini);
}

/// `other`'s hooks file at the user's level, in `other`'s own form, with a hook that blocks
/// the shell tool: run under `agent` because `install --with` names `other`.
fn other_agents_file_under(agent: Agent, other: Agent) {
    let marker = format!("M-{}-dialect-block", other.short_name());
    let block = format!("echo '{marker}' >&2; exit 2");
    let script = ["echo ran >> side-effect.txt"];
    let wiring = Wiring {
        with: Some(other.short_name()),
        ..Wiring::new(agent, &script)
    };
    let s = session_wired(
        agent,
        wiring,
        |run| match other {
            Agent::Claude => {
                run.write(
                    "home/.claude/settings.json",
                    &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
                        {"type": "command", "command": block, "timeout": 5}]}]}})
                    .to_string(),
                );
            }
            Agent::Codex => {
                run.write(
                    "home/.codex/hooks.json",
                    &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
                        {"type": "command", "command": block, "timeout": 5}]}]}})
                    .to_string(),
                );
            }
            Agent::Gemini => {
                run.write(
                    "home/.gemini/settings.json",
                    &json!({"hooks": {"BeforeTool": [{"matcher": "run_shell_command", "hooks": [
                        {"type": "command", "command": block, "timeout": 5000}]}]}})
                    .to_string(),
                );
            }
            Agent::Droid => {
                run.write(
                    "home/.factory/settings.json",
                    &json!({"hooks": {"PreToolUse": [{"matcher": "Execute", "hooks": [
                        {"type": "command", "command": block, "timeout": 5}]}]}})
                    .to_string(),
                );
            }
            Agent::Copilot => unreachable!("Copilot CLI's own format is not another agent's"),
            Agent::Qwen => unreachable!("Qwen Code's sessions through agent-hooks are in qwen.rs"),
        },
        |_, _| {},
    );
    assert_eq!(s.side_effect(), None, "the tool ran: {}", s.describe());
    assert!(
        s.told(&marker),
        "the model was not told {marker}: {}",
        s.describe()
    );
}

/// Factory Droid's settings, its matcher on droid's `Execute`, run under the real Claude Code
/// with `--with droid`: the hook sees Claude Code's `Bash` as `Execute`, and blocks it.
#[test]
#[ignore = "runs the real Claude Code: tests/real-agents/run"]
fn a_factory_droid_hooks_file_runs_under_claude_code_when_named() {
    other_agents_file_under(Agent::Claude, Agent::Droid);
}

#[test]
#[ignore = "runs the real Claude Code: tests/real-agents/run"]
fn a_copilot_cli_hooks_file_runs_under_claude_code_when_named() {
    let s = claude_session("echo ran >> side-effect.txt", |run| {
        // Copilot CLI's own format: its tool name (`bash`, an anchored matcher) and its
        // top-level answer.
        run.write(
            "home/.copilot/hooks/guard.json",
            r#"{"version": 1, "hooks": {"preToolUse": [{"matcher": "bash", "timeoutSec": 10,
                "bash": "echo '{\"permissionDecision\": \"deny\", \"permissionDecisionReason\": \"M-copilot-dialect-deny\"}'"}]}}"#,
        );
        // Installed again, with --with copilot (which wires the guard's event).
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
    });
    assert_eq!(s.side_effect(), None, "the tool ran: {}", s.describe());
    assert!(
        s.told.iter().any(|t| t.contains("M-copilot-dialect-deny")),
        "the model was not told: {}",
        s.describe()
    );
}

/// A required long-running Python guard: it logs every event it gets (its pid, the
/// command), and blocks a command with `rm -rf`, but only once `serve-killed` exists in the
/// project (the test kills the resident process while the guard is deciding).
const REQUIRED_GUARD: &str = r#"import json, os, sys, time
log, project = sys.argv[1], sys.argv[2]
def send(m):
    sys.stdout.write(json.dumps(m) + "\n"); sys.stdout.flush()
send({"type": "hello", "protocol": 1, "name": "required-guard"})
for line in sys.stdin:
    m = json.loads(line)
    if m.get("type") == "event":
        text = json.dumps(m.get("payload"))
        with open(log, "a") as f:
            f.write("%d %s\n" % (os.getpid(), "rm" if "rm -rf" in text else "other"))
        if "rm -rf" in text:
            open(os.path.join(project, "guard-deciding"), "w").close()
            for _ in range(300):
                if os.path.exists(os.path.join(project, "serve-killed")):
                    break
                time.sleep(0.1)
            send({"type": "answer", "id": m["id"], "output": {"decision": "block",
                  "reason": "M-required-guard: no rm -rf in this project"}})
        else:
            send({"type": "answer", "id": m["id"]})
    elif m.get("type") == "goodbye":
        break
"#;

/// The resident processes started for this run's user, from their logs: the pids, in the
/// order they started.
fn resident_pids(run: &Run) -> Vec<i32> {
    let base = run.home().join(".cache/agent-hooks/run");
    let mut pids = Vec::new();
    for folder in std::fs::read_dir(base).into_iter().flatten().flatten() {
        let log = std::fs::read_to_string(folder.path().join("serve.log")).unwrap_or_default();
        for line in log.lines() {
            let pid: Option<i32> = line
                .strip_prefix("agent-hooks serve: pid ")
                .and_then(|rest| rest.split_whitespace().next())
                .and_then(|pid| pid.parse().ok());
            pids.extend(pid);
        }
    }
    pids
}

/// Whether `pid` is a live `agent-hooks serve` of this run's user (not a zombie, not a
/// reused pid).
fn is_resident(run: &Run, pid: i32) -> bool {
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
    let home = format!("HOME={}", run.home().display());
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let zombie = stat
        .rsplit(')')
        .next()
        .is_some_and(|s| s.trim_start().starts_with('Z'));
    !zombie
        && cmdline.split(|b| *b == 0).any(|w| w == b"serve")
        && environ.split(|b| *b == 0).any(|v| v == home.as_bytes())
}

/// Waits (until the agent is done, or the run's bound) for `relative` in the project.
fn wait_for(run: &Run, relative: &str, done: &AtomicBool) -> bool {
    let started = Instant::now();
    while started.elapsed() < agents::RUN_LIMIT && !done.load(Ordering::SeqCst) {
        if run.project().join(relative).exists() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

#[test]
#[ignore = "runs the real Claude Code: tests/real-agents/run"]
fn a_required_hook_fails_closed_when_the_resident_process_is_killed() {
    required_when_killed_under(Agent::Claude);
}

#[test]
#[ignore = "runs the real Codex CLI: tests/real-agents/run"]
fn a_required_hook_fails_closed_when_the_resident_process_is_killed_under_codex_cli() {
    required_when_killed_under(Agent::Codex);
}

#[test]
#[ignore = "runs the real Gemini CLI: tests/real-agents/run"]
fn a_required_hook_fails_closed_when_the_resident_process_is_killed_under_gemini_cli() {
    if only_in_full_run("the resident process killed under Gemini CLI") {
        return;
    }
    required_when_killed_under(Agent::Gemini);
}

#[test]
#[ignore = "runs the real Copilot CLI: tests/real-agents/run"]
fn a_required_hook_fails_closed_when_the_resident_process_is_killed_under_copilot_cli() {
    if only_in_full_run("the resident process killed under Copilot CLI") {
        return;
    }
    required_when_killed_under(Agent::Copilot);
}

/// Two tool calls through a required long-running guard. During the first (`rm -rf`), while
/// the resident process runs the guard, the test kills it (SIGKILL): the relay gets no
/// answer, runs the hooks in its own process (as the design says: an answer is never lost),
/// and the guard there blocks the call, its reason told to the model. The second call is
/// answered by a new resident process, started on demand, and runs.
fn required_when_killed_under(agent: Agent) {
    let script = [
        "rm -rf gone; echo one >> side-effect.txt",
        "echo two >> side-effect.txt",
    ];
    let killed = std::sync::Mutex::new(None);
    let s = session_wired(
        agent,
        Wiring::new(agent, &script),
        |run| {
            let dir = user_hooks(run);
            std::fs::write(dir.join("guard.py"), REQUIRED_GUARD).expect("write the guard");
            let command = format!(
                "python3 '{}' '{}' '{}'",
                dir.join("guard.py").display(),
                run.project().join("guard.log").display(),
                run.project().display()
            );
            let hooks = json!({"PreToolUse": [{"matcher": "exec", "hooks": [{"type": "command",
                "command": command, "persistent": true, "required": true, "timeout": 40}]}]});
            std::fs::write(dir.join("guard.json"), hooks.to_string()).expect("write");
        },
        |run, done| {
            if !wait_for(run, "guard-deciding", done) {
                return;
            }
            let pids = resident_pids(run);
            if let Some(&pid) = pids.last().filter(|pid| is_resident(run, **pid)) {
                let _ = nix::sys::signal::kill(
                    nix::unistd::Pid::from_raw(pid),
                    nix::sys::signal::Signal::SIGKILL,
                );
                *killed.lock().unwrap_or_else(|p| p.into_inner()) = Some(pid);
            }
            run.write("project/serve-killed", "");
        },
    );
    let killed = killed.into_inner().unwrap_or_else(|p| p.into_inner());
    let log = std::fs::read_to_string(s.run.project().join("guard.log")).unwrap_or_default();
    let detail = format!("{}\n--- guard log\n{log}", s.describe());
    let Some(killed) = killed else {
        panic!("no resident process was running the guard: {detail}");
    };
    assert!(!is_resident(&s.run, killed), "still running: {detail}");
    assert_eq!(s.side_effect().as_deref(), Some("two\n"), "{detail}");
    assert!(
        s.told("M-required-guard"),
        "the model was not told the guard's reason: {detail}"
    );
    let pids = resident_pids(&s.run);
    assert!(
        pids.len() >= 2 && pids.last() != Some(&killed),
        "no new resident process after the kill: {pids:?}: {detail}"
    );
    // The guard decided the first call in the resident process and again in the relay's
    // own process, and saw the second call in the new resident process.
    let rm: Vec<&str> = log.lines().filter(|l| l.ends_with(" rm")).collect();
    assert!(rm.len() >= 2, "{detail}");
    assert!(log.lines().any(|l| l.ends_with(" other")), "{detail}");
}

/// A one-shot hook of agent-hooks that waits until two hooks are waiting at once (each
/// leaves `arrived-<pid>` with the pid of the resident process it runs under), then lets
/// the call go; alone for 40 s, it blocks with `M-not-together`.
const TOGETHER: &str = r#"import os, sys, time
project = sys.argv[1]
sys.stdin.read()
pid, serve = os.getpid(), 0
while pid > 1 and not serve:
    with open("/proc/%d/stat" % pid) as f:
        parent = int(f.read().rsplit(")", 1)[1].split()[1])
    with open("/proc/%d/cmdline" % parent, "rb") as f:
        if b"serve" in f.read().split(b"\0"):
            serve = parent
    pid = parent
with open(os.path.join(project, "arrived-%d" % os.getpid()), "w") as f:
    f.write(str(serve))
for _ in range(400):
    if len([n for n in os.listdir(project) if n.startswith("arrived-")]) >= 2:
        sys.exit(0)
    time.sleep(0.1)
print("M-not-together: the other session never reached its hook", file=sys.stderr)
sys.exit(2)
"#;

#[test]
#[ignore = "runs the real Claude Code and Codex CLI: tests/real-agents/run"]
fn one_resident_process_serves_claude_code_and_codex_cli_at_once() {
    agent_hooks_tests::relay_bin();
    let install = agents::install_dir();
    let run = Run::new();
    let claude_model = model::FakeModel::start("echo claude >> side-effect-claude.txt");
    let codex_model = model::FakeModel::start("echo codex >> side-effect-codex.txt");
    agents::configure(Agent::Claude, &run, claude_model.port(), &json!({}));
    agents::configure(Agent::Codex, &run, codex_model.port(), &json!({}));
    let dir = user_hooks(&run);
    std::fs::write(dir.join("together.py"), TOGETHER).expect("write the hook");
    let command = format!(
        "python3 '{}' '{}'",
        dir.join("together.py").display(),
        run.project().display()
    );
    let hooks = json!({"PreToolUse": [{"matcher": "exec", "hooks": [{"type": "command",
        "command": command, "timeout": 50}]}]});
    std::fs::write(dir.join("together.json"), hooks.to_string()).expect("write");
    // Installed once the hook is there: install wires the events hooks use.
    agent_hooks(&run, &["install", "--agent", "claude", "--project"]);
    agent_hooks(&run, &["install", "--agent", "codex", "--user"]);
    let (claude, codex) = std::thread::scope(|scope| {
        let claude = scope.spawn(|| {
            agents::launch_as(Agent::Claude, &install, &run, claude_model.port(), "claude")
        });
        let codex = agents::launch_as(Agent::Codex, &install, &run, codex_model.port(), "codex");
        (claude.join().expect("the Claude Code run"), codex)
    });
    let told = |model: &model::FakeModel, marker: &str| {
        model
            .requests()
            .iter()
            .any(|r| r.body.to_string().contains(marker))
    };
    let detail = format!(
        "--- Claude Code\n{}\n--- Codex CLI\n{}",
        claude.describe(),
        codex.describe()
    );
    let read = |name: &str| std::fs::read_to_string(run.project().join(name)).ok();
    assert_eq!(
        read("side-effect-claude.txt").as_deref(),
        Some("claude\n"),
        "{detail}"
    );
    assert_eq!(
        read("side-effect-codex.txt").as_deref(),
        Some("codex\n"),
        "{detail}"
    );
    assert!(!told(&claude_model, "M-not-together"), "{detail}");
    assert!(!told(&codex_model, "M-not-together"), "{detail}");
    let serves: Vec<String> = std::fs::read_dir(run.project())
        .expect("the project")
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("arrived-"))
        .filter_map(|e| std::fs::read_to_string(e.path()).ok())
        .collect();
    let pids = resident_pids(&run);
    assert_eq!(pids.len(), 1, "one resident process: {pids:?}\n{detail}");
    assert_eq!(
        serves,
        vec![pids[0].to_string(); 2],
        "both hooks under the one resident process\n{detail}"
    );
}

/// Copilot CLI's own guard in its own hooks file: denies a command with `rm`, and notes
/// that it ran (in the project folder, its working folder).
const COPILOT_GUARD: &str = "{\"version\": 1, \"hooks\": {\"preToolUse\": [{\"type\": \"command\", \"bash\": \"echo ran >> copilot-guard-ran.txt; grep -q rm && echo '{\\\"permissionDecision\\\":\\\"deny\\\",\\\"permissionDecisionReason\\\":\\\"M-copilot-guard says no\\\"}'; exit 0\", \"timeoutSec\": 30}]}}\n";

#[test]
#[ignore = "runs the real Copilot CLI: tests/real-agents/run"]
fn copilot_clis_own_hooks_taken_over_run_under_agent_hooks_and_come_back() {
    if only_in_full_run("copilot take-over") {
        return;
    }
    agent_hooks_tests::relay_bin();
    let install = agents::install_dir();
    let model = model::FakeModel::start("rm -f nothing; echo ran >> side-effect.txt");
    let run = Run::new();
    let settings = agents::configure(Agent::Copilot, &run, model.port(), &json!({}));
    std::fs::remove_file(&settings).expect("remove");
    let guard = run.write("home/.copilot/hooks/guard.json", COPILOT_GUARD);
    agent_hooks(
        &run,
        &["install", "--agent", "copilot", "--user", "--take-over"],
    );
    assert!(!guard.exists(), "the guard moved");
    let outcome = agents::launch(Agent::Copilot, &install, &run, model.port());
    let told: Vec<String> = model
        .requests()
        .iter()
        .map(|r| r.body.to_string())
        .collect();
    let read = |name: &str| std::fs::read_to_string(run.project().join(name)).ok();
    // Only agent-hooks ran it (Copilot CLI's folder holds agent-hooks' file alone), once.
    assert_eq!(
        read("copilot-guard-ran.txt").as_deref(),
        Some("ran\n"),
        "{}",
        outcome.describe()
    );
    assert_eq!(
        read("side-effect.txt"),
        None,
        "the tool ran: {}",
        outcome.describe()
    );
    assert!(
        told.iter().any(|t| t.contains("M-copilot-guard says no")),
        "the model was not told: {}",
        outcome.describe()
    );
    agent_hooks(&run, &["uninstall", "--agent", "copilot", "--user"]);
    assert_eq!(
        std::fs::read_to_string(&guard).ok().as_deref(),
        Some(COPILOT_GUARD),
        "the guard is back byte for byte"
    );
    assert!(!run.home().join(".copilot/hooks/agent-hooks.json").exists());
}

/// A hooks file of agent-hooks that records, for every event the entry of `install` is
/// written for under `agent`, the event's name as `agent-hooks hook` got it (one line per
/// call, in the project's `events.log`).
fn recorder(run: &Run, events: &[&str]) {
    let record = "python3 -c 'import json, os, sys; p = json.load(sys.stdin); \
                  open(os.path.join(p[\"cwd\"], \"events.log\"), \"a\").write(p[\"hook_event_name\"] + \"\\n\")'";
    let hooks: serde_json::Map<String, serde_json::Value> = events
        .iter()
        .map(|event| {
            (
                (*event).to_owned(),
                json!([{"hooks": [{"type": "command", "command": record}]}]),
            )
        })
        .collect();
    std::fs::write(
        user_hooks(run).join("recorder.json"),
        serde_json::Value::Object(hooks).to_string(),
    )
    .expect("recorder");
}

/// The events `events.log` holds, in order.
fn recorded(s: &Session) -> Vec<String> {
    std::fs::read_to_string(s.run.project().join("events.log"))
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// The events Claude Code's entry is written for (`install --agent claude`).
const CLAUDE_EVENTS: &[&str] = &[
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
];

/// The events Codex CLI's entry is written for (`install --agent codex`).
const CODEX_EVENTS: &[&str] = &[
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
];

/// The events Copilot CLI's entry is written for (`install --agent copilot`), by the names
/// of agent-hooks' own hooks files.
const COPILOT_EVENTS: &[&str] = &[
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "PostToolUseFailure",
    "SubagentStart",
    "SubagentStop",
    "Stop",
    "StopFailure",
    "PreCompact",
    "Notification",
    "SessionEnd",
];

/// A session with a recorder of agent-hooks on every event of the entry: the installed file
/// names each of `installed` (the agent's names), the tool ran, and the recorder got exactly
/// `expected`, in order; the first `unordered` of them in any order among themselves (the
/// agent does not order those hooks).
fn every_event_reaches_agent_hooks(
    s: &Session,
    agent: &str,
    installed: &[&str],
    expected: &[&str],
    unordered: usize,
) {
    let file = std::fs::read_to_string(&s.file).expect("installed");
    for event in installed {
        assert!(file.contains(&format!("\"{event}\"")), "{event}: {file}");
    }
    assert_eq!(
        s.side_effect().as_deref(),
        Some("ran\n"),
        "{}",
        s.describe()
    );
    let events = recorded(s);
    eprintln!("{agent}, through the entry: {events:?}");
    let mut got = events.clone();
    let mut want: Vec<String> = expected.iter().map(|e| (*e).to_owned()).collect();
    let first = unordered.min(got.len());
    got[..first].sort();
    want[..unordered.min(expected.len())].sort();
    assert_eq!(got, want, "{events:?}\n{}", s.describe());
}

#[test]
#[ignore = "runs the real Claude Code: tests/real-agents/run"]
fn the_longer_event_list_is_accepted_and_post_tool_batch_reaches_agent_hooks() {
    let s = claude_session("echo ran >> side-effect.txt", |run| {
        recorder(run, CLAUDE_EVENTS)
    });
    // PostToolBatch and SessionEnd were not among the events of the entry before.
    let expected = [
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "PostToolBatch",
        "Stop",
        "SessionEnd",
    ];
    every_event_reaches_agent_hooks(&s, "Claude Code", CLAUDE_EVENTS, &expected, 0);
}

#[test]
#[ignore = "runs the real Codex CLI: tests/real-agents/run"]
fn the_longer_event_list_is_accepted_and_session_end_reaches_agent_hooks_under_codex_cli() {
    let s = session(Agent::Codex, "echo ran >> side-effect.txt", |run| {
        recorder(run, CODEX_EVENTS)
    });
    // SessionEnd was not among the events of the entry before.
    let expected = [
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "Stop",
        "SessionEnd",
    ];
    every_event_reaches_agent_hooks(&s, "Codex CLI", CODEX_EVENTS, &expected, 0);
}

#[test]
#[ignore = "runs the real Copilot CLI: tests/real-agents/run"]
fn the_longer_event_list_is_accepted_and_permission_request_reaches_agent_hooks_under_copilot_cli()
{
    let s = session(Agent::Copilot, "echo ran >> side-effect.txt", |run| {
        recorder(run, COPILOT_EVENTS)
    });
    // permissionRequest (before the tool) was not among the events of the entry before.
    // Copilot CLI 1.0.102 does not order its sessionStart hook before its
    // userPromptSubmitted hook: the recorder has seen them in either order.
    let expected = [
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PermissionRequest",
        "PostToolUse",
        "Stop",
        "SessionEnd",
    ];
    every_event_reaches_agent_hooks(&s, "Copilot CLI", &["permissionRequest"], &expected, 2);
}
