//! Async work in a handler: what `block_on` on a runtime the plugin owns costs per call (the
//! pattern the interface crate's docs describe), against a plain call, and against the
//! patterns it replaces (a runtime built per call, a hop to a multi-threaded runtime's
//! worker).

mod common;

use std::{hint::black_box, time::Duration};

use criterion::Criterion;
use tokio::runtime::{Builder, Runtime};

fn main() {
    let mut c = common::criterion();
    bench(&mut c);
    c.final_summary();
    report();
}

/// What a handler computes: a small value, as a policy lookup would return.
fn work() -> Option<u64> {
    black_box(Some(42))
}

fn current_thread() -> Runtime {
    Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("async_handler");
    group
        .sample_size(50)
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_secs(1));
    group.bench_function("plain_call", |b| b.iter(work));
    let runtime = current_thread();
    group.bench_function("block_on_ready", |b| {
        b.iter(|| runtime.block_on(async { work() }))
    });
    group.bench_function("block_on_one_yield", |b| {
        b.iter(|| {
            runtime.block_on(async {
                tokio::task::yield_now().await;
                work()
            })
        })
    });
    let workers = Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime");
    group.bench_function("spawn_on_worker", |b| {
        b.iter(|| {
            let task = workers.spawn(async { work() });
            runtime.block_on(task).expect("the task ends")
        })
    });
    group.bench_function("runtime_per_call", |b| {
        b.iter(|| current_thread().block_on(async { work() }))
    });
    group.finish();
}

fn report() {
    common::heading("async work in a handler");
    let plain = common::line("plain call", "async_handler/plain_call");
    let ready = common::line("block_on, a ready future", "async_handler/block_on_ready");
    common::line(
        "block_on, a future that yields once",
        "async_handler/block_on_one_yield",
    );
    common::line(
        "spawn on a worker thread and wait",
        "async_handler/spawn_on_worker",
    );
    common::line("a runtime built per call", "async_handler/runtime_per_call");
    if let (Some(plain), Some(ready)) = (plain, ready) {
        println!(
            "{:<48} {}",
            "block_on's own cost per call",
            common::Ns(ready.median - plain.median)
        );
    }
}
