//! One open, checks on the descriptor, one read of at most the cap.

use std::{
    fs::File,
    io::Read,
    os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt},
    path::Path,
};

use nix::fcntl::OFlag;
use sha2::{Digest, Sha256};

use super::{FileError, StrictModes};

/// What a file is read as, and so how big it may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Limit {
    /// A hooks JSON or settings file: 4 MiB.
    HooksFile,
    /// A plugin library or a hook script: 512 MiB.
    Library,
    /// The trust store: 64 MiB.
    TrustStore,
}

impl Limit {
    fn bytes(self) -> u64 {
        match self {
            Limit::HooksFile => 4 * 1024 * 1024,
            Limit::Library => 512 * 1024 * 1024,
            Limit::TrustStore => 64 * 1024 * 1024,
        }
    }

    fn kind(self) -> &'static str {
        match self {
            Limit::HooksFile => "hooks file",
            Limit::Library => "plugin library or hook script",
            Limit::TrustStore => "trust store",
        }
    }
}

/// A file read once, after its checks: the original file's identity, and the bytes that
/// were checked.
#[derive(Debug, Clone)]
pub(crate) struct CheckedFile {
    /// The original file's device and inode.
    pub device: u64,
    /// See `device`.
    pub inode: u64,
    /// Its content, as read.
    pub bytes: Vec<u8>,
}

impl CheckedFile {
    /// The SHA-256 of the bytes, in hex: what trust records.
    pub fn hash(&self) -> String {
        hex_sha256(&self.bytes)
    }
}

/// The SHA-256 of `bytes`, in hex.
pub(crate) fn hex_sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Opens `path` without blocking (a FIFO or a terminal cannot hang the agent), refuses what
/// is not a regular file, is over `limit`, or fails `modes`, all on the open descriptor, and
/// only then reads it.
pub(crate) fn read_checked(
    path: &Path,
    limit: Limit,
    modes: &mut StrictModes,
) -> Result<CheckedFile, FileError> {
    read(path, limit, Some(modes))
}

/// [`read_checked`] without the check of who could change the file: for a file read only
/// to find or name hook files (an agent's registry of its plugins, the hooks files beside a
/// script), each hook then read with the check.
pub(crate) fn read_capped(path: &Path, limit: Limit) -> Result<CheckedFile, FileError> {
    read(path, limit, None)
}

fn read(
    path: &Path,
    limit: Limit,
    modes: Option<&mut StrictModes>,
) -> Result<CheckedFile, FileError> {
    let io = |e: std::io::Error| FileError::from_io(path, &e);
    let file = File::options()
        .read(true)
        .custom_flags((OFlag::O_NONBLOCK | OFlag::O_NOCTTY).bits())
        .open(path)
        .map_err(io)?;
    let metadata = file.metadata().map_err(io)?;
    let kind = metadata.file_type();
    let what = if kind.is_dir() {
        return Err(FileError::IsDirectory {
            path: path.to_path_buf(),
        });
    } else if kind.is_fifo() {
        "a FIFO (named pipe)"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else if kind.is_socket() {
        "a socket"
    } else if !kind.is_file() {
        "not a regular file"
    } else {
        ""
    };
    if !what.is_empty() {
        return Err(FileError::NotRegular {
            path: path.to_path_buf(),
            what: what.to_owned(),
        });
    }
    let too_large = |size: u64| FileError::TooLarge {
        path: path.to_path_buf(),
        size,
        limit: limit.bytes(),
        file_kind: limit.kind().to_owned(),
    };
    if metadata.len() > limit.bytes() {
        return Err(too_large(metadata.len()));
    }
    if let Some(modes) = modes {
        modes.check(path, &metadata)?;
    }
    // The file may have grown since fstat: read one byte past the cap to know.
    let mut bytes = Vec::with_capacity(metadata.len() as usize);
    file.take(limit.bytes() + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > limit.bytes() {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(CheckedFile {
        device: metadata.dev(),
        inode: metadata.ino(),
        bytes,
    })
}
