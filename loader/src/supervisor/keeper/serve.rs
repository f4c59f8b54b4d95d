//! The keeper's own process: a child subreaper that starts the processes the agent asks
//! for, tells the agent when they end, reaps whatever else comes back to it, and ends them
//! all when the agent's end of the socket closes.
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
    sync::{Arc, Condvar, Mutex},
    thread,
    time::{Duration, Instant},
};

use nix::{
    sys::{
        signal::{kill, Signal},
        wait::{waitid, Id, WaitPidFlag},
    },
    unistd::Pid,
};

use super::wire::{self, Answer, Request, HELLO};
use crate::sync::LockUnpoisoned;

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

/// What the spawning side and the reaping side share.
struct State {
    /// Held while a process is started and recorded, so that it is not reaped before.
    spawning: Mutex<HashSet<i32>>,
    /// Woken when there is a child to wait for.
    children: Condvar,
    to_agent: Mutex<UnixStream>,
}

fn serve() -> i32 {
    #[cfg(target_os = "linux")]
    if nix::sys::prctl::set_child_subreaper(true).is_err() {
        return 3;
    }
    let Some((socket, to_agent)) = take_sockets() else {
        return 2;
    };
    let state = Arc::new(State {
        spawning: Mutex::new(HashSet::new()),
        children: Condvar::new(),
        to_agent: Mutex::new(to_agent),
    });
    if state
        .to_agent
        .lock_unpoisoned()
        .write_all(&[HELLO])
        .is_err()
    {
        return 2;
    }
    let reaper = Arc::clone(&state);
    let _ = thread::Builder::new()
        .name("agent-hooks-keeper-reap".into())
        .spawn(move || reap(&reaper));
    // Until the agent's end closes (or says nothing the keeper understands).
    while let Ok((request, fds)) = receive(&socket) {
        let sent = start(&state, &request, fds);
        state.children.notify_all();
        if sent.is_err() {
            break;
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

/// One request and its descriptors.
fn receive(socket: &UnixStream) -> io::Result<(Request, Vec<OwnedFd>)> {
    let (body, fds) = wire::read_frame(socket)?;
    Ok((Request::decode(&body)?, fds))
}

/// Starts `request`'s process in a process group of its own, and answers: its id, or why
/// not. The answer goes before the reaper can tell the process's end, so the agent hears of
/// a start before its end, in the order of its requests.
///
/// A start's answer carries a pidfd of the process (where the kernel has them), opened before
/// the reaper can reap it, so that it is the process's own: through it the agent sees the
/// process end as soon as it does, without waiting for this keeper's word (`kept.rs`).
fn start(state: &State, request: &Request, fds: Vec<OwnedFd>) -> io::Result<()> {
    // Recorded before the reaper can see it end: the reaper takes this lock to reap.
    let mut asked = state.spawning.lock_unpoisoned();
    let (answer, pidfd) = match spawn(request, fds) {
        Ok(pid) => {
            asked.insert(pid);
            (Answer::Started(pid), pidfd_of(pid))
        }
        Err(e) => (Answer::Failed(e.raw_os_error().unwrap_or(libc::EIO)), None),
    };
    let to_agent = state.to_agent.lock_unpoisoned();
    let sent = match &pidfd {
        Some(pidfd) => {
            crate::sys::socket::send_with_fds(&to_agent, &answer.encode(), &[pidfd.as_fd()])
        }
        None => (&*to_agent).write_all(&answer.encode()),
    };
    drop((to_agent, asked));
    sent
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
fn spawn(request: &Request, fds: Vec<OwnedFd>) -> io::Result<i32> {
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
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if request.memory == 0 && request.program.as_bytes().contains(&b'/') {
        return spawn_direct(request, [stdin.as_ref(), Some(&stdout), Some(&stderr)]);
    }
    let mut command = Command::new(&request.program);
    command
        .arg0(&request.arg0)
        .args(&request.args)
        .current_dir(&request.cwd)
        .env_clear()
        .envs(request.env.iter().filter_map(|entry| {
            let bytes = entry.as_bytes();
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

/// `posix_spawn` straight from the request (a program named by its path, no memory limit:
/// a command hook): its environment is the `envp` as it came, not rebuilt into a map and
/// back as std's `Command` does, and glibc starts it with `CLONE_VM | CLONE_VFORK`.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn spawn_direct(request: &Request, fds: [Option<&OwnedFd>; 3]) -> io::Result<i32> {
    use std::ffi::CString;
    let c =
        |bytes: &[u8]| CString::new(bytes).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL));
    let program = c(request.program.as_bytes())?;
    let mut argv = Vec::with_capacity(request.args.len() + 1);
    argv.push(c(request.arg0.as_bytes())?);
    for arg in &request.args {
        argv.push(c(arg.as_bytes())?);
    }
    let env = request
        .env
        .iter()
        .map(|entry| c(entry.as_bytes()))
        .collect::<io::Result<Vec<_>>>()?;
    let mut envp: Vec<*const libc::c_char> = env.iter().map(|entry| entry.as_ptr()).collect();
    envp.push(std::ptr::null());
    let cwd = c(request.cwd.as_bytes())?;
    crate::sys::process::posix_spawn(&program, &argv, &envp, &cwd, fds).map(|pid| pid.as_raw())
}

/// Reaps every child, and tells the agent how those it asked for ended.
fn reap(state: &State) {
    loop {
        match waitid(Id::All, WaitPidFlag::WEXITED | WaitPidFlag::WNOWAIT) {
            Ok(status) => {
                let Some(pid) = status.pid() else { continue };
                let mut asked = state.spawning.lock_unpoisoned();
                let Ok((status, usage)) = crate::sys::process::wait4(pid) else {
                    continue;
                };
                if asked.remove(&pid.as_raw()) {
                    drop(asked);
                    let ended = Answer::Ended {
                        pid: pid.as_raw(),
                        status,
                        peak_kib: usage.ru_maxrss,
                    };
                    let _ = state.to_agent.lock_unpoisoned().write_all(&ended.encode());
                }
            }
            Err(nix::errno::Errno::EINTR) => {}
            Err(_) => {
                // No child when it looked: wait for a start (or look again soon, for an
                // adopted one). A start recorded since (its pid is in `spawning`, under this
                // lock) is looked at once: its wake-up may have come before this wait, and
                // the child's end would otherwise wait for the next look.
                let asked = state.spawning.lock_unpoisoned();
                if asked.is_empty() {
                    let _ = state
                        .children
                        .wait_timeout(asked, Duration::from_millis(200));
                }
            }
        }
    }
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
