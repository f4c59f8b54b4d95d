//! `agent-hooks serve`: one resident process per user (per home and configuration folder)
//! that `hook` sends events to over a Unix socket, so that an event costs a connection, not
//! a discovery and a start of every plugin process and long-running hook.
//!
//! - The socket is in a folder only the user can enter (0700), under `$XDG_RUNTIME_DIR` or
//!   `~/.cache/agent-hooks/run`; a connection from another uid is refused (`SO_PEERCRED`).
//! - One process only: it holds an exclusive lock (`flock`) on `serve.lock` for its life; a
//!   second one finds it taken and exits.
//! - Each agent session (its session id, with the project, the agent and the options) has
//!   a runner of its own, warm between events, so that sessions are kept apart and one
//!   session's slow hook does not hold another's; events of one session run in order.
//! - Changed hooks files are seen on the next event: every place hooks are found (and the
//!   trust store) is watched (`watch.rs`), and the session's runner is built again when one
//!   changed; where watching cannot be set up, their modification times and sizes are
//!   checked per request instead.
//! - Connections are served on threads kept between them (`Workers`), one per connection
//!   served at once.
//! - A client may keep its connection for its next requests ([`Header::keep`], as an
//!   extension of agent-hooks' inside an agent does): they are served in turn on the connection's thread, each answer
//!   marked `keep`, until the client closes it, a request goes wrong (answered, then
//!   closed), or this process gives way or ends (an idle kept connection is closed within
//!   [`KEPT_TICK`], so that it does not hold the process's end).
//! - It ends after `--idle` seconds without a request, when its socket is removed, and at
//!   SIGTERM, SIGINT or SIGHUP (ending every session's hooks and removing its socket);
//!   `serve --stop` sends it SIGTERM (its pid is in `serve.lock`).
//! - A session is dropped (its runner ends its long-running hooks, its plugin processes
//!   and what they started) at its `SessionEnd`, after the idle time, and when the agent
//!   process that sent its events ends, however it ends: the client sends that process's
//!   pid ([`Header::agent_pid`]) and the watchdog looks at it in `/proc` (its start time
//!   tells it apart from a later process given the same pid).
//! - It is of one version ([`crate::relay::program_version`], logged at its start): a
//!   request from a client of another version (an upgraded program) makes it give way
//!   before any hook of the event runs. It removes its socket, lets go of its lock, answers
//!   a refusal that says so (the client then starts its own and sends the event again),
//!   finishes the requests it is serving and ends.
//! - Requests are bounded (a header of 1 MiB, the agent's environment in it, a payload of
//!   16 MiB); a malformed one gets an error answer, never a crash.

pub mod http;
pub mod ui;
mod ui_channel;
mod watch;
pub mod wire;

use std::{
    collections::HashMap,
    io::{BufRead, BufReader, Read, Write},
    os::unix::{
        fs::MetadataExt,
        net::{UnixListener, UnixStream},
    },
    path::PathBuf,
    process::ExitCode,
    sync::{
        atomic::{AtomicBool, AtomicUsize, Ordering},
        mpsc, Arc, Mutex,
    },
    time::{Duration, Instant, SystemTime},
};

use agent_hooks::discover::TRUST_STORE_FILE;

use crate::{
    answering::{
        self,
        request::{Request, RequestError, PAYLOAD_LIMIT},
    },
    capped_log,
    hook_session::{self, HookArgs},
    options::{Common, Outcome},
    recorder::LiveUi,
    relay::Reply,
    resident::{http_config::HttpConfig, stop::stop},
    session::Session,
    sync::lock,
};
use agent_hooks::agents::{Agent, PlaceFiles, SCRIPT_FOLDERS};
use wire::{Header, HEADER_LIMIT, VERSION};

/// `serve`'s options.
#[derive(Debug, Clone, clap::Args)]
pub struct ServeArgs {
    /// End after this many seconds without a request.
    #[arg(long, default_value_t = 900, value_name = "SECONDS")]
    pub idle: u64,
    /// Serve at most this many connections at once (default 64, or
    /// `AGENT_HOOKS_SERVE_MAX_CONNECTIONS`); a client past it runs its hooks itself.
    #[arg(long, value_name = "N")]
    pub max_connections: Option<usize>,
    /// Stop this user's resident process (its sessions' hooks end with it) and remove its
    /// socket, instead of serving; nothing to stop is not an error.
    #[arg(long, conflicts_with_all = ["idle", "max_connections"])]
    pub stop: bool,
}

