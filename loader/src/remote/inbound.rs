//! What a plugin process (or long-running hook) says, as one buffered stream shared by the
//! connection's reader thread and a caller that reads its own answer.
//!
//! The reader thread reads whenever no caller does: it sleeps in `epoll_wait` until the
//! process writes, then reads and routes (`connection::read_messages`). A call that is the
//! only one outstanding may instead *lead*: it takes the stream, which takes the process's
//! stdout out of the thread's epoll set (the thread is not woken by the answer), and reads
//! its answer itself, so that the answer costs no wake-up of the reader thread and no
//! hand-off back to the caller, as a plain two-process pipe round trip. A leader reads only
//! whole messages that belong to its call (its answer, its requests that it can serve at
//! once), within a short window; anything else (a message for no call or another call, a
//! line it cannot read, more than [`LEAD_LIMIT`] bytes without a whole message, the end of
//! the stream) is left unread and handed back to the thread, which reads it by the
//! connection's rules as it always did: floods, lies and faults are bounded there, once.
//!
//! A leader hands the stream back without putting the pipe back in the thread's set when
//! no other call waits on the thread: a call that follows soon leads without taking it out
//! again (two system calls a call fewer in a series). A timer puts it back a moment later
//! ([`REARM_AFTER`]), so that what the process says between calls (a request of no call, its
//! end) waits that long at most.
//!
//! The plugin process reads the agent's messages with the same stream, by threads in turns
//! and no leader ([`Readers::Threads`]): the pipe stays in their set, edge-triggered, and
//! wakes one waiting thread for each write.

use std::{
    fs::File,
    io::{self, BufRead, Read},
    os::fd::OwnedFd,
    sync::{Condvar, Mutex},
    time::{Duration, Instant},
};

use nix::poll::PollTimeout;

use super::fd::{set_nonblocking, wait_readable};
use crate::sync::LockUnpoisoned;

/// How much a leader keeps buffered without a whole message before it hands the stream
/// back to the reader thread (which applies the protocol's own bounds).
pub(super) const LEAD_LIMIT: usize = 64 * 1024;

/// What one read of the pipe asks for.
const CHUNK: usize = 16 * 1024;

/// How long after a leader handed the stream back the pipe is put back in the reader
/// thread's set, if no call took the stream meanwhile.
pub(super) const REARM_AFTER: Duration = Duration::from_millis(1);

/// Who reads a stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Readers {
    /// The agent's side of a connection: its reader thread, and a call that reads its own
    /// answer ([`Inbound::lead`]). The pipe is made non-blocking.
    ThreadAndLeaders,
    /// The plugin process's side: reading threads in turns, none leads. The pipe (a private
    /// descriptor of the process) is made non-blocking.
    Threads,
}

/// The process's stdout and what was read of it but not yet consumed (`buf[start..end]`).
pub(crate) struct Stream {
    pipe: File,
    /// The pipe does not block a read: a leader reads to look (one system call, where a
    /// look then a read were two).
    nonblocking: bool,
    /// The last read left the pipe empty (it gave less than it asked for, or nothing): what
    /// comes next wakes a waiting thread. After a read that filled the buffer, the pipe may
    /// hold more that no new write will announce.
    drained: bool,
    buf: Vec<u8>,
    start: usize,
    end: usize,
}

impl Stream {
    fn new(pipe: OwnedFd, nonblocking: bool) -> Self {
        Self {
            pipe: File::from(pipe),
            nonblocking,
            drained: true,
            buf: vec![0; CHUNK],
            start: 0,
            end: 0,
        }
    }

    /// What was read and not consumed.
    pub(crate) fn buffered(&self) -> &[u8] {
        &self.buf[self.start..self.end]
    }

    /// Reads once more from the pipe, appending; waits if nothing is there. `Ok(0)` at
    /// the end of the stream.
    fn read_more(&mut self) -> io::Result<usize> {
        loop {
            if let Some(read) = self.read_now()? {
                return Ok(read);
            }
            wait_readable(&self.pipe, PollTimeout::NONE)?;
        }
    }

