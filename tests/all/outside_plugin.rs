//! A plugin written outside this repository, from the crate docs alone: the complete plugin
//! of `agent-hooks-abi`'s crate documentation, in a fresh crate made as `cargo new` makes one
//! (edition 2024), built to a `.so`, loaded and run.

use std::path::Path;

use agent_hooks::{abi::prelude::*, load_hooks_in_process, HookRunner};
use agent_hooks_tests::{cargo_command, outcomes, s, target_dir, temp_dir, workspace_root};

/// The code blocks of the crate docs' "A complete plugin" section: `Cargo.toml`, `lib.rs`.
fn documented_plugin() -> (String, String) {
    let docs = std::fs::read_to_string(workspace_root().join("abi/src/lib.rs")).unwrap();
    let doc_lines: Vec<&str> = docs
        .lines()
        .filter_map(|l| l.strip_prefix("//!"))
        .map(|l| l.strip_prefix(' ').unwrap_or(l))
        .collect();
    let section = doc_lines
        .iter()
        .skip_while(|l| **l != "## A complete plugin")
        .copied()
        .collect::<Vec<_>>();
    let mut blocks = Vec::new();
    let mut current: Option<Vec<&str>> = None;
    for line in section {
        match (&mut current, line.starts_with("```")) {
            (None, true) => current = Some(Vec::new()),
            (Some(_), true) => blocks.push(current.take().unwrap().join("\n")),
            (Some(block), false) if !line.starts_with("# ") => block.push(line),
            _ => {}
        }
        if blocks.len() == 2 {
            break;
        }
    }
    (blocks[0].clone(), blocks[1].clone())
}

#[test]
fn the_documented_plugin_builds_outside_the_workspace_loads_and_works() {
    let (manifest, code) = documented_plugin();
    let dir = temp_dir();
    let crate_dir = dir.path().join("no-force-push");
    std::fs::create_dir_all(crate_dir.join("src")).unwrap();
    let abi = workspace_root().join("abi");
    let manifest = manifest
        .replace("edition = \"2021\"", "edition = \"2024\"")
        // The documented path dependency (today's line), pointed at this clone's `abi/`.
        .replace("\"../agent-hooks/abi\"", &format!("{:?}", s(&abi)));
    assert!(manifest.contains("crate-type = [\"cdylib\"]"));
    assert!(
        manifest.contains(&format!("agent-hooks-abi = {{ path = {:?} }}", s(&abi))),
        "{manifest}"
    );
    std::fs::write(crate_dir.join("Cargo.toml"), manifest).unwrap();
    std::fs::write(crate_dir.join("src/lib.rs"), code).unwrap();

    // The tests' target folder (`CARGO_TARGET_DIR` honoured), where the interface crate's
    // dependencies are already built.
    let target = target_dir();
    let output = cargo_command()
        .args(["build", "--quiet"])
        .arg("--target-dir")
        .arg(&target)
        .current_dir(&crate_dir)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let library = target.join("debug/libno_force_push.so");
    assert!(Path::new(&library).exists());

    let result = load_hooks_in_process([s(&library)], dir.path());
    assert!(result.errors.is_empty(), "{:?}", result.errors);
    let runner = HookRunner::new(result.hooks, dir.path());
    let push = ToolCallEvent::new(
        "exec",
        "1",
        json!({"command": "git push --force origin main"}),
    );
    let seen = outcomes(&runner, &push);
    assert_eq!(
        seen[0].1,
        Ok(Some(ToolCallResult::block(
            "Force pushes are not allowed here."
        )))
    );
    assert_eq!(runner.hooks()[0].commands()[0].name, "hello");
}
