use std::path::PathBuf;

use thiserror::Error;

/// Why a hook file was not read. Each message names the file and says what to do.
#[derive(Debug, Clone, PartialEq, Eq, Error, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FileError {
    /// Nothing exists at the path.
    #[error("no such file: {path} (check the path; relative paths are taken from the agent's working folder)")]
    NotFound {
        /// The file.
        path: PathBuf,
    },
    /// The path names a folder.
    #[error("{path} is a folder, not a file: give the path of a file inside it")]
    IsDirectory {
        /// The file.
        path: PathBuf,
    },
    /// The file cannot be opened by this user.
    #[error("permission denied reading {path}: make it readable by the user running the agent")]
    PermissionDenied {
        /// The file.
        path: PathBuf,
    },
    /// A FIFO, a device or a socket: reading it could block forever or never end.
    #[error(
        "{path} is {what}, not a regular file, so it is not read; a hook must be a regular file"
    )]
    NotRegular {
        /// The file.
        path: PathBuf,
        /// What it is, e.g. "a FIFO (named pipe)".
        what: String,
    },
    /// Bigger than a hook file of its kind may be.
    #[error(
        "{path} is {size} bytes, more than the {limit} bytes a {file_kind} may have, so it is not read"
    )]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size (at least), in bytes.
        size: u64,
        /// The cap, in bytes.
        limit: u64,
        /// What kind of file the cap is for.
        file_kind: String,
    },
    /// The file, or a folder above it, could be changed by another user.
    #[error("refused: {reason}")]
    UnsafePermissions {
        /// What is wrong and the command that fixes it.
        reason: String,
    },
    /// Another input/output error.
    #[error("cannot read {path}: {detail}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The system's message.
        detail: String,
    },
}

impl FileError {
    /// The error for a failed open or read of `path`.
    pub(crate) fn from_io(path: &std::path::Path, error: &std::io::Error) -> Self {
        let path = path.to_path_buf();
        match error.kind() {
            std::io::ErrorKind::NotFound => FileError::NotFound { path },
            std::io::ErrorKind::PermissionDenied => FileError::PermissionDenied { path },
            std::io::ErrorKind::IsADirectory => FileError::IsDirectory { path },
            _ => FileError::Io {
                path,
                detail: error.to_string(),
            },
        }
    }
}
