//! Starting and reaping processes below std: `posix_spawn` over the agent's own `environ`
//! and a pidfd watched by tokio (Linux with glibc, for the supervisor's direct spawns; see
//! `supervisor/direct.rs` for why), `wait4` for a plugin process's peak memory, `waitid`
//! for its end without reaping it, and `PR_SET_PDEATHSIG` for a long-running hook.
//!
//! The environment is read from `environ` directly, as libc's `getenv` and `posix_spawn` do.
//! `std::env::set_var`'s contract already forbids changing the environment while another
//! thread reads it, by any means, in a multi-threaded program.

use std::{io, process::Command};

#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub(crate) use direct::{environment, pidfd_open, posix_spawn, watch};
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub(crate) use pidfd::{exit_status, Exit};
#[cfg(target_os = "linux")]
pub(crate) use vfork::{handled_signals, vfork_spawn, SpawnStack};

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
    reap(pid.as_raw(), 0).map(|(_, status, usage)| (status, usage))
}

/// A reaped process's peak resident memory from its `rusage`, in KiB: `ru_maxrss` is in KiB
/// on Linux and the BSDs, in bytes on macOS.
pub(crate) fn peak_kib(usage: &libc::rusage) -> libc::c_long {
    if cfg!(target_vendor = "apple") {
        usage.ru_maxrss / 1024
    } else {
        usage.ru_maxrss
    }
}

/// Reaps any child of this process that has ended, without waiting: its id, wait status and
/// resource usage; `None` if none has ended (`ECHILD`, an error, when there is no child).
/// For a process that alone reaps its children (the keeper).
pub(crate) fn reap_any() -> io::Result<Option<(nix::unistd::Pid, libc::c_int, libc::rusage)>> {
    let (pid, status, usage) = reap(-1, libc::WNOHANG)?;
    Ok((pid > 0).then(|| (nix::unistd::Pid::from_raw(pid), status, usage)))
}

/// `wait4(pid, .., flags, ..)`, retried when interrupted.
fn reap(
    pid: libc::pid_t,
    flags: libc::c_int,
) -> io::Result<(libc::pid_t, libc::c_int, libc::rusage)> {
    let mut status: libc::c_int = 0;
    // SAFETY: an all-zero `rusage` is a valid value of this plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: `status` and `usage` are valid, writable and live for the call; wait4
        // writes only to them. The callers reap only children that no one else reaps.
        let reaped = unsafe { libc::wait4(pid, &mut status, flags, &mut usage) };
        if reaped >= 0 {
            return Ok((reaped, status, usage));
        }
        let error = io::Error::last_os_error();
        if error.kind() != io::ErrorKind::Interrupted {
            return Err(error);
        }
    }
}

/// Whether child `pid` has ended (exited, or killed by a signal), not reaped: its id, and its
/// group's, stay this process's until it is reaped. An error reads as not ended.
///
/// Linux: `waitid(P_PID, pid, WEXITED | WNOWAIT | WNOHANG)`. Elsewhere see [`exited`].
pub(crate) fn has_ended(pid: nix::unistd::Pid) -> bool {
    #[cfg(target_os = "linux")]
    {
        use nix::sys::wait::{waitid, Id, WaitPidFlag, WaitStatus};
        matches!(
            waitid(
                Id::Pid(pid),
                WaitPidFlag::WEXITED | WaitPidFlag::WNOWAIT | WaitPidFlag::WNOHANG
            ),
            Ok(status) if status != WaitStatus::StillAlive
        )
    }
    #[cfg(not(target_os = "linux"))]
    {
        exited(pid, libc::WNOHANG).unwrap_or(false)
    }
}

