//! The private copy a library is loaded from. The dynamic loader maps a library's pages from
//! its file, so overwriting the file in place (`cp new.so old.so`) or truncating it while it
//! is loaded crashes the process (SIGBUS) at the next call into it, and a file swapped after
//! its checks would run unchecked code. Loading from a copy of the bytes that were checked
//! closes both: on Linux a `memfd` sealed against every change, opened as
//! `/proc/self/fd/N`; elsewhere a private temporary file.

use std::{io::Write, path::PathBuf};

/// A sealed copy of a library's bytes, loadable by path while it lives.
pub(crate) struct SealedCopy {
    #[cfg(target_os = "linux")]
    _fd: std::os::fd::OwnedFd,
    #[cfg(not(target_os = "linux"))]
    _file: tempfile::TempPath,
    path: PathBuf,
}

impl SealedCopy {
    /// Copies `bytes` into a new sealed memory file.
    #[cfg(target_os = "linux")]
    pub(crate) fn new(bytes: &[u8]) -> std::io::Result<Self> {
        use nix::{
            fcntl::{fcntl, FcntlArg, SealFlag},
            sys::memfd::{memfd_create, MFdFlags},
        };
        use std::os::fd::AsRawFd;

        // MFD_EXEC (Linux 6.3+): the copy must be mappable as code also where
        // `vm.memfd_noexec` = 1 makes memfds non-executable by default. Older kernels do not
        // know the flag (EINVAL): they make every memfd executable, so it is left out there.
        const MFD_EXEC: MFdFlags = MFdFlags::from_bits_retain(0x0010);
        let flags = MFdFlags::MFD_CLOEXEC | MFdFlags::MFD_ALLOW_SEALING;
        let name = c"agent-hooks-plugin";
        let fd = match memfd_create(name, flags | MFD_EXEC) {
            Err(nix::errno::Errno::EINVAL) => memfd_create(name, flags)?,
            Err(nix::errno::Errno::EACCES) => {
                return Err(std::io::Error::other(
                    "this system forbids executable memory files (vm.memfd_noexec = 2), which the loader needs to load a plugin from a private copy",
                ))
            }
            other => other?,
        };
        let mut file = std::fs::File::from(fd);
        file.write_all(bytes)?;
        fcntl(
            &file,
            FcntlArg::F_ADD_SEALS(
                SealFlag::F_SEAL_SHRINK
                    | SealFlag::F_SEAL_GROW
                    | SealFlag::F_SEAL_WRITE
                    | SealFlag::F_SEAL_SEAL,
            ),
        )?;
        let path = PathBuf::from(format!("/proc/self/fd/{}", file.as_raw_fd()));
        Ok(Self {
            _fd: file.into(),
            path,
        })
    }

    /// Copies `bytes` into a private temporary file, read-only.
    #[cfg(not(target_os = "linux"))]
    pub(crate) fn new(bytes: &[u8]) -> std::io::Result<Self> {
        let mut file = tempfile::Builder::new()
            .prefix("agent-hooks-plugin")
            .suffix(&format!(".{}", std::env::consts::DLL_EXTENSION))
            .tempfile()?;
        file.write_all(bytes)?;
        file.as_file().sync_all()?;
        let path = file.into_temp_path();
        let mut permissions = std::fs::metadata(&path)?.permissions();
        permissions.set_readonly(true);
        std::fs::set_permissions(&path, permissions)?;
        Ok(Self {
            path: path.to_path_buf(),
            _file: path,
        })
    }

    /// Keeps the copy (and, on Linux, its descriptor) for the life of the process.
    pub(crate) fn keep(self) {
        std::mem::forget(self);
    }

    /// The path under which this process's children can open the copy
    /// (`/proc/<this process>/fd/<n>`): a plugin process loads the agent's copy, so that it
    /// runs the bytes the agent checked. Elsewhere, the copy's own path.
    pub(crate) fn path_for_children(&self) -> PathBuf {
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            PathBuf::from(format!(
                "/proc/{}/fd/{}",
                std::process::id(),
                self._fd.as_raw_fd()
            ))
        }
        #[cfg(not(target_os = "linux"))]
        {
            self.path.clone()
        }
    }

    /// The path to give the dynamic loader; never shown to a user.
    pub(crate) fn path(&self) -> &std::path::Path {
        &self.path
    }
}
