//! When two paths name one library.
//!
//! The dynamic loader treats every path to one file as one library (glibc compares device
//! and inode), so loading it twice would run its factory twice over the same statics. Two
//! paths are one hook when their absolute paths are equal, when their canonical paths are
//! equal (symbolic links, `..`), or when they are one file (a hard link).

use std::{
    collections::HashMap,
    path::{Path, PathBuf},
};

/// The first path given for each identity, so that later ones can name it.
#[derive(Default)]
pub(crate) struct SeenPaths {
    by_key: HashMap<Key, String>,
}

#[derive(Hash, PartialEq, Eq)]
enum Key {
    Absolute(PathBuf),
    Canonical(PathBuf),
    File { device: u64, inode: u64 },
}

impl SeenPaths {
    /// Records `given` (resolved to `absolute`); returns the earlier path it duplicates.
    pub(crate) fn first_seen_as(&mut self, given: &str, absolute: &Path) -> Option<String> {
        let keys = keys(absolute);
        if let Some(first) = keys.iter().find_map(|k| self.by_key.get(k)) {
            return Some(first.clone());
        }
        for key in keys {
            self.by_key.insert(key, given.to_owned());
        }
        None
    }
}

fn keys(absolute: &Path) -> Vec<Key> {
    let mut keys = vec![Key::Absolute(absolute.to_path_buf())];
    if let Ok(canonical) = std::fs::canonicalize(absolute) {
        keys.push(Key::Canonical(canonical));
    }
    if let Some((device, inode)) = file_id(absolute) {
        keys.push(Key::File { device, inode });
    }
    keys
}

#[cfg(unix)]
fn file_id(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn file_id(_path: &Path) -> Option<(u64, u64)> {
    None
}
