//! Waiting for a child process that the caller manages itself (a plugin process), so that
//! its group can be signalled safely right up to the moment it is reaped.

use std::io;

use nix::unistd::Pid;

use crate::error::Termination;

/// How a reaped process ended, and the most memory it used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Reaped {
    pub termination: Termination,
    /// Peak resident memory, in KiB.
    pub peak_rss_kib: u64,
}

/// Whether child `pid` (or a process the keeper started) has ended; not reaped.
pub(crate) fn has_ended(pid: Pid) -> bool {
    if super::keeper::kept(pid.as_raw()) {
        return super::keeper::peek(pid.as_raw()).is_some();
    }
    crate::sys::process::has_ended(pid)
}

/// A process's end, seen the moment the process exits, whoever reaps it: a process the
/// keeper started is reaped by the keeper, whose word that it ended comes a moment later
/// (a pidfd where the kernel has them, Linux 5.3+ with glibc; elsewhere [`has_ended`]).
pub(crate) struct EndWatch {
    pid: Pid,
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    pidfd: Option<std::os::fd::OwnedFd>,
}

impl EndWatch {
    /// Watches child `pid` (or a process the keeper started), just started.
    pub(crate) fn new(pid: Pid) -> Self {
        EndWatch {
            pid,
            #[cfg(all(target_os = "linux", target_env = "gnu"))]
            pidfd: crate::sys::process::pidfd_open(pid).ok(),
        }
    }

    /// Whether the process has exited (a zombie not yet reaped included).
    pub(crate) fn has_ended(&self) -> bool {
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        if let Some(pidfd) = &self.pidfd {
            use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
            use std::os::fd::AsFd;
            let mut fds = [PollFd::new(pidfd.as_fd(), PollFlags::POLLIN)];
            if let Ok(ready) = poll(&mut fds, PollTimeout::ZERO) {
                return ready > 0;
            }
        }
        has_ended(self.pid)
    }
}

/// Blocks until child `pid` has ended, without reaping it: its id (and its group's) stays
/// ours until [`reap`] is called. A process the keeper started is reaped by the keeper as it
/// ends; its id is not reused within the moment the agent still signals its group.
pub(crate) fn wait_for_end(pid: Pid) -> io::Result<()> {
    if super::keeper::kept(pid.as_raw()) {
        super::keeper::wait(pid.as_raw());
        return Ok(());
    }
    crate::sys::process::wait_ended(pid)
}

/// Reaps child `pid`, which has ended, and reads how it ended and its peak memory.
pub(crate) fn reap(pid: Pid) -> io::Result<Reaped> {
    let (status, peak) = if super::keeper::kept(pid.as_raw()) {
        let ended = super::keeper::take(pid.as_raw());
        (ended.status, ended.peak_kib)
    } else {
        let (status, usage) = crate::sys::process::wait4(pid)?;
        (status, crate::sys::process::peak_kib(&usage))
    };
    let termination = if libc::WIFSIGNALED(status) {
        Termination::Signal(libc::WTERMSIG(status))
    } else {
        Termination::Exit(libc::WEXITSTATUS(status))
    };
    Ok(Reaped {
        termination,
        peak_rss_kib: u64::try_from(peak).unwrap_or_default(),
    })
}
