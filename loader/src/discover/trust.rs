//! Trust for project hooks: a freshly cloned repository must not run code on the user's
//! machine just because the agent was started in it. The user trusts a project's hooks
//! (`agent-hooks trust`); the store keeps a hash of each trusted file, so that a changed file
//! is untrusted again.
//!
//! The store is a JSON map from canonical path to SHA-256. It is changed only under an
//! exclusive `flock` on `trusted-hooks.json.lock` next to it, re-read under that lock, and
//! replaced by a temporary file that is written, `fsync`ed and renamed over it, so that
//! concurrent `trust` runs lose nothing and a crash leaves the old or the new store, never a
//! mix. It is never written through a symbolic link, and a store that is not valid JSON is an
//! error, never read as empty nor overwritten.

use std::{
    collections::BTreeMap,
    fs::File,
    io::Write,
    os::unix::fs::{OpenOptionsExt, PermissionsExt},
    path::{Path, PathBuf},
};

use nix::fcntl::{Flock, FlockArg, OFlag};
use thiserror::Error;

use crate::file::{read_checked, FileError, Limit, StrictModes};

/// The store's file name in the configuration folder.
pub const TRUST_STORE_FILE: &str = "trusted-hooks.json";

/// Why a project hook does not run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Untrust {
    /// The user never trusted it.
    NeverTrusted,
    /// It changed since the user trusted it.
    Changed,
    /// A script inside the project that one of its commands runs changed (or appeared)
    /// since the user trusted it.
    ScriptChanged(PathBuf),
    /// A plugin's configuration file (`lib<name>.toml` or `.json` beside it) changed,
    /// appeared or was removed since the user trusted the plugin.
    ConfigChanged(PathBuf),
    /// The trust store cannot be read, so nothing is trusted.
    StoreUnreadable(String),
}

impl std::fmt::Display for Untrust {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Untrust::NeverTrusted => {
                f.write_str("not trusted yet: run `agent-hooks trust` in the project to allow it")
            }
            Untrust::Changed => f.write_str(
                "changed since it was trusted: review it, then run `agent-hooks trust` again",
            ),
            Untrust::ScriptChanged(script) => write!(
                f,
                "runs {}, which changed since it was trusted: review it, then run `agent-hooks trust` again",
                script.display()
            ),
            Untrust::ConfigChanged(config) => write!(
                f,
                "reads its configuration from {}, which changed, appeared or was removed since it was trusted: review it, then run `agent-hooks trust` again",
                config.display()
            ),
            Untrust::StoreUnreadable(error) => write!(f, "not trusted: {error}"),
        }
    }
}

/// Why the trust store could not be read or written. Each message names the file.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TrustError {
    /// The store is a symbolic link: writing through it could overwrite another file.
    #[error("the trust store {path} is a symbolic link, and the store is never written through one (it would overwrite the file it points to): replace the link by a regular file, then run `agent-hooks trust` again")]
    Symlink {
        /// The store.
        path: PathBuf,
    },
    /// A folder stands where the store should be.
    #[error(
        "the trust store {path} is a folder: move it away, then run `agent-hooks trust` again"
    )]
    IsDirectory {
        /// The store.
        path: PathBuf,
    },
    /// The store is not valid JSON (or not a map of paths to hashes).
    #[error("the trust store {path} is not valid (line {line}, column {column}: {detail}); it is neither read as empty nor overwritten: fix or remove it, then run `agent-hooks trust` again")]
    Invalid {
        /// The store.
        path: PathBuf,
        /// The line of the problem, from 1.
        line: usize,
        /// The column of the problem, from 1.
        column: usize,
        /// What the JSON parser said.
        detail: String,
    },
    /// The store is read-only.
    #[error(
        "the trust store {path} is read-only: make it writable (`chmod u+w {path}`) to trust hooks"
    )]
    ReadOnly {
        /// The store.
        path: PathBuf,
    },
    /// The store is not a regular file, is too large, or others could change it.
    #[error(transparent)]
    File(FileError),
    /// Another input/output error.
    #[error("cannot {action} {path}: {detail}")]
    Io {
        /// What was being done.
        action: &'static str,
        /// The file or folder.
        path: PathBuf,
        /// The system's message.
        detail: String,
    },
}

