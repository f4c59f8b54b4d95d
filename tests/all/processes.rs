//! The process supervisor under a plugin's `exec` and under command hooks: output is capped,
//! time is bounded, nothing is left running, and a cancelled emit kills the hook's group.

use std::time::{Duration, Instant};

use agent_hooks::{abi::prelude::*, exec, EXEC_OUTPUT_CAP};
use agent_hooks_tests::{
    commands::{CommandRig, Project},
    survivors,
};
use serde_json::json;

fn sh(script: &str, options: &ExecOptions) -> ExecOutput {
    let cwd = std::env::temp_dir();
    exec("sh", &["-c", script], options, &cwd).expect("sh runs")
}

fn timeout(ms: u64) -> ExecOptions {
    ExecOptions::default().timeout(Duration::from_millis(ms))
}

#[test]
fn exec_of_a_program_printing_50_mb_keeps_the_cap_and_says_so() {
    let started = Instant::now();
    let output = sh(
        "head -c 52428800 /dev/zero | tr '\\0' 'a'; echo done >&2",
        &ExecOptions::default(),
    );
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(output.stdout.len(), EXEC_OUTPUT_CAP);
    assert!(output.stdout.bytes().all(|b| b == b'a'));
    assert_eq!(output.stderr, "done\n");
    assert_eq!(output.code, Some(0));
    assert!(output.truncated);
    assert!(!output.killed);
}

#[test]
fn exec_of_a_program_that_never_exits_is_killed_with_its_group_at_the_timeout() {
    let started = Instant::now();
    let output = sh(
        "trap '' TERM; sleep 1000 & echo $!; echo $$; wait",
        &timeout(300),
    );
    let took = started.elapsed();
    assert!(
        took >= Duration::from_millis(300) && took < Duration::from_secs(3),
        "took {took:?}"
    );
    assert!(output.killed);
    assert_eq!(output.code, None);
    let pids: Vec<&str> = output.stdout.lines().collect();
    assert_eq!(pids.len(), 2, "{output:?}");
    assert_eq!(survivors(pids), Vec::<String>::new());
}

#[test]
fn exec_returns_when_the_program_ends_and_kills_what_it_left_in_the_background() {
    let started = Instant::now();
    let output = sh("sleep 100 & echo $!", &ExecOptions::default());
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "the background child's open stdout stalled exec for {:?}",
        started.elapsed()
    );
    assert_eq!(output.code, Some(0));
    assert!(!output.killed);
    let pid = output.stdout.trim().to_owned();
    assert!(!pid.is_empty());
    assert_eq!(survivors([pid.as_str()]), Vec::<String>::new());
}

#[test]
fn exec_passes_env_and_reports_a_program_that_cannot_start() {
    let options = ExecOptions::default().env("AGENT_HOOKS_TEST_VALUE", "forty two");
    assert_eq!(
        sh("printf %s \"$AGENT_HOOKS_TEST_VALUE\"", &options).stdout,
        "forty two"
    );
    let error = exec(
        "/no/such/program",
        &[],
        &ExecOptions::default(),
        &std::env::temp_dir(),
    )
    .expect_err("a missing program is an error");
    assert!(
        error
            .to_string()
            .starts_with("cannot run `/no/such/program`: "),
        "{error}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_inside_a_current_thread_runtime_works_too() {
    let output = tokio::task::spawn_blocking(|| {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async { sh("echo inside", &ExecOptions::default()) })
    })
    .await
    .unwrap();
    assert_eq!(output.stdout, "inside\n");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_emit_kills_the_command_hooks_whole_process_group() {
    let project = Project::new("p");
    let pids = project.root.join("pids");
    let command = format!(
        "sleep 1000 & echo $! >> '{p}'; (trap '' TERM; sleep 1000) & echo $! >> '{p}'; echo $$ >> '{p}'; wait",
        p = pids.display()
    );
    let file = project.write(
        "hooks.json",
        &json!({"PreToolUse": [{"hooks": [{"type": "command", "command": command}]}]}).to_string(),
    );
    let rig = CommandRig::new(&project.root, &[file]);
    let event = ToolCallEvent::default()
        .tool_name("exec")
        .input(json!({"command": "ls"}));
    let emit = rig.runner.emit(&event);
    let cancelled = tokio::time::timeout(Duration::from_millis(500), emit).await;
    assert!(
        cancelled.is_err(),
        "the hook sleeps; the emit cannot finish"
    );
    let written = std::fs::read_to_string(&pids).unwrap();
    let pids: Vec<&str> = written.lines().collect();
    assert_eq!(pids.len(), 3, "{written}");
    assert_eq!(survivors(pids), Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn six_hundred_matching_hooks_queue_at_32_at_once_and_every_answer_counts() {
    use nix::sys::resource::{getrlimit, setrlimit, Resource};
    // The limit is the process's: the test runs in a process of its own.
    if !agent_hooks_tests::alone_in_process(
        module_path!(),
        "six_hundred_matching_hooks_queue_at_32_at_once_and_every_answer_counts",
    ) {
        return;
    }
    // As on a machine whose open-files limit is 1024: 600 hooks at once would need more.
    let (soft, hard) = getrlimit(Resource::RLIMIT_NOFILE).unwrap();
    setrlimit(Resource::RLIMIT_NOFILE, soft.min(1024), hard).unwrap();

    let project = Project::new("p");
    let active = project.root.join("active");
    std::fs::create_dir(&active).unwrap();
    let counts = project.root.join("counts");
    let hooks: Vec<serde_json::Value> = (0..600)
        .map(|n| {
            let command = if n == 599 {
                "echo 'the last hook blocks' >&2; exit 2".to_owned()
            } else {
                format!(
                    "touch '{a}/{n}'; ls '{a}' | wc -l >> '{c}'; sleep 0.01; rm '{a}/{n}'",
                    a = active.display(),
                    c = counts.display()
                )
            };
            json!({"type": "command", "command": command})
        })
        .collect();
    let file = project.write(
        "hooks.json",
        &json!({"PreToolUse": [{"hooks": hooks}]}).to_string(),
    );
    let rig = CommandRig::new(&project.root, &[file]);
    let outcome = rig
        .runner
        .emit(
            &ToolCallEvent::default()
                .tool_name("exec")
                .input(json!({"command": "ls"})),
        )
        .await
        .unwrap();
    assert!(outcome.block, "the guard's block is not lost");
    assert_eq!(outcome.reason.as_deref(), Some("the last hook blocks"));
    assert_eq!(rig.reports.lock().unwrap().len(), 600);
    assert_eq!(rig.error_messages(), Vec::<String>::new());
    let most = std::fs::read_to_string(&counts)
        .unwrap()
        .lines()
        .filter_map(|l| l.trim().parse::<usize>().ok())
        .max()
        .unwrap();
    assert!(
        most <= agent_hooks::DEFAULT_MAX_CONCURRENT_COMMAND_HOOKS,
        "{most} hooks ran at once"
    );
}
