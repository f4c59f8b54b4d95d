//! The folders `install` makes for a file it owns whole (an extensions folder under the
//! agent's own folder, say), which `uninstall` removes again when they are empty, so that an
//! agent's folders are left as they were.

use std::{
    fs,
    path::{Path, PathBuf},
};

/// The folders above `file` that do not exist yet, the deepest first.
pub fn missing(file: &Path) -> Vec<PathBuf> {
    file.ancestors()
        .skip(1)
        .take_while(|dir| !dir.as_os_str().is_empty() && !dir.exists())
        .map(Path::to_path_buf)
        .collect()
}

/// Removes `folders` (the deepest first) while they are empty; a folder that holds anything
/// now, and those above it, stay.
pub fn remove_empty(folders: &[PathBuf]) {
    for dir in folders {
        if fs::remove_dir(dir).is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_folders_made_go_again_while_empty() {
        let root = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let file = root.path().join("a/b/c/file.ts");
        let made = missing(&file);
        assert_eq!(
            made,
            vec![
                root.path().join("a/b/c"),
                root.path().join("a/b"),
                root.path().join("a")
            ]
        );
        fs::create_dir_all(root.path().join("a/b/c")).unwrap_or_else(|e| panic!("{e}"));
        fs::write(root.path().join("a/b/kept"), "").unwrap_or_else(|e| panic!("{e}"));
        remove_empty(&made);
        assert!(!root.path().join("a/b/c").exists());
        assert!(root.path().join("a/b/kept").exists());
    }
}
