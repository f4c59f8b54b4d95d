//! Command hooks against their physical floor: one `PreToolUse` hook running `true`,
//! emitted through the runner, against a bare tokio spawn of `sh -c true` that writes the
//! same payload to stdin and reads stdout and stderr, on both paths a host takes: `block_on`
//! on a 2-worker runtime (the CLI's), and awaited in a spawned task; and eight matching
//! hooks that each sleep 200 ms, whose wall time shows that they run at once.
//!
//! The ratio is also measured interleaved: hook and floor one after the other, round after
//! round, so that both see the same machine. Criterion measures each function for seconds
//! before the next; what else the machine does changes in between, and the ratio of those
//! medians moves by a few hundredths from run to run, as much as the margin measured.

mod common;

use std::{
    path::Path,
    process::Stdio,
    sync::Arc,
    time::{Duration, Instant},
};

use agent_hooks::HookRunner;
use criterion::Criterion;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Rounds of the interleaved measurement, and the rounds before them that warm up.
const ROUNDS: usize = 1500;
const WARM_UP: usize = 200;

fn main() {
    let mut c = common::criterion()
        .sample_size(30)
        .measurement_time(Duration::from_secs(4));
    let setup = Setup::new();
    bench(&mut c, &setup);
    c.final_summary();
    report(&setup);
}

/// The runtime, the folder, the event and its payload, and the runners the benchmarks use.
struct Setup {
    runtime: tokio::runtime::Runtime,
    dir: tempfile::TempDir,
    event: Arc<agent_hooks::abi::events::ToolCallEvent>,
    payload: Arc<[u8]>,
    one: Arc<HookRunner>,
}

impl Setup {
    fn new() -> Self {
        let runtime = common::two_worker_runtime();
        let dir = tempfile::tempdir().expect("a temporary folder");
        let event = common::tool_call_event();
        let one = Arc::new(common::command_runner(
            r#"{"PreToolUse": [{"hooks": [{"type": "command", "command": "true"}]}]}"#,
            dir.path(),
        ));
        // The payload the runner writes, so that the floor writes as much.
        let payload = serde_json::to_vec(&serde_json::json!({
            "session_id": "session-0", "hook_event_name": "PreToolUse", "cwd": dir.path(),
            "tool_name": event.tool_name, "tool_use_id": event.tool_call_id, "tool_input": event.input,
        }))
        .expect("the payload serialises");
        Setup {
            runtime,
            dir,
            event: Arc::new(event),
            payload: payload.into(),
            one,
        }
    }

    /// One emit of the `true` hook, awaited by `block_on` or in a spawned task.
    fn hook(&self, in_task: bool) {
        if in_task {
            let (one, event) = (self.one.clone(), self.event.clone());
            self.runtime
                .block_on(
                    self.runtime
                        .spawn(async move { one.emit(&*event).await.is_ok() }),
                )
                .expect("the task ends");
        } else {
            self.runtime
                .block_on(self.one.emit(&*self.event))
                .expect("no error");
        }
    }

    /// One bare spawn with the same payload, awaited the same way; `strict`: the
    /// [`strict_floor`].
    fn floor(&self, in_task: bool, strict: bool) {
        let (payload, cwd) = (self.payload.clone(), self.dir.path().to_path_buf());
        let run = async move {
            if strict {
                strict_floor(&payload, &cwd).await
            } else {
                bare_spawn(&payload, &cwd).await
            }
        };
        if in_task {
            self.runtime
                .block_on(self.runtime.spawn(run))
                .expect("the task ends");
        } else {
            self.runtime.block_on(run);
        }
    }

    /// Medians of the hook, the floor and the strict floor, in nanoseconds, run in turns
    /// (which goes first rotates).
    fn interleaved(&self, in_task: bool) -> [f64; 3] {
        let mut samples: [Vec<f64>; 3] = Default::default();
        for round in 0..WARM_UP + ROUNDS {
            for turn in 0..3 {
                let which = (round + turn) % 3;
                let started = Instant::now();
                match which {
                    0 => self.hook(in_task),
                    1 => self.floor(in_task, false),
                    _ => self.floor(in_task, true),
                }
                if round >= WARM_UP {
                    samples[which].push(started.elapsed().as_nanos() as f64);
                }
            }
        }
        samples.map(|mut s| median(&mut s))
    }
}

