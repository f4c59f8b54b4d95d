//! Reading a hooks folder: plugin libraries and hooks files at the top, scripts in `pre/`
//! and `post/`, in name order; anything else gets a warning that says where it should go.
//! A plugin's own configuration file beside it (`lib<name>.toml` or `lib<name>.json` next
//! to `lib<name>.so`, read by the plugin's `config` service) is neither: it is passed over,
//! as is a file a hooks file beside it names (a long-running guard's `guard.py`).

use std::path::{Path, PathBuf};

use super::{EntryKind, HookEntry, Level};
use crate::{
    agents::SCRIPT_FOLDERS,
    command_hook::CommandEvent,
    file::{read_capped, Limit},
};

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
    let paths = sorted(dir);
    let mut named = NamedByHooksFiles::default();
    for path in paths.iter().cloned() {
        let name = file_name(&path);
        if path.is_dir() {
            match SCRIPT_FOLDERS.iter().find(|(folder, _)| *folder == name) {
                Some((_, event)) => scan_scripts(&path, *event, level, source, &mut found),
                None => found.warnings.push(format!(
                    "{} is a folder in a hooks folder, but only pre/ and post/ are read there; ignored",
                    path.display()
                )),
            }
            continue;
        }
        let extension = path.extension().map(|e| e.to_string_lossy().into_owned());
        if is_plugin_config(&path, extension.as_deref(), &paths) {
            continue;
        }
        match extension.as_deref() {
            Some(ext) if ext == std::env::consts::DLL_EXTENSION => {
                found.entries.push(entry(path, EntryKind::Plugin, None));
            }
            Some("json") => found.entries.push(entry(path, EntryKind::HooksFile, None)),
            _ if named.names(&name, &paths) => {}
            _ => found.warnings.push(format!(
                "{} is neither a plugin library (.{}) nor a hooks file (.json), so it is not loaded; a script belongs in pre/ or post/ as <tool>.<ext> (e.g. pre/exec.sh), or in a hooks file",
                path.display(),
                std::env::consts::DLL_EXTENSION
            )),
        }
    }
    found
}

/// The text of a folder's hooks files, read once when a file that is not a hook is met, to
/// know whether one of them names it.
#[derive(Default)]
struct NamedByHooksFiles(Option<Vec<String>>);

impl NamedByHooksFiles {
    /// Whether a hooks file among `paths` names `name`. A hooks file that cannot be read
    /// names nothing here (its own reading reports it).
    fn names(&mut self, name: &str, paths: &[PathBuf]) -> bool {
        let texts = self.0.get_or_insert_with(|| {
            paths
                .iter()
                .filter(|p| p.extension().is_some_and(|e| e == "json"))
                .filter_map(|p| read_capped(p, Limit::HooksFile).ok())
                .map(|read| String::from_utf8_lossy(&read.bytes).into_owned())
                .collect()
        });
        texts.iter().any(|text| text.contains(name))
    }
}

/// Whether `path` (with `extension`) is the configuration file of a plugin library among
/// `paths` (the folder's entries): `lib<name>.toml` or `lib<name>.json` next to
/// `lib<name>.so` (see `plugin_config`).
fn is_plugin_config(path: &Path, extension: Option<&str>, paths: &[PathBuf]) -> bool {
    if !matches!(extension, Some("toml" | "json")) {
        return false;
    }
    let library = path.with_extension(std::env::consts::DLL_EXTENSION);
    paths.binary_search(&library).is_ok() && library.is_file()
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