/// The default of `--max-connections`.
pub const MAX_CONNECTIONS: usize = 64;

pub use crate::relay::make_folder;

/// A session's warm runner.
struct Warm {
    session: Session,
    runtime: tokio::runtime::Runtime,
    fingerprint: Vec<(PathBuf, Option<(SystemTime, u64)>)>,
    /// Set by the watcher when one of its places changed; `None`: not watched, the
    /// fingerprint is compared on each event instead.
    stale: Option<Arc<AtomicBool>>,
    used: Instant,
    /// The agent process whose events the session serves, when the client said.
    agent: Option<AgentProcess>,
    /// What the agent's entries are re-synced for when the session's places change: the
    /// session's options and agent, and whether that was done since they last changed.
    wiring: (Common, Agent, bool),
}

/// An agent process, told apart from a later process given its pid by its start time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct AgentProcess {
    pid: u32,
    start: u64,
}

impl AgentProcess {
    /// The process `pid` as it is now; `None` when it is gone already.
    fn of(pid: u32) -> Option<AgentProcess> {
        crate::relay::process_start(pid).map(|start| AgentProcess { pid, start })
    }

    /// Whether it still runs.
    fn alive(&self) -> bool {
        crate::relay::process_start(self.pid) == Some(self.start)
    }
}

type Key = String;

/// What the connection threads share.
pub struct State {
    sessions: Mutex<HashMap<Key, Arc<Mutex<Option<Warm>>>>>,
    last_request: Mutex<Instant>,
    idle: Duration,
    /// Connections being served, and the most at once.
    connections: AtomicUsize,
    max_connections: usize,
    watch: watch::Watch,
    /// This program's version ([`crate::relay::program_version`]).
    version: String,
    /// Its socket, and the inode it had when bound (removed only while it is still that).
    socket: PathBuf,
    inode: u64,
    /// The lock that makes it the folder's one resident process, let go when it gives way.
    lock: Mutex<Option<nix::fcntl::Flock<std::fs::File>>>,
}

/// One connection counted against the cap, for as long as it lives.
pub struct Admission(Arc<State>);

impl Admission {
    /// A place for one more connection, or `None` at the cap.
    pub fn enter(state: &Arc<State>) -> Option<Admission> {
        let count = &state.connections;
        let mut now = count.load(Ordering::Relaxed);
        loop {
            if now >= state.max_connections {
                return None;
            }
            match count.compare_exchange_weak(now, now + 1, Ordering::AcqRel, Ordering::Relaxed) {
                Ok(_) => return Some(Admission(state.clone())),
                Err(actual) => now = actual,
            }
        }
    }
}

