//! Command hooks against their physical floor: one `PreToolUse` hook running `true`,
//! emitted through the runner, against a bare tokio spawn of `sh -c true` that writes the
//! same payload to stdin and reads stdout and stderr, on both paths a host takes: `block_on`
//! on a 2-worker runtime (the CLI's), and awaited in a spawned task; and eight matching
//! hooks that each sleep 200 ms, whose wall time shows that they run at once.

mod common;

use std::{path::Path, process::Stdio, time::Duration};

use agent_hooks::{command::CommandHooks, HookRunner};
use criterion::Criterion;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fn main() {
    let mut c = common::criterion()
        .sample_size(30)
        .measurement_time(Duration::from_secs(4));
    bench(&mut c);
    c.final_summary();
    report();
}

fn runner(hooks_json: &str, cwd: &Path) -> HookRunner {
    let mut hooks = CommandHooks::new();
    hooks.parse(hooks_json, &cwd.join("hooks.json"));
    assert!(hooks.issues().is_empty(), "{:?}", hooks.issues());
    let mut runner = HookRunner::new(Vec::new(), cwd);
    runner.add_command_hooks(hooks);
    runner
}

/// The floor: what running a hook needs at the least, with the same payload.
async fn bare_spawn(payload: &[u8], cwd: &Path) {
    let mut child = tokio::process::Command::new("sh")
        .args(["-c", "true"])
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("sh starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let _ = stdin.write_all(payload).await;
    drop(stdin);
    let mut out = Vec::new();
    let mut err = Vec::new();
    let mut stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let _ = tokio::join!(stdout.read_to_end(&mut out), stderr.read_to_end(&mut err));
    child.wait().await.expect("sh ends");
}

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let dir = tempfile::tempdir().expect("a temporary folder");
    let event = common::tool_call_event();
    let one = std::sync::Arc::new(runner(
        r#"{"PreToolUse": [{"hooks": [{"type": "command", "command": "true"}]}]}"#,
        dir.path(),
    ));
    // The payload the runner writes, so that the floor writes as much.
    let payload = serde_json::to_vec(&serde_json::json!({
        "session_id": "session-0", "hook_event_name": "PreToolUse", "cwd": dir.path(),
        "tool_name": event.tool_name, "tool_use_id": event.tool_call_id, "tool_input": event.input,
    }))
    .expect("the payload serialises");

    let mut group = c.benchmark_group("command");
    group.bench_function("one_hook_true", |b| {
        b.iter(|| runtime.block_on(one.emit(&event)).expect("no error"));
    });
    group.bench_function("bare_spawn_true", |b| {
        b.iter(|| runtime.block_on(bare_spawn(&payload, dir.path())));
    });
    let (event, cwd) = (std::sync::Arc::new(event), dir.path().to_path_buf());
    group.bench_function("one_hook_true_in_task", |b| {
        b.iter(|| {
            let (one, event) = (one.clone(), event.clone());
            runtime
                .block_on(runtime.spawn(async move { one.emit(&*event).await.is_ok() }))
                .expect("the task ends")
        });
    });
    group.bench_function("bare_spawn_true_in_task", |b| {
        b.iter(|| {
            let (payload, cwd) = (payload.clone(), cwd.clone());
            runtime
                .block_on(runtime.spawn(async move { bare_spawn(&payload, &cwd).await }))
                .expect("the task ends")
        });
    });
    group.finish();

    let eight = runner(
        &serde_json::json!({"PreToolUse": [{"hooks": (0..8)
            .map(|i| serde_json::json!({"type": "command", "command": format!("sleep 0.2 # {i}")}))
            .collect::<Vec<_>>()}]})
        .to_string(),
        dir.path(),
    );
    let mut group = c.benchmark_group("command_parallel");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(5));
    group.bench_function("eight_hooks_sleep_200ms", |b| {
        b.iter(|| runtime.block_on(eight.emit(&*event)).expect("no error"));
    });
    group.finish();
}

fn report() {
    common::heading("command hooks: one `true` hook vs a bare spawn; 8 hooks of 200 ms");
    for (path, suffix) in [
        ("block_on, 2 workers", ""),
        ("awaited in a task", "_in_task"),
    ] {
        let ours = common::line(
            &format!("one PreToolUse hook running `true` ({path})"),
            &format!("command/one_hook_true{suffix}"),
        );
        let floor = common::line(
            &format!("bare tokio spawn of `sh -c true`, same stdin ({path})"),
            &format!("command/bare_spawn_true{suffix}"),
        );
        if let (Some(ours), Some(floor)) = (ours, floor) {
            let ratio = ours.median / floor.median;
            common::verdict(
                &format!("ratio hook / bare spawn ({path})"),
                format!("{ratio:.3}"),
                ratio <= 1.05,
                "<= 1.05",
            );
        }
    }
    if let Some(eight) = common::line(
        "8 matching hooks, each sleep 0.2",
        "command_parallel/eight_hooks_sleep_200ms",
    ) {
        common::verdict(
            "wall time of the 8 hooks",
            common::Ns(eight.median),
            eight.median <= 300e6,
            "<= 300 ms",
        );
    }
}
