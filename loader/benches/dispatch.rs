//! Native dispatch: a `tool_call` event (about 200 bytes of input) emitted with
//! `emit_blocking` through 1 and through 10 handlers that return nothing, in a plugin
//! library, against the same handlers as an in-process hook, and against the absolute
//! floor: a typed Rust closure called directly, with no serialisation at all.
//!
//! Native and in-process handlers go through the same dispatch (the event is serialised
//! once per emit, each handler parses it), so their difference is the price of the library
//! boundary itself; the closure shows what serialisation and dispatch cost together.

mod common;

use std::{hint::black_box, time::Duration};

use agent_hooks::{abi::prelude::*, HookRunner};
use criterion::{BenchmarkId, Criterion};

// The plugins' handlers, registered in process with the same code.
#[path = "../../tests/fixtures/noop-handlers/src/handlers.rs"]
mod handlers;

/// The handler counts measured.
const COUNTS: [usize; 2] = [1, 10];

/// A typed handler, as the host would call it with no boundary in between.
type Closure = Box<dyn Fn(&ToolCallEvent) -> HandlerResult<Option<ToolCallResult>>>;

fn main() {
    let mut c = common::criterion();
    bench(&mut c);
    c.final_summary();
    report();
}

/// A runner over the plugin that registers `count` `tool_call` handlers, loaded in process;
/// `deadline`: each call on a thread of its own with a deadline (the default), otherwise on
/// the emitting thread.
fn native_runner(count: usize, cwd: &std::path::Path, deadline: bool) -> HookRunner {
    let package = match count {
        1 => "noop-1",
        10 => "noop-handlers",
        _ => unreachable!("no plugin registers {count} tool_call handlers"),
    };
    let mut options = agent_hooks::LoadOptions::in_process();
    options.defaults.in_process_deadline = deadline;
    let loaded = agent_hooks::load_hooks_with([common::s(&common::plugin(package))], cwd, &options);
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    let runner = HookRunner::new(loaded.hooks, cwd);
    assert_eq!(runner.hooks()[0].handler_count(EventKind::ToolCall), count);
    runner
}

/// A runner over one in-process hook with `count` no-op `tool_call` handlers.
fn in_process_runner(count: usize, cwd: &std::path::Path) -> HookRunner {
    let mut runner = HookRunner::new(Vec::new(), cwd);
    runner
        .add_in_process("noop", |api| {
            handlers::register(api, count, 0);
            Ok(())
        })
        .expect("the in-process hook registers");
    runner
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let event = common::tool_call_event();

    let mut group = c.benchmark_group("dispatch");
    group
        .sample_size(30)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    for count in COUNTS {
        let closures: Vec<Closure> = (0..count)
            .map(|_| Box::new(|_: &ToolCallEvent| Ok(None)) as Closure)
            .collect();
        group.bench_with_input(BenchmarkId::new("closure", count), &event, |b, event| {
            b.iter(|| {
                for closure in &closures {
                    let _ = black_box(closure(black_box(event)));
                }
            })
        });

        let runner = in_process_runner(count, dir.path());
        group.bench_with_input(BenchmarkId::new("in_process", count), &event, |b, event| {
            b.iter(|| {
                runner
                    .emit_blocking(black_box(event))
                    .expect("no handler fails")
            })
        });

        for (name, deadline) in [("native", false), ("native_deadline", true)] {
            let runner = native_runner(count, dir.path(), deadline);
            group.bench_with_input(BenchmarkId::new(name, count), &event, |b, event| {
                b.iter(|| {
                    runner
                        .emit_blocking(black_box(event))
                        .expect("no handler fails")
                })
            });
        }
    }
    group.finish();
}

fn report() {
    let event = common::tool_call_event();
    let input = serde_json::to_string(&event.input)
        .expect("serialises")
        .len();
    let whole = serde_json::to_string(&event).expect("serialises").len();
    common::heading(&format!(
        "dispatch: tool_call ({input}-byte input, {whole}-byte event), emit_blocking"
    ));
    let mut per_count = Vec::new();
    for count in COUNTS {
        let closure = common::line(
            &format!("{count} handler(s): typed closure"),
            &format!("dispatch/closure/{count}"),
        );
        let in_process = common::line(
            &format!("{count} handler(s): in-process hook"),
            &format!("dispatch/in_process/{count}"),
        );
        let native = common::line(
            &format!("{count} handler(s): native plugin, inline"),
            &format!("dispatch/native/{count}"),
        );
        common::line(
            &format!("{count} handler(s): native plugin, with deadline"),
            &format!("dispatch/native_deadline/{count}"),
        );
        per_count.push((count, closure, in_process, native));
    }
    for (count, closure, in_process, native) in &per_count {
        let (Some(closure), Some(in_process), Some(native)) = (closure, in_process, native) else {
            continue;
        };
        let n = *count as f64;
        let extra = (native.median - in_process.median) / n;
        common::verdict(
            &format!("{count}: extra per native handler vs in-process"),
            common::Ns(extra),
            extra <= 1000.0,
            "<= 1 µs",
        );
        println!(
            "{:<48} native {:.2}x in-process; native {:.0}x closure ({} per handler over it)",
            format!("{count}: ratios"),
            native.median / in_process.median,
            native.median / closure.median,
            common::Ns((native.median - closure.median) / n),
        );
    }
    // The marginal cost of one more handler, from the slope between 1 and 10 handlers.
    if let [(_, _, Some(in1), Some(n1)), (_, _, Some(in10), Some(n10))] = per_count.as_slice() {
        println!(
            "{:<48} native {} / in-process {}",
            "marginal cost per handler (1 -> 10)",
            common::Ns((n10.median - n1.median) / 9.0),
            common::Ns((in10.median - in1.median) / 9.0),
        );
    }
}
