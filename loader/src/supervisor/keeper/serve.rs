//! The keeper's own process: a child subreaper that starts the processes the agent asks
//! for, tells the agent when they end, reaps whatever else comes back to it, and ends them
//! all when the agent's end of the requests' socket closes.
//!
//! It is the agent's own program (or the `agent-hooks` command) started again with
//! [`KEEPER_PROCESS`] set; [`serve_if_keeper`] is called by `serve_if_plugin_process`.

use std::{
    collections::{HashMap, HashSet},
    ffi::OsStr,
    io::{self, Write},
    os::{
        fd::{AsFd, OwnedFd},
        unix::{ffi::OsStrExt, net::UnixStream, process::CommandExt},
    },
    process::{Command, Stdio},
    thread,
    time::{Duration, Instant},
};

use nix::{
    poll::{poll, PollFd, PollFlags, PollTimeout},
    sys::signal::{kill, Signal},
    unistd::Pid,
};

use super::wire::{self, Answer, Asked, Request, HELLO};

/// Set in the keeper's environment: the program serves as the keeper.
pub(crate) const KEEPER_PROCESS: &str = "AGENT_HOOKS_KEEPER_PROCESS";

/// If this process was started as a keeper, serves until the agent ends, then exits.
pub(crate) fn serve_if_keeper() {
    if std::env::var_os(KEEPER_PROCESS).is_none() {
        return;
    }
    // Still one thread (the first call of the agent's main): nothing reads the environment.
    std::env::remove_var(KEEPER_PROCESS);
    std::process::exit(serve());
}

/// The keeper's one thread: it reads the agent's requests and its children's ends in turn
/// (`poll` on the requests' socket and a signalfd for SIGCHLD, `sys::child_ends`). One
/// thread, so that a start's answer always goes before its end's, with no lock and no thread
/// to wake for each start, and a spawn's `munmap` of its stack interrupts no other CPU.
/// (The agent starts this keeper on Linux alone; built elsewhere, it would take SIGCHLD
/// through a second thread that only forwards it, as `sys::child_ends` says.)
struct Keeper {
    to_agent: UnixStream,
    /// The processes the agent asked for, until they end.
    asked: HashSet<i32>,
    /// How a program named by its path is started (`spawn_direct`), where it applies.
    #[cfg(target_os = "linux")]
    direct: Option<Direct>,
}

/// What each start with `sys::process::vfork_spawn` reuses: the child's stack, the signals
/// this process does not leave at their default (found once: nothing here changes them), and
/// `/dev/null` for a child without stdin.
#[cfg(target_os = "linux")]
struct Direct {
    stack: crate::sys::process::SpawnStack,
    reset: Vec<libc::c_int>,
    null: std::fs::File,
}

fn serve() -> i32 {
    #[cfg(target_os = "linux")]
    if nix::sys::prctl::set_child_subreaper(true).is_err() {
        return 3;
    }
    let Some((socket, to_agent)) = take_sockets() else {
        return 2;
    };
    // SIGCHLD is read from a descriptor (a signalfd on Linux), so it is blocked (a child's
    // mask is emptied when it starts).
    let Ok(ends) = crate::sys::child_ends::ChildEnds::new() else {
        return 2;
    };
    let mut keeper = Keeper {
        to_agent,
        asked: HashSet::new(),
        #[cfg(target_os = "linux")]
        direct: std::fs::File::open("/dev/null").ok().map(|null| Direct {
            stack: crate::sys::process::SpawnStack::default(),
            reset: crate::sys::process::handled_signals(),
            null,
        }),
    };
    if (&keeper.to_agent).write_all(&HELLO).is_err() {
        return 2;
    }
    // Until the agent's end closes (or says nothing the keeper understands).
    loop {
        let mut ready = [
            PollFd::new(socket.as_fd(), PollFlags::POLLIN),
            PollFd::new(ends.as_fd(), PollFlags::POLLIN),
        ];
        match poll(&mut ready, PollTimeout::NONE) {
            Ok(_) => {}
            Err(nix::errno::Errno::EINTR) => continue,
            Err(_) => break,
        }
        let [request, ended] = ready.map(|fd| fd.any().unwrap_or(true));
        if ended {
            ends.clear();
            keeper.reap();
        }
        if request {
            let Ok((body, fds)) = wire::read_frame(&socket) else {
                break;
            };
            let Ok(request) = Request::decode(&body) else {
                break;
            };
            if keeper.start(&request, fds).is_err() {
                break;
            }
        }
    }
    end_all();
    0
}

