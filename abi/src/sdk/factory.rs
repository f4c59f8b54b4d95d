//! Added in 1.1: what a factory knows of where it runs, and its configuration.

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::HookApi;
use crate::services::{self, ConfigAnswer, PluginInfo, Position, ServiceError};

/// Why [`HookApi::config`] has no configuration to give. Return it from the factory with `?`:
/// the agent reports it as the plugin's load error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The host cannot give a configuration. Not returned since the fix that reads a 1.0
    /// host's missing service as no configuration (kept so that matches still compile).
    #[error("{0}")]
    Host(ServiceError),
    /// A configuration file does not parse; the message names the file, line and column.
    #[error("{0}")]
    Unreadable(String),
    /// The configuration does not fit the plugin's type.
    #[error("{}", invalid_text(.file, .path, .position, .message))]
    Invalid {
        /// Where the configuration comes from: the file, or the settings entry.
        file: String,
        /// The path of the value that does not fit (`limits.max_calls`, `rules[0]`), empty
        /// for the whole configuration.
        path: String,
        /// Where that value is in the file, when the host knows.
        position: Option<Position>,
        /// What serde said.
        message: String,
    },
}

fn invalid_text(file: &str, path: &str, position: &Option<Position>, message: &str) -> String {
    let at = position.map(|p| format!(", {p}")).unwrap_or_default();
    if path.is_empty() {
        format!("{file}{at}: {message}")
    } else {
        format!("{file}{at}: `{path}`: {message}")
    }
}

impl HookApi {
    /// Added in 1.1: where the plugin runs: its own file, the project folder, whether there
    /// is a UI.
    ///
    /// ```
    /// # use agent_hooks_abi::prelude::*;
    /// fn plugin(api: &mut HookApi) -> HandlerResult<()> {
    ///     let info = api.plugin_info()?;
    ///     let rules = info.project_dir.join(".guard-rules");
    ///     if !info.has_ui {
    ///         // No one can answer a confirmation: block instead of asking.
    ///     }
    ///     # let _ = rules;
    ///     Ok(())
    /// }
    /// ```
    ///
    /// A host older than 1.1 answers [`ServiceError::Unsupported`].
    pub fn plugin_info(&self) -> Result<PluginInfo, ServiceError> {
        self.host().call(services::PLUGIN, &serde_json::json!({}))
    }

    /// Added in 1.1: the plugin's configuration, read into `T` with serde.
    ///
    /// The host looks, in order, for the object at `plugins."<library file name>".config`
    /// in the user's `settings.json` (the entry that also sets the plugin's isolation and
    /// timeouts), then for `lib<name>.toml` or `lib<name>.json` next to the library. Without
    /// any, `T` is read from an empty object, so a type whose fields have defaults
    /// (`#[serde(default)]`) gets them. A file that does not parse, or a value that does not
    /// fit `T`, is an error that names the file, the field's path and, where the host knows,
    /// the line and column: return it with `?` and the agent shows it as the load error.
    ///
    /// ```
    /// # use agent_hooks_abi::prelude::*;
    /// use agent_hooks_abi::serde::Deserialize;
    ///
    /// #[derive(Deserialize)]
    /// #[serde(crate = "agent_hooks_abi::serde", default)]
    /// struct Config {
    ///     max_calls: u32,
    ///     blocked: Vec<String>,
    /// }
    ///
    /// impl Default for Config {
    ///     fn default() -> Self {
    ///         Self { max_calls: 100, blocked: vec!["rm -rf".into()] }
    ///     }
    /// }
    ///
    /// fn plugin(api: &mut HookApi) -> HandlerResult<()> {
    ///     // libguard.toml next to libguard.so:  max_calls = 10
    ///     let config: Config = api.config()?;
    ///     api.on(move |event: &ToolCallEvent, _ctx| {
    ///         let command = event.input["command"].as_str().unwrap_or_default();
    ///         let blocked = config.blocked.iter().any(|b| command.contains(b.as_str()));
    ///         Ok(blocked.then(|| ToolCallResult::block("blocked by the guard's configuration")))
    ///     });
    ///     Ok(())
    /// }
    /// ```
    ///
    /// A host of interface 1.0 has no configuration to give: `T` is then read from an empty
    /// object (its defaults, as with no file), and a warning goes to the plugin's log, so the
    /// example above loads in every 1.x agent.
    pub fn config<T: DeserializeOwned>(&self) -> Result<T, ConfigError> {
        let answer: ConfigAnswer = match self.host().call(services::CONFIG, &serde_json::json!({}))
        {
            Ok(answer) => answer,
            Err(ServiceError::Unsupported { host, .. }) => {
                self.host().log(
                    crate::services::LogLevel::Warn,
                    &format!(
                        "this agent (interface {host}) gives plugins no configuration: the defaults are used"
                    ),
                );
                ConfigAnswer::default()
            }
            Err(ServiceError::Failed { message, .. }) => {
                return Err(ConfigError::Unreadable(message))
            }
        };
        read_config(answer)
    }
}

