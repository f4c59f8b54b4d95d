//! What the connection's pipes ask of the kernel, in one place: waiting until one has
//! something to read, and making the agent's end of one non-blocking.

use std::{io, os::fd::AsFd};

use nix::{
    fcntl::{fcntl, FcntlArg, OFlag},
    poll::{poll, PollFd, PollFlags, PollTimeout},
};

/// Waits until `pipe` has something to read (or its end), up to `timeout`; whether it has.
pub(super) fn wait_readable(pipe: impl AsFd, timeout: PollTimeout) -> io::Result<bool> {
    loop {
        let mut fds = [PollFd::new(pipe.as_fd(), PollFlags::POLLIN)];
        match poll(&mut fds, timeout) {
            Ok(n) => return Ok(n > 0),
            Err(nix::errno::Errno::EINTR) => continue,
            Err(e) => return Err(e.into()),
        }
    }
}

/// Sets `O_NONBLOCK` on `pipe`'s open file description (only a description the agent alone
/// holds: others sharing it would see their reads or writes change too).
pub(super) fn set_nonblocking(pipe: impl AsFd) -> nix::Result<()> {
    let flags = OFlag::from_bits_retain(fcntl(pipe.as_fd(), FcntlArg::F_GETFL)?);
    fcntl(pipe.as_fd(), FcntlArg::F_SETFL(flags | OFlag::O_NONBLOCK)).map(drop)
}