/// The sockets to the agent, on close-on-exec descriptors of their own: its requests (from
/// stdin) and the answers (on stdout); both become `/dev/null`.
fn take_sockets() -> Option<(UnixStream, UnixStream)> {
    // Duplicates made with F_DUPFD_CLOEXEC.
    let requests = io::stdin().as_fd().try_clone_to_owned().ok()?;
    let answers = io::stdout().as_fd().try_clone_to_owned().ok()?;
    let null = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/null")
        .ok()?;
    nix::unistd::dup2_stdin(null.as_fd()).ok()?;
    nix::unistd::dup2_stdout(null.as_fd()).ok()?;
    Some((UnixStream::from(requests), UnixStream::from(answers)))
}

impl Keeper {
    /// Starts `request`'s process in a process group of its own, and answers: its id, or why
    /// not. Its end is reaped after this returns, so the agent hears of a start before its
    /// end, in the order of its requests.
    ///
    /// A start's answer carries a pidfd of the process (where the kernel has them), opened
    /// before it can be reaped, so that it is the process's own: through it the agent learns
    /// how the process ended once this keeper reaped it, without waiting for its word
    /// (`kept.rs`).
    fn start(&mut self, request: &Asked<'_>, fds: Vec<OwnedFd>) -> io::Result<()> {
        #[cfg(target_os = "linux")]
        let spawned = spawn(self.direct.as_mut(), request, fds);
        #[cfg(not(target_os = "linux"))]
        let spawned = spawn(request, fds);
        let (answer, pidfd) = match spawned {
            Ok(pid) => {
                self.asked.insert(pid);
                (Answer::Started(pid), pidfd_of(pid))
            }
            Err(e) => (Answer::Failed(e.raw_os_error().unwrap_or(libc::EIO)), None),
        };
        match &pidfd {
            Some(pidfd) => crate::sys::socket::send_with_fds(
                &self.to_agent,
                &answer.encode(),
                &[pidfd.as_fd()],
            ),
            None => (&self.to_agent).write_all(&answer.encode()),
        }
    }

    /// Reaps every child that ended, and tells the agent how those it asked for did.
    fn reap(&mut self) {
        // Until none has ended, or none is left (an error).
        while let Ok(Some((pid, status, usage))) = crate::sys::process::reap_any() {
            if self.asked.remove(&pid.as_raw()) {
                let ended = Answer::Ended {
                    pid: pid.as_raw(),
                    status,
                    peak_kib: crate::sys::process::peak_kib(&usage),
                };
                // An agent gone is seen on the requests' socket.
                let _ = (&self.to_agent).write_all(&ended.encode());
            }
        }
    }
}

/// A pidfd of child `pid`, not yet reaped; `None` where the kernel has none (before 5.3).
fn pidfd_of(pid: i32) -> Option<OwnedFd> {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    return crate::sys::process::pidfd_open(Pid::from_raw(pid)).ok();
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        let _ = pid;
        None
    }
}

/// Starts `request`'s process with `fds` (stdin if it says so, stdout, stderr): its id.
fn spawn(
    #[cfg(target_os = "linux")] direct: Option<&mut Direct>,
    request: &Asked<'_>,
    fds: Vec<OwnedFd>,
) -> io::Result<i32> {
    let mut fds = fds.into_iter();
    let stdin = if request.stdin {
        Some(
            fds.next()
                .ok_or_else(|| io::Error::from_raw_os_error(libc::EBADF))?,
        )
    } else {
        None
    };
    let (Some(stdout), Some(stderr)) = (fds.next(), fds.next()) else {
        return Err(io::Error::from_raw_os_error(libc::EBADF));
    };
    #[cfg(target_os = "linux")]
    if let Some(direct) = direct {
        if request.memory == 0 && request.program.contains(&b'/') {
            let Direct { stack, reset, null } = direct;
            let stdin = stdin.as_ref().map_or(null.as_fd(), AsFd::as_fd);
            let fds = [stdin, stdout.as_fd(), stderr.as_fd()];
            return spawn_direct(stack, reset, request, fds);
        }
    }
    let os = OsStr::from_bytes;
    let mut command = Command::new(os(request.program));
    command
        .arg0(os(request.arg0))
        .args(request.args.iter().map(|arg| os(arg)))
        .current_dir(os(request.cwd))
        .env_clear()
        .envs(request.env.iter().filter_map(|&bytes| {
            let at = bytes.iter().position(|&b| b == b'=')?;
            Some((
                OsStr::from_bytes(&bytes[..at]),
                OsStr::from_bytes(&bytes[at + 1..]),
            ))
        }))
        .stdin(stdin.map_or_else(Stdio::null, Stdio::from))
        .stdout(Stdio::from(stdout))
        .stderr(Stdio::from(stderr))
        .process_group(0);
    crate::sys::process::limit_memory(&mut command, request.memory);
    let child = command.spawn()?;
    Ok(i32::try_from(child.id()).unwrap_or(i32::MAX))
}

