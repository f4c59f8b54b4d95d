//! The records' files: JSON Lines, each record carrying the hash of the one before, so that
//! a record removed or changed breaks the chain where it was. Any number of writers (the
//! resident process, relays answering alone) append at once: each takes the file's lock,
//! reads the last record's hash, and appends its line in one write. A line a killed writer
//! left unfinished is never read as a record, and the next writer cuts it off. Past the size
//! limit the file is moved aside (`decisions.1.jsonl`, then `.2`) and the chain goes on in a
//! new one.

use std::{
    fs::{File, OpenOptions},
    io::Write,
    os::unix::fs::{DirBuilderExt, FileExt, MetadataExt, OpenOptionsExt},
    path::{Path, PathBuf},
    sync::Mutex,
};

use nix::fcntl::{Flock, FlockArg};
use sha2::{Digest, Sha256};

use super::hex::hex;

/// The file records are appended to, in the records' folder.
pub const FILE: &str = "decisions.jsonl";

/// How many files moved aside are kept (`decisions.1.jsonl` the newer).
const KEPT: usize = 2;

/// The limit of one file, unless `AGENT_HOOKS_DECISIONS_LIMIT` (bytes) says otherwise.
const DEFAULT_LIMIT: u64 = 8 << 20;

/// The variable that sets the limit of one file (at least 4 KiB).
pub const LIMIT_VAR: &str = "AGENT_HOOKS_DECISIONS_LIMIT";

/// The `prev` of the first record ever written.
pub const FIRST: &str = "";

/// How far back from the end a writer looks for the last record: a little first (a record
/// is usually under a KiB), then as far as the longest record
/// ([`super::record::LINE_LIMIT`]).
const TAILS: [u64; 2] = [4 * 1024, 128 * 1024];

/// Why a record could not be appended.
#[derive(Debug, thiserror::Error)]
pub enum AppendError {
    /// The folder or file could not be made, locked, read or written.
    #[error("{path}: {error}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What failed.
        error: std::io::Error,
    },
    /// The file kept being moved aside while this writer waited for it.
    #[error("{0}: the file kept changing under the writer")]
    Moving(PathBuf),
}

/// The limit of one file in force.
pub fn limit() -> u64 {
    std::env::var(LIMIT_VAR)
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .filter(|l| *l >= 4096)
        .unwrap_or(DEFAULT_LIMIT)
}

/// The files of `folder`, oldest first (those that exist).
pub fn files(folder: &Path) -> Vec<PathBuf> {
    (1..=KEPT)
        .rev()
        .map(|n| folder.join(format!("decisions.{n}.jsonl")))
        .chain(std::iter::once(folder.join(FILE)))
        .filter(|p| p.is_file())
        .collect()
}

/// The file this process appended to last, kept open between events (the resident process
/// answers many): one lock, one look at the path, one read and one write per record.
static KEPT_OPEN: Mutex<Option<Opened>> = Mutex::new(None);

/// A records file opened for appending, with the identity it had when opened.
struct Opened {
    path: PathBuf,
    file: File,
    id: (u64, u64),
}

/// Appends the record `body` (a JSON object whose `prev` is to be filled: `make` gets the
/// previous record's hash and gives the object's text) to the records in `folder`.
pub fn append(folder: &Path, make: impl FnOnce(&str) -> String) -> Result<(), AppendError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |error| AppendError::Io { path, error }
    };
    let path = folder.join(FILE);
    let mut kept = KEPT_OPEN.lock().unwrap_or_else(|p| p.into_inner());
    let opened = kept.take().filter(|o| o.path == path);
    let (mut file, id) = locked(folder, &path, opened)?;
    let size = file.metadata().map_err(io(&path))?.len();
    let mut last = last_hash(&mut file, size).map_err(io(&path))?;
    if size == 0 && last.is_none() {
        last = newest_moved_aside(folder);
    }
    let (mut file, id) = if size >= limit() {
        move_aside(folder).map_err(io(&path))?;
        drop(file);
        // Writers waiting on the old file see it moved and open the new one; one of them
        // may have written there first.
        let (mut file, id) = locked(folder, &path, None)?;
        let size = file.metadata().map_err(io(&path))?.len();
        if let Some(newer) = last_hash(&mut file, size).map_err(io(&path))? {
            last = Some(newer);
        }
        (file, id)
    } else {
        (file, id)
    };
    let body = make(last.as_deref().unwrap_or(FIRST));
    let line = sealed(&body);
    file.write_all(line.as_bytes()).map_err(io(&path))?;
    if let Ok(file) = file.unlock() {
        *kept = Some(Opened { path, file, id });
    }
    Ok(())
}

