//! Each warm path beside its floor, interleaved: `cargo bench -p agent-hooks-host --bench floors`.
//!
//! Every measure is a path of agent-hooks and the least the machine needs to do the same
//! thing without it, run in turns within one round (a batch of each, the order rotating from
//! round to round), over several rounds, so that whatever else the machine does falls on
//! both alike. It prints, per measure, the median of the rounds' per-call means and their
//! spread (lowest and highest round), the median of the rounds' ratios against the floor and
//! the ratio of the best rounds, with the machine's load average before and after.
//!
//! - **long-running**: a 2 KB `PreToolUse` through the runner (2-worker runtime, as the CLI)
//!   to a long-running hook that answers at once (this program, speaking the protocol: the
//!   runner's own cost), and to the Python guard `clients/python/guard.py`; against a
//!   two-process pipe round trip of the same line with no runner (to this program, echoing),
//!   and the same guard spoken to by hand over its pipes (the interpreter's cost).
//! - **plugin**: a 2 KB `tool_call` through a plugin process whose handler returns at once
//!   (`noop-1`), against the same pipe floor; in process, inline and with its deadline thread,
//!   back to back and one call each 200 µs (the deadline's pool thread asleep between).
//! - **command**: a command hook `true`, and one that reads its 2 KB payload and answers, on
//!   each runtime flavour (current-thread, 2 workers, in a task), started by the subreaper
//!   keeper as in the real program (`agent-hooks` is built beside this benchmark for it),
//!   against a bare tokio spawn of the same script with the same payload on the same
//!   runtime, and against `std::process::Command` with no runtime.
//! - **cli**: `agent-hooks emit` with no hooks found against a bare spawn of `true`; the
//!   relay `agent-hooks-hook` with the resident process warm against a small static program
//!   (built with `cc -static` when a C compiler is there); each program copied into the
//!   bench's folder first, as installed.
//!
//! `cargo bench -p agent-hooks-host --bench floors -- GROUP...` runs only those groups;
//! `FLOORS_ROUNDS` sets the number of rounds (default 11). Timings are printed, never
//! asserted.

mod common;

use std::{
    io::{BufRead, BufReader, Write},
    path::{Path, PathBuf},
    process::{Child, ChildStdin, ChildStdout, Command, Stdio},
    sync::Arc,
    time::Instant,
};

use agent_hooks::{abi::prelude::*, load_hooks_with, HookRunner, LoadOptions, PluginSettings};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The argument that makes this program a long-running hook that answers every event at
/// once.
const ECHO_HOOK: &str = "--floors-echo-hook";
/// The argument that makes this program answer every line it reads with one line.
const ECHO_LINE: &str = "--floors-echo-line";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some(ECHO_HOOK) {
        return echo(true);
    }
    if args.first().map(String::as_str) == Some(ECHO_LINE) {
        return echo(false);
    }
    let groups: Vec<&str> = args
        .iter()
        .map(String::as_str)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let wanted = |group: &str| groups.is_empty() || groups.contains(&group);
    let rounds = std::env::var("FLOORS_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(11usize);
    let dir = tempfile::tempdir().expect("a temporary folder");
    println!(
        "floors: {rounds} rounds, interleaved; load average {}",
        load()
    );
    let started = Instant::now();
    if wanted("long-running") {
        long_running(dir.path(), rounds);
    }
    if wanted("plugin") {
        plugin(dir.path(), rounds);
    }
    if wanted("command") {
        command(dir.path(), rounds);
    }
    if wanted("cli") {
        cli(dir.path(), rounds);
    }
    println!(
        "\nfloors: done in {:.1} s; load average {}",
        started.elapsed().as_secs_f64(),
        load()
    );
}

/// The load average over 1, 5 and 15 minutes, as `uptime` says it.
fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

