//! Real Cline sessions (the `cline` CLI) wired to agent-hooks with `agent-hooks install
//! --agent cline`: Cline runs agent-hooks' hook files, which hand each event to `agent-hooks
//! hook --agent cline`. What happened is read from Cline's own doing (did the tool's side
//! effect appear, what the model was told next, how Cline ended the task, what its log says),
//! never from agent-hooks' word.
//!
//! Cline runs headless (`--json -P anthropic PROMPT`), its own platform binary, against the
//! fake model on 127.0.0.1 as its `anthropic` provider with a `baseUrl` (its
//! `settings/providers.json`), with `--data-dir` (its state in
//! the run, and no hub daemon: the session runs in the process), in a fresh home, project
//! and temporary folder with a clean environment. Ignored in a plain `cargo test` (it needs
//! Cline installed): `tests/real-agents/run` runs it with the rest of the real-agents suite.

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
use serde_json::{json, Value};

/// Cline's own binary in the installed folder.
const CLINE: &str = "node_modules/@cline/cli-linux-x64/bin/cline";

/// The file the side effect of the model's command goes to.
const SIDE_EFFECT: &str = "side-effect.txt";

/// Cline's state of the run (`--data-dir`), below the run's root.
const DATA: &str = "home/cline-data";

/// Cline's user hooks folder, below the run's root.
const USER_HOOKS: &str = "home/Documents/Cline/Hooks";

/// Cline's configuration: the fake model as its `anthropic` provider.
fn configure(run: &Run, port: u16) {
    let providers = json!({"version": 1, "lastUsedProvider": "anthropic", "modes": {},
        "providers": {"anthropic": {"settings": {"provider": "anthropic", "apiKey": "fake",
            "model": "claude-sonnet-4-5", "baseUrl": format!("http://127.0.0.1:{port}/v1")},
            "updatedAt": "2026-01-01T00:00:00.000Z", "tokenSource": "manual"}}});
    run.write(
        &format!("{DATA}/settings/providers.json"),
        &providers.to_string(),
    );
}

/// Runs Cline once in `run` (against the model [`configure`] named), bounded by
/// [`RUN_LIMIT`].
fn launch(install: &Path, run: &Run) -> Outcome {
    let mut command = Command::new(install.join(CLINE));
    command
        .args([
            "--json",
            "-P",
            "anthropic",
            "-m",
            "claude-sonnet-4-5",
            "--data-dir",
        ])
        .arg(run.path(DATA))
        .arg(PROMPT)
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", run.home())
        .env("TMPDIR", run.path("tmp"))
        .env("LANG", "C.UTF-8")
        .env("TERM", "dumb")
        .env("NO_COLOR", "1")
        .current_dir(run.project())
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(run.path("cline.stdout")).expect("stdout file"))
        .stderr(std::fs::File::create(run.path("cline.stderr")).expect("stderr file"))
        .process_group(0);
    let started = Instant::now();
    let mut child = command
        .spawn()
        .unwrap_or_else(|e| panic!("Cline could not start: {e}"));
    let status = agents::wait_bounded(&mut child, started);
    let timed_out = status.is_none();
    let took = started.elapsed();
    let read = |name: &str| std::fs::read_to_string(run.path(name)).unwrap_or_default();
    Outcome {
        code: status.and_then(|s| s.code()),
        timed_out,
        stdout: read("cline.stdout"),
        stderr: read("cline.stderr"),
        took,
    }
}

/// What one session left.
struct Session {
    run: Run,
    outcome: Outcome,
    /// Every request body the model got.
    told: Vec<Value>,
}

impl Session {
    fn side_effect(&self) -> Option<String> {
        std::fs::read_to_string(self.run.project().join(SIDE_EFFECT)).ok()
    }

    /// Cline's log of the session (where it writes a cancelling hook's reason).
    fn log(&self) -> String {
        std::fs::read_to_string(self.run.path(&format!("{DATA}/logs/cline.log")))
            .unwrap_or_default()
    }

    /// How Cline ended the task (`completed`, `aborted`), from its `run_result` line.
    fn finish(&self) -> Option<String> {
        self.outcome.stdout.lines().find_map(|line| {
            let v: Value = serde_json::from_str(line).ok()?;
            (v["type"] == "run_result").then(|| v["finishReason"].as_str().map(str::to_owned))?
        })
    }

