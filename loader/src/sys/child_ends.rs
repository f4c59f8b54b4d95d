//! Children's ends as a descriptor that `poll` waits on: the keeper waits in one `poll` for
//! the agent's next request or a child's end (`supervisor/keeper/serve.rs`).
//!
//! Linux: a signalfd for SIGCHLD. Elsewhere (macOS has no signalfd): a thread that takes
//! SIGCHLD with `sigwait` and writes a byte into a pipe for each, whose read end is the
//! descriptor. Either way SIGCHLD is blocked in the calling thread (and so in the threads it
//! starts after); a child's signal mask is emptied when it starts (std's `Command` and the
//! keeper's own spawn do so).

use std::{
    io,
    os::fd::{AsFd, BorrowedFd},
};

use nix::sys::signal::{SigSet, Signal};

/// A descriptor readable once a child has ended, until [`ChildEnds::clear`].
pub(crate) struct ChildEnds {
    #[cfg(target_os = "linux")]
    signals: nix::sys::signalfd::SignalFd,
    #[cfg(not(target_os = "linux"))]
    read: std::os::fd::OwnedFd,
}

impl ChildEnds {
    /// Blocks SIGCHLD in this thread and opens the descriptor. Call it before this thread
    /// starts any other.
    pub(crate) fn new() -> io::Result<Self> {
        let mut child_ended = SigSet::empty();
        child_ended.add(Signal::SIGCHLD);
        child_ended.thread_block()?;
        #[cfg(target_os = "linux")]
        {
            use nix::sys::signalfd::{SfdFlags, SignalFd};
            let signals =
                SignalFd::with_flags(&child_ended, SfdFlags::SFD_NONBLOCK | SfdFlags::SFD_CLOEXEC)?;
            Ok(ChildEnds { signals })
        }
        #[cfg(not(target_os = "linux"))]
        {
            use nix::fcntl::{fcntl, FcntlArg, OFlag};
            let (read, write) = super::pipe::cloexec()?;
            for end in [&read, &write] {
                let flags = OFlag::from_bits_retain(fcntl(end, FcntlArg::F_GETFL)?);
                fcntl(end, FcntlArg::F_SETFL(flags | OFlag::O_NONBLOCK))?;
            }
            // Started with SIGCHLD blocked, as `sigwait` needs. A full pipe is readable
            // already, so a byte that does not fit is not needed.
            std::thread::Builder::new()
                .name("agent-hooks-keeper-sigchld".into())
                .spawn(move || {
                    while child_ended.wait().is_ok() {
                        let _ = nix::unistd::write(&write, &[0]);
                    }
                })?;
            Ok(ChildEnds { read })
        }
    }

    /// Takes what was signalled: the descriptor is not readable again until another child
    /// ends. Called before reaping, so that an end after it is signalled anew.
    pub(crate) fn clear(&self) {
        #[cfg(target_os = "linux")]
        while let Ok(Some(_)) = self.signals.read_signal() {}
        #[cfg(not(target_os = "linux"))]
        {
            let mut buffer = [0u8; 64];
            while matches!(nix::unistd::read(&self.read, &mut buffer), Ok(n) if n > 0) {}
        }
    }
}

impl AsFd for ChildEnds {
    fn as_fd(&self) -> BorrowedFd<'_> {
        #[cfg(target_os = "linux")]
        return self.signals.as_fd();
        #[cfg(not(target_os = "linux"))]
        return self.read.as_fd();
    }
}
