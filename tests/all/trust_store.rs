//! The trust store cannot lose or leak: concurrent `trust` runs keep every entry, an invalid
//! store is an error (never read as empty nor overwritten), a symbolic link is never written
//! through, a folder or a read-only file in its place is an error naming it. The real
//! program, real files and processes.

use std::{path::Path, process::Child};

use agent_hooks_tests::{
    cli::{run, stderr, stdout},
    commands::Project,
    s, set_mode, temp_dir,
};

const HOOKS: &str =
    r#"{"PreToolUse": [{"matcher": "exec", "hooks": [{"type": "command", "command": "true"}]}]}"#;

fn project(name: &str) -> Project {
    let project = Project::new(name);
    project.write(".agent-hooks/hooks/hooks.json", HOOKS);
    project
}

fn store_of(home: &Path) -> std::path::PathBuf {
    home.join(".config/agent-hooks/trusted-hooks.json")
}

/// 8 `trust` runs at once in 8 projects, 20 rounds: every round keeps all 8 entries in a
/// store that is valid JSON.
#[test]
fn eight_concurrent_trust_runs_keep_every_entry_20_rounds_in_a_row() {
    let projects: Vec<Project> = (0..8).map(|i| project(&format!("p{i}"))).collect();
    for round in 0..20 {
        let home = temp_dir();
        let children: Vec<Child> = projects
            .iter()
            .map(|p| {
                std::process::Command::new(agent_hooks_tests::agent_hooks_bin())
                    .arg("trust")
                    .current_dir(&p.root)
                    .env("HOME", home.path())
                    .env_remove("XDG_CONFIG_HOME")
                    .stdout(std::process::Stdio::null())
                    .spawn()
                    .expect("the program runs")
            })
            .collect();
        for mut child in children {
            assert!(child.wait().unwrap().success(), "round {round}");
        }
        let text = std::fs::read_to_string(store_of(home.path())).unwrap();
        let store: serde_json::Map<String, serde_json::Value> = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("round {round}: invalid store ({e}):\n{text}"));
        assert_eq!(store.len(), 8, "round {round}:\n{text}");
    }
}

/// One trailing comma: `trust` says where, changes nothing, and `list` trusts nothing and
/// says why.
#[test]
fn an_invalid_store_is_an_error_naming_file_line_and_column_and_is_never_overwritten() {
    let home = temp_dir();
    let project = project("repo");
    let store = store_of(home.path());
    std::fs::create_dir_all(store.parent().unwrap()).unwrap();
    let text = "{\n  \"/elsewhere/hooks.json\": \"00ff\",\n}\n";
    std::fs::write(&store, text).unwrap();
    let message = format!("the trust store {} is not valid (line 3, column 1: trailing comma); it is neither read as empty nor overwritten: fix or remove it, then run `agent-hooks trust` again", s(&store));

    let output = run(&project.root, home.path(), &["trust"], None);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(stderr(&output), format!("agent-hooks: {message}\n"));
    assert_eq!(std::fs::read_to_string(&store).unwrap(), text);

    let output = run(&project.root, home.path(), &["list"], None);
    let listed = stdout(&output);
    assert!(
        listed.contains(&format!(
            "Untrusted project hooks (1)\n  .agent-hooks/hooks/hooks.json  not trusted: {message}"
        )),
        "{listed}"
    );
    assert!(
        listed.contains(&format!("Warnings (1)\n  {message}")),
        "{listed}"
    );
}

/// A store that is a symbolic link to another file: `trust` refuses, naming it, and the
/// other file keeps its content.
#[test]
fn a_store_that_is_a_symbolic_link_is_never_written_through() {
    let home = temp_dir();
    let project = project("repo");
    let store = store_of(home.path());
    std::fs::create_dir_all(store.parent().unwrap()).unwrap();
    let other = home.path().join("notes.json");
    std::fs::write(&other, "{}").unwrap();
    std::os::unix::fs::symlink(&other, &store).unwrap();
    let output = run(&project.root, home.path(), &["trust"], None);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        format!("agent-hooks: the trust store {} is a symbolic link, and the store is never written through one (it would overwrite the file it points to): replace the link by a regular file, then run `agent-hooks trust` again\n", s(&store))
    );
    assert_eq!(std::fs::read_to_string(&other).unwrap(), "{}");
}

