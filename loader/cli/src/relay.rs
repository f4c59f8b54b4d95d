//! The client side of the resident process, with nothing of the rest of the program: what
//! `hook` and `agent-hooks serve` say to each other over the Unix socket, where the socket
//! is, and one request sent (starting the resident process when it is not running). Both
//! `agent-hooks` and the small `agent-hooks-hook` relay program build this file.
//!
//! One request per connection: a header (one JSON line, at most [`HEADER_LIMIT`] bytes),
//! then the agent's payload as it came (at most [`PAYLOAD_LIMIT`]), then the end of the
//! client's writing (or, when the header gives the payload's `length`, that many bytes). The
//! answer is one JSON line ([`Reply`]), at most [`REPLY_LIMIT`] bytes. A client with a UI
//! ([`UiOffer`]) also gets its UI questions before the answer and answers them on the same
//! connection (the resident process's `serve::ui`); this program has none.

use std::{
    io::{BufRead, BufReader, Read, Write},
    os::unix::{
        fs::{MetadataExt, PermissionsExt},
        net::UnixStream,
        process::CommandExt,
    },
    path::{Path, PathBuf},
    process::{Command, ExitCode, Stdio},
    time::{Duration, Instant},
};

use serde::{Deserialize, Serialize};

/// The version of this exchange.
pub const VERSION: u32 = 1;

/// Stands in for the program's version ([`program_version`]) when set: the tests of an
/// upgrade run an "old" and a "new" version of one build with it.
pub const VERSION_OVERRIDE: &str = "AGENT_HOOKS_TEST_PROGRAM_VERSION";

/// The version of this program (`agent-hooks` and its relay are built together, so they
/// share it): a resident process of another version gives way to a client of this one.
pub fn program_version() -> String {
    std::env::var(VERSION_OVERRIDE)
        .ok()
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| env!("CARGO_PKG_VERSION").to_owned())
}

/// The largest header (it carries the agent's environment, which the kernel bounds at a few
/// MiB with the arguments; past this the client runs the hooks itself).
pub const HEADER_LIMIT: usize = 1 << 20;

/// The largest payload read: past it, the event is refused (a tool's input can hold a whole
/// file; 16 MiB is far past what an agent sends).
pub const PAYLOAD_LIMIT: usize = 16 << 20;

/// The largest answer a client reads.
pub const REPLY_LIMIT: usize = 32 << 20;

/// The socket in [`folder`].
pub const SOCKET: &str = "serve.sock";

/// The resident process's log in [`folder`] (also that of `hook` calls that answer by
/// themselves), kept under a size (`capped_log`).
pub const LOG: &str = "serve.log";

/// The lock that makes one resident process per folder.
pub const LOCK: &str = "serve.lock";

/// How long a client waits for a resident process it started to listen.
const START_WAIT: Duration = Duration::from_secs(3);

/// The longest a call may take before the client gives up on the resident process (the
/// agent bounds the whole command anyway; this bounds a process that stopped answering).
const CALL_LIMIT: Duration = Duration::from_secs(600);

/// What the agent gets back: an exit code and the two channels.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reply {
    /// The exit code.
    pub code: u8,
    /// What goes to stdout (JSON for the agent, or nothing).
    pub stdout: String,
    /// What goes to stderr (a block's reason, or errors for the user).
    pub stderr: String,
}

impl Reply {
    /// Writes the reply on this process's channels and returns its exit code.
    pub fn deliver(&self) -> ExitCode {
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(self.stdout.as_bytes());
        let _ = out.flush();
        let mut err = std::io::stderr().lock();
        let _ = err.write_all(self.stderr.as_bytes());
        let _ = err.flush();
        ExitCode::from(self.code)
    }

    /// Adds a line for the user on stderr.
    pub fn note(&mut self, line: &str) {
        self.stderr.push_str(line);
        if !line.ends_with('\n') {
            self.stderr.push('\n');
        }
    }
}