    /// The last message of the model's last request: what it was told after the tool.
    fn told_last(&self) -> String {
        self.told
            .last()
            .and_then(|b| b["messages"].as_array()?.last().cloned())
            .map(|m| m.to_string())
            .unwrap_or_default()
    }

    fn describe(&self) -> String {
        format!(
            "{}\n--- model requests: {}\n--- last: {}\n--- finish: {:?}",
            self.outcome.describe(),
            self.told.len(),
            self.told_last(),
            self.finish()
        )
    }
}

/// One Cline session whose model runs `script` (one command per call), after `install
/// --agent cline` with `with` (when `Some`; `None`: no install) and `setup`; `during` runs
/// in a thread of its own while Cline runs (`done` set when Cline has ended).
fn session_during(
    script: &[&str],
    install_args: Option<&[&str]>,
    setup: impl FnOnce(&Run),
    during: impl FnOnce(&Run, &AtomicBool) + Send,
) -> Session {
    agent_hooks_tests::relay_bin();
    let install = agents::install_dir();
    let model = model::FakeModel::start_script(script);
    let run = Run::new();
    configure(&run, model.port());
    setup(&run);
    if let Some(args) = install_args {
        let mut all = vec!["install", "--agent", "cline"];
        all.extend(args);
        agent_hooks(&run, &all);
    }
    let done = AtomicBool::new(false);
    let outcome = std::thread::scope(|scope| {
        scope.spawn(|| during(&run, &done));
        let outcome = launch(&install, &run);
        done.store(true, Ordering::SeqCst);
        outcome
    });
    let told = model.requests().into_iter().map(|r| r.body).collect();
    let session = Session { run, outcome, told };
    assert!(!session.outcome.timed_out, "{}", session.describe());
    session
}

fn session(command: &str, install_args: &[&str], setup: impl FnOnce(&Run)) -> Session {
    session_during(&[command], Some(install_args), setup, |_, _| {})
}

/// A Claude Code guard in the project that refuses `Bash` and keeps what it got.
fn claude_guard(run: &Run) {
    run.write(
        "project/.claude/settings.json",
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
            "command": "cat > \"$CLAUDE_PROJECT_DIR/../guard-got.json\"; echo 'the Claude Code guard refuses the shell' >&2; exit 2"}]}]}}"#,
    );
}

#[test]
#[ignore = "runs the real Cline: tests/real-agents/run"]
fn a_claude_code_guard_named_with_with_blocks_cline_s_command_and_cline_ends_the_task() {
    let s = session(
        &format!("echo ran >> {SIDE_EFFECT}"),
        &["--with", "claude"],
        |run| {
            claude_guard(run);
            agent_hooks(run, &["trust"]);
        },
    );
    assert_eq!(s.side_effect(), None, "the tool ran: {}", s.describe());
    // Cline's only way to keep a tool from running ends its task: the model is asked
    // nothing more, and the reason is in Cline's log.
    assert_eq!(s.finish().as_deref(), Some("aborted"), "{}", s.describe());
    assert_eq!(s.told.len(), 1, "{}", s.describe());
    assert!(
        s.log().contains("the Claude Code guard refuses the shell"),
        "{}",
        s.describe()
    );
    // The Claude Code hook saw Cline's run_commands as Bash, with its command.
    let got: Value = serde_json::from_str(
        &std::fs::read_to_string(s.run.path("guard-got.json")).unwrap_or_default(),
    )
    .unwrap_or(Value::Null);
    assert_eq!(got["tool_name"], "Bash", "{got}");
    assert_eq!(
        got["tool_input"]["command"],
        format!("echo ran >> {SIDE_EFFECT}"),
        "{got}"
    );
    assert_eq!(s.outcome.code, Some(0), "{}", s.describe());
}

#[test]
#[ignore = "runs the real Cline: tests/real-agents/run"]
fn another_agent_s_file_does_not_run_under_cline_unless_named() {
    let s = session(&format!("echo ran >> {SIDE_EFFECT}"), &[], |run| {
        claude_guard(run);
        agent_hooks(run, &["trust"]);
    });
    assert_eq!(
        s.side_effect().as_deref(),
        Some("ran\n"),
        "{}",
        s.describe()
    );
    assert!(!s.run.path("guard-got.json").exists(), "{}", s.describe());
    assert_eq!(s.finish().as_deref(), Some("completed"), "{}", s.describe());
}

