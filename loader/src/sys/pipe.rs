//! How many bytes a pipe holds that its reader has not read (`FIONREAD`): whether a
//! long-running hook that ended read the event last written to it (`remote/line_out.rs`).

use std::{
    io,
    os::fd::{AsRawFd, BorrowedFd},
};

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
    use std::os::fd::AsFd;

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