/// The request's header.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Header {
    /// [`VERSION`].
    pub v: u32,
    /// `--agent`.
    pub agent: String,
    /// `--event`.
    pub event: Option<String>,
    /// `--with`.
    pub with: Vec<String>,
    /// The client's `HOME`.
    pub home: PathBuf,
    /// `XDG_CONFIG_HOME`, when set.
    pub xdg_config_home: Option<PathBuf>,
    /// `--cwd`, or the client's working folder.
    pub cwd: PathBuf,
    /// `--hook` paths.
    pub hooks: Vec<String>,
    /// `--no-discover`.
    pub no_discover: bool,
    /// `--trust-project`.
    pub trust_project: bool,
    /// `--require` ids.
    pub required: Vec<String>,
    /// `--in-process`.
    pub in_process: bool,
    /// The environment the agent gave the client (its variables whose name and value are
    /// UTF-8): the hooks of the event get it, as the agent's own hooks would. `None` from a
    /// client that does not send it (an HTTP hook): the hooks get the resident process's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env: Option<Vec<(String, String)>>,
    /// The version of the client's program ([`program_version`]): a resident process of
    /// another version gives way instead of answering. `None` from a client that does not
    /// say (an HTTP hook): any resident process answers it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program: Option<String>,
    /// The agent process that runs the client ([`agent_pid`]): the resident process ends
    /// the session's hooks when it ends. `None` from a client that does not send it (an
    /// older client, an HTTP hook): the session ends at its `SessionEnd` or when idle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_pid: Option<u32>,
    /// A status request, not an event: the resident process says how the session of the
    /// payload (the agent's status line input) stands, and runs no hook.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub status: bool,
    /// The payload's length in bytes. Given, the payload ends there and the client keeps
    /// its side of the connection open (to answer UI questions during the call); `None`,
    /// the payload is all the client writes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub length: Option<u64>,
    /// The client has a UI and answers the resident process's UI questions during the call
    /// (the frames of `serve::ui`); `None`: the hooks get the no-UI answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ui: Option<UiOffer>,
    /// The client keeps the connection for its next requests (it gives the payload's
    /// [`length`](Header::length)): a resident process that does so marks its answer with
    /// `"keep": true` ([`KeptReply`]) and reads the next request on the same connection;
    /// one that does not (an older one) answers and closes, and the client connects anew.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub keep: bool,
}

/// The answer on a connection the resident process keeps open for the client's next
/// request: the [`Reply`] with `"keep": true`.
#[derive(Debug, Clone, Serialize)]
pub struct KeptReply<'a> {
    /// The answer.
    #[serde(flatten)]
    pub reply: &'a Reply,
    /// Always true: the connection stays open.
    pub keep: bool,
}

/// What a client with a UI offers in its [`Header`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct UiOffer {
    /// How long its person has for a question, in milliseconds: past it the question gets
    /// the no-UI answer.
    pub question_ms: u64,
}

/// The agent that runs this process: its parent, or, when the parent is a shell running a
/// command line (`sh -c ...`, as agents run a hook's command), that shell's parent, up the
/// chain. `None` where `/proc` does not tell, or the chain reaches the first process.
pub fn agent_pid() -> Option<u32> {
    let mut pid = std::os::unix::process::parent_id();
    // A few levels: an agent's own wrapper shells, never an unbounded walk.
    for _ in 0..8 {
        if pid <= 1 {
            return None;
        }
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
        if !runs_a_command_line(&cmdline) {
            return Some(pid);
        }
        pid = stat_fields(pid)?.get(1)?.parse().ok()?;
    }
    None
}

/// Whether a process's `/proc/PID/cmdline` is that of a shell given a command line with
/// `-c` (such a shell ends with the command, it is not the agent).
fn runs_a_command_line(cmdline: &[u8]) -> bool {
    let mut args = cmdline
        .split(|b| *b == 0)
        .map(|a| String::from_utf8_lossy(a).into_owned());
    let Some(program) = args.next() else {
        return false;
    };
    let name = program.rsplit('/').next().unwrap_or_default();
    let name = name.trim_start_matches('-');
    if !matches!(
        name,
        "sh" | "bash" | "dash" | "zsh" | "ksh" | "mksh" | "ash" | "fish"
    ) {
        return false;
    }
    args.take_while(|a| a.starts_with('-'))
        .any(|a| !a.starts_with("--") && a.contains('c'))
}

/// The fields of `/proc/PID/stat` after the program's name: the state first, then the
/// parent's pid, and so on (`proc(5)`).
fn stat_fields(pid: u32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, rest) = stat.rsplit_once(')')?;
    Some(rest.split_whitespace().map(str::to_owned).collect())
}

/// When process `pid` started (in clock ticks after boot), which tells it apart from a later
/// process given the same pid; `None` when it is gone or has ended (a zombie).
pub fn process_start(pid: u32) -> Option<u64> {
    let fields = stat_fields(pid)?;
    if matches!(fields.first().map(String::as_str), Some("Z" | "X" | "x")) {
        return None;
    }
    // `starttime` is field 22 of the whole line, the 20th after the name.
    fields.get(19)?.parse().ok()
}

/// This process's environment, as a [`Header`] carries it: the variables whose name and
/// value are UTF-8 (the others cannot be carried in JSON text; a hook run through the
/// resident process does not get them).
pub fn environment() -> Vec<(String, String)> {
    std::env::vars_os()
        .filter_map(|(name, value)| Some((name.into_string().ok()?, value.into_string().ok()?)))
        .collect()
}