    /// Reads once more from the pipe, appending: `None` when a non-blocking pipe has
    /// nothing now (a blocking one waits), `Some(0)` at the end of the stream.
    fn read_now(&mut self) -> io::Result<Option<usize>> {
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        if self.buf.len() - self.end < CHUNK / 2 {
            self.buf.resize(self.buf.len() + CHUNK, 0);
        }
        loop {
            let asked = self.buf.len() - self.end;
            match self.pipe.read(&mut self.buf[self.end..]) {
                Ok(n) => {
                    self.end += n;
                    self.drained = n < asked;
                    return Ok(Some(n));
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    self.drained = true;
                    return Ok(None);
                }
                Err(e) => return Err(e),
            }
        }
    }
}

impl Read for Stream {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(out.len());
        out[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Stream {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
            self.read_more()?;
        }
        Ok(self.buffered())
    }

    fn consume(&mut self, amount: usize) {
        self.start = (self.start + amount).min(self.end);
    }
}

/// Who may read the stream, and how the reader thread sleeps while nobody does.
pub(crate) struct Inbound {
    slot: Mutex<Slot>,
    /// Without a waker: threads wait here for the stream, and read it blocking.
    given_back: Condvar,
    #[cfg(target_os = "linux")]
    waker: Option<linux::Waker>,
}

#[derive(Default)]
struct Slot {
    /// `None` while the reader thread or a leader reads.
    stream: Option<Stream>,
    /// The pipe is in the epoll set, one-shot, and no thread has taken its event since: a
    /// waiting thread needs not arm it again. (False when in doubt: arming twice is harmless,
    /// a pipe believed armed that is not would leave its bytes unread.)
    armed: bool,
    /// Counts the stream's changes of hands (taken or given back), so that a thread woken
    /// by the pipe knows whether anyone read it since it began to wait.
    hands: u64,
    /// A call waits for the reader thread (it could not lead) since the pipe was last armed:
    /// a leader that hands the stream back arms it at once.
    passed_over: bool,
    /// The timer that puts the pipe back is running.
    timer_set: bool,
    /// Edge-triggered: a write woke a thread while another held the stream, which may not
    /// read it: the next thread to find the stream looks.
    unsure: bool,
}

impl Inbound {
    /// Reads `pipe` (a plugin process's stdout, or the plugin process's own input), by
    /// `readers`.
    pub(crate) fn new(pipe: impl Into<OwnedFd>, readers: Readers) -> Self {
        Self::with_rearm_after(pipe, readers, REARM_AFTER)
    }

    /// [`new`](Self::new), the pipe put back in the thread's set `rearm_after` a lead.
    fn with_rearm_after(
        pipe: impl Into<OwnedFd>,
        readers: Readers,
        #[cfg_attr(not(target_os = "linux"), allow(unused_variables))] rearm_after: Duration,
    ) -> Self {
        let pipe = pipe.into();
        let nonblocking = set_nonblocking(&pipe).is_ok();
        #[cfg(target_os = "linux")]
        let waker = {
            // Edges need a pipe that says when it is empty: a thread woken for a write that
            // another has read looks without blocking.
            let trigger = match readers {
                Readers::Threads if nonblocking => linux::Trigger::Edge,
                _ => linux::Trigger::OneShot,
            };
            linux::Waker::new(&pipe, trigger, rearm_after).ok()
        };
        #[cfg(not(target_os = "linux"))]
        let _ = readers;
        Self {
            slot: Mutex::new(Slot {
                stream: Some(Stream::new(pipe, nonblocking)),
                // The waker adds the pipe to its set armed.
                armed: true,
                ..Slot::default()
            }),
            given_back: Condvar::new(),
            #[cfg(target_os = "linux")]
            waker,
        }
    }

