//! Refuses hook files that other users could have changed, as ssh does for its keys.

use std::{os::unix::fs::PermissionsExt, path::Path};

const OTHERS_WRITE: u32 = 0o002;
const STICKY: u32 = 0o1000;

/// Why a file may not be used, if it is writable by other users or lies in a folder they
/// can write to (a sticky folder such as `/tmp` is fine: others cannot replace the file).
pub(crate) fn writable_by_others(path: &Path) -> Option<String> {
    let mode = std::fs::metadata(path).ok()?.permissions().mode();
    if mode & OTHERS_WRITE != 0 {
        return Some(format!(
            "{} is writable by other users (mode {:o}), so anyone on this machine could change what it runs; fix it with `chmod o-w {}`",
            path.display(),
            mode & 0o7777,
            path.display()
        ));
    }
    let folder = path.parent()?;
    let folder_mode = std::fs::metadata(folder).ok()?.permissions().mode();
    if folder_mode & OTHERS_WRITE != 0 && folder_mode & STICKY == 0 {
        return Some(format!(
            "{} lies in {}, which other users can write to (mode {:o}), so anyone on this machine could replace it; fix it with `chmod o-w {}`",
            path.display(),
            folder.display(),
            folder_mode & 0o7777,
            folder.display()
        ));
    }
    None
}
