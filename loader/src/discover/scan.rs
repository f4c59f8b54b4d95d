//! Reading a hooks folder: plugin libraries and hooks files at the top, scripts in `pre/`
//! and `post/`, in name order; anything else gets a warning that says where it should go.

use std::path::{Path, PathBuf};

use super::{EntryKind, HookEntry, Level};
use crate::command_hook::CommandEvent;

/// What a scan found.
#[derive(Debug, Default)]
pub struct Found {
    /// The hooks, in order.
    pub entries: Vec<HookEntry>,
    /// Files and folders that are not hooks, with advice.
    pub warnings: Vec<String>,
}

/// The folder's entries sorted by name, following symbolic links.
fn sorted(dir: &Path) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    paths.sort();
    paths
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Scans the hooks folder `dir` (nothing when it does not exist).
pub fn scan_hooks_folder(dir: &Path, level: Level, source: &str) -> Found {
    let mut found = Found::default();
    let entry = |path: PathBuf, kind, tool| HookEntry {
        name: file_name(&path),
        path,
        kind,
        tool,
        level,
        source: source.to_owned(),
    };
    for path in sorted(dir) {
        let name = file_name(&path);
        if path.is_dir() {
            match name.as_str() {
                "pre" => scan_scripts(&path, CommandEvent::PreToolUse, level, source, &mut found),
                "post" => scan_scripts(&path, CommandEvent::PostToolUse, level, source, &mut found),
                _ => found.warnings.push(format!(
                    "{} is a folder in a hooks folder, but only pre/ and post/ are read there; ignored",
                    path.display()
                )),
            }
            continue;
        }
        let extension = path.extension().map(|e| e.to_string_lossy().into_owned());
        match extension.as_deref() {
            Some(ext) if ext == std::env::consts::DLL_EXTENSION => {
                found.entries.push(entry(path, EntryKind::Plugin, None));
            }
            Some("json") => found.entries.push(entry(path, EntryKind::HooksFile, None)),
            _ => found.warnings.push(format!(
                "{} is neither a plugin library (.{}) nor a hooks file (.json), so it is not loaded; a script belongs in pre/ or post/ as <tool>.<ext> (e.g. pre/exec.sh), or in a hooks file",
                path.display(),
                std::env::consts::DLL_EXTENSION
            )),
        }
    }
    found
}

/// Scans a `pre/` or `post/` folder: each executable `<tool>.<ext>` is a hook for `<tool>`.
pub fn scan_scripts(
    dir: &Path,
    event: CommandEvent,
    level: Level,
    source: &str,
    found: &mut Found,
) {
    use std::os::unix::fs::PermissionsExt;
    for path in sorted(dir) {
        if path.is_dir() {
            found.warnings.push(format!(
                "{} is a folder in a script folder; ignored",
                path.display()
            ));
            continue;
        }
        let executable =
            std::fs::metadata(&path).is_ok_and(|m| m.permissions().mode() & 0o111 != 0);
        if !executable {
            found.warnings.push(format!(
                "{} is not executable, so it cannot run as a hook; make it executable with `chmod +x {}`",
                path.display(),
                path.display()
            ));
            continue;
        }
        let tool = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        found.entries.push(HookEntry {
            name: file_name(&path),
            path,
            kind: EntryKind::Script(event),
            tool: Some(tool),
            level,
            source: source.to_owned(),
        });
    }
}