impl Drop for Admission {
    fn drop(&mut self) {
        self.0.connections.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Notes a request (the idle time starts again).
pub fn touch(state: &State) {
    *lock(&state.last_request) = Instant::now();
}

/// `agent-hooks serve`.
pub fn run(args: &ServeArgs) -> Outcome {
    if args.stop {
        let said = stop()?;
        outln!("{said}");
        return Ok(ExitCode::SUCCESS);
    }
    // Blocked here, before any thread starts, so that every thread of the process blocks
    // them and the thread of `on_signals` alone takes them (the processes it starts get
    // no blocked signal: each way of starting one clears the mask).
    let signals = ending_signals();
    signals.thread_block()?;
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .filter(|h| h.is_absolute())
        .ok_or("HOME is not set")?;
    let xdg = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute());
    let folder = wire::folder(&home, xdg.as_deref());
    make_folder(&folder)?;
    // Started by `hook`, its stderr is its log, kept under a size; started by hand, its
    // stderr is left alone.
    let log = folder.join(wire::LOG);
    if capped_log::is_stderr(&log) {
        capped_log::open(&log, capped_log::limit(), true);
    }
    let lock_file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(folder.join(wire::LOCK))?;
    let held = match nix::fcntl::Flock::lock(lock_file, nix::fcntl::FlockArg::LockExclusiveNonblock)
    {
        Ok(held) => held,
        Err(_) => {
            eprintln!(
                "agent-hooks serve: already running for {}",
                folder.display()
            );
            return Ok(ExitCode::SUCCESS);
        }
    };
    // Its pid, for `serve --stop`: whoever holds the lock wrote it.
    held.set_len(0)?;
    (&*held).write_all(std::process::id().to_string().as_bytes())?;
    let socket = folder.join(wire::SOCKET);
    let _ = std::fs::remove_file(&socket);
    let listener = UnixListener::bind(&socket)?;
    let inode = std::fs::metadata(&socket)?.ino();
    eprintln!(
        "agent-hooks serve: pid {} listening on {}",
        std::process::id(),
        socket.display()
    );
    let version = crate::relay::program_version();
    eprintln!(
        "agent-hooks serve: agent-hooks {version} ({})",
        std::env::current_exe()
            .map(|p| p.display().to_string())
            .unwrap_or_default()
    );
    let max_connections = args
        .max_connections
        .or_else(|| {
            std::env::var("AGENT_HOOKS_SERVE_MAX_CONNECTIONS")
                .ok()
                .and_then(|n| n.parse().ok())
        })
        .unwrap_or(MAX_CONNECTIONS)
        .max(1);
    let state = Arc::new(State {
        sessions: Mutex::new(HashMap::new()),
        last_request: Mutex::new(Instant::now()),
        idle: Duration::from_secs(args.idle),
        connections: AtomicUsize::new(0),
        max_connections,
        watch: if std::env::var_os("AGENT_HOOKS_SERVE_NO_WATCH").is_some() {
            watch::Watch::off()
        } else {
            watch::Watch::new()
        },
        version,
        socket: socket.clone(),
        inode,
        lock: Mutex::new(Some(held)),
    });
    watchdog(state.clone());
    on_signals(signals, state.clone(), socket.clone(), inode);
    let decisions = crate::decisions::in_force();
    for problem in decisions.problems.iter().filter(|p| p.contains("export")) {
        eprintln!("agent-hooks serve: {problem}");
    }
    if let (true, Some(collector)) = (decisions.on, decisions.export) {
        crate::decisions::export::start(decisions.folder, collector);
    }
    let config_dir = match &xdg {
        Some(xdg) => xdg.join("agent-hooks"),
        None => home.join(".config/agent-hooks"),
    };
    if let Some(config) = HttpConfig::read(&config_dir) {
        http::listen(state.clone(), config, home.clone(), xdg.clone());
    }
    let me = nix::unistd::geteuid().as_raw();
    let workers = Workers::new();
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        match peer_uid(&stream) {
            Ok(uid) if uid == me => {}
            _ => {
                let _ = answer(&stream, &error_reply("refused: another user"));
                continue;
            }
        }
        touch(&state);
        let Some(admitted) = Admission::enter(&state) else {
            // The client answers the event itself (it says so on stderr).
            let refusal = serde_json::json!({"refused": format!(
                "it serves {max_connections} connections at once already"
            )});
            let _ = answer_line(&stream, &refusal);
            continue;
        };
        workers.hand(&state, admitted, stream);
    }
    Ok(ExitCode::SUCCESS)
}

/// The user id of the process at the other end of `stream`: `SO_PEERCRED` on Linux,
/// `getpeereid` on macOS and the BSDs (which have no `SO_PEERCRED`).
fn peer_uid(stream: &UnixStream) -> nix::Result<u32> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        nix::sys::socket::getsockopt(stream, nix::sys::socket::sockopt::PeerCredentials)
            .map(|cred| cred.uid())
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        nix::unistd::getpeereid(stream).map(|(uid, _)| uid.as_raw())
    }
}

/// The threads that serve connections, kept between them: a thread's start (its stack
/// mapped, the clone, the unmapping at its end) was a third of the resident process's work
/// per event. A connection goes to a thread that waits for one, or to a new thread when none
/// waits, so there are at most as many threads as connections were served at once (the cap
/// of connections); they end with the process.
struct Workers {
    waiting: Arc<AtomicUsize>,
    send: mpsc::Sender<(Admission, UnixStream)>,
    receive: Arc<Mutex<mpsc::Receiver<(Admission, UnixStream)>>>,
}

impl Workers {
    fn new() -> Workers {
        let (send, receive) = mpsc::channel();
        Workers {
            waiting: Arc::default(),
            send,
            receive: Arc::new(Mutex::new(receive)),
        }
    }

