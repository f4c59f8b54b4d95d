//! One writer of the install record at a time: `install`, `uninstall` and each sync of the
//! entries (a session's start, the resident process, `trust`) read `installed.json`, change
//! agents' files and write the record back. Two at once (two sessions starting together)
//! could each write a record without the other's change, and `uninstall` would then leave an
//! entry behind or fail to put a file back. Each holds an exclusive lock on a file beside the
//! record for its whole read, change and write.

use std::{
    fs::File,
    path::Path,
    time::{Duration, Instant},
};

use nix::fcntl::{Flock, FlockArg};

use super::InstallError;

/// How long a writer waits for another to finish before it gives up and says so.
const WAIT: Duration = Duration::from_secs(10);

/// The lock, held until dropped.
#[derive(Debug)]
pub struct Held {
    _lock: Flock<File>,
}

/// Takes the lock beside the record `record` (`installed.json.lock`), waiting up to [`WAIT`]
/// for another writer.
pub fn take(record: &Path) -> Result<Held, InstallError> {
    take_within(record, WAIT)
}

fn take_within(record: &Path, wait: Duration) -> Result<Held, InstallError> {
    let path = record.with_extension("json.lock");
    if let Some(folder) = path.parent() {
        std::fs::create_dir_all(folder).map_err(|error| InstallError::Io {
            path: folder.to_path_buf(),
            error,
        })?;
    }
    let mut file = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|error| InstallError::Io {
            path: path.clone(),
            error,
        })?;
    let since = Instant::now();
    loop {
        match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
            Ok(held) => return Ok(Held { _lock: held }),
            Err((back, nix::errno::Errno::EWOULDBLOCK)) if since.elapsed() < wait => {
                file = back;
                std::thread::sleep(Duration::from_millis(20));
            }
            Err((_, nix::errno::Errno::EWOULDBLOCK)) => return Err(InstallError::Busy(path)),
            Err((_, errno)) => {
                return Err(InstallError::Io {
                    path,
                    error: errno.into(),
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_writer_waits_for_the_first_and_says_so_when_it_waited_too_long() {
        let dir = tempfile::tempdir().expect("a scratch folder");
        let record = dir.path().join("installed.json");
        let first = take(&record).expect("the first writer");
        let started = Instant::now();
        let second = take_within(&record, Duration::from_millis(200));
        assert!(started.elapsed() >= Duration::from_millis(200));
        let error = second.expect_err("held by the first").to_string();
        assert_eq!(
            error,
            format!(
                "{} is held by another agent-hooks install, uninstall or sync of the entries; try again once it is done",
                dir.path().join("installed.json.lock").display()
            )
        );
        drop(first);
        take_within(&record, Duration::from_millis(200)).expect("free again");
    }
}
