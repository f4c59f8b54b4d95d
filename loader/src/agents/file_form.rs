//! How each agent's hooks file is read into the map of events the reader takes: JSON (with
//! comments for Gemini CLI's files), or TOML for Codex's `config.toml` and
//! `requirements.toml`; then each agent's own keys and defaults are given their meaning
//! (`codex_cli::normalize`, `gemini_cli::normalize`).

use std::path::Path;

use serde_json::Value;

use super::{codex_cli as codex, gemini_cli, qwen_code, Agent};
use crate::command_hook::{ConfigIssue, Severity};

/// Whether `source` is a TOML hooks file: only Codex writes hooks in TOML.
pub fn is_toml(source: &Path) -> bool {
    source.extension().is_some_and(|e| e == "toml")
}

/// The dialect of the hooks file at `source`: [`Agent::of_file`]; and a `.toml` file is
/// Codex's whatever its folder (`/etc/codex/requirements.toml`), and a Gemini CLI
/// extension's `hooks/hooks.json` is Gemini CLI's wherever it lies (a linked extension).
pub fn dialect_of(source: &Path) -> Agent {
    if is_toml(source) {
        Agent::Codex
    } else if gemini_cli::extension_root(source).is_some() {
        Agent::Gemini
    } else {
        Agent::of_file(source)
    }
}

/// The file's value, normalized for `dialect`, or why none of its hooks load.
pub fn read(bytes: &[u8], source: &Path, dialect: Agent) -> Result<Value, ConfigIssue> {
    let mut value = if is_toml(source) {
        codex::toml_as_json(bytes, source)?
    } else {
        read_json(bytes, source, dialect)?
    };
    match dialect {
        Agent::Codex => codex::normalize(&mut value),
        Agent::Gemini => {
            if gemini_cli::hooks_turned_off(&value) {
                return Err(ConfigIssue {
                    file: source.to_path_buf(),
                    location: Some("hooksConfig.enabled".into()),
                    message: "Gemini CLI's hooks are turned off in this file (`enabled: false`); none of its hooks run".into(),
                    severity: Severity::Warning,
                });
            }
            gemini_cli::normalize(&mut value, source);
        }
        Agent::Qwen if qwen_code::hooks_turned_off(&value) => {
            return Err(ConfigIssue {
                file: source.to_path_buf(),
                location: Some("disableAllHooks".into()),
                message: "Qwen Code's hooks are turned off in this file (`disableAllHooks: true`); none of its hooks run".into(),
                severity: Severity::Warning,
            });
        }
        _ => {}
    }
    Ok(value)
}

fn read_json(bytes: &[u8], source: &Path, dialect: Agent) -> Result<Value, ConfigIssue> {
    let invalid = |e: serde_json::Error| ConfigIssue {
        file: source.to_path_buf(),
        location: Some(format!("line {}, column {}", e.line(), e.column())),
        message: format!("invalid JSON: {e}; no hook of this file is loaded"),
        severity: Severity::Error,
    };
    match serde_json::from_slice::<Value>(bytes) {
        Ok(value) => Ok(value),
        // Gemini CLI and Qwen Code strip comments before parsing their settings; Factory Droid
        // reads them too (a trailing comma makes it ignore the whole file).
        Err(e) if matches!(dialect, Agent::Gemini | Agent::Qwen | Agent::Droid) => {
            match std::str::from_utf8(bytes) {
                Ok(text) => {
                    serde_json::from_str(&gemini_cli::strip_comments(text)).map_err(invalid)
                }
                Err(_) => Err(invalid(e)),
            }
        }
        Err(e) => Err(invalid(e)),
    }
}