    /// Serves `stream` on a waiting thread, or on a new one.
    fn hand(&self, state: &Arc<State>, admitted: Admission, stream: UnixStream) {
        let mut waiting = self.waiting.load(Ordering::Acquire);
        // Claim a waiting thread: it is in (or entering) `recv`, so it takes this one.
        while waiting > 0 {
            match self.waiting.compare_exchange_weak(
                waiting,
                waiting - 1,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => match self.send.send((admitted, stream)) {
                    Ok(()) => return,
                    // Cannot happen while `self` holds a receiver; served anew.
                    Err(mpsc::SendError((admitted, stream))) => {
                        return self.spawn(state, admitted, stream)
                    }
                },
                Err(now) => waiting = now,
            }
        }
        self.spawn(state, admitted, stream);
    }

    fn spawn(&self, state: &Arc<State>, admitted: Admission, stream: UnixStream) {
        let (state, waiting) = (state.clone(), self.waiting.clone());
        let receive = self.receive.clone();
        std::thread::spawn(move || {
            let mut next = Some((admitted, stream));
            while let Some((admitted, stream)) = next.take() {
                serve_one(&state, stream);
                // The connection no longer counts against the cap once it is answered.
                drop(admitted);
                waiting.fetch_add(1, Ordering::AcqRel);
                next = lock(&receive).recv().ok();
            }
        });
    }
}

/// The longest a resident process whose socket is gone waits for the requests it is
/// serving (a hook's own timeout bounds each; this bounds a client that never sends).
const DRAIN_LIMIT: Duration = Duration::from_secs(600);

/// Ends the process after the idle time, or when its socket was removed or replaced (once
/// the requests it is serving are answered); drops sessions idle for that long.
fn watchdog(state: Arc<State>) {
    std::thread::spawn(move || loop {
        std::thread::sleep(Duration::from_millis(500));
        let gone = std::fs::metadata(&state.socket).ok().map(|m| m.ino()) != Some(state.inode);
        let idle = lock(&state.last_request).elapsed() > state.idle;
        if gone {
            // No new client reaches it; those it serves get their answers.
            let since = Instant::now();
            while state.connections.load(Ordering::Acquire) > 0 && since.elapsed() < DRAIN_LIMIT {
                std::thread::sleep(Duration::from_millis(20));
            }
            std::process::exit(0);
        }
        if idle {
            remove_socket(&state.socket, state.inode);
            std::process::exit(0);
        }
        // Dropped once the map is free again: ending a runner's processes takes a while.
        let mut ended = Vec::new();
        let mut rewire: Vec<(Common, Agent)> = Vec::new();
        lock(&state.sessions).retain(|_, slot| match slot.try_lock() {
            Ok(mut warm) => {
                // Hooks changed: the agent's entries follow them for its next session.
                if let Some(w) = warm.as_mut() {
                    let changed = w.stale.as_ref().is_some_and(|s| s.load(Ordering::Acquire));
                    if changed && !w.wiring.2 {
                        w.wiring.2 = true;
                        rewire.push((w.wiring.0.clone(), w.wiring.1));
                    }
                }
                let keep = warm.as_ref().is_none_or(|w| {
                    w.used.elapsed() < state.idle
                        && w.agent.as_ref().is_none_or(AgentProcess::alive)
                });
                if !keep {
                    ended.extend(warm.take());
                }
                keep
            }
            // In use: an event is being answered, the session is not over.
            Err(_) => true,
        });
        drop(ended);
        rewire.dedup_by(|a, b| a.0.cwd == b.0.cwd && a.1 == b.1);
        for (common, agent) in rewire {
            for line in crate::entries::sync::resync(&common, agent, false) {
                eprintln!("agent-hooks serve: your hooks changed: {line}");
            }
        }
    });
}

/// The signals that end the resident process as its end of idle time does.
fn ending_signals() -> nix::sys::signal::SigSet {
    use nix::sys::signal::{SigSet, Signal};
    let mut set = SigSet::empty();
    for signal in [Signal::SIGTERM, Signal::SIGINT, Signal::SIGHUP] {
        set.add(signal);
    }
    set
}

