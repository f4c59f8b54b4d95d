//! The keeper: nothing started on a hook's behalf outlives the agent, however the agent ends
//! (normal exit, SIGTERM, SIGKILL), including what leaves its process group or session
//! (`setsid`), clears its environment, or was left behind by its parent.
//!
//! On Linux the keeper is one small process, started with the first process the agent starts
//! for a hook: the agent's own program started again (when it calls
//! `serve_if_plugin_process`), else the `agent-hooks` command, with [`serve::KEEPER_PROCESS`]
//! set. It is a child subreaper (`PR_SET_CHILD_SUBREAPER`), and it starts every process the
//! agent starts on a hook's behalf (command hooks, `exec` programs, plugin processes,
//! long-running hooks): the agent sends it the program, arguments, folder, the whole
//! environment and the pipes' ends (`SCM_RIGHTS`, over a socket only the agent and the
//! keeper hold); the keeper answers with the process id, and later with its wait status and
//! peak memory. So every such process and everything it starts descends from the keeper:
//! an orphan, or a `setsid` escapee whose parent ended, is reparented to it (not to init),
//! and it reaps them, so no zombie stays. While the agent lives, nothing else changes:
//! background children of a hook that exited go on running. When the agent ends, by any
//! means, the kernel closes its end of the socket; the keeper then freezes (SIGSTOP) every
//! descendant, pass after pass until no new one appears, kills them all (SIGKILL), and exits.
//!
//! Where that keeper cannot start (not Linux, or no program that serves it), the shell
//! keeper of [`token`] runs instead, and the agent starts processes itself. Either way every
//! process carries [`KEEPER_VAR`] with the agent's token (the shell keeper finds processes by
//! it; tests and people find them by it).

mod serve;
mod token;
pub(crate) mod wire;

use std::{
    collections::{HashMap, HashSet},
    ffi::OsString,
    io::{self, Read},
    os::{fd::BorrowedFd, unix::net::UnixStream},
    process::{Command, Stdio},
    sync::{mpsc, Condvar, Mutex, OnceLock},
    time::Duration,
};

pub(crate) use serve::serve_if_keeper;
use wire::{Answer, Request};

use crate::sync::LockUnpoisoned;

/// The variable every process started on a hook's behalf carries.
pub(crate) const KEEPER_VAR: &str = "AGENT_HOOKS_KEEPER";

/// How long the agent waits for a keeper it started to say it serves.
const HELLO_WITHIN: Duration = Duration::from_secs(3);

/// How a process the keeper started ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Ended {
    /// Its wait status, as `waitpid` gives it.
    pub status: i32,
    /// Its peak resident memory, in KiB.
    pub peak_kib: i64,
}

enum Mode {
    Subreaper(Box<Subreaper>),
    /// The shell keeper, held for its pipe.
    Token(#[allow(dead_code)] token::Keeper),
    None,
}

struct Keeper {
    token: String,
    mode: Mode,
}

/// The agent's side of a subreaper keeper.
struct Subreaper {
    /// The socket, and the answers to requests, in order: one request at a time.
    requests: Mutex<(UnixStream, mpsc::Receiver<Answer>)>,
    /// How the processes it started ended, until taken; and which still run.
    ended: Mutex<Registry>,
    changed: Condvar,
    notify: tokio::sync::Notify,
}

#[derive(Default)]
struct Registry {
    running: HashSet<i32>,
    ended: HashMap<i32, Ended>,
    /// Nobody will ask how these ended.
    abandoned: HashSet<i32>,
    /// The keeper is gone.
    lost: bool,
}

static KEEPER: OnceLock<Keeper> = OnceLock::new();

fn keeper() -> &'static Keeper {
    KEEPER.get_or_init(|| {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        let token = format!("{}-{nanos}", std::process::id());
        let mode = if !cfg!(target_os = "linux") {
            Mode::None
        } else if let Some(subreaper) = Subreaper::start() {
            Mode::Subreaper(Box::new(subreaper))
        } else if let Some(shell) = token::start(&token) {
            Mode::Token(shell)
        } else {
            Mode::None
        };
        Keeper { token, mode }
    })
}

