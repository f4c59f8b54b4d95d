//! Small things of the `agent-hooks` program's human output: a crate folder given as a hook,
//! multi-line factory errors, an event's summary.

use agent_hooks_tests::{
    cli::{run, stdout},
    copy_to, plugin, temp_dir,
};

fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn a_crate_folder_given_as_a_hook_gets_one_hint_to_build_it() {
    let dir = temp_dir();
    let project = dir.path().join("demo-guard");
    std::fs::create_dir_all(project.join("src")).unwrap();
    std::fs::write(
        project.join("Cargo.toml"),
        "[package]\nname = \"demo-guard\"\nversion = \"0.1.0\"\n\n[lib]\ncrate-type = [\"cdylib\"]\n",
    )
    .unwrap();
    std::fs::write(project.join("src/lib.rs"), "").unwrap();
    std::fs::write(project.join("README.md"), "").unwrap();
    std::fs::write(project.join("Cargo.lock"), "").unwrap();
    let output = run(
        dir.path(),
        dir.path(),
        &["--no-discover", "--hook", "demo-guard", "list"],
        None,
    );
    assert_eq!(
        stdout(&output),
        "Hooks (0)\n  none: put plugins or hooks files in .agent-hooks/hooks/, or pass --hook PATH\n\
         Warnings (1)\n  demo-guard (given with --hook) is a Rust crate, not a plugin: build it with `cargo build --release` and pass the library it builds, --hook demo-guard/target/release/libdemo_guard.so\n"
    );
}

#[test]
fn a_factory_error_of_several_lines_stays_indented_under_its_plugin() {
    let dir = temp_dir();
    std::fs::create_dir(dir.path().join("hooks")).unwrap();
    copy_to(
        &plugin("ui-audit"),
        &dir.path().join("hooks"),
        "libui_audit.so",
    );
    // The fixture's factory fails when this file is in its working folder.
    std::fs::write(dir.path().join("ui-audit-fails"), "").unwrap();
    let args = ["--no-discover", "--hook", "hooks/libui_audit.so"];
    let output = run(
        dir.path(),
        dir.path(),
        &[&args[..], &["list"]].concat(),
        None,
    );
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stdout(&output),
        "Hooks (0)\n  none: put plugins or hooks files in .agent-hooks/hooks/, or pass --hook PATH\n\
         Errors (1)\n  hooks/libui_audit.so: the plugin's factory failed: cannot start the audit:\n      \
         ui-audit-fails exists\n      remove it and try again\n"
    );
    let output = run(
        dir.path(),
        dir.path(),
        &[&args[..], &["emit", "turn_end"]].concat(),
        None,
    );
    assert_eq!(
        stderr(&output),
        "agent-hooks: not loaded: hooks/libui_audit.so: the plugin's factory failed: cannot start the audit:\n      \
         ui-audit-fails exists\n      remove it and try again\n"
    );
    assert_eq!(
        stdout(&output),
        "turn_end notified\n  no hook is loaded (see `agent-hooks list`)\n",
        "the summary is the event's outcome, not the fields added for --json"
    );
}