/// Waits for one of `signals` (blocked in every thread), then ends every session's hooks,
/// removes the socket and ends the process.
fn on_signals(signals: nix::sys::signal::SigSet, state: Arc<State>, socket: PathBuf, inode: u64) {
    std::thread::spawn(move || {
        let signal = signals.wait();
        // No new client connects from now on.
        remove_socket(&socket, inode);
        let slots: Vec<_> = lock(&state.sessions)
            .drain()
            .map(|(_, slot)| slot)
            .collect();
        for slot in slots {
            // A session answering an event right now keeps its lock: its processes end
            // with this process (each is started to die with it).
            if let Ok(mut warm) = slot.try_lock() {
                drop(warm.take());
            }
        }
        if let Ok(signal) = signal {
            eprintln!("agent-hooks serve: {signal} received, ended");
        }
        std::process::exit(0);
    });
}

/// Removes the socket if it is still the one this process bound (a later resident
/// process's socket stays).
fn remove_socket(socket: &std::path::Path, inode: u64) {
    if std::fs::metadata(socket).ok().map(|m| m.ino()) == Some(inode) {
        let _ = std::fs::remove_file(socket);
    }
}

fn error_reply(text: &str) -> Reply {
    Reply {
        code: 1,
        stdout: String::new(),
        stderr: format!("agent-hooks serve: {text}\n"),
    }
}

fn answer(stream: &UnixStream, reply: &Reply) -> std::io::Result<()> {
    answer_line(stream, reply)
}

/// Writes `reply`'s line and closes the connection.
fn answer_line(mut stream: &UnixStream, reply: &impl serde::Serialize) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(reply).map_err(std::io::Error::other)?;
    line.push(b'\n');
    stream.write_all(&line)?;
    stream.shutdown(std::net::Shutdown::Write)?;
    // What a client still sends (a request refused before its end) is read, up to 1 MiB
    // and 1 s, so that closing does not reset the connection before it reads the answer.
    stream.set_read_timeout(Some(Duration::from_secs(1)))?;
    let _ = std::io::copy(&mut stream.take(1 << 20), &mut std::io::sink());
    Ok(())
}

/// How long a request may take to arrive whole once it started (its header and payload).
const REQUEST_TIME: Duration = Duration::from_secs(30);

/// How often a kept-open connection waiting for its client's next request looks whether
/// this process is closing (its socket gone or given to another).
const KEPT_TICK: Duration = Duration::from_millis(500);

/// How many stray UI answer lines (a client's answer to a question given up on, sent as the
/// call was answered) are passed over before a kept-open connection's next request.
const STRAY_LINES: usize = 64;

/// Serves one connection: one request, or, when its client keeps it open
/// ([`Header::keep`]), each request it sends until it closes it, this process closes, or a
/// request goes wrong (answered, then the connection is closed).
fn serve_one(state: &State, stream: UnixStream) {
    let Ok(reader) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(reader);
    let mut first = true;
    loop {
        if !first && !next_request(state, &mut reader) {
            return;
        }
        let _ = stream.set_read_timeout(Some(REQUEST_TIME));
        if !serve_request(state, &stream, &mut reader, first) {
            return;
        }
        first = false;
    }
}

/// Whether this process is closing: its socket removed or replaced, or its lock given way.
fn closing(state: &State) -> bool {
    lock(&state.lock).is_none()
        || std::fs::metadata(&state.socket).ok().map(|m| m.ino()) != Some(state.inode)
}

/// Waits for the next request on a kept-open connection: true when its first bytes are
/// there, false when the client closed it (or it broke) or this process is closing.
fn next_request(state: &State, reader: &mut BufReader<UnixStream>) -> bool {
    if reader.get_ref().set_read_timeout(Some(KEPT_TICK)).is_err() {
        return false;
    }
    loop {
        match reader.fill_buf() {
            Ok(bytes) => return !bytes.is_empty() && !closing(state),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock
                        | std::io::ErrorKind::TimedOut
                        | std::io::ErrorKind::Interrupted
                ) =>
            {
                if closing(state) {
                    return false;
                }
            }
            Err(_) => return false,
        }
    }
}

/// Reads one request's header line (bounded): on a kept-open connection (not `first`),
/// stray UI answer lines before it are passed over.
fn read_header(reader: &mut BufReader<UnixStream>, first: bool) -> Result<Header, String> {
    let mut strays = 0;
    loop {
        let mut line = Vec::new();
        let header = match reader
            .by_ref()
            .take(HEADER_LIMIT as u64)
            .read_until(b'\n', &mut line)
        {
            Ok(_) if line.ends_with(b"\n") => serde_json::from_slice::<Header>(&line)
                .map_err(|e| format!("the request's header is not readable: {e}")),
            Ok(_) => Err(format!(
                "the request's header is not one line of at most {HEADER_LIMIT} bytes"
            )),
            Err(e) => Err(format!("reading the request: {e}")),
        };
        if header.is_err() && !first && strays < STRAY_LINES && ui::is_answer_line(&line) {
            strays += 1;
            continue;
        }
        return header;
    }
}

