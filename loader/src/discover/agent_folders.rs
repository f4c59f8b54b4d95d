//! Providers for Copilot CLI's and Cursor's hooks files, where those agents read them:
//! Copilot CLI every `*.json` of the project's `.github/hooks/` and of the user's
//! `~/.copilot/hooks/` (`$COPILOT_HOME/hooks/` when that is set), in name order; Cursor
//! `.cursor/hooks.json` of the project and `~/.cursor/hooks.json`. Copilot CLI's settings
//! files with a `hooks` key (`~/.copilot/settings.json`, `.github/copilot/settings.json`,
//! `.github/copilot/settings.local.json`) too. Each file is read in its
//! agent's dialect (see [`Agent::of_file`](crate::agents::Agent::of_file)); project
//! files need trust like every project hook. (Copilot CLI's root-owned policy hooks in
//! `/etc/github-copilot/policy.d/` are read as Copilot CLI files too, by the managed layer.)

use std::path::{Path, PathBuf};

use super::{scan::Found, DiscoveryContext, DiscoveryProvider, EntryKind, HookEntry, Level};
use crate::agents::Agent;

/// Where one agent's hooks files are at one level.
#[derive(Debug, Clone, Copy)]
enum Place {
    /// Every `*.json` at the top of this folder (relative to the base), in name order.
    Folder(&'static str),
    /// This one file.
    File(&'static str),
    /// These settings files, each when it has a `hooks` key.
    Settings(&'static [&'static str]),
}

/// One agent's hooks files at one level (a table row: [`AgentFolders::COPILOT_USER`], ...).
pub struct AgentFolders {
    name: &'static str,
    agent: Agent,
    priority: i32,
    level: Level,
    place: Place,
}

impl AgentFolders {
    /// Copilot CLI, user level: `~/.copilot/hooks/*.json` (or `$COPILOT_HOME/hooks/`).
    pub const COPILOT_USER: AgentFolders = AgentFolders {
        name: "copilot (user)",
        agent: Agent::Copilot,
        priority: 30,
        level: Level::User,
        place: Place::Folder(".copilot/hooks"),
    };
    /// Copilot CLI, project level: `.github/hooks/*.json`.
    pub const COPILOT_PROJECT: AgentFolders = AgentFolders {
        name: "copilot (project)",
        agent: Agent::Copilot,
        priority: 25,
        level: Level::Project,
        place: Place::Folder(".github/hooks"),
    };
    /// Copilot CLI, user level: the `hooks` key of `~/.copilot/settings.json`.
    pub const COPILOT_USER_SETTINGS: AgentFolders = AgentFolders {
        name: "copilot settings (user)",
        agent: Agent::Copilot,
        priority: 29,
        level: Level::User,
        place: Place::Settings(&[".copilot/settings.json"]),
    };
    /// Copilot CLI, project level: the `hooks` key of `.github/copilot/settings.json` and
    /// `.github/copilot/settings.local.json`.
    pub const COPILOT_PROJECT_SETTINGS: AgentFolders = AgentFolders {
        name: "copilot settings (project)",
        agent: Agent::Copilot,
        priority: 24,
        level: Level::Project,
        place: Place::Settings(&[
            ".github/copilot/settings.json",
            ".github/copilot/settings.local.json",
        ]),
    };
    /// Cursor, user level: `~/.cursor/hooks.json`.
    pub const CURSOR_USER: AgentFolders = AgentFolders {
        name: "cursor (user)",
        agent: Agent::Cursor,
        priority: 20,
        level: Level::User,
        place: Place::File(".cursor/hooks.json"),
    };
    /// Cursor, project level: `.cursor/hooks.json`.
    pub const CURSOR_PROJECT: AgentFolders = AgentFolders {
        name: "cursor (project)",
        agent: Agent::Cursor,
        priority: 15,
        level: Level::Project,
        place: Place::File(".cursor/hooks.json"),
    };

    fn base(&self, ctx: &DiscoveryContext) -> Option<PathBuf> {
        match self.level {
            Level::Project => Some(ctx.cwd.clone()),
            _ => ctx.home.clone(),
        }
    }

    /// The folder or file, and how `list` names it.
    fn place(&self, ctx: &DiscoveryContext) -> Option<(PathBuf, String)> {
        let prefix = if self.level == Level::Project {
            ""
        } else {
            "~/"
        };
        if self.name == "copilot (user)" {
            if let Some(home) = std::env::var_os("COPILOT_HOME").filter(|h| !h.is_empty()) {
                let dir = PathBuf::from(home).join("hooks");
                let shown = format!("{}/", dir.display());
                return Some((dir, shown));
            }
        }
        let base = self.base(ctx)?;
        let (relative, shown) = match self.place {
            Place::Folder(relative) => (relative, format!("{prefix}{relative}/")),
            Place::File(relative) => (relative, format!("{prefix}{relative}")),
            Place::Settings(_) => ("", prefix.to_owned()),
        };
        Some((base.join(relative), shown))
    }
}

impl DiscoveryProvider for AgentFolders {
    fn agent(&self) -> Option<Agent> {
        Some(self.agent)
    }

    fn level(&self) -> Option<Level> {
        Some(self.level)
    }

    fn name(&self) -> &str {
        self.name
    }

    fn priority(&self) -> i32 {
        self.priority
    }

    fn discover(&self, ctx: &DiscoveryContext) -> Result<Found, String> {
        let mut found = Found::default();
        let Some((path, shown)) = self.place(ctx) else {
            return Ok(found);
        };
        let entry = |path: PathBuf, name: String| HookEntry {
            name,
            path,
            kind: EntryKind::HooksFile,
            tool: None,
            level: self.level,
            source: self.name.to_owned(),
        };
        match self.place {
            Place::Settings(files) => {
                for relative in files {
                    let file = path.join(relative);
                    if super::providers::has_hooks_key(&file, ctx.home.as_deref()) {
                        found
                            .entries
                            .push(entry(file, format!("{shown}{relative}")));
                    }
                }
            }
            Place::File(_) => {
                if path.exists() {
                    found.entries.push(entry(path, shown));
                }
            }
            Place::Folder(_) => {
                for file in json_files(&path) {
                    let name = format!("{shown}{}", file_name(&file));
                    found.entries.push(entry(file, name));
                }
            }
        }
        Ok(found)
    }
}

/// The `*.json` files at the top of `dir`, in name order (none when it does not exist).
fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "json") && !p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}