    /// A reading thread: waits until there is something to read and nobody reads it,
    /// then takes the stream (give it back with [`give_back`](Self::give_back)). Several
    /// threads may wait at once: one is woken for each arrival.
    pub(crate) fn turn(&self) -> Stream {
        let Some(waker) = self.waiter() else {
            // Without a waker, threads read blocking, one after the other.
            let mut slot = self.slot.lock_unpoisoned();
            loop {
                if let Some(stream) = slot.stream.take() {
                    return stream;
                }
                slot = self
                    .given_back
                    .wait(slot)
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
            }
        };
        if waker.edge_triggered() {
            return self.turn_on_edges(waker);
        }
        // The stream's hands when this thread began to wait with the stream in the slot, and
        // whether the pipe is what woke it: then the pipe holds bytes nobody has read.
        let mut waited_from: Option<u64> = None;
        let mut woken = Woken::default();
        loop {
            {
                let mut slot = self.slot.lock_unpoisoned();
                if woken.pipe {
                    // The one-shot event is taken: the pipe wakes nobody until armed again.
                    slot.armed = false;
                }
                if woken.timer {
                    slot.timer_set = false;
                }
                let unread = woken.pipe && waited_from == Some(slot.hands);
                waited_from = None;
                if let Some(stream) = slot.stream.take() {
                    if unread || !stream.buffered().is_empty() {
                        slot.hands += 1;
                        return stream;
                    }
                    slot.stream = Some(stream);
                    if !slot.armed {
                        // Armed, a pipe that is readable already wakes a waiter at once.
                        arm(&mut slot, waker, false);
                    }
                    waited_from = Some(slot.hands);
                }
                // Else someone reads: they arm it again when they give it back, or start
                // the timer that wakes this thread to.
            }
            woken = waker.wait();
        }
    }

    /// [`turn`](Self::turn) for threads woken by edges: each write wakes one waiting thread,
    /// which reads at once; one that finds nothing (another thread read what woke it)
    /// waits again.
    ///
    /// A thread woken by the pipe reads it even when the stream holds bytes already: the
    /// edge it took may be for bytes still in the pipe, which no other edge announces. (It
    /// once took the stream for the bytes held, and those in the pipe waited for the next
    /// write: a call of eight sent at once went unread.)
    fn turn_on_edges(&self, waker: &Waker) -> Stream {
        let mut woken = false;
        loop {
            {
                let mut slot = self.slot.lock_unpoisoned();
                match slot.stream.take() {
                    Some(mut stream) => {
                        if woken || slot.unsure {
                            slot.unsure = false;
                            // Bytes, the end or an error: the thread reads on and sees which.
                            if !matches!(stream.read_now(), Ok(None)) {
                                slot.hands += 1;
                                return stream;
                            }
                        }
                        if !stream.buffered().is_empty() {
                            slot.hands += 1;
                            return stream;
                        }
                        slot.stream = Some(stream);
                    }
                    None if woken => slot.unsure = true,
                    None => {}
                }
            }
            waker.wait();
            woken = true;
        }
    }

    /// A reading thread is done reading for now: another (or a leader) may take the stream,
    /// and a waiting thread is woken if it holds bytes not yet read (or the pipe may).
    pub(crate) fn give_back(&self, stream: Stream) {
        let mut slot = self.slot.lock_unpoisoned();
        let left = !stream.buffered().is_empty();
        let drained = stream.drained;
        slot.stream = Some(stream);
        slot.hands += 1;
        match self.waiter() {
            Some(waker) if waker.edge_triggered() => {
                if left || !drained || slot.unsure {
                    waker.ring();
                }
            }
            // Armed, a pipe that holds bytes wakes a waiting thread at once.
            Some(waker) => arm(&mut slot, waker, left),
            None => self.given_back.notify_one(),
        }
    }

    /// A leader is done: the stream is given back, and the pipe put back in the thread's
    /// set at once only if it must be (bytes are left, a call waits for the thread, or no
    /// timer); else the timer does it, unless a call leads again before.
    fn hand_back(&self, stream: Stream) {
        let Some(waker) = self.waiter() else {
            return self.give_back(stream);
        };
        let mut slot = self.slot.lock_unpoisoned();
        let left = !stream.buffered().is_empty();
        let more = left || !stream.drained;
        slot.stream = Some(stream);
        slot.hands += 1;
        if more || slot.passed_over {
            // Armed, a pipe that holds bytes wakes the thread at once.
            return arm(&mut slot, waker, left);
        }
        if !slot.timer_set {
            if waker.rearm_later().is_err() {
                return arm(&mut slot, waker, false);
            }
            slot.timer_set = true;
        }
    }

    #[cfg(target_os = "linux")]
    fn waiter(&self) -> Option<&linux::Waker> {
        self.waker.as_ref()
    }

