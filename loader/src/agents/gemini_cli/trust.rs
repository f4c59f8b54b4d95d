//! Gemini CLI's record of trusted project hooks, as Gemini CLI 0.61.0 reads it, which
//! discovery honours.
//!
//! `~/.gemini/trusted_hooks.json` maps a project folder to the hooks
//! its user was shown (each `name:command`). Gemini CLI runs a trusted folder's hooks after
//! a warning and records them there; agent-hooks takes a project `.gemini/settings.json`
//! whose every hook is recorded for the project as trusted (a changed command is a new key,
//! so a changed hook is not).

use std::{collections::HashSet, path::Path};

use serde_json::Value;

use crate::file::{read_checked, Limit, StrictModes};

/// The project hooks Gemini CLI's user trusted: `~/.gemini/trusted_hooks.json`.
#[derive(Debug, Default)]
pub struct GeminiTrust {
    /// Project folder to the `name:command` keys recorded for it.
    projects: std::collections::HashMap<String, HashSet<String>>,
}

impl GeminiTrust {
    /// The record in `<home>/.gemini/trusted_hooks.json`; empty when absent or unreadable.
    pub fn read(home: Option<&Path>) -> Self {
        let Some(home) = home else {
            return Self::default();
        };
        let mut trust = Self::default();
        if let Some(Value::Object(projects)) =
            read_json(&home.join(".gemini/trusted_hooks.json"), home)
        {
            for (project, keys) in projects {
                let keys = keys
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|k| k.as_str().map(str::to_owned))
                    .collect();
                trust.projects.insert(project, keys);
            }
        }
        trust
    }

    /// Whether Gemini CLI's user trusted every hook of the settings `file` (as read) for
    /// `project`, and it has at least one.
    pub fn trusts_all(&self, file: &Value, project: &Path) -> bool {
        let candidates = [
            project.to_path_buf(),
            std::fs::canonicalize(project).unwrap_or_default(),
        ];
        let Some(keys) = candidates
            .iter()
            .find_map(|p| self.projects.get(p.to_string_lossy().as_ref()))
        else {
            return false;
        };
        let hooks = hook_keys(file);
        !hooks.is_empty() && hooks.iter().all(|k| keys.contains(k))
    }
}

/// Gemini CLI's key of each hook of a settings file: `name:command` (either may be empty).
fn hook_keys(file: &Value) -> Vec<String> {
    let Some(events) = file.get("hooks").and_then(Value::as_object) else {
        return Vec::new();
    };
    events
        .iter()
        .filter(|(name, _)| !super::PROFILE.not_events.contains(&name.as_str()))
        .filter_map(|(_, groups)| groups.as_array())
        .flatten()
        .filter_map(|group| group.get("hooks").and_then(Value::as_array))
        .flatten()
        .filter(|hook| hook.get("type").and_then(Value::as_str) != Some("runtime"))
        .map(|hook| {
            let text = |key| hook.get(key).and_then(Value::as_str).unwrap_or_default();
            let command = if hook.get("type").and_then(Value::as_str) == Some("command") {
                text("command")
            } else {
                ""
            };
            format!("{}:{command}", text("name"))
        })
        .collect()
}

/// A JSON file of the user's (comments allowed, as Gemini CLI's own files are read).
pub(crate) fn read_json(path: &Path, home: &Path) -> Option<Value> {
    let file = read_checked(path, Limit::HooksFile, &mut StrictModes::new(Some(home))).ok()?;
    let text = std::str::from_utf8(&file.bytes).ok()?;
    serde_json::from_str(text)
        .ok()
        .or_else(|| serde_json::from_str(&super::strip_comments(text)).ok())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_are_name_and_command() {
        let file = json!({"hooks": {"disabled": ["x"], "BeforeTool": [{"hooks": [
            {"name": "guard", "type": "command", "command": "./g.sh"},
            {"type": "command", "command": "./h.sh"}
        ]}]}});
        assert_eq!(hook_keys(&file), ["guard:./g.sh", ":./h.sh"]);
        let mut trust = GeminiTrust::default();
        trust
            .projects
            .insert("/p".into(), ["guard:./g.sh".to_owned()].into());
        assert!(!trust.trusts_all(&file, Path::new("/p")));
        trust
            .projects
            .get_mut("/p")
            .unwrap()
            .insert(":./h.sh".into());
        assert!(trust.trusts_all(&file, Path::new("/p")));
    }
}
