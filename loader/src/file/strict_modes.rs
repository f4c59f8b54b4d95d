//! Who could change a hook file, checked as OpenSSH's StrictModes checks a key: the file and
//! every folder above it, up to the user's home or the filesystem root, must be owned by the
//! user or root and not writable by group or others. A folder with the sticky bit owned by
//! root (`/tmp`) is fine: others cannot replace what is in it. Group-write is fine when the
//! group is the owner's private group (user private groups, umask 002): refusing every
//! group-writable path would refuse every plugin a user builds on such a system.

use std::{
    collections::HashMap,
    fs::Metadata,
    os::unix::fs::{MetadataExt, PermissionsExt},
    path::{Path, PathBuf},
};

use nix::unistd::{Gid, Group, Uid, User};

use super::FileError;

const GROUP_WRITE: u32 = 0o020;
const OTHERS_WRITE: u32 = 0o002;
const STICKY: u32 = 0o1000;

/// The checker, with what it learnt about folders and groups (many hooks share folders).
#[derive(Debug)]
pub(crate) struct StrictModes {
    /// The user, asked of the system on the first check.
    user: Option<u32>,
    /// Where the walk up ends, resolved on the first check (most hook files looked for do not
    /// exist, and a checker is made for each).
    home: Home,
    /// The managed check: the owner must be root (or `user`, when that is allowed) and no
    /// group may write, private or not; the walk goes up to `/`.
    managed: bool,
    folders: HashMap<PathBuf, Option<String>>,
    names: HashMap<u32, String>,
}

/// The user's home: as given, or canonical (`None`: the walk goes up to `/`).
#[derive(Debug)]
enum Home {
    Given(Option<PathBuf>),
    Resolved(Option<PathBuf>),
}

impl Home {
    /// The canonical home, resolved once.
    fn resolved(&mut self) -> Option<PathBuf> {
        if let Home::Given(given) = self {
            let canonical = given.as_deref().and_then(|h| std::fs::canonicalize(h).ok());
            *self = Home::Resolved(canonical);
        }
        match self {
            Home::Resolved(home) => home.clone(),
            Home::Given(_) => None,
        }
    }
}

impl StrictModes {
    /// Checks for the user running the agent, whose home (if any) ends the walk up.
    pub(crate) fn new(home: Option<&Path>) -> Self {
        Self {
            user: None,
            home: Home::Given(home.map(Path::to_path_buf)),
            managed: false,
            folders: HashMap::new(),
            names: HashMap::new(),
        }
    }

    /// The check of a managed policy file: it and every folder above it, up to `/`, owned
    /// by root and writable by no one else (a root-owned sticky folder such as `/tmp` is
    /// fine). `also_self`: the user running the agent may own them too (a test root).
    pub(crate) fn managed(also_self: bool) -> Self {
        Self {
            user: Some(if also_self {
                Uid::effective().as_raw()
            } else {
                0
            }),
            home: Home::Resolved(None),
            managed: true,
            folders: HashMap::new(),
            names: HashMap::new(),
        }
    }

    /// Checks the file at `path` (its `metadata` taken from the open descriptor) and the
    /// folders above it: those of the path as given (a symbolic link could be swapped) and
    /// those of the file it leads to.
    pub(crate) fn check(&mut self, path: &Path, metadata: &Metadata) -> Result<(), FileError> {
        if let Some(problem) = self.problem(metadata, false) {
            return Err(refused(format!(
                "{} {problem} change what it runs; fix it with `{}`",
                path.display(),
                self.fix(metadata, path)
            )));
        }
        let home = self.home.resolved();
        let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        let given_folder = absolute
            .parent()
            .and_then(|p| std::fs::canonicalize(p).ok());
        let target_folder = std::fs::canonicalize(&absolute)
            .ok()
            .and_then(|p| p.parent().map(Path::to_path_buf));
        for folder in [given_folder, target_folder].into_iter().flatten() {
            for (depth, above) in folder.ancestors().enumerate() {
                if let Some(problem) = self.folder_problem(above) {
                    let place = if depth == 0 { "lies in" } else { "lies under" };
                    return Err(refused(format!(
                        "{} {place} {}, {problem}",
                        path.display(),
                        above.display()
                    )));
                }
                if home.as_deref() == Some(above) {
                    break;
                }
            }
        }
        Ok(())
    }

    /// The user running the agent (the effective uid).
    fn user(&mut self) -> u32 {
        *self.user.get_or_insert_with(|| Uid::effective().as_raw())
    }

