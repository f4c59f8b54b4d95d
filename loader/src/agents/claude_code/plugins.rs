//! The hooks of the Claude Code plugins a user installed (`~/.claude/plugins/`), read in
//! Claude Code's dialect: the procedure of its provider (`own_files` in its profile).

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::{
    agent::FoundFiles,
    file::{read_capped, FileError, Limit},
};

/// The hooks of the Claude Code plugins a user installed (under `home`): each
/// `hooks/hooks.json` of the install paths in `~/.claude/plugins/installed_plugins.json`
/// (or, without that file, of the newest version of each plugin in
/// `~/.claude/plugins/cache/<marketplace>/<plugin>/`), leaving out plugins
/// `~/.claude/settings.json` disables in `enabledPlugins`; each named
/// `<plugin@marketplace>/hooks/hooks.json`, from the source `source`. Their hooks get
/// `CLAUDE_PLUGIN_ROOT`.
pub(super) fn find(home: &Path, source: &str) -> FoundFiles {
    let plugins = home.join(".claude/plugins");
    let mut found = FoundFiles::default();
    let disabled = disabled_plugins(&home.join(".claude/settings.json"));
    for (id, root) in installed(&plugins, &mut found.warnings) {
        if disabled.contains(&id) {
            continue;
        }
        let file = root.join("hooks/hooks.json");
        if file.is_file() {
            found
                .files
                .push((format!("{id}/hooks/hooks.json"), source.to_owned(), file));
        }
    }
    found
}

/// The JSON of `path`, read with a hooks file's cap (a file of gigabytes is refused
/// unread). `None` when it does not exist; why not, when it cannot be read or parsed.
fn read_json(path: &Path) -> Option<Result<Value, String>> {
    match read_capped(path, Limit::HooksFile) {
        Err(FileError::NotFound { .. }) => None,
        Err(e) => Some(Err(e.to_string())),
        Ok(read) => Some(
            serde_json::from_slice(&read.bytes)
                .map_err(|e| format!("{} is not valid JSON: {e}", path.display())),
        ),
    }
}

/// `(plugin@marketplace, install path)` of each installed plugin, in a stable order. A
/// registry that cannot be read is said in `warnings`, and the plugins are then looked for
/// in the cache, as without one.
fn installed(plugins: &Path, warnings: &mut Vec<String>) -> Vec<(String, PathBuf)> {
    let registry = match read_json(&plugins.join("installed_plugins.json")) {
        Some(Ok(registry)) => Some(registry),
        Some(Err(why)) => {
            warnings.push(format!(
                "{why}; the Claude Code plugins' hooks are looked for in {} instead",
                plugins.join("cache").display()
            ));
            None
        }
        None => None,
    };
    let mut found = Vec::new();
    if let Some(registry) = registry {
        collect_install_paths(&registry, "", &mut found);
    } else {
        for marketplace in sorted_dirs(&plugins.join("cache")) {
            for plugin in sorted_dirs(&marketplace) {
                if let Some(newest) = sorted_dirs(&plugin).pop() {
                    let id = format!("{}@{}", file_name(&plugin), file_name(&marketplace));
                    found.push((id, newest));
                }
            }
        }
    }
    found
}

/// Every `installPath` in the registry, with the `name@marketplace` key it stands under.
fn collect_install_paths(value: &Value, key: &str, found: &mut Vec<(String, PathBuf)>) {
    match value {
        Value::Object(fields) => {
            if let Some(path) = fields.get("installPath").and_then(Value::as_str) {
                found.push((key.to_owned(), PathBuf::from(path)));
            }
            for (k, v) in fields {
                let key = if k.contains('@') { k.as_str() } else { key };
                collect_install_paths(v, key, found);
            }
        }
        Value::Array(items) => items
            .iter()
            .for_each(|v| collect_install_paths(v, key, found)),
        _ => {}
    }
}

/// The plugins `enabledPlugins` sets to `false`. A settings file that cannot be read is
/// reported where its own hooks are read.
fn disabled_plugins(settings: &Path) -> Vec<String> {
    read_json(settings)
        .and_then(Result::ok)
        .and_then(|v| v.get("enabledPlugins").and_then(Value::as_object).cloned())
        .map(|enabled| {
            enabled
                .into_iter()
                .filter(|(_, on)| on == &Value::Bool(false))
                .map(|(id, _)| id)
                .collect()
        })
        .unwrap_or_default()
}

fn sorted_dirs(dir: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    dirs.sort();
    dirs
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The hooks file of a plugin folder given with `--hook` (a folder with
/// `.claude-plugin/plugin.json`), if it has one.
pub(super) fn folder_hooks(dir: &Path) -> Option<PathBuf> {
    let file = dir.join("hooks/hooks.json");
    (dir.join(".claude-plugin/plugin.json").is_file() && file.is_file()).then_some(file)
}
