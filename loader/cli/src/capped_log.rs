//! The log file of `serve` and `hook` (`serve.log`), kept under a size: a plugin that logs a
//! warning on every event, or floods, would otherwise fill the disk through a resident
//! process that runs for days. Past its limit the file becomes `serve.log.1` (replacing the
//! one before) and a new one starts, so the two hold about twice the limit and the newest
//! records are kept.
//!
//! Several processes write the file (the resident process, and `hook` calls that answer by
//! themselves); each appends whole records. One that finds the file already moved by
//! another opens the new one instead of moving it again.

use std::{
    fs::File,
    io::{self, Write},
    os::{
        fd::AsFd,
        unix::fs::{MetadataExt, OpenOptionsExt},
    },
    path::{Path, PathBuf},
    sync::{Mutex, MutexGuard, OnceLock},
};

/// The limit of one file, unless `AGENT_HOOKS_SERVE_LOG_LIMIT` (bytes) says otherwise.
pub const DEFAULT_LIMIT: u64 = 8 << 20;

/// The variable that sets the limit, in bytes.
pub const LIMIT_VAR: &str = "AGENT_HOOKS_SERVE_LOG_LIMIT";

/// The limit in force: [`LIMIT_VAR`] when it is a number of at least 4 KiB, else
/// [`DEFAULT_LIMIT`].
pub fn limit() -> u64 {
    std::env::var(LIMIT_VAR)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|&n| n >= 4096)
        .unwrap_or(DEFAULT_LIMIT)
}

/// The file records go to, once [`open`] was called.
static LOG: OnceLock<CappedLog> = OnceLock::new();

/// A log file kept under [`CappedLog::limit`] bytes.
struct CappedLog {
    path: PathBuf,
    limit: u64,
    /// Whether this process's stderr is the file (the resident process's is): it follows
    /// each new file, so that what is written to stderr directly lands there too.
    stderr_too: bool,
    /// Opened at the first record (most runs write none); `Err` when it could not be,
    /// and the records go to stderr.
    file: Mutex<Option<io::Result<File>>>,
}

/// Sends this process's log records to `path` from now on, kept under `limit` bytes; its
/// folder is made (the user's alone) at the first record. `stderr_too`: this process's
/// stderr is that file, and follows it when it is renewed. Called once; a second call
/// changes nothing.
pub fn open(path: &Path, limit: u64, stderr_too: bool) {
    let log = CappedLog {
        path: path.to_owned(),
        limit,
        stderr_too,
        file: Mutex::new(None),
    };
    if stderr_too {
        // A file already over the limit (left by an earlier process) is renewed now.
        drop(log.checked());
    }
    let _ = LOG.set(log);
}

/// Whether this process's stderr is the file at `path`.
pub fn is_stderr(path: &Path) -> bool {
    let Ok(file) = std::fs::metadata(path) else {
        return false;
    };
    // Through std's `MetadataExt`, whose numbers have one type on every system (`st_dev`
    // is a `u64` on Linux, an `i32` on macOS).
    let Ok(stderr) = io::stderr().as_fd().try_clone_to_owned() else {
        return false;
    };
    File::from(stderr)
        .metadata()
        .is_ok_and(|stderr| stderr.ino() == file.ino() && stderr.dev() == file.dev())
}

fn append(path: &Path) -> io::Result<File> {
    if let Some(folder) = path.parent() {
        crate::relay::make_folder(folder).map_err(io::Error::other)?;
    }
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path)
}

impl CappedLog {
    /// The file to write the next record to (opened at the first), renewed first when it
    /// reached the limit.
    fn checked(&self) -> MutexGuard<'_, Option<io::Result<File>>> {
        let mut slot = crate::sync::lock(&self.file);
        let file = slot.get_or_insert_with(|| append(&self.path));
        if let Ok(file) = file {
            let full = file.metadata().is_ok_and(|m| m.len() >= self.limit);
            if full && self.renew(file).is_err() {
                // It cannot be moved aside or opened anew (its folder went away, say): it
                // is emptied instead, so that it stays bounded all the same.
                let _ = file.set_len(0);
            }
        }
        slot
    }

    /// Moves the full file aside (unless another process did) and opens a new one.
    fn renew(&self, file: &mut File) -> io::Result<()> {
        let ours = file.metadata()?.ino();
        let current = std::fs::metadata(&self.path).map(|m| m.ino()).ok();
        if current == Some(ours) {
            let mut aside = self.path.clone().into_os_string();
            aside.push(".1");
            std::fs::rename(&self.path, aside)?;
        }
        let new = append(&self.path)?;
        if self.stderr_too {
            nix::unistd::dup2_stderr(&new)?;
        }
        *file = new;
        Ok(())
    }
}

/// Where a `tracing` record is written: the capped file once [`open`] was called, stderr
/// until then (and when the file could not be opened).
pub enum Out {
    /// Before [`open`], or without the file.
    Stderr,
    /// The file's slot, locked for one record.
    File(MutexGuard<'static, Option<io::Result<File>>>),
}

/// The writer for the next record.
pub fn out() -> Out {
    match LOG.get() {
        Some(log) => Out::File(log.checked()),
        None => Out::Stderr,
    }
}

impl Out {
    fn with<R>(&mut self, act: impl FnOnce(&mut dyn Write) -> R) -> R {
        if let Out::File(slot) = self {
            if let Some(Ok(file)) = &mut **slot {
                return act(file);
            }
        }
        act(&mut io::stderr())
    }
}

impl Write for Out {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.with(|w| w.write(buf))
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.with(|w| w.write_all(buf))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.with(|w| w.flush())
    }
}