/// The echo: as a long-running hook (hello, then an answer for each event), or a line for
/// each line.
fn echo(hook: bool) {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    if hook {
        let _ = out.write_all(b"{\"type\":\"hello\",\"protocol\":1,\"name\":\"echo\"}\n");
        let _ = out.flush();
    }
    let mut line = String::new();
    let mut input = stdin.lock();
    loop {
        line.clear();
        match input.read_line(&mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let answer = if hook {
            // The type first: an event is answered without looking through its payload.
            if !line.starts_with("{\"type\":\"event\"") {
                if line.contains("\"goodbye\"") {
                    return;
                }
                continue;
            }
            format!("{{\"type\":\"answer\",\"id\":{}}}\n", id_of(&line))
        } else {
            "{\"type\":\"answer\",\"id\":1}\n".to_owned()
        };
        if out
            .write_all(answer.as_bytes())
            .and_then(|()| out.flush())
            .is_err()
        {
            return;
        }
    }
}

/// The `id` of an event line as the runner writes it (`{"type":"event","id":N,...`): read
/// after its first `"id":`, without looking through the rest of the line.
fn id_of(line: &str) -> u64 {
    line.split_once("\"id\":")
        .map(|(_, rest)| {
            rest.chars()
                .take_while(char::is_ascii_digit)
                .collect::<String>()
        })
        .and_then(|digits| digits.parse().ok())
        .unwrap_or(0)
}

/// One measure: a name, what it is measured against, how many calls a round makes, and
/// the call.
struct Measure<'a> {
    name: &'a str,
    floor: Option<usize>,
    target: &'a str,
    per_round: usize,
    call: Box<dyn FnMut() + 'a>,
}

impl<'a> Measure<'a> {
    fn new(name: &'a str, per_round: usize, call: impl FnMut() + 'a) -> Self {
        Self {
            name,
            floor: None,
            target: "",
            per_round,
            call: Box::new(call),
        }
    }

    /// Against the measure at `floor` (its index), with the target of the ratio.
    fn against(mut self, floor: usize, target: &'a str) -> Self {
        self.floor = Some(floor);
        self.target = target;
        self
    }
}

/// Runs `measures` in turns for `rounds` rounds (one round to warm up first) and prints
/// each: the median of the rounds' per-call means, the lowest and highest round, and the
/// median of the per-round ratios to its floor.
fn interleave(title: &str, rounds: usize, mut measures: Vec<Measure<'_>>) {
    if let Ok(wanted) = std::env::var("FLOORS_PROFILE") {
        return profile(&wanted, &mut measures);
    }
    let count = measures.len();
    let mut means: Vec<Vec<f64>> = vec![Vec::new(); count];
    for round in 0..=rounds {
        for turn in 0..count {
            let which = (round + turn) % count;
            let measure = &mut measures[which];
            let started = Instant::now();
            for _ in 0..measure.per_round {
                (measure.call)();
            }
            let mean = started.elapsed().as_nanos() as f64 / measure.per_round as f64;
            if round > 0 {
                means[which].push(mean);
            }
        }
    }
    println!("\n== {title} (load average {}) ==", load());
    println!(
        "{:<58} {:>10} {:>21} {:>7} {:>6}  target",
        "measure", "median", "spread (rounds)", "ratio", "best"
    );
    for (i, measure) in measures.iter().enumerate() {
        let mut sorted = means[i].clone();
        sorted.sort_by(f64::total_cmp);
        let ratio = measure.floor.map(|floor| {
            let mut ratios: Vec<f64> = means[i]
                .iter()
                .zip(&means[floor])
                .map(|(m, f)| m / f)
                .collect();
            ratios.sort_by(f64::total_cmp);
            ratios[ratios.len() / 2]
        });
        // The best rounds' ratio: what another build on the machine adds falls on some
        // rounds more than on others, never below the quiet cost.
        let best = measure.floor.map(|floor| {
            let lowest = |m: &[f64]| m.iter().copied().fold(f64::INFINITY, f64::min);
            lowest(&means[i]) / lowest(&means[floor])
        });
        println!(
            "{:<58} {:>10} {:>10} .. {:>8} {:>7} {:>6}  {}",
            measure.name,
            us(sorted[sorted.len() / 2]),
            us(sorted[0]),
            us(sorted[sorted.len() - 1]),
            ratio.map(|r| format!("{r:.2}x")).unwrap_or_default(),
            best.map(|r| format!("{r:.2}x")).unwrap_or_default(),
            match ratio {
                Some(_) if !measure.target.is_empty() => format!(
                    "{} vs {}",
                    measure.target,
                    measures[measure.floor.unwrap_or(0)].name
                ),
                _ => measure.target.to_owned(),
            }
        );
    }
}

