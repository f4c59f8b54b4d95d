//! The interface's version policy, applied before abi_stable's checks (which, from 1.0,
//! only compare majors and say nothing of what to do): a plugin loads when it was built
//! against the host's major version of `agent-hooks-abi`, whatever the minor. Each refusal
//! says which side to upgrade or rebuild.

use std::path::Path;

use abi_stable::sabi_types::{VersionNumber, VersionStrings};

use super::LoadError;

/// Refuses a plugin built against another major version of the interface than `host`.
pub(crate) fn check(
    resolved: &Path,
    plugin: VersionStrings,
    host: &'static str,
) -> Result<(), LoadError> {
    let host = VersionNumber::new(VersionStrings::new(host));
    let plugin = VersionNumber::new(plugin);
    let (Ok(host), Ok(plugin)) = (host, plugin) else {
        // An unreadable version is abi_stable's to report, with its own text.
        return Ok(());
    };
    refuse(resolved, plugin, host).map_or(Ok(()), Err)
}

/// The refusal of a plugin built against `plugin` by a host of `host`, if any.
pub(crate) fn refuse(
    resolved: &Path,
    plugin: VersionNumber,
    host: VersionNumber,
) -> Option<LoadError> {
    let resolved = resolved.to_path_buf();
    let built = format!("{}.{}", plugin.major, plugin.minor);
    let supported = match host.major {
        0 => format!("0.{}.x", host.minor),
        major => format!("{major}.x"),
    };
    let (plugin, host) = (major_of(plugin), major_of(host));
    if plugin > host {
        Some(LoadError::NewerInterface {
            resolved,
            plugin: built,
            host: supported,
        })
    } else if plugin < host {
        Some(LoadError::OlderInterface {
            resolved,
            plugin: built,
            host: supported,
        })
    } else {
        None
    }
}

/// The part of a version that must match: the major, and in `0.y` the minor too (cargo's
/// rule: `0.y` to `0.y+1` is a breaking change).
fn major_of(version: VersionNumber) -> (u32, u32) {
    match version.major {
        0 => (0, version.minor),
        major => (major, 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(plugin: &str, host: &'static str) -> Option<String> {
        let plugin = VersionNumber::new(VersionStrings::new(Box::leak(plugin.into()))).unwrap();
        let host = VersionNumber::new(VersionStrings::new(host)).unwrap();
        refuse(Path::new("p.so"), plugin, host).map(|e| e.to_string())
    }

    #[test]
    fn any_minor_of_the_same_major_loads_both_ways() {
        assert_eq!(refusal("1.0.0", "1.3.2"), None);
        assert_eq!(refusal("1.7.1", "1.0.0"), None);
    }

    #[test]
    fn another_major_says_which_side_to_upgrade_or_rebuild() {
        assert_eq!(
            refusal("2.0.0", "1.3.0").unwrap(),
            "p.so was built against agent-hooks-abi 2.0; this agent supports 1.x: upgrade the agent, or rebuild the plugin against agent-hooks-abi 1.x"
        );
        assert_eq!(
            refusal("1.4.0", "2.0.1").unwrap(),
            "p.so was built against agent-hooks-abi 1.4; this agent supports 2.x: rebuild the plugin against agent-hooks-abi 2.x"
        );
        assert_eq!(
            refusal("0.1.0", "1.0.0").unwrap(),
            "p.so was built against agent-hooks-abi 0.1; this agent supports 1.x: rebuild the plugin against agent-hooks-abi 1.x"
        );
    }
}
