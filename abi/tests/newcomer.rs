//! What a plugin author meets writing a first plugin from the docs: the dependency lines
//! the docs give resolve, the prelude is enough, and the test kit's types print.

use agent_hooks_abi::{prelude::*, testing::TestHost};

fn plugin(api: &mut HookApi) -> HandlerResult<()> {
    api.on(|_: &ToolCallEvent, _| Ok(None));
    api.register_command("hello", "Says hello", |_, _| Ok(()));
    Ok(())
}

#[test]
fn serde_json_is_reachable_from_the_prelude() {
    // `serde_json` comes with `use agent_hooks_abi::prelude::*`: no dependency line.
    let value: Value = serde_json::from_str(r#"{"a": 1}"#).unwrap();
    assert_eq!(value, json!({"a": 1}));
    assert_eq!(serde_json::to_string(&value).unwrap(), r#"{"a":1}"#);
}

#[test]
fn a_test_plugin_prints_what_its_factory_registered() {
    let plugin = TestHost::new().load(plugin).unwrap();
    assert_eq!(
        format!("{plugin:?}"),
        r#"TestPlugin { handlers: ["tool_call"], commands: ["hello"], renderers: [], .. }"#
    );
}

/// The `log` and `testing` features' dependency lines, in the crate docs: the one that
/// resolves from a clone, and the one for once the crate is published.
#[test]
fn the_docs_give_dependency_lines_that_resolve() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let docs = std::fs::read_to_string(root.join("src/lib.rs")).unwrap()
        + &std::fs::read_to_string(root.join("src/testing/mod.rs")).unwrap();
    let version = env!("CARGO_PKG_VERSION").rsplit_once('.').unwrap().0;
    for feature in ["log", "testing"] {
        let clone = format!(
            r#"agent-hooks-abi = {{ path = "../agent-hooks/abi", features = ["{feature}"] }}"#
        );
        let published =
            format!(r#"agent-hooks-abi = {{ version = "{version}", features = ["{feature}"] }}"#);
        assert!(docs.contains(&clone), "no clone line for {feature}");
        assert!(docs.contains(&published), "no published line for {feature}");
        assert!(
            !docs.contains(&format!(r#"{{ version = "1", features = ["{feature}"] }}"#)),
            "a line that resolves nowhere before publication"
        );

        // The clone line, with this clone's folder, resolves (offline: no registry involved
        // for the interface crate itself).
        let dir = tempfile_dir();
        let crate_dir = dir.join("plugin");
        std::fs::create_dir_all(crate_dir.join("src")).unwrap();
        let line = clone.replace("../agent-hooks/abi", &root.to_string_lossy());
        std::fs::write(
            crate_dir.join("Cargo.toml"),
            format!(
                "[package]\nname = \"p\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[lib]\ncrate-type = [\"cdylib\"]\n\n[dependencies]\n{line}\n\n[workspace]\n"
            ),
        )
        .unwrap();
        std::fs::write(crate_dir.join("src/lib.rs"), "").unwrap();
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let output = std::process::Command::new(cargo)
            .args(["generate-lockfile", "--offline"])
            .current_dir(&crate_dir)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{feature}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

fn tempfile_dir() -> std::path::PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "agent-hooks-abi-newcomer-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