/// `FLOORS_PROFILE=NAME`: runs only the measures whose name contains `NAME`, each alone
/// for 3 s (for a profiler), and prints its time per call and this process's CPU per call
/// (all its threads; not the hook's or the plugin's process).
fn profile(wanted: &str, measures: &mut [Measure<'_>]) {
    for measure in measures.iter_mut().filter(|m| m.name.contains(wanted)) {
        for _ in 0..measure.per_round {
            (measure.call)();
        }
        let (cpu_before, started) = (cpu_ticks(), Instant::now());
        let mut calls = 0u64;
        while started.elapsed().as_secs() < 3 {
            for _ in 0..measure.per_round {
                (measure.call)();
            }
            calls += measure.per_round as u64;
        }
        let wall = started.elapsed().as_nanos() as f64 / calls as f64;
        let (user, system) = cpu_ticks();
        let tick = 1e9 / 100.0;
        println!(
            "{}: {} calls, {} per call; this process's CPU per call: user {}, system {}",
            measure.name,
            calls,
            us(wall),
            us((user - cpu_before.0) as f64 * tick / calls as f64),
            us((system - cpu_before.1) as f64 * tick / calls as f64),
        );
    }
}

/// This process's user and system time, in clock ticks (`/proc/self/stat`).
fn cpu_ticks() -> (u64, u64) {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let rest = stat.rsplit_once(')').map(|(_, rest)| rest).unwrap_or("");
    let field = |n: usize| {
        rest.split_whitespace()
            .nth(n)
            .and_then(|f| f.parse().ok())
            .unwrap_or(0)
    };
    (field(11), field(12))
}

fn us(ns: f64) -> String {
    format!("{:.1} µs", ns / 1e3)
}

/// A process of this program in one of its echo modes, or any program speaking lines, over
/// its pipes.
struct Peer {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    line: String,
}

impl Peer {
    fn start(mut command: Command) -> Self {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("the peer starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        Peer {
            child,
            stdin,
            stdout,
            line: String::new(),
        }
    }

    fn echo() -> Self {
        let mut command = Command::new(std::env::current_exe().expect("this program"));
        command.arg(ECHO_LINE);
        Self::start(command)
    }

    /// Writes `line`, then reads lines until one that starts with `until`.
    fn round_trip(&mut self, line: &[u8], until: &str) {
        self.stdin.write_all(line).expect("the peer reads");
        loop {
            self.line.clear();
            let n = self
                .stdout
                .read_line(&mut self.line)
                .expect("the peer writes");
            assert!(n > 0, "the peer ended");
            if self.line.starts_with(until) {
                return;
            }
        }
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A 2 KB `tool_call` (`PreToolUse`) event for `exec`.
fn event_2k() -> ToolCallEvent {
    ToolCallEvent::new(
        "exec",
        "toolu_01A09q90qw90lq917835lq9",
        json!({"command": format!("ls {}", "a".repeat(1900))}),
    )
}

/// The event line the runner writes for `event`, as the floor writes it.
fn event_line(event: &ToolCallEvent, cwd: &Path) -> Vec<u8> {
    let payload = json!({
        "session_id": "session-0", "hook_event_name": "PreToolUse", "cwd": cwd,
        "tool_name": event.tool_name, "tool_use_id": event.tool_call_id, "tool_input": event.input,
    });
    let mut line = serde_json::to_vec(
        &json!({"type": "event", "id": 1, "event": "PreToolUse", "payload": payload}),
    )
    .expect("it serialises");
    line.push(b'\n');
    line
}

fn persistent_runner(command: &str, cwd: &Path) -> HookRunner {
    let hooks = json!({"PreToolUse": [{"matcher": "exec", "hooks": [
        {"type": "command", "command": command, "persistent": true}
    ]}]});
    common::command_runner(&hooks.to_string(), cwd)
}

/// The python3 the shell finds, resolved (a version manager's shim is a script).
fn python() -> Option<PathBuf> {
    let output = Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .ok()?;
    let path = String::from_utf8(output.stdout).ok()?;
    Some(PathBuf::from(path.trim())).filter(|p| p.is_file())
}

fn long_running(cwd: &Path, rounds: usize) {
    let runtime = common::two_worker_runtime();
    let event = event_2k();
    let line = event_line(&event, cwd);
    let line_by_hand = &line[..];
    let quote = agent_hooks::command_hook::shell_quote;
    let me = std::env::current_exe().expect("this program");
    let echo_hook = persistent_runner(
        &format!("{} {ECHO_HOOK}", quote(&me.to_string_lossy())),
        cwd,
    );
    let guard_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../clients/python/guard.py");
    let python = python();
    let guard = python.as_ref().map(|python| {
        persistent_runner(
            &format!(
                "{} {}",
                quote(&python.to_string_lossy()),
                quote(&guard_path.to_string_lossy())
            ),
            cwd,
        )
    });
    let emit = |runner: &HookRunner| {
        let outcome = runtime.block_on(runner.emit(&event)).expect("no error");
        assert!(!outcome.block, "the hook lets `ls` run");
    };
    // Their first events start them.
    emit(&echo_hook);
    let mut pipe = Peer::echo();
    let mut measures = vec![
        Measure::new(
            "pipe round trip, 2 KB line, no runner (floor)",
            2000,
            || pipe.round_trip(&line, "{"),
        ),
        Measure::new(
            "long-running hook answering at once, 2 KB PreToolUse",
            1000,
            || emit(&echo_hook),
        )
        .against(0, "<= 2x"),
    ];
    if let (Some(python), Some(guard)) = (&python, &guard) {
        emit(guard);
        let mut command = Command::new(python);
        command.arg(&guard_path);
        let mut by_hand = Peer::start(command);
        by_hand.round_trip(
            b"{\"type\":\"hello\",\"protocol\":1,\"agent\":\"floors\"}\n",
            "{\"type\": \"hello\"",
        );
        // Its per-event status request is read past, as the runner reads it.
        measures.push(Measure::new(
            "Python guard by hand over its pipes, no runner (floor)",
            500,
            move || by_hand.round_trip(line_by_hand, "{\"type\": \"answer\""),
        ));
        measures.push(
            Measure::new("Python guard, long-running, 2 KB PreToolUse", 500, || {
                emit(guard)
            })
            .against(2, "< 200 µs"),
        );
    } else {
        println!("(no python3: the Python guard is not measured)");
    }
    interleave("long-running hooks", rounds, measures);
}

fn plugin(cwd: &Path, rounds: usize) {
    let runtime = common::two_worker_runtime();
    let library = common::plugin("noop-1");
    let event = event_2k();
    let line = serde_json::to_vec(&json!({"type": "event", "payload": &event}))
        .map(|mut l| {
            l.push(b'\n');
            l
        })
        .expect("it serialises");
    let runner = |options: LoadOptions| {
        let loaded = load_hooks_with([common::s(&library)], cwd, &options);
        assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
        HookRunner::new(loaded.hooks, cwd)
    };
    let isolated = runner(agent_hooks_tests::isolated());
    let inline = runner({
        let mut options = LoadOptions::in_process();
        options.defaults = PluginSettings {
            in_process_deadline: false,
            ..options.defaults
        };
        options
    });
    let deadline = runner(LoadOptions::in_process());
    let emit = |runner: &HookRunner| {
        runtime.block_on(runner.emit(&event)).expect("no error");
    };
    emit(&isolated);
    let mut pipe = Peer::echo();
    interleave(
        "plugins, a 2 KB tool_call, handler returns at once, 2-worker runtime",
        rounds,
        vec![
            Measure::new(
                "pipe round trip, 2 KB line, no runner (floor)",
                2000,
                || pipe.round_trip(&line, "{"),
            ),
            Measure::new("plugin process round trip", 2000, || emit(&isolated)).against(0, "<= 2x"),
            Measure::new("in process, handler on the emitting thread", 5000, || {
                emit(&inline)
            }),
            Measure::new(
                "in process with its deadline thread (default)",
                5000,
                || emit(&deadline),
            )
            .against(2, "(deadline's cost: the difference)"),
            // Calls apart, so that the deadline's pool thread sleeps between them, as between
            // the events of a session: the sleep is in both, the difference is the cost.
            Measure::new("in process, inline, one call each 200 µs", 300, || {
                std::thread::sleep(APART);
                emit(&inline)
            }),
            Measure::new(
                "in process with its deadline thread, one call each 200 µs",
                300,
                || {
                    std::thread::sleep(APART);
                    emit(&deadline)
                },
            )
            .against(4, "(deadline's cost: the difference)"),
        ],
    );
}

/// The time between two calls of the measures whose calls come apart.
const APART: std::time::Duration = std::time::Duration::from_micros(200);

/// The two command hooks measured: `true`, and one that reads its 2 KB payload and answers.
const COMMAND_HOOKS: [(&str, &str); 2] = [
    ("true", "command hook `true`"),
    (
        r#"read -r payload; echo '{"decision": "approve"}'"#,
        "command hook that reads its 2 KB payload and answers",
    ),
];

/// Each command hook and its floors on every runtime flavour.
fn command(cwd: &Path, rounds: usize) {
    // The real program's keeper: `agent-hooks` beside this benchmark serves as the subreaper
    // keeper that starts every hook's process (without it the token keeper would run).
    let _ = agent_hooks_tests::agent_hooks_bin();
    for (index, (script, title)) in COMMAND_HOOKS.into_iter().enumerate() {
        let event = if index == 0 {
            common::tool_call_event()
        } else {
            event_2k()
        };
        command_hook(cwd, rounds, script, title, event);
    }
}

/// The children of this process that serve as the subreaper keeper (`agent-hooks`).
fn keepers() -> Vec<String> {
    let mut found = Vec::new();
    let tasks = std::fs::read_dir("/proc/self/task").into_iter().flatten();
    for task in tasks.flatten() {
        let children = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
        for pid in children.split_whitespace() {
            let exe = std::fs::read_link(format!("/proc/{pid}/exe")).unwrap_or_default();
            // A keeper whose program was rebuilt under it (the bench builds `agent-hooks`
            // before its command hooks) reads as `agent-hooks (deleted)`.
            let name = exe
                .file_name()
                .map(|name| name.to_string_lossy().into_owned());
            if name.is_some_and(|name| name.trim_end_matches(" (deleted)") == "agent-hooks") {
                found.push(pid.to_owned());
            }
        }
    }
    found
}

/// A command hook running `script` and its floors: the same script with the same payload,
/// stdout and stderr read, by a bare tokio spawn on the same runtime and by
/// `std::process::Command` with no runtime.
fn command_hook(cwd: &Path, rounds: usize, script: &str, title: &str, event: ToolCallEvent) {
    let event = Arc::new(event);
    let hooks = json!({"PreToolUse": [{"hooks": [{"type": "command", "command": script}]}]});
    let runner = Arc::new(common::command_runner(&hooks.to_string(), cwd));
    let payload: Arc<[u8]> = serde_json::to_vec(&json!({
        "session_id": "session-0", "hook_event_name": "PreToolUse", "cwd": cwd,
        "tool_name": event.tool_name, "tool_use_id": event.tool_call_id, "tool_input": event.input,
    }))
    .expect("it serialises")
    .into();
    let current = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let two = common::two_worker_runtime();
    let cwd = cwd.to_path_buf();
    let hook = |runtime: &tokio::runtime::Runtime, in_task: bool| {
        let (runner, event) = (runner.clone(), event.clone());
        let run = async move {
            runner.emit(&*event).await.expect("no error");
        };
        if in_task {
            runtime.block_on(runtime.spawn(run)).expect("the task ends");
        } else {
            runtime.block_on(run);
        }
    };
    // `emit_blocking` on the runtime's thread: within `block_on`, or in a task.
    let blocking = |runtime: &tokio::runtime::Runtime, in_task: bool| {
        let (runner, event) = (runner.clone(), event.clone());
        let run = async move {
            runner.emit_blocking(&*event).expect("no error");
        };
        if in_task {
            runtime.block_on(runtime.spawn(run)).expect("the task ends");
        } else {
            runtime.block_on(run);
        }
    };
    let bare = |runtime: &tokio::runtime::Runtime, in_task: bool| {
        let run = bare_spawn(payload.clone(), cwd.clone(), script.to_owned());
        if in_task {
            runtime.block_on(runtime.spawn(run)).expect("the task ends");
        } else {
            runtime.block_on(run);
        }
    };
    hook(&current, false);
    let keepers = keepers();
    println!(
        "\n{title}: payload {} bytes; {}",
        payload.len(),
        if keepers.is_empty() {
            "NO subreaper keeper runs (the hooks are started without it)".to_owned()
        } else {
            format!(
                "started by the subreaper keeper (pid {})",
                keepers.join(", ")
            )
        }
    );
    let n = 40;
    interleave(
        &format!("{title}, payload on stdin, stdout and stderr read"),
        rounds,
        vec![
            Measure::new("std::process::Command, no runtime (floor)", n, || {
                std_spawn(&payload, &cwd, script)
            }),
            Measure::new("bare tokio spawn, current-thread (floor)", n, || {
                bare(&current, false)
            }),
            Measure::new("command hook, current-thread", n, || hook(&current, false))
                .against(1, "<= 1.05x"),
            Measure::new("bare tokio spawn, 2 workers (floor)", n, || {
                bare(&two, false)
            }),
            Measure::new("command hook, 2 workers", n, || hook(&two, false)).against(3, "<= 1.05x"),
            Measure::new("bare tokio spawn, 2 workers, in a task (floor)", n, || {
                bare(&two, true)
            }),
            Measure::new("command hook, 2 workers, in a task", n, || hook(&two, true))
                .against(5, "<= 1.05x"),
            Measure::new("command hook, current-thread, vs std", n, || {
                hook(&current, false)
            })
            .against(0, "<= 1.10x"),
            Measure::new("command hook, 2 workers, vs std", n, || hook(&two, false))
                .against(0, "<= 1.10x"),
            Measure::new("command hook, in a task, vs std", n, || hook(&two, true))
                .against(0, "<= 1.10x"),
            Measure::new("emit_blocking, no runtime, vs std", n, || {
                runner.emit_blocking(&*event).expect("no error");
            })
            .against(0, "<= 1.10x"),
            Measure::new("emit_blocking, 2 workers, vs std", n, || {
                blocking(&two, false)
            })
            .against(0, "<= 1.10x"),
            Measure::new("emit_blocking, 2 workers, in a task, vs std", n, || {
                blocking(&two, true)
            })
            .against(0, "<= 1.10x"),
        ],
    );
}

/// `sh -c SCRIPT` with the payload on stdin, stdout and stderr read to their ends.
async fn bare_spawn(payload: Arc<[u8]>, cwd: PathBuf, script: String) {
    let mut child = tokio::process::Command::new("/bin/sh")
        .arg("-c")
        .arg(script)
        .current_dir(&cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("sh starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let write = async move {
        let _ = stdin.write_all(&payload).await;
    };
    let _ = tokio::join!(
        write,
        stdout.read_to_end(&mut out),
        stderr.read_to_end(&mut err)
    );
    child.wait().await.expect("sh ends");
}

/// The same with `std::process::Command`, no runtime.
fn std_spawn(payload: &[u8], cwd: &Path, script: &str) {
    let mut child = Command::new("/bin/sh")
        .args(["-c", script])
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("sh starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let _ = stdin.write_all(payload);
    drop(stdin);
    child.wait_with_output().expect("sh ends");
}

/// Builds the relay program next to `agent-hooks` (as `agent_hooks_tests` builds the
/// program), in the profile of this benchmark.
fn relay() -> Option<PathBuf> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .args([
            "build",
            "--quiet",
            "-p",
            "agent-hooks-cli",
            "--bin",
            "agent-hooks-hook",
        ])
        .arg("--manifest-path")
        .arg(agent_hooks_tests::workspace_root().join("Cargo.toml"))
        .arg("--target-dir")
        .arg(agent_hooks_tests::target_dir())
        .args((!cfg!(debug_assertions)).then_some("--release"))
        .status()
        .ok()?;
    let program = agent_hooks_tests::agent_hooks_bin().with_file_name("agent-hooks-hook");
    (status.success() && program.is_file()).then_some(program)
}

/// A program that does nothing, linked statically, or `None` without a C compiler.
fn static_true(dir: &Path) -> Option<PathBuf> {
    let source = dir.join("nothing.c");
    let program = dir.join("static-true");
    std::fs::write(&source, "int main(void) { return 0; }\n").ok()?;
    let built = Command::new("cc")
        .args(["-static", "-O2", "-o"])
        .arg(&program)
        .arg(&source)
        .stderr(Stdio::null())
        .status()
        .ok()?;
    built.success().then_some(program)
}

fn cli(dir: &Path, rounds: usize) {
    // As installed (`cargo install` copies them): a program fresh from the linker sits in
    // the page cache as the linker wrote it, in small pieces, and its start takes about 30
    // page faults more (docs/performance.md, "How to read a ratio").
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).expect("a folder for the programs");
    let install = |program: &Path| {
        let copy = bin.join(program.file_name().expect("a program's name"));
        std::fs::copy(program, &copy).expect("the program copied");
        copy
    };
    let agent_hooks = install(&agent_hooks_tests::agent_hooks_bin());
    let relay = relay().map(|relay| install(&relay));
    let home = dir.join("home");
    let project = dir.join("project");
    std::fs::create_dir_all(home.join(".config/agent-hooks/hooks")).expect("a home");
    std::fs::create_dir_all(&project).expect("a project");
    let payload = format!(
        r#"{{"session_id":"floors","cwd":{},"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{{"command":"ls {}"}}}}"#,
        serde_json::to_string(&project).expect("a path"),
        "a".repeat(1900)
    );
    let payload_file = dir.join("payload.json");
    std::fs::write(&payload_file, &payload).expect("the payload");
    let run = |program: &Path, args: &[&str]| {
        let status = Command::new(program)
            .args(args)
            .current_dir(&project)
            .env("HOME", &home)
            .env_remove("XDG_RUNTIME_DIR")
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("XDG_CACHE_HOME")
            .env_remove("AGENT_HOOKS_NO_SERVE")
            .env("AGENT_HOOKS_SERVE_IDLE", "30")
            .stdin(std::fs::File::open(&payload_file).expect("the payload"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("it starts");
        assert!(status.success(), "{} {args:?}: {status}", program.display());
    };
    let true_program = ["/bin/true", "/usr/bin/true"]
        .into_iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
        .expect("true");
    let static_true = static_true(dir).map(|program| install(&program));
    let n = 25;
    let mut measures = vec![
        Measure::new("a bare spawn of `true` (floor)", n, || {
            run(&true_program, &[])
        }),
        Measure::new("`agent-hooks emit PreToolUse`, no hooks found", n, || {
            run(&agent_hooks, &["emit", "PreToolUse", "--input", "-"])
        })
        .against(0, "<= 2x"),
        Measure::new("`agent-hooks --version` (the program's start)", n, || {
            run(&agent_hooks, &["--version"])
        })
        .against(0, ""),
    ];
    if let Some(relay) = &relay {
        // The first call starts the resident process.
        run(relay, &["--agent", "claude"]);
        let floor = match &static_true {
            Some(program) => {
                measures.push(Measure::new(
                    "a bare spawn of a small static program (floor)",
                    n,
                    || run(program, &[]),
                ));
                measures.len() - 1
            }
            None => 0,
        };
        measures.push(
            Measure::new(
                "relay `agent-hooks-hook --agent claude`, resident warm",
                n,
                || run(relay, &["--agent", "claude"]),
            )
            .against(floor, "<= 1.5x"),
        );
        measures.push(
            Measure::new(
                "`agent-hooks hook --agent claude`, resident warm",
                n,
                || run(&agent_hooks, &["hook", "--agent", "claude"]),
            )
            .against(floor, ""),
        );
    } else {
        println!("(the relay could not be built: not measured)");
    }
    interleave("the CLI's start, 2 KB PreToolUse payload", rounds, measures);
    // The resident process ends after its idle time; its socket goes now.
    if let Ok(run_dirs) = std::fs::read_dir(home.join(".cache/agent-hooks/run")) {
        for run_dir in run_dirs.flatten() {
            let _ = std::fs::remove_file(run_dir.path().join("serve.sock"));
        }
    }
}
