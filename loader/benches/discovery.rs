//! Discovery at scale: a project hooks folder of 1,000, 10,000 and 20,000 hooks files,
//! discovered, checked (read once, permissions, trust skipped with `trust_project`) and
//! parsed. Linear means the time per file stays flat as the folder grows.

mod common;

use std::{hint::black_box, path::Path, time::Duration};

use agent_hooks::{discover_and_load_hooks_with, DiscoveryOptions};
use criterion::{BenchmarkId, Criterion};

const SIZES: [usize; 3] = [1_000, 10_000, 20_000];

fn project(files: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let hooks = dir.path().join("repo/.agent-hooks/hooks");
    std::fs::create_dir_all(&hooks).expect("the hooks folder");
    std::fs::create_dir_all(dir.path().join("home")).expect("a home");
    for i in 0..files {
        let text = format!(
            r#"{{"PreToolUse": [{{"matcher": "exec", "hooks": [{{"type": "command", "command": "echo {i}"}}]}}]}}"#
        );
        std::fs::write(hooks.join(format!("h{i:05}.json")), text).expect("a hooks file");
    }
    dir
}

fn discover(root: &Path) -> usize {
    let mut options = DiscoveryOptions::new(root.join("repo"));
    options.home = Some(root.join("home"));
    options.trust_project = true;
    let found = discover_and_load_hooks_with(&[] as &[&str], options);
    found.commands.hooks().count()
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("discovery");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    for files in SIZES {
        let dir = project(files);
        assert_eq!(discover(dir.path()), files);
        group.bench_with_input(BenchmarkId::from_parameter(files), &files, |b, _| {
            b.iter(|| black_box(discover(dir.path())))
        });
    }
    group.finish();
}

fn main() {
    let mut c = common::criterion();
    bench(&mut c);
    c.final_summary();
    for files in SIZES {
        if let Some(e) = common::estimate(&format!("discovery/{files}")) {
            println!(
                "discovery of {files} hooks files: {:.1} ms, {:.1} µs per file",
                e.median / 1e6,
                e.median / 1e3 / files as f64
            );
        }
    }
}
