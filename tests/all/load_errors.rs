//! Every way a path can fail to load gives a message that says what happened and what to do,
//! and loading goes on with the next path.

use std::path::Path;

use agent_hooks::{load_hooks_in_process, LoadError};
use agent_hooks_tests::{
    copy_to, errors, foreign_plugin, loaded, panic_abort_plugin, plugin, s, set_mode, temp_dir,
};

fn only_error(path: &Path, cwd: &Path) -> LoadError {
    let mut result = load_hooks_in_process([s(path)], cwd);
    assert!(result.hooks.is_empty(), "{path:?} should not load");
    assert_eq!(result.errors.len(), 1);
    result.errors.remove(0).error
}

#[test]
fn a_missing_file() {
    let dir = temp_dir();
    let result = load_hooks_in_process(["hooks/missing.so"], dir.path());
    assert_eq!(
        errors(&result),
        [(
            "hooks/missing.so".to_owned(),
            format!(
                "no such file: {}/hooks/missing.so (check the path; relative paths are taken from the agent's working folder)",
                dir.path().display()
            )
        )]
    );
}

#[test]
fn a_folder() {
    let dir = temp_dir();
    let error = only_error(dir.path(), dir.path());
    assert_eq!(
        error.to_string(),
        format!(
            "{} is a folder, not a plugin library: give the path of the .so file inside it",
            dir.path().display()
        )
    );
}

#[test]
fn a_script() {
    let dir = temp_dir();
    let script = dir.path().join("check.sh");
    std::fs::write(&script, "#!/bin/sh\nexit 2\n").unwrap();
    set_mode(&script, 0o755);
    assert_eq!(
        only_error(&script, dir.path()).to_string(),
        format!(
            "{} looks like a script (`#!/bin/sh`), not a plugin library; configure it as a command hook",
            script.display()
        )
    );
}

#[test]
fn a_text_file() {
    let dir = temp_dir();
    let text = dir.path().join("hooks.json");
    std::fs::write(&text, "{\"PreToolUse\": []}\n").unwrap();
    assert_eq!(
        only_error(&text, dir.path()).to_string(),
        format!(
            "{} looks like a script (`{{\"PreToolUse\": []}}`), not a plugin library; configure it as a command hook",
            text.display()
        )
    );
}

#[test]
fn random_bytes() {
    let dir = temp_dir();
    let junk = dir.path().join("junk.so");
    let bytes: Vec<u8> = (0u32..4096)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    std::fs::write(&junk, bytes).unwrap();
    assert_eq!(
        only_error(&junk, dir.path()).to_string(),
        format!(
            "{} is not a shared library (not a known binary format); a plugin is the .so a `cdylib` crate builds",
            junk.display()
        )
    );
}

#[test]
fn a_truncated_library() {
    let dir = temp_dir();
    let whole = std::fs::read(plugin("block-dangerous")).unwrap();
    // Cut in the header, in the program headers' reach, and inside the loadable segments
    // (a debug build is mostly debug info at the end, so a cut there would not show).
    for cut_at in [40, 2000, 64 * 1024] {
        let cut = dir.path().join(format!("libcut{cut_at}.so"));
        std::fs::write(&cut, &whole[..cut_at]).unwrap();
        let message = only_error(&cut, dir.path()).to_string();
        assert!(
            message.starts_with(&format!(
                "{} is a truncated or damaged shared library (",
                cut.display()
            )),
            "{message}"
        );
        assert!(message.contains(&format!("({cut_at} bytes)")), "{message}");
        assert!(
            message.ends_with("); rebuild it or copy it again"),
            "{message}"
        );
    }
}

#[test]
fn an_executable() {
    let dir = temp_dir();
    let program = Path::new("/bin/true");
    assert_eq!(
        only_error(program, dir.path()).to_string(),
        "/bin/true is an executable program, not a plugin library; to run it as a hook, configure it as a command hook"
    );
}

#[test]
fn a_library_that_is_not_a_plugin() {
    let dir = temp_dir();
    let library = plugin("not-a-plugin");
    assert_eq!(
        only_error(&library, dir.path()).to_string(),
        format!(
            "{} is a shared library but not an agent-hooks plugin: it does not export the plugin entry point (build it with `agent_hooks_abi::export_plugin!`)",
            library.display()
        )
    );
}

#[test]
fn a_plugin_built_against_an_older_major_interface_version() {
    let dir = temp_dir();
    let library = foreign_plugin("wrong-version");
    assert_eq!(
        only_error(&library, dir.path()).to_string(),
        format!(
            "{} was built against agent-hooks-abi 0.0; this agent supports 1.x: rebuild the plugin against agent-hooks-abi 1.x",
            library.display(),
        )
    );
}

#[test]
fn a_plugin_built_against_a_newer_major_interface_version() {
    let dir = temp_dir();
    let library = foreign_plugin("newer-major");
    assert_eq!(
        only_error(&library, dir.path()).to_string(),
        format!(
            "{} was built against agent-hooks-abi 2.0; this agent supports 1.x: upgrade the agent, or rebuild the plugin against agent-hooks-abi 1.x",
            library.display(),
        )
    );
}

#[test]
fn the_stand_in_interface_claims_the_real_version() {
    let manifest = std::fs::read_to_string(
        agent_hooks_tests::workspace_root().join("tests/fixtures/foreign/abi/Cargo.toml"),
    )
    .unwrap();
    assert!(
        manifest.contains(&format!(
            "version = \"{}\"",
            agent_hooks::abi::INTERFACE_VERSION
        )),
        "bump tests/fixtures/foreign/abi/Cargo.toml with the real interface version"
    );
}

