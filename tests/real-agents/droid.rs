//! Real Factory Droid sessions wired to agent-hooks with `agent-hooks install --agent
//! droid`: droid runs `agent-hooks hook --agent droid` as a command hook of
//! `~/.factory/settings.json` on each event. What happened is read from droid's own doing
//! (did the tool's side effect appear, what the model was told next), never from
//! agent-hooks' word.
//!
//! droid runs headless (`droid exec`) against the fake model on 127.0.0.1 through a custom
//! model of its `~/.factory/config.json` (provider `anthropic`), with no Factory account, in a
//! fresh home, project and temporary folder with a clean environment. Ignored in a plain
//! `cargo test` (it needs droid installed): `tests/real-agents/run` runs it with the rest of
//! the real-agents suite.

#[allow(dead_code)]
#[path = "agents.rs"]
mod agents;
#[allow(dead_code)]
#[path = "model.rs"]
mod model;

use std::{
    collections::BTreeMap,
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

/// droid's program in the installed folder (the platform package's binary).
const PROGRAM: &str = "node_modules/@factory/cli-linux-x64/bin/droid";

/// The id droid gives the first custom model of `config.json` named `Fake`.
const MODEL: &str = "custom:Fake-0";

/// The file the side effect of the model's command goes to.
const SIDE_EFFECT: &str = "side-effect.txt";

/// droid's configuration in the run's home: the fake model as a custom model.
fn configure(run: &Run, port: u16) {
    let config = json!({"custom_models": [{
        "model_display_name": "Fake",
        "model": "fake-model",
        "base_url": format!("http://127.0.0.1:{port}"),
        "api_key": "fake",
        "provider": "anthropic",
        "max_tokens": 4096,
    }]});
    run.write("home/.factory/config.json", &config.to_string());
}

/// Runs droid once in `run` (against the model [`configure`] named), bounded by
/// [`RUN_LIMIT`].
fn launch(install: &Path, run: &Run) -> Outcome {
    let mut command = Command::new(install.join(PROGRAM));
    command
        .args(["exec", "-m", MODEL, "--auto", "high", PROMPT])
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", run.home())
        .env("TMPDIR", run.path("tmp"))
        .env("LANG", "C.UTF-8")
        .env("TERM", "dumb")
        .env("NO_COLOR", "1")
        .env("CI", "1")
        .current_dir(run.project())
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(run.path("droid.stdout")).expect("stdout file"))
        .stderr(std::fs::File::create(run.path("droid.stderr")).expect("stderr file"))
        .process_group(0);
    let started = Instant::now();
    let mut child = command
        .spawn()
        .unwrap_or_else(|e| panic!("droid could not start: {e}"));
    let status = agents::wait_bounded(&mut child, started);
    let timed_out = status.is_none();
    let took = started.elapsed();
    let read = |name: &str| std::fs::read_to_string(run.path(name)).unwrap_or_default();
    Outcome {
        code: status.and_then(|s| s.code()),
        timed_out,
        stdout: read("droid.stdout"),
        stderr: read("droid.stderr"),
        took,
    }
}

