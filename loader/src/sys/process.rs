//! Starting and reaping processes below std: `posix_spawn` over the agent's own `environ`
//! and a pidfd watched by tokio (Linux with glibc, for the supervisor's direct spawns; see
//! `supervisor/direct.rs` for why), `wait4` for a plugin process's peak memory, and
//! `PR_SET_PDEATHSIG` for a long-running hook.
//!
//! The environment is read from `environ` directly, as libc's `getenv` and `posix_spawn` do.
//! `std::env::set_var`'s contract already forbids changing the environment while another
//! thread reads it, by any means, in a multi-threaded program.

use std::{io, process::Command};

#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub(crate) use direct::{environment, pidfd_open, posix_spawn, watch};
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub(crate) use pidfd::{exit_status, not_reaped};

/// Calls `each` with every `NAME=value` entry of the agent's environment, as it is, and its
/// name (Linux with glibc: read in place from `environ`, nothing copied; elsewhere through
/// std). The name ends at the first `=` after the entry's first byte; entries without one
/// are skipped, as std's `vars_os` reads them.
pub(crate) fn for_each_variable(mut each: impl FnMut(&[u8], &[u8])) {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    direct::entries(|_, entry| {
        let name_len = entry
            .get(1..)
            .and_then(|rest| rest.iter().position(|&b| b == b'='))
            .map(|at| at + 1);
        if let Some(name_len) = name_len {
            each(&entry[..name_len], entry);
        }
    });
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        use std::os::unix::ffi::OsStrExt;
        for (name, value) in std::env::vars_os() {
            let mut entry = name.as_bytes().to_vec();
            entry.push(b'=');
            entry.extend_from_slice(value.as_bytes());
            each(name.as_bytes(), &entry);
        }
    }
}

/// Reaps child `pid`, which has ended: its wait status and its resource usage (for the
/// peak resident memory). `pid` must be a child of this process that the caller alone reaps.
pub(crate) fn wait4(pid: nix::unistd::Pid) -> io::Result<(libc::c_int, libc::rusage)> {
    let mut status: libc::c_int = 0;
    // SAFETY: an all-zero `rusage` is a valid value of this plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `status` and `usage` are valid, writable and live for the call; wait4 writes
    // only to them. `pid` is a child of this process that the caller alone reaps.
    let reaped = unsafe { libc::wait4(pid.as_raw(), &mut status, 0, &mut usage) };
    if reaped < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok((status, usage))
}

