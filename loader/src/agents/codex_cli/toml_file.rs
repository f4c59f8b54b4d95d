//! Codex's hooks files as Codex reads them (measured with Codex 0.171.0, whose `codex
//! app-server` lists what it loaded): the `[hooks]` table of `config.toml` and of the
//! managed `requirements.toml` holds the same map of events to matcher groups as
//! `hooks.json`, written as TOML (`[[hooks.PreToolUse]]`, `[[hooks.PreToolUse.hooks]]`);
//! `[hooks.state]` is Codex's record of the user's review (`/hooks`), and `managed_dir` /
//! `windows_managed_dir` name where managed scripts live: neither is an event. A command
//! without `timeout` gets Codex's 600 seconds (`timeoutSec`, which some of Codex's docs
//! give, is not read by 0.171.0: such a hook is listed with 600).

use std::path::Path;

use serde_json::{Map, Value};

use super::PROFILE;
use crate::command_hook::{ConfigIssue, Severity};

/// The hooks JSON (`{"hooks": {...}}`) of a Codex TOML file read from `source`, or the
/// problem that keeps every hook of it from loading.
pub fn toml_as_json(bytes: &[u8], source: &Path) -> Result<Value, ConfigIssue> {
    let invalid = |location: Option<String>, message: String| ConfigIssue {
        file: source.to_path_buf(),
        location,
        message,
        severity: Severity::Error,
    };
    let text = std::str::from_utf8(bytes).map_err(|e| {
        invalid(
            None,
            format!("not UTF-8 text ({e}); no hook of this file is loaded"),
        )
    })?;
    let value: Value = toml::from_str(text).map_err(|e| {
        let location = e.span().map(|span| {
            let before = &text[..span.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            format!("line {line}, column {column}")
        });
        invalid(
            location,
            format!(
                "invalid TOML: {}; no hook of this file is loaded",
                e.message().trim_end()
            ),
        )
    })?;
    let mut top = Map::new();
    if let Some(hooks) = value.get("hooks") {
        top.insert("hooks".into(), hooks.clone());
    }
    Ok(Value::Object(top))
}

/// Gives a Codex hooks map Codex's meaning where it differs from Claude Code's: the keys
/// of `[hooks]` that are not events go, and a command without a timeout gets Codex's
/// default.
pub fn normalize(file: &mut Value) {
    let events = match file.get_mut("hooks") {
        Some(Value::Object(events)) => events,
        _ => match file {
            Value::Object(events) => events,
            _ => return,
        },
    };
    for key in PROFILE.not_events {
        events.remove(*key);
    }
    for groups in events.values_mut() {
        let Some(groups) = groups.as_array_mut() else {
            continue;
        };
        for group in groups {
            let Some(handlers) = group.get_mut("hooks").and_then(Value::as_array_mut) else {
                continue;
            };
            for handler in handlers.iter_mut().filter_map(Value::as_object_mut) {
                let command = matches!(
                    handler.get("type").and_then(Value::as_str),
                    None | Some("command")
                );
                if command {
                    handler
                        .entry("timeout")
                        .or_insert(Value::from(PROFILE.default_timeout.as_secs()));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hooks_table_reads_as_the_json_map_without_state() {
        let text = r#"
model = "x"
[hooks]
managed_dir = "/enterprise/hooks"
[[hooks.PreToolUse]]
matcher = "Bash"
[[hooks.PreToolUse.hooks]]
type = "command"
command = "guard"
timeout = 5
[[hooks.Stop]]
[[hooks.Stop.hooks]]
type = "command"
command = "done"
timeoutSec = 7
[hooks.state."/h/.codex/config.toml:pre_tool_use:0:0"]
trusted_hash = "sha256:00"
"#;
        let mut value = toml_as_json(text.as_bytes(), Path::new("config.toml")).unwrap();
        normalize(&mut value);
        assert_eq!(
            value,
            serde_json::json!({"hooks": {
                "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard", "timeout": 5}]}],
                "Stop": [{"hooks": [{"type": "command", "command": "done", "timeoutSec": 7, "timeout": 600}]}],
            }})
        );
    }

    #[test]
    fn a_requirements_toml_anywhere_is_codex_s() {
        // The managed file's shape, as Codex's own tests give it (managed_dir first).
        let text = "[hooks]\nmanaged_dir = \"/enterprise/place\"\n\n[[hooks.PreToolUse]]\nmatcher = \"^Bash$\"\n\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"python3 /enterprise/place/pre.py\"\n";
        let (hooks, issues) = crate::agents::parse_hooks_bytes(
            text.as_bytes(),
            Path::new("/etc/codex/requirements.toml"),
        );
        assert!(issues.is_empty(), "{issues:?}");
        assert_eq!(hooks.len(), 1);
        assert_eq!(hooks[0].dialect, crate::agents::Agent::Codex);
        assert_eq!(hooks[0].timeout, PROFILE.default_timeout);
        assert!(hooks[0].matcher.matches("Bash") && !hooks[0].matcher.matches("Bashful"));
    }

    #[test]
    fn invalid_toml_says_where() {
        let issue = toml_as_json(b"[hooks\nx = 1", Path::new("config.toml")).unwrap_err();
        assert_eq!(issue.location.as_deref(), Some("line 1, column 7"));
        assert!(issue.message.starts_with("invalid TOML: "), "{issue}");
    }
}
