//! Trust for project hooks: a freshly cloned repository must not run code on the user's
//! machine just because the agent was started in it. The user trusts a project's hooks
//! (`agent-hooks trust`); the store keeps a hash of each trusted file, so that a changed file
//! is untrusted again.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
};

use sha2::{Digest, Sha256};

/// Why a project hook does not run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Untrust {
    /// The user never trusted it.
    NeverTrusted,
    /// It changed since the user trusted it.
    Changed,
}

impl std::fmt::Display for Untrust {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Untrust::NeverTrusted => {
                "not trusted yet: run `agent-hooks trust` in the project to allow it"
            }
            Untrust::Changed => {
                "changed since it was trusted: review it, then run `agent-hooks trust` again"
            }
        })
    }
}

/// The trusted project hook files, with the hash of what was trusted.
#[derive(Debug, Default)]
pub struct TrustStore {
    file: Option<PathBuf>,
    trusted: BTreeMap<String, String>,
}

impl TrustStore {
    /// The store in `config_dir` (`trusted-hooks.json`); empty if there is none yet.
    pub fn open(config_dir: &Path) -> Self {
        let file = config_dir.join("trusted-hooks.json");
        let trusted = std::fs::read_to_string(&file)
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or_default();
        Self {
            file: Some(file),
            trusted,
        }
    }

    /// Whether `path` may run, and if not, why.
    pub fn check(&self, path: &Path) -> Result<(), Untrust> {
        let Some(trusted) = self.trusted.get(&key(path)) else {
            return Err(Untrust::NeverTrusted);
        };
        match hash_file(path) {
            Some(hash) if &hash == trusted => Ok(()),
            _ => Err(Untrust::Changed),
        }
    }

    /// Trusts `paths` as they are now and saves the store.
    pub fn trust<'a>(&mut self, paths: impl IntoIterator<Item = &'a Path>) -> std::io::Result<()> {
        for path in paths {
            if let Some(hash) = hash_file(path) {
                self.trusted.insert(key(path), hash);
            }
        }
        let Some(file) = &self.file else {
            return Ok(());
        };
        if let Some(folder) = file.parent() {
            std::fs::create_dir_all(folder)?;
        }
        let text = serde_json::to_string_pretty(&self.trusted).map_err(std::io::Error::other)?;
        std::fs::write(file, text + "\n")
    }
}

fn key(path: &Path) -> String {
    std::fs::canonicalize(path)
        .unwrap_or_else(|_| path.to_path_buf())
        .to_string_lossy()
        .into_owned()
}

/// The SHA-256 of a file's content, in hex.
pub(crate) fn hash_file(path: &Path) -> Option<String> {
    let bytes = std::fs::read(path).ok()?;
    let digest = Sha256::digest(&bytes);
    Some(digest.iter().map(|b| format!("{b:02x}")).collect())
}
