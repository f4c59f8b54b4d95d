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
//! peak memory. Requests are numbered by their order, and the keeper answers them in that
//! order, so the agent need not wait for the answer: a command hook's run sends its request
//! and goes on at once (writing stdin, reading stdout), and learns the id when it needs it. So every such process and everything it starts descends from the keeper:
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
    os::{
        fd::{BorrowedFd, OwnedFd},
        unix::net::UnixStream,
    },
    process::{Command, Stdio},
    sync::{Condvar, Mutex, OnceLock},
    time::Duration,
};

pub(crate) use serve::serve_if_keeper;
use wire::{Answer, Request};

use crate::sync::LockUnpoisoned;

/// The variable every process started on a hook's behalf carries.
pub(crate) const KEEPER_VAR: &str = "AGENT_HOOKS_KEEPER";

/// How long the agent waits for a keeper it started to say it serves.
const HELLO_WITHIN: Duration = Duration::from_secs(3);

/// A keeper program that was found and started but does not serve this agent: reported (a
/// warning, through `tracing`), and the shell keeper runs instead.
#[derive(Debug, thiserror::Error)]
#[error("the keeper of processes started for hooks did not start: {} {why}; the shell keeper runs instead, which ends those processes with the agent only while they keep its mark in their environment (docs/keeper.md). Install the agent-hooks command of this agent's version beside it, or set AGENT_HOOKS_PLUGIN_HOST to one", program.display())]
struct Unserved {
    program: std::path::PathBuf,
    why: Unserving,
}

/// Why a keeper program does not serve.
#[derive(Debug, thiserror::Error)]
enum Unserving {
    #[error("is of another version of agent-hooks (it speaks version {0} of the keeper's protocol, this agent speaks version {version})", version = wire::VERSION)]
    Version(u8),
    #[error("is of an earlier version of agent-hooks (it speaks the keeper's protocol over one socket, this agent over two)")]
    OneSocket,
    #[error("is not a keeper (it wrote something other than a keeper's hello)")]
    NotAKeeper,
    #[error("did not say it serves within {HELLO_WITHIN:?}")]
    Silent,
    #[error("ended before it said it serves")]
    Ended,
    #[error("could not be started ({0})")]
    Io(#[from] io::Error),
}

/// Waits for the keeper's hello on `answers` ([`wire::HELLO`]). A keeper of the one-socket
/// protocol (agent-hooks before its version 2) writes its hello, one byte, on what is here
/// `requests`: it is told apart, so that the user hears which it is, at once.
///
/// A program may write on one socket and close the other at once (or end), so both can be
/// ready together: an end seen on one is not taken as the answer before what the other
/// already holds is read.
fn hello(answers: &UnixStream, requests: &UnixStream) -> Result<(), Unserving> {
    use std::os::fd::AsFd;

    use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
    let deadline = std::time::Instant::now() + HELLO_WITHIN;
    let mut said = Vec::with_capacity(wire::HELLO.len());
    // Once its end was read, `requests` is not polled again.
    let mut requests_open = true;
    while said.len() < wire::HELLO.len() {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        let ms = u16::try_from(left.as_millis()).unwrap_or(u16::MAX);
        let mut ready = vec![PollFd::new(answers.as_fd(), PollFlags::POLLIN)];
        if requests_open {
            ready.push(PollFd::new(requests.as_fd(), PollFlags::POLLIN));
        }
        match poll(&mut ready, PollTimeout::from(ms)) {
            Ok(0) => return Err(Unserving::Silent),
            Ok(_) => {}
            Err(nix::errno::Errno::EINTR) => continue,
            Err(e) => return Err(Unserving::Io(e.into())),
        }
        let readable = |fd: &PollFd<'_>| fd.revents().is_some_and(|r| !r.is_empty());
        if ready.get(1).is_some_and(readable) {
            match one_socket_hello(requests) {
                Some(why) => return Err(why),
                None => requests_open = false,
            }
        } else if readable(&ready[0]) {
            let mut byte = [0];
            match (&*answers).read(&mut byte) {
                // It can no longer say it serves; whatever it wrote on `requests` first
                // says what it is.
                Ok(0) => {
                    let written = requests_open
                        && poll(
                            &mut [PollFd::new(requests.as_fd(), PollFlags::POLLIN)],
                            PollTimeout::ZERO,
                        )
                        .is_ok_and(|n| n > 0);
                    let why = written.then(|| one_socket_hello(requests)).flatten();
                    return Err(why.unwrap_or(Unserving::Ended));
                }
                Ok(_) => said.push(byte[0]),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e.into()),
            }
        }
    }
    match said[..] {
        [k, version] if k == wire::HELLO[0] && version == wire::VERSION => Ok(()),
        [k, version] if k == wire::HELLO[0] => Err(Unserving::Version(version)),
        _ => Err(Unserving::NotAKeeper),
    }
}

