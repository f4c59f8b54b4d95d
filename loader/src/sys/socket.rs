//! Descriptors passed over a Unix socket (`SCM_RIGHTS`): the agent gives its keeper the
//! pipes of a process the keeper starts for it (`supervisor/keeper/`).

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
    let sent = loop {
        match sendmsg::<()>(
            socket.as_raw_fd(),
            &[IoSlice::new(bytes)],
            cmsgs,
            MsgFlags::MSG_NOSIGNAL,
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
    let message = loop {
        match recvmsg::<()>(
            socket.as_raw_fd(),
            &mut iov,
            Some(&mut space),
            MsgFlags::MSG_CMSG_CLOEXEC,
        ) {
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
    Ok((message.bytes, fds))
}
