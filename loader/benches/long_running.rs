//! Long-running hooks against one-shot hooks: the same Python guard
//! (`clients/python/guard.py`), configured once as a one-shot `PreToolUse` hook (a python3
//! start per event) and once with `"persistent": true` (one JSON line each way per event,
//! plus the guard's status-line request), emitted through the runner on a 2-worker runtime
//! as the CLI does. Needs python3.

mod common;

use std::{path::Path, time::Duration};

use agent_hooks::{abi::prelude::*, HookRunner};
use criterion::Criterion;

fn main() {
    let mut c = common::criterion()
        .sample_size(30)
        .measurement_time(Duration::from_secs(4));
    bench(&mut c);
    c.final_summary();
    report();
}

fn guard_runner(cwd: &Path, persistent: bool) -> HookRunner {
    let guard = Path::new(env!("CARGO_MANIFEST_DIR")).join("../clients/python/guard.py");
    let command = format!(
        "python3 {}",
        agent_hooks::command_hook::shell_quote(&guard.to_string_lossy())
    );
    let hooks = json!({"PreToolUse": [{"matcher": "exec", "hooks": [
        {"type": "command", "command": command, "persistent": persistent}
    ]}]});
    common::command_runner(&hooks.to_string(), cwd)
}

fn bench(c: &mut Criterion) {
    let runtime = common::two_worker_runtime();
    let dir = tempfile::tempdir().expect("a temporary folder");
    let event = ToolCallEvent::new("exec", "call-1", json!({"command": "ls -la"}));
    let mut group = c.benchmark_group("long_running");
    for (name, persistent) in [
        ("python_guard_one_shot", false),
        ("python_guard_long_running", true),
    ] {
        let runner = guard_runner(dir.path(), persistent);
        // The first event starts the long-running guard; it is not what is measured.
        let first = runtime.block_on(runner.emit(&event)).expect("no error");
        assert!(!first.block, "the guard lets `ls -la` run");
        group.bench_function(name, |b| {
            b.iter(|| runtime.block_on(runner.emit(&event)).expect("no error"));
        });
    }
    group.finish();
}

fn report() {
    common::heading("the Python guard: one-shot vs long-running, per PreToolUse event");
    let one_shot = common::line(
        "one-shot (python3 starts per event)",
        "long_running/python_guard_one_shot",
    );
    let long = common::line(
        "long-running (\"persistent\": true)",
        "long_running/python_guard_long_running",
    );
    if let Some(long) = &long {
        common::verdict(
            "long-running median",
            common::Ns(long.median),
            long.median <= 200e3,
            "<= 0.2 ms",
        );
    }
    if let (Some(one_shot), Some(long)) = (one_shot, long) {
        let ratio = one_shot.median / long.median;
        common::verdict(
            "one-shot / long-running",
            format!("{ratio:.0}x"),
            ratio >= 100.0,
            ">= 100x",
        );
    }
}