/// Reads what a program wrote on `requests`, which is readable: a keeper of the one-socket
/// protocol's hello, something else, or `None` at its end (the program closed it or ended;
/// what it wrote on `answers` still says what it is).
fn one_socket_hello(requests: &UnixStream) -> Option<Unserving> {
    let mut byte = [0];
    let read = loop {
        match (&*requests).read(&mut byte) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            read => break read,
        }
    };
    match read {
        Ok(1) if byte[0] == wire::HELLO[0] => Some(Unserving::OneSocket),
        Ok(0) => None,
        _ => Some(Unserving::NotAKeeper),
    }
}

/// A process the keeper started: its id (which leads its group), and a pidfd of it where the
/// keeper sent one (through which a run sees it end, `kept.rs`).
#[derive(Debug)]
pub(crate) struct Started {
    pub pid: i32,
    pub pidfd: Option<OwnedFd>,
}

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
    /// Why the keeper program found did not serve, when it did not.
    unserved: Option<String>,
}

/// Which keeper ends the processes started for hooks when the agent ends
/// (`docs/keeper.md`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum KeeperInForce {
    /// The subreaper keeper, `program` started again: whatever a hook starts ends with the
    /// agent.
    Subreaper {
        /// The program that serves as keeper.
        program: std::path::PathBuf,
    },
    /// The shell keeper: a process ends with the agent while it keeps the agent's mark in
    /// its environment. `unserved`: why the keeper program found did not serve (the
    /// warning the agent logged); `None` when no program was found.
    Shell {
        /// The warning, when a program was found and did not serve.
        unserved: Option<String>,
    },
    /// No keeper (not Linux, or neither keeper could start): a hook's processes end when
    /// the agent kills their group.
    None,
}

/// The keeper in force in this process, started now if it has not started yet.
pub fn keeper_in_force() -> KeeperInForce {
    let keeper = keeper();
    match &keeper.mode {
        Mode::Subreaper(subreaper) => KeeperInForce::Subreaper {
            program: subreaper.program.clone(),
        },
        Mode::Token(_) => KeeperInForce::Shell {
            unserved: keeper.unserved.clone(),
        },
        Mode::None => KeeperInForce::None,
    }
}

/// The agent's side of a subreaper keeper.
struct Subreaper {
    /// The program that serves as keeper.
    program: std::path::PathBuf,
    /// The socket, and the number the next request gets (its place in the keeper's order).
    requests: Mutex<(UnixStream, u64)>,
    /// How the processes it started ended, until taken; and which still run.
    ended: Mutex<Registry>,
    changed: Condvar,
    /// Woken when a process ends, one fails to start, or the keeper is lost.
    notify: tokio::sync::Notify,
    /// Woken when a request is answered (a run that waits for its end is not woken by its
    /// start, only by what ends it).
    answered: tokio::sync::Notify,
}

#[derive(Default)]
struct Registry {
    running: HashSet<i32>,
    ended: HashMap<i32, Ended>,
    /// Nobody will ask how these ended.
    abandoned: HashSet<i32>,
    /// The keeper is gone.
    lost: bool,
    /// The answers to requests not yet taken, by request number: the process, or the OS
    /// error.
    answers: HashMap<u64, Result<Started, i32>>,
    /// The number of the request the keeper's next answer is for.
    answered: u64,
    /// Requests whose process nobody waits for (its run was dropped before the answer
    /// came): killed, with its group, as its id arrives.
    unwanted: HashSet<u64>,
}

static KEEPER: OnceLock<Keeper> = OnceLock::new();

