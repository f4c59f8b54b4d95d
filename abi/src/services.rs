//! Host services: what grows within a major version.
//!
//! The checked boundary ([`crate::ffi`]) is frozen for the whole major version. Anything a
//! later minor version adds to what the host offers is a *service*: a name, a JSON request
//! and a JSON answer, reached through the one generic method `call` of
//! [`HostApi`](crate::ffi::HostApi) and [`HostContext`](crate::ffi::HostContext). The SDK's
//! typed methods are built on it. A host that does not offer a service answers
//! [`ServiceError::Unsupported`], naming its own interface version, so that a plugin built
//! against a newer minor gets an error value, never a panic.

use serde::{Deserialize, Serialize};

/// The service every host of this major version offers: declare a service as required.
/// Request: `{"service": "<name>", "needs": "<major.minor>"}`. A host that does not offer
/// the service refuses to load the plugin, saying to upgrade the host.
pub const REQUIRE: &str = "require";

/// The service that answers the host's interface version: `{"version": "1.0.0"}`.
pub const INTERFACE: &str = "interface";

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
