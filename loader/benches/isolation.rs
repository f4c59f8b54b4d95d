//! Plugins in processes of their own, against the same plugin in process:
//!
//! - a `tool_call` emit through one plugin with one handler: in process, isolated (the round
//!   trip over the pipe), and a typed closure as the floor;
//! - start-up: one plugin, and 50 plugins (fresh copies of one library each time, so the
//!   dynamic loader really loads them), in process and isolated (spawn, load, factory;
//!   plugin processes start in parallel).

mod common;

use std::{hint::black_box, path::Path, time::Duration};

use agent_hooks::{abi::prelude::*, load_hooks_with, HookRunner, LoadOptions};
use criterion::{BatchSize, BenchmarkId, Criterion};

fn main() {
    let mut c = common::criterion();
    bench(&mut c);
    c.final_summary();
    report();
}

fn options(isolated: bool) -> LoadOptions {
    if isolated {
        agent_hooks_tests::isolated()
    } else {
        LoadOptions::in_process()
    }
}

fn runner(library: &Path, cwd: &Path, isolated: bool) -> HookRunner {
    let loaded = load_hooks_with([common::s(library)], cwd, &options(isolated));
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    HookRunner::new(loaded.hooks, cwd)
}

/// `count` fresh copies of `library` in a new folder.
fn copies(library: &Path, count: usize) -> (tempfile::TempDir, Vec<String>) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let paths = (0..count)
        .map(|i| {
            common::s(&common::copy_library(
                library,
                dir.path(),
                &format!("libnoop{i}.so"),
            ))
        })
        .collect();
    (dir, paths)
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let library = common::plugin("noop-1");
    let event = common::tool_call_event();

    let mut group = c.benchmark_group("isolation_dispatch");
    group
        .sample_size(30)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    let closure = |_: &ToolCallEvent| -> HandlerResult<Option<ToolCallResult>> { Ok(None) };
    group.bench_function("closure", |b| {
        b.iter(|| black_box(closure(black_box(&event))))
    });
    for (name, isolated) in [("in_process", false), ("isolated", true)] {
        let runner = runner(&library, dir.path(), isolated);
        group.bench_function(name, |b| {
            b.iter(|| {
                runner
                    .emit_blocking(black_box(&event))
                    .expect("no handler fails")
            })
        });
    }
    group.finish();

    let mut group = c.benchmark_group("isolation_start");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_secs(5));
    for count in [1usize, 50] {
        for (name, isolated) in [("in_process", false), ("isolated", true)] {
            let options = options(isolated);
            group.bench_function(BenchmarkId::new(name, count), |b| {
                b.iter_batched(
                    || copies(&library, count),
                    |(folder, paths)| {
                        let loaded = load_hooks_with(&paths, folder.path(), &options);
                        assert_eq!(loaded.hooks.len(), count, "{:?}", loaded.errors);
                        (folder, loaded)
                    },
                    BatchSize::PerIteration,
                )
            });
        }
    }
    group.finish();
}

fn report() {
    common::heading("isolation: one tool_call handler, emit_blocking; start-up");
    let closure = common::line("typed closure", "isolation_dispatch/closure");
    let in_process = common::line("in process", "isolation_dispatch/in_process");
    let isolated = common::line(
        "isolated (round trip over the pipe)",
        "isolation_dispatch/isolated",
    );
    if let (Some(_), Some(in_process), Some(isolated)) = (closure, in_process, isolated) {
        common::verdict(
            "isolated round trip",
            common::Ns(isolated.median),
            isolated.median <= 50_000.0,
            "<= 50 µs",
        );
        println!(
            "{:<48} {:.0}x in process",
            "isolated vs in process",
            isolated.median / in_process.median
        );
    }
    for count in [1, 50] {
        let in_process = common::line(
            &format!("start {count}: in process"),
            &format!("isolation_start/in_process/{count}"),
        );
        let isolated = common::line(
            &format!("start {count}: isolated"),
            &format!("isolation_start/isolated/{count}"),
        );
        if let (Some(in_process), Some(isolated)) = (in_process, isolated) {
            let ratio = isolated.median / in_process.median;
            common::verdict(
                &format!("start {count}: isolated / in process"),
                format!("{ratio:.2}x"),
                count == 1 || ratio <= 2.0,
                if count == 1 { "(measured)" } else { "<= 2x" },
            );
        }
    }
}
