//! Every hook file is read once, checked first, and only the bytes that were checked are
//! used: a library overwritten or truncated on disk, a hooks file swapped during discovery,
//! a FIFO, a terminal or `/dev/zero` in place of a hooks file. Real files, FIFOs, symbolic
//! links and processes.

use std::{
    path::{Path, PathBuf},
    process::Command,
    sync::{
        atomic::{AtomicBool, AtomicU64, Ordering},
        Arc,
    },
    time::{Duration, Instant},
};

use agent_hooks::{
    abi::prelude::*, discover::TrustStore, discover_and_load_hooks_with, isolation::ProcessState,
    load_hooks_in_process, load_hooks_with, DiscoveryOptions, HookRunner, LoadOptions,
};
use agent_hooks_tests::{
    cli::{run_within, stdout},
    commands::Project,
    copy_to, errors, outcomes, plugin, s, temp_dir,
};

fn rm_rf() -> ToolCallEvent {
    ToolCallEvent::new("exec", "call-1", json!({ "command": "rm -rf /tmp/build" }))
}

fn mkfifo(path: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let status = Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(status.success());
}

/// The `cp new.so loaded.so` of docs/embedding.md's sealed copy, then a truncation, under a host
/// that keeps running on the library: the code that was loaded keeps running (no SIGBUS),
/// and loading the damaged file again is reported.
#[test]
fn a_loaded_plugin_overwritten_with_cp_then_truncated_keeps_running() {
    let dir = temp_dir();
    let path = copy_to(&plugin("block-dangerous"), dir.path(), "libguard.so");
    let result = load_hooks_in_process([s(&path)], dir.path());
    assert!(result.errors.is_empty(), "{:?}", result.errors);
    assert_eq!(result.hooks[0].path(), s(&path));
    assert_eq!(result.hooks[0].resolved_path(), path);
    let runner = HookRunner::new(result.hooks, dir.path());
    let blocked = |runner: &HookRunner| {
        let all = outcomes(runner, &rm_rf());
        assert_eq!(all.len(), 1);
        assert_eq!(
            all[0].0,
            s(&path),
            "the user's path, not the private copy's"
        );
        all[0]
            .1
            .clone()
            .expect("the handler runs")
            .is_some_and(|r| r.block)
    };
    assert!(blocked(&runner));

    // `cp` writes into the same inode: the pages the dynamic loader would have mapped change.
    std::fs::copy(plugin("redact-secrets"), &path).unwrap();
    assert!(blocked(&runner), "the loaded code still runs after cp");

    let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    file.set_len(4096).unwrap();
    drop(file);
    assert!(
        blocked(&runner),
        "the loaded code still runs after truncation"
    );

    let again = load_hooks_in_process([s(&path)], dir.path());
    assert!(again.hooks.is_empty());
    let messages = errors(&again);
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0].0, s(&path));
    let prefix = format!(
        "{} is a truncated or damaged shared library (a segment ends at byte ",
        s(&path)
    );
    assert!(
        messages[0].1.starts_with(&prefix)
            && messages[0]
                .1
                .ends_with("past the end of the file (4096 bytes)); rebuild it or copy it again"),
        "{}",
        messages[0].1
    );
    assert!(blocked(&runner), "and the running host still works");
}

