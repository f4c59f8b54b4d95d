//! A plugin process's stderr: the last bytes of it, kept for reports of its death, and a
//! long-running hook's stderr since the last event took it (bounded), for the event's report.

use std::{
    collections::VecDeque,
    io::Read,
    os::fd::{AsFd, OwnedFd},
    process::ChildStderr,
    sync::{
        atomic::{AtomicBool, Ordering},
        mpsc, Arc, Mutex,
    },
    thread,
    time::{Duration, Instant},
};

use nix::poll::{poll, PollFd, PollFlags, PollTimeout};

use crate::sync::LockUnpoisoned;

/// How much of a plugin process's stderr is kept for reports.
pub(super) const STDERR_TAIL: usize = 2048;

/// How much of a long-running hook's stderr is kept between two events (it is logged with
/// the event's report); more is dropped, and the drop is said.
pub const STDERR_LOG: usize = 64 * 1024;

/// How long taking a long-running hook's stderr waits for its reader to catch up.
pub(super) const STDERR_CATCH_UP: Duration = Duration::from_millis(5);

/// A long-running hook's stderr since an event last took it, and whether some was dropped.
pub(super) type StderrLog = (Vec<u8>, bool);

/// Keeps the last bytes of the plugin process's stderr, and a long-running hook's stderr
/// until an event takes it (up to [`STDERR_LOG`]). Returns what ends when stderr ends, and
/// a flag that is up from the moment the thread sees bytes in the pipe until they are kept
/// (see [`wait_until_read`]).
pub(super) fn keep_stderr(
    stderr: ChildStderr,
    tail: Arc<Mutex<VecDeque<u8>>>,
    log: Option<Arc<Mutex<StderrLog>>>,
) -> (mpsc::Receiver<()>, Arc<AtomicBool>) {
    // Disconnected when the thread ends, at the end of stderr.
    let (read, done) = mpsc::channel::<()>();
    let busy = Arc::new(AtomicBool::new(false));
    let keeping = busy.clone();
    thread::spawn(move || {
        let _read = read;
        let mut stderr = stderr;
        let mut chunk = [0u8; 4096];
        loop {
            // Up before the bytes leave the pipe, down once they are kept: whoever sees the
            // pipe empty and the flag down knows that all that was written is kept.
            // Until something is there (or the end); a pipe that cannot be polled ends it.
            if super::fd::wait_readable(&stderr, PollTimeout::NONE).is_err() {
                break;
            }
            keeping.store(true, Ordering::SeqCst);
            let n = match stderr.read(&mut chunk) {
                Ok(n) if n > 0 => n,
                _ => {
                    keeping.store(false, Ordering::SeqCst);
                    break;
                }
            };
            {
                let mut tail = tail.lock_unpoisoned();
                tail.extend(&chunk[..n]);
                let excess = tail.len().saturating_sub(STDERR_TAIL);
                tail.drain(..excess);
            }
            if let Some(log) = &log {
                let mut log = log.lock_unpoisoned();
                let room = STDERR_LOG.saturating_sub(log.0.len());
                log.0.extend_from_slice(&chunk[..n.min(room)]);
                log.1 |= n > room;
            }
            keeping.store(false, Ordering::SeqCst);
        }
    });
    (done, busy)
}

/// Waits (a few milliseconds at most) until nothing is left unread in `pipe` and its
/// thread (whose flag is `busy`) has kept all it read: what a hook wrote to stderr before
/// its answer is read by its own thread, which may not have run yet.
pub(super) fn wait_until_read(pipe: &OwnedFd, busy: &AtomicBool) -> nix::Result<()> {
    // Read when first needed: most events find nothing to wait for.
    let mut deadline = None;
    loop {
        let mut fds = [PollFd::new(pipe.as_fd(), PollFlags::POLLIN)];
        poll(&mut fds, PollTimeout::ZERO)?;
        let unread = fds[0]
            .revents()
            .is_some_and(|events| events.contains(PollFlags::POLLIN));
        if !unread && !busy.load(Ordering::SeqCst) {
            return Ok(());
        }
        let now = Instant::now();
        if now >= *deadline.get_or_insert(now + STDERR_CATCH_UP) {
            return Ok(());
        }
        thread::yield_now();
    }
}
