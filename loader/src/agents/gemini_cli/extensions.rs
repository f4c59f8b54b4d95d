//! Gemini CLI's extensions, as Gemini CLI 0.61.0 reads them: the procedure of its provider
//! (`own_files` in its profile).
//!
//! Extensions: each folder of `~/.gemini/extensions/` with a `gemini-extension.json`
//! giving `name` and `version` is an extension; its hooks are the `hooks` object of its
//! `hooks/hooks.json`. An extension is on unless `extension-enablement.json` (in the same
//! folder) turns it off for the project: its `overrides` are folder rules (`/path/` that
//! folder, `/path/*` and below it, `!` before either turns it off), the last that matches
//! the project wins; and unless the user's settings refuse it (`security.allowedExtensions`,
//! patterns its install source must match; `security.blockGitExtensions`). A linked
//! extension (`.gemini-extension-install.json` with `"type": "link"`) lives where it points.
//! Extension hooks are the user's: they need no trust.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{hooks_turned_off, read_json};
use crate::agent::FoundFiles;

/// The hooks files of the Gemini CLI extensions a user installed (under `home`) and has on
/// for the project `cwd`: each named `gemini extension <name>: <file>`, from the source
/// `gemini-cli extension <name>`.
pub(super) fn find(home: &Path, cwd: &Path) -> FoundFiles {
    let folder = home.join(".gemini/extensions");
    let mut found = FoundFiles::default();
    let settings = read_json(&home.join(".gemini/settings.json"), home);
    if settings.as_ref().is_some_and(hooks_turned_off) {
        return found;
    }
    let enablement = read_json(&folder.join("extension-enablement.json"), home);
    let project = format!(
        "{}/",
        std::fs::canonicalize(cwd)
            .unwrap_or_else(|_| cwd.to_path_buf())
            .to_string_lossy()
            .trim_end_matches('/')
    );
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&folder)
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    dirs.sort();
    for dir in dirs.into_iter().filter(|d| d.is_dir()) {
        let Some(manifest) = read_json(&dir.join("gemini-extension.json"), home) else {
            // Only worth a word when it would have had hooks.
            if !dir.join("hooks/hooks.json").is_file() {
                continue;
            }
            found.warnings.push(format!(
                "{} has no readable gemini-extension.json; Gemini CLI skips it, and so do its hooks here",
                dir.display()
            ));
            continue;
        };
        let (Some(name), Some(_)) = (
            manifest.get("name").and_then(Value::as_str),
            manifest.get("version"),
        ) else {
            found.warnings.push(format!(
                "{}/gemini-extension.json lacks `name` or `version`; Gemini CLI skips the extension, and so do its hooks here",
                dir.display()
            ));
            continue;
        };
        if !enabled(enablement.as_ref(), name, &project) {
            continue;
        }
        let install = read_json(&dir.join(".gemini-extension-install.json"), home);
        if let Some(refusal) = refused_by_settings(settings.as_ref(), install.as_ref()) {
            found.warnings.push(format!(
                "Gemini CLI extension {name} ({}) is not loaded: {refusal}; nor are its hooks here",
                dir.display()
            ));
            continue;
        }
        let linked = install
            .as_ref()
            .filter(|i| i.get("type").and_then(Value::as_str) == Some("link"))
            .and_then(|i| i.get("source").and_then(Value::as_str))
            .map(PathBuf::from);
        let root = linked.unwrap_or_else(|| dir.clone());
        let file = root.join("hooks/hooks.json");
        if file.is_file() {
            found.files.push((
                format!("gemini extension {name}: {}", file.display()),
                format!("gemini-cli extension {name}"),
                file,
            ));
        }
    }
    found
}

/// Why the user's settings keep Gemini CLI from loading an extension installed as
/// `install` says (`.gemini-extension-install.json`): `security.allowedExtensions` (patterns
/// its source must match) or `security.blockGitExtensions` (no extension from git).
fn refused_by_settings(settings: Option<&Value>, install: Option<&Value>) -> Option<String> {
    let source = install
        .and_then(|i| i.get("source"))
        .and_then(Value::as_str);
    let allowed: Vec<&str> = settings
        .and_then(|s| s.pointer("/security/allowedExtensions"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    if !allowed.is_empty() {
        let Some(source) = source else {
            return Some("`security.allowedExtensions` is set and the extension has no install record (.gemini-extension-install.json) to check".into());
        };
        let matches = allowed
            .iter()
            .any(|pattern| regex::Regex::new(pattern).is_ok_and(|re| re.is_match(source)));
        return (!matches)
            .then(|| format!("its source {source} matches none of `security.allowedExtensions`"));
    }
    let kind = install.and_then(|i| i.get("type")).and_then(Value::as_str);
    let blocked = settings.and_then(|s| s.pointer("/security/blockGitExtensions"))
        == Some(&Value::Bool(true));
    (blocked && matches!(kind, Some("git" | "github-release")))
        .then(|| "`security.blockGitExtensions` refuses extensions installed from git".into())
}

/// Whether `extension-enablement.json` leaves the extension `name` on for `project` (a
/// folder path ending in `/`).
fn enabled(enablement: Option<&Value>, name: &str, project: &str) -> bool {
    let rules = enablement
        .and_then(|e| {
            e.pointer(&format!(
                "/{}/overrides",
                name.replace('~', "~0").replace('/', "~1")
            ))
        })
        .and_then(Value::as_array);
    let mut on = true;
    for rule in rules.into_iter().flatten().filter_map(Value::as_str) {
        let (off, rule) = match rule.strip_prefix('!') {
            Some(rule) => (true, rule),
            None => (false, rule),
        };
        let matches = match rule.strip_suffix('*') {
            Some(base) => {
                let base = base.trim_end_matches('/');
                project.starts_with(&format!("{base}/"))
            }
            None => project == rule,
        };
        if matches {
            on = !off;
        }
    }
    on
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_last_matching_rule_wins() {
        let rules = json!({"ext": {"overrides": ["!/home/u/*", "/home/u/work/"]}});
        assert!(!enabled(Some(&rules), "ext", "/home/u/other/"));
        assert!(enabled(Some(&rules), "ext", "/home/u/work/"));
        assert!(!enabled(Some(&rules), "ext", "/home/u/work/sub/"));
        assert!(enabled(Some(&rules), "other", "/home/u/other/"));
        assert!(enabled(None, "ext", "/x/"));
    }

    #[test]
    fn the_settings_can_refuse_an_extension() {
        let git = json!({"type": "git", "source": "https://github.com/x/ext"});
        let block = json!({"security": {"blockGitExtensions": true}});
        assert!(refused_by_settings(Some(&block), Some(&git)).is_some());
        assert!(refused_by_settings(
            Some(&block),
            Some(&json!({"type": "local", "source": "/e"}))
        )
        .is_none());
        let allow = json!({"security": {"allowedExtensions": ["^https://github\\.com/x/"]}});
        assert!(refused_by_settings(Some(&allow), Some(&git)).is_none());
        let other = json!({"type": "git", "source": "https://example.com/y"});
        assert!(refused_by_settings(Some(&allow), Some(&other)).is_some());
        assert!(refused_by_settings(Some(&allow), None).is_some());
        assert!(refused_by_settings(None, Some(&git)).is_none());
    }
}
