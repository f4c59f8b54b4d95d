//! The soak: a host with 10 plugins (each in its process) and 10 command hooks, some of which
//! crash, hang or flood, through many mixed events: the host's memory and open files stay
//! flat, no zombie is left and no process outlives the runner; the emits' p50 and p99 are
//! printed (and written to `target/soak.txt`; each tenth of the way, the count, time, memory
//! and open files go to `target/soak-progress.txt`). In CI, 400 events
//! (`AGENT_HOOKS_SOAK_EVENTS`); the long run is `AGENT_HOOKS_SOAK_EVENTS=100000 cargo test
//! --release -p agent-hooks-tests --test all soak:: -- --nocapture`.
//!
//! The module's name sorts among the first: the test harness starts tests in the order of
//! their names, and the suite's longest test, mostly waiting on its hooks, runs beside the
//! others when it starts early rather than alone after them.

use std::time::{Duration, Instant};

use agent_hooks::{
    abi::prelude::*,
    isolation::{ProcessState, CRASH_LIMIT, CRASH_WINDOW},
    LoadOptions,
};
use agent_hooks_tests::{alone_in_process, commands::Project, copy_to, plugin};

fn events() -> usize {
    std::env::var("AGENT_HOOKS_SOAK_EVENTS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(400)
}

/// This process's resident memory in KiB and its open descriptors.
fn footprint() -> (u64, usize) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let rss = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0);
    let fds = std::fs::read_dir("/proc/self/fd")
        .map(|d| d.count())
        .unwrap_or(0);
    (rss, fds)
}

/// Every descendant of this process (from `/proc`), and how many of them are zombies.
fn descendants() -> (Vec<String>, usize) {
    let me = std::process::id().to_string();
    let mut table = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let pid = entry.file_name().to_string_lossy().into_owned();
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let Some((_, rest)) = stat.rsplit_once(") ") else {
            continue;
        };
        let mut fields = rest.split_whitespace();
        let state = fields.next().unwrap_or("").to_owned();
        let parent = fields.next().unwrap_or("").to_owned();
        table.push((pid, parent, state));
    }
    let mut found = Vec::new();
    let mut zombies = 0;
    let mut next = vec![me];
    while let Some(parent) = next.pop() {
        for (pid, p, state) in &table {
            if *p == parent {
                if state == "Z" {
                    zombies += 1;
                }
                found.push(pid.clone());
                next.push(pid.clone());
            }
        }
    }
    (found, zombies)
}

/// Why each disabled plugin of `runner` is disabled.
fn disabled(runner: &agent_hooks::HookRunner) -> Vec<String> {
    runner
        .hooks()
        .iter()
        .filter_map(|hook| match hook.process_state() {
            Some(ProcessState::Disabled(why)) => Some(why),
            _ => None,
        })
        .collect()
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p) as usize]
}