    /// What is wrong with a folder, cached.
    fn folder_problem(&mut self, folder: &Path) -> Option<String> {
        if let Some(known) = self.folders.get(folder) {
            return known.clone();
        }
        let problem = match std::fs::metadata(folder) {
            Ok(metadata) => self.problem(&metadata, true).map(|problem| {
                format!(
                    "which {problem} replace it; fix it with `{}`",
                    self.fix(&metadata, folder)
                )
            }),
            Err(_) => None,
        };
        self.folders.insert(folder.to_path_buf(), problem.clone());
        problem
    }

    /// "is writable by ..., so ... could" for a file, "... can write to, so ... could" for
    /// a folder; `None` when only the user and root can change it.
    fn problem(&mut self, metadata: &Metadata, folder: bool) -> Option<String> {
        let user = self.user();
        let mode = metadata.permissions().mode();
        let owner = metadata.uid();
        if self.managed && owner != user && owner != 0 {
            let name = self.user_name(owner);
            let allowed = if user == 0 {
                "root".to_owned()
            } else {
                format!("root or you ({})", self.user_name(user))
            };
            return Some(format!(
                "is owned by {name}, not by {allowed} as a managed policy must be, so {name} could"
            ));
        }
        if owner != user && owner != 0 {
            let name = self.user_name(owner);
            let me = self.user_name(user);
            let allowed = if user == 0 {
                format!("you ({me})")
            } else {
                format!("you ({me}) or root")
            };
            return Some(format!(
                "is owned by {name}, not by {allowed}, so {name} could"
            ));
        }
        if folder && mode & STICKY != 0 && owner == 0 {
            return None;
        }
        if mode & OTHERS_WRITE != 0 {
            return Some(if folder {
                format!(
                    "other users can write to (mode {:o}), so anyone on this machine could",
                    mode & 0o7777
                )
            } else {
                format!(
                    "is writable by other users (mode {:o}), so anyone on this machine could",
                    mode & 0o7777
                )
            });
        }
        if mode & GROUP_WRITE != 0 && self.managed {
            let group = self.group_name(metadata.gid());
            return Some(if folder {
                format!(
                    "{group} can write to (mode {:o}), so its members could",
                    mode & 0o7777
                )
            } else {
                format!(
                    "is writable by {group} (mode {:o}), so its members could",
                    mode & 0o7777
                )
            });
        }
        if mode & GROUP_WRITE != 0 {
            if let Some(group) = self.shared_group(owner, metadata.gid()) {
                return Some(if folder {
                    format!(
                        "{group} can write to (mode {:o}), so its members could",
                        mode & 0o7777
                    )
                } else {
                    format!(
                        "is writable by {group} (mode {:o}), so its members could",
                        mode & 0o7777
                    )
                });
            }
        }
        None
    }

    /// The command that makes `path` safe.
    fn fix(&mut self, metadata: &Metadata, path: &Path) -> String {
        let user = self.user();
        let owner = metadata.uid();
        if self.managed && owner != user && owner != 0 {
            return format!("chown root {}", path.display());
        }
        if owner != user && owner != 0 {
            return format!("chown {} {}", self.user_name(user), path.display());
        }
        let mode = metadata.permissions().mode();
        let who = if mode & OTHERS_WRITE != 0 { "o" } else { "" };
        let who = if mode & GROUP_WRITE != 0
            && (self.managed || self.shared_group(owner, metadata.gid()).is_some())
        {
            format!("g{who}")
        } else {
            who.to_owned()
        };
        format!("chmod {who}-w {}", path.display())
    }

    /// `None` when group `gid` is `owner`'s private group (named after the owner, no other
    /// member); otherwise how to name it in a message.
    fn shared_group(&mut self, owner: u32, gid: u32) -> Option<String> {
        let owner_name = self.user_name(owner);
        let Ok(Some(group)) = Group::from_gid(Gid::from_raw(gid)) else {
            return Some(format!("group {gid}"));
        };
        let others: Vec<&String> = group.mem.iter().filter(|m| **m != owner_name).collect();
        if group.name == owner_name && others.is_empty() {
            return None;
        }
        Some(if others.is_empty() {
            format!("group `{}`", group.name)
        } else {
            let names: Vec<&str> = others.iter().map(|m| m.as_str()).collect();
            format!("group `{}` (members: {})", group.name, names.join(", "))
        })
    }

    /// How to name group `gid` in a message.
    fn group_name(&self, gid: u32) -> String {
        match Group::from_gid(Gid::from_raw(gid)) {
            Ok(Some(group)) => format!("group `{}`", group.name),
            _ => format!("group {gid}"),
        }
    }

    fn user_name(&mut self, uid: u32) -> String {
        self.names
            .entry(uid)
            .or_insert_with(|| match User::from_uid(Uid::from_raw(uid)) {
                Ok(Some(user)) => user.name,
                _ => format!("uid {uid}"),
            })
            .clone()
    }
}

fn refused(reason: String) -> FileError {
    FileError::UnsafePermissions { reason }
}