/// Reads one request (bounded) and answers it; true when the connection is kept for the
/// client's next request.
fn serve_request(
    state: &State,
    stream: &UnixStream,
    reader: &mut BufReader<UnixStream>,
    first: bool,
) -> bool {
    let header = match read_header(reader, first) {
        Ok(h) if h.v == VERSION => h,
        Ok(h) => {
            let _ = answer(
                stream,
                &error_reply(&format!("request version {} (this is {VERSION})", h.v)),
            );
            return false;
        }
        Err(text) => {
            let _ = answer(stream, &error_reply(&text));
            return false;
        }
    };
    touch(state);
    let mut payload = Vec::new();
    // A client that gives its payload's length keeps its side open after it (to answer UI
    // questions, or to send its next request): the payload is that many bytes, not all it
    // writes.
    let read = match header.length {
        Some(length) if length > PAYLOAD_LIMIT as u64 => Err(std::io::Error::other(format!(
            "the payload's length is past {PAYLOAD_LIMIT} bytes"
        ))),
        Some(length) => reader
            .by_ref()
            .take(length)
            .read_to_end(&mut payload)
            .and_then(|read| {
                if read as u64 == length {
                    Ok(read)
                } else {
                    Err(std::io::Error::other(format!(
                        "the connection ended after {read} of the payload's {length} bytes"
                    )))
                }
            }),
        None => reader
            .by_ref()
            .take(PAYLOAD_LIMIT as u64 + 1)
            .read_to_end(&mut payload),
    };
    if header.status {
        let _ = answer(stream, &status_of(state, &header, &payload));
        return false;
    }
    if let Some(theirs) = header.program.as_ref().filter(|v| **v != state.version) {
        give_way(state, theirs);
        let refusal = crate::relay::Refusal {
            refused: format!(
                "this resident process is agent-hooks {}, the client agent-hooks {theirs}: it gave way",
                state.version
            ),
            gave_way: Some(state.version.clone()),
        };
        let _ = answer_line(stream, &refusal);
        return false;
    }
    // Kept only while the request was read whole: what follows a short one is not a request.
    let keep = header.keep && header.length.is_some() && read.is_ok();
    let request = match read {
        Err(e) => Err(RequestError::Read(e.to_string())),
        Ok(_) if payload.len() > PAYLOAD_LIMIT => Err(RequestError::TooLarge {
            limit: PAYLOAD_LIMIT,
        }),
        Ok(_) => Ok(payload),
    };
    // The client's UI, for this call's questions: over the same connection.
    let live = match (header.ui, header.length) {
        (Some(offer), Some(_)) => match ui_channel::Channel::new(stream, offer) {
            Ok(channel) => Some(Arc::new(channel) as Arc<dyn LiveUi>),
            Err(error) => {
                eprintln!("agent-hooks serve: UI: the connection cannot carry questions ({error}); no-UI answers");
                None
            }
        },
        _ => None,
    };
    let reply = reply_for(state, &header, request, live);
    if keep {
        let kept = crate::relay::KeptReply {
            reply: &reply,
            keep: true,
        };
        match serde_json::to_vec(&kept) {
            Ok(mut line) => {
                line.push(b'\n');
                (&*stream).write_all(&line).is_ok()
            }
            Err(_) => {
                let _ = answer(stream, &reply);
                false
            }
        }
    } else {
        let _ = answer(stream, &reply);
        false
    }
}

