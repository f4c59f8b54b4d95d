//! The provider of an agent's hooks files at one of the places its profile names
//! ([`Place`]): the files of each agent whose profile names places, at the user's and the
//! project's level. Each file is read in its agent's dialect
//! ([`Agent::of_file`]); project files need trust like every project hook. Beside it, the
//! provider of the files of the user's that an agent finds by rules of its own
//! ([`OwnFiles`]: its extensions, its plugins), by its room's procedure.

use std::path::{Path, PathBuf};

use super::{
    scan::{scan_scripts, Found},
    DiscoveryContext, DiscoveryProvider, EntryKind, HookEntry, Level,
};
use crate::agents::{Agent, OwnFiles, Place, PlaceFiles, SCRIPT_FOLDERS};

/// One agent's hooks files of the user's that it finds by rules of its own (its extensions,
/// its plugins: its profile's `own_files`), by the procedure of its room.
#[derive(Debug, Clone, Copy)]
pub struct AgentOwnFiles {
    agent: Agent,
    files: &'static OwnFiles,
}

impl AgentOwnFiles {
    /// The providers of every agent's own files, in the order of [`Agent::ALL`].
    pub fn all() -> impl Iterator<Item = AgentOwnFiles> {
        Agent::ALL.into_iter().flat_map(|agent| {
            agent
                .profile()
                .own_files
                .iter()
                .map(move |files| AgentOwnFiles { agent, files })
        })
    }
}

impl DiscoveryProvider for AgentOwnFiles {
    fn name(&self) -> &str {
        self.files.provider
    }

    fn priority(&self) -> i32 {
        self.files.priority
    }

    fn agent(&self) -> Option<Agent> {
        Some(self.agent)
    }

    fn level(&self) -> Option<Level> {
        Some(Level::User)
    }

    fn discover(&self, ctx: &DiscoveryContext) -> Result<Found, String> {
        let Some(home) = &ctx.home else {
            return Ok(Found::default());
        };
        let found = (self.files.find)(home, &ctx.cwd);
        let entries = found
            .files
            .into_iter()
            .map(|(name, source, path)| HookEntry {
                name,
                path,
                kind: EntryKind::HooksFile,
                tool: None,
                level: Level::User,
                source,
            });
        Ok(Found {
            entries: entries.collect(),
            warnings: found.warnings,
        })
    }
}

/// One agent's hooks files at one place.
#[derive(Debug, Clone, Copy)]
pub struct AgentPlace {
    agent: Agent,
    place: &'static Place,
}

impl AgentPlace {
    /// The providers of every place of every agent, in the order of [`Agent::ALL`].
    pub fn all() -> impl Iterator<Item = AgentPlace> {
        Agent::ALL.into_iter().flat_map(|agent| {
            agent
                .profile()
                .places
                .iter()
                .map(move |place| AgentPlace { agent, place })
        })
    }

    fn level(&self) -> Level {
        if self.place.project {
            Level::Project
        } else {
            Level::User
        }
    }

    /// The folder the place's paths are under, and how `list` writes it (`~/` or nothing).
    fn base(&self, ctx: &DiscoveryContext) -> Option<(PathBuf, &'static str)> {
        if self.place.project {
            Some((ctx.cwd.clone(), ""))
        } else {
            ctx.home.clone().map(|home| (home, "~/"))
        }
    }

    fn entry(&self, path: PathBuf, name: String) -> HookEntry {
        HookEntry {
            name,
            path,
            kind: EntryKind::HooksFile,
            tool: None,
            level: self.level(),
            source: self.place.provider.to_owned(),
        }
    }
}

impl DiscoveryProvider for AgentPlace {
    fn name(&self) -> &str {
        self.place.provider
    }

    fn priority(&self) -> i32 {
        self.place.priority
    }

    fn agent(&self) -> Option<Agent> {
        Some(self.agent)
    }

    fn level(&self) -> Option<Level> {
        Some(AgentPlace::level(self))
    }

    fn discover(&self, ctx: &DiscoveryContext) -> Result<Found, String> {
        let mut found = Found::default();
        match self.place.files {
            PlaceFiles::Files(files) => {
                let Some((base, prefix)) = self.base(ctx) else {
                    return Ok(found);
                };
                for (relative, settings) in files {
                    let path = base.join(relative);
                    let present = if *settings && relative.ends_with(".toml") {
                        crate::agents::codex_cli::has_hooks_table(&path, ctx.home.as_deref())
                    } else if *settings {
                        super::providers::has_hooks_key(&path, ctx.home.as_deref())
                    } else {
                        path.exists()
                    };
                    if present {
                        found
                            .entries
                            .push(self.entry(path, format!("{prefix}{relative}")));
                    }
                }
            }
            PlaceFiles::Folder(relative, variable) => {
                let set = variable
                    .and_then(std::env::var_os)
                    .filter(|value| !value.is_empty());
                let (dir, shown) = match set {
                    Some(value) => {
                        let dir = PathBuf::from(value).join("hooks");
                        let shown = format!("{}/", dir.display());
                        (dir, shown)
                    }
                    None => {
                        let Some((base, prefix)) = self.base(ctx) else {
                            return Ok(found);
                        };
                        (base.join(relative), format!("{prefix}{relative}/"))
                    }
                };
                for file in json_files(&dir) {
                    let name = format!("{shown}{}", file_name(&file));
                    found.entries.push(self.entry(file, name));
                }
            }
            PlaceFiles::Scripts(relative) => {
                let Some((base, _)) = self.base(ctx) else {
                    return Ok(found);
                };
                for (folder, event) in SCRIPT_FOLDERS {
                    let dir = base.join(relative).join(folder);
                    scan_scripts(&dir, event, self.level(), self.place.provider, &mut found);
                }
            }
            PlaceFiles::EventFiles(relative, variable, is_event) => {
                let set = variable
                    .and_then(std::env::var_os)
                    .filter(|value| !value.is_empty());
                let (dir, shown) = match set {
                    Some(value) => {
                        let dir = PathBuf::from(value).join("hooks");
                        let shown = format!("{}/", dir.display());
                        (dir, shown)
                    }
                    None => {
                        let Some((base, prefix)) = self.base(ctx) else {
                            return Ok(found);
                        };
                        (base.join(relative), format!("{prefix}{relative}/"))
                    }
                };
                for file in event_files(&dir, is_event) {
                    let name = format!("{shown}{}", file_name(&file));
                    found.entries.push(self.entry(file, name));
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

/// The regular files at the top of `dir` whose name `is_event` takes, in name order (the
/// agent runs no link nor folder there).
fn event_files(dir: &Path, is_event: fn(&str) -> bool) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
                .map(|e| e.path())
                .filter(|p| is_event(&file_name(p)))
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