/// What one session left.
struct Session {
    run: Run,
    outcome: Outcome,
    /// Every request body the model got, as text.
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

/// One droid session whose model runs `command` once, after `install --agent droid` with
/// `with` (other agents' files to run) and `setup` adding hooks.
fn session(command: &str, with: Option<&str>, setup: impl FnOnce(&Run)) -> Session {
    session_during(&[command], with, setup, |_, _| {})
}

/// [`session`] with the model's `script` of commands, and `during` running in a thread of
/// its own while droid runs (`done` set when droid has ended).
fn session_during(
    script: &[&str],
    with: Option<&str>,
    setup: impl FnOnce(&Run),
    during: impl FnOnce(&Run, &AtomicBool) + Send,
) -> Session {
    agent_hooks_tests::relay_bin();
    let install = agents::install_dir();
    let model = model::FakeModel::start_script(script);
    let run = Run::new();
    configure(&run, model.port());
    let mut args = vec!["install", "--agent", "droid"];
    if let Some(with) = with {
        args.extend(["--with", with]);
    }
    agent_hooks(&run, &args);
    setup(&run);
    // `install` wires the events some hook uses: run again, it wires those of the hooks
    // `setup` added.
    agent_hooks(&run, &args);
    let done = AtomicBool::new(false);
    let outcome = std::thread::scope(|scope| {
        scope.spawn(|| during(&run, &done));
        let outcome = launch(&install, &run);
        done.store(true, Ordering::SeqCst);
        outcome
    });
    let told = model
        .requests()
        .iter()
        .map(|r| r.body.to_string())
        .collect();
    let session = Session { run, outcome, told };
    assert!(!session.outcome.timed_out, "{}", session.describe());
    session
}

#[test]
#[ignore = "runs the real droid: tests/real-agents/run"]
fn a_native_plugin_blocks_rm_rf_under_droid_and_the_model_is_told_why() {
    let s = session(
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
    assert_eq!(s.outcome.code, Some(0), "{}", s.describe());
}

#[test]
#[ignore = "runs the real droid: tests/real-agents/run"]
fn a_claude_code_guard_blocks_droid_s_execute_when_named_and_the_model_is_told_why() {
    let s = session(
        &format!("echo ran >> {SIDE_EFFECT}"),
        Some("claude"),
        |run| {
            run.write(
                "project/.claude/settings.json",
                r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
                    "command": "echo \"the Claude Code guard saw $(cat | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"tool_name\"])')\" >&2; exit 2"}]}]}}"#,
            );
            agent_hooks(run, &["trust"]);
        },
    );
    assert_eq!(s.side_effect(), None, "the tool ran: {}", s.describe());
    // The Claude Code hook saw droid's Execute as Bash.
    assert!(
        s.told_last("the Claude Code guard saw Bash"),
        "the model was not told: {}",
        s.describe()
    );
    assert_eq!(s.outcome.code, Some(0), "{}", s.describe());
}

