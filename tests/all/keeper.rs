//! Nothing started on a hook's behalf outlives the agent (issue 24, points 1 and 2): the
//! real program, real plugins, real processes, looked for in `/proc` after the program ended.

use agent_hooks_tests::{
    cli::{run, stdout},
    commands::Project,
    copy_to, pid_alive, plugin, survivors, temp_dir,
};

/// How many times the `exec` race is run: `AGENT_HOOKS_EXEC_RACE_RUNS` (the documented
/// command uses 100), else 10.
fn race_runs() -> usize {
    std::env::var("AGENT_HOOKS_EXEC_RACE_RUNS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(10)
}

/// A project with the hostile plugin, whose handler deadline is 300 ms (in the user's
/// settings under `home`).
fn hostile_project(home: &std::path::Path) -> Project {
    let project = Project::new("repo");
    let hooks = project.root.join(".agent-hooks/hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    copy_to(&plugin("hostile"), &hooks, "libhostile.so");
    let config = home.join(".config/agent-hooks");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("settings.json"),
        r#"{"plugins": {"libhostile.so": {"handler_timeout": 0.3}}}"#,
    )
    .unwrap();
    project
}

/// The `exec` race: a handler `exec`s `sh -c 'exec sleep 100'` and waits; at its deadline its
/// plugin process is killed, and the program must be gone as soon as `agent-hooks emit` has
/// exited, every time. Run 100 times with
/// `AGENT_HOOKS_EXEC_RACE_RUNS=100 cargo test -p agent-hooks-tests --test all keeper::the_exec_race`.
#[test]
fn the_exec_race_leaves_no_program_running_after_emit_exits() {
    let home = temp_dir();
    let project = hostile_project(home.path());
    let input = r#"{"tool_name": "exec", "input": {"fault": "exec_sleep"}}"#;
    let mut left = Vec::new();
    let runs = race_runs();
    for round in 0..runs {
        let _ = std::fs::remove_file(project.root.join("exec-pid"));
        let output = run(
            &project.root,
            home.path(),
            &[
                "emit",
                "tool_call",
                "--input",
                input,
                "--trust-project",
                "--json",
            ],
            None,
        );
        assert!(
            stdout(&output).contains("did not answer tool_call within 300ms"),
            "run {round}: {}",
            stdout(&output)
        );
        let pid = project.read("exec-pid").trim().to_owned();
        assert!(!pid.is_empty(), "run {round}: the program did not start");
        // At once, not after a grace: the agent killed it before it exited.
        if pid_alive(&pid) {
            left.push((round, pid));
        }
    }
    let still: Vec<_> = survivors(left.iter().map(|(_, pid)| pid.as_str()));
    for pid in &still {
        let _ = std::process::Command::new("kill")
            .args(["-9", pid])
            .status();
    }
    assert!(
        left.is_empty(),
        "{} of {runs} runs left the program running after emit exited: {left:?} (still alive 2 s later: {still:?})",
        left.len()
    );
}
