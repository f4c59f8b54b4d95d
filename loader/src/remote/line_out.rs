//! What the agent writes to a long-running hook: each line at once, from the thread that
//! sends it, when the hook's pipe has room and no line waits before it (one non-blocking
//! `write`, no thread hand-off); otherwise the line waits, in order, for a writer thread of
//! the connection. A hook that stops reading can never block the agent: past [`OUT_QUEUE`]
//! waiting lines it is stopped. The writer thread ends when the connection is let go (even
//! if something still holds the hook's stdin open without reading it) or when the pipe
//! breaks.

use std::{
    collections::VecDeque,
    io::{self, Write},
    os::fd::AsFd,
    process::ChildStdin,
    sync::{Arc, Condvar, Mutex},
    thread,
};

use nix::poll::{poll, PollFd, PollFlags, PollTimeout};

use crate::sync::LockUnpoisoned;

/// How many lines may wait for a long-running hook to read them.
pub(super) const OUT_QUEUE: usize = 1024;

/// The name of a long-running hook's writer thread (tests count them).
const WRITER_THREAD: &str = "hook-stdin";

/// How long the writer thread waits for room in the pipe before it looks again whether
/// the connection was let go.
const RECHECK_MS: u16 = 100;

/// Why a line was not written or queued.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Refused {
    /// [`OUT_QUEUE`] lines already wait: the hook stopped reading.
    Full,
    /// The pipe is broken, or the connection was let go.
    Closed,
}

/// The lines waiting for the hook, the first one perhaps written in part.
#[derive(Default)]
struct Waiting {
    lines: VecDeque<Vec<u8>>,
    /// How much of the first line was written.
    written: usize,
    /// The pipe broke, or the connection was let go: nothing more is written.
    closed: bool,
    /// The connection was let go: the writer thread writes what it can without waiting,
    /// then ends.
    let_go: bool,
    /// The bytes of every line taken so far, written or waiting.
    taken: u64,
}

struct Shared {
    pipe: ChildStdin,
    /// The pipe is non-blocking: senders may write to it themselves.
    direct: bool,
    waiting: Mutex<Waiting>,
    wake: Condvar,
}

/// A long-running hook's stdin. Dropping it lets the writer thread go.
pub(super) struct LineOut {
    shared: Arc<Shared>,
}

impl LineOut {
    /// Takes the hook's stdin (made non-blocking) and starts its writer thread.
    pub(super) fn new(pipe: ChildStdin) -> Self {
        let nonblocking = super::fd::set_nonblocking(&pipe);
        // Should the pipe stay blocking, every line goes through the writer thread.
        let shared = Arc::new(Shared {
            pipe,
            direct: nonblocking.is_ok(),
            waiting: Mutex::default(),
            wake: Condvar::new(),
        });
        let writer = shared.clone();
        let _ = thread::Builder::new()
            .name(WRITER_THREAD.into())
            .spawn(move || write_waiting(&writer));
        Self { shared }
    }

    /// Writes `line` now if nothing waits before it and the pipe takes it, else queues
    /// (the rest of) it for the writer thread. Where the line starts in all that was sent,
    /// for [`read_past`](Self::read_past).
    pub(super) fn send(&self, line: Vec<u8>) -> Result<u64, Refused> {
        let mut waiting = self.shared.waiting.lock_unpoisoned();
        if waiting.closed {
            return Err(Refused::Closed);
        }
        let start = waiting.taken;
        if !waiting.lines.is_empty() || !self.shared.direct {
            if waiting.lines.len() >= OUT_QUEUE {
                return Err(Refused::Full);
            }
            waiting.taken += line.len() as u64;
            waiting.lines.push_back(line);
            self.shared.wake.notify_one();
            return Ok(start);
        }
        let written = match (&self.shared.pipe).write(&line) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => 0,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => 0,
            Err(_) => {
                waiting.closed = true;
                self.shared.wake.notify_one();
                return Err(Refused::Closed);
            }
        };
        waiting.taken += line.len() as u64;
        if written < line.len() {
            waiting.lines.push_back(line);
            waiting.written = written;
            self.shared.wake.notify_one();
        }
        Ok(start)
    }

    /// Whether the hook read past `start` (where a line began, as [`send`](Self::send)
    /// gave it): all that was sent, less what waits to be written and what the pipe still
    /// holds unread. `None` when the pipe cannot tell.
    pub(super) fn read_past(&self, start: u64) -> Option<bool> {
        let waiting = self.shared.waiting.lock_unpoisoned();
        let queued = waiting
            .lines
            .iter()
            .map(|line| line.len() as u64)
            .sum::<u64>()
            .saturating_sub(waiting.written as u64);
        let unread = crate::sys::pipe::unread(self.shared.pipe.as_fd()).ok()? as u64;
        let read = waiting.taken.checked_sub(queued + unread)?;
        Some(read > start)
    }
}

impl LineOut {
    /// Lets the writer thread go: it writes what the pipe takes without waiting, then ends.
    /// Called when the hook's process ended (a descendant may still hold its stdin open,
    /// reading nothing) and when the connection is dropped.
    pub(super) fn let_go(&self) {
        self.shared.waiting.lock_unpoisoned().let_go = true;
        self.shared.wake.notify_one();
    }
}

impl Drop for LineOut {
    fn drop(&mut self) {
        self.let_go();
    }
}

/// The writer thread: writes the waiting lines as the pipe takes them, until the pipe
/// breaks, or the connection is let go and the pipe takes no more.
fn write_waiting(shared: &Shared) {
    loop {
        let mut waiting = shared.waiting.lock_unpoisoned();
        while waiting.lines.is_empty() && !waiting.let_go && !waiting.closed {
            waiting = shared
                .wake
                .wait(waiting)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
        if waiting.closed || (waiting.let_go && waiting.lines.is_empty()) {
            return;
        }
        if !shared.direct {
            // A blocking pipe: written without the lock, so that senders queue meanwhile.
            let Some(line) = waiting.lines.pop_front() else {
                continue;
            };
            drop(waiting);
            if (&shared.pipe).write_all(&line).is_err() {
                shared.waiting.lock_unpoisoned().closed = true;
                return;
            }
            continue;
        }
        let from = waiting.written;
        let Some(line) = waiting.lines.front() else {
            continue;
        };
        match (&shared.pipe).write(&line[from..]) {
            Ok(n) if from + n >= line.len() => {
                waiting.lines.pop_front();
                waiting.written = 0;
            }
            Ok(n) => waiting.written = from + n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                if waiting.let_go {
                    waiting.closed = true;
                    return;
                }
                // Wait for room without holding the lock: senders queue meanwhile.
                drop(waiting);
                let mut fds = [PollFd::new(shared.pipe.as_fd(), PollFlags::POLLOUT)];
                let _ = poll(&mut fds, PollTimeout::from(RECHECK_MS));
            }
            Err(_) => {
                waiting.closed = true;
                return;
            }
        }
    }
}
