//! Codex's review of hooks (`/hooks`), honoured: Codex records, per hook, whether its user
//! turned it off and the hash of the hook its user trusted, in the `[hooks.state]` table of
//! `~/.codex/config.toml`, under the key `<file>:<event>:<group>:<handler>`
//! (`/home/u/.codex/config.toml:pre_tool_use:0:0`). The hash is `sha256:` and the SHA-256
//! of the hook's normalized identity as compact JSON with sorted keys: `event_name` (the
//! event in snake case), `matcher` (for the events that have one), and `hooks` holding the
//! one handler as `type`, `command`, `timeout` (Codex's 600 when none), `async` and
//! `statusMessage` when given. Measured against Codex 0.171.0, whose `codex app-server`
//! lists each hook's key, current hash and trust status.
//!
//! What agent-hooks does with it: a hook Codex's user turned off, or that changed since
//! Codex's user trusted it, does not run (with a warning that says so); a project file
//! whose every hook Codex's user trusted as it is now needs no `agent-hooks trust`.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
};

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::{
    command_hook::{ConfigIssue, Severity},
    file::{read_checked, Limit, StrictModes},
};

/// Codex's record of one hook.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Record {
    enabled: Option<bool>,
    trusted_hash: Option<String>,
}

/// The `[hooks.state]` table of the user's `~/.codex/config.toml`.
#[derive(Debug, Clone, Default)]
pub struct CodexState {
    records: BTreeMap<String, Record>,
    /// The file it was read from (for messages).
    file: PathBuf,
}

/// What Codex says of one hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CodexVerdict {
    /// Its user trusted it as it is now.
    Trusted,
    /// Its user has not reviewed it.
    NotReviewed,
    /// It changed since its user trusted it.
    Modified,
    /// Its user turned it off.
    Disabled,
}

/// One command hook of a Codex file, with its key, hash and verdict.
#[derive(Debug, Clone)]
pub struct CodexHook {
    /// `<file>:<event>:<group>:<handler>`.
    pub key: String,
    /// `sha256:<hex>`.
    pub hash: String,
    /// Its event's name as the file gives it.
    pub event: String,
    /// Its group's index under the event.
    pub group: usize,
    /// Its index in the group.
    pub handler: usize,
    /// What Codex's review says.
    pub verdict: CodexVerdict,
}

impl CodexState {
    /// The state in `<home>/.codex/config.toml`; empty when it is absent or unreadable (a
    /// broken file is Codex's to report; nothing in it is then trusted).
    pub fn read(home: Option<&Path>) -> Self {
        let Some(home) = home else {
            return Self::default();
        };
        let file = home.join(".codex/config.toml");
        let mut state = Self {
            records: BTreeMap::new(),
            file: file.clone(),
        };
        let Ok(read) = read_checked(&file, Limit::HooksFile, &mut StrictModes::new(Some(home)))
        else {
            return state;
        };
        let Ok(text) = std::str::from_utf8(&read.bytes) else {
            return state;
        };
        let Ok(value) = toml::from_str::<Value>(text) else {
            return state;
        };
        if let Some(records) = value.pointer("/hooks/state").and_then(Value::as_object) {
            for (key, record) in records {
                state.records.insert(
                    key.clone(),
                    Record {
                        enabled: record.get("enabled").and_then(Value::as_bool),
                        trusted_hash: record
                            .get("trusted_hash")
                            .and_then(Value::as_str)
                            .map(str::to_owned),
                    },
                );
            }
        }
        state
    }

    /// The command hooks of the Codex hooks file `path`, as read (and normalized) into
    /// `file`, each with what Codex's review says of it.
    pub fn review(&self, file: &Value, path: &Path) -> Vec<CodexHook> {
        let events = match file.get("hooks") {
            Some(Value::Object(events)) => events,
            _ => match file.as_object() {
                Some(events) => events,
                None => return Vec::new(),
            },
        };
        let keys = key_paths(path);
        let mut hooks = Vec::new();
        for (event, groups) in events {
            let label = snake_case(event);
            let Some(groups) = groups.as_array() else {
                continue;
            };
            for (g, group) in groups.iter().enumerate() {
                let matcher = uses_matcher(&label)
                    .then(|| group.get("matcher").and_then(Value::as_str))
                    .flatten();
                let Some(handlers) = group.get("hooks").and_then(Value::as_array) else {
                    continue;
                };
                for (h, handler) in handlers.iter().enumerate() {
                    let Some(hash) = hook_hash(&label, matcher, handler) else {
                        continue;
                    };
                    let found = keys.iter().find_map(|base| {
                        let key = format!("{base}:{label}:{g}:{h}");
                        self.records.get(&key).map(|r| (key, r.clone()))
                    });
                    let key = match &found {
                        Some((key, _)) => key.clone(),
                        None => format!("{}:{label}:{g}:{h}", keys[0]),
                    };
                    let record = found.map(|(_, r)| r).unwrap_or_default();
                    let verdict = if record.enabled == Some(false) {
                        CodexVerdict::Disabled
                    } else {
                        match record.trusted_hash {
                            Some(trusted) if trusted == hash => CodexVerdict::Trusted,
                            Some(_) => CodexVerdict::Modified,
                            None => CodexVerdict::NotReviewed,
                        }
                    };
                    hooks.push(CodexHook {
                        key,
                        hash,
                        event: event.clone(),
                        group: g,
                        handler: h,
                        verdict,
                    });
                }
            }
        }
        hooks
    }