/// The trusted project hook files, with the hash of what was trusted.
#[derive(Debug)]
pub struct TrustStore {
    file: PathBuf,
    trusted: BTreeMap<String, String>,
}

impl TrustStore {
    /// The store in `config_dir` ([`TRUST_STORE_FILE`]); empty if there is none yet. An
    /// invalid or unreadable store is an error.
    pub fn open(config_dir: &Path) -> Result<Self, TrustError> {
        let file = config_dir.join(TRUST_STORE_FILE);
        let trusted = read_store(&file)?;
        Ok(Self { file, trusted })
    }

    /// The store's path.
    pub fn path(&self) -> &Path {
        &self.file
    }

    /// Whether the file at `path`, whose content hashes to `hash`, may run, and if not, why.
    pub fn check(&self, path: &Path, hash: &str) -> Result<(), Untrust> {
        match self.trusted.get(&key(path)) {
            None => Err(Untrust::NeverTrusted),
            Some(trusted) if trusted == hash => Ok(()),
            Some(_) => Err(Untrust::Changed),
        }
    }

    /// Whether each script `(path, hash)` is as it was when trusted.
    pub fn check_scripts(&self, scripts: &[(PathBuf, String)]) -> Result<(), Untrust> {
        match scripts
            .iter()
            .find(|(path, hash)| self.trusted.get(&key(path)) != Some(hash))
        {
            Some((path, _)) => Err(Untrust::ScriptChanged(path.clone())),
            None => Ok(()),
        }
    }

    /// Whether each configuration file `(path, hash)` of a plugin is as it was when the
    /// plugin was trusted; a file that is absent ([`ABSENT`](super::ABSENT)) and has no record
    /// is unchanged (so a plugin trusted before its configuration files were recorded stays
    /// trusted until one appears).
    pub fn check_configs(&self, configs: &[(PathBuf, String)]) -> Result<(), Untrust> {
        let changed = configs
            .iter()
            .find(|(path, hash)| match self.trusted.get(&key(path)) {
                Some(trusted) => trusted != hash,
                None => hash != super::ABSENT,
            });
        match changed {
            Some((path, _)) => Err(Untrust::ConfigChanged(path.clone())),
            None => Ok(()),
        }
    }

