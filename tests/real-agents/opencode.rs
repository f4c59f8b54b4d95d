//! Real OpenCode and Kilo Code sessions wired to agent-hooks with `agent-hooks install
//! --agent opencode` (or `kilo`): the agent loads agent-hooks' plugin, which hands each event
//! to agent-hooks. What happened is read from the agent's own doing (did the tool's side
//! effect appear, what the model was told next), never from agent-hooks' word.
//!
//! Each runs headless (`opencode run PROMPT --auto`, `kilo run PROMPT --auto`) against the
//! fake model on 127.0.0.1, named in its configuration as the `anthropic` provider's
//! `baseURL` with the model defined there, its models list fetch and updates off, in a fresh
//! home, project and temporary folder with a clean environment. When a configuration folder
//! has plugins, the agent first installs its plugin package (`@opencode-ai/plugin`,
//! `@kilocode/plugin`) into that folder from the npm registry, and waits for it: offline it
//! waits past any bound. A run's home therefore says that package is there (a lock naming it
//! and a `node_modules` folder), which the agent takes as installed; agent-hooks' plugin
//! imports nothing from it. Ignored in a plain `cargo test` (it needs the agents
//! installed): `tests/real-agents/run` runs it with the rest of the real-agents suite.

#[allow(dead_code)]
#[path = "agents.rs"]
mod agents;
#[allow(dead_code)]
#[path = "model.rs"]
mod model;

use std::{
    os::unix::process::CommandExt,
    path::{Path, PathBuf},
    process::{Command, Stdio},
    sync::atomic::{AtomicBool, Ordering},
    time::{Duration, Instant},
};

use agents::{
    agent_hooks, resident_pid, user_hooks, Outcome, Run, PROMPT, REQUIRED_GUARD, RUN_LIMIT,
};
use serde_json::json;

/// The file the side effect of the model's command goes to.
const SIDE_EFFECT: &str = "side-effect.txt";

/// The agent a session runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Which {
    OpenCode,
    Kilo,
}

impl Which {
    /// Its `--agent` name.
    fn name(self) -> &'static str {
        match self {
            Which::OpenCode => "opencode",
            Which::Kilo => "kilo",
        }
    }

    /// Its program in the installed folder (the platform package's binary).
    fn program(self) -> &'static str {
        match self {
            Which::OpenCode => "node_modules/opencode-linux-x64/bin/opencode",
            Which::Kilo => "node_modules/@kilocode/cli-linux-x64/bin/kilo",
        }
    }

    /// Its user configuration folder, under the home.
    fn config_dir(self) -> &'static str {
        match self {
            Which::OpenCode => "home/.config/opencode",
            Which::Kilo => "home/.config/kilo",
        }
    }

    /// Its configuration file in [`config_dir`](Self::config_dir).
    fn config_file(self) -> &'static str {
        match self {
            Which::OpenCode => "opencode.json",
            Which::Kilo => "kilo.json",
        }
    }

    /// The plugin package it installs into a configuration folder with plugins.
    fn plugin_package(self) -> &'static str {
        match self {
            Which::OpenCode => "@opencode-ai/plugin",
            Which::Kilo => "@kilocode/plugin",
        }
    }

    /// The prefix of its variables.
    fn env_prefix(self) -> &'static str {
        match self {
            Which::OpenCode => "OPENCODE",
            Which::Kilo => "KILO",
        }
    }

    /// The user-level plugin `install` writes.
    fn user_plugin(self, run: &Run) -> PathBuf {
        run.path(self.config_dir())
            .join("plugins")
            .join("agent-hooks.ts")
    }
}

/// The agent's configuration in the run's home: the fake model as the `anthropic`
/// provider's endpoint, no sharing, no updates; and its plugin package as installed.
fn configure(which: Which, run: &Run, port: u16) {
    let config = json!({
        "provider": {"anthropic": {
            "options": {"baseURL": format!("http://127.0.0.1:{port}/v1"), "apiKey": "fake"},
            "models": {"fake-model": {"name": "Fake model", "tool_call": true}},
        }},
        "model": "anthropic/fake-model",
        "small_model": "anthropic/fake-model",
        "autoupdate": false,
        "share": "disabled",
    });
    let dir = which.config_dir();
    run.write(
        &format!("{dir}/{}", which.config_file()),
        &config.to_string(),
    );
    installed_plugin_package(which, run, dir);
}

