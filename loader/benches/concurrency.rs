//! Concurrency: 1, 2, 4 and 8 tokio tasks on a multi-threaded runtime with 2 workers, each
//! emitting `tool_call` through 3 native plugins (three copies of `noop-1`, so three
//! libraries) at the same time. Throughput in emits per second: with no lock that
//! serialises emits, 2 emitters do about twice the work of 1 on this 2-core machine, and
//! more emitters than cores do no better and no worse.
//!
//! Four ways to emit, to tell the runner's cost from the scheduler's:
//!
//! - `emit`: the async path a host uses, with an `.await` between two emits as an agent has
//!   (the tool runs in between); native handlers run in `block_in_place`.
//! - `emit_blocking`: the same tasks, the same awaits, the dispatch without `block_in_place`.
//! - `emit_back_to_back`: `emit` with no await in between (the task never yields).
//! - `threads`: plain OS threads calling `emit_blocking`, no async runtime at all: what the
//!   runner itself allows.

mod common;

use std::{
    hint::black_box,
    sync::Arc,
    time::{Duration, Instant},
};

use agent_hooks::HookRunner;
use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput};
use tokio::runtime::Runtime;

/// The numbers of tasks (or threads) measured.
const EMITTERS: [usize; 4] = [1, 2, 4, 8];
/// Emits per task in one iteration.
const EMITS: usize = 1_000;
/// Worker threads of the runtime (the machine's cores).
const WORKERS: usize = 2;

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(WORKERS)
        .build()
        .expect("a multi-threaded runtime");
    let dir = tempfile::tempdir().expect("a temporary folder");
    let library = common::plugin("noop-1");
    let paths: Vec<String> = (0..3)
        .map(|i| {
            common::s(&common::copy_library(
                &library,
                dir.path(),
                &format!("libnoop_{i}.so"),
            ))
        })
        .collect();
    let loaded = agent_hooks::load_hooks_in_process(&paths, dir.path());
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    assert_eq!(loaded.hooks.len(), 3, "three distinct libraries");
    let runner = Arc::new(HookRunner::new(loaded.hooks, dir.path()));

    let mut c = common::criterion();
    bench(&mut c, &rt, &runner);
    c.final_summary();
    report();
}

/// How the emitters emit (see the module's docs).
#[derive(Clone, Copy)]
enum Mode {
    Emit,
    EmitBlocking,
    EmitBackToBack,
    Threads,
}

const MODES: [(&str, Mode); 4] = [
    ("emit", Mode::Emit),
    ("emit_blocking", Mode::EmitBlocking),
    ("emit_back_to_back", Mode::EmitBackToBack),
    ("threads", Mode::Threads),
];

/// Runs `emitters` tasks (or threads) that each emit `EMITS` times, at once, and returns
/// how long they all took.
fn run(rt: &Runtime, runner: &Arc<HookRunner>, emitters: usize, mode: Mode) -> Duration {
    let event = common::tool_call_event();
    let emit_blocking = || {
        let outcome = runner.emit_blocking(black_box(&event));
        assert!(!outcome.expect("no handler fails").block);
    };
    if let Mode::Threads = mode {
        let start = Instant::now();
        std::thread::scope(|scope| {
            for _ in 0..emitters {
                scope.spawn(|| (0..EMITS).for_each(|_| emit_blocking()));
            }
        });
        return start.elapsed();
    }
    rt.block_on(async {
        let start = Instant::now();
        let handles: Vec<_> = (0..emitters)
            .map(|_| {
                let runner = runner.clone();
                let event = event.clone();
                tokio::spawn(async move {
                    for _ in 0..EMITS {
                        let outcome = match mode {
                            Mode::EmitBlocking => runner.emit_blocking(black_box(&event)),
                            _ => runner.emit(black_box(&event)).await,
                        };
                        assert!(!outcome.expect("no handler fails").block);
                        if !matches!(mode, Mode::EmitBackToBack) {
                            // Where the agent would await its tool.
                            tokio::task::yield_now().await;
                        }
                    }
                })
            })
            .collect();
        for handle in handles {
            handle.await.expect("the task ends");
        }
        start.elapsed()
    })
}

fn bench(c: &mut Criterion, rt: &Runtime, runner: &Arc<HookRunner>) {
    let mut group = c.benchmark_group("concurrency");
    // An iteration takes 2 to 100 ms: few, equal-sized samples.
    group
        .sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    for (name, mode) in MODES {
        for emitters in EMITTERS {
            group.throughput(Throughput::Elements((emitters * EMITS) as u64));
            group.bench_function(BenchmarkId::new(name, emitters), |b| {
                b.iter_custom(|iters| (0..iters).map(|_| run(rt, runner, emitters, mode)).sum())
            });
        }
    }
    group.finish();
}

fn report() {
    common::heading(&format!(
        "concurrency: tool_call through 3 native plugins, {WORKERS} workers, {EMITS} emits per emitter"
    ));
    for (name, _) in MODES {
        let mut single = None;
        for emitters in EMITTERS {
            let id = format!("concurrency/{name}/{emitters}");
            let Some(estimate) = common::estimate(&id) else {
                println!("{name}, {emitters}: not measured in this run");
                continue;
            };
            let emits = (emitters * EMITS) as f64;
            let per_second = emits / (estimate.median / 1e9);
            // The spread as throughput: the confidence interval of the time, inverted.
            let (low, high) = (emits / (estimate.high / 1e9), emits / (estimate.low / 1e9));
            let single = *single.get_or_insert(per_second);
            println!(
                "{:<48} {:>9.0} emits/s (95% CI {:.0} .. {:.0}), {:.2}x one emitter, {} per emit",
                format!("{name}, {emitters} emitter(s)"),
                per_second,
                low,
                high,
                per_second / single,
                common::Ns(1e9 / per_second),
            );
        }
    }
    // What `block_in_place` adds to one emit when the task awaits between emits.
    let one = |name: &str| common::estimate(&format!("concurrency/{name}/1"));
    if let (Some(emit), Some(blocking)) = (one("emit"), one("emit_blocking")) {
        println!(
            "{:<48} {} per emit",
            "emit - emit_blocking, 1 task (block_in_place)",
            common::Ns((emit.median - blocking.median) / EMITS as f64),
        );
    }
}