    /// Removes from `file` the hooks Codex's user turned off or that changed since they
    /// were trusted, with a warning for each.
    pub fn withhold(&self, file: &mut Value, path: &Path) -> Vec<ConfigIssue> {
        let mut issues = Vec::new();
        let mut withheld: Vec<CodexHook> = self
            .review(file, path)
            .into_iter()
            .filter(|h| matches!(h.verdict, CodexVerdict::Disabled | CodexVerdict::Modified))
            .collect();
        // Last first, so that the indexes of the ones still to remove stay right.
        withheld.sort_by_key(|h| std::cmp::Reverse((h.group, h.handler)));
        let settings_form = matches!(file.get("hooks"), Some(Value::Object(_)));
        for hook in &withheld {
            let groups = if settings_form {
                file.get_mut("hooks").and_then(|h| h.get_mut(&hook.event))
            } else {
                file.get_mut(&hook.event)
            };
            if let Some(handlers) = groups
                .and_then(|g| g.get_mut(hook.group))
                .and_then(|g| g.get_mut("hooks"))
                .and_then(Value::as_array_mut)
            {
                if hook.handler < handlers.len() {
                    handlers.remove(hook.handler);
                }
            }
            let why = match hook.verdict {
                CodexVerdict::Disabled => format!(
                    "turned off in Codex (`enabled = false` for `{}` in the [hooks.state] of {}); it does not run",
                    hook.key,
                    self.file.display()
                ),
                _ => format!(
                    "changed since Codex's user trusted it (the `trusted_hash` of `{}` in the [hooks.state] of {} is not this hook's {}): review it in Codex (`/hooks`); it does not run",
                    hook.key,
                    self.file.display(),
                    hook.hash
                ),
            };
            issues.push(ConfigIssue {
                file: path.to_path_buf(),
                location: Some(format!(
                    "{}{}[{}].hooks[{}]",
                    if settings_form { "hooks." } else { "" },
                    hook.event,
                    hook.group,
                    hook.handler
                )),
                message: why,
                severity: Severity::Warning,
            });
        }
        issues.reverse();
        issues
    }

    /// Whether Codex's user trusted every command hook of `file` as it is now (and it has
    /// at least one).
    pub fn trusts_all(&self, file: &Value, path: &Path) -> bool {
        let hooks = self.review(file, path);
        !hooks.is_empty() && hooks.iter().all(|h| h.verdict == CodexVerdict::Trusted)
    }
}

/// The file's path as Codex writes it in a key: as given, and canonical when that differs.
fn key_paths(path: &Path) -> Vec<String> {
    let mut paths = vec![path.to_string_lossy().into_owned()];
    if let Ok(canonical) = std::fs::canonicalize(path) {
        let canonical = canonical.to_string_lossy().into_owned();
        if canonical != paths[0] {
            paths.push(canonical);
        }
    }
    paths
}

/// `PreToolUse` is `pre_tool_use`.
fn snake_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The events whose matcher is part of a hook's identity (Codex 0.171.0: a matcher on
/// `UserPromptSubmit` or `Stop` is ignored, and left out of the hash).
fn uses_matcher(label: &str) -> bool {
    matches!(
        label,
        "pre_tool_use"
            | "permission_request"
            | "post_tool_use"
            | "session_start"
            | "pre_compact"
            | "post_compact"
    )
}

/// The hash Codex records for a command `handler` of an event (`label`), or `None` for
/// another kind of handler (Codex reviews command hooks only).
pub fn hook_hash(label: &str, matcher: Option<&str>, handler: &Value) -> Option<String> {
    if !matches!(
        handler.get("type").and_then(Value::as_str),
        None | Some("command")
    ) {
        return None;
    }
    let command = handler.get("command").and_then(Value::as_str)?;
    let timeout = handler
        .get("timeout")
        .and_then(Value::as_u64)
        .unwrap_or(super::PROFILE.default_timeout.as_secs())
        .max(1);
    let mut one = serde_json::Map::new();
    one.insert(
        "async".into(),
        Value::Bool(handler.get("async").and_then(Value::as_bool) == Some(true)),
    );
    one.insert("command".into(), Value::String(command.to_owned()));
    if let Some(message) = handler.get("statusMessage").and_then(Value::as_str) {
        one.insert("statusMessage".into(), Value::String(message.to_owned()));
    }
    one.insert("timeout".into(), Value::from(timeout));
    one.insert("type".into(), Value::String("command".into()));
    let mut identity = serde_json::Map::new();
    identity.insert("event_name".into(), Value::String(label.to_owned()));
    identity.insert("hooks".into(), Value::Array(vec![Value::Object(one)]));
    if let Some(matcher) = matcher {
        identity.insert("matcher".into(), Value::String(matcher.to_owned()));
    }
    let text = serde_json::to_vec(&sorted(Value::Object(identity))).ok()?;
    let digest = Sha256::digest(&text);
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    Some(format!("sha256:{hex}"))
}