/// Makes the agent take its plugin package as installed in the configuration folder `dir`
/// (relative to the run's root).
fn installed_plugin_package(which: Which, run: &Run, dir: &str) {
    let lock = json!({"packages": {"": {"dependencies": {which.plugin_package(): "*"}}}});
    run.write(&format!("{dir}/package-lock.json"), &lock.to_string());
    std::fs::create_dir_all(run.path(dir).join("node_modules")).expect("node_modules");
}

/// Runs the agent once in `run` (against the model [`configure`] named), bounded by
/// [`RUN_LIMIT`].
fn launch(which: Which, install: &Path, run: &Run) -> Outcome {
    let prefix = which.env_prefix();
    let mut command = Command::new(install.join(which.program()));
    command
        .args(["run", "--auto", PROMPT])
        .env_clear()
        .env(format!("{prefix}_DISABLE_MODELS_FETCH"), "1")
        .env(format!("{prefix}_DISABLE_AUTOUPDATE"), "1")
        .env(format!("{prefix}_DISABLE_SHARE"), "1")
        .env(format!("{prefix}_DISABLE_LSP_DOWNLOAD"), "1")
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", run.home())
        .env("TMPDIR", run.path("tmp"))
        .env("LANG", "C.UTF-8")
        .env("TERM", "dumb")
        .env("NO_COLOR", "1")
        .env("CI", "1")
        .current_dir(run.project())
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(run.path("agent.stdout")).expect("stdout file"))
        .stderr(std::fs::File::create(run.path("agent.stderr")).expect("stderr file"))
        .process_group(0);
    if which == Which::Kilo {
        command.env("KILO_TELEMETRY_LEVEL", "off");
    }
    let started = Instant::now();
    let mut child = command
        .spawn()
        .unwrap_or_else(|e| panic!("{} could not start: {e}", which.name()));
    let status = agents::wait_bounded(&mut child, started);
    let timed_out = status.is_none();
    let took = started.elapsed();
    let read = |name: &str| std::fs::read_to_string(run.path(name)).unwrap_or_default();
    Outcome {
        code: status.and_then(|s| s.code()),
        timed_out,
        stdout: read("agent.stdout"),
        stderr: read("agent.stderr"),
        took,
    }
}

/// What one session left.
struct Session {
    run: Run,
    outcome: Outcome,
    /// The body of every request of the agent's main loop (those that offer tools) the
    /// model got, as text; a session's title request offers none.
    told: Vec<String>,
}

impl Session {
    fn side_effect(&self) -> Option<String> {
        std::fs::read_to_string(self.run.project().join(SIDE_EFFECT)).ok()
    }

    fn describe(&self) -> String {
        format!(
            "{}\n--- model requests: {}\n--- last: {}",
            self.outcome.describe(),
            self.told.len(),
            self.told.last().map_or("", String::as_str)
        )
    }

    /// Whether the model's last request (the one after the tool call) carries `marker`.
    fn told_last(&self, marker: &str) -> bool {
        self.told.last().is_some_and(|t| t.contains(marker))
    }
}

/// The main-loop requests `model` got.
fn told(model: &model::FakeModel) -> Vec<String> {
    model
        .requests()
        .iter()
        .filter(|r| r.body["tools"].as_array().is_some_and(|t| !t.is_empty()))
        .map(|r| r.body.to_string())
        .collect()
}

/// One session whose model runs `command` once, after `install --agent NAME` with `with`
/// (other agents' files to run) and `setup` adding hooks.
fn session(which: Which, command: &str, with: Option<&str>, setup: impl FnOnce(&Run)) -> Session {
    session_during(which, &[command], with, setup, |_, _| {})
}

/// [`session`] with the model's `script` of commands, and `during` running in a thread of
/// its own while the agent runs (`done` set when it has ended).
fn session_during(
    which: Which,
    script: &[&str],
    with: Option<&str>,
    setup: impl FnOnce(&Run),
    during: impl FnOnce(&Run, &AtomicBool) + Send,
) -> Session {
    agent_hooks_tests::relay_bin();
    let install = agents::install_dir();
    let model = model::FakeModel::start_script(script);
    let run = Run::new();
    configure(which, &run, model.port());
    let mut args = vec!["install", "--agent", which.name()];
    if let Some(with) = with {
        args.extend(["--with", with]);
    }
    agent_hooks(&run, &args);
    setup(&run);
    let done = AtomicBool::new(false);
    let outcome = std::thread::scope(|scope| {
        scope.spawn(|| during(&run, &done));
        let outcome = launch(which, &install, &run);
        done.store(true, Ordering::SeqCst);
        outcome
    });
    let told = told(&model);
    let session = Session { run, outcome, told };
    assert!(!session.outcome.timed_out, "{}", session.describe());
    session
}