/// The variable and token to give a process started on a hook's behalf, starting the keeper
/// on the first call; `None` where there is no keeper.
pub(crate) fn marker() -> Option<(&'static str, &'static str)> {
    let keeper = keeper();
    match keeper.mode {
        Mode::None => None,
        _ => Some((KEEPER_VAR, keeper.token.as_str())),
    }
}

/// Adds the keeper's variable to `env` (a process's additions to the agent's environment).
pub(crate) fn mark(env: &mut Vec<(OsString, OsString)>) {
    if let Some((name, token)) = marker() {
        env.push((name.into(), token.into()));
    }
}

/// Adds the keeper's variable to `command`.
pub(crate) fn mark_command(command: &mut Command) {
    if let Some((name, token)) = marker() {
        command.env(name, token);
    }
}

/// Whether processes are started by a subreaper keeper (see [`start`]).
pub(crate) fn starts_processes() -> bool {
    matches!(keeper().mode, Mode::Subreaper(_))
}

/// Has the keeper start `request`'s process with `fds` (stdin if the request says so, then
/// stdout and stderr) in a process group of its own; `None` where no subreaper keeper runs
/// (the caller starts it itself).
pub(crate) fn start(request: &Request, fds: &[BorrowedFd<'_>]) -> Option<io::Result<i32>> {
    let Mode::Subreaper(subreaper) = &keeper().mode else {
        return None;
    };
    Some(subreaper.start_process(request, fds))
}

/// Whether `pid` was started by the keeper and not yet taken with [`take`].
pub(crate) fn kept(pid: i32) -> bool {
    match &keeper().mode {
        Mode::Subreaper(subreaper) => {
            let registry = subreaper.ended.lock_unpoisoned();
            registry.running.contains(&pid) || registry.ended.contains_key(&pid)
        }
        _ => false,
    }
}

/// How kept process `pid` ended, if it did (left for [`take`]).
pub(crate) fn peek(pid: i32) -> Option<Ended> {
    let Mode::Subreaper(subreaper) = &keeper().mode else {
        return None;
    };
    subreaper.ended.lock_unpoisoned().ended.get(&pid).copied()
}

/// Blocks until kept process `pid` has ended; how (left for [`take`]).
pub(crate) fn wait(pid: i32) -> Ended {
    let Mode::Subreaper(subreaper) = &keeper().mode else {
        return LOST;
    };
    let mut registry = subreaper.ended.lock_unpoisoned();
    loop {
        if let Some(ended) = registry.ended.get(&pid) {
            return *ended;
        }
        if registry.lost || !registry.running.contains(&pid) {
            return LOST;
        }
        registry = match subreaper.changed.wait(registry) {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
    }
}

/// Waits until kept process `pid` has ended, and takes how.
pub(crate) async fn wait_async(pid: i32) -> Ended {
    let Mode::Subreaper(subreaper) = &keeper().mode else {
        return LOST;
    };
    loop {
        let notified = subreaper.notify.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        {
            let mut registry = subreaper.ended.lock_unpoisoned();
            if let Some(ended) = registry.ended.remove(&pid) {
                return ended;
            }
            if registry.lost || !registry.running.contains(&pid) {
                return LOST;
            }
        }
        notified.await;
    }
}

/// Takes how kept process `pid` ended, waiting for it: the agent is done with it.
pub(crate) fn take(pid: i32) -> Ended {
    let ended = wait(pid);
    if let Mode::Subreaper(subreaper) = &keeper().mode {
        subreaper.ended.lock_unpoisoned().ended.remove(&pid);
    }
    ended
}

/// Nobody will ask how kept process `pid` ends (a run dropped before it ended).
pub(crate) fn abandon(pid: i32) {
    if let Mode::Subreaper(subreaper) = &keeper().mode {
        let mut registry = subreaper.ended.lock_unpoisoned();
        if registry.ended.remove(&pid).is_none() && registry.running.contains(&pid) {
            registry.abandoned.insert(pid);
        }
    }
}

/// What a process is said to have ended with when the keeper went away first: killed.
const LOST: Ended = Ended {
    status: libc::SIGKILL,
    peak_kib: 0,
};

impl Subreaper {
    fn start() -> Option<Self> {
        use std::os::{fd::OwnedFd, unix::process::CommandExt};
        let program = super::program::plugin_host_program(None).ok()?;
        let (mut ours, theirs) = UnixStream::pair().ok()?;
        let child = Command::new(program)
            .env(serve::KEEPER_PROCESS, "1")
            .env_remove(KEEPER_VAR)
            .current_dir("/")
            .stdin(Stdio::from(OwnedFd::from(theirs)))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .ok()?;
        // Never waited for: it outlives the agent by design (its end is the agent's).
        drop(child);
        ours.set_read_timeout(Some(HELLO_WITHIN)).ok()?;
        let mut hello = [0];
        ours.read_exact(&mut hello).ok()?;
        if hello[0] != wire::HELLO {
            return None;
        }
        ours.set_read_timeout(None).ok()?;
        let reader = ours.try_clone().ok()?;
        let (answers, replies) = mpsc::channel();
        std::thread::Builder::new()
            .name("agent-hooks-keeper".into())
            .spawn(move || read_answers(reader, answers))
            .ok()?;
        Some(Self {
            requests: Mutex::new((ours, replies)),
            ended: Mutex::new(Registry::default()),
            changed: Condvar::new(),
            notify: tokio::sync::Notify::new(),
        })
    }

    fn start_process(&self, request: &Request, fds: &[BorrowedFd<'_>]) -> io::Result<i32> {
        let frame = request.encode();
        let requests = self.requests.lock_unpoisoned();
        let (socket, replies) = &*requests;
        crate::sys::socket::send_with_fds(socket, &frame, fds)?;
        // Recorded as running before the next answer is read: its end may come first.
        match replies.recv() {
            Ok(Answer::Started(pid)) => {
                let mut registry = self.ended.lock_unpoisoned();
                if !registry.ended.contains_key(&pid) {
                    registry.running.insert(pid);
                }
                Ok(pid)
            }
            Ok(Answer::Failed(code)) => Err(io::Error::from_raw_os_error(code)),
            Ok(Answer::Ended { .. }) | Err(_) => Err(io::Error::other("the keeper is gone")),
        }
    }

    fn record(&self, pid: i32, ended: Ended) {
        let mut registry = self.ended.lock_unpoisoned();
        registry.running.remove(&pid);
        if !registry.abandoned.remove(&pid) {
            registry.ended.insert(pid, ended);
        }
        drop(registry);
        self.changed.notify_all();
        self.notify.notify_waiters();
    }

    fn lose(&self) {
        self.ended.lock_unpoisoned().lost = true;
        self.changed.notify_all();
        self.notify.notify_waiters();
    }
}

/// Reads the keeper's answers: those to requests go to the requester, ends to the registry.
fn read_answers(socket: UnixStream, replies: mpsc::Sender<Answer>) {
    let subreaper = || match &keeper().mode {
        Mode::Subreaper(subreaper) => Some(subreaper),
        _ => None,
    };
    // The first answer may come before the keeper is recorded as started: wait for that.
    while KEEPER.get().is_none() {
        std::thread::sleep(Duration::from_millis(1));
    }
    loop {
        let answer = wire::read_frame(&socket).and_then(|body| Answer::decode(&body));
        match answer {
            Ok(Answer::Ended {
                pid,
                status,
                peak_kib,
            }) => {
                if let Some(subreaper) = subreaper() {
                    subreaper.record(pid, Ended { status, peak_kib });
                }
            }
            Ok(answer) => {
                let _ = replies.send(answer);
            }
            Err(_) => {
                if let Some(subreaper) = subreaper() {
                    subreaper.lose();
                }
                return;
            }
        }
    }
}

/// The whole environment a process gets: the agent's, with `set` added or replacing and
/// `removed` taken out.
pub(crate) fn environment(set: &[(OsString, OsString)], removed: &[OsString]) -> Vec<OsString> {
    let mut env: Vec<OsString> = std::env::vars_os()
        .filter(|(name, _)| !set.iter().any(|(n, _)| n == name) && !removed.contains(name))
        .map(|(name, value)| wire::variable(&name, &value))
        .collect();
    for (i, (name, value)) in set.iter().enumerate() {
        // A name given twice takes its last value, as with std's `Command::env`.
        if !set[i + 1..].iter().any(|(later, _)| later == name) {
            env.push(wire::variable(name, value));
        }
    }
    env
}
