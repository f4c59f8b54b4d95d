//! Waiting for a child process that the caller manages itself (a plugin process), so that
//! its group can be signalled safely right up to the moment it is reaped.

use std::io;

use nix::{
    sys::wait::{waitid, Id, WaitPidFlag},
    unistd::Pid,
};

use crate::error::Termination;

/// How a reaped process ended, and the most memory it used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Reaped {
    pub termination: Termination,
    /// Peak resident memory, in KiB.
    pub peak_rss_kib: u64,
}

/// Blocks until child `pid` has ended, without reaping it: its id (and its group's) stays
/// ours until [`reap`] is called.
pub(crate) fn wait_for_end(pid: Pid) -> io::Result<()> {
    loop {
        match waitid(Id::Pid(pid), WaitPidFlag::WEXITED | WaitPidFlag::WNOWAIT) {
            Ok(_) => return Ok(()),
            Err(nix::errno::Errno::EINTR) => continue,
            Err(e) => return Err(e.into()),
        }
    }
}

/// Reaps child `pid`, which has ended, and reads how it ended and its peak memory.
pub(crate) fn reap(pid: Pid) -> io::Result<Reaped> {
    let (status, usage) = crate::sys::process::wait4(pid)?;
    let termination = if libc::WIFSIGNALED(status) {
        Termination::Signal(libc::WTERMSIG(status))
    } else {
        Termination::Exit(libc::WEXITSTATUS(status))
    };
    Ok(Reaped {
        termination,
        peak_rss_kib: u64::try_from(usage.ru_maxrss).unwrap_or_default(),
    })
}