/// A Claude Code guard in the project's `.claude/settings.json`, run under the agent when
/// named with `--with claude` and trusted.
fn claude_guard_blocks(which: Which) {
    let s = session(
        which,
        &format!("echo ran >> {SIDE_EFFECT}"),
        Some("claude"),
        |run| {
            run.write(
                "project/.claude/settings.json",
                r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
                    "command": "echo 'the Claude Code guard refuses the shell' >&2; exit 2"}]}]}}"#,
            );
            agent_hooks(run, &["trust"]);
        },
    );
    assert_eq!(s.side_effect(), None, "the tool ran: {}", s.describe());
    assert!(
        s.told_last("the Claude Code guard refuses the shell"),
        "the model was not told: {}",
        s.describe()
    );
    assert_eq!(s.outcome.code, Some(0), "{}", s.describe());
}

#[test]
#[ignore = "runs the real OpenCode: tests/real-agents/run"]
fn a_claude_code_guard_blocks_opencode_s_bash_and_the_model_is_told_why() {
    claude_guard_blocks(Which::OpenCode);
}

#[test]
#[ignore = "runs the real Kilo Code: tests/real-agents/run"]
fn a_claude_code_guard_blocks_kilo_s_bash_and_the_model_is_told_why() {
    claude_guard_blocks(Which::Kilo);
}

fn untrusted_project_guard_does_not_run(which: Which) {
    let s = session(
        which,
        &format!("echo ran >> {SIDE_EFFECT}"),
        Some("claude"),
        |run| {
            run.write(
                "project/.claude/settings.json",
                r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
                    "command": "echo 'the untrusted guard ran' >&2; exit 2"}]}]}}"#,
            );
            // A user hook, trusted as every user hook is: it proves the plugin ran.
            let seen = run.home().join("seen.txt");
            std::fs::write(
                user_hooks(run).join("seen.json"),
                json!({"PreToolUse": [{"matcher": "exec", "hooks": [{"type": "command",
                    "command": format!("echo seen >> '{}'", seen.display())}]}]})
                .to_string(),
            )
            .expect("write the hook");
        },
    );
    assert_eq!(
        std::fs::read_to_string(s.run.home().join("seen.txt"))
            .ok()
            .as_deref(),
        Some("seen\n"),
        "the plugin did not run: {}",
        s.describe()
    );
    assert_eq!(
        s.side_effect().as_deref(),
        Some("ran\n"),
        "the tool did not run: {}",
        s.describe()
    );
    assert!(!s.told_last("the untrusted guard ran"), "{}", s.describe());
}

#[test]
#[ignore = "runs the real OpenCode: tests/real-agents/run"]
fn an_untrusted_project_guard_does_not_run_under_opencode() {
    untrusted_project_guard_does_not_run(Which::OpenCode);
}

#[test]
#[ignore = "runs the real Kilo Code: tests/real-agents/run"]
fn an_untrusted_project_guard_does_not_run_under_kilo() {
    untrusted_project_guard_does_not_run(Which::Kilo);
}

fn native_plugin_blocks(which: Which) {
    let s = session(
        which,
        &format!("rm -rf victim; echo ran >> {SIDE_EFFECT}"),
        None,
        |run| {
            std::fs::create_dir_all(run.project().join("victim")).expect("victim");
            agent_hooks_tests::copy_to(
                &agent_hooks_tests::plugin("block-dangerous"),
                &user_hooks(run),
                "libblock_dangerous.so",
            );
        },
    );
    assert_eq!(s.side_effect(), None, "the tool ran: {}", s.describe());
    assert!(s.run.project().join("victim").is_dir(), "{}", s.describe());
    assert!(
        s.told_last("Dangerous command blocked"),
        "the model was not told: {}",
        s.describe()
    );
}

#[test]
#[ignore = "runs the real OpenCode: tests/real-agents/run"]
fn a_native_plugin_blocks_rm_rf_under_opencode_and_the_model_is_told_why() {
    native_plugin_blocks(Which::OpenCode);
}