/// A folder where the store should be, and a read-only store: errors naming the path.
#[test]
fn a_folder_or_a_read_only_store_is_an_error_naming_the_path() {
    let home = temp_dir();
    let project = project("repo");
    let store = store_of(home.path());
    std::fs::create_dir_all(&store).unwrap();
    let output = run(&project.root, home.path(), &["trust"], None);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        format!(
            "agent-hooks: the trust store {} is a folder: move it away, then run `agent-hooks trust` again\n",
            s(&store)
        )
    );

    std::fs::remove_dir(&store).unwrap();
    std::fs::write(&store, "{}\n").unwrap();
    set_mode(&store, 0o444);
    let output = run(&project.root, home.path(), &["trust"], None);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        format!(
            "agent-hooks: the trust store {0} is read-only: make it writable (`chmod u+w {0}`) to trust hooks\n",
            s(&store)
        )
    );
    assert_eq!(std::fs::read_to_string(&store).unwrap(), "{}\n");
}

/// Trust covers the scripts a trusted hooks file runs: `guard.sh` changed afterwards makes
/// the hook untrusted again, until trusted again; a command whose code trust cannot see is
/// listed as such.
#[test]
fn a_changed_script_of_a_trusted_hooks_file_is_untrusted_again() {
    let home = temp_dir();
    let project = Project::new("repo");
    project.write(
        ".agent-hooks/hooks/hooks.json",
        r#"{"PreToolUse": [{"matcher": "exec", "hooks": [
            {"type": "command", "command": "./guard.sh"},
            {"type": "command", "command": "make lint || true"}
        ]}]}"#,
    );
    let guard = project.script("guard.sh", "#!/bin/sh\nexit 2\n");
    let emit = |project: &Project| {
        let output = run(
            &project.root,
            home.path(),
            &[
                "emit",
                "PreToolUse",
                "--input",
                r#"{"tool_name": "exec", "tool_input": {"command": "ls"}}"#,
                "--json",
            ],
            None,
        );
        agent_hooks_tests::cli::json_of(&output)["block"].clone()
    };
    let output = run(&project.root, home.path(), &["trust"], None);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stdout(&output)
            .contains("  .agent-hooks/hooks/hooks.json  (hooks:*:hooks.json)\n    runs guard.sh\n"),
        "{}",
        stdout(&output)
    );
    assert_eq!(emit(&project), true, "the trusted guard runs and blocks");
    let store: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(store_of(home.path())).unwrap()).unwrap();
    let real_guard = std::fs::canonicalize(&guard).unwrap();
    assert!(store.get(s(&real_guard)).is_some(), "{store}");

    std::fs::write(&guard, "#!/bin/sh\nexit 0\n").unwrap();
    assert_eq!(emit(&project), false, "the changed guard does not run");
    let listed = stdout(&run(&project.root, home.path(), &["list"], None));
    assert!(
        listed.contains(&format!(
            "Untrusted project hooks (1)\n  .agent-hooks/hooks/hooks.json  runs {}, which changed since it was trusted: review it, then run `agent-hooks trust` again\n",
            s(&real_guard)
        )),
        "{listed}"
    );
    assert!(
        listed.contains("Runs code that trust does not cover (1)\n  .agent-hooks/hooks/hooks.json: `make lint || true` (`make` runs code the project defines elsewhere)\n"),
        "{listed}"
    );
    run(&project.root, home.path(), &["trust"], None);
    assert_eq!(
        emit(&project),
        false,
        "trusted again: runs, and now lets the call go"
    );
    let listed = stdout(&run(&project.root, home.path(), &["list"], None));
    assert!(!listed.contains("Untrusted"), "{listed}");
}