/// This process's user: its `HOME` and `XDG_CONFIG_HOME`.
pub fn user() -> Result<(PathBuf, Option<PathBuf>), String> {
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .filter(|h| h.is_absolute())
        .ok_or("HOME is not set")?;
    let xdg = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute());
    Ok((home, xdg))
}

/// A short stable hash (FNV-1a, hex) that names a user's socket folder (and a held session).
pub fn fnv(text: &str) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in text.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{hash:016x}")
}

/// The folder of the socket and its lock: `$XDG_RUNTIME_DIR/agent-hooks/<user>` or
/// `~/.cache/agent-hooks/run/<user>`, where `<user>` stands for the home and configuration
/// folder, so that each sees its own hooks.
pub fn folder(home: &Path, xdg_config: Option<&Path>) -> PathBuf {
    let tag = fnv(&format!(
        "{}\0{}",
        home.display(),
        xdg_config
            .map(|p| p.display().to_string())
            .unwrap_or_default()
    ));
    let base = std::env::var_os("XDG_RUNTIME_DIR")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute() && p.is_dir())
        .map(|p| p.join("agent-hooks"))
        .unwrap_or_else(|| home.join(".cache").join("agent-hooks").join("run"));
    base.join(tag)
}

/// Creates `folder` (and its parents) and makes it the user's alone (0700), refusing one
/// that belongs to someone else.
pub fn make_folder(folder: &Path) -> Result<(), String> {
    std::fs::create_dir_all(folder).map_err(|e| format!("{}: {e}", folder.display()))?;
    let meta = std::fs::metadata(folder).map_err(|e| format!("{}: {e}", folder.display()))?;
    if meta.uid() != nix::unistd::geteuid().as_raw() {
        return Err(format!(
            "{} belongs to another user; remove it",
            folder.display()
        ));
    }
    if meta.mode() & 0o777 != 0o700 {
        std::fs::set_permissions(folder, std::fs::Permissions::from_mode(0o700))
            .map_err(|e| format!("{}: {e}", folder.display()))?;
    }
    Ok(())
}

/// Reads a payload from `input`, at most [`PAYLOAD_LIMIT`] bytes; `Err` past it (see
/// [`crate::bounded::read_at_most`]).
pub fn read_bounded(input: &mut impl Read) -> std::io::Result<Result<Vec<u8>, Vec<u8>>> {
    crate::bounded::read_at_most(input, PAYLOAD_LIMIT as u64)
}

/// How many times a client starts a resident process of its own version in place of one of
/// another version that gave way (more than once only when clients of two versions run at
/// once, each replacing the other's).
const REPLACEMENTS: usize = 3;

/// Sends one event to the resident process of `header`'s user, started with `program`
/// (`agent-hooks`) when nobody listens, and gives its answer. A resident process of another
/// version than `header.program` gives way without running the event's hooks (it removes
/// its socket and lets go of its lock): the event is sent again to a resident process
/// started with `program`, so that it is answered by this version, and answered once.
pub fn ask(header: &Header, payload: &[u8], program: &Path) -> Result<Reply, String> {
    let folder = folder(&header.home, header.xdg_config_home.as_deref());
    let socket = folder.join(SOCKET);
    let mut gave_way = Vec::new();
    while gave_way.len() <= REPLACEMENTS {
        let stream = match UnixStream::connect(&socket) {
            Ok(stream) => stream,
            Err(_) => {
                start(&folder, program)?;
                wait_for(&socket)?
            }
        };
        match exchange(stream, header, payload, CALL_LIMIT)? {
            Answer::Reply(reply) => return Ok(reply),
            Answer::GaveWay(version) => gave_way.push(version),
        }
    }
    Err(format!(
        "resident processes of other versions ({}) kept taking its place",
        gave_way.join(", ")
    ))
}

/// What a resident process answered.
enum Answer {
    /// The event's answer.
    Reply(Reply),
    /// It is of this other version, and gave way without running the event's hooks.
    GaveWay(String),
}

/// Sends one request to the resident process of `header`'s user if it runs (none is
/// started), waiting at most `limit` for its answer.
pub fn ask_running(header: &Header, payload: &[u8], limit: Duration) -> Result<Reply, String> {
    let socket = folder(&header.home, header.xdg_config_home.as_deref()).join(SOCKET);
    let stream = UnixStream::connect(&socket).map_err(|_| "not running".to_owned())?;
    match exchange(stream, header, payload, limit)? {
        Answer::Reply(reply) => Ok(reply),
        Answer::GaveWay(version) => Err(format!("it gave way to agent-hooks {version}")),
    }
}

