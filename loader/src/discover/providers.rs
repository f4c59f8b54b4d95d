//! Where hooks are found. Each provider yields entries; providers run by priority, highest
//! first (equal priority: registration order).

use std::path::{Path, PathBuf};

use super::{
    scan::{scan_hooks_folder, Found},
    Level,
};
use crate::{
    agents::Agent,
    file::{read_checked, FileError, Limit, StrictModes},
};

/// What providers know of the agent and the user.
#[derive(Debug, Clone)]
pub struct DiscoveryContext {
    /// The agent's name, which names its folders (`.<name>/hooks`).
    pub app_name: String,
    /// The project folder.
    pub cwd: PathBuf,
    /// The user's home folder.
    pub home: Option<PathBuf>,
    /// The agent's user configuration folder (`~/.config/<name>` by default).
    pub config_dir: PathBuf,
    /// The system roots managed files are read under: `/` first, then the test root of
    /// [`DiscoveryOptions::managed_root`](super::DiscoveryOptions::managed_root), if any.
    pub managed_roots: Vec<PathBuf>,
}

/// A source of hooks.
pub trait DiscoveryProvider: Send + Sync {
    /// The provider's name, shown as the source of its entries.
    fn name(&self) -> &str;
    /// Higher runs first; its entries shadow later ones with the same key.
    fn priority(&self) -> i32;
    /// The hooks it finds. An error is a warning of discovery, not a failure of it.
    fn discover(&self, ctx: &DiscoveryContext) -> Result<Found, String>;
    /// The agent whose hooks files it reads (`None`: agent-hooks' own, or any other source).
    fn agent(&self) -> Option<Agent> {
        None
    }
    /// The level of the files it reads, where it reads one level only.
    fn level(&self) -> Option<Level> {
        None
    }
}

/// The agent's own hooks folder of the user: `<config_dir>/hooks`.
pub struct AgentUserHooks;

/// The agent's own hooks folder of the project: `<cwd>/.<name>/hooks`.
pub struct AgentProjectHooks;

impl DiscoveryProvider for AgentUserHooks {
    fn name(&self) -> &str {
        "agent (user)"
    }

    fn priority(&self) -> i32 {
        100
    }

    fn discover(&self, ctx: &DiscoveryContext) -> Result<Found, String> {
        Ok(scan_hooks_folder(
            &ctx.config_dir.join("hooks"),
            Level::User,
            self.name(),
        ))
    }

    fn level(&self) -> Option<Level> {
        Some(Level::User)
    }
}

impl DiscoveryProvider for AgentProjectHooks {
    fn name(&self) -> &str {
        "agent (project)"
    }

    fn priority(&self) -> i32 {
        90
    }

    fn discover(&self, ctx: &DiscoveryContext) -> Result<Found, String> {
        let dir = ctx.cwd.join(format!(".{}", ctx.app_name)).join("hooks");
        Ok(scan_hooks_folder(&dir, Level::Project, self.name()))
    }

    fn level(&self) -> Option<Level> {
        Some(Level::Project)
    }
}

/// Whether a settings file exists and has a `hooks` key (or cannot be read, so that its
/// problem is reported when it is loaded). Read with the checks of every hook file: a FIFO
/// or a device is not read.
pub(super) fn has_hooks_key(path: &Path, home: Option<&Path>) -> bool {
    match read_checked(path, Limit::HooksFile, &mut StrictModes::new(home)) {
        Ok(file) => serde_json::from_slice::<serde_json::Value>(&file.bytes)
            .map(|v| v.get("hooks").is_some())
            .unwrap_or(true),
        Err(e) => !matches!(e, FileError::NotFound { .. }),
    }
}