    #[cfg(not(target_os = "linux"))]
    fn waiter(&self) -> Option<&Never> {
        None
    }

    /// The stream, to read a call's own answer, if the reader thread is not reading it and
    /// the call is the `only` one waiting. A call that cannot lead waits for the reader
    /// thread: the pipe is armed now if a leader left it out of the set, or, if a leader
    /// holds the stream, when it hands it back.
    pub(super) fn lead(&self, only: bool) -> Option<Lead<'_>> {
        let waker = self.waiter()?;
        let mut slot = self.slot.lock_unpoisoned();
        let stream = match slot.stream.take() {
            Some(stream) if only => stream,
            Some(stream) => {
                slot.stream = Some(stream);
                if !slot.armed {
                    arm(&mut slot, waker, false);
                }
                return None;
            }
            None => {
                slot.passed_over = true;
                return None;
            }
        };
        if slot.armed {
            if waker.pause().is_err() {
                slot.stream = Some(stream);
                slot.passed_over = true;
                return None;
            }
            slot.armed = false;
        }
        slot.hands += 1;
        Some(Lead {
            inbound: self,
            stream: Some(stream),
        })
    }
}

/// Puts the pipe back in the thread's set (one-shot); `ring`: wakes a thread now.
fn arm(slot: &mut Slot, waker: &Waker, ring: bool) {
    waker.arm(ring);
    slot.armed = true;
    slot.passed_over = false;
}

/// What woke a waiting thread.
#[derive(Debug, Default, Clone, Copy)]
struct Woken {
    /// The pipe (its one-shot event is taken).
    pipe: bool,
    /// The timer that puts the pipe back.
    timer: bool,
}

#[cfg(target_os = "linux")]
use linux::Waker;

#[cfg(not(target_os = "linux"))]
use Never as Waker;

#[cfg(not(target_os = "linux"))]
struct Never;

#[cfg(not(target_os = "linux"))]
impl Never {
    fn wait(&self) -> Woken {
        Woken::default()
    }
    fn pause(&self) -> nix::Result<()> {
        Err(nix::errno::Errno::ENOSYS)
    }
    fn arm(&self, _ring: bool) {}
    fn ring(&self) {}
    fn edge_triggered(&self) -> bool {
        false
    }
    fn rearm_later(&self) -> nix::Result<()> {
        Err(nix::errno::Errno::ENOSYS)
    }
}

/// What a leader found next in the stream.
pub(super) enum Next<'b> {
    /// A whole message: the bytes of one line (without its end), or of one frame (without
    /// its length). Consume it with [`Lead::consume`] once it is understood, or leave it
    /// (drop the lead) for the reader thread.
    Message(&'b [u8], usize),
    /// Nothing whole within the window.
    Later,
    /// The end of the stream, a read error, a message too large to lead, or bytes that
    /// are not a message: for the reader thread.
    HandBack,
}

/// A caller reading its own answer; dropping it hands the stream back to the reader thread
/// (woken if something is left to read).
pub(super) struct Lead<'i> {
    inbound: &'i Inbound,
    stream: Option<Stream>,
}

/// How a message is cut from the stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Cut {
    /// A JSON line (blank lines skipped).
    Line,
    /// A length-prefixed frame.
    Frame,
}

impl Lead<'_> {
    /// The next whole message, waiting for it until `until` at most.
    pub(super) fn next(&mut self, cut: Cut, until: Instant) -> Next<'_> {
        let Some(stream) = self.stream.as_mut() else {
            return Next::HandBack;
        };
        loop {
            match whole(stream.buffered(), cut) {
                Whole::Message(from, len, taken) => {
                    let at = stream.start + from;
                    return Next::Message(&stream.buf[at..at + len], taken);
                }
                Whole::Skip(taken) => {
                    stream.consume(taken);
                    continue;
                }
                Whole::TooLarge => return Next::HandBack,
                Whole::Partial if stream.buffered().len() >= LEAD_LIMIT => return Next::HandBack,
                Whole::Partial => {}
            }
            match read_within(stream, until) {
                Ok(Some(0)) | Err(_) => return Next::HandBack,
                Ok(Some(_)) => {}
                Ok(None) => return Next::Later,
            }
        }
    }

    /// Consumes the message [`next`](Self::next) gave (`taken` bytes, its end included).
    pub(super) fn consume(&mut self, taken: usize) {
        if let Some(stream) = self.stream.as_mut() {
            stream.consume(taken);
        }
    }
}