/// Has `command`'s process killed (SIGKILL) when the thread that starts it ends (Linux;
/// elsewhere nothing).
pub(crate) fn die_with_parent(command: &mut Command) {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: between fork and exec only async-signal-safe calls are allowed; `prctl` is
        // one, and the closure allocates nothing.
        unsafe {
            command.pre_exec(|| {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) == -1 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = command;
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod direct {
    use std::{
        ffi::{CStr, CString, OsStr},
        io,
        os::{
            fd::{AsRawFd, FromRawFd, OwnedFd},
            unix::ffi::OsStrExt,
        },
        ptr,
    };

    use nix::unistd::Pid;
    use tokio::io::{unix::AsyncFd, Interest};

    /// A pidfd of `pid` (Linux 5.3+).
    pub(crate) fn pidfd_open(pid: Pid) -> io::Result<OwnedFd> {
        // SAFETY: `pidfd_open` takes a pid and flags and returns a new descriptor or -1; it
        // reads and writes no memory of ours.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid.as_raw(), 0) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        let fd = i32::try_from(fd).map_err(|_| io::Error::other("pidfd out of range"))?;
        // SAFETY: `fd` was just returned by `pidfd_open`: it is open and owned by nobody else.
        Ok(unsafe { OwnedFd::from_raw_fd(fd) })
    }

    /// `pidfd` registered with tokio's I/O driver, readable once its process ends. Must be
    /// called inside a tokio runtime.
    pub(crate) fn watch(pidfd: OwnedFd) -> io::Result<AsyncFd<OwnedFd>> {
        // SAFETY: `pidfd` is a valid, open descriptor that the `AsyncFd` owns until it is
        // dropped; nothing else closes or replaces it, and an `OwnedFd` always gives the
        // same one.
        unsafe { AsyncFd::register_with_interest(pidfd, Interest::READABLE) }
            .map_err(|e| e.into_parts().1)
    }

    /// The agent's environment without the variables named in `names`, then `set`: pointers to
    /// the strings where they are, none copied.
    pub(crate) fn environment(names: &[&OsStr], set: &[CString]) -> Vec<*const libc::c_char> {
        let mut envp = Vec::with_capacity(64 + set.len());
        entries(|entry, text| {
            let name = text.split(|&b| b == b'=').next().unwrap_or(text);
            if !names.iter().any(|n| n.as_bytes() == name) {
                envp.push(entry);
            }
        });
        envp.extend(set.iter().map(|s| s.as_ptr()));
        envp.push(ptr::null());
        envp
    }

    /// Calls `each` with every entry of `environ`: its pointer, and its bytes (the NUL left
    /// out), valid for the call.
    pub(super) fn entries(mut each: impl FnMut(*const libc::c_char, &[u8])) {
        extern "C" {
            static environ: *const *const libc::c_char;
        }
        // SAFETY: `environ` is libc's null-terminated array of NUL-terminated strings; it is
        // only read here, entry by entry, until its null, each entry's bytes lent for the
        // call of `each` only. No thread changes it meanwhile: see the module docs.
        unsafe {
            let mut entry = environ;
            while !entry.is_null() && !(*entry).is_null() {
                each(*entry, CStr::from_ptr(*entry).to_bytes());
                entry = entry.add(1);
            }
        }
    }

    /// `posix_spawn` in a process group of its own, in `cwd`, with the given descriptors as
    /// stdin (`None`: `/dev/null`), stdout and stderr, the signal mask emptied and SIGPIPE back to
    /// its default (as std does).
    pub(crate) fn posix_spawn(
        program: &CStr,
        argv: &[CString],
        envp: &[*const libc::c_char],
        cwd: &CStr,
        [stdin, stdout, stderr]: [Option<&OwnedFd>; 3],
    ) -> io::Result<Pid> {
        let mut args: Vec<*const libc::c_char> = argv.iter().map(|a| a.as_ptr()).collect();
        args.push(ptr::null());
        let dev_null = c"/dev/null";
        let check = |code: libc::c_int| match code {
            0 => Ok(()),
            code => Err(io::Error::from_raw_os_error(code)),
        };
        // SAFETY: the attribute and file-action objects are initialised before use and destroyed
        // after, on every path; every pointer given to libc (program, arguments, environment,
        // folder, `/dev/null`) points at a NUL-terminated string, and `args`/`envp` end with a
        // null, all alive until `posix_spawn` returns; `pid` is written by it alone.
        unsafe {
            let mut actions: libc::posix_spawn_file_actions_t = std::mem::zeroed();
            check(libc::posix_spawn_file_actions_init(&mut actions))?;
            let mut attributes: libc::posix_spawnattr_t = std::mem::zeroed();
            if let Err(e) = check(libc::posix_spawnattr_init(&mut attributes)) {
                libc::posix_spawn_file_actions_destroy(&mut actions);
                return Err(e);
            }
            let mut pid: libc::pid_t = 0;
            let spawned = (|| {
                match stdin {
                    Some(fd) => check(libc::posix_spawn_file_actions_adddup2(
                        &mut actions,
                        fd.as_raw_fd(),
                        0,
                    ))?,
                    None => check(libc::posix_spawn_file_actions_addopen(
                        &mut actions,
                        0,
                        dev_null.as_ptr(),
                        libc::O_RDONLY,
                        0,
                    ))?,
                }
                for (fd, target) in [(stdout, 1), (stderr, 2)] {
                    if let Some(fd) = fd {
                        check(libc::posix_spawn_file_actions_adddup2(
                            &mut actions,
                            fd.as_raw_fd(),
                            target,
                        ))?;
                    }
                }
                check(libc::posix_spawn_file_actions_addchdir_np(
                    &mut actions,
                    cwd.as_ptr(),
                ))?;
                let mut signals: libc::sigset_t = std::mem::zeroed();
                libc::sigemptyset(&mut signals);
                check(libc::posix_spawnattr_setsigmask(&mut attributes, &signals))?;
                libc::sigaddset(&mut signals, libc::SIGPIPE);
                check(libc::posix_spawnattr_setsigdefault(
                    &mut attributes,
                    &signals,
                ))?;
                check(libc::posix_spawnattr_setpgroup(&mut attributes, 0))?;
                let flags = libc::POSIX_SPAWN_SETPGROUP
                    | libc::POSIX_SPAWN_SETSIGMASK
                    | libc::POSIX_SPAWN_SETSIGDEF;
                check(libc::posix_spawnattr_setflags(
                    &mut attributes,
                    flags as libc::c_short,
                ))?;
                check(libc::posix_spawn(
                    &mut pid,
                    program.as_ptr(),
                    &actions,
                    &attributes,
                    args.as_ptr() as *const *mut libc::c_char,
                    envp.as_ptr() as *const *mut libc::c_char,
                ))
            })();
            libc::posix_spawn_file_actions_destroy(&mut actions);
            libc::posix_spawnattr_destroy(&mut attributes);
            spawned.map(|()| Pid::from_raw(pid))
        }
    }
}

/// What a pidfd says of a process the agent did not start itself (the keeper's child, which
/// the keeper reaps): whether it is still there, and once reaped, how it ended.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod pidfd {
    use std::os::fd::{AsRawFd, BorrowedFd};

    /// `PIDFD_GET_INFO` (Linux 6.13): `_IOWR(0xFF, 11, struct pidfd_info)`, the struct's first
    /// version being 64 bytes.
    const PIDFD_GET_INFO: libc::c_ulong = 0xC040_FF0B;
    /// The info's exit status is asked for (Linux 6.15; given once the process is reaped).
    const PIDFD_INFO_EXIT: u64 = 1 << 3;

    /// `struct pidfd_info` as of its first version.
    #[repr(C)]
    #[derive(Default)]
    struct PidfdInfo {
        mask: u64,
        cgroupid: u64,
        ids: [u32; 11],
        exit_code: i32,
        coredump_mask: u32,
        spare: u32,
    }

    /// Whether `pidfd`'s process has not been reaped yet (running, or a zombie): a null
    /// signal through the pidfd reaches it until then.
    pub(crate) fn not_reaped(pidfd: BorrowedFd<'_>) -> bool {
        // SAFETY: `pidfd_send_signal` with signal 0 and no info reads and writes no memory of
        // ours; `pidfd` is open for the call.
        let sent = unsafe {
            libc::syscall(
                libc::SYS_pidfd_send_signal,
                pidfd.as_raw_fd(),
                0,
                std::ptr::null::<libc::siginfo_t>(),
                0,
            )
        };
        sent == 0
    }

    /// The wait status of `pidfd`'s process once it was reaped (by whoever reaped it), as
    /// `waitpid` gives it; `None` before that, or on a kernel before 6.15.
    pub(crate) fn exit_status(pidfd: BorrowedFd<'_>) -> Option<i32> {
        let mut info = PidfdInfo {
            mask: PIDFD_INFO_EXIT,
            ..PidfdInfo::default()
        };
        // SAFETY: `info` is a writable `struct pidfd_info` of the size the request number
        // says, alive for the call; the kernel writes only within it.
        let asked = unsafe { libc::ioctl(pidfd.as_raw_fd(), PIDFD_GET_INFO as _, &mut info) };
        (asked == 0 && info.mask & PIDFD_INFO_EXIT != 0).then_some(info.exit_code)
    }
}

/// Limits `command`'s process, and what it starts, to `bytes` of data (`RLIMIT_DATA`, soft
/// and hard: its heap and private writable mappings, not address space it only reserves, as
/// V8 and Go do), set between fork and exec; 0: no limit.
pub(crate) fn limit_memory(command: &mut Command, bytes: u64) {
    if bytes == 0 {
        return;
    }
    use std::os::unix::process::CommandExt;
    let limit = libc::rlimit {
        rlim_cur: bytes as libc::rlim_t,
        rlim_max: bytes as libc::rlim_t,
    };
    // SAFETY: between fork and exec only async-signal-safe calls are allowed; `setrlimit` is
    // one, and the closure allocates nothing (`limit` is copied in).
    unsafe {
        command.pre_exec(move || {
            if libc::setrlimit(libc::RLIMIT_DATA, &limit) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}