fn median(samples: &mut [f64]) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples.get(samples.len() / 2).copied().unwrap_or(f64::NAN)
}

/// The floor: what running a hook needs at the least, with the same payload.
async fn bare_spawn(payload: &[u8], cwd: &Path) {
    let mut command = tokio::process::Command::new("sh");
    command.args(["-c", "true"]);
    spawn_and_wait(command, payload, cwd).await;
}

/// What a hook's process needs and the floor does not do: the shell by its path (no `PATH`
/// search), the four `*_PROJECT_DIR` variables (std copies the whole environment to add
/// them) and a process group of its own.
async fn strict_floor(payload: &[u8], cwd: &Path) {
    let mut command = tokio::process::Command::new("/bin/sh");
    command.args(["-c", "true"]).process_group(0);
    for name in ["AGENT_HOOKS", "CLAUDE", "GEMINI", "DEVIN"] {
        command.env(format!("{name}_PROJECT_DIR"), cwd);
    }
    spawn_and_wait(command, payload, cwd).await;
}

async fn spawn_and_wait(mut command: tokio::process::Command, payload: &[u8], cwd: &Path) {
    let mut child = command
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

fn bench(c: &mut Criterion, setup: &Setup) {
    let mut group = c.benchmark_group("command");
    group.bench_function("one_hook_true", |b| b.iter(|| setup.hook(false)));
    group.bench_function("bare_spawn_true", |b| b.iter(|| setup.floor(false, false)));
    group.bench_function("one_hook_true_in_task", |b| b.iter(|| setup.hook(true)));
    group.bench_function("bare_spawn_true_in_task", |b| {
        b.iter(|| setup.floor(true, false))
    });
    group.finish();

    let eight = common::command_runner(
        &serde_json::json!({"PreToolUse": [{"hooks": (0..8)
            .map(|i| serde_json::json!({"type": "command", "command": format!("sleep 0.2 # {i}")}))
            .collect::<Vec<_>>()}]})
        .to_string(),
        setup.dir.path(),
    );
    let mut group = c.benchmark_group("command_parallel");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(5));
    group.bench_function("eight_hooks_sleep_200ms", |b| {
        b.iter(|| {
            setup
                .runtime
                .block_on(eight.emit(&*setup.event))
                .expect("no error")
        });
    });
    group.finish();
}

fn report(setup: &Setup) {
    common::heading("command hooks: one `true` hook vs a bare spawn; 8 hooks of 200 ms");
    for (path, suffix, in_task) in [
        ("block_on, 2 workers", "", false),
        ("awaited in a task", "_in_task", true),
    ] {
        let ours = common::line(
            &format!("one PreToolUse hook running `true` ({path})"),
            &format!("command/one_hook_true{suffix}"),
        );
        let floor = common::line(
            &format!("bare tokio spawn of `sh -c true`, same stdin ({path})"),
            &format!("command/bare_spawn_true{suffix}"),
        );
        let (Some(ours), Some(floor)) = (ours, floor) else {
            continue;
        };
        println!(
            "{:<48} {:.3} (measured one after the other)",
            format!("ratio of criterion's medians ({path})"),
            ours.median / floor.median
        );
        let [hook, floor, strict] = setup.interleaved(in_task);
        println!(
            "{:<48} hook {}, bare spawn {}, strict floor {} ({ROUNDS} rounds each)",
            format!("interleaved medians ({path})"),
            common::Ns(hook),
            common::Ns(floor),
            common::Ns(strict)
        );
        println!(
            "{:<48} {:.3} (/bin/sh, the four variables, a process group)",
            format!("ratio hook / strict floor ({path})"),
            hook / strict
        );
        let ratio = hook / floor;
        common::verdict(
            &format!("ratio hook / bare spawn, interleaved ({path})"),
            format!("{ratio:.3}"),
            ratio <= 1.05,
            "<= 1.05",
        );
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
