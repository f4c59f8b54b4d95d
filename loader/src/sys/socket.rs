//! Descriptors passed over a Unix socket (`SCM_RIGHTS`): the agent gives its keeper the
//! pipes of a process the keeper starts for it (`supervisor/keeper/`).
//!
//! A send to a socket whose peer is gone fails with `EPIPE` and raises no SIGPIPE (which
//! would end an agent that does not ignore it): `MSG_NOSIGNAL` on Linux, `SO_NOSIGPIPE` set
//! on the socket before each send elsewhere (macOS has no `MSG_NOSIGNAL`). A descriptor
//! received is close-on-exec: `MSG_CMSG_CLOEXEC` on Linux (atomic), `FD_CLOEXEC` set once
//! it is received elsewhere (a program another thread starts in between inherits it; the
//! keeper, which receives them, runs on Linux alone).

use std::{
    io::{self, IoSlice, IoSliceMut},
    os::{
        fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd},
        unix::net::UnixStream,
    },
};

use nix::sys::socket::{recvmsg, sendmsg, ControlMessage, ControlMessageOwned, MsgFlags};

/// The most descriptors one message carries.
const MAX_FDS: usize = 3;

/// Sends all of `bytes` on `socket`, with `fds` attached to its first byte.
pub(crate) fn send_with_fds(
    socket: &UnixStream,
    bytes: &[u8],
    fds: &[BorrowedFd<'_>],
) -> io::Result<()> {
    let raw: Vec<i32> = fds.iter().map(|fd| fd.as_raw_fd()).collect();
    let rights = [ControlMessage::ScmRights(&raw)];
    let cmsgs: &[ControlMessage] = if raw.is_empty() { &[] } else { &rights };
    #[cfg(target_os = "linux")]
    let flags = MsgFlags::MSG_NOSIGNAL;
    #[cfg(not(target_os = "linux"))]
    let flags = {
        no_sigpipe(socket)?;
        MsgFlags::empty()
    };
    let sent = loop {
        match sendmsg::<()>(
            socket.as_raw_fd(),
            &[IoSlice::new(bytes)],
            cmsgs,
            flags,
            None,
        ) {
            Err(nix::errno::Errno::EINTR) => continue,
            other => break other?,
        }
    };
    if sent < bytes.len() {
        use std::io::Write;
        let mut rest = socket;
        rest.write_all(&bytes[sent..])?;
    }
    Ok(())
}

/// Reads up to `buffer.len()` bytes from `socket`, and the descriptors that came with them
/// (each close-on-exec, owned by the caller). `Ok((0, _))` at the end of the stream.
pub(crate) fn recv_with_fds(
    socket: &UnixStream,
    buffer: &mut [u8],
) -> io::Result<(usize, Vec<OwnedFd>)> {
    let mut space = nix::cmsg_space!([i32; MAX_FDS]);
    let mut iov = [IoSliceMut::new(buffer)];
    #[cfg(target_os = "linux")]
    let flags = MsgFlags::MSG_CMSG_CLOEXEC;
    #[cfg(not(target_os = "linux"))]
    let flags = MsgFlags::empty();
    let message = loop {
        match recvmsg::<()>(socket.as_raw_fd(), &mut iov, Some(&mut space), flags) {
            Err(nix::errno::Errno::EINTR) => continue,
            other => break other?,
        }
    };
    let mut fds = Vec::new();
    for cmsg in message.cmsgs()? {
        if let ControlMessageOwned::ScmRights(received) = cmsg {
            for fd in received {
                // SAFETY: the kernel just installed `fd` in this process for this message;
                // nothing else knows of it, so it is owned here alone.
                fds.push(unsafe { OwnedFd::from_raw_fd(fd) });
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    for fd in &fds {
        super::pipe::set_cloexec(fd)?;
    }
    Ok((message.bytes, fds))
}

/// Sets `SO_NOSIGPIPE` on `socket`: a write to it once its peer is gone fails with `EPIPE`
/// instead of raising SIGPIPE (macOS and the BSDs; Linux has `MSG_NOSIGNAL` per send).
#[cfg(not(target_os = "linux"))]
fn no_sigpipe(socket: &UnixStream) -> io::Result<()> {
    let on: libc::c_int = 1;
    // SAFETY: `socket` is an open descriptor for the borrow's lifetime; the option's value
    // is read from `on`, a live `c_int`, for the length given, and nothing is written.
    let result = unsafe {
        libc::setsockopt(
            socket.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_NOSIGPIPE,
            std::ptr::from_ref(&on).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    if result < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}