#[test]
#[ignore = "runs the real Kilo Code: tests/real-agents/run"]
fn a_native_plugin_blocks_rm_rf_under_kilo_and_the_model_is_told_why() {
    native_plugin_blocks(Which::Kilo);
}

fn hang_is_cut(which: Which) {
    let s = session(which, &format!("echo ran >> {SIDE_EFFECT}"), None, |run| {
        std::fs::write(
            user_hooks(run).join("hangs.json"),
            json!({"PreToolUse": [{"matcher": "exec", "hooks": [{"type": "command",
                "command": "sleep 120", "timeout": 2}]}]})
            .to_string(),
        )
        .expect("write the hook");
    });
    assert!(
        s.outcome.took >= Duration::from_secs(2) && s.outcome.took < Duration::from_secs(60),
        "not cut at its timeout: {}",
        s.describe()
    );
    // The user is told (on stderr: `opencode run` has no UI).
    assert!(
        s.outcome
            .stderr
            .contains("timed out after 2s on PreToolUse"),
        "{}",
        s.describe()
    );
    // A hook that fails is not a block: the call runs, as the hook's agent would run it.
    assert_eq!(
        s.side_effect().as_deref(),
        Some("ran\n"),
        "{}",
        s.describe()
    );
    assert_eq!(s.outcome.code, Some(0), "{}", s.describe());
}

#[test]
#[ignore = "runs the real OpenCode: tests/real-agents/run"]
fn a_hook_that_hangs_is_cut_at_its_timeout_and_opencode_goes_on() {
    hang_is_cut(Which::OpenCode);
}

#[test]
#[ignore = "runs the real Kilo Code: tests/real-agents/run"]
fn a_hook_that_hangs_is_cut_at_its_timeout_and_kilo_goes_on() {
    hang_is_cut(Which::Kilo);
}

/// A long-running guard that rewrites `original` to `rewritten` in a shell command.
const REWRITER: &str = r#"import json, sys
print(json.dumps({"type": "hello", "protocol": 1, "name": "rewriter"}), flush=True)
for line in sys.stdin:
    message = json.loads(line)
    if message.get("type") == "goodbye":
        break
    if message.get("type") != "event":
        continue
    command = message["payload"].get("tool_input", {}).get("command", "")
    answer = {"type": "answer", "id": message["id"]}
    if "original" in command:
        answer["output"] = {"hookSpecificOutput": {"hookEventName": "PreToolUse",
            "updatedInput": {"command": command.replace("original", "rewritten")}}}
    print(json.dumps(answer), flush=True)
"#;

fn guard_rewrites(which: Which) {
    let s = session(which, "echo original >> side-effect.txt", None, |run| {
        let guard = run.write("home/guard.py", REWRITER);
        std::fs::write(
            user_hooks(run).join("guard.json"),
            json!({"PreToolUse": [{"matcher": "exec", "hooks": [{"type": "command",
                "command": format!("python3 {}", guard.display()), "persistent": true}]}]})
            .to_string(),
        )
        .expect("write the hook");
    });
    assert_eq!(
        s.side_effect().as_deref(),
        Some("rewritten\n"),
        "{}",
        s.describe()
    );
}

#[test]
#[ignore = "runs the real OpenCode: tests/real-agents/run"]
fn a_long_running_python_guard_rewrites_opencode_s_bash_command() {
    guard_rewrites(Which::OpenCode);
}

#[test]
#[ignore = "runs the real Kilo Code: tests/real-agents/run"]
fn a_long_running_python_guard_rewrites_kilo_s_bash_command() {
    guard_rewrites(Which::Kilo);
}

/// Every path under `dir` but what the agent keeps of its sessions and caches.
fn config_folders(dir: &Path) -> Vec<(PathBuf, Option<String>)> {
    agent_hooks_tests::tree(dir, |_| false)
}

