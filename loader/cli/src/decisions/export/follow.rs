//! The records not yet sent: a place in the records files (a file by its identity, so that
//! it is found again after the rotation moved it aside, and an offset in it), and the whole
//! records after it, in batches.

use std::{
    io::{Read, Seek, SeekFrom},
    os::unix::fs::MetadataExt,
    path::{Path, PathBuf},
};

use super::super::{chain, record::Record};

/// The most records sent in one request.
const BATCH_RECORDS: usize = 512;

/// The most bytes of the file read for one batch.
const BATCH_BYTES: u64 = 1 << 20;

/// The first bytes of a file kept with its inode to know it again: a file removed by the
/// rotation can leave its inode to a new one.
const HEAD: u64 = 128;

/// A records file as known again: its inode and its first bytes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Identity {
    inode: u64,
    head: Vec<u8>,
}

impl Identity {
    /// `now` is the file this identity was taken of (grown since, or not).
    fn is(&self, now: &Identity) -> bool {
        self.inode == now.inode && now.head.starts_with(&self.head)
    }
}

/// A place in the records files: the records after it are not sent yet.
#[derive(Debug, Clone, Default)]
pub struct Position {
    /// The file; `None`: the current file from its start, once there is one.
    file: Option<Identity>,
    /// Where in it.
    offset: u64,
    /// The place it was asked for was no longer in the files: it is the oldest file's start.
    pub lost: bool,
}

/// Records to send, and the place after them.
pub struct Batch {
    /// The records, oldest first.
    pub records: Vec<Record>,
    /// The place just after them.
    pub then: Position,
    /// The place the batch was asked from had gone (moved out by the rotation).
    pub lost: bool,
}

/// The files of `folder`, oldest first, each with its identity.
fn files(folder: &Path) -> Vec<(PathBuf, Identity)> {
    chain::files(folder)
        .into_iter()
        .filter_map(|path| {
            let inode = std::fs::metadata(&path).ok()?.ino();
            let head = read_from(&path, 0, HEAD).ok()?.into_bytes();
            Some((path, Identity { inode, head }))
        })
        .collect()
}

impl Position {
    /// Just after the record whose hash is `sent_up_to` (at the oldest file's start when
    /// `None`); at the oldest file's start, `lost`, when that record is no longer in the
    /// files.
    pub fn after(folder: &Path, sent_up_to: Option<&str>) -> Position {
        let files = files(folder);
        let Some(hash) = sent_up_to else {
            return Position {
                file: files.first().map(|(_, id)| id.clone()),
                ..Position::default()
            };
        };
        for (path, id) in files.iter().rev() {
            let Ok(text) = read_from(path, 0, u64::MAX) else {
                continue;
            };
            let mut offset = 0;
            for line in text.split_inclusive('\n') {
                offset += line.len() as u64;
                if line.ends_with('\n') && hash_of(line) == Some(hash) {
                    return Position {
                        file: Some(id.clone()),
                        offset,
                        lost: false,
                    };
                }
            }
        }
        Position {
            file: files.first().map(|(_, id)| id.clone()),
            offset: 0,
            lost: true,
        }
    }

    /// The whole records after this place, at most a batch's worth, moving on to the newer
    /// file when this one is read to its end.
    pub fn next_batch(&self, folder: &Path) -> Batch {
        let files = files(folder);
        let mut at = self.clone();
        let mut lost = false;
        loop {
            let index = match &at.file {
                None => match files.last() {
                    Some((_, id)) => {
                        at.file = Some(id.clone());
                        files.len() - 1
                    }
                    None => return Batch::empty(at, lost),
                },
                Some(known) => match files.iter().position(|(_, id)| known.is(id)) {
                    Some(index) => index,
                    None => {
                        // Moved out by the rotation before it was read to its end.
                        lost = true;
                        match files.first() {
                            Some((_, oldest)) => {
                                at = Position {
                                    file: Some(oldest.clone()),
                                    ..Position::default()
                                };
                                0
                            }
                            None => return Batch::empty(Position::default(), lost),
                        }
                    }
                },
            };
            let (path, _) = &files[index];
            let text = read_from(path, at.offset, BATCH_BYTES).unwrap_or_default();
            let mut records = Vec::new();
            let mut read = 0;
            for line in text.split_inclusive('\n') {
                if !line.ends_with('\n') || records.len() == BATCH_RECORDS {
                    break;
                }
                read += line.len() as u64;
                if let Ok(record) = serde_json::from_str::<Record>(line.trim_end()) {
                    records.push(record);
                }
            }
            if read == 0 && text.len() as u64 == BATCH_BYTES {
                // A line longer than any record (not the writers'): passed over.
                read = BATCH_BYTES;
            }
            at.offset += read;
            if records.is_empty() && read == 0 {
                // Read to its end: on to the newer file, if this one was moved aside.
                match files.get(index + 1) {
                    Some((_, newer)) => {
                        at = Position {
                            file: Some(newer.clone()),
                            ..Position::default()
                        };
                        continue;
                    }
                    None => return Batch::empty(at, lost),
                }
            }
            if records.is_empty() {
                // Only lines that are not records: passed over, and looked at again.
                continue;
            }
            return Batch {
                records,
                then: at,
                lost,
            };
        }
    }

