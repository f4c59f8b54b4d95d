//! Command hooks as real processes: every failure other runners shipped (03-design-notes),
//! concurrency, deterministic combination, de-duplication, the stop-loop bound, legacy
//! script folders, and how they meet native hooks in one emit.

use std::{
    path::PathBuf,
    time::{Duration, Instant},
};

use agent_hooks::{
    abi::prelude::*,
    command_hook::{CommandEvent, CommandHooks, Exit, OUTPUT_CAP},
    load_hooks_in_process, HookErrorKind, HookRunner, Termination,
};
use agent_hooks_tests::{
    alone_in_process,
    commands::{CommandRig, Project},
    pid_alive, plugin, s,
};

fn hooks_file(
    project: &Project,
    name: &str,
    event: &str,
    matcher: &str,
    commands: &[&str],
) -> PathBuf {
    let hooks: Vec<Value> = commands
        .iter()
        .map(|c| json!({"type": "command", "command": c, "timeout": 5}))
        .collect();
    let file = json!({ event: [{ "matcher": matcher, "hooks": hooks }] });
    project.write(name, &file.to_string())
}

fn exec(command: &str) -> ToolCallEvent {
    ToolCallEvent::new("exec", "call-1", json!({ "command": command }))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_grandchild_holding_stdout_does_not_stall_the_agent() {
    let project = Project::new("p");
    let file = hooks_file(
        &project,
        "hooks.json",
        "PreToolUse",
        "",
        &["sleep 30 & echo '{\"decision\": \"block\", \"reason\": \"held\"}'"],
    );
    let rig = CommandRig::new(&project.root, &[file]);
    let started = Instant::now();
    let outcome = rig.runner.emit(&exec("ls")).await.unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "took {:?}",
        started.elapsed()
    );
    assert!(outcome.block);
    assert_eq!(outcome.reason.as_deref(), Some("held"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hook_that_ignores_a_large_payload_is_not_an_error() {
    let project = Project::new("p");
    let file = hooks_file(
        &project,
        "hooks.json",
        "PreToolUse",
        "",
        &["exit 0", "head -c 10 >/dev/null"],
    );
    let rig = CommandRig::new(&project.root, &[file]);
    let big = "x".repeat(1024 * 1024);
    let started = Instant::now();
    let outcome = rig.runner.emit(&exec(&big)).await.unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "took {:?}",
        started.elapsed()
    );
    assert!(!outcome.block);
    assert!(
        rig.errors.lock().unwrap().is_empty(),
        "{:?}",
        rig.errors.lock().unwrap()
    );
    let reports = rig.reports.lock().unwrap();
    assert_eq!(
        reports.iter().map(|r| r.exit.clone()).collect::<Vec<_>>(),
        [Exit::Code(0), Exit::Code(0)]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timeout_kills_the_whole_group_even_one_that_ignores_sigterm() {
    let project = Project::new("p");
    let pids = project.root.join("pids");
    let command = format!(
        "trap '' TERM; sleep 1000 & echo $! >> '{p}'; (trap '' TERM; sleep 1000) & echo $! >> '{p}'; echo $$ >> '{p}'; wait",
        p = pids.display()
    );
    let file = project.write(
        "hooks.json",
        &json!({"PreToolUse": [{"hooks": [{"type": "command", "command": command, "timeout": 0.5}]}]})
            .to_string(),
    );
    let rig = CommandRig::new(&project.root, &[file]);
    let started = Instant::now();
    let outcome = rig.runner.emit(&exec("ls")).await.unwrap();
    let took = started.elapsed();
    assert!(
        took >= Duration::from_millis(500) && took < Duration::from_secs(3),
        "took {took:?}"
    );
    assert!(
        !outcome.block,
        "a timeout is a reported failure, not a block"
    );
    let written = std::fs::read_to_string(&pids).unwrap();
    let pids: Vec<&str> = written.lines().collect();
    assert_eq!(pids.len(), 3);
    std::thread::sleep(Duration::from_millis(100));
    for pid in pids {
        assert!(
            !pid_alive(pid),
            "process {pid} of the hook survived the timeout"
        );
    }
    assert_eq!(rig.reports.lock().unwrap()[0].exit, Exit::TimedOut);
    let errors = rig.error_messages();
    assert_eq!(errors.len(), 1);
    assert!(
        errors[0].ends_with("timed out; its process group was killed"),
        "{errors:?}"
    );
    assert_eq!(
        rig.error_kinds(),
        [HookErrorKind::TimedOut(Duration::from_millis(500))]
    );
}

/// A project whose UserPromptSubmit hook prints 100 MiB.
fn printing_100_mib() -> (Project, CommandRig) {
    let project = Project::new("p");
    let file = hooks_file(
        &project,
        "hooks.json",
        "UserPromptSubmit",
        "",
        &["head -c 104857600 /dev/zero | tr '\\0' 'a'"],
    );
    let rig = CommandRig::new(&project.root, &[file]);
    (project, rig)
}

/// What [`printing_100_mib`]'s emit gave: its output cut at the cap, soon, and reported.
fn cut_at_the_cap(rig: &CommandRig, context: &[String], started: Instant) {
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "took {:?}",
        started.elapsed()
    );
    assert_eq!(context.len(), 1);
    assert_eq!(context[0].len(), OUTPUT_CAP);
    assert!(rig.reports.lock().unwrap()[0].stdout_truncated);
    assert_eq!(
        rig.error_messages(),
        ["`head -c 104857600 /dev/zero | tr '\\0' 'a'` its stdout was longer than 1 MiB; the rest was dropped"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hook_printing_100_mib_is_cut_at_the_cap_and_reported() {
    let (_project, rig) = printing_100_mib();
    let started = Instant::now();
    let outcome = rig
        .runner
        .emit(&BeforeAgentStartEvent::default().prompt("hi").images(vec![]))
        .await
        .unwrap();
    cut_at_the_cap(&rig, &outcome.context, started);
}

/// The same under `emit_blocking`, which waits on the calling thread's own runtime (here a
/// thread with no runtime): the output is cut at the same cap, the hook is not blocked by a
/// full pipe, and the cut is reported.
#[test]
fn a_hook_printing_100_mib_under_emit_blocking_is_cut_at_the_cap_and_reported() {
    let (_project, rig) = printing_100_mib();
    let started = Instant::now();
    let outcome = rig
        .runner
        .emit_blocking(&BeforeAgentStartEvent::default().prompt("hi").images(vec![]))
        .unwrap();
    cut_at_the_cap(&rig, &outcome.context, started);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exit_127_is_a_reported_error_not_a_silent_pass() {
    let project = Project::new("p");
    let file = hooks_file(
        &project,
        "hooks.json",
        "PreToolUse",
        "exec",
        &["./scripts/missing-guard.sh"],
    );
    let rig = CommandRig::new(&project.root, std::slice::from_ref(&file));
    let outcome = rig.runner.emit(&exec("rm -rf /")).await.unwrap();
    assert!(
        !outcome.block,
        "non-blocking, as docs/command-hooks.md says"
    );
    let errors = rig.errors.lock().unwrap().clone();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].hook_path, s(&file));
    assert_eq!(errors[0].event, "PreToolUse");
    assert!(
        errors[0]
            .message
            .starts_with("`./scripts/missing-guard.sh` command not found (exit code 127): "),
        "{}",
        errors[0].message
    );
    assert!(errors[0]
        .message
        .ends_with("; check the command and the script's path"));
    assert_eq!(errors[0].kind, HookErrorKind::Failed);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_json_is_reported_and_counts_as_no_decision() {
    let project = Project::new("p");
    let file = hooks_file(
        &project,
        "hooks.json",
        "PreToolUse",
        "",
        &["echo '{\"decision\": \"block\"'"],
    );
    let rig = CommandRig::new(&project.root, &[file]);
    let outcome = rig.runner.emit(&exec("ls")).await.unwrap();
    assert!(!outcome.block);
    let errors = rig.error_messages();
    assert_eq!(errors.len(), 1);
    assert!(errors[0].contains("printed invalid JSON ("), "{errors:?}");
    assert!(errors[0].ends_with("); no decision was taken from it"));
    assert_eq!(rig.error_kinds(), [HookErrorKind::Protocol]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signal_killed_hook_is_a_failure_not_a_success() {
    let project = Project::new("p");
    let file = hooks_file(
        &project,
        "hooks.json",
        "PermissionRequest",
        "",
        &["echo '{\"decision\": \"approve\"}'; kill -9 $$"],
    );
    let rig = CommandRig::new(&project.root, &[file]);
    let outcome = rig
        .runner
        .emit(&PermissionRequestEvent::default())
        .await
        .unwrap();
    assert_eq!(outcome.decision, None, "its output does not count");
    assert_eq!(rig.reports.lock().unwrap()[0].exit, Exit::Signal(9));
    assert_eq!(
        rig.error_messages(),
        ["`echo '{\"decision\": \"approve\"}'; kill -9 $$` was killed by signal 9"]
    );
    assert_eq!(
        rig.error_kinds(),
        [HookErrorKind::Crashed(Termination::Signal(9))]
    );
    let error = rig.errors.lock().unwrap()[0].clone();
    assert_eq!(
        error.to_string(),
        format!(
            "hook {} crashed (SIGKILL) on PermissionRequest: `echo '{{\"decision\": \"approve\"}}'; kill -9 $$` was killed by signal 9",
            error.hook_path
        )
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_project_path_with_spaces_works_in_a_quoted_command() {
    let project = Project::new("my project");
    project.script(
        "scripts/guard.sh",
        "#!/bin/sh\ncat > \"$AGENT_HOOKS_PROJECT_DIR/seen.json\"\necho \"blocked in $(pwd)\" >&2\nexit 2\n",
    );
    let file = hooks_file(
        &project,
        "hooks.json",
        "PreToolUse",
        "exec",
        &["\"$CLAUDE_PROJECT_DIR\"/scripts/guard.sh"],
    );
    let rig = CommandRig::new(&project.root, &[file]);
    let outcome = rig.runner.emit(&exec("ls")).await.unwrap();
    assert!(outcome.block);
    assert_eq!(
        outcome.reason,
        Some(format!("blocked in {}", project.root.display()))
    );
    let seen: Value = serde_json::from_str(&project.read("seen.json")).unwrap();
    assert_eq!(seen["hook_event_name"], "PreToolUse");
    assert_eq!(seen["tool_name"], "exec");
    assert_eq!(seen["tool_input"], json!({"command": "ls"}));
    assert!(seen["session_id"].as_str().unwrap().starts_with("session-"));
    assert!(seen.get("prompt_id").is_none(), "no prompt yet");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eight_matching_hooks_run_at_once() {
    let project = Project::new("p");
    let commands: Vec<String> = (0..8)
        .map(|i| format!("sleep 0.3; echo {i} >/dev/null"))
        .collect();
    let commands: Vec<&str> = commands.iter().map(String::as_str).collect();
    let file = hooks_file(&project, "hooks.json", "PreToolUse", "exec", &commands);
    let rig = CommandRig::new(&project.root, &[file]);
    let started = Instant::now();
    rig.runner.emit(&exec("ls")).await.unwrap();
    let took = started.elapsed();
    assert!(took < Duration::from_millis(800), "8 x 0.3 s took {took:?}");
    assert_eq!(rig.reports.lock().unwrap().len(), 8);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_combine_in_configuration_order_whatever_finishes_first() {
    let project = Project::new("p");
    let slow_input = r#"sleep 0.4; echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"command": "slow"}}}'"#;
    let fast_input = r#"echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"command": "fast"}}}'"#;
    let file = hooks_file(
        &project,
        "hooks.json",
        "PreToolUse",
        "",
        &[slow_input, fast_input],
    );
    let rig = CommandRig::new(&project.root, &[file]);
    let outcome = rig.runner.emit(&exec("ls")).await.unwrap();
    assert_eq!(
        outcome.input,
        Some(json!({"command": "fast"})),
        "the last in configuration order"
    );

    let slow_block = "sleep 0.4; echo first >&2; exit 2";
    let fast_block = "echo second >&2; exit 2";
    let file = hooks_file(
        &project,
        "blocks.json",
        "PreToolUse",
        "",
        &[slow_block, fast_block],
    );
    let rig = CommandRig::new(&project.root, &[file]);
    let outcome = rig.runner.emit(&exec("ls")).await.unwrap();
    assert_eq!(outcome.reason.as_deref(), Some("first\nsecond"));
    let order: Vec<String> = rig
        .reports
        .lock()
        .unwrap()
        .iter()
        .map(|r| r.command.clone())
        .collect();
    assert_eq!(
        order,
        [slow_block, fast_block],
        "reports too come in configuration order"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_command_in_two_files_runs_once() {
    let project = Project::new("p");
    let log = "echo ran >> runs.log";
    let a = hooks_file(&project, "a.json", "PostToolUse", "exec", &[log]);
    let b = hooks_file(&project, "b.json", "PostToolUse", "", &[log]);
    let rig = CommandRig::new(&project.root, &[a, b]);
    rig.runner
        .emit(&ToolResultEvent::default().tool_name("exec"))
        .await
        .unwrap();
    assert_eq!(project.read("runs.log"), "ran\n");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stop_hook_that_always_blocks_is_bounded() {
    let project = Project::new("p");
    let file = hooks_file(
        &project,
        "hooks.json",
        "Stop",
        "",
        &[
            r#"cat >> stops.jsonl; echo >> stops.jsonl; echo '{"decision": "block", "reason": "Please run the test suite before stopping."}'"#,
        ],
    );
    let rig = CommandRig::new(&project.root, &[file]);
    for _ in 0..8 {
        let outcome = rig.runner.emit(&StopEvent::default()).await.unwrap();
        assert!(outcome.block);
        assert_eq!(
            outcome.reasons,
            ["Please run the test suite before stopping."]
        );
    }
    let ninth = rig.runner.emit(&StopEvent::default()).await.unwrap();
    assert!(!ninth.block && ninth.loop_bound_reached);
    let active: Vec<bool> = project
        .read("stops.jsonl")
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["stop_hook_active"]
                .as_bool()
                .unwrap()
        })
        .collect();
    assert_eq!(
        active,
        [false, true, true, true, true, true, true, true, true]
    );
    assert!(rig
        .error_messages()
        .last()
        .unwrap()
        .starts_with("stop hooks kept the agent going 8 times in a row; letting it stop"));
    // After the bound, a new stop starts a new streak.
    assert!(rig.runner.emit(&StopEvent::default()).await.unwrap().block);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn legacy_script_folders_run_with_the_same_protocol() {
    let project = Project::new("p");
    let pre = project.script(
        "hooks/pre/exec.sh",
        "#!/bin/sh\ngrep -q 'rm -rf' && { echo 'no rm -rf' >&2; exit 2; }\nexit 0\n",
    );
    let post = project.script("hooks/post/*.sh", "#!/bin/sh\ncat >> \"$AGENT_HOOKS_PROJECT_DIR/post.log\"\necho >> \"$AGENT_HOOKS_PROJECT_DIR/post.log\"\n");
    let mut hooks = CommandHooks::new();
    hooks
        .add_script(&pre, CommandEvent::PreToolUse)
        .add_script(&post, CommandEvent::PostToolUse);
    let rig = CommandRig::with_hooks(
        &project.root,
        hooks,
        HookRunner::new(Vec::new(), &project.root),
    );

    let outcome = rig.runner.emit(&exec("rm -rf /")).await.unwrap();
    assert_eq!(outcome.reason.as_deref(), Some("no rm -rf"));
    let read = ToolCallEvent::default()
        .tool_name("read")
        .input(json!({"command": "rm -rf /"}));
    assert!(
        !rig.runner.emit(&read).await.unwrap().block,
        "pre/exec.sh is for exec only"
    );
    rig.runner
        .emit(&ToolResultEvent::default().tool_name("read"))
        .await
        .unwrap();
    let logged: Value =
        serde_json::from_str(project.read("post.log").lines().next().unwrap()).unwrap();
    assert_eq!(logged["tool_name"], "read", "post/*.sh is for every tool");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn native_handlers_run_first_and_a_native_block_short_circuits() {
    let project = Project::new("p");
    let file = hooks_file(
        &project,
        "hooks.json",
        "PreToolUse",
        "",
        &["cat > seen.json"],
    );
    let loaded = load_hooks_in_process([s(&plugin("block-dangerous"))], &project.root);
    let mut runner = HookRunner::new(loaded.hooks, &project.root);
    runner
        .add_in_process("rewrite", |api| {
            api.on(|e: &ToolCallEvent, _| {
                let command = e.input["command"].as_str().unwrap_or_default();
                Ok(Some(ToolCallResult::replace_input(
                    json!({"command": format!("{command} --dry-run")}),
                )))
            });
            Ok(())
        })
        .unwrap();
    let mut hooks = CommandHooks::new();
    hooks.load_file(&file);
    let rig = CommandRig::with_hooks(&project.root, hooks, runner);

    let outcome = rig.runner.emit(&exec("make")).await.unwrap();
    assert_eq!(outcome.input, Some(json!({"command": "make --dry-run"})));
    let seen: Value = serde_json::from_str(&project.read("seen.json")).unwrap();
    assert_eq!(
        seen["tool_input"]["command"], "make --dry-run",
        "command hooks see the native rewrite"
    );

    std::fs::remove_file(project.root.join("seen.json")).unwrap();
    let outcome = rig.runner.emit(&exec("rm -rf /")).await.unwrap();
    assert!(outcome.block);
    assert!(
        project.read("seen.json").is_empty(),
        "the command hook did not run"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn continue_false_stops_the_agent_and_system_messages_reach_the_user() {
    let project = Project::new("p");
    let file = hooks_file(
        &project,
        "hooks.json",
        "PostToolUse",
        "",
        &[
            r#"echo '{"continue": false, "stopReason": "Daily budget reached.", "systemMessage": "Budget hook ran."}'"#,
        ],
    );
    let mut hooks = CommandHooks::new();
    hooks.load_file(&file);
    let mut runner = HookRunner::new(Vec::new(), &project.root);
    runner.add_command_hooks(hooks);
    let agent = std::sync::Arc::new(agent_hooks_tests::RecordingAgent::with_ui(true));
    runner.attach(agent.clone());
    runner
        .emit(&ToolResultEvent::default().tool_name("exec"))
        .await
        .unwrap();
    assert_eq!(agent.calls(), ["stop_requested Daily budget reached."]);
    let ui_calls = agent.ui.as_ref().unwrap().calls.lock().unwrap().clone();
    assert_eq!(ui_calls, ["notify info: Budget hook ran."]);
}

/// `emit_blocking` waits for command hooks on the calling thread, with a runtime of that
/// thread's own kept between calls: outside any runtime (twice on one thread), in a
/// multi-threaded runtime's `block_on` and in its task. A hook cut at its timeout is killed
/// and reaped there too where no keeper program runs (the hooks are then the agent's own
/// children), none left a zombie.
#[test]
fn emit_blocking_waits_on_the_calling_thread_and_reaps_a_hook_cut_at_its_timeout() {
    if !alone_in_process(
        module_path!(),
        "emit_blocking_waits_on_the_calling_thread_and_reaps_a_hook_cut_at_its_timeout",
    ) {
        return;
    }
    // No keeper program: this process starts and reaps its hooks itself.
    std::env::set_var("AGENT_HOOKS_PLUGIN_HOST", "/nonexistent/agent-hooks");
    let project = Project::new("p");
    let pids = project.root.join("pids");
    let hang = format!("echo $$ >> '{}'; exec sleep 1000", pids.display());
    let file = project.write(
        "hooks.json",
        &json!({
            "PreToolUse": [{"hooks": [{"type": "command",
                "command": "echo '{\"decision\": \"block\", \"reason\": \"held\"}'"}]}],
            "PostToolUse": [{"hooks": [{"type": "command", "command": hang, "timeout": 0.5}]}],
        })
        .to_string(),
    );
    let rig = CommandRig::new(&project.root, &[file]);
    let blocked = |runner: &HookRunner| {
        let outcome = runner.emit_blocking(&exec("ls")).unwrap();
        assert!(outcome.block);
        assert_eq!(outcome.reason.as_deref(), Some("held"));
    };
    let cut = |runner: &HookRunner| {
        let started = Instant::now();
        runner
            .emit_blocking(&ToolResultEvent::default().tool_name("exec"))
            .unwrap();
        let took = started.elapsed();
        assert!(
            took >= Duration::from_millis(500) && took < Duration::from_secs(3),
            "took {took:?}"
        );
    };
    blocked(&rig.runner);
    cut(&rig.runner);
    blocked(&rig.runner);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    // On the thread that runs the runtime's `block_on`, then on a worker, in a task.
    runtime.block_on(async {
        blocked(&rig.runner);
        cut(&rig.runner);
    });
    let runner = rig.runner.clone();
    runtime
        .block_on(runtime.spawn(async move {
            blocked(&runner);
            cut(&runner);
        }))
        .unwrap();
    let written = std::fs::read_to_string(&pids).unwrap();
    let pids: Vec<&str> = written.lines().collect();
    assert_eq!(pids.len(), 3, "{written}");
    let deadline = Instant::now() + Duration::from_secs(2);
    let left = |pids: &[&str]| -> Vec<String> {
        pids.iter()
            .filter(|pid| std::path::Path::new(&format!("/proc/{pid}")).exists())
            .map(|pid| (*pid).to_owned())
            .collect()
    };
    while !left(&pids).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(
        left(&pids),
        Vec::<String>::new(),
        "a hook cut at its timeout is left unreaped (a zombie of the agent)"
    );
    assert_eq!(
        rig.reports
            .lock()
            .unwrap()
            .iter()
            .map(|r| r.exit.clone())
            .collect::<Vec<_>>(),
        [
            Exit::Code(0),
            Exit::TimedOut,
            Exit::Code(0),
            Exit::Code(0),
            Exit::TimedOut,
            Exit::Code(0),
            Exit::TimedOut
        ]
    );
}

/// An agent runs every matching hook of an event, whatever another decided: after a native
/// block, the hooks of a file in an agent's dialect (a taken-over `.claude/settings.json`)
/// still run (an audit logger sees the call), and of their answers only what adds to the
/// block counts (their reason), never an approval or a rewrite; agent-hooks' own hooks do
/// not run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_native_block_an_agents_files_hooks_still_run_and_cannot_undo_it() {
    let project = Project::new("p");
    let claude = json!({"hooks": {"PreToolUse": [{"matcher": "", "hooks": [
        {"type": "command", "command": "cat >> audit.log; echo >> audit.log"},
        {"type": "command", "command": r#"printf '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"command": "echo rewritten"}}}'"#},
        {"type": "command", "command": "echo 'the second guard says no too' >&2; exit 2"},
    ]}]}});
    let settings = project.write(".claude/settings.json", &claude.to_string());
    let own = hooks_file(
        &project,
        "hooks.json",
        "PreToolUse",
        "",
        &["cat > own.json"],
    );
    let loaded = load_hooks_in_process([s(&plugin("block-dangerous"))], &project.root);
    let runner = HookRunner::new(loaded.hooks, &project.root);
    let mut hooks = CommandHooks::new();
    hooks.load_file(&settings).load_file(&own);
    assert!(hooks.issues().is_empty(), "{:?}", hooks.issues());
    let rig = CommandRig::with_hooks(&project.root, hooks, runner);

    let outcome = rig.runner.emit(&exec("rm -rf /")).await.unwrap();
    assert!(outcome.block);
    assert_eq!(outcome.input, None, "no rewrite after a block");
    assert!(!outcome.approved, "no approval after a block");
    let reason = outcome.reason.clone().unwrap_or_default();
    assert!(reason.contains("Dangerous command blocked"), "{reason}");
    assert!(reason.contains("the second guard says no too"), "{reason}");
    assert!(
        project.read("audit.log").contains("rm -rf /"),
        "the taken-over logger saw the call"
    );
    assert!(
        project.read("own.json").is_empty(),
        "agent-hooks' own hook did not run"
    );
}