/// Blocks until child `pid` has ended, without reaping it (see [`has_ended`]).
///
/// Linux: `waitid(P_PID, pid, WEXITED | WNOWAIT)`, retried when interrupted. Elsewhere
/// [`exited`], blocking; a report that is not an end (see there) is looked at again every
/// 10 ms until the end comes.
pub(crate) fn wait_ended(pid: nix::unistd::Pid) -> io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        use nix::sys::wait::{waitid, Id, WaitPidFlag};
        loop {
            match waitid(Id::Pid(pid), WaitPidFlag::WEXITED | WaitPidFlag::WNOWAIT) {
                Ok(_) => return Ok(()),
                Err(nix::errno::Errno::EINTR) => continue,
                Err(e) => return Err(e.into()),
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        while !exited(pid, 0)? {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        Ok(())
    }
}

/// `waitid(P_PID, pid, WEXITED | WNOWAIT | flags)` through libc (nix offers `waitid` on Linux,
/// Android and FreeBSD only), retried when interrupted: whether it reported `pid`'s end.
/// macOS may report a child that stopped or continued although only `WEXITED` was asked
/// for, so only a report whose `si_code` is an end counts (`CLD_EXITED`, `CLD_KILLED`,
/// `CLD_DUMPED`).
#[cfg(not(target_os = "linux"))]
fn exited(pid: nix::unistd::Pid, flags: libc::c_int) -> io::Result<bool> {
    // `<sys/signal.h>`'s codes of a child's end, which libc does not define for macOS (the
    // same values on macOS, the BSDs and Linux).
    const CLD_EXITED: libc::c_int = 1;
    const CLD_KILLED: libc::c_int = 2;
    const CLD_DUMPED: libc::c_int = 3;
    let id = libc::id_t::try_from(pid.as_raw())
        .map_err(|_| io::Error::from_raw_os_error(libc::ECHILD))?;
    loop {
        // SAFETY: an all-zero `siginfo_t` is a valid value of this plain C struct.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: `info` is valid, writable and lives for the call; waitid writes only to
        // it. `WNOWAIT` leaves the child unreaped, so no other waiter loses its status.
        let result = unsafe {
            libc::waitid(
                libc::P_PID,
                id,
                &mut info,
                libc::WEXITED | libc::WNOWAIT | flags,
            )
        };
        if result == 0 {
            return Ok(
                info.si_pid != 0 && matches!(info.si_code, CLD_EXITED | CLD_KILLED | CLD_DUMPED)
            );
        }
        let error = io::Error::last_os_error();
        if error.kind() != io::ErrorKind::Interrupted {
            return Err(error);
        }
    }
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
    pub(crate) fn environment(
        names: &[&OsStr],
        set: &[CString],
        inherit: bool,
    ) -> Vec<*const libc::c_char> {
        let mut envp = Vec::with_capacity(64 + set.len());
        if inherit {
            entries(|entry, text| {
                let name = text.split(|&b| b == b'=').next().unwrap_or(text);
                if !names.iter().any(|n| n.as_bytes() == name) {
                    envp.push(entry);
                }
            });
        }
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
/// the keeper reaps): once reaped, how it ended.
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

    /// What the kernel says of a pidfd's process's end.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub(crate) enum Exit {
        /// It was reaped: its wait status, as `waitpid` gives it.
        Reaped(i32),
        /// It has not been reaped yet (it may have exited), or is being reaped.
        NotYet,
        /// This kernel does not tell (before Linux 6.15).
        Untold,
    }

    /// How `pidfd`'s process ended, once reaped (by whoever reaped it). A kernel that cannot
    /// tell is asked once: `Untold` from then on, without a system call.
    pub(crate) fn exit_status(pidfd: BorrowedFd<'_>) -> Exit {
        use std::sync::atomic::{AtomicBool, Ordering};
        static UNTOLD: AtomicBool = AtomicBool::new(false);
        if UNTOLD.load(Ordering::Relaxed) {
            return Exit::Untold;
        }
        let mut info = PidfdInfo {
            mask: PIDFD_INFO_EXIT,
            ..PidfdInfo::default()
        };
        // SAFETY: `info` is a writable `struct pidfd_info` of the size the request number
        // says, alive for the call; the kernel writes only within it.
        let asked = unsafe { libc::ioctl(pidfd.as_raw_fd(), PIDFD_GET_INFO as _, &mut info) };
        if asked == 0 {
            return match info.mask & PIDFD_INFO_EXIT {
                0 => Exit::NotYet,
                _ => Exit::Reaped(info.exit_code),
            };
        }
        match std::io::Error::last_os_error().raw_os_error() {
            // Before 6.13 there is no such request.
            Some(libc::ENOTTY | libc::EINVAL) => {
                UNTOLD.store(true, Ordering::Relaxed);
                Exit::Untold
            }
            // Being reaped this moment (or, on 6.13 and 6.14, reaped, which then tell no
            // more): the reaping wakes the pidfd's watchers.
            _ => Exit::NotYet,
        }
    }
}

/// Starting a program from the keeper (`supervisor/keeper/serve.rs`) as `posix_spawn` does
/// (`CLONE_VM | CLONE_VFORK`: the child runs on its own stack in the keeper's memory until
/// it calls `execve`), without what `posix_spawn` does for any caller: glibc's child looks at
/// and resets the disposition of every signal (about 128 `rt_sigaction` calls, 40 to 60 µs
/// here, before each hook's `execve`), and each file action asks `getrlimit`. The keeper's
/// signal dispositions are its own and fixed: those that are not the default are found once
/// ([`handled_signals`]) and only they are reset in the child.
#[cfg(target_os = "linux")]
mod vfork {
    use std::{
        ffi::CStr,
        io,
        os::fd::{AsRawFd, BorrowedFd},
        ptr,
    };

    use nix::unistd::Pid;

    /// The child's stack: kept by the caller from one start to the next.
    pub(crate) struct SpawnStack(Vec<u8>);

    impl Default for SpawnStack {
        fn default() -> Self {
            // As much as glibc gives its own (32 KiB and a page), and room for the probes of
            // the child's frames.
            Self(Vec::with_capacity(64 << 10))
        }
    }

    /// The signals whose disposition is not the default in this process (a handler, or
    /// ignored), which a child must reset before `execve` (a handler of this process must not
    /// run in it, and an ignored signal would stay ignored past `execve`). Valid while no
    /// thread changes a disposition.
    pub(crate) fn handled_signals() -> Vec<libc::c_int> {
        let mut handled = Vec::new();
        for signal in 1..=libc::SIGRTMAX() {
            if signal == libc::SIGKILL || signal == libc::SIGSTOP {
                continue;
            }
            // SAFETY: an all-zero `sigaction` is a valid value of this plain C struct;
            // `sigaction` with a null new action only writes the current one into `old`.
            let asked = unsafe {
                let mut old: libc::sigaction = std::mem::zeroed();
                (libc::sigaction(signal, ptr::null(), &mut old) == 0).then_some(old.sa_sigaction)
            };
            if asked.is_some_and(|action| action != libc::SIG_DFL) {
                handled.push(signal);
            }
        }
        handled
    }

    /// What the child needs, all of it read-only but `error`.
    struct Child<'a> {
        program: *const libc::c_char,
        argv: *const *const libc::c_char,
        envp: *const *const libc::c_char,
        cwd: *const libc::c_char,
        fds: [libc::c_int; 3],
        reset: &'a [libc::c_int],
        /// The `errno` of the step that failed; 0 while none did.
        error: libc::c_int,
    }

    /// Starts `program` with `argv` and `envp` (each ending with a null pointer) in `cwd`, in a
    /// process group of its own, with `fds` as its stdin, stdout and stderr (each above 2), the
    /// signals of `reset` back to their default ([`handled_signals`]) and no signal blocked.
    /// Returns once the child called `execve`: its id, or why it could not be started (it is
    /// then reaped).
    pub(crate) fn vfork_spawn(
        program: &CStr,
        argv: &[*const libc::c_char],
        envp: &[*const libc::c_char],
        cwd: &CStr,
        fds: [BorrowedFd<'_>; 3],
        reset: &[libc::c_int],
        stack: &mut SpawnStack,
    ) -> io::Result<Pid> {
        let fds = fds.map(|fd| fd.as_raw_fd());
        if argv.last() != Some(&ptr::null()) || envp.last() != Some(&ptr::null()) {
            return Err(io::Error::from_raw_os_error(libc::EINVAL));
        }
        if fds.iter().any(|&fd| fd <= 2) {
            return Err(io::Error::from_raw_os_error(libc::EBADF));
        }
        let mut child = Child {
            program: program.as_ptr(),
            argv: argv.as_ptr(),
            envp: envp.as_ptr(),
            cwd: cwd.as_ptr(),
            fds,
            reset,
            error: 0,
        };
        let capacity = stack.0.capacity();
        // SAFETY: `top` is within the stack's allocation (one past its end, aligned down to
        // 16 bytes as the ABI wants); the allocation lives until this function returns, after
        // the child called `execve` or `_exit` (`CLONE_VFORK` suspends this thread until then).
        // All signals are blocked around `clone`, so no handler of this process runs on the
        // child's stack before it reset them. `child` is only read by the child, but `error`,
        // which this thread reads after it resumed. The child calls only async-signal-safe
        // functions and allocates nothing.
        unsafe {
            let top = (stack.0.as_mut_ptr().add(capacity) as usize & !15) as *mut libc::c_void;
            let mut all: libc::sigset_t = std::mem::zeroed();
            let mut before: libc::sigset_t = std::mem::zeroed();
            libc::sigfillset(&mut all);
            libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut before);
            let pid = libc::clone(
                start,
                top,
                libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
                (&mut child as *mut Child<'_>).cast(),
            );
            let cloned = io::Error::last_os_error();
            libc::pthread_sigmask(libc::SIG_SETMASK, &before, ptr::null_mut());
            if pid < 0 {
                return Err(cloned);
            }
            let error = ptr::read_volatile(&child.error);
            if error != 0 {
                let mut status = 0;
                libc::waitpid(pid, &mut status, 0);
                return Err(io::Error::from_raw_os_error(error));
            }
            Ok(Pid::from_raw(pid))
        }
    }

    /// The child, until `execve`: its descriptors, folder, group, signals, program.
    extern "C" fn start(argument: *mut libc::c_void) -> libc::c_int {
        // SAFETY: `argument` is the `Child` that `vfork_spawn` passed, alive and not touched
        // by the suspended parent until this child called `execve` or `_exit`. Each call below
        // is a system call wrapper, async-signal-safe.
        unsafe {
            let child = &mut *argument.cast::<Child<'_>>();
            let fail = |child: &mut Child<'_>| -> ! {
                ptr::write_volatile(&mut child.error, *libc::__errno_location());
                libc::_exit(127)
            };
            let mut default: libc::sigaction = std::mem::zeroed();
            default.sa_sigaction = libc::SIG_DFL;
            for &signal in child.reset {
                libc::sigaction(signal, &default, ptr::null_mut());
            }
            for (target, &fd) in child.fds.iter().enumerate() {
                if libc::dup2(fd, target as libc::c_int) < 0 {
                    fail(child);
                }
            }
            if libc::chdir(child.cwd) < 0 || libc::setpgid(0, 0) < 0 {
                fail(child);
            }
            let mut none: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut none);
            libc::pthread_sigmask(libc::SIG_SETMASK, &none, ptr::null_mut());
            libc::execve(child.program, child.argv, child.envp);
            fail(child)
        }
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

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use std::{
        ffi::CString,
        io::Read,
        os::fd::{AsFd, OwnedFd},
        ptr,
    };

    use super::{handled_signals, vfork_spawn, SpawnStack};

    fn pointers(strings: &[CString]) -> Vec<*const libc::c_char> {
        let mut pointers: Vec<_> = strings.iter().map(|s| s.as_ptr()).collect();
        pointers.push(ptr::null());
        pointers
    }

    /// Runs `sh -c script` in `/tmp` with `A=1` as its whole environment and stdin from
    /// `/dev/null`: its output, and how it ended.
    fn run(script: &str, stack: &mut SpawnStack) -> (String, i32) {
        let argv = [
            c"sh",
            &CString::new("-c").unwrap(),
            &CString::new(script).unwrap(),
        ]
        .map(|s| s.to_owned());
        let env = [CString::new("A=1").unwrap()];
        let (read, write) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC).unwrap();
        let mut read = std::fs::File::from(read);
        let null = OwnedFd::from(std::fs::File::open("/dev/null").unwrap());
        let err = write.try_clone().unwrap();
        let pid = vfork_spawn(
            c"/bin/sh",
            &pointers(&argv),
            &pointers(&env),
            c"/tmp",
            [null.as_fd(), write.as_fd(), err.as_fd()],
            &handled_signals(),
            stack,
        )
        .unwrap();
        drop((write, err));
        let mut out = String::new();
        read.read_to_string(&mut out).unwrap();
        let status = nix::sys::wait::waitpid(pid, None).unwrap();
        let code = match status {
            nix::sys::wait::WaitStatus::Exited(_, code) => code,
            other => panic!("{other:?}"),
        };
        (out, code)
    }

    #[test]
    fn a_program_starts_with_its_descriptors_folder_environment_group_and_no_signal_held() {
        let mut stack = SpawnStack::default();
        let script = "echo $A $(pwd); ps -o pgid= -p $$ | tr -d ' '; echo $$; \
            grep -E '^Sig(Blk|Ign)' /proc/self/status; exit 3";
        let (out, code) = run(script, &mut stack);
        assert_eq!(code, 3);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "1 /tmp");
        assert_eq!(lines[1], lines[2], "the process leads a group of its own");
        assert_eq!(lines[3], "SigBlk:\t0000000000000000");
        // SIGPIPE, ignored by the Rust runtime here, is back to its default (only glibc's
        // own two signals, 32 and 33, may show as ignored, as after `posix_spawn`).
        let ignored = u64::from_str_radix(lines[4].trim_start_matches("SigIgn:\t"), 16).unwrap();
        assert_eq!(ignored & !0x1_8000_0000, 0, "{}", lines[4]);
        // The same stack serves the next start.
        assert_eq!(run("exit 0", &mut stack).1, 0);
    }

    #[test]
    fn a_program_or_folder_that_is_not_there_is_the_error_the_system_gave() {
        let start = |program: &std::ffi::CStr, cwd: &std::ffi::CStr| {
            let null = std::fs::File::open("/dev/null").unwrap();
            let argv = [CString::new("nothing").unwrap()];
            let started = vfork_spawn(
                program,
                &pointers(&argv),
                &pointers(&[]),
                cwd,
                [null.as_fd(), null.as_fd(), null.as_fd()],
                &handled_signals(),
                &mut SpawnStack::default(),
            );
            started.map(|_| ()).unwrap_err().raw_os_error()
        };
        assert_eq!(start(c"/nonexistent/program", c"/"), Some(libc::ENOENT));
        assert_eq!(
            start(c"/bin/true", c"/nonexistent/folder"),
            Some(libc::ENOENT)
        );
    }
}