/// Whether a record could be appended in `folder`: its file opened (and made, with its
/// folder, when missing), nothing written.
pub fn can_append(folder: &Path) -> Result<(), AppendError> {
    let path = folder.join(FILE);
    open(folder, &path)
        .map(drop)
        .map_err(|error| AppendError::Io { path, error })
}

/// The record `body` (a JSON object's text) with its hash as its last field, and a newline.
pub fn sealed(body: &str) -> String {
    let hash = hex(&Sha256::digest(body.as_bytes()));
    let open = body.strip_suffix('}').unwrap_or(body);
    let comma = if open.ends_with('{') { "" } else { "," };
    format!("{open}{comma}\"hash\":\"{hash}\"}}\n")
}

/// A line split into the record as hashed and its hash, when the hash is its last field and
/// matches.
pub fn unsealed(line: &str) -> Result<(String, String), Broken> {
    const SUFFIX: usize = ",\"hash\":\"\"}".len() + 64;
    let Some(at) = line.len().checked_sub(SUFFIX) else {
        return Err(Broken::NoHash);
    };
    let (open, tail) = line.split_at_checked(at).ok_or(Broken::NoHash)?;
    let Some(hash) = tail
        .strip_prefix(",\"hash\":\"")
        .and_then(|t| t.strip_suffix("\"}"))
        .filter(|h| h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()))
    else {
        return Err(Broken::NoHash);
    };
    let body = format!("{open}}}");
    if hex(&Sha256::digest(body.as_bytes())) != hash {
        return Err(Broken::Changed);
    }
    Ok((body, hash.to_owned()))
}

/// What is wrong with a line of the chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Broken {
    /// It does not end with its hash.
    NoHash,
    /// Its hash is not that of its content: it was changed after it was written.
    Changed,
}

/// `path` (`opened` when this process has it open already) locked, the file at `path` now:
/// not one moved aside while this writer waited for the lock. The folder is made when
/// missing.
fn locked(
    folder: &Path,
    path: &Path,
    mut opened: Option<Opened>,
) -> Result<(Flock<File>, (u64, u64)), AppendError> {
    let io = |error| AppendError::Io {
        path: path.to_path_buf(),
        error,
    };
    for _ in 0..8 {
        let (file, id) = match opened.take() {
            Some(o) => (o.file, o.id),
            None => {
                let file = open(folder, path).map_err(io)?;
                let meta = file.metadata().map_err(io)?;
                (file, (meta.dev(), meta.ino()))
            }
        };
        let file =
            Flock::lock(file, FlockArg::LockExclusive).map_err(|(_, errno)| io(errno.into()))?;
        let now = std::fs::metadata(path).map(|m| (m.dev(), m.ino()));
        if now.is_ok_and(|now| now == id) {
            return Ok((file, id));
        }
    }
    Err(AppendError::Moving(path.to_path_buf()))
}

/// `path` opened for appending (the user's alone), its folder made when missing. A link
/// is not followed, and a file that is not a regular file of this user's is refused: in a
/// folder others can write to (one a managed policy chose), another user could otherwise
/// have the records written into a file of their choosing.
fn open(folder: &Path, path: &Path) -> std::io::Result<File> {
    let options = || {
        let mut options = OpenOptions::new();
        options
            .read(true)
            .append(true)
            .create(true)
            .mode(0o600)
            .custom_flags(nix::libc::O_NOFOLLOW);
        options
    };
    let file = match options().open(path) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(folder)?;
            options().open(path)
        }
        other => other,
    }?;
    let meta = file.metadata()?;
    if !meta.file_type().is_file() || meta.uid() != nix::unistd::getuid().as_raw() {
        return Err(std::io::Error::other(
            "it is not a regular file of this user's, so nothing is written to it",
        ));
    }
    Ok(file)
}

