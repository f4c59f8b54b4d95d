//! `~` expansion, with `HOME` pointed at a temporary folder. In a process of its own,
//! because it changes the process's environment.

use agent_hooks::load_hooks_in_process;
use agent_hooks_tests::{alone_in_process, copy_to, loaded, plugin, s, temp_dir};

#[test]
fn tilde_paths_expand_to_home() {
    if !alone_in_process(module_path!(), "tilde_paths_expand_to_home") {
        return;
    }
    let home = temp_dir();
    std::fs::create_dir_all(home.path().join(".agent/hooks")).unwrap();
    let lib = copy_to(
        &plugin("block-dangerous"),
        &home.path().join(".agent/hooks"),
        "libguard.so",
    );
    std::env::set_var("HOME", home.path());
    std::env::set_var("AGENT_HOOKS_TEST_HOOKS", home.path().join(".agent/hooks"));
    let cwd = temp_dir();

    let result = load_hooks_in_process(
        [
            "~/.agent/hooks/libguard.so",
            "$AGENT_HOOKS_TEST_HOOKS/libguard.so",
            "${AGENT_HOOKS_TEST_HOOKS}/libguard.so",
        ],
        cwd.path(),
    );
    assert!(result.errors.is_empty(), "{:?}", result.errors);
    assert_eq!(loaded(&result), ["~/.agent/hooks/libguard.so"]);
    assert_eq!(result.hooks[0].resolved_path(), lib.as_path());
    assert_eq!(result.duplicates.len(), 2);

    let result = load_hooks_in_process(["~"], cwd.path());
    assert_eq!(
        result.errors[0].error.to_string(),
        format!(
            "{} is a folder, not a plugin library: give the path of the .so file inside it",
            s(home.path())
        )
    );
}