fn keeper() -> &'static Keeper {
    KEEPER.get_or_init(|| {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        let token = format!("{}-{nanos}", std::process::id());
        let mut said = None;
        let mode = if !cfg!(target_os = "linux") {
            Mode::None
        } else {
            match Subreaper::start() {
                Ok(subreaper) => Mode::Subreaper(Box::new(subreaper)),
                Err(unserved) => {
                    if let Some(unserved) = unserved {
                        tracing::warn!("{unserved}");
                        said = Some(unserved.to_string());
                    }
                    token::start(&token).map_or(Mode::None, Mode::Token)
                }
            }
        };
        Keeper {
            token,
            mode,
            unserved: said,
        }
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
/// stdout and stderr) in a process group of its own, and waits for its id; `None` where no
/// subreaper keeper runs (the caller starts it itself).
pub(crate) fn start(request: &Request, fds: &[BorrowedFd<'_>]) -> Option<io::Result<i32>> {
    let Mode::Subreaper(subreaper) = &keeper().mode else {
        return None;
    };
    Some(
        subreaper
            .send(request, fds)
            .and_then(|number| subreaper.started(number))
            .map(|started| started.pid),
    )
}

/// Sends `request` as [`start`] does, without waiting for the answer: the request's number,
/// for [`started`], [`started_async`] and [`unwanted`]; `None` where no subreaper keeper
/// runs. The descriptors may be closed once this returns (the keeper holds its copies).
pub(crate) fn send(request: &Request, fds: &[BorrowedFd<'_>]) -> Option<io::Result<u64>> {
    let Mode::Subreaper(subreaper) = &keeper().mode else {
        return None;
    };
    Some(subreaper.send(request, fds))
}

/// Request `number`'s process, waiting for the keeper's answer (taken: asked once).
pub(crate) fn started(number: u64) -> io::Result<Started> {
    match &keeper().mode {
        Mode::Subreaper(subreaper) => subreaper.started(number),
        _ => Err(gone()),
    }
}

/// [`started`], awaited. The answer is taken in the same poll that finds it, so a future
/// dropped while it waits loses nothing.
pub(crate) async fn started_async(number: u64) -> io::Result<Started> {
    let Mode::Subreaper(subreaper) = &keeper().mode else {
        return Err(gone());
    };
    loop {
        let notified = subreaper.answered.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        if let Some(answer) = subreaper.take_answer(number) {
            return answer;
        }
        notified.await;
    }
}

/// Request `number`'s process as a run keeps it: the keeper's answer once taken (its id, or
/// why it did not start), and the pidfd that came with it until the run takes that.
#[derive(Default)]
pub(crate) struct Answered {
    pid: OnceLock<Result<i32, String>>,
    pidfd: Mutex<Option<OwnedFd>>,
}

impl Answered {
    /// Keeps the keeper's answer (the first one given).
    pub(crate) fn keep(&self, answer: io::Result<Started>) {
        let answer = answer.map(|started| {
            if self.pid.get().is_none() {
                *self.pidfd.lock_unpoisoned() = started.pidfd;
            }
            started.pid
        });
        let _ = self.pid.set(answer.map_err(|e| e.to_string()));
    }

    /// The process's id, or why it did not start, if the answer was taken.
    pub(crate) fn get(&self) -> Option<&Result<i32, String>> {
        self.pid.get()
    }

    /// Takes the pidfd that came with the answer, if one did and it was not taken.
    pub(crate) fn take_pidfd(&self) -> Option<OwnedFd> {
        self.pidfd.lock_unpoisoned().take()
    }
}

/// Waits until request `number`'s process has ended, and takes how (the keeper's word of its
/// end); its start is taken into `answer` on the way (the keeper tells a start before its end,
/// so the end's wake-up finds both). An error if it did not start.
pub(crate) async fn ended_async(number: u64, answer: &Answered) -> io::Result<Ended> {
    let Mode::Subreaper(subreaper) = &keeper().mode else {
        return Err(gone());
    };
    loop {
        let notified = subreaper.notify.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        if answer.get().is_none() {
            if let Some(taken) = subreaper.take_answer(number) {
                answer.keep(taken);
            }
        }
        match answer.get() {
            Some(Err(why)) => return Err(io::Error::other(why.clone())),
            Some(Ok(pid)) => {
                let mut registry = subreaper.ended.lock_unpoisoned();
                if let Some(ended) = registry.ended.remove(pid) {
                    return Ok(ended);
                }
                if registry.lost || !registry.running.contains(pid) {
                    return Ok(LOST);
                }
            }
            None => {}
        }
        notified.await;
    }
}

/// Nobody will ask for request `number`'s answer: its process, if it started, is killed with
/// its group (now if its id is here, else as it arrives), and its end is not kept.
pub(crate) fn unwanted(number: u64) {
    let Mode::Subreaper(subreaper) = &keeper().mode else {
        return;
    };
    let mut registry = subreaper.ended.lock_unpoisoned();
    match registry.answers.remove(&number) {
        // Not reaped yet (reaped, its id would no longer be its own and nothing is left).
        Some(Ok(Started { pid, .. })) if registry.ended.remove(&pid).is_none() => {
            kill_group(pid);
            if registry.running.contains(&pid) {
                registry.abandoned.insert(pid);
            }
        }
        Some(_) => {}
        None if number >= registry.answered && !registry.lost => {
            registry.unwanted.insert(number);
        }
        None => {}
    }
}

fn kill_group(pid: i32) {
    let _ = nix::sys::signal::killpg(
        nix::unistd::Pid::from_raw(pid),
        nix::sys::signal::Signal::SIGKILL,
    );
}

fn gone() -> io::Error {
    io::Error::other("the keeper is gone")
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
    /// Starts the keeper program and waits for its hello. `Err(None)` when there is no
    /// program to start (the shell keeper is then the one meant), `Err(Some(_))` when the
    /// program found does not serve (a fault the agent reports).
    fn start() -> Result<Self, Option<Unserved>> {
        use std::os::{fd::OwnedFd, unix::process::CommandExt};
        let program = super::program::plugin_host_program(None).map_err(|_| None)?;
        let unserved = |why: Unserving| {
            Some(Unserved {
                program: program.clone(),
                why,
            })
        };
        // One socket each way: a blocked read on a socket is woken by the peer's reading of
        // what was written on it (its room to write grew), so with one socket for both, each
        // request the keeper read woke the agent's reading thread, and each answer the agent
        // read woke the keeper, for nothing.
        let (requests, their_requests) = UnixStream::pair().map_err(|e| unserved(e.into()))?;
        let (answers, their_answers) = UnixStream::pair().map_err(|e| unserved(e.into()))?;
        let mut child = Command::new(&program)
            .env(serve::KEEPER_PROCESS, "1")
            .env_remove(KEEPER_VAR)
            .current_dir("/")
            .stdin(Stdio::from(OwnedFd::from(their_requests)))
            .stdout(Stdio::from(OwnedFd::from(their_answers)))
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .map_err(|e| unserved(e.into()))?;
        if let Err(why) = hello(&answers, &requests) {
            let _ = child.kill();
            let _ = child.wait();
            return Err(unserved(why));
        }
        // Never waited for: it outlives the agent by design (its end is the agent's).
        drop(child);
        std::thread::Builder::new()
            .name("agent-hooks-keeper".into())
            .spawn(move || read_answers(answers))
            .map_err(|e| unserved(e.into()))?;
        Ok(Self {
            program,
            requests: Mutex::new((requests, 0)),
            ended: Mutex::new(Registry::default()),
            changed: Condvar::new(),
            notify: tokio::sync::Notify::new(),
            answered: tokio::sync::Notify::new(),
        })
    }

    /// Sends `request` with `fds`: its number.
    fn send(&self, request: &Request, fds: &[BorrowedFd<'_>]) -> io::Result<u64> {
        let frame = request.encode();
        let mut requests = self.requests.lock_unpoisoned();
        let (socket, next) = &mut *requests;
        crate::sys::socket::send_with_fds(socket, &frame, fds)?;
        let number = *next;
        *next += 1;
        Ok(number)
    }

    /// Takes request `number`'s answer if it came; an error if it never will.
    fn take_answer(&self, number: u64) -> Option<io::Result<Started>> {
        let mut registry = self.ended.lock_unpoisoned();
        match registry.answers.remove(&number) {
            Some(Ok(started)) => Some(Ok(started)),
            Some(Err(code)) => Some(Err(io::Error::from_raw_os_error(code))),
            None if registry.lost => Some(Err(gone())),
            None => None,
        }
    }

    /// Waits for request `number`'s answer, and takes it.
    fn started(&self, number: u64) -> io::Result<Started> {
        let mut registry = self.ended.lock_unpoisoned();
        loop {
            match registry.answers.remove(&number) {
                Some(Ok(started)) => return Ok(started),
                Some(Err(code)) => return Err(io::Error::from_raw_os_error(code)),
                None if registry.lost => return Err(gone()),
                None => {}
            }
            registry = match self.changed.wait(registry) {
                Ok(guard) => guard,
                Err(poisoned) => poisoned.into_inner(),
            };
        }
    }

    /// The keeper answered the next request: the process, or the OS error's code.
    fn answer(&self, answer: Result<Started, i32>) {
        let failed = answer.is_err();
        let mut registry = self.ended.lock_unpoisoned();
        let number = registry.answered;
        registry.answered += 1;
        if let Ok(Started { pid, .. }) = answer {
            // The keeper tells a process's start before its end: it runs until then.
            if !registry.ended.contains_key(&pid) {
                registry.running.insert(pid);
            }
        }
        if registry.unwanted.remove(&number) {
            if let Ok(Started { pid, .. }) = answer {
                kill_group(pid);
                if registry.ended.remove(&pid).is_none() {
                    registry.abandoned.insert(pid);
                }
            }
        } else {
            registry.answers.insert(number, answer);
        }
        drop(registry);
        self.changed.notify_all();
        self.answered.notify_waiters();
        if failed {
            // What waits for its end learns it never started.
            self.notify.notify_waiters();
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
        self.answered.notify_waiters();
    }
}

/// Reads the keeper's answers and ends into the registry.
fn read_answers(socket: UnixStream) {
    let subreaper = || match &keeper().mode {
        Mode::Subreaper(subreaper) => Some(subreaper),
        _ => None,
    };
    // The first answer may come before the keeper is recorded as started: wait for that.
    while KEEPER.get().is_none() {
        std::thread::sleep(Duration::from_millis(1));
    }
    loop {
        let answer = wire::read_frame(&socket)
            .and_then(|(body, fds)| Ok((Answer::decode(&body)?, fds.into_iter().next())));
        let Some(subreaper) = subreaper() else { return };
        match answer {
            Ok((
                Answer::Ended {
                    pid,
                    status,
                    peak_kib,
                },
                _,
            )) => subreaper.record(pid, Ended { status, peak_kib }),
            Ok((Answer::Started(pid), pidfd)) => subreaper.answer(Ok(Started { pid, pidfd })),
            Ok((Answer::Failed(code), _)) => subreaper.answer(Err(code)),
            Err(_) => {
                subreaper.lose();
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    /// The agent's ends of the two sockets, and the program's.
    fn sockets() -> ((UnixStream, UnixStream), (UnixStream, UnixStream)) {
        let (answers, their_answers) = UnixStream::pair().unwrap();
        let (requests, their_requests) = UnixStream::pair().unwrap();
        ((answers, requests), (their_answers, their_requests))
    }

    #[test]
    fn a_one_socket_keeper_that_closed_the_other_socket_is_told_apart() {
        let ((answers, requests), (their_answers, mut their_requests)) = sockets();
        their_requests.write_all(b"K").unwrap();
        drop(their_answers);
        let why = hello(&answers, &requests).unwrap_err();
        assert!(matches!(why, Unserving::OneSocket), "{why}");
    }

    #[test]
    fn a_program_that_wrote_something_else_and_ended_is_not_a_keeper() {
        let ((answers, requests), (mut their_answers, their_requests)) = sockets();
        their_answers.write_all(b"hello\n").unwrap();
        drop(their_requests);
        drop(their_answers);
        let why = hello(&answers, &requests).unwrap_err();
        assert!(matches!(why, Unserving::NotAKeeper), "{why}");
    }

    #[test]
    fn a_program_that_ended_without_a_word_ended() {
        let ((answers, requests), program) = sockets();
        drop(program);
        let why = hello(&answers, &requests).unwrap_err();
        assert!(matches!(why, Unserving::Ended), "{why}");
    }

    #[test]
    fn a_keeper_that_closed_its_requests_still_serves_by_its_hello() {
        let ((answers, requests), (mut their_answers, their_requests)) = sockets();
        drop(their_requests);
        their_answers.write_all(&wire::HELLO).unwrap();
        assert!(hello(&answers, &requests).is_ok());
    }
}