/// A program named by its path with no memory limit (a command hook, an `exec` program, a
/// plugin process) started straight from the request: its strings are copied once, each
/// ended by a NUL, into one buffer that `argv` and `envp` point into (its environment as it
/// came, not rebuilt into a map and back as std's `Command` does), and it is started with
/// `CLONE_VM | CLONE_VFORK` resetting only the signals this keeper does not leave at their
/// default (`sys::process::vfork_spawn`).
#[cfg(target_os = "linux")]
fn spawn_direct(
    stack: &mut crate::sys::process::SpawnStack,
    reset: &[libc::c_int],
    request: &Asked<'_>,
    fds: [std::os::fd::BorrowedFd<'_>; 3],
) -> io::Result<i32> {
    use std::ffi::CStr;
    let strings = || {
        [request.program, request.cwd, request.arg0]
            .into_iter()
            .chain(request.args.iter().copied())
            .chain(request.env.iter().copied())
    };
    let mut text = Vec::with_capacity(strings().map(|s| s.len() + 1).sum());
    let mut starts = Vec::with_capacity(request.args.len() + request.env.len() + 3);
    for string in strings() {
        if string.contains(&0) {
            return Err(io::Error::from_raw_os_error(libc::EINVAL));
        }
        starts.push(text.len());
        text.extend_from_slice(string);
        text.push(0);
    }
    let c = |start: usize| {
        CStr::from_bytes_until_nul(&text[start..])
            .map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))
    };
    let pointers = |from: &[usize]| {
        let mut pointers: Vec<*const libc::c_char> =
            from.iter().map(|&at| text[at..].as_ptr().cast()).collect();
        pointers.push(std::ptr::null());
        pointers
    };
    let (fixed, env) = starts.split_at(3 + request.args.len());
    crate::sys::process::vfork_spawn(
        c(fixed[0])?,
        &pointers(&fixed[2..]),
        &pointers(env),
        c(fixed[1])?,
        fds,
        reset,
        stack,
    )
    .map(|pid| pid.as_raw())
}

/// The agent ended: freezes every descendant (SIGSTOP), pass after pass until a pass finds
/// none not yet frozen (so that one that forks meanwhile is caught), then kills them all.
/// Repeated until none is left, within a few seconds.
fn end_all() {
    let me = std::process::id() as i32;
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        let mut frozen: HashSet<i32> = HashSet::new();
        loop {
            let fresh: Vec<i32> = descendants(me)
                .into_iter()
                .filter(|pid| !frozen.contains(pid))
                .collect();
            if fresh.is_empty() || Instant::now() >= deadline {
                break;
            }
            for pid in fresh {
                let _ = kill(Pid::from_raw(pid), Signal::SIGSTOP);
                frozen.insert(pid);
            }
        }
        if frozen.is_empty() {
            return;
        }
        for &pid in &frozen {
            let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
        }
        thread::sleep(Duration::from_millis(5));
    }
}

/// Every live (not zombie) descendant of `root`, from `/proc`.
fn descendants(root: i32) -> Vec<i32> {
    let mut children: HashMap<i32, Vec<i32>> = HashMap::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // After the command's closing parenthesis: state, then parent.
        let Some(rest) = stat.rsplit_once(')').map(|(_, rest)| rest) else {
            continue;
        };
        let mut fields = rest.split_whitespace();
        let (Some(state), Some(parent)) = (fields.next(), fields.next()) else {
            continue;
        };
        if state == "Z" || state == "X" {
            continue;
        }
        if let Ok(parent) = parent.parse::<i32>() {
            children.entry(parent).or_default().push(pid);
        }
    }
    let mut found = Vec::new();
    let mut next = vec![root];
    while let Some(pid) = next.pop() {
        for &child in children.get(&pid).map(Vec::as_slice).unwrap_or_default() {
            found.push(child);
            next.push(child);
        }
    }
    found
}
