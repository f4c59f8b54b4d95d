//! Host services: what grows within a major version.
//!
//! The checked boundary ([`crate::ffi`]) is frozen for the whole major version (but for the
//! root module `PluginModule`, which may grow at the end). Anything a
//! later minor version adds to what the host offers is a *service*: a name, a JSON request
//! and a JSON answer, reached through the one generic method `call` of
//! [`HostApi`](crate::ffi::HostApi) and [`HostContext`](crate::ffi::HostContext). The SDK's
//! typed methods are built on it. A host that does not offer a service answers
//! [`ServiceError::Unsupported`], naming its own interface version, so that a plugin built
//! against a newer minor gets an error value, never a panic.

use std::{collections::BTreeMap, fmt, path::PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The service every host of this major version offers: declare a service as required.
/// Request: `{"service": "<name>", "needs": "<major.minor>"}`. A host that does not offer
/// the service refuses to load the plugin, saying to upgrade the host.
pub const REQUIRE: &str = "require";

/// The service that answers the host's interface version: `{"version": "1.0.0"}`.
pub const INTERFACE: &str = "interface";

/// Added in 1.1: what the factory knows of where it runs. Request `{}`; answer
/// [`PluginInfo`]. See [`HookApi::plugin_info`](crate::HookApi::plugin_info).
pub const PLUGIN: &str = "plugin";

/// Added in 1.1: the plugin's configuration. Request `{}`; answer [`ConfigAnswer`]; a file
/// that does not parse is a [`ServiceError::Failed`] whose message names the file, line and
/// column. See [`HookApi::config`](crate::HookApi::config).
pub const CONFIG: &str = "config";

/// Added in 1.1: a record for the host's log. Request [`LogRecord`]; answer `null`. See
/// [`Host::log`](crate::Host::log).
pub const LOG: &str = "log";

/// How important a log record is, from the most to the least.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LogLevel {
    /// Something failed.
    Error,
    /// Something looks wrong.
    Warn,
    /// What happened, in a few words.
    Info,
    /// Details for whoever debugs the plugin.
    Debug,
    /// Every step.
    Trace,
}

impl LogLevel {
    /// The level's wire name: `error`, `warn`, `info`, `debug`, `trace`.
    pub const fn name(self) -> &'static str {
        match self {
            LogLevel::Error => "error",
            LogLevel::Warn => "warn",
            LogLevel::Info => "info",
            LogLevel::Debug => "debug",
            LogLevel::Trace => "trace",
        }
    }
}

impl fmt::Display for LogLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One record of a plugin's log: the request of the [`LOG`] service.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct LogRecord {
    /// How important it is.
    pub level: LogLevel,
    /// The text.
    pub message: String,
    /// Where in the plugin it comes from (a module path, with the `log` bridge).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
}

impl LogRecord {
    /// A record of `message` at `level`.
    pub fn new(level: LogLevel, message: impl Into<String>) -> Self {
        Self {
            level,
            message: message.into(),
            target: None,
        }
    }

    /// Sets `target` (builder style).
    #[must_use]
    pub fn target(mut self, target: impl Into<String>) -> Self {
        self.target = Some(target.into());
        self
    }
}

/// What a plugin's factory knows of where it runs: the answer of the [`PLUGIN`] service.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct PluginInfo {
    /// The plugin library's own file (resolved: absolute, links followed).
    pub path: PathBuf,
    /// The project folder the agent works in.
    pub project_dir: PathBuf,
    /// Whether the agent has an interactive UI (confirmations can be answered).
    pub has_ui: bool,
    /// The most detailed level the host keeps; records below it are dropped by the SDK
    /// before they cross. `None`: the host keeps no plugin log.
    pub log_level: Option<LogLevel>,
}

/// A line and a column in a file, both counted from 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Position {
    /// The line, from 1.
    pub line: usize,
    /// The column (in characters), from 1.
    pub column: usize,
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}", self.line, self.column)
    }
}

/// A plugin's configuration as the host found it: the answer of the [`CONFIG`] service.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct ConfigAnswer {
    /// Where it comes from (a file, or the settings entry that holds it); `None` when the
    /// plugin has no configuration.
    pub source: Option<String>,
    /// Where the host looked, for messages when there is none.
    pub looked_in: Vec<String>,
    /// The configuration, as JSON (an empty object when there is none).
    pub value: Value,
    /// The text of a JSON file, so that the plugin reads it with positions.
    pub json_text: Option<String>,
    /// Where each value of a TOML file starts, by its path (`limits.max_calls`,
    /// `rules[0].name`).
    pub positions: BTreeMap<String, Position>,
}

/// Why a host service did not answer.
///
/// Crosses the boundary as JSON (the error text of `call`). More kinds may come in later
/// versions: match with a wildcard.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ServiceError {
    /// The host does not offer the service: it is older than the interface the plugin was
    /// built against.
    #[error("this host does not offer `{service}`: interface {host}, the plugin needs {needs}")]
    Unsupported {
        /// The service's name.
        service: String,
        /// The host's interface version (`major.minor`).
        host: String,
        /// The interface version (`major.minor`) the plugin was built against, filled in by
        /// the plugin's SDK (the host cannot know it).
        #[serde(default)]
        needs: String,
    },
    /// The host offers the service, and it failed.
    #[error("`{service}` failed: {message}")]
    Failed {
        /// The service's name.
        service: String,
        /// What went wrong.
        message: String,
    },
}

impl ServiceError {
    /// The answer of a host that does not offer `service`.
    pub fn unsupported(service: &str) -> Self {
        ServiceError::Unsupported {
            service: service.to_owned(),
            host: major_minor(crate::INTERFACE_VERSION),
            needs: String::new(),
        }
    }

    /// A failure of `service`.
    pub fn failed(service: &str, message: impl Into<String>) -> Self {
        ServiceError::Failed {
            service: service.to_owned(),
            message: message.into(),
        }
    }

    /// This error as the error text of `call`.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| self.to_string())
    }

    /// Reads the error text of `call` for `service`; a text that is not a `ServiceError` is a
    /// failure with that text. `needs` fills in what the plugin was built against.
    pub fn from_json(service: &str, text: &str, needs: &str) -> Self {
        match serde_json::from_str(text) {
            Ok(ServiceError::Unsupported { service, host, .. }) => ServiceError::Unsupported {
                service,
                host,
                needs: needs.to_owned(),
            },
            Ok(other) => other,
            Err(_) => ServiceError::failed(service, text),
        }
    }
}

/// `major.minor` of a version such as `1.2.3`.
pub fn major_minor(version: &str) -> String {
    let mut parts = version.split('.');
    match (parts.next(), parts.next()) {
        (Some(major), Some(minor)) => format!("{major}.{minor}"),
        _ => version.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unsupported_answer_round_trips_and_the_plugin_side_names_what_it_needs() {
        let text = ServiceError::unsupported("log").to_json();
        let error = ServiceError::from_json("log", &text, "1.3");
        assert_eq!(
            error.to_string(),
            format!(
                "this host does not offer `log`: interface {}, the plugin needs 1.3",
                major_minor(crate::INTERFACE_VERSION)
            )
        );
    }

    #[test]
    fn a_plain_error_text_is_a_failure() {
        assert_eq!(
            ServiceError::from_json("log", "disk full", "1.0"),
            ServiceError::failed("log", "disk full")
        );
    }
}