impl Drop for Lead<'_> {
    fn drop(&mut self) {
        if let Some(stream) = self.stream.take() {
            self.inbound.hand_back(stream);
        }
    }
}

enum Whole {
    /// A message at `from`, `len` bytes, `taken` bytes consumed with it.
    Message(usize, usize, usize),
    /// A blank line to skip.
    Skip(usize),
    Partial,
    TooLarge,
}

fn whole(buffered: &[u8], cut: Cut) -> Whole {
    match cut {
        Cut::Line => {
            let Some(end) = buffered.iter().position(|b| *b == b'\n') else {
                return Whole::Partial;
            };
            let mut line = &buffered[..end];
            if line.last() == Some(&b'\r') {
                line = &line[..line.len() - 1];
            }
            if line.iter().all(u8::is_ascii_whitespace) {
                return Whole::Skip(end + 1);
            }
            Whole::Message(0, line.len(), end + 1)
        }
        Cut::Frame => {
            let Some(prefix) = buffered.get(..4) else {
                return Whole::Partial;
            };
            let mut len = [0u8; 4];
            len.copy_from_slice(prefix);
            let len = u32::from_le_bytes(len) as usize;
            if len > LEAD_LIMIT {
                return Whole::TooLarge;
            }
            if buffered.len() < 4 + len {
                return Whole::Partial;
            }
            Whole::Message(4, len, 4 + len)
        }
    }
}

/// Reads once more, until `until` at most: `None` if nothing came. It looks without
/// sleeping first, for a few microseconds (a quick answer then wakes nobody); on a
/// non-blocking pipe each look is the read itself.
fn read_within(stream: &mut Stream, until: Instant) -> io::Result<Option<usize>> {
    use crate::supervisor::workers::{spin, SPIN};
    let mut spun = false;
    let looked = spin(SPIN, || {
        // Past the first look (which reads no clock), the spin ends at `until`.
        if spun && Instant::now() >= until {
            return Some(Ok(None));
        }
        spun = true;
        if stream.nonblocking {
            return match stream.read_now() {
                Ok(None) => None,
                read => Some(read),
            };
        }
        match wait_readable(&stream.pipe, PollTimeout::ZERO) {
            Ok(false) => None,
            Ok(true) => Some(stream.read_more().map(Some)),
            Err(e) => Some(Err(e)),
        }
    });
    if let Some(read) = looked {
        return read;
    }
    let left = until.saturating_duration_since(Instant::now());
    let ms = u16::try_from(left.as_micros().div_ceil(1000)).unwrap_or(u16::MAX);
    if !wait_readable(&stream.pipe, PollTimeout::from(ms))? {
        return Ok(None);
    }
    // Readable: a read does not wait.
    stream.read_now()
}

#[cfg(target_os = "linux")]
mod linux {
    //! The reading threads' sleep: an epoll set holding the pipe and a doorbell rung when the
    //! stream is given back holding bytes not yet read.
    //!
    //! On the agent's side the pipe is one-shot: it wakes one waiting thread, then is armed
    //! again when the stream is given back; disarmed while a caller leads, so that the
    //! answer wakes only the caller; and a timer in the set wakes the thread to arm it a
    //! moment after a leader left it disarmed. A thread woken by the pipe reads at once, and
    //! one that finds the pipe armed waits without arming it again.
    //!
    //! In the plugin process the pipe is edge-triggered: each write wakes one waiting thread
    //! and nothing is armed again, so that a call costs its reading thread one wait and one
    //! read.

    use std::{
        os::fd::{AsFd, OwnedFd},
        time::Duration,
    };

    use nix::sys::{
        epoll::{Epoll, EpollCreateFlags, EpollEvent, EpollFlags, EpollTimeout},
        eventfd::{EfdFlags, EventFd},
        time::TimeSpec,
        timerfd::{ClockId, Expiration, TimerFd, TimerFlags, TimerSetTimeFlags},
    };

