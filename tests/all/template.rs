//! `agent-hooks new`: the crate it writes tests, builds and loads as it is, and its mistakes
//! are refused with what to do.
//!
//! The new crate is built with the workspace's target folder and lock file, so that
//! abi_stable and the other dependencies are not built again (and nothing is downloaded).

use std::{path::Path, process::Output, time::Instant};

use agent_hooks_tests::{
    cargo_command,
    cli::{run, stderr, stdout},
    s, target_dir, temp_dir, workspace_root,
};

/// A name no member of the workspace has: the crate shares the workspace's target folder.
const NAME: &str = "template-probe";

fn cargo(crate_dir: &Path, args: &[&str]) -> Output {
    let mut command = cargo_command();
    command
        .args(args)
        .args(["--offline", "--target-dir"])
        .arg(target_dir())
        .current_dir(crate_dir);
    if !cfg!(debug_assertions) {
        command.arg("--release");
    }
    let output = command.output().expect("cargo runs");
    assert!(
        output.status.success(),
        "cargo {args:?} failed:\n{}",
        stderr(&output)
    );
    output
}

#[test]
fn the_new_crate_tests_builds_and_loads() {
    let started = Instant::now();
    let dir = temp_dir();
    let abi = workspace_root().join("abi").canonicalize().unwrap();
    let output = run(
        dir.path(),
        dir.path(),
        &["new", NAME, "--abi-path", &s(&abi)],
        None,
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        stdout(&output),
        format!(
            "Created the plugin `{NAME}` in {NAME} (agent-hooks-abi from path {}). Next:\n  \
             cd {NAME}\n  \
             cargo test              # its test, with the test kit\n  \
             cargo build --release\n  \
             agent-hooks list --hook target/release/libtemplate_probe.so\n",
            abi.display()
        )
    );
    let crate_dir = dir.path().join(NAME);
    let manifest = std::fs::read_to_string(crate_dir.join("Cargo.toml")).unwrap();
    let v = agent_hooks_abi::services::major_minor(agent_hooks_abi::INTERFACE_VERSION);
    let path = serde_json::Value::from(s(&abi)).to_string();
    assert!(
        manifest.contains(&format!(
            "[dependencies]\n\
             # Until agent-hooks-abi is on crates.io; then: agent-hooks-abi = \"{v}\"\n\
             agent-hooks-abi = {{ path = {path} }}\n"
        )),
        "{manifest}"
    );
    assert!(
        manifest.contains(&format!(
            "agent-hooks-abi = {{ path = {path}, features = [\"testing\"] }}\n"
        )),
        "{manifest}"
    );
    for file in ["src/lib.rs", "README.md", ".gitignore"] {
        assert!(crate_dir.join(file).is_file(), "{file}");
    }

    // What it writes is formatted as `cargo fmt` would.
    let fmt = cargo_command()
        .args(["fmt", "--check"])
        .current_dir(&crate_dir)
        .output()
        .expect("cargo fmt runs");
    assert!(fmt.status.success(), "{}", stdout(&fmt));

    // The workspace's versions: nothing to resolve or download.
    std::fs::copy(
        workspace_root().join("Cargo.lock"),
        crate_dir.join("Cargo.lock"),
    )
    .unwrap();
    let tested = cargo(&crate_dir, &["test", "-j2"]);
    assert!(
        stdout(&tested).contains(
            "test tests::a_force_push_asks_the_user_first ... ok\n\n\
             test result: ok. 1 passed;"
        ),
        "{}",
        stdout(&tested)
    );
    cargo(&crate_dir, &["build", "-j2"]);
    let profile = if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    };
    let library = target_dir().join(profile).join(format!(
        "libtemplate_probe.{}",
        std::env::consts::DLL_EXTENSION
    ));

    let list = run(
        dir.path(),
        dir.path(),
        &["list", "--no-discover", "--json", "--hook", &s(&library)],
        None,
    );
    assert_eq!(list.status.code(), Some(0), "{}", stderr(&list));
    let listed = agent_hooks_tests::cli::json_of(&list);
    let hook = &listed["hooks"][0];
    assert_eq!(
        (&hook["name"], &hook["events"], &listed["errors"]),
        (
            &serde_json::json!(NAME),
            &serde_json::json!(["tool_call"]),
            &serde_json::json!([])
        ),
        "{listed}"
    );

    // The commands of the crate's README: `emit` shows the ask (interface 1.1's
    // `ToolCallResult::ask`), `replay` drives it as an agent would.
    let readme = std::fs::read_to_string(crate_dir.join("README.md")).unwrap();
    let input = r#"{"tool_name": "exec", "input": {"command": "git push --force"}}"#;
    assert!(readme.contains(&format!("--input '{input}'")), "{readme}");
    let hook = ["--no-discover", "--hook", &s(&library)];
    let emitted = run(
        dir.path(),
        dir.path(),
        &[&["emit", "tool_call", "--input", input][..], &hook].concat(),
        None,
    );
    assert!(
        stdout(&emitted).starts_with(
            "tool_call asks the user: `git push --force` rewrites the remote's history \
             (the agent confirms; blocked without a UI)\n"
        ),
        "{}",
        stdout(&emitted)
    );
    let line =
        r#"{"event": "tool_call", "tool_name": "exec", "input": {"command": "git push --force"}}"#;
    assert!(
        readme.contains(&format!("echo '{line}' > push.jsonl")),
        "{readme}"
    );
    std::fs::write(dir.path().join("push.jsonl"), format!("{line}\n")).unwrap();
    let replayed = |ui: &str| {
        let output = run(
            dir.path(),
            dir.path(),
            &[&["replay", "--ui", ui, "push.jsonl"][..], &hook].concat(),
            None,
        );
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        stdout(&output)
    };
    let prompt = "confirm \"Allow exec?\": \"`git push --force` rewrites the remote's history\"";
    let no = replayed("no");
    assert!(
        no.contains("tool_call            BLOCKED: Not confirmed by the user: `git push --force` rewrites the remote's history ("),
        "{no}"
    );
    assert!(no.contains(&format!("{prompt} → no\n")), "{no}");
    let yes = replayed("yes");
    assert!(
        yes.contains("tool_call            ok: \"ran `git push --force`\" ("),
        "{yes}"
    );
    assert!(yes.contains(&format!("{prompt} → yes\n")), "{yes}");
    eprintln!(
        "new + test + build + list + emit + replay: {:?}",
        started.elapsed()
    );
}