/// How the session a status request names stands (its figures as `status` shows them), from
/// the sessions this process serves for that user, agent and folder: the one of the
/// payload's `session_id` first, else the one used last. None runs a hook, and a session
/// busy answering an event is passed over rather than waited for. `{"session": false}` when
/// none is served.
fn status_of(state: &State, header: &Header, payload: &[u8]) -> Reply {
    let session_id = serde_json::from_slice::<serde_json::Value>(payload)
        .ok()
        .and_then(|v| v["session_id"].as_str().map(str::to_owned))
        .unwrap_or_default();
    let wanted = serde_json::json!([
        header.home,
        header.xdg_config_home,
        header.cwd,
        header.agent
    ]);
    let slots: Vec<(bool, Arc<Mutex<Option<Warm>>>)> = lock(&state.sessions)
        .iter()
        .filter_map(|(key, slot)| {
            let key: serde_json::Value = serde_json::from_str(key).ok()?;
            let same_place = (0..4).all(|i| key[i] == wanted[i]);
            same_place.then(|| (key[10] == session_id.as_str(), slot.clone()))
        })
        .collect();
    let mut best: Option<((bool, Instant), crate::commands::status::Figures)> = None;
    for (same_session, slot) in slots {
        let Ok(warm) = slot.try_lock() else {
            continue;
        };
        let Some(w) = warm.as_ref() else {
            continue;
        };
        let rank = (same_session, w.used);
        if best.as_ref().is_none_or(|(r, _)| rank > *r) {
            best = Some((rank, crate::commands::status::Figures::of(&w.session)));
        }
    }
    let stdout = match best {
        Some((_, figures)) => serde_json::to_string(&figures).unwrap_or_default(),
        None => serde_json::json!({"session": false}).to_string(),
    };
    Reply {
        code: 0,
        stdout,
        stderr: String::new(),
    }
}

/// Makes way for a resident process of the client's version `theirs`: the socket removed
/// (while it is still this process's), so that no new client reaches this one, and the lock
/// let go, so that the client's own can start at once. The watchdog ends this process once
/// the requests it is serving are answered.
fn give_way(state: &State, theirs: &str) {
    let mut held = lock(&state.lock);
    if held.is_none() {
        return;
    }
    if std::fs::metadata(&state.socket).ok().map(|m| m.ino()) == Some(state.inode) {
        let _ = std::fs::remove_file(&state.socket);
    }
    *held = None;
    eprintln!(
        "agent-hooks serve: a client of agent-hooks {theirs} asked, this is agent-hooks {}: giving way to it",
        state.version
    );
}

/// The reply to one request of `header` (read, version checked) with its payload; the UI
/// calls of its hooks go to `live`, the client's UI, when it has one.
pub fn reply_for(
    state: &State,
    header: &Header,
    request: Result<Vec<u8>, RequestError>,
    live: Option<Arc<dyn LiveUi>>,
) -> Reply {
    match header
        .agent
        .parse::<Agent>()
        .map_err(|e| e.to_string())
        .and_then(|agent| {
            wire::with(header).map(|with| HookArgs {
                agent,
                event: header.event.clone(),
                with,
                no_serve: true,
            })
        }) {
        Ok(args) => {
            let request =
                request.and_then(|b| Request::parse(&b, args.agent, args.event.as_deref()));
            handle(state, header, &args, request, live)
        }
        Err(text) => error_reply(&text),
    }
}

/// The times and sizes of `places`: when they differ, the session must be built again.
fn fingerprint(places: &[PathBuf]) -> Vec<(PathBuf, Option<(SystemTime, u64)>)> {
    places
        .iter()
        .map(|p| {
            let stamp = std::fs::metadata(p)
                .ok()
                .map(|m| (m.modified().unwrap_or(SystemTime::UNIX_EPOCH), m.len()));
            (p.clone(), stamp)
        })
        .collect()
}

/// Where hooks may be found for `header`'s user and project.
fn places(header: &Header, session: &Session) -> Vec<PathBuf> {
    let config = match &header.xdg_config_home {
        Some(xdg) => xdg.join("agent-hooks"),
        None => header.home.join(".config/agent-hooks"),
    };
    let mut places = vec![
        config.join("hooks"),
        config.join(TRUST_STORE_FILE),
        config.join("plugins.toml"),
        header.cwd.join(".agent-hooks/hooks"),
    ];
    for agent in Agent::ALL {
        let profile = agent.profile();
        // What else its profile has watched (its own folder, files it reads).
        for base in [&header.home, &header.cwd] {
            for relative in profile.other_places {
                places.push(base.join(relative));
            }
        }
        // Its hooks files where its profile says they are, so that one made during a
        // session is seen.
        for place in profile.places {
            let base = if place.project {
                &header.cwd
            } else {
                &header.home
            };
            match place.files {
                PlaceFiles::Files(files) => {
                    places.extend(files.iter().map(|(file, _)| base.join(file)));
                }
                PlaceFiles::Folder(folder, _) | PlaceFiles::EventFiles(folder, _, _) => {
                    places.push(base.join(folder))
                }
                PlaceFiles::Scripts(folder) => {
                    places.extend(SCRIPT_FOLDERS.map(|(sub, _)| base.join(folder).join(sub)));
                }
            }
        }
    }
    let f = &session.findings;
    places.extend(f.entries.iter().map(|e| e.path.clone()));
    places.extend(f.untrusted.iter().map(|u| u.entry.path.clone()));
    places.extend(f.shadowed.iter().map(|e| e.path.clone()));
    places.extend(
        f.untrusted
            .iter()
            .flat_map(|u| u.scripts.iter().map(|(p, _)| p.clone())),
    );
    places.sort();
    places.dedup();
    places
}

