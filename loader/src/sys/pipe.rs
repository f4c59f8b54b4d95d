//! Pipes: a pipe whose ends are both close-on-exec (for a process the keeper starts, whose
//! child ends are sent to it), and how many bytes a pipe holds that its reader has not read
//! (`FIONREAD`): whether a long-running hook that ended read the event last written to it
//! (`remote/line_out.rs`).

use std::{
    io,
    os::fd::{AsRawFd, BorrowedFd, OwnedFd},
};

/// A new pipe, `(read end, write end)`, both close-on-exec.
///
/// Linux: `pipe2(O_CLOEXEC)`, atomic. Elsewhere (macOS has no `pipe2`): `pipe`, then
/// `FD_CLOEXEC` set on each end; a program another thread starts in between inherits the
/// ends. The callers run only where the keeper starts processes, which is Linux alone.
pub(crate) fn cloexec() -> io::Result<(OwnedFd, OwnedFd)> {
    #[cfg(target_os = "linux")]
    {
        Ok(nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC)?)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let (read, write) = nix::unistd::pipe()?;
        set_cloexec(&read)?;
        set_cloexec(&write)?;
        Ok((read, write))
    }
}

/// Sets `FD_CLOEXEC` on `fd` (its other descriptor flags kept).
#[cfg(not(target_os = "linux"))]
pub(crate) fn set_cloexec(fd: &OwnedFd) -> io::Result<()> {
    use nix::fcntl::{fcntl, FcntlArg, FdFlag};
    let flags = FdFlag::from_bits_retain(fcntl(fd, FcntlArg::F_GETFD)?);
    fcntl(fd, FcntlArg::F_SETFD(flags | FdFlag::FD_CLOEXEC))?;
    Ok(())
}

/// The bytes in the pipe of `fd` (either end) not yet read.
pub(crate) fn unread(fd: BorrowedFd<'_>) -> io::Result<usize> {
    let mut count: libc::c_int = 0;
    // SAFETY: `fd` is an open descriptor for the borrow's lifetime, and FIONREAD writes one
    // `c_int` through the pointer, which points at `count`, alive and writable here.
    let result = unsafe { libc::ioctl(fd.as_raw_fd(), libc::FIONREAD, &mut count) };
    if result < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(usize::try_from(count).unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};
    use std::os::fd::{AsFd, AsRawFd};

    #[test]
    fn both_ends_of_a_new_pipe_are_close_on_exec() {
        let (read, write) = super::cloexec().expect("a pipe");
        for fd in [&read, &write] {
            let flags = nix::fcntl::fcntl(fd, nix::fcntl::FcntlArg::F_GETFD).expect("flags");
            assert_ne!(flags & libc::FD_CLOEXEC, 0, "fd {}", fd.as_raw_fd());
        }
    }

    #[test]
    fn counts_what_was_written_and_not_read_from_the_writing_end() {
        let (mut reader, mut writer) = std::io::pipe().expect("a pipe");
        assert_eq!(super::unread(writer.as_fd()).expect("counted"), 0);
        writer.write_all(b"hello\n").expect("written");
        assert_eq!(super::unread(writer.as_fd()).expect("counted"), 6);
        let mut two = [0u8; 2];
        reader.read_exact(&mut two).expect("read");
        assert_eq!(super::unread(writer.as_fd()).expect("counted"), 4);
        // The reader gone, what it left is still counted.
        drop(reader);
        assert_eq!(super::unread(writer.as_fd()).expect("counted"), 4);
    }
}