    use super::Woken;

    const PIPE: u64 = 1;
    const ARMED: EpollFlags = EpollFlags::EPOLLIN.union(EpollFlags::EPOLLONESHOT);
    const EDGES: EpollFlags = EpollFlags::EPOLLIN.union(EpollFlags::EPOLLET);
    const DOORBELL: u64 = 2;
    const TIMER: u64 = 3;

    /// How the pipe wakes a waiting thread.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub(super) enum Trigger {
        /// Once, then not until armed again (the agent's side).
        OneShot,
        /// At each write (the plugin process's side).
        Edge,
    }

    pub(super) struct Waker {
        epoll: Epoll,
        doorbell: EventFd,
        /// The process's stdout, a second descriptor of it (the stream reads the first).
        pipe: OwnedFd,
        trigger: Trigger,
        /// One-shot only: wakes the thread to arm the pipe again after a lead. Without it
        /// (it could not be made) a leader arms the pipe itself.
        timer: Option<TimerFd>,
        /// How long after a lead the timer fires.
        rearm_after: Duration,
    }

    impl Waker {
        pub(super) fn new(
            pipe: &OwnedFd,
            trigger: Trigger,
            rearm_after: Duration,
        ) -> nix::Result<Self> {
            let epoll = Epoll::new(EpollCreateFlags::EPOLL_CLOEXEC)?;
            let doorbell =
                EventFd::from_value_and_flags(0, EfdFlags::EFD_CLOEXEC | EfdFlags::EFD_NONBLOCK)?;
            let pipe = pipe.as_fd().try_clone_to_owned().map_err(|e| {
                nix::errno::Errno::from_raw(e.raw_os_error().unwrap_or(libc::EBADF))
            })?;
            let flags = match trigger {
                Trigger::OneShot => ARMED,
                Trigger::Edge => EDGES,
            };
            epoll.add(&pipe, EpollEvent::new(flags, PIPE))?;
            epoll.add(&doorbell, EpollEvent::new(EpollFlags::EPOLLIN, DOORBELL))?;
            let timer = match trigger {
                Trigger::OneShot => TimerFd::new(
                    ClockId::CLOCK_MONOTONIC,
                    TimerFlags::TFD_CLOEXEC | TimerFlags::TFD_NONBLOCK,
                )
                .ok()
                .filter(|timer| {
                    epoll
                        .add(timer, EpollEvent::new(EpollFlags::EPOLLIN, TIMER))
                        .is_ok()
                }),
                Trigger::Edge => None,
            };
            Ok(Self {
                epoll,
                doorbell,
                pipe,
                trigger,
                timer,
                rearm_after,
            })
        }

        pub(super) fn edge_triggered(&self) -> bool {
            self.trigger == Trigger::Edge
        }

        /// Sleeps until the pipe is readable (while it is armed), the doorbell rang or the
        /// timer fired; what came (the pipe's one-shot event is then taken).
        pub(super) fn wait(&self) -> Woken {
            let mut events = [EpollEvent::empty(); 3];
            let count = self
                .epoll
                .wait(&mut events, EpollTimeout::NONE)
                .unwrap_or(0);
            let came = &events[..count.min(events.len())];
            let mut woken = Woken::default();
            for event in came {
                match event.data() {
                    PIPE => woken.pipe = true,
                    DOORBELL => {
                        let _ = self.doorbell.read();
                    }
                    TIMER => {
                        woken.timer = true;
                        if let Some(timer) = &self.timer {
                            // Non-blocking: reads its count of expiries, which clears it.
                            let _ = timer.wait();
                        }
                    }
                    _ => {}
                }
            }
            woken
        }

        /// A caller leads: the pipe no longer wakes a thread.
        pub(super) fn pause(&self) -> nix::Result<()> {
            let mut event = EpollEvent::new(EpollFlags::empty(), PIPE);
            self.epoll.modify(&self.pipe, &mut event)
        }

        /// The pipe wakes a waiting thread again (once); `ring` wakes one now (the stream
        /// holds bytes not yet read).
        pub(super) fn arm(&self, ring: bool) {
            let mut event = EpollEvent::new(ARMED, PIPE);
            let _ = self.epoll.modify(&self.pipe, &mut event);
            if ring {
                self.ring();
            }
        }

        /// Wakes a waiting thread now.
        pub(super) fn ring(&self) {
            let _ = self.doorbell.write(1);
        }

        /// Wakes a waiting thread a while from now (to arm the pipe).
        pub(super) fn rearm_later(&self) -> nix::Result<()> {
            let timer = self.timer.as_ref().ok_or(nix::errno::Errno::ENOSYS)?;
            timer.set(
                Expiration::OneShot(TimeSpec::from_duration(self.rearm_after)),
                TimerSetTimeFlags::empty(),
            )
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use std::{io::Write, sync::Arc, time::Duration};

    use super::*;

    /// Two messages written before anyone reads wake the plugin process's threads once (the
    /// pipe's edges come together). A thread whose read filled its buffer with exactly the
    /// first hands the stream back knowing the pipe may hold more: the next thread gets the
    /// second, not a sleep until the agent writes again.
    #[test]
    fn bytes_left_in_the_pipe_after_a_full_read_are_not_left_waiting() {
        let (read, mut write) = std::io::pipe().expect("a pipe");
        let inbound = Arc::new(Inbound::new(OwnedFd::from(read), Readers::Threads));
        write.write_all(&vec![b'a'; CHUNK]).expect("room");
        write.write_all(b"second").expect("room");
        let mut stream = inbound.turn();
        let mut first = vec![0; CHUNK];
        stream.read_exact(&mut first).expect("the first");
        assert!(stream.buffered().is_empty());
        inbound.give_back(stream);
        let (sender, receiver) = std::sync::mpsc::channel();
        let reading = inbound.clone();
        std::thread::spawn(move || {
            let mut stream = reading.turn();
            let mut second = [0; 6];
            let read = stream.read_exact(&mut second).map(|()| second);
            let _ = sender.send(read.ok());
        });
        let second = receiver
            .recv_timeout(Duration::from_secs(5))
            .expect("a thread took the stream to read what is left");
        assert_eq!(second.as_ref().map(|s| &s[..]), Some(&b"second"[..]));
        drop(write);
    }

    /// A call that cannot lead (another is outstanding) right after a lead left the pipe out
    /// of the reader thread's set: its answer is read by the thread at once, not when the
    /// timer puts the pipe back (an hour, here).
    #[test]
    fn a_call_that_cannot_lead_after_a_lead_is_read_by_the_thread_at_once() {
        let (read, mut write) = std::io::pipe().expect("a pipe");
        let inbound = Arc::new(Inbound::with_rearm_after(
            OwnedFd::from(read),
            Readers::ThreadAndLeaders,
            Duration::from_secs(3600),
        ));
        let (sender, receiver) = std::sync::mpsc::channel();
        let reading = inbound.clone();
        std::thread::spawn(move || loop {
            let mut stream = reading.turn();
            let mut byte = [0];
            if stream.read_exact(&mut byte).is_err() || sender.send(byte[0]).is_err() {
                break;
            }
            reading.give_back(stream);
        });
        // The thread has read once and sleeps (a thread that loops later would arm the pipe
        // itself, finding it out of its set).
        write.write_all(b"x").expect("room");
        assert_eq!(receiver.recv_timeout(Duration::from_secs(5)), Ok(b'x'));
        std::thread::sleep(Duration::from_millis(50));
        drop(inbound.lead(true).expect("nobody reads"));
        assert!(inbound.lead(false).is_none());
        write.write_all(b"a").expect("room");
        assert_eq!(receiver.recv_timeout(Duration::from_secs(5)), Ok(b'a'));
    }

    /// Eight writers at once, over and over, to threads that each take the stream for one
    /// line, hand it back and go on with that line, as the plugin process's threads do with
    /// calls: every line is read, never left in the pipe until the next write. (A thread
    /// woken by the pipe that took the stream for bytes it already held left the pipe's
    /// bytes unread: about one round in fifty, with other processes busy.)
    #[test]
    fn lines_written_together_are_all_read_by_the_threads() {
        use std::io::BufRead;
        let (read, write) = std::io::pipe().expect("a pipe");
        let inbound = Arc::new(Inbound::new(OwnedFd::from(read), Readers::Threads));
        let (sender, receiver) = std::sync::mpsc::channel();
        for _ in 0..4 {
            let reading = inbound.clone();
            let sender = sender.clone();
            std::thread::spawn(move || loop {
                let mut stream = reading.turn();
                let mut line = String::new();
                if stream.read_line(&mut line).unwrap_or(0) == 0 {
                    break;
                }
                reading.give_back(stream);
                if sender.send(line).is_err() {
                    break;
                }
            });
        }
        let write = Arc::new(Mutex::new(write));
        for round in 0..2000 {
            let writers: Vec<_> = (0..8)
                .map(|i| {
                    let write = write.clone();
                    std::thread::spawn(move || {
                        let line = format!("{round} {i}\n");
                        let _ = write.lock_unpoisoned().write_all(line.as_bytes());
                    })
                })
                .collect();
            for writer in writers {
                let _ = writer.join();
            }
            for _ in 0..8 {
                let line = receiver.recv_timeout(Duration::from_secs(2));
                assert!(line.is_ok(), "round {round}: a line was left unread");
            }
        }
    }

    /// The agent's side under calls at once, as a connection uses it: a reader thread that
    /// routes each answer to its call, and calls that lead when they are the only one
    /// outstanding (reading their own answer for a moment, leaving any other for the
    /// thread). Eight callers, over and over, answered at once or a little later: every
    /// call gets its answer, none waits for the next write.
    #[test]
    fn calls_at_once_each_get_their_answer_whoever_reads_it() {
        use std::{
            collections::HashMap,
            io::BufRead,
            sync::mpsc::{channel, Sender},
        };
        let (read, write) = std::io::pipe().expect("a pipe");
        let inbound = Arc::new(Inbound::new(OwnedFd::from(read), Readers::ThreadAndLeaders));
        let calls: Arc<Mutex<HashMap<u64, Sender<()>>>> = Arc::default();
        // The reader thread: routes each line (a call's id) to its call.
        let (reading, routes) = (inbound.clone(), calls.clone());
        std::thread::spawn(move || loop {
            let mut stream = reading.turn();
            loop {
                let mut line = String::new();
                if stream.read_line(&mut line).unwrap_or(0) == 0 {
                    return;
                }
                if let Ok(id) = line.trim().parse::<u64>() {
                    if let Some(call) = routes.lock_unpoisoned().get(&id) {
                        let _ = call.send(());
                    }
                }
                if stream.buffered().is_empty() {
                    break;
                }
            }
            reading.give_back(stream);
        });
        // The other process: answers each call, every third a little later.
        let (ask, asked) = channel::<u64>();
        std::thread::spawn(move || {
            let mut write = write;
            for id in asked {
                if id % 3 == 0 {
                    std::thread::sleep(Duration::from_micros(200));
                }
                if write.write_all(format!("{id}\n").as_bytes()).is_err() {
                    return;
                }
            }
        });
        for round in 0..300u64 {
            let callers: Vec<_> = (0..8u64)
                .map(|i| {
                    let (inbound, calls, ask) = (inbound.clone(), calls.clone(), ask.clone());
                    std::thread::spawn(move || {
                        let id = round * 8 + i;
                        let (answered, answer) = channel();
                        let only = {
                            let mut calls = calls.lock_unpoisoned();
                            calls.insert(id, answered);
                            calls.len() == 1
                        };
                        let lead = inbound.lead(only);
                        let _ = ask.send(id);
                        let mut done = false;
                        if let Some(mut lead) = lead {
                            let until = Instant::now() + Duration::from_millis(1);
                            if let Next::Message(bytes, taken) = lead.next(Cut::Line, until) {
                                if bytes == id.to_string().as_bytes() {
                                    lead.consume(taken);
                                    done = true;
                                }
                            }
                        }
                        let done = done || answer.recv_timeout(Duration::from_secs(2)).is_ok();
                        calls.lock_unpoisoned().remove(&id);
                        done
                    })
                })
                .collect();
            for caller in callers {
                assert!(
                    caller.join().unwrap_or(false),
                    "round {round}: a call got no answer"
                );
            }
        }
    }
}
