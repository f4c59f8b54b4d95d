//! Load: 100 plugin libraries through `load_hooks_in_process`, against the floor of abi_stable's own
//! load (`lib_header_from_path` + `init_root_module`) of 100 other copies.
//!
//! Each measured load runs in a fresh child process (this same binary, started with
//! `LOAD_CHILD` set), which times its own load and prints the nanoseconds. Why not loop in
//! one process: a library is opened once per process (never unloaded, and glibc returns the
//! same handle for the same inode), and glibc's `dlopen` walks the list of every object
//! already loaded, so in one process each load of 100 would be slower than the one before,
//! and whichever side ran second would pay for the libraries of the first. An agent loads
//! its plugins once, at start-up, into a process that has loaded none: a fresh process per
//! load is that case, and both sides get the same conditions. The copies stay in the page
//! cache, as they would for an agent started again and again.

mod common;

use std::{
    hint::black_box,
    path::{Path, PathBuf},
    process::Command,
    time::{Duration, Instant},
};

use abi_stable::library::lib_header_from_path;
use agent_hooks::abi::ffi::PluginModuleRef;
use criterion::{Criterion, SamplingMode};

/// How many plugins one load opens.
const PLUGINS: usize = 100;
/// The sample plugin that is copied.
const PLUGIN: &str = "filter-context";
/// Set in a child process: which side to run (`load_hooks_in_process` or `floor`).
const CHILD_MODE: &str = "LOAD_CHILD";
/// Set in a child process: the folder of the copies to load.
const CHILD_DIR: &str = "LOAD_CHILD_DIR";

fn main() {
    if let Some(mode) = std::env::var_os(CHILD_MODE) {
        let dir = PathBuf::from(std::env::var_os(CHILD_DIR).expect("LOAD_CHILD_DIR is set"));
        let elapsed = child(mode.to_str().expect("a mode"), &dir);
        println!("{}", elapsed.as_nanos());
        return;
    }
    let mut c = common::criterion();
    bench(&mut c);
    c.final_summary();
    report();
}

/// In a child process: loads every library in `dir` by `mode` and returns how long it took.
fn child(mode: &str, dir: &Path) -> Duration {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("the copies' folder")
        .map(|entry| entry.expect("a folder entry").path())
        .collect();
    paths.sort();
    assert_eq!(paths.len(), PLUGINS);
    match mode {
        "load_hooks_in_process" => {
            let paths: Vec<String> = paths.iter().map(|p| common::s(p)).collect();
            let start = Instant::now();
            let loaded = agent_hooks::load_hooks_in_process(&paths, dir);
            let elapsed = start.elapsed();
            assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
            assert_eq!(loaded.hooks.len(), PLUGINS);
            // Libraries are never unloaded, and an agent keeps its hooks to the end: do not
            // spend the child's time dropping them.
            std::mem::forget(loaded);
            elapsed
        }
        "floor" => {
            let start = Instant::now();
            let modules: Vec<PluginModuleRef> = paths
                .iter()
                .map(|path| {
                    lib_header_from_path(path)
                        .and_then(|header| header.init_root_module::<PluginModuleRef>())
                        .expect("abi_stable loads the copy")
                })
                .collect();
            let elapsed = start.elapsed();
            black_box(modules);
            elapsed
        }
        other => panic!("unknown mode {other}"),
    }
}

/// Makes a folder with `PLUGINS` copies of the sample plugin.
fn copies(library: &Path) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    for i in 0..PLUGINS {
        common::copy_library(library, dir.path(), &format!("libplugin_{i:03}.so"));
    }
    dir
}

/// Runs one load of `mode` in a fresh process and returns the time it measured.
fn load_in_child(mode: &str, dir: &Path) -> Duration {
    let output = Command::new(std::env::current_exe().expect("this benchmark's path"))
        .env(CHILD_MODE, mode)
        .env(CHILD_DIR, dir)
        .output()
        .expect("the child runs");
    assert!(
        output.status.success(),
        "the {mode} child failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let nanos: u64 = String::from_utf8_lossy(&output.stdout)
        .trim()
        .parse()
        .expect("the child prints nanoseconds");
    Duration::from_nanos(nanos)
}

fn bench(c: &mut Criterion) {
    let library = common::plugin(PLUGIN);
    // Two sets of copies: the project's path and the floor never open the same file.
    let ours = copies(&library);
    let floor = copies(&library);

    let mut group = c.benchmark_group("load");
    // One iteration is a process that loads 100 libraries (about 40 ms measured, plus the
    // process's start and exit): few, equal-sized samples.
    group
        .sampling_mode(SamplingMode::Flat)
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    group.bench_function("load_hooks_100", |b| {
        b.iter_custom(|iters| {
            (0..iters)
                .map(|_| load_in_child("load_hooks_in_process", ours.path()))
                .sum()
        })
    });
    group.bench_function("floor_100", |b| {
        b.iter_custom(|iters| {
            (0..iters)
                .map(|_| load_in_child("floor", floor.path()))
                .sum()
        })
    });
    group.finish();
}

fn report() {
    common::heading(&format!(
        "load: {PLUGINS} copies of {PLUGIN}, each load in a fresh process"
    ));
    let ours = common::line("load_hooks_in_process (100 plugins)", "load/load_hooks_100");
    let floor = common::line(
        "floor: lib_header_from_path + init_root_module",
        "load/floor_100",
    );
    if let (Some(ours), Some(floor)) = (ours, floor) {
        let per = |e: common::Estimate| common::Ns(e.median / PLUGINS as f64);
        println!(
            "{:<48} {} vs {}",
            "per plugin (load_hooks_in_process vs floor)",
            per(ours),
            per(floor)
        );
        let ratio = ours.median / floor.median;
        common::verdict(
            "ratio load_hooks_in_process / floor",
            format!("{ratio:.2}"),
            ratio <= 1.3,
            "<= 1.3",
        );
    }
}
