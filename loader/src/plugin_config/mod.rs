//! A plugin's configuration (the `config` host service, interface 1.1): the object in the
//! user's settings entry for the plugin, or else `lib<name>.toml` or `lib<name>.json` next to
//! the library. The host parses the file (and reports a syntax error with its line and
//! column); the plugin reads the value into its own type (and names the field that does not
//! fit, with the positions the host gives).

mod toml_file;

use std::path::{Path, PathBuf};

use agent_hooks_abi::services::{ConfigAnswer, Position};
use serde_json::Value;

use crate::file::{read_checked, FileError, Limit, StrictModes};

/// A plugin's configuration object given by the agent's settings (see
/// docs/writing-plugins.md, "Where it runs, and its configuration"); it wins over a file next
/// to the library.
#[derive(Debug, Clone, PartialEq)]
pub struct PluginConfig {
    /// The object handed to the plugin.
    pub value: Value,
    /// Where it was written, for messages: e.g. `plugins."libguard.so".config in
    /// ~/.config/agent-hooks/settings.json`.
    pub source: String,
}

/// Finds and reads the configuration of the plugin library `library`: `given` when the
/// settings hold one, else a file next to the library. `Err` is a message that names the
/// file and the position of what does not parse.
pub(crate) fn find(given: Option<&PluginConfig>, library: &Path) -> Result<ConfigAnswer, String> {
    let mut answer = ConfigAnswer::default();
    if let Some(config) = given {
        answer.source = Some(config.source.clone());
        answer.value = config.value.clone();
        return Ok(answer);
    }
    if library.as_os_str().is_empty() {
        // A hook of the host's own binary: no library, so no file next to it.
        answer.value = Value::Object(Default::default());
        return Ok(answer);
    }
    let [toml, json] = siblings(library);
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let mut modes = StrictModes::new(home.as_deref());
    let mut read = |path: &Path| match read_checked(path, Limit::HooksFile, &mut modes) {
        Ok(file) => String::from_utf8(file.bytes)
            .map(Some)
            .map_err(|_| format!("{}: not UTF-8 text", path.display())),
        Err(FileError::NotFound { .. }) => Ok(None),
        Err(error) => Err(error.to_string()),
    };
    match (read(&toml)?, read(&json)?) {
        (Some(_), Some(_)) => Err(format!(
            "{} and {} both exist: keep one of them",
            toml.display(),
            json.display()
        )),
        (Some(text), None) => {
            let (value, positions) = toml_file::parse(&text)
                .map_err(|(position, message)| at(&toml, position, &message))?;
            answer.source = Some(toml.display().to_string());
            answer.value = value;
            answer.positions = positions;
            Ok(answer)
        }
        (None, Some(text)) => {
            let value = serde_json::from_str(&text).map_err(|e| {
                let position = Position {
                    line: e.line(),
                    column: e.column(),
                };
                let message = e.to_string();
                let message = message
                    .rfind(" at line ")
                    .map_or(message.as_str(), |cut| &message[..cut]);
                at(&json, Some(position), message)
            })?;
            answer.source = Some(json.display().to_string());
            answer.value = value;
            answer.json_text = Some(text);
            Ok(answer)
        }
        (None, None) => {
            answer.looked_in = vec![toml.display().to_string(), json.display().to_string()];
            answer.value = Value::Object(Default::default());
            Ok(answer)
        }
    }
}

/// `lib<name>.toml` and `lib<name>.json` next to `lib<name>.so`: the files a plugin's
/// configuration is read from (trust covers them, see `discover`).
pub(crate) fn siblings(library: &Path) -> [PathBuf; 2] {
    ["toml", "json"].map(|extension| library.with_extension(extension))
}

fn at(file: &Path, position: Option<Position>, message: &str) -> String {
    match position {
        Some(position) => format!("{}, {position}: {message}", file.display()),
        None => format!("{}: {message}", file.display()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hook_without_a_library_has_an_empty_configuration() {
        let answer = find(None, Path::new("")).unwrap();
        assert_eq!(answer.source, None);
        assert!(answer.looked_in.is_empty());
        assert_eq!(answer.value, serde_json::json!({}));
    }

    #[test]
    fn the_files_are_named_after_the_library() {
        assert_eq!(
            siblings(Path::new("/p/libguard.so")),
            [
                PathBuf::from("/p/libguard.toml"),
                PathBuf::from("/p/libguard.json")
            ]
        );
    }
}