#[test]
fn by_default_the_crate_uses_the_interface_of_the_clone_the_program_was_built_from() {
    let dir = temp_dir();
    let output = run(dir.path(), dir.path(), &["new", "guard"], None);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let abi = workspace_root().join("abi").canonicalize().unwrap();
    let manifest = std::fs::read_to_string(dir.path().join("guard/Cargo.toml")).unwrap();
    let path = serde_json::Value::from(s(&abi)).to_string();
    assert!(
        manifest.contains(&format!("agent-hooks-abi = {{ path = {path} }}\n")),
        "{manifest}"
    );
}

#[test]
fn git_and_registry_sources_are_written_for_cargo() {
    let dir = temp_dir();
    let v = agent_hooks_abi::services::major_minor(agent_hooks_abi::INTERFACE_VERSION);
    let git = run(
        dir.path(),
        dir.path(),
        &[
            "new",
            "from-git",
            "--abi-git",
            "https://example.com/agent-hooks.git",
            "--abi-rev",
            "v1",
        ],
        None,
    );
    assert_eq!(git.status.code(), Some(0), "{}", stderr(&git));
    let manifest = std::fs::read_to_string(dir.path().join("from-git/Cargo.toml")).unwrap();
    assert!(
        manifest.contains(
            "agent-hooks-abi = { git = \"https://example.com/agent-hooks.git\", rev = \"v1\" }\n"
        ),
        "{manifest}"
    );
    let registry = run(
        dir.path(),
        dir.path(),
        &[
            "new",
            "from-registry",
            "--abi-registry",
            "--dir",
            "elsewhere/plugin",
        ],
        None,
    );
    assert_eq!(registry.status.code(), Some(0), "{}", stderr(&registry));
    let manifest = std::fs::read_to_string(dir.path().join("elsewhere/plugin/Cargo.toml")).unwrap();
    assert!(
        manifest.contains(&format!(
            "[dependencies]\nagent-hooks-abi = \"{v}\"\n\n[dev-dependencies]\n\
             # The test kit (`agent_hooks_abi::testing`), for the tests in src/lib.rs.\n\
             agent-hooks-abi = {{ version = \"{v}\", features = [\"testing\"] }}\n"
        )),
        "{manifest}"
    );
}