#[test]
#[ignore = "runs the real droid: tests/real-agents/run"]
fn an_untrusted_project_guard_does_not_run_under_droid() {
    let s = session(
        &format!("echo ran >> {SIDE_EFFECT}"),
        Some("claude"),
        |run| {
            run.write(
                "project/.claude/settings.json",
                r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
                    "command": "echo 'the untrusted guard ran' >&2; exit 2"}]}]}}"#,
            );
            // A user hook, trusted as every user hook is: it proves agent-hooks ran.
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
        "agent-hooks did not run: {}",
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
#[ignore = "runs the real droid: tests/real-agents/run"]
fn a_hook_that_hangs_is_cut_at_its_timeout_and_droid_goes_on() {
    let s = session(&format!("echo ran >> {SIDE_EFFECT}"), None, |run| {
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
    // A hook that fails is not a block: the call runs, as droid runs it past its own
    // hook's timeout.
    assert_eq!(
        s.side_effect().as_deref(),
        Some("ran\n"),
        "{}",
        s.describe()
    );
    // Nothing of the problem reaches the model; `droid exec` shows no hook's output, so
    // the user reads it in agent-hooks' log.
    assert!(
        !s.told.iter().any(|t| t.contains("timed out")),
        "{}",
        s.describe()
    );
    let log = agent_hooks(&s.run, &["log"]);
    let log = String::from_utf8_lossy(&log.stdout).into_owned();
    assert!(
        log.lines()
            .any(|l| l.contains("  droid  PreToolUse  Execute  ")
                && l.ends_with("/hangs.json): timed out")),
        "{log}\n{}",
        s.describe()
    );
    assert_eq!(s.outcome.code, Some(0), "{}", s.describe());
}

#[test]
#[ignore = "runs the real droid: tests/real-agents/run"]
fn a_long_running_python_guard_rewrites_droid_s_execute_command() {
    let s = session("echo original >> side-effect.txt", None, |run| {
        let guard = run.write(
            "home/guard.py",
            r#"import json, sys
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
"#,
        );
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
#[ignore = "runs the real droid: tests/real-agents/run"]
fn droid_s_own_hooks_file_runs_once_beside_agent_hooks_even_when_named() {
    // Droid's own project file, its matcher on its own tool name. Droid runs it itself, so
    // `hook --agent droid` does not run it again, even named with --with droid.
    let s = session(
        &format!("echo ran >> {SIDE_EFFECT}"),
        Some("droid"),
        |run| {
            let log = run.home().join("droid-hook.log");
            run.write(
                "project/.factory/hooks.json",
                &json!({"PreToolUse": [{"matcher": "Execute", "hooks": [{"type": "command",
                "command": format!("cat >> '{}'; echo >> '{}'", log.display(), log.display())}]}]})
                .to_string(),
            );
            agent_hooks(run, &["trust"]);
            // A user hook of agent-hooks': it proves agent-hooks ran on the same call.
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
    let log = std::fs::read_to_string(s.run.home().join("droid-hook.log")).unwrap_or_default();
    let seen: Vec<serde_json::Value> = log
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert_eq!(seen.len(), 1, "{log}\n{}", s.describe());
    assert_eq!(seen[0]["tool_name"], "Execute", "{log}");
    assert_eq!(seen[0]["hook_event_name"], "PreToolUse", "{log}");
    assert_eq!(
        seen[0]["tool_input"]["command"],
        format!("echo ran >> {SIDE_EFFECT}"),
        "{log}"
    );
    assert_eq!(
        std::fs::read_to_string(s.run.home().join("seen.txt"))
            .ok()
            .as_deref(),
        Some("seen\n"),
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

/// Every file under `dir` with its content (droid's own bookkeeping left out: its sessions,
/// logs and caches change with every run).
fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    for name in ["settings.json", "hooks.json", "config.json"] {
        if let Ok(bytes) = std::fs::read(dir.join(name)) {
            out.insert(dir.join(name), bytes);
        }
    }
    out
}

#[test]
#[ignore = "runs the real droid: tests/real-agents/run"]
fn install_then_uninstall_leaves_droid_s_files_as_they_were() {
    agent_hooks_tests::relay_bin();
    let install = agents::install_dir();
    let model = model::FakeModel::start(&format!("echo ran >> {SIDE_EFFECT}"));
    let run = Run::new();
    configure(&run, model.port());
    // The user's own settings and hook, which must survive as they are.
    let own = r#"{
  // the user's own comment
  "hooks": {"PreToolUse": [{"matcher": "Execute", "hooks": [{"type": "command", "command": "true"}]}]},
  "model": "custom:Fake-0"
}
"#;
    run.write("home/.factory/settings.json", own);
    let first = launch(&install, &run);
    assert_eq!(first.code, Some(0), "{}", first.describe());
    let factory = run.home().join(".factory");
    let before = files(&factory);
    agent_hooks(&run, &["install", "--agent", "droid"]);
    assert_ne!(files(&factory), before, "install wrote nothing");
    let wired = launch(&install, &run);
    assert_eq!(wired.code, Some(0), "{}", wired.describe());
    agent_hooks(&run, &["uninstall", "--agent", "droid"]);
    assert_eq!(files(&factory), before);
    assert_eq!(
        std::fs::read_to_string(factory.join("settings.json"))
            .ok()
            .as_deref(),
        Some(own)
    );
}

#[test]
#[ignore = "runs the real droid: tests/real-agents/run"]
fn a_required_hook_fails_closed_when_the_resident_process_is_killed_mid_call() {
    let killed = std::sync::Mutex::new(None);
    let s = session_during(
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
    assert!(log.lines().filter(|l| *l == "rm").count() >= 2, "{detail}");
    assert!(log.lines().any(|l| l == "other"), "{detail}");
}