/// The hash of the last whole line of `file` (`size` bytes long); an unfinished last line
/// (its writer was killed) is cut off first.
fn last_hash(file: &mut File, size: u64) -> std::io::Result<Option<String>> {
    if size == 0 {
        return Ok(None);
    }
    let mut tail = Vec::new();
    for reach in TAILS {
        let start = size.saturating_sub(reach);
        tail.resize(usize::try_from(size - start).unwrap_or(0), 0);
        file.read_exact_at(&mut tail, start)?;
        let whole = match tail.iter().rposition(|b| *b == b'\n') {
            Some(end) => end + 1,
            None => 0,
        };
        if whole < tail.len() {
            // An unfinished line: its writer was killed mid-write.
            file.set_len(start + whole as u64)?;
            tail.truncate(whole);
        }
        // The last whole line, when it starts within what was read.
        let lines = tail.strip_suffix(b"\n");
        let last = match lines.map(|l| l.iter().rposition(|b| *b == b'\n')) {
            Some(Some(at)) => lines.map(|l| &l[at + 1..]),
            Some(None) if start == 0 => lines,
            _ if start == 0 => return Ok(None),
            _ => continue,
        };
        return Ok(last
            .and_then(|l| std::str::from_utf8(l).ok())
            .and_then(|l| unsealed(l).ok())
            .map(|(_, hash)| hash));
    }
    Ok(None)
}

/// The last hash of the newest file moved aside, so that the chain goes on across files.
fn newest_moved_aside(folder: &Path) -> Option<String> {
    let mut file = File::open(folder.join("decisions.1.jsonl")).ok()?;
    let size = file.metadata().ok()?.len();
    last_hash(&mut file, size).ok().flatten()
}

/// Moves the files aside: `.1` to `.2` (the oldest dropped), the file to `.1`.
fn move_aside(folder: &Path) -> std::io::Result<()> {
    for n in (1..KEPT).rev() {
        let from = folder.join(format!("decisions.{n}.jsonl"));
        if from.exists() {
            std::fs::rename(&from, folder.join(format!("decisions.{}.jsonl", n + 1)))?;
        }
    }
    std::fs::rename(folder.join(FILE), folder.join("decisions.1.jsonl"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_line_unseals_and_a_changed_one_does_not() {
        let line = sealed(r#"{"event":"PreToolUse","prev":""}"#);
        let (body, hash) = unsealed(line.trim_end()).expect("sealed");
        assert_eq!(body, r#"{"event":"PreToolUse","prev":""}"#);
        assert_eq!(hash.len(), 64);
        let changed = line.trim_end().replace("PreToolUse", "PostToolUse");
        assert_eq!(unsealed(&changed), Err(Broken::Changed));
        assert_eq!(unsealed(r#"{"event":"x"}"#), Err(Broken::NoHash));
    }

    #[test]
    fn each_record_carries_the_hash_of_the_one_before_and_an_unfinished_line_is_cut() {
        let dir = tempfile::tempdir().expect("a scratch folder");
        let make = |n: u32| move |prev: &str| format!(r#"{{"n":{n},"prev":"{prev}"}}"#);
        append(dir.path(), make(1)).expect("appended");
        // A writer killed mid-line.
        let path = dir.path().join(FILE);
        let mut file = OpenOptions::new().append(true).open(&path).expect("open");
        file.write_all(br#"{"n":99,"pr"#).expect("written");
        append(dir.path(), make(2)).expect("appended");
        let text = std::fs::read_to_string(&path).expect("read");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2, "{text}");
        let (_, first) = unsealed(lines[0]).expect("first");
        assert!(
            lines[1].starts_with(&format!(r#"{{"n":2,"prev":"{first}""#)),
            "{text}"
        );
    }
}
