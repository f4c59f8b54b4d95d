//! Context at scale: a `context` event of 100, 1,000 and 10,000 messages of about 2 KB each
//! through 5 native handlers that return nothing, against the floor of what any JSON
//! boundary must do: one serde_json serialisation of the event, and one parse (into
//! `ContextEvent`) per handler.

mod common;

use std::{hint::black_box, time::Duration};

use agent_hooks::{abi::prelude::*, HookRunner};
use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput};

/// The message counts measured.
const SIZES: [usize; 3] = [100, 1_000, 10_000];
/// The `context` handlers of the `noop-handlers` plugin.
const HANDLERS: usize = 5;

fn main() {
    let mut c = common::criterion();
    bench(&mut c);
    c.final_summary();
    report();
}

/// `count` messages of about 2 KB each, of the roles a conversation has, with text that
/// needs JSON escapes (quotes, newlines) as code and logs do.
fn context_event(count: usize) -> ContextEvent {
    let line = "    let value = map.get(\"key\").copied().unwrap_or_default(); // a line of code\n";
    let roles = ["user", "assistant", "toolResult"];
    let messages = (0..count)
        .map(|i| {
            let mut extra = serde_json::Map::new();
            extra.insert("timestamp".into(), json!(1_760_000_000_000u64 + i as u64));
            AgentMessage {
                role: roles[i % roles.len()].into(),
                custom_type: None,
                content: Content::Text(format!("message {i}:\n{}", line.repeat(25))),
                extra,
            }
        })
        .collect();
    ContextEvent::default().messages(messages)
}

/// The floor: serialise once, parse once per handler.
fn floor(event: &ContextEvent) {
    let json = serde_json::to_string(event).expect("serialises");
    for _ in 0..HANDLERS {
        let parsed: ContextEvent = serde_json::from_str(&json).expect("parses");
        black_box(parsed);
    }
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let loaded = agent_hooks::load_hooks_in_process(
        [common::s(&common::plugin("noop-handlers"))],
        dir.path(),
    );
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    let runner = HookRunner::new(loaded.hooks, dir.path());
    assert_eq!(
        runner.hooks()[0].handler_count(EventKind::Context),
        HANDLERS
    );

    let mut group = c.benchmark_group("context");
    for count in SIZES {
        let event = context_event(count);
        let bytes = serde_json::to_string(&event).expect("serialises").len();
        group.throughput(Throughput::Bytes(bytes as u64));
        if count >= 10_000 {
            // ~0.5 s per iteration: ten single-iteration samples.
            group
                .sampling_mode(SamplingMode::Flat)
                .sample_size(10)
                .warm_up_time(Duration::from_millis(500))
                .measurement_time(Duration::from_secs(4));
        } else {
            group
                .sampling_mode(SamplingMode::Auto)
                .sample_size(20)
                .warm_up_time(Duration::from_millis(500))
                .measurement_time(Duration::from_secs(3));
        }
        group.bench_with_input(BenchmarkId::new("native", count), &event, |b, event| {
            b.iter(|| {
                let outcome = runner.emit_blocking(event).expect("no handler fails");
                assert!(outcome.messages.is_none());
            })
        });
        group.bench_with_input(BenchmarkId::new("floor", count), &event, |b, event| {
            b.iter(|| floor(event))
        });
    }
    group.finish();
}

fn report() {
    common::heading(&format!(
        "context: ~2 KB messages through {HANDLERS} native handlers"
    ));
    let mut rows = Vec::new();
    for count in SIZES {
        let bytes = serde_json::to_string(&context_event(count))
            .expect("serialises")
            .len();
        println!("{count} messages: {:.2} MB of JSON", bytes as f64 / 1e6);
        let native = common::line(
            &format!("{count}: native, 5 handlers"),
            &format!("context/native/{count}"),
        );
        let floor = common::line(
            &format!("{count}: floor, 1 serialise + 5 parses"),
            &format!("context/floor/{count}"),
        );
        if let (Some(native), Some(floor)) = (native, floor) {
            let ratio = native.median / floor.median;
            common::verdict(
                &format!("{count}: ratio native / floor"),
                format!("{ratio:.3}"),
                ratio <= 1.3,
                "<= 1.3",
            );
            println!(
                "{:<48} native {} / floor {}",
                format!("{count}: per message"),
                common::Ns(native.median / count as f64),
                common::Ns(floor.median / count as f64),
            );
            rows.push((count, native.median));
        }
    }
    // Linear in size: the cost per message stays the same from one size to the next.
    for pair in rows.windows(2) {
        let ((small, t_small), (large, t_large)) = (pair[0], pair[1]);
        let growth = (t_large / large as f64) / (t_small / small as f64);
        println!(
            "{:<48} {growth:.2} (1.00 = linear)",
            format!("per-message cost, {large} vs {small}")
        );
    }
}
