//! Shared by the benchmarks: criterion's settings, the plugin files, the events, and the
//! read-back of criterion's estimates so that each benchmark prints its own ratios.

// Each benchmark binary uses a different part of this module.
#![allow(dead_code)]

use std::{
    fmt,
    path::{Path, PathBuf},
    sync::OnceLock,
    time::SystemTime,
};

use agent_hooks::abi::prelude::*;
use criterion::Criterion;

/// Builds a plugin of the workspace (in release, since benches build without debug
/// assertions) with the cargo that runs the benchmark, and returns its library's path.
pub fn plugin(package: &str) -> PathBuf {
    agent_hooks_tests::plugin(package)
}

/// When this process configured criterion: estimates older than this are from another run.
static STARTED: OnceLock<SystemTime> = OnceLock::new();

/// Where criterion writes its results. It is the folder criterion would choose by itself,
/// set explicitly so that [`estimate`] reads exactly what this run wrote.
fn output_directory() -> PathBuf {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return home.into();
    }
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| agent_hooks_tests::workspace_root().join("target"))
        .join("criterion")
}

/// Criterion, configured from the command line (filters, `--test`, ...). Groups set their
/// own sample sizes and times, short enough for the whole run to fit in a few minutes.
pub fn criterion() -> Criterion {
    STARTED.get_or_init(SystemTime::now);
    Criterion::default()
        .output_directory(&output_directory())
        .configure_from_args()
}

/// A median, its 95% confidence interval and the median absolute deviation of the
/// samples, in nanoseconds per iteration, as criterion estimated them.
#[derive(Debug, Clone, Copy)]
pub struct Estimate {
    pub median: f64,
    pub low: f64,
    pub high: f64,
    pub mad: f64,
}

/// Criterion's estimate for `id` (`group/function[/value]`) from this run, or `None` when
/// it was not measured in this run (filtered out, `--test`, `--baseline` without saving).
pub fn estimate(id: &str) -> Option<Estimate> {
    let file = output_directory().join(id).join("new/estimates.json");
    let written = std::fs::metadata(&file).and_then(|m| m.modified()).ok()?;
    if written < *STARTED.get()? {
        return None;
    }
    let json: Value = serde_json::from_slice(&std::fs::read(&file).ok()?).ok()?;
    let median = &json["median"];
    Some(Estimate {
        median: median["point_estimate"].as_f64()?,
        low: median["confidence_interval"]["lower_bound"].as_f64()?,
        high: median["confidence_interval"]["upper_bound"].as_f64()?,
        mad: json["median_abs_dev"]["point_estimate"].as_f64()?,
    })
}

/// A duration in nanoseconds, with a unit that suits it.
pub struct Ns(pub f64);

impl fmt::Display for Ns {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ns = self.0;
        if ns.abs() >= 1e9 {
            write!(f, "{:.3} s", ns / 1e9)
        } else if ns.abs() >= 1e6 {
            write!(f, "{:.2} ms", ns / 1e6)
        } else if ns.abs() >= 1e3 {
            write!(f, "{:.2} µs", ns / 1e3)
        } else {
            write!(f, "{ns:.1} ns")
        }
    }
}

impl fmt::Display for Estimate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "median {} (95% CI {} .. {}, MAD {})",
            Ns(self.median),
            Ns(self.low),
            Ns(self.high),
            Ns(self.mad)
        )
    }
}

/// Prints the heading of a benchmark's summary, with the machine's load average (on Linux)
/// as a hint of whether something else ran during the measurements.
pub fn heading(title: &str) {
    println!();
    println!("==== {title} (medians of this run) ====");
    if let Ok(load) = std::fs::read_to_string("/proc/loadavg") {
        let load: Vec<&str> = load.split_whitespace().take(3).collect();
        println!("(load average over 1, 5, 15 minutes: {})", load.join(" "));
    }
}

/// Prints one measured line, or says it was not measured in this run.
pub fn line(label: &str, id: &str) -> Option<Estimate> {
    let estimate = estimate(id);
    match &estimate {
        Some(e) => println!("{label:<48} {e}"),
        None => println!("{label:<48} not measured in this run"),
    }
    estimate
}

/// Prints whether `value` meets `target` (at most).
pub fn verdict(what: &str, value: impl fmt::Display, ok: bool, target: &str) {
    let met = if ok { "met" } else { "MISSED" };
    println!("{what:<48} {value}   target {target}: {met}");
}

/// The runtime of the command-hook benchmarks: multi-threaded, 2 workers (the CLI's).
pub fn two_worker_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime")
}

/// A runner over the command hooks of `hooks_json` (a hooks file of `cwd`), which must parse
/// without issues.
pub fn command_runner(hooks_json: &str, cwd: &Path) -> agent_hooks::HookRunner {
    let mut hooks = agent_hooks::command_hook::CommandHooks::new();
    hooks.parse(hooks_json, &cwd.join("hooks.json"));
    assert!(hooks.issues().is_empty(), "{:?}", hooks.issues());
    let mut runner = agent_hooks::HookRunner::new(Vec::new(), cwd);
    runner.add_command_hooks(hooks);
    runner
}

/// A `tool_call` event whose input is about 200 bytes of JSON.
pub fn tool_call_event() -> ToolCallEvent {
    ToolCallEvent::new(
        "exec",
        "toolu_01A09q90qw90lq917835lq9",
        json!({
            "command": "cargo test --workspace --all-targets -- --nocapture --test-threads=2",
            "cwd": "/home/user/projects/agent-hooks",
            "timeout_ms": 120000,
            "description": "Run the test suite",
        }),
    )
}

/// Copies the library at `from` into `dir` as `name`: a separate library for the dynamic
/// loader (glibc de-duplicates by device and inode, and a copy has its own inode).
pub fn copy_library(from: &Path, dir: &Path, name: &str) -> PathBuf {
    let to = dir.join(name);
    std::fs::copy(from, &to).expect("copy the plugin library");
    to
}

/// A path as the `&str` that `load_hooks_in_process` takes.
pub fn s(path: &Path) -> String {
    path.to_str().expect("temporary paths are UTF-8").to_owned()
}