#[test]
#[ignore = "runs the real Cline: tests/real-agents/run"]
fn an_untrusted_project_guard_does_not_run_under_cline() {
    let s = session(
        &format!("echo ran >> {SIDE_EFFECT}"),
        &["--with", "claude"],
        |run| {
            claude_guard(run);
            // A user hook, trusted as every user hook is: it proves the hook files ran.
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
        "agent-hooks' hook files did not run: {}",
        s.describe()
    );
    assert_eq!(
        s.side_effect().as_deref(),
        Some("ran\n"),
        "{}",
        s.describe()
    );
    assert!(!s.run.path("guard-got.json").exists(), "{}", s.describe());
    assert_eq!(s.finish().as_deref(), Some("completed"), "{}", s.describe());
}

#[test]
#[ignore = "runs the real Cline: tests/real-agents/run"]
fn a_native_plugin_blocks_rm_rf_under_cline() {
    let s = session(
        &format!("rm -rf victim; echo ran >> {SIDE_EFFECT}"),
        &[],
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
    assert_eq!(s.finish().as_deref(), Some("aborted"), "{}", s.describe());
    assert!(
        s.log().contains("Dangerous command blocked"),
        "the reason is not in Cline's log: {}",
        s.describe()
    );
}

#[test]
#[ignore = "runs the real Cline: tests/real-agents/run"]
fn a_hook_that_hangs_is_cut_at_its_timeout_and_cline_goes_on() {
    let s = session(&format!("echo ran >> {SIDE_EFFECT}"), &[], |run| {
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
    // A hook that fails is not a block: the call runs, as Cline runs it when its own hook
    // times out.
    assert_eq!(
        s.side_effect().as_deref(),
        Some("ran\n"),
        "{}",
        s.describe()
    );
    assert_eq!(s.finish().as_deref(), Some("completed"), "{}", s.describe());
    // Cline shows no hook's message: the user reads it in agent-hooks' record.
    let log = agent_hooks(&s.run, &["log"]);
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&log.stdout),
        String::from_utf8_lossy(&log.stderr)
    );
    assert!(
        said.contains("sleep 120") && said.contains("timed out"),
        "{said}"
    );
}

#[test]
#[ignore = "runs the real Cline: tests/real-agents/run"]
fn a_long_running_python_guard_rewrites_cline_s_command() {
    let s = session("echo original >> side-effect.txt", &[], |run| {
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
    assert_eq!(s.finish().as_deref(), Some("completed"), "{}", s.describe());
}

/// Every file under `dir`, with its bytes and mode.
fn tree(dir: &Path) -> Vec<(PathBuf, Vec<u8>, u32)> {
    use std::os::unix::fs::PermissionsExt;
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(tree(&path));
        } else {
            let mode = std::fs::metadata(&path).map_or(0, |m| m.permissions().mode());
            out.push((path.clone(), std::fs::read(&path).unwrap_or_default(), mode));
        }
    }
    out.sort();
    out
}

#[test]
#[ignore = "runs the real Cline: tests/real-agents/run"]
fn install_then_uninstall_leaves_cline_s_hook_folders_as_they_were() {
    agent_hooks_tests::relay_bin();
    let install = agents::install_dir();
    let model = model::FakeModel::start(&format!("echo ran >> {SIDE_EFFECT}"));
    let run = Run::new();
    configure(&run, model.port());
    run.write(
        &format!("{USER_HOOKS}/notes.md"),
        "a file of the user's that is no hook\n",
    );
    // Cline's own first session.
    let first = launch(&install, &run);
    assert_eq!(first.code, Some(0), "{}", first.describe());
    let documents = run.home().join("Documents");
    let before = tree(&documents);
    agent_hooks(&run, &["install", "--agent", "cline"]);
    assert!(run.path(&format!("{USER_HOOKS}/PreToolUse")).is_file());
    agent_hooks(&run, &["install", "--agent", "cline", "--project"]);
    assert!(run.project().join(".clinerules/hooks/TaskStart").is_file());
    let wired = launch(&install, &run);
    assert_eq!(wired.code, Some(0), "{}", wired.describe());
    agent_hooks(&run, &["uninstall", "--agent", "cline"]);
    agent_hooks(&run, &["uninstall", "--agent", "cline", "--project"]);
    assert_eq!(tree(&documents), before);
    assert!(!run.project().join(".clinerules").exists());
}

/// A hook file of Cline's own: it adds context on every call, rewrites a command that says
/// `original`, and cancels one that says `forbidden`.
const CLINE_HOOK: &str = r#"#!/usr/bin/env python3
import json, sys
payload = json.load(sys.stdin)
commands = payload["tool_call"]["input"].get("commands", [])
text = " ".join(commands)
if "forbidden" in text:
    print(json.dumps({"cancel": True, "errorMessage": "the Cline hook cancels forbidden"}))
elif "original" in text:
    print(json.dumps({"overrideInput": {"commands": [c.replace("original", "rewritten") for c in commands]},
                      "contextModification": "the Cline hook rewrote " + payload["preToolUse"]["toolName"]}))
else:
    print(json.dumps({"contextModification": "the Cline hook saw " + payload["hookName"]}))
"#;

/// What a session did, for the differential: the side effect, how the task ended, the
/// requests the model got, and the hook's context in the last one.
fn observed(s: &Session) -> (Option<String>, Option<String>, usize, Vec<String>) {
    let last = s.told_last();
    let contexts: Vec<String> = last
        .split("hook_context")
        .filter_map(|part| part.split("\\n").nth(1).map(str::to_owned))
        .filter(|t| t.starts_with("the Cline hook"))
        .collect();
    (s.side_effect(), s.finish(), s.told.len(), contexts)
}

#[test]
#[ignore = "runs the real Cline: tests/real-agents/run"]
fn cline_s_own_hook_file_does_the_same_run_by_cline_and_through_agent_hooks() {
    for (command, expected_effect, expected_finish) in [
        (
            "echo original >> side-effect.txt",
            Some("rewritten\n"),
            "completed",
        ),
        (
            "echo plain >> side-effect.txt",
            Some("plain\n"),
            "completed",
        ),
        ("echo forbidden >> side-effect.txt", None, "aborted"),
    ] {
        let setup = |run: &Run| {
            run.write(&format!("{USER_HOOKS}/PreToolUse.py"), CLINE_HOOK);
        };
        let direct = session_during(&[command], None, setup, |_, _| {});
        let bridged = session_during(&[command], Some(&["--take-over"]), setup, |_, _| {});
        // The take-over moved the file under agent-hooks: Cline ran only agent-hooks' files.
        assert!(
            !bridged
                .run
                .path(&format!("{USER_HOOKS}/PreToolUse.py"))
                .exists(),
            "{}",
            bridged.describe()
        );
        let (d, b) = (observed(&direct), observed(&bridged));
        assert_eq!(
            d.0.as_deref(),
            expected_effect,
            "{command}: {}",
            direct.describe()
        );
        assert_eq!(
            d.1.as_deref(),
            Some(expected_finish),
            "{}",
            direct.describe()
        );
        assert_eq!(
            d,
            b,
            "{command}: Cline alone and through agent-hooks differ\n--- direct\n{}\n--- bridged\n{}",
            direct.describe(),
            bridged.describe()
        );
        if expected_finish == "completed" {
            assert_eq!(d.3.len(), 1, "the hook's context: {}", direct.describe());
        }
        if expected_finish == "aborted" {
            for s in [&direct, &bridged] {
                assert!(
                    s.log().contains("the Cline hook cancels forbidden"),
                    "{}",
                    s.describe()
                );
            }
        }
    }
}

#[test]
#[ignore = "runs the real Cline: tests/real-agents/run"]
fn a_required_hook_fails_closed_when_the_resident_process_is_killed_mid_call() {
    let killed = std::sync::Mutex::new(None);
    let s = session_during(
        &[&format!("rm -rf gone; echo one >> {SIDE_EFFECT}")],
        Some(&[]),
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
    assert_eq!(s.side_effect(), None, "{detail}");
    // The guard decided the call twice: in the killed resident process, then again where
    // the call was answered.
    assert!(log.lines().filter(|l| *l == "rm").count() >= 2, "{detail}");
    assert_eq!(s.finish().as_deref(), Some("aborted"), "{detail}");
    assert!(
        s.log().contains("the required guard refuses rm -rf"),
        "the reason is not in Cline's log: {detail}"
    );
}
