//! Plugins in processes of their own: every fault a plugin can commit, in its factory and in
//! a handler, leaves the agent (this test process) alive with an error that names the plugin,
//! the event and the cause; `tool_call` is blocked; the next event restarts the process; and
//! no process is left behind (checked by pid).

use std::{
    path::Path,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use agent_hooks::{
    abi::prelude::*,
    isolation::{Limits, ProcessState},
    load_hooks_with, HookError, HookErrorKind, HookRunner, LoadError, LoadOptions, PluginSettings,
    Termination,
};
use agent_hooks_tests::{
    agent_hooks_bin,
    commands::{CommandRig, Project},
    copy_to, pid_alive, plugin, s, survivors, temp_dir, RecordingAgent,
};
use serde_json::json;

struct Rig {
    runner: HookRunner,
    errors: Arc<Mutex<Vec<HookError>>>,
}

fn options(adjust: impl FnOnce(&mut PluginSettings)) -> LoadOptions {
    let mut options = LoadOptions::isolated();
    options.plugin_host = Some(agent_hooks_bin());
    adjust(&mut options.defaults);
    options
}

fn hostile(dir: &Path, adjust: impl FnOnce(&mut PluginSettings)) -> Rig {
    let library = plugin("hostile");
    let loaded = load_hooks_with([s(&library)], dir, &options(adjust));
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    let runner = HookRunner::new(loaded.hooks, dir);
    let errors = Arc::new(Mutex::new(Vec::new()));
    let sink = errors.clone();
    runner.on_error(move |e| sink.lock().unwrap().push(e.clone()));
    Rig { runner, errors }
}

fn tool_call(fault: &str) -> ToolCallEvent {
    ToolCallEvent::new("exec", "call-1", json!({"command": "ls", "fault": fault}))
}

impl Rig {
    fn pid(&self) -> u32 {
        match self.runner.hooks()[0].process_state() {
            Some(ProcessState::Running(pid)) => pid,
            other => panic!("the plugin process is not running: {other:?}"),
        }
    }

    /// An ordinary call: allowed, and answered by the process with this pid.
    fn works(&self) -> u64 {
        let outcome = self
            .runner
            .emit_blocking(&tool_call(""))
            .expect("an ordinary call works");
        assert!(!outcome.block);
        outcome.input.expect("the plugin answered")["pid"]
            .as_u64()
            .expect("with its pid")
    }
}

/// What a plugin process says between events (a message from a thread of its own, after
/// the call that started it returned, as the calls before it read their own answers)
/// reaches the agent without waiting for another event.
#[test]
fn a_message_a_plugin_process_sends_between_events_arrives_without_another_event() {
    let dir = tempfile::tempdir().unwrap();
    let rig = hostile(dir.path(), |_| {});
    let agent = Arc::new(RecordingAgent::default());
    rig.runner.attach(agent.clone());
    for _ in 0..3 {
        rig.works();
    }
    rig.runner
        .emit_blocking(&tool_call("message_later"))
        .expect("the call works");
    let sent = Instant::now();
    while agent.messages.lock().unwrap().is_empty() {
        assert!(
            sent.elapsed() < Duration::from_secs(10),
            "no message 10 s after the call"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    assert_eq!(agent.messages.lock().unwrap()[0].custom_type, "later");
    assert!(rig.errors.lock().unwrap().is_empty());
}

/// A program the plugin runs itself gets the standard three descriptors and nothing of the
/// plugin process's connection to the agent: it can neither speak the protocol in the
/// plugin's name nor keep the connection open once the plugin process has ended.
#[test]
fn a_program_a_plugin_runs_does_not_inherit_its_connection_to_the_agent() {
    let dir = tempfile::tempdir().unwrap();
    let rig = hostile(dir.path(), |_| {});
    // What a program may get from the agent itself (descriptors the agent leaves open for
    // every program it starts): the plugin's program gets nothing else past the standard
    // three.
    let beyond_three = |lines: Vec<String>| -> Vec<String> {
        let mut lines: Vec<String> = lines
            .into_iter()
            .filter(|line| !["0 ", "1 ", "2 "].iter().any(|s| line.starts_with(s)))
            .collect();
        lines.sort();
        lines
    };
    let agents: Vec<String> = std::fs::read_dir("/proc/self/fd")
        .unwrap()
        .filter_map(|fd| {
            let fd = fd.ok()?;
            let number = fd.file_name().to_str()?.to_owned();
            let target = std::fs::read_link(fd.path()).ok()?;
            let flags = std::fs::read_to_string(format!("/proc/self/fdinfo/{number}")).ok()?;
            // Left open for the programs it starts: not close-on-exec (octal 02000000).
            let flags = flags.lines().find_map(|l| l.strip_prefix("flags:"))?.trim();
            let inherited = u32::from_str_radix(flags, 8).ok()? & 0o2000000 == 0;
            inherited.then(|| format!("{number} {}", target.display()))
        })
        .collect();
    let agents = beyond_three(agents);
    let outcome = rig
        .runner
        .emit_blocking(&tool_call("own_program"))
        .expect("the call works");
    let input = outcome.input.expect("the plugin answered");
    let given = beyond_three(serde_json::from_value(input["fds"].clone()).unwrap());
    let foreign: Vec<&String> = given.iter().filter(|fd| !agents.contains(fd)).collect();
    assert!(
        foreign.is_empty(),
        "the program holds {foreign:?}; the agent leaves open {agents:?}"
    );
}

/// Each fault in a handler: the emit fails (so the tool wrapper blocks the call) with an
/// error naming the plugin, the event and the cause; the process is gone; the next event
/// starts a new one.
#[test]
fn every_crash_in_a_handler_is_contained_reported_and_followed_by_a_restart() {
    let cases: &[(&str, HookErrorKind, &str)] = &[
        (
            "segfault",
            HookErrorKind::Crashed(Termination::Signal(11)),
            "died with signal 11 (SIGSEGV",
        ),
        (
            "abort",
            HookErrorKind::Crashed(Termination::Signal(6)),
            "died with signal 6 (SIGABRT",
        ),
        (
            "stack_overflow",
            HookErrorKind::Crashed(Termination::Signal(6)),
            "died with signal 6 (SIGABRT",
        ),
        (
            "panic_in_drop",
            HookErrorKind::Crashed(Termination::Signal(6)),
            "died with signal 6 (SIGABRT",
        ),
        (
            "alloc_30g",
            HookErrorKind::Crashed(Termination::Signal(6)),
            "died with signal 6 (SIGABRT",
        ),
        (
            "exit0",
            HookErrorKind::Crashed(Termination::Exit(0)),
            "exited with status 0",
        ),
    ];
    for (fault, kind, cause) in cases {
        let dir = temp_dir();
        let rig = hostile(dir.path(), |_| {});
        let first = rig.pid();
        assert_eq!(rig.works(), u64::from(first));
        let error = rig
            .runner
            .emit_blocking(&tool_call(fault))
            .expect_err("a crashed tool_call is an error: the call is blocked");
        assert_eq!(&error.kind, kind, "{fault}: {error}");
        assert_eq!(error.event, "tool_call");
        assert!(
            error.message.starts_with(&format!("libhostile.so {cause}")),
            "{fault}: {}",
            error.message
        );
        assert!(
            error.message.contains("while handling tool_call"),
            "{}",
            error.message
        );
        assert_eq!(
            *rig.errors.lock().unwrap(),
            std::slice::from_ref(&error),
            "{fault}: reported once"
        );
        assert_eq!(
            survivors([first.to_string().as_str()]),
            Vec::<String>::new()
        );
        let second = rig.works();
        assert_ne!(second, u64::from(first), "{fault}: a new process answered");
        drop(rig);
        assert_eq!(
            survivors([second.to_string().as_str()]),
            Vec::<String>::new(),
            "{fault}: the runner's drop ends the plugin process"
        );
    }
}

#[test]
fn a_handler_that_loops_or_sleeps_past_its_deadline_is_killed_and_restarted() {
    // A deadline long enough that a freshly restarted process answers its first call within
    // it even on a loaded machine.
    for fault in ["loop", "sleep"] {
        let dir = temp_dir();
        let rig = hostile(dir.path(), |s| s.handler_timeout = Duration::from_secs(1));
        let first = rig.pid();
        let started = Instant::now();
        let error = rig.runner.emit_blocking(&tool_call(fault)).unwrap_err();
        let took = started.elapsed();
        assert!(
            took >= Duration::from_secs(1) && took < Duration::from_secs(4),
            "{took:?}"
        );
        assert_eq!(error.kind, HookErrorKind::TimedOut(Duration::from_secs(1)));
        assert_eq!(
            error.message,
            "libhostile.so did not answer tool_call within 1s; its process was killed and starts again on the next event"
        );
        assert_eq!(
            survivors([first.to_string().as_str()]),
            Vec::<String>::new()
        );
        assert_ne!(rig.works(), u64::from(first));
    }
}

#[test]
fn every_fault_in_the_factory_is_a_load_error_and_leaves_no_process() {
    let cases: &[(&str, &str)] = &[
        (
            "segfault",
            "the plugin process died with signal 11 (SIGSEGV",
        ),
        ("abort", "the plugin process died with signal 6 (SIGABRT"),
        (
            "stack_overflow",
            "the plugin process died with signal 6 (SIGABRT",
        ),
        ("exit0", "the plugin process exited with status 0"),
        (
            "alloc_30g",
            "the plugin process died with signal 6 (SIGABRT",
        ),
    ];
    let library = plugin("hostile");
    for (fault, start) in cases {
        let dir = temp_dir();
        std::fs::write(dir.path().join("hostile-factory"), fault).unwrap();
        let loaded = load_hooks_with([s(&library)], dir.path(), &options(|_| {}));
        assert!(loaded.hooks.is_empty());
        let error = &loaded.errors[0].error;
        assert!(
            matches!(error, LoadError::DiedWhileLoading { .. }),
            "{fault}: {error}"
        );
        assert!(error.to_string().starts_with(start), "{fault}: {error}");
        assert!(error.to_string().contains(
            "while loading the plugin (in its library's constructors or its factory), so it is not loaded"
        ));
    }
    for fault in ["loop", "sleep"] {
        let dir = temp_dir();
        std::fs::write(dir.path().join("hostile-factory"), fault).unwrap();
        let started = Instant::now();
        let loaded = load_hooks_with(
            [s(&library)],
            dir.path(),
            &options(|s| s.factory_timeout = Duration::from_millis(400)),
        );
        assert!(started.elapsed() < Duration::from_secs(3));
        assert_eq!(
            loaded.errors[0].error.to_string(),
            "the plugin's factory did not finish within 400ms; its process was killed and the plugin is not loaded (raise factory_timeout if it needs longer)"
        );
    }
}

/// Plugin processes start together and each one's deadline counts from its own start: two
/// whose factories hang cost one timeout, not two in turn.
#[test]
fn plugins_whose_factories_hang_are_waited_for_together() {
    let dir = temp_dir();
    std::fs::write(dir.path().join("hostile-factory"), "sleep").unwrap();
    let library = plugin("hostile");
    let copies: Vec<String> = ["a", "b"]
        .iter()
        .map(|name| {
            s(&copy_to(
                &library,
                dir.path(),
                &format!("libhostile_{name}.so"),
            ))
        })
        .collect();
    let started = Instant::now();
    let loaded = load_hooks_with(
        copies,
        dir.path(),
        &options(|s| s.factory_timeout = Duration::from_secs(1)),
    );
    let waited = started.elapsed();
    assert_eq!(loaded.errors.len(), 2, "{:?}", loaded.errors);
    for failure in &loaded.errors {
        assert_eq!(
            failure.error.to_string(),
            "the plugin's factory did not finish within 1s; its process was killed and the plugin is not loaded (raise factory_timeout if it needs longer)"
        );
    }
    // One after the other, the second would wait its own second after the first's.
    assert!(waited < Duration::from_millis(1800), "{waited:?}");
}

#[test]
fn a_plugin_that_crashes_three_times_in_a_minute_is_disabled_and_reported_once() {
    let dir = temp_dir();
    let rig = hostile(dir.path(), |_| {});
    for _ in 0..3 {
        assert!(rig.runner.emit_blocking(&tool_call("abort")).is_err());
    }
    match rig.runner.hooks()[0].process_state() {
        Some(ProcessState::Disabled(cause)) => {
            assert!(cause.starts_with("died with signal 6 (SIGABRT"), "{cause}")
        }
        other => panic!("not disabled: {other:?}"),
    }
    let outcome = rig.runner.emit_blocking(&tool_call("abort")).unwrap();
    assert!(
        !outcome.block && outcome.input.is_none(),
        "a disabled plugin is skipped"
    );
    let errors = rig.errors.lock().unwrap();
    let disabled: Vec<&HookError> = errors
        .iter()
        .filter(|e| {
            e.message
                .contains("is disabled for the rest of the session")
        })
        .collect();
    assert_eq!(disabled.len(), 1, "{errors:?}");
    assert!(disabled[0].message.starts_with(
        "libhostile.so is disabled for the rest of the session: its process ended 3 times within 60s (last: died with signal 6 (SIGABRT"
    ));
}

/// Killed at its deadline three times in a minute, a plugin is disabled and says why (the
/// kill is counted before its process is reaped, and its cause read empty).
#[test]
fn a_plugin_killed_at_its_deadline_three_times_in_a_minute_is_disabled_with_that_cause() {
    let dir = temp_dir();
    let rig = hostile(dir.path(), |s| {
        s.handler_timeout = Duration::from_millis(300)
    });
    for _ in 0..3 {
        assert!(rig.runner.emit_blocking(&tool_call("sleep")).is_err());
    }
    match rig.runner.hooks()[0].process_state() {
        Some(ProcessState::Disabled(cause)) => {
            assert_eq!(cause, "was killed after 300ms without an answer")
        }
        other => panic!("not disabled: {other:?}"),
    }
    let errors = rig.errors.lock().unwrap();
    let disabled: Vec<&str> = errors
        .iter()
        .map(|e| e.message.as_str())
        .filter(|message| message.contains("is disabled for the rest of the session"))
        .collect();
    assert_eq!(
        disabled,
        ["libhostile.so is disabled for the rest of the session: its process ended 3 times within 60s (last: was killed after 300ms without an answer)"]
    );
}

#[test]
fn a_leak_ends_the_plugin_process_at_its_memory_limit_not_the_agent() {
    let dir = temp_dir();
    let rig = hostile(dir.path(), |s| {
        s.limits = Limits {
            address_space: Some(1 << 30),
            open_files: Some(256),
        }
    });
    let mut event = tool_call("");
    event.input["leak_mb"] = 64.into();
    let mut crashed = None;
    for _ in 0..40 {
        if let Err(error) = rig.runner.emit_blocking(&event) {
            crashed = Some(error);
            break;
        }
    }
    let error = crashed.expect("the leak reached the limit");
    assert_eq!(error.kind, HookErrorKind::Crashed(Termination::Signal(6)));
    assert!(error.message.contains("peak memory"), "{}", error.message);
    rig.works();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn environment_and_signal_changes_stay_in_the_plugin_process() {
    for fault in ["set_var", "sigpipe_default", "sigchld_ignore"] {
        let project = Project::new("p");
        std::fs::write(project.root.join("hostile-factory"), fault).unwrap();
        let loaded = load_hooks_with([s(&plugin("hostile"))], &project.root, &options(|_| {}));
        assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
        // A hook that exits without reading its (large) stdin: the agent writes into a
        // closed pipe, which kills a process whose SIGPIPE is at its default.
        let file = project.write(
            "hooks.json",
            &json!({"PreToolUse": [{"hooks": [{"type": "command", "command": "echo ok"}]}]})
                .to_string(),
        );
        let mut hooks = agent_hooks::command_hook::CommandHooks::new();
        hooks.load_file(&file);
        let rig = CommandRig::with_hooks(
            &project.root,
            hooks,
            HookRunner::new(loaded.hooks, &project.root),
        );
        // The same change made from a handler, once the factory made it.
        rig.runner.emit(&tool_call(fault)).await.unwrap();
        for _ in 0..10 {
            let mut event = tool_call("");
            event.input["padding"] = "x".repeat(256 << 10).into();
            let outcome = rig.runner.emit(&event).await.unwrap();
            assert!(!outcome.block);
        }
        assert!(
            rig.errors.lock().unwrap().is_empty(),
            "{fault}: {:?}",
            rig.errors.lock().unwrap()
        );
    }
}

#[test]
fn a_handler_asks_the_user_through_the_agent_and_gets_the_answer() {
    for (answer, blocked) in [(true, false), (false, true)] {
        let dir = temp_dir();
        let loaded = load_hooks_with(
            [s(&plugin("block-dangerous"))],
            dir.path(),
            &options(|_| {}),
        );
        let runner = HookRunner::new(loaded.hooks, dir.path());
        let agent = Arc::new(RecordingAgent::with_ui(answer));
        runner.attach(agent.clone());
        let outcome = runner
            .emit_blocking(
                &ToolCallEvent::default()
                    .tool_name("exec")
                    .input(json!({"command": "rm -rf build"})),
            )
            .unwrap();
        assert_eq!(outcome.block, blocked);
        let asked = agent.ui.as_ref().unwrap().calls.lock().unwrap().clone();
        assert_eq!(asked.len(), 1, "{asked:?}");
        assert!(asked[0].starts_with("confirm "), "{asked:?}");
    }
}

#[test]
fn a_library_overwritten_while_its_process_runs_is_reported_or_reloaded() {
    let dir = temp_dir();
    let library = dir.path().join("libhostile.so");
    std::fs::copy(plugin("hostile"), &library).unwrap();
    let loaded = load_hooks_with([s(&library)], dir.path(), &options(|_| {}));
    let runner = HookRunner::new(loaded.hooks, dir.path());
    let first = match runner.hooks()[0].process_state() {
        Some(ProcessState::Running(pid)) => pid,
        other => panic!("{other:?}"),
    };
    // `cp` over the file: the running process's pages change under it.
    std::fs::copy(plugin("noop-1"), &library).unwrap();
    let mut outcomes = Vec::new();
    for _ in 0..3 {
        outcomes.push(runner.emit_blocking(&tool_call("")).map(|o| o.block));
    }
    // The agent lives; each call either worked or says why not.
    for outcome in &outcomes {
        if let Err(error) = outcome {
            assert!(error.message.starts_with("libhostile.so "), "{error}");
        }
    }
    drop(runner);
    assert!(!pid_alive(&first.to_string()) || survivors([first.to_string().as_str()]).is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_stalled_handlers_do_not_stall_the_runtime_or_other_hooks() {
    let project = Project::new("p");
    let loaded = load_hooks_with(
        [s(&plugin("hostile"))],
        &project.root,
        &options(|s| s.handler_timeout = Duration::from_secs(3)),
    );
    let stalled = Arc::new(HookRunner::new(loaded.hooks, &project.root));
    let sleepers: Vec<_> = (0..4)
        .map(|_| {
            let runner = stalled.clone();
            tokio::spawn(async move { runner.emit(&tool_call("sleep")).await })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(200)).await;

    let started = Instant::now();
    tokio::time::sleep(Duration::from_millis(10)).await;
    assert!(
        started.elapsed() < Duration::from_millis(500),
        "timers stalled: {:?}",
        started.elapsed()
    );

    let file = project.write(
        "hooks.json",
        &json!({"PreToolUse": [{"hooks": [{"type": "command", "command": "echo '{}'"}]}]})
            .to_string(),
    );
    let rig = CommandRig::new(&project.root, &[file]);
    let started = Instant::now();
    rig.runner.emit(&tool_call("")).await.unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "an unrelated command-hook emit took {:?}",
        started.elapsed()
    );
    // The first call past its deadline has the process killed; the calls in flight with it
    // end with that cause.
    for sleeper in sleepers {
        let error = sleeper.await.unwrap().unwrap_err();
        assert!(
            error.kind == HookErrorKind::TimedOut(Duration::from_secs(3))
                || error.message.starts_with(
                    "libhostile.so was killed after 3s without an answer while handling tool_call"
                ),
            "{error}"
        );
    }
}

/// In process there is no process to kill: at the deadline the runner stops waiting,
/// reports it and fails safe; the stalled handler's thread is abandoned. Handlers never run
/// on the runtime's workers, so four stalled ones do not stall an unrelated emit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_process_the_runner_stops_waiting_at_the_deadline_and_the_runtime_goes_on() {
    let project = Project::new("p");
    let mut options = LoadOptions::in_process();
    options.defaults.handler_timeout = Duration::from_millis(500);
    let loaded = load_hooks_with([s(&plugin("hostile"))], &project.root, &options);
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    let stalled = Arc::new(HookRunner::new(loaded.hooks, &project.root));
    let sleepers: Vec<_> = (0..4)
        .map(|_| {
            let runner = stalled.clone();
            tokio::spawn(async move {
                let started = Instant::now();
                (runner.emit(&tool_call("sleep")).await, started.elapsed())
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let file = project.write(
        "hooks.json",
        &json!({"PreToolUse": [{"hooks": [{"type": "command", "command": "echo '{}'"}]}]})
            .to_string(),
    );
    let rig = CommandRig::new(&project.root, &[file]);
    let started = Instant::now();
    rig.runner.emit(&tool_call("")).await.unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "an unrelated command-hook emit took {:?}",
        started.elapsed()
    );
    for sleeper in sleepers {
        let (result, took) = sleeper.await.unwrap();
        let error = result.unwrap_err();
        assert!(took < Duration::from_secs(3), "{took:?}");
        assert_eq!(
            error.kind,
            HookErrorKind::TimedOut(Duration::from_millis(500))
        );
        assert_eq!(
            error.message,
            "the handler did not return within 500ms; the agent stopped waiting for it (in process, its thread cannot be stopped and is abandoned)"
        );
    }
    // The plugin still answers the next event (on another thread).
    let outcome = stalled.emit(&tool_call("")).await.unwrap();
    assert!(!outcome.block);
}

#[test]
fn the_users_settings_file_chooses_in_process_loading_and_deadlines_per_plugin() {
    use agent_hooks::{discover_and_load_hooks_with, DiscoveryOptions, Isolation};
    let project = temp_dir();
    let config = temp_dir();
    let library = s(&plugin("hostile"));
    let discover = || {
        let mut options = DiscoveryOptions::new(project.path());
        options.builtin_providers = false;
        options.config_dir = Some(config.path().to_path_buf());
        discover_and_load_hooks_with(std::slice::from_ref(&library), options)
    };
    let found = discover();
    assert_eq!(found.loaded.hooks[0].isolation(), Isolation::Process);

    std::fs::write(
        config.path().join("settings.json"),
        r#"{"plugins": {"libhostile.so": {"isolation": "in_process", "handler_timeout": 0.25}}}"#,
    )
    .unwrap();
    let found = discover();
    assert!(found.warnings.is_empty(), "{:?}", found.warnings);
    let hook = &found.loaded.hooks[0];
    assert_eq!(hook.isolation(), Isolation::InProcess);
    assert_eq!(hook.settings().handler_timeout, Duration::from_millis(250));
    assert_eq!(hook.process_state(), None);

    std::fs::write(
        config.path().join("settings.json"),
        r#"{"plugins": {"libhostile.so": {"isolation": "sideways"}}}"#,
    )
    .unwrap();
    let found = discover();
    assert_eq!(found.loaded.hooks[0].isolation(), Isolation::Process);
    assert_eq!(found.warnings.len(), 1, "{:?}", found.warnings);
    assert!(
        found.warnings[0].starts_with(&format!(
            "{}: unknown variant `sideways`, expected `process` or `in_process`",
            config.path().join("settings.json").display()
        )),
        "{}",
        found.warnings[0]
    );
}

#[test]
fn calls_that_arrive_together_after_a_crash_share_one_new_process() {
    let dir = temp_dir();
    let rig = Arc::new(hostile(dir.path(), |_| {}));
    assert!(rig.runner.emit_blocking(&tool_call("abort")).is_err());
    let pids: Vec<u64> = (0..8)
        .map(|_| {
            let rig = rig.clone();
            std::thread::spawn(move || rig.works())
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(|t| t.join().unwrap())
        .collect();
    assert!(pids.iter().all(|p| *p == pids[0]), "{pids:?}");
    assert_eq!(u64::from(rig.pid()), pids[0]);
}

#[test]
fn a_plugin_host_program_that_is_missing_or_is_not_one_is_a_load_error_that_says_so() {
    let dir = temp_dir();
    let library = s(&plugin("hostile"));
    let with_host = |program: &Path| {
        let mut options = options(|s| s.factory_timeout = Duration::from_millis(500));
        options.plugin_host = Some(program.to_path_buf());
        let loaded = load_hooks_with([library.as_str()], dir.path(), &options);
        assert!(loaded.hooks.is_empty());
        loaded.errors[0].error.to_string()
    };
    let missing = dir.path().join("no-such-program");
    assert_eq!(
        with_host(&missing),
        format!(
            "cannot run the plugin in a process of its own: cannot start {}: No such file or directory (os error 2)",
            missing.display()
        )
    );
    let silent = dir.path().join("silent.sh");
    std::fs::write(&silent, "#!/bin/sh\nsleep 30\n").unwrap();
    agent_hooks_tests::set_mode(&silent, 0o755);
    let exits = Path::new("/bin/true");
    for (program, what) in [
        (
            silent.as_path(),
            "it did not answer within 500ms".to_owned(),
        ),
        (exits, "it exited with status 0".to_owned()),
    ] {
        let message = with_host(program);
        assert!(
            message.starts_with(&format!(
                "cannot run the plugin in a process of its own: {} is not an agent-hooks plugin host of this version ({what}",
                program.display()
            )),
            "{message}"
        );
        assert!(message.ends_with("point AGENT_HOOKS_PLUGIN_HOST or LoadOptions::plugin_host at the agent-hooks command of the agent's version"), "{message}");
    }
}

#[test]
fn a_program_a_plugin_process_runs_with_exec_ends_when_that_process_is_killed() {
    let dir = temp_dir();
    let rig = hostile(dir.path(), |s| s.handler_timeout = Duration::from_secs(1));
    let error = rig
        .runner
        .emit_blocking(&tool_call("exec_sleep"))
        .unwrap_err();
    assert_eq!(error.kind, HookErrorKind::TimedOut(Duration::from_secs(1)));
    let pid = std::fs::read_to_string(dir.path().join("exec-pid")).unwrap();
    assert_eq!(survivors([pid.as_str()]), Vec::<String>::new());
    rig.works();
}

#[test]
fn a_plugin_process_may_run_at_most_max_execs_programs_at_once() {
    let dir = temp_dir();
    let rig = hostile(dir.path(), |_| {});
    let outcome = rig.runner.emit_blocking(&tool_call("exec_flood")).unwrap();
    let refused = outcome.input.expect("the plugin answered")["refused"].as_u64();
    assert_eq!(
        refused,
        Some((16 - agent_hooks::isolation::MAX_EXECS) as u64),
        "16 programs asked for at once"
    );
}

/// A plugin host of a version before `raw_payload` (its hello says nothing of it) gets each
/// call's payload in the frame's JSON, as a string, and answers it as before; the agent's own
/// plugin host, which says it, gets the payload after the JSON (`protocol::frames`).
#[test]
fn a_plugin_host_that_does_not_read_raw_payloads_gets_them_in_the_json() {
    let dir = temp_dir();
    let record = dir.path().join("calls.jsonl");
    let host = dir.path().join("older-host.py");
    std::fs::write(
        &host,
        format!(
            r#"#!/usr/bin/env python3
import json, struct, sys
inp, out = sys.stdin.buffer, sys.stdout.buffer
def send(message):
    body = json.dumps(message).encode()
    out.write(struct.pack("<I", len(body)) + body)
    out.flush()
send({{"type": "hello", "protocol": 1, "interface_version": "1.1.0"}})
while True:
    head = inp.read(4)
    if len(head) < 4:
        sys.exit(0)
    message = json.loads(inp.read(struct.unpack("<I", head)[0]))
    if message["type"] == "load":
        send({{"type": "loaded", "name": "older", "version": "1.0.0", "handlers": ["tool_call"]}})
    elif message["type"] == "call":
        with open({record:?}, "a") as calls:
            calls.write(json.dumps(message) + "\n")
        send({{"type": "done", "id": message["id"], "result": {{"status": "ok", "output": None}}}})
    elif message["type"] == "goodbye":
        sys.exit(0)
"#
        ),
    )
    .unwrap();
    agent_hooks_tests::set_mode(&host, 0o755);
    let mut options = options(|_| {});
    options.plugin_host = Some(host);
    let loaded = load_hooks_with([s(&plugin("noop-1")).as_str()], dir.path(), &options);
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    let runner = HookRunner::new(loaded.hooks, dir.path());
    let call = ToolCallEvent::new("exec", "call-1", json!({"command": "ls \"a b\"\n"}));
    for _ in 0..2 {
        let outcome = runner.emit_blocking(&call).expect("the older host answers");
        assert!(!outcome.block);
    }
    let calls = std::fs::read_to_string(&record).unwrap();
    let calls: Vec<serde_json::Value> = calls
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(calls.len(), 2, "{calls:?}");
    for got in &calls {
        assert!(got.get("payload_bytes").is_none(), "{got}");
        let payload: serde_json::Value =
            serde_json::from_str(got["payload"].as_str().expect("the payload, a string")).unwrap();
        assert_eq!(payload["input"]["command"], "ls \"a b\"\n");
        assert_eq!(payload["tool_name"], "exec");
    }
}