fn exchange(
    mut stream: UnixStream,
    header: &Header,
    payload: &[u8],
    limit: Duration,
) -> Result<Answer, String> {
    stream
        .set_read_timeout(Some(limit))
        .and_then(|_| stream.set_write_timeout(Some(limit)))
        .map_err(|e| e.to_string())?;
    let mut line = serde_json::to_vec(header).map_err(|e| e.to_string())?;
    line.push(b'\n');
    if line.len() > HEADER_LIMIT {
        return Err(format!(
            "the event's header (with the agent's environment) is larger than {HEADER_LIMIT} bytes"
        ));
    }
    stream
        .write_all(&line)
        .and_then(|_| stream.write_all(payload))
        .and_then(|_| stream.shutdown(std::net::Shutdown::Write))
        .map_err(|e| format!("sending the event: {e}"))?;
    let mut answer = Vec::new();
    BufReader::new(stream.take(REPLY_LIMIT as u64 + 1))
        .read_until(b'\n', &mut answer)
        .map_err(|e| format!("reading the answer: {e}"))?;
    if answer.is_empty() {
        return Err("it closed the connection without an answer".into());
    }
    if answer.len() > REPLY_LIMIT {
        return Err(format!("its answer is larger than {REPLY_LIMIT} bytes"));
    }
    // A resident process at its cap of connections refuses: the caller answers itself. One
    // of another version gives way: the caller starts its own.
    if let Ok(refusal) = serde_json::from_slice::<Refusal>(&answer) {
        return match refusal.gave_way {
            Some(version) => Ok(Answer::GaveWay(version)),
            None => Err(format!("it refused the event: {}", refusal.refused)),
        };
    }
    serde_json::from_slice(&answer)
        .map(Answer::Reply)
        .map_err(|e| format!("its answer is not readable: {e}"))
}

/// What a resident process answers instead of a [`Reply`] when it does not serve the event.
#[derive(Serialize, Deserialize)]
pub struct Refusal {
    /// Why, for a person.
    pub refused: String,
    /// Its own version, when it refused because the client is of another one: it has
    /// removed its socket and let go of its lock, for the client to start its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gave_way: Option<String>,
}

/// Starts `program serve` in a process group of its own (so that the agent ending the
/// hook's group does not end it), its output to a log in `folder`.
fn start(folder: &Path, program: &Path) -> Result<(), String> {
    make_folder(folder)?;
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(folder.join(LOG))
        .map_err(|e| e.to_string())?;
    let mut command = Command::new(program);
    command.arg("serve");
    if let Some(idle) = std::env::var_os("AGENT_HOOKS_SERVE_IDLE") {
        command.arg("--idle").arg(idle);
    }
    command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .process_group(0)
        .spawn()
        .map(drop)
        .map_err(|e| format!("starting it: {e}"))
}

fn wait_for(socket: &Path) -> Result<UnixStream, String> {
    let started = Instant::now();
    loop {
        match UnixStream::connect(socket) {
            Ok(stream) => return Ok(stream),
            Err(e) if started.elapsed() > START_WAIT => {
                return Err(format!(
                    "it did not listen on {} within {START_WAIT:?}: {e}",
                    socket.display()
                ))
            }
            Err(_) => std::thread::sleep(Duration::from_millis(5)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmdline(args: &[&str]) -> Vec<u8> {
        args.iter().flat_map(|a| a.bytes().chain([0])).collect()
    }

    #[test]
    fn a_shell_given_a_command_line_is_not_the_agent() {
        assert!(runs_a_command_line(&cmdline(&[
            "/bin/sh",
            "-c",
            "agent-hooks-hook"
        ])));
        assert!(runs_a_command_line(&cmdline(&["bash", "-lc", "x"])));
        assert!(runs_a_command_line(&cmdline(&[
            "-zsh", "--login", "-c", "x"
        ])));
        assert!(!runs_a_command_line(&cmdline(&["sh", "agent.sh", "-c"])));
        assert!(!runs_a_command_line(&cmdline(&["bash"])));
        assert!(!runs_a_command_line(&cmdline(&["node", "-c", "x"])));
        assert!(!runs_a_command_line(&[]));
    }

    #[test]
    fn a_header_without_the_agents_pid_is_read_as_before() {
        let older = r#"{"v":1,"agent":"NAME","event":null,"with":[],"home":"/h",
            "xdg_config_home":null,"cwd":"/p","hooks":[],"no_discover":false,
            "trust_project":false,"required":[],"in_process":false}"#;
        let header: Header = serde_json::from_str(older).unwrap();
        assert_eq!(header.agent_pid, None);
        let mut newer = serde_json::to_value(&header).unwrap();
        assert!(newer.get("agent_pid").is_none(), "not written when unknown");
        newer["agent_pid"] = serde_json::json!(42);
        let header: Header = serde_json::from_value(newer).unwrap();
        assert_eq!(header.agent_pid, Some(42));
    }

    #[test]
    fn this_process_has_a_start_and_its_agent_is_found() {
        assert!(process_start(std::process::id()).is_some());
        assert!(agent_pid().is_some());
    }
}
