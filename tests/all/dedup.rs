//! Two paths to one library load it once (the first path wins); a copy is another plugin.

use agent_hooks::{load_hooks_in_process, DuplicatePath};
use agent_hooks_tests::{copy_to, loaded, plugin, s, temp_dir};

fn duplicates(result: &agent_hooks::LoadHooksResult) -> Vec<(String, String)> {
    result
        .duplicates
        .iter()
        .map(|DuplicatePath { path, same_as }| (path.clone(), same_as.clone()))
        .collect()
}

#[test]
fn the_same_path_twice() {
    let dir = temp_dir();
    let lib = s(&copy_to(&plugin("block-dangerous"), dir.path(), "liba.so"));
    let result = load_hooks_in_process([lib.clone(), lib.clone()], dir.path());
    assert_eq!(loaded(&result), std::slice::from_ref(&lib));
    assert_eq!(duplicates(&result), [(lib.clone(), lib)]);
    assert!(result.errors.is_empty());
}

#[test]
fn relative_and_absolute() {
    let dir = temp_dir();
    let lib = s(&copy_to(&plugin("block-dangerous"), dir.path(), "liba.so"));
    let result = load_hooks_in_process(["liba.so".to_owned(), lib.clone()], dir.path());
    assert_eq!(loaded(&result), ["liba.so"]);
    assert_eq!(duplicates(&result), [(lib, "liba.so".to_owned())]);
}

#[test]
fn a_symbolic_link() {
    let dir = temp_dir();
    let lib = copy_to(&plugin("block-dangerous"), dir.path(), "liba.so");
    let link = dir.path().join("link.so");
    std::os::unix::fs::symlink(&lib, &link).unwrap();
    let result = load_hooks_in_process([s(&link), s(&lib)], dir.path());
    assert_eq!(loaded(&result), [s(&link)]);
    assert_eq!(duplicates(&result), [(s(&lib), s(&link))]);
}

#[test]
fn a_dot_dot_path() {
    let dir = temp_dir();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let lib = s(&copy_to(&plugin("block-dangerous"), dir.path(), "liba.so"));
    let result = load_hooks_in_process([lib.clone(), "sub/../liba.so".to_owned()], dir.path());
    assert_eq!(loaded(&result), std::slice::from_ref(&lib));
    assert_eq!(duplicates(&result), [("sub/../liba.so".to_owned(), lib)]);
}

#[test]
fn a_hard_link() {
    let dir = temp_dir();
    let lib = copy_to(&plugin("block-dangerous"), dir.path(), "liba.so");
    let hard = dir.path().join("hard.so");
    std::fs::hard_link(&lib, &hard).unwrap();
    let result = load_hooks_in_process([s(&lib), s(&hard)], dir.path());
    assert_eq!(loaded(&result), [s(&lib)]);
    assert_eq!(duplicates(&result), [(s(&hard), s(&lib))]);
}

#[test]
fn a_copy_is_a_distinct_plugin() {
    let dir = temp_dir();
    let lib = copy_to(&plugin("block-dangerous"), dir.path(), "liba.so");
    let copy = copy_to(&lib, dir.path(), "libcopy.so");
    let result = load_hooks_in_process([s(&lib), s(&copy)], dir.path());
    assert_eq!(loaded(&result), [s(&lib), s(&copy)]);
    assert!(result.duplicates.is_empty());
}

#[test]
fn order_is_the_order_given() {
    let dir = temp_dir();
    let names = ["libz.so", "liba.so", "libm.so"];
    let paths: Vec<String> = names
        .iter()
        .map(|n| s(&copy_to(&plugin("filter-context"), dir.path(), n)))
        .collect();
    let result = load_hooks_in_process(paths.clone(), dir.path());
    assert_eq!(loaded(&result), paths);
}