fn install_then_uninstall(which: Which) {
    agent_hooks_tests::relay_bin();
    let install = agents::install_dir();
    let model = model::FakeModel::start(&format!("echo ran >> {SIDE_EFFECT}"));
    let run = Run::new();
    configure(which, &run, model.port());
    // The agent's own first session settles its folder (it writes a `.gitignore`, and Kilo
    // Code migrates its configuration).
    let first = launch(which, &install, &run);
    assert_eq!(first.code, Some(0), "{}", first.describe());
    let config = run.path(which.config_dir());
    let before = config_folders(&config);
    agent_hooks(&run, &["install", "--agent", which.name()]);
    assert!(which.user_plugin(&run).is_file());
    let wired = launch(which, &install, &run);
    assert_eq!(wired.code, Some(0), "{}", wired.describe());
    agent_hooks(&run, &["uninstall", "--agent", which.name()]);
    assert_eq!(config_folders(&config), before);
}

#[test]
#[ignore = "runs the real OpenCode: tests/real-agents/run"]
fn install_then_uninstall_leaves_opencode_s_folder_as_it_was() {
    install_then_uninstall(Which::OpenCode);
}

#[test]
#[ignore = "runs the real Kilo Code: tests/real-agents/run"]
fn install_then_uninstall_leaves_kilo_s_folder_as_it_was() {
    install_then_uninstall(Which::Kilo);
}

