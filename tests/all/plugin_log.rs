//! Interface 1.1: a plugin's log (`Host::log`, `HookContext::log`, and `log::info!` through
//! the `log` feature) reaches the agent's `tracing` with the plugin's name, and the
//! `agent-hooks` command shows it on stderr with `-v` (more with `-vv`, `-vvv`); a plugin
//! that floods is cut at 200 records a second. The real program, with the plugin in process
//! and in a plugin process.

use std::path::Path;

use agent_hooks_tests::{cli::run, copy_to, plugin, s, temp_dir};

const MODES: [&[&str]; 2] = [&[], &["--in-process"]];

/// Runs `emit tool_call` with `command` through the `boundary` fixture; its stderr lines.
fn log_lines(dir: &Path, command: &str, flags: &[&str]) -> Vec<String> {
    let library = s(&dir.join("libboundary.so"));
    let input = format!(r#"{{"tool_name": "exec", "input": {{"command": "{command}"}}}}"#);
    let mut args = vec![
        "emit",
        "tool_call",
        "--input",
        &input,
        "--no-discover",
        "--hook",
        &library,
    ];
    args.extend(flags);
    let home = temp_dir();
    let output = run(dir, home.path(), &args, None);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    String::from_utf8_lossy(&output.stderr)
        .lines()
        .map(str::to_owned)
        .collect()
}

fn fixture() -> tempfile::TempDir {
    let dir = temp_dir();
    copy_to(&plugin("boundary"), dir.path(), "libboundary.so");
    dir
}

#[test]
fn records_show_with_the_plugin_and_the_level_v_asks_for() {
    let dir = fixture();
    let name = s(&dir.path().join("libboundary.so"));
    for mode in MODES {
        let with = |verbosity: &str| {
            let mut flags = mode.to_vec();
            flags.extend([verbosity].iter().filter(|f| !f.is_empty()));
            log_lines(dir.path(), "log", &flags)
        };
        assert_eq!(
            with(""),
            [format!(
                " WARN agent_hooks::plugin: from Host::log plugin={name}"
            )],
            "{mode:?}: warnings always"
        );
        assert_eq!(
            with("-v"),
            [
                format!(" INFO agent_hooks::plugin: boundary loaded plugin={name}"),
                format!(" WARN agent_hooks::plugin: from Host::log plugin={name}"),
                format!(" INFO agent_hooks::plugin: from HookContext::log plugin={name}"),
            ],
            "{mode:?}"
        );
        assert_eq!(
            with("-vvv"),
            [
                format!(" INFO agent_hooks::plugin: boundary loaded plugin={name}"),
                format!(" WARN agent_hooks::plugin: from Host::log plugin={name}"),
                format!(" INFO agent_hooks::plugin: from HookContext::log plugin={name}"),
                format!(
                    "DEBUG agent_hooks::plugin: from log::debug! 42 plugin={name} module=boundary"
                ),
                format!(
                    "TRACE agent_hooks::plugin: from log::trace! plugin={name} module=boundary"
                ),
            ],
            "{mode:?}"
        );
    }
}

#[test]
fn a_flood_is_cut_at_200_records_a_second_with_a_warning() {
    let dir = fixture();
    let name = s(&dir.path().join("libboundary.so"));
    let warning = format!(" WARN agent_hooks::plugin: the plugin logs more than 200 records a second: the rest of this second's are dropped plugin={name}");
    for mode in MODES {
        let mut flags = mode.to_vec();
        flags.push("-v");
        let lines = log_lines(dir.path(), "flood 1000", &flags);
        let flood = |i: usize| {
            format!(" INFO agent_hooks::plugin: flood {i} plugin={name} module=boundary")
        };
        let first = lines.iter().position(|l| *l == flood(0)).expect("flood 0");
        let kept = lines[first..]
            .iter()
            .enumerate()
            .take_while(|(i, line)| **line == flood(*i))
            .count();
        // 199 when the load's "boundary loaded" fell in the same second, else 200.
        assert!(kept == 199 || kept == 200, "{mode:?}: {kept} kept");
        assert_eq!(lines[first + kept], warning, "{mode:?}");
        assert!(
            !lines.contains(&flood(kept)),
            "{mode:?}: the records after the bound are dropped for the rest of the second"
        );
    }
}