/// `value` with every object's keys in sorted order, whatever the map keeps.
fn sorted(value: Value) -> Value {
    match value {
        Value::Object(fields) => {
            let ordered: BTreeMap<String, Value> =
                fields.into_iter().map(|(k, v)| (k, sorted(v))).collect();
            Value::Object(ordered.into_iter().collect())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
        other => other,
    }
}

/// Whether the Codex `config.toml` (or `requirements.toml`) at `path` has a `[hooks]`
/// table with anything in it but `state`; an unreadable or invalid file counts (its problem
/// is then reported where it is read).
pub fn has_hooks_table(path: &Path, home: Option<&Path>) -> bool {
    match read_checked(path, Limit::HooksFile, &mut StrictModes::new(home)) {
        Ok(file) => std::str::from_utf8(&file.bytes)
            .ok()
            .and_then(|text| toml::from_str::<Value>(text).ok())
            .map(|v| match v.get("hooks") {
                Some(Value::Object(hooks)) => hooks.keys().any(|k| k != "state"),
                Some(_) => true,
                None => false,
            })
            .unwrap_or(true),
        Err(e) => !matches!(e, crate::file::FileError::NotFound { .. }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Hashes `codex app-server` (Codex 0.171.0) listed for these hooks.
    #[test]
    fn hashes_are_codexs() {
        let cases = [
            (
                "post_tool_use",
                Some("Edit|Write"),
                json!({"type": "command", "command": "echo post", "timeout": 600}),
                "sha256:74ed7b02c705bdafe739da4f8e04dd20c0d59058c2b6324ed57799077809b64c",
            ),
            (
                "pre_tool_use",
                Some("Bash"),
                json!({"type": "command", "command": "echo pre", "timeout": 5}),
                "sha256:8876532ed5cfbf29b6307eeff062611ab1cc552d6d70f02c071cb48702610773",
            ),
            (
                "stop",
                None,
                json!({"type": "command", "command": "echo stop", "statusMessage": "stopping"}),
                "sha256:55bea05bf5a2bbf1a339ee4a677fb935af3403ba00be4ee2fc3e4a8c538ded64",
            ),
            (
                "pre_compact",
                Some("auto"),
                json!({"type": "command", "command": "echo compact"}),
                "sha256:4169b5105a80685be788568d94624355edb7a7c66adae469384733684610f1e4",
            ),
        ];
        for (label, matcher, handler, hash) in cases {
            assert_eq!(
                hook_hash(label, matcher, &handler).as_deref(),
                Some(hash),
                "{label}"
            );
        }
        assert_eq!(snake_case("UserPromptSubmit"), "user_prompt_submit");
        assert!(!uses_matcher("user_prompt_submit"));
    }

    #[test]
    fn disabled_and_changed_hooks_are_withheld_and_the_rest_stays() {
        let path = Path::new("/h/.codex/config.toml");
        let mut state = CodexState::default();
        let trusted = hook_hash(
            "pre_tool_use",
            Some("Bash"),
            &json!({"command": "a", "timeout": 600}),
        )
        .unwrap();
        state.records.insert(
            "/h/.codex/config.toml:pre_tool_use:0:0".into(),
            Record {
                enabled: None,
                trusted_hash: Some(trusted),
            },
        );
        state.records.insert(
            "/h/.codex/config.toml:pre_tool_use:0:1".into(),
            Record {
                enabled: None,
                trusted_hash: Some("sha256:old".into()),
            },
        );
        state.records.insert(
            "/h/.codex/config.toml:pre_tool_use:0:2".into(),
            Record {
                enabled: Some(false),
                trusted_hash: None,
            },
        );
        let mut file = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "a", "timeout": 600},
            {"type": "command", "command": "b", "timeout": 600},
            {"type": "command", "command": "c", "timeout": 600},
            {"type": "command", "command": "d", "timeout": 600},
        ]}]}});
        let verdicts: Vec<CodexVerdict> = state
            .review(&file, path)
            .into_iter()
            .map(|h| h.verdict)
            .collect();
        assert_eq!(
            verdicts,
            [
                CodexVerdict::Trusted,
                CodexVerdict::Modified,
                CodexVerdict::Disabled,
                CodexVerdict::NotReviewed
            ]
        );
        assert!(!state.trusts_all(&file, path));
        let issues = state.withhold(&mut file, path);
        let kept: Vec<&str> = file["hooks"]["PreToolUse"][0]["hooks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["command"].as_str().unwrap())
            .collect();
        assert_eq!(kept, ["a", "d"]);
        assert_eq!(issues.len(), 2);
        assert_eq!(
            issues[0].location.as_deref(),
            Some("hooks.PreToolUse[0].hooks[1]")
        );
        assert!(
            issues[0]
                .message
                .contains("changed since Codex's user trusted it"),
            "{}",
            issues[0]
        );
        assert!(
            issues[1].message.starts_with("turned off in Codex"),
            "{}",
            issues[1]
        );
    }
}