#[test]
fn a_layout_mismatch_is_summed_up_and_the_full_report_kept() {
    let dir = temp_dir();
    let library = foreign_plugin("layout-mismatch");
    let error = only_error(&library, dir.path());
    let short = error.to_string();
    let LoadError::LayoutMismatch { summary, full, .. } = &error else {
        panic!("expected a layout mismatch, got {error:?}");
    };
    assert_eq!(
        summary,
        "PluginModule.panic_strategy: mismatched type: the agent has PanicStrategy, the plugin u32; PluginModule.factory: too many fields: the agent has 2, the plugin 1; PluginModule.factory: unexpected field: the agent has field `host: HostApi_TO<'lt>`, the plugin field `__returns: ()`"
    );
    assert_eq!(
        short,
        format!(
            "{} was built against an agent-hooks-abi that claims this agent's major version but differs from it: {summary}. One of the two was changed without a new major version: rebuild the plugin against agent-hooks-abi {}",
            library.display(),
            agent_hooks::abi::INTERFACE_VERSION
        )
    );
    assert!(
        short.lines().count() == 1 && short.len() < 600,
        "short: {short}"
    );
    assert!(full.len() > 5 * short.len(), "the full report is kept");
    assert!(format!("{error:?}").contains(full.as_str()));
}

#[test]
fn a_factory_that_returns_an_error() {
    let dir = temp_dir();
    let error = only_error(&plugin("factory-error"), dir.path());
    assert_eq!(
        error.to_string(),
        "the plugin's factory failed: missing configuration file ~/.example.toml"
    );
}

#[test]
fn a_factory_that_panics() {
    let dir = temp_dir();
    let message = only_error(&plugin("panicking-factory"), dir.path()).to_string();
    assert!(
        message.starts_with("the plugin's factory panicked, so it is not loaded ("),
        "{message}"
    );
    assert!(message.contains("factory exploded on purpose"), "{message}");
    assert!(
        message.contains("src/lib.rs"),
        "the panic's location: {message}"
    );
    assert!(
        message.ends_with("); report this to its author"),
        "{message}"
    );
}

#[test]
fn a_plugin_built_with_panic_abort() {
    let dir = temp_dir();
    let library = panic_abort_plugin();
    assert_eq!(
        only_error(&library, dir.path()).to_string(),
        format!(
            "{} was built with panic = \"abort\": its first panic would kill the agent. Rebuild it with panic = \"unwind\" (the default: remove `panic = \"abort\"` from its Cargo profile)",
            library.display()
        )
    );
}

#[test]
fn an_unset_variable() {
    let dir = temp_dir();
    let result = load_hooks_in_process(["$AGENT_HOOKS_TEST_NEVER_SET/libx.so"], dir.path());
    assert_eq!(
        errors(&result),
        [(
            "$AGENT_HOOKS_TEST_NEVER_SET/libx.so".to_owned(),
            "the path uses $AGENT_HOOKS_TEST_NEVER_SET, which is not set: set it, or write the path out".to_owned()
        )]
    );
}

#[test]
fn loading_goes_on_past_every_failure_and_keeps_the_order() {
    let dir = temp_dir();
    let good_a = copy_to(&plugin("block-dangerous"), dir.path(), "liba.so");
    let good_b = copy_to(&plugin("redact-secrets"), dir.path(), "libb.so");
    let script = dir.path().join("x.sh");
    std::fs::write(&script, "#!/bin/sh\n").unwrap();
    let result = load_hooks_in_process(
        [
            "missing.so".to_owned(),
            s(&good_b),
            s(&script),
            s(&plugin("factory-error")),
            s(&good_a),
            s(dir.path()),
        ],
        dir.path(),
    );
    assert_eq!(loaded(&result), [s(&good_b), s(&good_a)]);
    let failed: Vec<String> = result.errors.iter().map(|e| e.path.clone()).collect();
    assert_eq!(
        failed,
        [
            "missing.so".to_owned(),
            s(&script),
            s(&plugin("factory-error")),
            s(dir.path())
        ]
    );
}

/// Permission denied: as root the file would be readable, so the check runs in a child
/// process as `nobody` (through `setpriv`), which runs this same test binary.
#[test]
fn permission_denied() {
    const CHILD: &str = "AGENT_HOOKS_TEST_UNREADABLE";
    fn assert_denied(path: &Path) {
        assert_eq!(
            only_error(path, Path::new("/")).to_string(),
            format!(
                "permission denied reading {}: make it readable by the user running the agent",
                path.display()
            )
        );
    }
    if let Some(path) = std::env::var_os(CHILD) {
        return assert_denied(Path::new(&path));
    }
    let dir = temp_dir();
    let unreadable = copy_to(&plugin("block-dangerous"), dir.path(), "libsecret.so");
    set_mode(&unreadable, 0o000);
    let is_root = std::process::Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false);
    if !is_root {
        return assert_denied(&unreadable);
    }
    let exe = std::env::current_exe().unwrap();
    let status = std::process::Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .arg(exe)
        .args(["--exact", "--test-threads=1"])
        .arg(agent_hooks_tests::test_name(
            module_path!(),
            "permission_denied",
        ))
        .env(CHILD, &unreadable)
        .status()
        .expect("setpriv runs (util-linux)");
    assert!(status.success(), "the check as `nobody` failed");
}
