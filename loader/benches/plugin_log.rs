//! What a plugin's log record costs (interface 1.1, the `log` service): a `tool_call` emit
//! through the `boundary` fixture whose handler logs 4 records (`Host::log`,
//! `HookContext::log`, `log::debug!`, `log::trace!`), against the same emit that logs none,
//! in process and in a plugin process, with a `tracing` subscriber that keeps every level
//! and writes to nowhere. Most records of a run are over the 200-a-second bound, so this is
//! the cost of a record crossing the boundary and meeting the bound: what a flooding plugin
//! costs the agent.

mod common;

use std::{hint::black_box, path::Path, time::Duration};

use agent_hooks::{abi::prelude::*, load_hooks_with, HookRunner, LoadOptions};
use criterion::{BenchmarkId, Criterion};

/// Records the handler logs for the `log` command.
const RECORDS: f64 = 4.0;

fn main() {
    tracing_subscriber::fmt()
        .with_max_level(tracing::level_filters::LevelFilter::TRACE)
        .with_writer(std::io::sink)
        .init();
    let mut c = common::criterion();
    bench(&mut c);
    c.final_summary();
    report();
}

fn runner(library: &Path, cwd: &Path, isolated: bool) -> HookRunner {
    let options = if isolated {
        agent_hooks_tests::isolated()
    } else {
        LoadOptions::in_process()
    };
    let loaded = load_hooks_with([common::s(library)], cwd, &options);
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    HookRunner::new(loaded.hooks, cwd)
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let library = common::plugin("boundary");
    let mut group = c.benchmark_group("plugin_log");
    group
        .sample_size(30)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for (mode, isolated) in [("in_process", false), ("isolated", true)] {
        let runner = runner(&library, dir.path(), isolated);
        for command in ["ls", "log"] {
            let event = ToolCallEvent::new("exec", "call-1", json!({ "command": command }));
            group.bench_function(BenchmarkId::new(mode, command), |b| {
                b.iter(|| runner.emit_blocking(black_box(&event)).expect("answered"))
            });
        }
    }
    group.finish();
}

fn report() {
    common::heading("plugin log: a tool_call handler that logs 4 records, against none");
    for mode in ["in_process", "isolated"] {
        let none = common::line(
            &format!("{mode}: no record"),
            &format!("plugin_log/{mode}/ls"),
        );
        let four = common::line(
            &format!("{mode}: 4 records"),
            &format!("plugin_log/{mode}/log"),
        );
        if let (Some(none), Some(four)) = (none, four) {
            println!(
                "{:<48} {}",
                format!("{mode}: per record"),
                common::Ns((four.median - none.median) / RECORDS)
            );
        }
    }
}