#[test]
fn ten_plugins_and_ten_command_hooks_through_mixed_events_leave_nothing_behind() {
    if !alone_in_process(
        module_path!(),
        "ten_plugins_and_ten_command_hooks_through_mixed_events_leave_nothing_behind",
    ) {
        return;
    }
    let project = Project::new("soak");
    let hostile = plugin("hostile");
    let dir = project.root.join("plugins");
    std::fs::create_dir_all(&dir).unwrap();
    let paths: Vec<String> = (0..10)
        .map(|i| {
            copy_to(&hostile, &dir, &format!("libhostile{i}.so"))
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    let mut options = LoadOptions::isolated();
    // No plugin of the mix hangs: the deadline only bounds a flood, and is long enough that
    // a loaded machine's slow flood is not killed (a kill counts as an end, and three ends
    // within `CRASH_WINDOW` disable a plugin).
    options.defaults.handler_timeout = Duration::from_secs(2);
    let loaded = agent_hooks::load_hooks_with(&paths, &project.root, &options);
    assert!(
        loaded.errors.is_empty(),
        "{:?}",
        loaded
            .errors
            .iter()
            .map(|e| e.error.to_string())
            .collect::<Vec<_>>()
    );
    let quick = |c: &str| serde_json::json!({"type": "command", "command": c, "timeout": 5});
    let hooks = serde_json::json!({"PreToolUse": [
        {"matcher": "exec", "hooks": [
            quick("cat > /dev/null; echo '{}'"), quick("cat > /dev/null; echo '{}'"),
            quick("cat > /dev/null; echo '{}'"), quick("cat > /dev/null; echo '{}'"),
            quick("cat > /dev/null; exit 0"),
            quick("kill -SEGV $$"),
            quick("head -c 2000000 /dev/zero"),
            quick("(sleep 0.02 &) ; echo '{}'"),
            quick("setsid sh -c 'sleep 0.02' & echo '{}'"),
        ]},
        {"matcher": "hang", "hooks": [
            {"type": "command", "command": "sleep 30", "timeout": 1}
        ]}
    ]});
    let file = project.write(".agent-hooks/hooks/soak.json", &hooks.to_string());
    let mut commands = agent_hooks::command_hook::CommandHooks::new();
    commands.load_file(&file);
    assert!(commands.issues().is_empty(), "{:?}", commands.issues());
    let mut runner = agent_hooks::HookRunner::new(loaded.hooks, &project.root);
    runner.add_command_hooks(commands);

    let total = events();
    let warm = total / 10;
    let mut latencies = Vec::with_capacity(total);
    let mut after_warm_up = (0, 0);
    let at_start = footprint();
    let soak_started = Instant::now();
    let progress_file = agent_hooks_tests::workspace_root().join("target/soak-progress.txt");
    let mut progress = String::new();
    // A crash every 200th event, but never two closer than this: a plugin that ends
    // `CRASH_LIMIT` times within `CRASH_WINDOW` is disabled for the session, and a soak whose
    // plugins are disabled one by one in its first minutes soaks only the command hooks.
    let spacing =
        CRASH_WINDOW / u32::try_from(CRASH_LIMIT - 1).unwrap_or(1) + Duration::from_secs(1);
    let mut last_crash: Option<Instant> = None;
    let mut crashes = 0;
    for n in 0..total {
        let crash = n % 200 == 199 && last_crash.is_none_or(|at| at.elapsed() >= spacing);
        let (tool, input) = match n {
            _ if crash => {
                last_crash = Some(Instant::now());
                crashes += 1;
                ("exec", serde_json::json!({"fault": "segfault"}))
            }
            n if n % 200 == 199 => ("exec", serde_json::json!({"command": "ls"})),
            n if n % 150 == 149 => (
                "exec",
                // 200 KB from each plugin, within its deadline (not past the bound of one
                // call's messages, 1,000: a debug build under load takes seconds for that).
                serde_json::json!({"fault": "message_flood", "count": 200, "size": 1000}),
            ),
            n if n % 100 == 99 => ("hang", serde_json::json!({"command": "ls"})),
            _ => ("exec", serde_json::json!({"command": "ls"})),
        };
        let event = ToolCallEvent::new(tool, format!("call-{n}"), input);
        let started = Instant::now();
        let _ = runner.emit_blocking(&event);
        latencies.push(started.elapsed());
        if n + 1 == warm {
            after_warm_up = footprint();
        }
        // Every tenth, how far it is (a long run can be followed, and cut, meanwhile).
        if warm > 0 && (n + 1) % warm == 0 {
            let (rss, fds) = footprint();
            let disabled = disabled(&runner).len();
            progress.push_str(&format!(
                "{} events, {:.1} s, memory {rss} KiB, open files {fds}, plugins disabled {disabled}\n",
                n + 1,
                soak_started.elapsed().as_secs_f64()
            ));
            let _ = std::fs::write(&progress_file, &progress);
        }
    }
    let at_end = footprint();
    let took = soak_started.elapsed();
    // Every plugin is still there at the end (running, or stopped by its last crash).
    let disabled = disabled(&runner);
    drop(runner);
    latencies.sort();
    let summary = format!(
        "soak: {total} events ({crashes} that crash a plugin) in {:.1} s ({:?} an event), p50 {:?}, p99 {:?}, max {:?}; memory {} -> {} -> {} KiB, open files {} -> {} -> {} (before the first event, after {warm} events, at the end)",
        took.as_secs_f64(),
        took / u32::try_from(total.max(1)).unwrap_or(u32::MAX),
        percentile(&latencies, 0.5),
        percentile(&latencies, 0.99),
        percentile(&latencies, 1.0),
        at_start.0,
        after_warm_up.0,
        at_end.0,
        at_start.1,
        after_warm_up.1,
        at_end.1,
    );
    // The test runs in a process of its own, whose output is not shown: the summary also
    // goes to target/soak.txt.
    println!("{summary}");
    let _ = std::fs::write(
        agent_hooks_tests::workspace_root().join("target/soak.txt"),
        format!("{summary}\n"),
    );
    assert_eq!(disabled, Vec::<String>::new(), "plugins were disabled");
    assert!(
        at_end.1 <= after_warm_up.1 + 8,
        "open files grew: {after_warm_up:?} -> {at_end:?}"
    );
    assert!(
        at_end.0 <= after_warm_up.0 + 32 * 1024,
        "memory grew: {after_warm_up:?} -> {at_end:?}"
    );
    // Nothing the hooks started is left a second later but the keeper, and no zombie.
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        let (left, zombies) = descendants();
        let others: Vec<&String> = left
            .iter()
            .filter(|pid| {
                !std::fs::read_to_string(format!("/proc/{pid}/cmdline")).is_ok_and(|c| {
                    c.starts_with(
                        agent_hooks_tests::agent_hooks_bin()
                            .to_string_lossy()
                            .as_ref(),
                    )
                })
            })
            .collect();
        if (others.is_empty() && zombies == 0) || Instant::now() > deadline {
            assert_eq!(zombies, 0, "zombies among {left:?}");
            assert!(others.is_empty(), "left running: {others:?}");
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}