    /// How many records wait after this place.
    pub fn waiting(&self, folder: &Path) -> usize {
        let mut at = self.clone();
        let mut count = 0;
        loop {
            let batch = at.next_batch(folder);
            if batch.records.is_empty() {
                return count;
            }
            count += batch.records.len();
            at = batch.then;
        }
    }
}

impl Batch {
    fn empty(then: Position, lost: bool) -> Batch {
        Batch {
            records: Vec::new(),
            then,
            lost,
        }
    }
}

/// The hash of the last record in `folder`'s files, if any.
pub fn last_hash(folder: &Path) -> Option<String> {
    files(folder).iter().rev().find_map(|(path, _)| {
        let size = std::fs::metadata(path).ok()?.len();
        let text = read_from(path, size.saturating_sub(128 * 1024), u64::MAX).ok()?;
        let whole = &text[..text.rfind('\n')? + 1];
        whole.lines().rev().find_map(hash_of).map(str::to_owned)
    })
}

/// The hash a records line ends with (its last field: `..."hash":"HEX"}`).
fn hash_of(line: &str) -> Option<&str> {
    let open = line.trim_end().strip_suffix("\"}")?;
    open.get(open.len().checked_sub(64)?..)
}

/// At most `most` bytes of `path` from `offset` (invalid UTF-8 replaced; a file that is
/// not valid text is not the writers').
fn read_from(path: &Path, offset: u64, most: u64) -> std::io::Result<String> {
    let mut file = std::fs::File::open(path)?;
    file.seek(SeekFrom::Start(offset))?;
    let mut bytes = Vec::new();
    file.take(most.min(64 << 20)).read_to_end(&mut bytes)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A records line for `event`, sealed as writers seal them.
    fn line(event: &str) -> String {
        chain::sealed(
            &serde_json::json!({"time": "2026-12-06T10:00:00.000Z", "agent": "NAME",
                "event": event, "decision": "none", "code": 0, "answered_by": "relay",
                "prev": ""})
            .to_string(),
        )
    }

    fn events(batch: &Batch) -> Vec<&str> {
        batch.records.iter().map(|r| r.event.as_str()).collect()
    }

    #[test]
    fn records_are_read_across_the_rotation_and_an_unfinished_line_is_left() {
        let dir = tempfile::tempdir().expect("a scratch folder");
        let folder = dir.path();
        std::fs::write(
            folder.join("decisions.1.jsonl"),
            format!("{}{}", line("a"), line("b")),
        )
        .expect("written");
        let torn = line("d");
        std::fs::write(
            folder.join(chain::FILE),
            format!("{}{}", line("c"), &torn[..torn.len() - 10]),
        )
        .expect("written");
        let first = Position::after(folder, None).next_batch(folder);
        assert_eq!(events(&first), ["a", "b"]);
        let second = first.then.next_batch(folder);
        assert_eq!(events(&second), ["c"]);
        assert!(second.then.next_batch(folder).records.is_empty());
        // From a record's hash, the ones after it.
        let hash = hash_of(&line("a")).map(str::to_owned);
        let after_a = Position::after(folder, hash.as_deref()).next_batch(folder);
        assert_eq!(events(&after_a), ["b"]);
        assert_eq!(last_hash(folder).as_deref(), hash_of(&line("c")));
        assert_eq!(second.then.waiting(folder), 0);
        assert_eq!(Position::after(folder, hash.as_deref()).waiting(folder), 2);
    }

    #[test]
    fn a_place_moved_out_by_the_rotation_is_lost_and_reading_goes_on_from_the_oldest() {
        let dir = tempfile::tempdir().expect("a scratch folder");
        let folder = dir.path();
        std::fs::write(folder.join(chain::FILE), line("a")).expect("written");
        let at = Position::after(folder, None).next_batch(folder).then;
        // Its file is gone (rotated out), a newer one holds what came since.
        std::fs::remove_file(folder.join(chain::FILE)).expect("removed");
        std::fs::write(folder.join(chain::FILE), line("b")).expect("written");
        let batch = at.next_batch(folder);
        assert!(batch.lost);
        assert_eq!(events(&batch), ["b"]);
        let gone = Position::after(folder, hash_of(&line("x")));
        assert!(gone.lost);
    }
}