/// Reads `T` from the host's answer, naming the source, the path and the position of a
/// value that does not fit.
fn read_config<T: DeserializeOwned>(answer: ConfigAnswer) -> Result<T, ConfigError> {
    let source = match &answer.source {
        Some(source) => source.clone(),
        None if answer.looked_in.is_empty() => "no configuration".to_owned(),
        None => format!("no configuration ({})", answer.looked_in.join(", ")),
    };
    let invalid = |path: String, position: Option<Position>, message: String| {
        let path = if path == "." { String::new() } else { path };
        ConfigError::Invalid {
            file: source.clone(),
            path,
            position,
            message,
        }
    };
    if let Some(text) = &answer.json_text {
        let mut deserializer = serde_json::Deserializer::from_str(text);
        return serde_path_to_error::deserialize(&mut deserializer).map_err(|error| {
            let path = error.path().to_string();
            let inner = error.into_inner();
            let position = (inner.line() > 0).then(|| Position {
                line: inner.line(),
                column: inner.column(),
            });
            invalid(path, position, without_position(&inner.to_string()))
        });
    }
    let value = match answer.value {
        Value::Null => Value::Object(Default::default()),
        value => value,
    };
    serde_path_to_error::deserialize(value).map_err(|error| {
        let path = error.path().to_string();
        let position = nearest_position(&answer.positions, &path);
        invalid(path, position, error.into_inner().to_string())
    })
}

/// serde_json's message without its trailing " at line L column C" (said before it).
fn without_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(at) => message[..at].to_owned(),
        None => message.to_owned(),
    }
}

/// The position of `path`, or of the nearest enclosing value the host located.
fn nearest_position(
    positions: &std::collections::BTreeMap<String, Position>,
    path: &str,
) -> Option<Position> {
    let mut path = path;
    loop {
        if let Some(position) = positions.get(path) {
            return Some(*position);
        }
        let cut = path.rfind(['.', '['])?;
        path = &path[..cut];
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde::Deserialize;
    use serde_json::json;

    use super::*;

    #[derive(Debug, Deserialize, PartialEq)]
    struct Limits {
        max_calls: u32,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    struct Config {
        limits: Limits,
    }

    #[test]
    fn a_value_of_the_wrong_type_in_toml_is_named_by_path_and_position() {
        let answer = ConfigAnswer {
            source: Some("libguard.toml".into()),
            value: json!({"limits": {"max_calls": "ten"}}),
            positions: BTreeMap::from([
                ("limits".into(), Position { line: 1, column: 1 }),
                (
                    "limits.max_calls".into(),
                    Position {
                        line: 2,
                        column: 13,
                    },
                ),
            ]),
            ..ConfigAnswer::default()
        };
        let error = read_config::<Config>(answer).unwrap_err();
        assert_eq!(
            error.to_string(),
            "libguard.toml, line 2, column 13: `limits.max_calls`: invalid type: string \"ten\", expected u32"
        );
    }

    #[test]
    fn a_missing_field_is_placed_at_the_table_that_lacks_it() {
        let answer = ConfigAnswer {
            source: Some("libguard.toml".into()),
            value: json!({"limits": {}}),
            positions: BTreeMap::from([("limits".into(), Position { line: 3, column: 1 })]),
            ..ConfigAnswer::default()
        };
        assert_eq!(
            read_config::<Config>(answer).unwrap_err().to_string(),
            "libguard.toml, line 3, column 1: `limits`: missing field `max_calls`"
        );
    }

    #[test]
    fn a_json_file_is_read_with_its_own_positions() {
        let answer = ConfigAnswer {
            source: Some("libguard.json".into()),
            json_text: Some("{\n  \"limits\": {\"max_calls\": -1}\n}".into()),
            ..ConfigAnswer::default()
        };
        assert_eq!(
            read_config::<Config>(answer).unwrap_err().to_string(),
            "libguard.json, line 2, column 28: `limits.max_calls`: invalid value: integer `-1`, expected u32"
        );
    }

    #[test]
    fn without_a_configuration_the_type_is_read_from_an_empty_object() {
        #[derive(Debug, Deserialize, PartialEq, Default)]
        #[serde(default)]
        struct Defaults {
            max_calls: u32,
        }
        let answer = ConfigAnswer {
            looked_in: vec!["libguard.toml".into(), "libguard.json".into()],
            ..ConfigAnswer::default()
        };
        assert_eq!(
            read_config::<Defaults>(answer.clone()).unwrap(),
            Defaults::default()
        );
        assert_eq!(
            read_config::<Config>(answer).unwrap_err().to_string(),
            "no configuration (libguard.toml, libguard.json): missing field `limits`"
        );
    }
}