#[test]
fn mistakes_are_refused_with_what_to_do_and_nothing_is_written() {
    let dir = temp_dir();
    let refused = |args: &[&str]| {
        let output = run(dir.path(), dir.path(), args, None);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert_eq!(stdout(&output), "", "{args:?}");
        stderr(&output)
    };
    assert_eq!(
        refused(&["new", "2guard"]),
        "agent-hooks: `2guard` cannot be a plugin's crate name: it starts with `2`, not a letter. \
         Use letters, digits, `-` and `_`, starting with a letter (e.g. `demo-guard`)\n"
    );
    assert_eq!(
        refused(&["new", "my guard"]),
        "agent-hooks: `my guard` cannot be a plugin's crate name: ` ` is not a letter, a digit, \
         `-` or `_`. Use letters, digits, `-` and `_`, starting with a letter (e.g. `demo-guard`)\n"
    );
    std::fs::create_dir(dir.path().join("taken")).unwrap();
    assert_eq!(
        refused(&["new", "taken"]),
        "agent-hooks: `taken` already exists: choose another name, or another folder with --dir\n"
    );
    assert_eq!(
        refused(&["new", "guard", "--abi-path", "taken"]),
        "agent-hooks: `taken` does not hold the agent-hooks-abi crate: give --abi-path the `abi` \
         folder of an agent-hooks clone\n"
    );
    // A FIFO named Cargo.toml is not read (it would block `new` for ever).
    let elsewhere = temp_dir();
    nix::unistd::mkfifo(
        &elsewhere.path().join("Cargo.toml"),
        nix::sys::stat::Mode::S_IRWXU,
    )
    .unwrap();
    let fifo = s(elsewhere.path());
    assert_eq!(
        refused(&["new", "guard", "--abi-path", &fifo]),
        format!(
            "agent-hooks: `{fifo}` does not hold the agent-hooks-abi crate: give --abi-path the \
             `abi` folder of an agent-hooks clone\n"
        )
    );
    assert!(refused(&["new", "guard", "--abi-rev", "v1"])
        .contains("the following required arguments were not provided:\n  --abi-git <URL>"));
    let entries: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(entries, vec![std::ffi::OsString::from("taken")]);
}

#[test]
fn the_interface_crate_packages_for_publication_without_warnings() {
    let output = cargo_command()
        .args([
            "package",
            "-p",
            "agent-hooks-abi",
            "--allow-dirty",
            "--no-verify",
            "--offline",
        ])
        .arg("--manifest-path")
        .arg(workspace_root().join("Cargo.toml"))
        .arg("--target-dir")
        .arg(target_dir())
        .output()
        .expect("cargo runs");
    let text = stderr(&output);
    assert!(output.status.success(), "{text}");
    assert!(!text.contains("warning"), "{text}");
    assert!(text.contains("Packaging agent-hooks-abi v"), "{text}");
}