fn required_fails_closed(which: Which) {
    let killed = std::sync::Mutex::new(None);
    let s = session_during(
        which,
        &[
            &format!("rm -rf gone; echo one >> {SIDE_EFFECT}"),
            &format!("echo two >> {SIDE_EFFECT}"),
        ],
        None,
        |run| {
            let guard = run.write("home/required-guard.py", REQUIRED_GUARD);
            std::fs::write(
                user_hooks(run).join("guard.json"),
                json!({"PreToolUse": [{"matcher": "exec", "hooks": [{"type": "command",
                    "command": format!("python3 '{}' '{}'", guard.display(), run.project().display()),
                    "persistent": true, "required": true, "timeout": 40}]}]})
                .to_string(),
            )
            .expect("write the hook");
        },
        |run, done| {
            let started = Instant::now();
            while !run.project().join("deciding").exists() {
                if done.load(Ordering::SeqCst) || started.elapsed() > RUN_LIMIT {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            if let Some(pid) = resident_pid(run) {
                let _ = nix::sys::signal::kill(
                    nix::unistd::Pid::from_raw(pid),
                    nix::sys::signal::Signal::SIGKILL,
                );
                *killed.lock().unwrap_or_else(|p| p.into_inner()) = Some(pid);
            }
            run.write("project/killed", "");
        },
    );
    let log = std::fs::read_to_string(s.run.project().join("guard.log")).unwrap_or_default();
    let detail = format!("{}\n--- guard log\n{log}", s.describe());
    let killed = killed.into_inner().unwrap_or_else(|p| p.into_inner());
    assert!(
        killed.is_some(),
        "no resident process ran the guard: {detail}"
    );
    assert_eq!(s.side_effect().as_deref(), Some("two\n"), "{detail}");
    assert!(
        s.told
            .iter()
            .any(|t| t.contains("the required guard refuses rm -rf")),
        "the model was not told the guard's reason: {detail}"
    );
    // The guard decided the first call twice (in the killed resident process, then again
    // where the call was answered), and saw the second.
    assert!(log.lines().filter(|l| *l == "rm").count() >= 2, "{detail}");
    assert!(log.lines().any(|l| l == "other"), "{detail}");
}

#[test]
#[ignore = "runs the real OpenCode: tests/real-agents/run"]
fn a_required_hook_fails_closed_when_the_resident_process_is_killed_mid_call() {
    required_fails_closed(Which::OpenCode);
}

#[test]
#[ignore = "runs the real Kilo Code: tests/real-agents/run"]
fn a_required_hook_fails_closed_under_kilo_when_the_resident_process_is_killed_mid_call() {
    required_fails_closed(Which::Kilo);
}

/// Writes an agent-hooks hooks file named `name` with one command hook on `event`.
fn hook_file(run: &Run, name: &str, event: &str, command: &str) {
    std::fs::write(
        user_hooks(run).join(name),
        json!({event: [{"hooks": [{"type": "command", "command": command}]}]}).to_string(),
    )
    .expect("write the hook");
}

#[test]
#[ignore = "runs the real OpenCode: tests/real-agents/run"]
fn a_session_start_hook_s_context_reaches_the_model_with_the_first_prompt() {
    let s = session(
        Which::OpenCode,
        &format!("echo ran >> {SIDE_EFFECT}"),
        None,
        |run| {
            let answer = json!({"hookSpecificOutput": {"hookEventName": "SessionStart",
            "additionalContext": "M-context: the rules of this project"}});
            hook_file(
                run,
                "start.json",
                "SessionStart",
                &format!("echo '{answer}'"),
            );
        },
    );
    assert!(
        s.told
            .first()
            .is_some_and(|t| t.contains("M-context: the rules of this project")),
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
#[ignore = "runs the real OpenCode: tests/real-agents/run"]
fn a_prompt_hook_that_blocks_keeps_the_prompt_from_the_model() {
    let s = session(
        Which::OpenCode,
        &format!("echo ran >> {SIDE_EFFECT}"),
        None,
        |run| {
            hook_file(
                run,
                "prompt.json",
                "UserPromptSubmit",
                "echo 'M-prompt: not this prompt' >&2; exit 2",
            );
        },
    );
    assert!(
        s.told.iter().all(|t| !t.contains(PROMPT)),
        "the model got the prompt: {}",
        s.describe()
    );
    assert!(
        s.outcome.stderr.contains("M-prompt: not this prompt"),
        "{}",
        s.describe()
    );
}

#[test]
#[ignore = "runs the real OpenCode: tests/real-agents/run"]
fn a_post_tool_hook_s_context_is_added_to_the_output_the_model_reads() {
    let s = session(
        Which::OpenCode,
        &format!("echo ran >> {SIDE_EFFECT}"),
        None,
        |run| {
            let answer = json!({"hookSpecificOutput": {"hookEventName": "PostToolUse",
            "additionalContext": "M-after: the command ran in a sandbox"}});
            hook_file(
                run,
                "after.json",
                "PostToolUse",
                &format!("echo '{answer}'"),
            );
        },
    );
    assert_eq!(
        s.side_effect().as_deref(),
        Some("ran\n"),
        "{}",
        s.describe()
    );
    assert!(
        s.told_last("M-after: the command ran in a sandbox"),
        "{}",
        s.describe()
    );
}

#[test]
#[ignore = "runs the real OpenCode: tests/real-agents/run"]
fn a_tool_call_is_blocked_when_agent_hooks_cannot_be_run_and_opencode_goes_on() {
    agent_hooks_tests::relay_bin();
    let install = agents::install_dir();
    let model = model::FakeModel::start(&format!("echo ran >> {SIDE_EFFECT}"));
    let run = Run::new();
    configure(Which::OpenCode, &run, model.port());
    agent_hooks(
        &run,
        &[
            "install",
            "--agent",
            "opencode",
            "--program",
            "/nonexistent/agent-hooks",
        ],
    );
    let outcome = launch(Which::OpenCode, &install, &run);
    let told = told(&model);
    let s = Session { run, outcome, told };
    assert_eq!(s.outcome.code, Some(0), "{}", s.describe());
    assert_eq!(s.side_effect(), None, "the tool ran: {}", s.describe());
    assert!(
        s.told_last(
            "agent-hooks could not check this call (agent-hooks is not where this plugin runs it"
        ),
        "{}",
        s.describe()
    );
    assert!(
        s.outcome.stderr.contains("agent-hooks: agent-hooks is not where this plugin runs it: /nonexistent/agent-hooks hook --agent opencode"),
        "{}",
        s.describe()
    );
}

#[test]
#[ignore = "runs the real OpenCode: tests/real-agents/run"]
fn a_stop_hook_runs_when_opencode_is_idle_and_its_block_is_told_not_obeyed() {
    let s = session(
        Which::OpenCode,
        &format!("echo ran >> {SIDE_EFFECT}"),
        None,
        |run| {
            let marker = run.home().join("stopped");
            hook_file(
                run,
                "stop.json",
                "Stop",
                &format!(
                    "touch '{}'; echo 'M-stop: check the output first' >&2; exit 2",
                    marker.display()
                ),
            );
        },
    );
    assert!(s.run.home().join("stopped").exists(), "{}", s.describe());
    assert!(
        s.outcome.stderr.contains(
            "agent-hooks: a Stop hook asked to go on (M-stop: check the output first); OpenCode's plugins cannot keep a session going, so it stops"
        ),
        "{}",
        s.describe()
    );
    // The model was not asked again: a tool call, then the final answer.
    assert_eq!(s.told.len(), 2, "{}", s.describe());
    assert_eq!(s.outcome.code, Some(0), "{}", s.describe());
}