    /// Records each `(path, hash)` as trusted and saves the store: under the lock, the
    /// store is read again, the entries added, and the result renamed into place.
    pub fn trust<'a>(
        &mut self,
        hooks: impl IntoIterator<Item = (&'a Path, &'a str)>,
    ) -> Result<(), TrustError> {
        self.change(|trusted| {
            for (path, hash) in hooks {
                trusted.insert(key(path), hash.to_owned());
            }
        })
    }

    /// Removes the entries `remove` picks (it gets each entry's path and hash) and saves the
    /// store, as [`trust`](Self::trust) does; gives the paths of the entries removed. Nothing
    /// is written when none is picked.
    pub fn untrust(
        &mut self,
        mut remove: impl FnMut(&Path, &str) -> bool,
    ) -> Result<Vec<PathBuf>, TrustError> {
        let picked = |trusted: &BTreeMap<String, String>,
                      remove: &mut dyn FnMut(&Path, &str) -> bool| {
            trusted
                .iter()
                .filter(|(path, hash)| remove(Path::new(path.as_str()), hash))
                .map(|(path, _)| path.clone())
                .collect::<Vec<String>>()
        };
        if picked(&self.trusted, &mut remove).is_empty() {
            return Ok(Vec::new());
        }
        let mut removed = Vec::new();
        self.change(|trusted| {
            for path in picked(trusted, &mut remove) {
                trusted.remove(&path);
                removed.push(PathBuf::from(path));
            }
        })?;
        Ok(removed)
    }

    /// The trusted files with the hash of what was trusted, by path.
    pub fn entries(&self) -> impl Iterator<Item = (&Path, &str)> {
        self.trusted
            .iter()
            .map(|(path, hash)| (Path::new(path.as_str()), hash.as_str()))
    }

    /// The hash trust records for a file whose content is `bytes`.
    pub fn hash_of(bytes: &[u8]) -> String {
        crate::file::hex_sha256(bytes)
    }

    /// The key a file is recorded under: its canonical path (that of its folder, for a file
    /// that does not exist).
    pub fn key_of(path: &Path) -> PathBuf {
        PathBuf::from(key(path))
    }

    /// Changes the store with `edit` and saves it: under the lock, the store is read again,
    /// edited, and the result renamed into place.
    fn change(
        &mut self,
        edit: impl FnOnce(&mut BTreeMap<String, String>),
    ) -> Result<(), TrustError> {
        let folder = self.file.parent().unwrap_or(Path::new(".")).to_path_buf();
        let io = |action: &'static str, path: &Path| {
            let path = path.to_path_buf();
            move |e: std::io::Error| TrustError::Io {
                action,
                path,
                detail: e.to_string(),
            }
        };
        std::fs::create_dir_all(&folder).map_err(io("create the folder", &folder))?;
        let lock_path = folder.join(format!("{TRUST_STORE_FILE}.lock"));
        let lock_file = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .mode(0o600)
            .custom_flags(OFlag::O_NOFOLLOW.bits())
            .open(&lock_path)
            .map_err(io("open the lock file", &lock_path))?;
        let _lock = Flock::lock(lock_file, FlockArg::LockExclusive).map_err(|(_, errno)| {
            TrustError::Io {
                action: "lock",
                path: lock_path.clone(),
                detail: errno.desc().to_owned(),
            }
        })?;
        if let Ok(metadata) = std::fs::symlink_metadata(&self.file) {
            let path = self.file.clone();
            if metadata.file_type().is_symlink() {
                return Err(TrustError::Symlink { path });
            }
            if metadata.is_dir() {
                return Err(TrustError::IsDirectory { path });
            }
            if metadata.permissions().mode() & 0o200 == 0 {
                return Err(TrustError::ReadOnly { path });
            }
        }
        let mut trusted = read_store(&self.file)?;
        edit(&mut trusted);
        let text = serde_json::to_string_pretty(&trusted).unwrap_or_default() + "\n";
        let mut temporary = tempfile::Builder::new()
            .prefix(&format!(".{TRUST_STORE_FILE}."))
            .tempfile_in(&folder)
            .map_err(io("create a temporary file in", &folder))?;
        temporary
            .write_all(text.as_bytes())
            .and_then(|()| temporary.as_file().sync_all())
            .map_err(io("write", temporary.path()))?;
        temporary
            .persist(&self.file)
            .map_err(|e| io("replace", &self.file)(e.error))?;
        // The rename itself is durable once the folder is synced.
        File::open(&folder)
            .and_then(|f| f.sync_all())
            .map_err(io("sync the folder", &folder))?;
        self.trusted = trusted;
        Ok(())
    }
}

/// The store's entries; none when it does not exist yet.
fn read_store(file: &Path) -> Result<BTreeMap<String, String>, TrustError> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let bytes = match read_checked(
        file,
        Limit::TrustStore,
        &mut StrictModes::new(home.as_deref()),
    ) {
        Ok(checked) => checked.bytes,
        Err(FileError::NotFound { .. }) => return Ok(BTreeMap::new()),
        Err(FileError::IsDirectory { path }) => return Err(TrustError::IsDirectory { path }),
        Err(error) => return Err(TrustError::File(error)),
    };
    serde_json::from_slice(&bytes).map_err(|e| TrustError::Invalid {
        path: file.to_path_buf(),
        line: e.line(),
        column: e.column(),
        detail: e
            .to_string()
            .split(" at line ")
            .next()
            .unwrap_or_default()
            .to_owned(),
    })
}

fn key(path: &Path) -> String {
    std::fs::canonicalize(path)
        .ok()
        .or_else(|| {
            // A file that is gone: its folder's canonical path, and its name.
            let folder = std::fs::canonicalize(path.parent()?).ok()?;
            Some(folder.join(path.file_name()?))
        })
        .unwrap_or_else(|| path.to_path_buf())
        .to_string_lossy()
        .into_owned()
}
