//! A newer plugin in an older host: the SDK asks the host's interface version once and
//! speaks to it in its own shapes. Today one result differs: a 1.0 host takes no
//! `session_start` result (1.1 added [`SessionStartResult`](crate::events::SessionStartResult)).

use std::sync::{atomic::AtomicBool, OnceLock};

use super::{adapters::UnknownResult, Host};
use crate::{events::EventKind, services::major_minor};

/// The host's interface version (`major.minor`), asked once per plugin library.
fn host_version(host: &Host) -> &'static str {
    static VERSION: OnceLock<String> = OnceLock::new();
    VERSION.get_or_init(|| {
        host.interface_version()
            .map(|v| major_minor(&v))
            .unwrap_or_default()
    })
}

/// Whether `version` (`major.minor`) is older than `1.minor`.
fn older_than_1(version: &str, minor: u32) -> bool {
    let mut parts = version.split('.');
    match (
        parts.next(),
        parts.next().and_then(|m| m.parse::<u32>().ok()),
    ) {
        (Some("1"), Some(host_minor)) => host_minor < minor,
        _ => false,
    }
}

/// For an event whose result the host cannot read, what to report instead of sending it.
pub(crate) fn result_unknown_to_host(kind: EventKind, host: &Host) -> Option<UnknownResult> {
    if kind != EventKind::SessionStart {
        return None;
    }
    let version = host_version(host);
    older_than_1(version, 1).then(|| UnknownResult {
        message: format!(
            "session_start context is not supported by this agent (interface {version}; it \
             needs 1.1): the context was not added"
        ),
        reported: AtomicBool::new(false),
    })
}

#[cfg(test)]
mod tests {
    use super::older_than_1;

    #[test]
    fn versions_older_than_a_minor() {
        assert!(older_than_1("1.0", 1));
        assert!(!older_than_1("1.1", 1));
        assert!(!older_than_1("1.2", 1));
        assert!(!older_than_1("2.0", 1));
        assert!(!older_than_1("", 1));
    }
}