fn handle(
    state: &State,
    header: &Header,
    args: &HookArgs,
    request: Result<Request, RequestError>,
    live: Option<Arc<dyn LiveUi>>,
) -> Reply {
    let session_id = request
        .as_ref()
        .ok()
        .and_then(|r| r.session_id.clone())
        .unwrap_or_default();
    let key = serde_json::json!([
        header.home,
        header.xdg_config_home,
        header.cwd,
        header.agent,
        header.with,
        header.hooks,
        header.no_discover,
        header.trust_project,
        header.required,
        header.in_process,
        session_id
    ])
    .to_string();
    let slot = lock(&state.sessions)
        .entry(key.clone())
        .or_default()
        .clone();
    let mut warm = lock(&slot);
    let common = wire::common(header);
    let user = Some((header.home.clone(), header.xdg_config_home.clone()));
    let stale = match warm.as_ref() {
        None => true,
        Some(Warm {
            stale: Some(flag), ..
        }) => flag.load(Ordering::Acquire),
        Some(w) => {
            fingerprint(
                &w.fingerprint
                    .iter()
                    .map(|(p, _)| p.clone())
                    .collect::<Vec<_>>(),
            ) != w.fingerprint
        }
    };
    if stale {
        // The old runner (its plugin processes and long-running hooks) ends first.
        *warm = None;
        let session = match hook_session::open_for(&common, args, user) {
            Ok(session) => session,
            Err(error) => {
                return answering::did_not_run(
                    args.agent,
                    &common.required,
                    "agent-hooks serve",
                    &error,
                    crate::decisions::AnsweredBy::Resident,
                )
            }
        };
        let runtime = match crate::runtime::build() {
            Ok(runtime) => runtime,
            Err(error) => {
                return answering::did_not_run(
                    args.agent,
                    &common.required,
                    "agent-hooks serve",
                    &error,
                    crate::decisions::AnsweredBy::Resident,
                )
            }
        };
        let places = places(header, &session);
        let stale = state.watch.session(&places);
        *warm = Some(Warm {
            session,
            runtime,
            fingerprint: fingerprint(&places),
            stale,
            used: Instant::now(),
            agent: None,
            wiring: (common.clone(), args.agent, false),
        });
        // Dropped meanwhile by the watchdog (its agent had ended, or it was idle): it is
        // watched again.
        lock(&state.sessions)
            .entry(key.clone())
            .or_insert_with(|| slot.clone());
    }
    let Some(w) = warm.as_mut() else {
        return error_reply("no session");
    };
    w.used = Instant::now();
    // The agent that sent this event: the session ends with it.
    if header.agent_pid != w.agent.map(|a| a.pid) {
        w.agent = header.agent_pid.and_then(AgentProcess::of);
    }
    // This call's UI calls go to the client's UI (when it has one), and only this call's.
    w.session.recorder.attach(live);
    let reply = match &request {
        Ok(request) => answering::answer_with(
            &w.session,
            &w.runtime,
            args.agent,
            request,
            header.env.as_deref(),
        ),
        Err(error) => answering::unreadable(
            &w.session,
            &common,
            args.agent,
            error,
            crate::decisions::AnsweredBy::Resident,
        ),
    };
    w.session.recorder.attach(None);
    let ended = request.is_ok_and(|r| r.event == "SessionEnd");
    if ended {
        *warm = None;
        drop(warm);
        lock(&state.sessions).remove(&key);
    }
    reply
}