/// The same in a plugin process (the default in discovery): the process loads the agent's
/// sealed copy of the checked bytes, so overwriting and truncating the file changes nothing,
/// also when the process is started again after it died.
#[test]
fn an_isolated_plugin_runs_the_checked_copy_also_after_a_restart() {
    let dir = temp_dir();
    let path = copy_to(&plugin("block-dangerous"), dir.path(), "libguard.so");
    let mut options = LoadOptions::isolated();
    options.plugin_host = Some(agent_hooks_tests::agent_hooks_bin());
    let result = load_hooks_with([s(&path)], dir.path(), &options);
    assert!(result.errors.is_empty(), "{:?}", result.errors);
    let runner = HookRunner::new(result.hooks, dir.path());
    let blocked = |runner: &HookRunner| runner.emit_blocking(&rm_rf()).map(|o| o.block);
    assert_eq!(blocked(&runner), Ok(true));

    std::fs::copy(plugin("redact-secrets"), &path).unwrap();
    let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    file.set_len(4096).unwrap();
    drop(file);
    assert_eq!(blocked(&runner), Ok(true), "after cp and truncation");

    let Some(ProcessState::Running(pid)) = runner.hooks()[0].process_state() else {
        panic!("the plugin process runs");
    };
    let killed = Command::new("kill").args(["-9", &pid.to_string()]).status();
    assert!(killed.unwrap().success());
    let gone = Instant::now();
    while runner.hooks()[0].process_state() == Some(ProcessState::Running(pid)) {
        assert!(
            gone.elapsed() < Duration::from_secs(10),
            "the death is noticed"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(
        blocked(&runner),
        Ok(true),
        "a new process runs the checked copy, not the file now on disk"
    );
    assert_ne!(
        runner.hooks()[0].process_state(),
        Some(ProcessState::Running(pid))
    );
}

const GOOD: &str = r#"{"PreToolUse": [{"matcher": "exec", "hooks": [{"type": "command", "command": "echo trusted"}]}]}"#;
const EVIL: &str = r#"{"PreToolUse": [{"matcher": "exec", "hooks": [{"type": "command", "command": "echo evil"}]}]}"#;

fn options(project: &Project, home: &Path) -> DiscoveryOptions {
    let mut options = DiscoveryOptions::new(&project.root);
    options.home = Some(home.to_path_buf());
    options.config_dir = Some(home.join(".config/agent-hooks"));
    options
}

/// A racing process renames another file over a trusted hooks file again and again while
/// discovery runs: each of 200 discoveries loads the trusted version or refuses the file as
/// changed, never loads the other one.
#[test]
fn a_trusted_hooks_file_swapped_during_discovery_never_runs_untrusted() {
    let home = temp_dir();
    let project = Project::new("repo");
    let hooks_file = project.write(".agent-hooks/hooks/project.json", GOOD);
    let found = discover_and_load_hooks_with(&[] as &[&str], options(&project, home.path()));
    let mut store = TrustStore::open(&home.path().join(".config/agent-hooks")).unwrap();
    store
        .trust(
            found
                .untrusted
                .iter()
                .map(|u| (u.entry.path.as_path(), u.hash.as_str())),
        )
        .unwrap();

    let stop = Arc::new(AtomicBool::new(false));
    let swaps = Arc::new(AtomicU64::new(0));
    let racer = {
        let stop = stop.clone();
        let swaps = swaps.clone();
        let staging = project.root.join(".agent-hooks/staging");
        std::fs::create_dir_all(&staging).unwrap();
        let target = hooks_file.clone();
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                for (name, text) in [("evil", EVIL), ("good", GOOD)] {
                    let next: PathBuf = staging.join(name);
                    std::fs::write(&next, text).unwrap();
                    std::fs::rename(&next, &target).unwrap();
                    swaps.fetch_add(1, Ordering::Relaxed);
                }
            }
        })
    };
    let (mut ran_trusted, mut refused) = (0, 0);
    // At least 200 discoveries, and on until the file was swapped at least 400 times.
    while ran_trusted + refused < 200 || swaps.load(Ordering::Relaxed) < 400 {
        let found = discover_and_load_hooks_with(&[] as &[&str], options(&project, home.path()));
        let commands: Vec<String> = found
            .commands
            .hooks()
            .map(|h| h.kind.label().into_owned())
            .collect();
        assert!(
            !commands.contains(&"echo evil".to_owned()),
            "the swapped-in file ran: {commands:?}"
        );
        if commands == ["echo trusted"] {
            ran_trusted += 1;
        } else {
            assert!(commands.is_empty(), "{commands:?}");
            assert_eq!(found.untrusted.len(), 1, "{:?}", found.untrusted);
            refused += 1;
        }
    }
    stop.store(true, Ordering::Relaxed);
    racer.join().unwrap();
}

/// In a project nobody trusted yet, `.claude/settings.json` is a FIFO, then a symbolic link
/// to `/dev/stdin` (a pipe that stays open, as a terminal would), then to `/dev/zero`: `list`
/// ends at once and says what the file is, without reading it.
#[test]
fn a_settings_file_that_is_a_fifo_stdin_or_dev_zero_is_refused_unread() {
    let home = temp_dir();
    let project = Project::new("cloned");
    let settings = project.root.join(".claude/settings.json");
    let cases: [(&str, &dyn Fn()); 3] = [
        ("a FIFO (named pipe)", &|| mkfifo(&settings)),
        ("a FIFO (named pipe)", &|| {
            std::os::unix::fs::symlink("/dev/stdin", &settings).unwrap()
        }),
        ("a character device", &|| {
            std::os::unix::fs::symlink("/dev/zero", &settings).unwrap()
        }),
    ];
    for (what, make) in cases {
        let _ = std::fs::remove_file(&settings);
        make();
        let output = run_within(
            &project.root,
            home.path(),
            &["list"],
            Duration::from_secs(20),
        );
        let text = stdout(&output);
        assert_eq!(output.status.code(), Some(1), "{text}");
        assert!(
            text.contains(&format!(
                "Errors (1)\n  .claude/settings.json: {} is {what}, not a regular file, so it is not read; a hook must be a regular file",
                s(&settings)
            )),
            "{text}"
        );
    }
}

/// A FIFO named `x.json` in a trusted project's hooks folder is refused, not waited on;
/// the rest of the folder loads.
#[test]
fn a_fifo_in_a_trusted_hooks_folder_is_refused_and_the_rest_loads() {
    let home = temp_dir();
    let project = Project::new("repo");
    project.write(".agent-hooks/hooks/a.json", GOOD);
    let fifo = project.root.join(".agent-hooks/hooks/x.json");
    mkfifo(&fifo);
    let mut options = options(&project, home.path());
    options.trust_project = true;
    let found = discover_and_load_hooks_with(&[] as &[&str], options);
    let commands: Vec<_> = found.commands.hooks().map(|h| h.kind.label()).collect();
    assert_eq!(commands, ["echo trusted"]);
    assert_eq!(
        errors(&found.loaded),
        [(
            s(&fifo),
            format!(
                "{} is a FIFO (named pipe), not a regular file, so it is not read; a hook must be a regular file",
                s(&fifo)
            )
        )]
    );
}

/// A hooks file over 4 MiB is refused before it is read, with its size and the cap.
#[test]
fn a_hooks_file_over_the_cap_is_refused() {
    let home = temp_dir();
    let project = Project::new("repo");
    let big = project.write(
        ".agent-hooks/hooks/big.json",
        &format!("{{\"x\": \"{}\"}}", "a".repeat(4 * 1024 * 1024)),
    );
    let mut options = options(&project, home.path());
    options.trust_project = true;
    let found = discover_and_load_hooks_with(&[] as &[&str], options);
    assert_eq!(
        errors(&found.loaded),
        [(
            s(&big),
            format!(
                "{} is 4194313 bytes, more than the 4194304 bytes a hooks file may have, so it is not read",
                s(&big)
            )
        )]
    );
}
