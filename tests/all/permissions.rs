//! Permissions as ssh's StrictModes checks them: a hook file, or a folder above it, that
//! another user could change is refused with the command that fixes it; `--hook` paths too;
//! `doctor` lists each. Tests that need a second user `chown` to `nobody` when running as
//! root, and are skipped with a message otherwise.

use std::{path::Path, process::Command};

use agent_hooks::{discover_and_load_hooks_with, load_hooks_in_process, DiscoveryOptions};
use agent_hooks_tests::{
    cli::{json_of, run},
    commands::Project,
    copy_to, errors, plugin, s, set_mode, temp_dir,
};

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

fn chown(owner: &str, path: &Path) {
    let status = Command::new("chown").arg(owner).arg(path).status().unwrap();
    assert!(status.success(), "chown {owner} {}", path.display());
}

const HOOKS: &str =
    r#"{"PreToolUse": [{"matcher": "exec", "hooks": [{"type": "command", "command": "true"}]}]}"#;

/// A plugin and a hooks file owned by another user (mode 664), and a hooks file whose group
/// is shared: refused, each with its fix.
#[test]
fn files_of_another_user_or_a_shared_group_are_refused() {
    if !is_root() {
        eprintln!("skipped: changing a file's owner to `nobody` needs root");
        return;
    }
    let dir = temp_dir();
    let plugin_path = copy_to(&plugin("block-dangerous"), dir.path(), "libguard.so");
    chown("nobody", &plugin_path);
    set_mode(&plugin_path, 0o664);
    let result = load_hooks_in_process([s(&plugin_path)], dir.path());
    let path = s(&plugin_path);
    assert_eq!(
        errors(&result),
        [(path.clone(), format!("refused: {path} is owned by nobody, not by you (root), so nobody could change what it runs; fix it with `chown root {path}`"))]
    );

    let project = Project::new("repo");
    let owned = project.write(".agent-hooks/hooks/a.json", HOOKS);
    chown("nobody", &owned);
    let shared = project.write(".agent-hooks/hooks/b.json", HOOKS);
    // Group 65534 (`nogroup` or `nobody`, by distribution) is not root's private group.
    chown(":65534", &shared);
    let group = Command::new("getent")
        .args(["group", "65534"])
        .output()
        .ok()
        .and_then(|o| {
            let line = String::from_utf8_lossy(&o.stdout).into_owned();
            line.split(':')
                .next()
                .filter(|n| !n.trim().is_empty())
                .map(|n| format!("group `{n}`"))
        })
        .unwrap_or_else(|| "group 65534".to_owned());
    set_mode(&shared, 0o664);
    let mut options = DiscoveryOptions::new(&project.root);
    options.home = Some(dir.path().to_path_buf());
    options.trust_project = true;
    let found = discover_and_load_hooks_with(&[] as &[&str], options);
    let (a, b) = (s(&owned), s(&shared));
    assert_eq!(
        errors(&found.loaded),
        [
            (a.clone(), format!("refused: {a} is owned by nobody, not by you (root), so nobody could change what it runs; fix it with `chown root {a}`")),
            (b.clone(), format!("refused: {b} is writable by {group} (mode 664), so its members could change what it runs; fix it with `chmod g-w {b}`")),
        ]
    );
    assert_eq!(found.commands.hooks().count(), 0);
}

/// A world-writable folder without the sticky bit above the project refuses every file
/// under it; `/tmp` (sticky, owned by root) does not.
#[test]
fn a_world_writable_folder_above_the_project_refuses_its_hooks() {
    let dir = temp_dir();
    let shared = dir.path().join("shared");
    let root = shared.join("repo");
    std::fs::create_dir_all(root.join(".agent-hooks/hooks")).unwrap();
    let file = root.join(".agent-hooks/hooks/a.json");
    std::fs::write(&file, HOOKS).unwrap();
    set_mode(&shared, 0o777);
    let mut options = DiscoveryOptions::new(&root);
    options.home = Some(dir.path().join("home"));
    options.trust_project = true;
    let found = discover_and_load_hooks_with(&[] as &[&str], options);
    let (f, folder) = (s(&file), s(&shared));
    assert_eq!(
        errors(&found.loaded),
        [(f.clone(), format!("refused: {f} lies under {folder}, which other users can write to (mode 777), so anyone on this machine could replace it; fix it with `chmod o-w {folder}`"))]
    );
}

/// `--hook` of a world-writable hooks file is refused like a discovered one, and `doctor`
/// lists each refused file (not "No problems found") and exits 1.
#[test]
fn hook_paths_are_checked_and_doctor_lists_each_refusal() {
    let home = temp_dir();
    let project = Project::new("repo");
    let given = project.write("given.json", HOOKS);
    set_mode(&given, 0o666);
    let found_file = project.write(".agent-hooks/hooks/found.json", HOOKS);
    set_mode(&found_file, 0o666);

    let output = run(
        &project.root,
        home.path(),
        &["doctor", "--trust-project", "--hook", "given.json"],
        None,
    );
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(!text.contains("No problems found"), "{text}");
    let found_path = s(&found_file);
    let given_path = s(&given);
    assert!(
        text.contains(
            "Problems (2)\n  ✗ .agent-hooks/hooks/found.json: refused: .agent-hooks/hooks/found.json is writable by other users (mode 666), so anyone on this machine could change what it runs; fix it with `chmod o-w .agent-hooks/hooks/found.json`\n  ✗ given.json: refused: given.json is writable by other users (mode 666), so anyone on this machine could change what it runs; fix it with `chmod o-w given.json`\n"
        ),
        "{text}"
    );
    let output = run(
        &project.root,
        home.path(),
        &["list", "--json", "--trust-project", "--hook", "given.json"],
        None,
    );
    let report = json_of(&output);
    let refused: Vec<(&str, &str)> = report["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["path"].as_str().unwrap(), e["error"].as_str().unwrap()))
        .collect();
    assert_eq!(refused.len(), 2);
    assert_eq!(refused[0].0, found_path);
    assert_eq!(refused[1].0, "given.json");
    assert!(refused[1].1.contains(&given_path), "{}", refused[1].1);
}
