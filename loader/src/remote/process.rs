//! The agent's side of one plugin process: start it, call into it with a deadline, serve
//! what it asks, notice its death, restart it, and give up on one that keeps crashing.

use std::{
    collections::{HashMap, VecDeque},
    io::{BufReader, Read},
    process::ChildStdin,
    sync::{
        atomic::{AtomicBool, AtomicU64, Ordering},
        mpsc, Arc, Mutex, OnceLock,
    },
    thread,
    time::{Duration, Instant},
};

use abi_stable::std_types::{RResult, RSlice, RString};
use agent_hooks_abi::{
    ffi::{HostApi, HostContext},
    ExecOptions,
};
use nix::{
    sys::{
        signal::{killpg, Signal},
        wait::{waitid, Id, WaitPidFlag},
    },
    unistd::Pid,
};
use serde_json::Value;

use super::{spawn, PluginSettings};
use crate::protocol::{
    frames::{
        read_frame, write_frame, Answer, CallOutcome, FrameError, FromPlugin, HostRequest,
        Registered, Target, ToPlugin, PROTOCOL_VERSION,
    },
    lines::{self, LINE_PROTOCOL_VERSION},
};
use crate::sync::LockUnpoisoned;
use crate::{
    error::{HookError, HookErrorKind, Termination},
    host::{CallContext, PluginApi},
    load::{LoadError, SealedCopy},
    supervisor::{reap, workers::recv_letting_worker_go},
};

/// How many programs one plugin process may have running through `exec` at once; more are
/// refused with an error (each holds a thread and a process group of the agent's).
pub const MAX_EXECS: usize = 8;

/// How much of a plugin process's stderr is kept for reports.
const STDERR_TAIL: usize = 2048;

/// How much of a long-running hook's stderr is kept between two events (it is logged with
/// the event's report); more is dropped, and the drop is said.
pub const STDERR_LOG: usize = 64 * 1024;

/// How long taking a long-running hook's stderr waits for its reader to catch up.
const STDERR_CATCH_UP: Duration = Duration::from_millis(5);

/// How many messages of one call may wait for the agent to serve them; past that, the
/// agent stops reading the process until it catches up (a flood of requests waits in the
/// process's pipe, not in the agent's memory).
const CALL_QUEUE: usize = 16;

/// How many lines may wait for a long-running hook to read them.
const OUT_QUEUE: usize = 1024;

/// What a plugin process runs, and how it speaks.
pub(crate) enum Launch {
    /// The plugin-host program, serving one plugin library over frames.
    Library {
        /// The library, resolved.
        library: std::path::PathBuf,
        /// The sealed copy of the library's checked bytes that every start of the process
        /// loads.
        image: Arc<SealedCopy>,
        /// The plugin-host program.
        program: std::path::PathBuf,
    },
    /// A long-running hook: a shell command speaking the line protocol ([`lines`]).
    Script {
        /// The command (`sh -c`).
        command: String,
        /// Variables added to its environment.
        env: Vec<(String, String)>,
        /// What its hello registers (runner events, commands) is taken: it was started
        /// with the runner (`"persistent": "startup"`).
        registers: bool,
    },
}

/// A long-running hook's stderr since an event last took it, and whether some was dropped.
type StderrLog = (Vec<u8>, bool);

/// Which framing a connection speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wire {
    Frames,
    Lines,
}

/// A plugin process that crashes this many times within [`CRASH_WINDOW`] is disabled.
pub const CRASH_LIMIT: usize = 3;

/// See [`CRASH_LIMIT`].
pub const CRASH_WINDOW: Duration = Duration::from_secs(60);

/// What a call into a plugin process came to, when it did not return.
#[derive(Debug)]
pub(crate) enum CallFailure {
    /// The plugin is disabled; the call was not made.
    Disabled,
    /// The call failed.
    Failed(HookErrorKind, String),
}

/// What a plugin process is doing, for `list` and hosts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProcessState {
    /// Running, with this process id.
    Running(u32),
    /// Not running; it starts again on the next call. The cause of its last end.
    Stopped(String),
    /// Disabled for the rest of the session after crashing too often; the last cause.
    Disabled(String),
}

enum Incoming {
    Message(FromPlugin),
    Died(String),
}

struct Connection {
    pid: Pid,
    wire: Wire,
    /// Frames are written here, by the thread that sends them.
    writer: Mutex<Option<ChildStdin>>,
    /// Lines go through a bounded queue to a writer thread, so that a hook that stops
    /// reading can never block the agent (past [`OUT_QUEUE`] waiting lines it is stopped).
    queue: Option<mpsc::SyncSender<Vec<u8>>>,
    calls: Mutex<HashMap<u64, mpsc::SyncSender<Incoming>>>,
    control: Mutex<Option<mpsc::Sender<Incoming>>>,
    /// Whether the process was reaped: its group may be signalled only before.
    reaped: Mutex<bool>,
    /// Why the agent killed it, if it did.
    killed_for: Mutex<Option<String>>,
    death: OnceLock<String>,
    /// How the process ended, once it was reaped.
    termination: OnceLock<Termination>,
    /// Woken when the process has ended.
    ended: tokio::sync::Notify,
    /// The death was counted (and reported) once.
    counted: AtomicBool,
    /// Programs running for this process through `exec` (bounded by [`MAX_EXECS`]).
    execs: std::sync::atomic::AtomicUsize,
    stderr: Arc<Mutex<VecDeque<u8>>>,
    /// A long-running hook's stderr since the last event took it, and whether some was
    /// dropped.
    stderr_log: Option<Arc<Mutex<StderrLog>>>,
    /// A second handle on a long-running hook's stderr pipe, to see whether what it wrote
    /// before its answer is still unread.
    stderr_pipe: Option<std::os::fd::OwnedFd>,
}

impl Connection {
    fn send(&self, message: &ToPlugin) -> bool {
        match (self.wire, &self.queue) {
            (Wire::Lines, Some(_)) => lines::encode(message).is_none_or(|line| self.queue(line)),
            _ => {
                let mut writer = self.writer.lock_unpoisoned();
                writer
                    .as_mut()
                    .is_some_and(|writer| write_frame(writer, message).is_ok())
            }
        }
    }

    /// Queues a line for the writer thread; a hook that lets [`OUT_QUEUE`] lines wait is
    /// stopped.
    fn queue(&self, line: Vec<u8>) -> bool {
        let Some(queue) = &self.queue else {
            return false;
        };
        match queue.try_send(line) {
            Ok(()) => true,
            Err(mpsc::TrySendError::Full(_)) => {
                self.kill(&format!(
                    "stopped reading what the agent sends ({OUT_QUEUE} messages waited for it); it was stopped, not trusted"
                ));
                false
            }
            Err(mpsc::TrySendError::Disconnected(_)) => false,
        }
    }

    /// Kills the process's whole group (unless it was reaped already), saying why.
    fn kill(&self, why: &str) {
        let reaped = self.reaped.lock_unpoisoned();
        if !*reaped {
            self.killed_for
                .lock_unpoisoned()
                .get_or_insert_with(|| why.to_owned());
            let _ = killpg(self.pid, Signal::SIGKILL);
        }
    }

    /// Hands `incoming` to call `id`; whether a call of that id is waiting.
    fn route(&self, id: u64, incoming: Incoming) -> bool {
        let waiting = self.calls.lock_unpoisoned().get(&id).cloned();
        match waiting {
            // Blocks while the call's queue is full: the process waits for the agent.
            Some(waiting) => {
                let _ = waiting.send(incoming);
                true
            }
            None => false,
        }
    }

    /// Completes when the process has ended (at once if it has).
    async fn ended(&self) {
        let notified = self.ended.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        if self.death.get().is_some() {
            return;
        }
        notified.await;
    }

    /// Whether the process has exited (or was reaped), even if its reader has not said so
    /// yet: a process that exits between two calls gets no call.
    fn exited(&self) -> bool {
        if *self.reaped.lock_unpoisoned() {
            return true;
        }
        matches!(
            waitid(
                Id::Pid(self.pid),
                WaitPidFlag::WEXITED | WaitPidFlag::WNOWAIT | WaitPidFlag::WNOHANG
            ),
            Ok(status) if status != nix::sys::wait::WaitStatus::StillAlive
        )
    }

    fn stderr_tail(&self) -> String {
        let tail = self.stderr.lock_unpoisoned();
        let bytes: Vec<u8> = tail.iter().copied().collect();
        String::from_utf8_lossy(&bytes).trim().to_owned()
    }
}

struct State {
    connection: Option<Arc<Connection>>,
    disabled: Option<String>,
    last_cause: Option<String>,
    crashes: VecDeque<Instant>,
}

/// One plugin (or long-running hook), run in a process of its own.
pub(crate) struct PluginProcess {
    given: String,
    launch: Launch,
    cwd: std::path::PathBuf,
    settings: PluginSettings,
    /// The hook's host API in the agent: what the plugin sends outside calls goes through it.
    api: PluginApi,
    state: Mutex<State>,
    /// Held while the process is being restarted.
    restart: Mutex<()>,
    next_call: AtomicU64,
}

/// A plugin process being started: spawned, asked to load, not yet answered.
pub(crate) struct Starting {
    connection: Arc<Connection>,
    control: mpsc::Receiver<Incoming>,
    /// When it was started: its deadline counts from here, so that processes started
    /// together and waited for one after the other each get their own timeout, not the
    /// sum of the timeouts of those waited for before them.
    begun: Instant,
}

impl PluginProcess {
    pub(crate) fn new(
        given: &str,
        library: &std::path::Path,
        image: Arc<SealedCopy>,
        cwd: &std::path::Path,
        program: std::path::PathBuf,
        settings: PluginSettings,
        api: PluginApi,
    ) -> Self {
        Self::with_launch(
            given,
            Launch::Library {
                library: library.to_path_buf(),
                image,
                program,
            },
            cwd,
            settings,
            api,
        )
    }

    /// A long-running hook running `command`: started on its first call, supervised like a
    /// plugin process (`settings.factory_timeout` bounds its start and hello).
    pub(crate) fn script(
        command: &str,
        env: Vec<(String, String)>,
        registers: bool,
        cwd: &std::path::Path,
        settings: PluginSettings,
        api: PluginApi,
    ) -> Self {
        Self::with_launch(
            command,
            Launch::Script {
                command: command.to_owned(),
                env,
                registers,
            },
            cwd,
            settings,
            api,
        )
    }

    fn with_launch(
        given: &str,
        launch: Launch,
        cwd: &std::path::Path,
        settings: PluginSettings,
        api: PluginApi,
    ) -> Self {
        Self {
            given: given.to_owned(),
            launch,
            cwd: cwd.to_path_buf(),
            settings,
            api,
            state: Mutex::new(State {
                connection: None,
                disabled: None,
                last_cause: None,
                crashes: VecDeque::new(),
            }),
            restart: Mutex::new(()),
            next_call: AtomicU64::new(1),
        }
    }

    fn name(&self) -> &str {
        match &self.launch {
            Launch::Library { library, .. } => library
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or(&self.given),
            Launch::Script { .. } => &self.given,
        }
    }

    /// What was started, for messages: the plugin-host program or the hook's command.
    fn program(&self) -> String {
        match &self.launch {
            Launch::Library { program, .. } => program.display().to_string(),
            Launch::Script { command, .. } => format!("`{command}`"),
        }
    }

    /// A long-running hook's stderr since the last call to this, and whether some of it was
    /// dropped ([`STDERR_LOG`]); nothing for a plugin process (its stderr goes to reports).
    pub(crate) fn take_stderr(&self) -> (Vec<u8>, bool) {
        let connection = self.lock().connection.clone();
        let Some(connection) = connection else {
            return (Vec::new(), false);
        };
        if let Some(pipe) = &connection.stderr_pipe {
            let _ = wait_until_read(pipe);
        }
        let Some(log) = connection.stderr_log.clone() else {
            return (Vec::new(), false);
        };
        let mut log = log.lock_unpoisoned();
        std::mem::take(&mut *log)
    }

    /// The API the process's requests are served with.
    pub(crate) fn api(&self) -> PluginApi {
        self.api.clone()
    }

    /// Spawns the process and asks it to load the plugin; [`finish`](Self::finish) waits for
    /// the answer. Split so that many plugins start in parallel.
    pub(crate) fn begin(&self) -> Result<Starting, LoadError> {
        let begun = Instant::now();
        let (command, wire) = match &self.launch {
            Launch::Library { program, .. } => (spawn::command(program, &self.cwd), Wire::Frames),
            Launch::Script { command, env, .. } => {
                (spawn::script(command, env, &self.cwd), Wire::Lines)
            }
        };
        let mut child = spawn::spawn(command).map_err(|e| LoadError::PluginHost {
            detail: format!("cannot start {}: {e}", self.program()),
        })?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(LoadError::PluginHost {
                detail: "the plugin process has no pipes".into(),
            });
        };
        let pid = Pid::from_raw(i32::try_from(child.id()).unwrap_or(i32::MAX));
        // Reaped by the reader thread below, never through `child`.
        drop(child);
        let (control, receiver) = mpsc::channel();
        let (stdin, queue) = match wire {
            Wire::Frames => (Some(stdin), None),
            Wire::Lines => (None, Some(write_lines(stdin))),
        };
        let connection = Arc::new(Connection {
            pid,
            wire,
            writer: Mutex::new(stdin),
            queue,
            calls: Mutex::default(),
            control: Mutex::new(Some(control)),
            reaped: Mutex::new(false),
            killed_for: Mutex::new(None),
            death: OnceLock::new(),
            termination: OnceLock::new(),
            ended: tokio::sync::Notify::new(),
            counted: AtomicBool::new(false),
            execs: std::sync::atomic::AtomicUsize::new(0),
            stderr: Arc::default(),
            stderr_log: (wire == Wire::Lines).then(Arc::default),
            stderr_pipe: (wire == Wire::Lines)
                .then(|| std::os::fd::AsFd::as_fd(&stderr).try_clone_to_owned().ok())
                .flatten(),
        });
        let stderr_read = keep_stderr(
            stderr,
            connection.stderr.clone(),
            connection.stderr_log.clone(),
        );
        let reader = connection.clone();
        let api = self.api.clone();
        thread::spawn(move || read_messages(reader, BufReader::new(stdout), api, stderr_read));
        match &self.launch {
            Launch::Library { library, image, .. } => {
                connection.send(&ToPlugin::Load {
                    library: library.clone(),
                    image: Some(image.path_for_children()),
                    given: self.given.clone(),
                    cwd: self.cwd.clone(),
                    limits: self.settings.limits,
                });
            }
            Launch::Script { .. } => {
                connection.queue(lines::host_hello());
            }
        }
        Ok(Starting {
            connection,
            control: receiver,
            begun,
        })
    }

    /// Reports what a long-running hook started on its first event registered in its hello:
    /// the runner's hooks were set before it started, so it is ignored.
    fn ignored_registrations(&self, registered: &Registered) {
        let Launch::Script {
            registers: false, ..
        } = &self.launch
        else {
            return;
        };
        if registered.handlers.is_empty() && registered.commands.is_empty() {
            return;
        }
        self.api.report(HookError::new(
            HookErrorKind::Protocol,
            &self.given,
            "hello",
            "its hello lists runner events or commands, which only a hook started with `\"persistent\": \"startup\"` gets; they are ignored, and it gets the events of its hooks file".to_owned(),
        ));
    }

    /// Waits for a started process's answer, within the factory's deadline counted from its start.
    pub(crate) fn finish(&self, starting: Starting) -> Result<Registered, LoadError> {
        let Starting {
            connection,
            control,
            begun,
        } = starting;
        let deadline = begun + self.settings.factory_timeout;
        let mut hello = false;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let incoming = match control.recv_timeout(left) {
                Ok(incoming) => incoming,
                Err(mpsc::RecvTimeoutError::Timeout) if !hello => {
                    connection.kill("it never said hello");
                    return Err(self.not_a_plugin_host(
                        &connection,
                        &format!(
                            "it did not answer within {:?}",
                            self.settings.factory_timeout
                        ),
                    ));
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    connection.kill("its factory ran past its deadline");
                    return Err(LoadError::FactoryTimedOut {
                        after: self.settings.factory_timeout,
                    });
                }
                Err(mpsc::RecvTimeoutError::Disconnected) if !hello => {
                    return Err(self.not_a_plugin_host(&connection, "it went away"))
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(self.died_loading(&connection, "the plugin process went away"))
                }
            };
            match incoming {
                Incoming::Message(FromPlugin::Hello { protocol, .. }) => {
                    let (expected, what, remedy) = match connection.wire {
                        Wire::Frames => (
                            PROTOCOL_VERSION,
                            "plugin protocol",
                            "install the agent-hooks command of the agent's version",
                        ),
                        Wire::Lines => (
                            LINE_PROTOCOL_VERSION,
                            "long-running hook protocol",
                            "update the hook (or its client library) to this protocol",
                        ),
                    };
                    if protocol != expected {
                        connection.kill("it speaks another protocol");
                        let who = match &self.launch {
                            Launch::Library { program, .. } => program.display().to_string(),
                            Launch::Script { .. } => "it".to_owned(),
                        };
                        return Err(LoadError::PluginHost {
                            detail: format!(
                                "{who} speaks {what} {protocol}, this agent {expected}: {remedy}"
                            ),
                        });
                    }
                    hello = true;
                }
                Incoming::Message(FromPlugin::Loaded(registered)) if hello => {
                    self.lock().connection = Some(connection);
                    return Ok(registered);
                }
                Incoming::Message(FromPlugin::LoadFailed { error }) => {
                    connection.kill("its plugin did not load");
                    return Err(error);
                }
                Incoming::Died(cause) if !hello => {
                    return Err(self.not_a_plugin_host(
                        &connection,
                        &format!("it {cause} before it said hello"),
                    ))
                }
                Incoming::Died(cause) => return Err(self.died_loading(&connection, &cause)),
                Incoming::Message(_) => {
                    connection.kill("it broke the protocol");
                    return Err(LoadError::PluginHost {
                        detail: "the plugin process answered out of order".into(),
                    });
                }
            }
        }
    }

    /// The program that was started does not speak the protocol.
    fn not_a_plugin_host(&self, connection: &Connection, what: &str) -> LoadError {
        let detail = match &self.launch {
            Launch::Library { program, .. } => format!(
                "{} is not an agent-hooks plugin host of this version ({what}); point {} or LoadOptions::plugin_host at the agent-hooks command of the agent's version",
                program.display(),
                super::PLUGIN_HOST_ENV
            ),
            Launch::Script { .. } => format!(
                "it is not a long-running hook ({what}{}); it must write its hello line first (see docs/long-running-hooks.md), or drop `persistent` to run it once per event",
                match connection.stderr_tail() {
                    tail if tail.is_empty() => String::new(),
                    tail => format!("; its last output: {tail}"),
                }
            ),
        };
        LoadError::PluginHost { detail }
    }

    fn died_loading(&self, connection: &Connection, cause: &str) -> LoadError {
        let tail = connection.stderr_tail();
        LoadError::DiedWhileLoading {
            cause: if tail.is_empty() {
                cause.to_owned()
            } else {
                format!("{cause}; its last output: {tail}")
            },
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock_unpoisoned()
    }

    /// How the process is doing.
    pub(crate) fn state(&self) -> ProcessState {
        let state = self.lock();
        if let Some(cause) = &state.disabled {
            return ProcessState::Disabled(cause.clone());
        }
        match &state.connection {
            Some(connection) if connection.death.get().is_none() => {
                ProcessState::Running(connection.pid.as_raw().unsigned_abs())
            }
            Some(connection) => {
                ProcessState::Stopped(connection.death.get().cloned().unwrap_or_default())
            }
            None => ProcessState::Stopped(state.last_cause.clone().unwrap_or_default()),
        }
    }

    /// Counts the death of `connection` once; disables the plugin past the crash budget.
    /// Returns whether it is now disabled.
    fn count_death(&self, state: &mut State, connection: &Connection) -> bool {
        if connection.counted.swap(true, Ordering::AcqRel) {
            return state.disabled.is_some();
        }
        let cause = connection.death.get().cloned().unwrap_or_default();
        state.last_cause = Some(cause.clone());
        let now = Instant::now();
        state.crashes.push_back(now);
        while state
            .crashes
            .front()
            .is_some_and(|t| now.duration_since(*t) > CRASH_WINDOW)
        {
            state.crashes.pop_front();
        }
        if state.crashes.len() >= CRASH_LIMIT && state.disabled.is_none() {
            state.disabled = Some(cause.clone());
            self.api.report(HookError::new(
                HookErrorKind::Crashed(Termination::Exit(0)),
                &self.given,
                "plugin process",
                format!(
                    "{} is disabled for the rest of the session: its process ended {CRASH_LIMIT} times within {}s (last: {cause})",
                    self.name(),
                    CRASH_WINDOW.as_secs()
                ),
            ));
        }
        state.disabled.is_some()
    }

    /// The connection if the process runs; a dead one is counted (and reported, if no call
    /// reported it) and let go.
    fn live(&self) -> Result<Option<Arc<Connection>>, CallFailure> {
        let mut state = self.lock();
        if state.disabled.is_some() {
            return Err(CallFailure::Disabled);
        }
        let Some(connection) = state.connection.clone() else {
            return Ok(None);
        };
        let killed = connection.killed_for.lock_unpoisoned().is_some();
        // A script may exit between events; a plugin host only dies, which its reader
        // reports, so its calls skip the check (a lock and a system call).
        let exited = connection.wire == Wire::Lines && connection.exited();
        if connection.death.get().is_none() && !killed && !exited {
            return Ok(Some(connection));
        }
        // Killed (after a deadline) but not reaped yet: wait for its end, so that the next
        // call goes to a new process, not to one that is dying.
        if connection.death.get().is_none() {
            self.wait_death(&connection);
        }
        let reported = connection.counted.load(Ordering::Acquire);
        state.connection = None;
        if self.count_death(&mut state, &connection) {
            return Err(CallFailure::Disabled);
        }
        if !reported {
            self.api.report(HookError::new(
                HookErrorKind::Crashed(death_termination(&connection)),
                &self.given,
                "plugin process",
                format!(
                    "{} {} between calls; restarting it",
                    self.name(),
                    connection.death.get().cloned().unwrap_or_default()
                ),
            ));
        }
        Ok(None)
    }

    /// The running connection, restarting the process if it died. One thread restarts;
    /// calls that arrive meanwhile wait for it and use the new process.
    fn running(&self) -> Result<Arc<Connection>, CallFailure> {
        if let Some(connection) = self.live()? {
            return Ok(connection);
        }
        let _restarting = self.restart.lock_unpoisoned();
        if let Some(connection) = self.live()? {
            return Ok(connection);
        }
        let started = self.begin().and_then(|starting| self.finish(starting));
        match started {
            Ok(registered) => {
                self.ignored_registrations(&registered);
                self.live()?.ok_or_else(|| {
                    CallFailure::Failed(
                        HookErrorKind::Crashed(Termination::Exit(0)),
                        format!("{} ended as soon as it was restarted", self.name()),
                    )
                })
            }
            Err(error) => {
                let mut state = self.lock();
                let message = match &self.launch {
                    Launch::Script { .. } => format!(
                        "{} could not be started: {}",
                        self.name(),
                        script_failure(&error)
                    ),
                    Launch::Library { .. } => {
                        format!("{} could not be restarted: {error}", self.name())
                    }
                };
                state.last_cause = Some(message.clone());
                state.crashes.push_back(Instant::now());
                if state.crashes.len() >= CRASH_LIMIT {
                    state.disabled = Some(message.clone());
                }
                Err(CallFailure::Failed(
                    HookErrorKind::Crashed(Termination::Exit(1)),
                    message,
                ))
            }
        }
    }

    /// Calls the plugin: waits for its answer up to `timeout` of the plugin's own time
    /// (time the agent spends serving its requests, such as a UI prompt, does not count),
    /// serving its requests with `ctx`. Past the deadline, or when the process dies, the
    /// call is an error and the process is restarted on the next call.
    ///
    /// A long-running hook's result is its answer's `output`, what a native handler,
    /// command or renderer returns.
    pub(crate) fn call(
        &self,
        target: Target,
        payload: &str,
        ctx: &CallContext<'_>,
        timeout: Duration,
        what: &str,
    ) -> Result<Option<String>, CallFailure> {
        let answer = self.call_answer(target, payload, ctx, timeout, what)?;
        Ok(match &self.launch {
            Launch::Library { .. } => answer,
            Launch::Script { .. } => answer
                .and_then(|a| serde_json::from_str::<Value>(&a).ok())
                .and_then(|mut a| a.get_mut("output").map(Value::take))
                .filter(|output| !output.is_null())
                .map(|output| output.to_string()),
        })
    }

    /// [`call`](Self::call), with a long-running hook's whole answer (its `output`,
    /// `block`, and what later versions add) as JSON.
    pub(crate) fn call_answer(
        &self,
        target: Target,
        payload: &str,
        ctx: &CallContext<'_>,
        timeout: Duration,
        what: &str,
    ) -> Result<Option<String>, CallFailure> {
        let connection = self.running()?;
        let id = self.next_call.fetch_add(1, Ordering::Relaxed);
        let (sender, receiver) = mpsc::sync_channel(CALL_QUEUE);
        connection.calls.lock_unpoisoned().insert(id, sender);
        let result = self.exchange(
            &connection,
            id,
            target,
            payload,
            ctx,
            timeout,
            &receiver,
            what,
        );
        connection.calls.lock_unpoisoned().remove(&id);
        if let Err(CallFailure::Failed(HookErrorKind::Crashed(_) | HookErrorKind::TimedOut(_), _)) =
            &result
        {
            // This call reports the death: the next call restarts without another report.
            let mut state = self.lock();
            self.count_death(&mut state, &connection);
        }
        result
    }

    #[allow(clippy::too_many_arguments)]
    fn exchange(
        &self,
        connection: &Connection,
        id: u64,
        target: Target,
        payload: &str,
        ctx: &CallContext<'_>,
        timeout: Duration,
        receiver: &mpsc::Receiver<Incoming>,
        what: &str,
    ) -> Result<Option<String>, CallFailure> {
        let died = |cause: &str| {
            let tail = connection.stderr_tail();
            let mut message = format!("{} {cause} while handling {what}", self.name());
            if !tail.is_empty() {
                message.push_str(&format!("; its last output: {tail}"));
            }
            CallFailure::Failed(
                HookErrorKind::Crashed(death_termination(connection)),
                message,
            )
        };
        if !connection.send(&ToPlugin::Call {
            id,
            target,
            payload: payload.to_owned(),
        }) {
            return Err(died(&self.wait_death(connection)));
        }
        let mut budget = timeout;
        loop {
            let waiting = Instant::now();
            let incoming = match recv_letting_worker_go(receiver, budget) {
                Ok(incoming) => incoming,
                Err(_) => {
                    connection.kill(&format!("was killed after {timeout:?} without an answer"));
                    return Err(CallFailure::Failed(
                        HookErrorKind::TimedOut(timeout),
                        format!(
                            "{} did not answer {what} within {timeout:?}; its process was killed and starts again on the next event",
                            self.name()
                        ),
                    ));
                }
            };
            budget = budget.saturating_sub(waiting.elapsed());
            match incoming {
                Incoming::Message(FromPlugin::Done { result, .. }) => {
                    return match result {
                        CallOutcome::Ok { output } => Ok(output),
                        CallOutcome::Failed { message, panicked } => Err(CallFailure::Failed(
                            if panicked {
                                HookErrorKind::Panicked
                            } else {
                                HookErrorKind::Failed
                            },
                            message,
                        )),
                    }
                }
                Incoming::Message(FromPlugin::Request {
                    id: request,
                    request: asked,
                    ..
                }) => {
                    let answer = crate::host::may_block(|| serve(asked, ctx));
                    connection.send(&ToPlugin::Reply {
                        id: request,
                        result: answer,
                    });
                }
                Incoming::Message(_) => {}
                Incoming::Died(cause) => return Err(died(&cause)),
            }
        }
    }

    fn wait_death(&self, connection: &Connection) -> String {
        let deadline = Instant::now() + Duration::from_secs(2);
        while Instant::now() < deadline {
            if let Some(cause) = connection.death.get() {
                return cause.clone();
            }
            thread::sleep(Duration::from_millis(5));
        }
        "stopped answering".into()
    }
}

impl Drop for PluginProcess {
    /// No plugin process outlives its hook: its whole group is killed.
    fn drop(&mut self) {
        if let Some(connection) = self.lock().connection.take() {
            connection.send(&ToPlugin::Goodbye);
            connection.kill("the agent let it go");
        }
    }
}

/// Why a long-running hook did not start, said without the plugin host's words.
pub(crate) fn script_failure(error: &LoadError) -> String {
    match error {
        LoadError::PluginHost { detail } => detail.clone(),
        other => other.to_string(),
    }
}

fn death_termination(connection: &Connection) -> Termination {
    connection
        .termination
        .get()
        .copied()
        .unwrap_or(Termination::Signal(9))
}

/// Writes a long-running hook's lines from a thread of its own; the thread ends when the
/// connection is gone or the hook's stdin is closed.
fn write_lines(mut stdin: ChildStdin) -> mpsc::SyncSender<Vec<u8>> {
    use std::io::Write;
    let (queue, lines) = mpsc::sync_channel::<Vec<u8>>(OUT_QUEUE);
    thread::spawn(move || {
        for line in lines {
            if stdin.write_all(&line).and_then(|()| stdin.flush()).is_err() {
                break;
            }
        }
    });
    queue
}

/// Keeps the last bytes of the plugin process's stderr, and a long-running hook's stderr
/// until an event takes it (up to [`STDERR_LOG`]).
fn keep_stderr(
    mut stderr: impl Read + Send + 'static,
    tail: Arc<Mutex<VecDeque<u8>>>,
    log: Option<Arc<Mutex<StderrLog>>>,
) -> mpsc::Receiver<()> {
    // Disconnected when the thread ends, at the end of stderr.
    let (read, done) = mpsc::channel::<()>();
    thread::spawn(move || {
        let _read = read;
        let mut chunk = [0u8; 4096];
        while let Ok(n) = stderr.read(&mut chunk) {
            if n == 0 {
                break;
            }
            {
                let mut tail = tail.lock_unpoisoned();
                tail.extend(&chunk[..n]);
                let excess = tail.len().saturating_sub(STDERR_TAIL);
                tail.drain(..excess);
            }
            if let Some(log) = &log {
                let mut log = log.lock_unpoisoned();
                let room = STDERR_LOG.saturating_sub(log.0.len());
                log.0.extend_from_slice(&chunk[..n.min(room)]);
                log.1 |= n > room;
            }
        }
    });
    done
}

/// Waits (a few milliseconds at most) until nothing is left unread in `pipe`: what a hook
/// wrote to stderr before its answer is read by its own thread, which may not have run yet.
fn wait_until_read(pipe: &std::os::fd::OwnedFd) -> nix::Result<()> {
    use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
    use std::os::fd::AsFd;
    let deadline = Instant::now() + STDERR_CATCH_UP;
    loop {
        let mut fds = [PollFd::new(pipe.as_fd(), PollFlags::POLLIN)];
        poll(&mut fds, PollTimeout::ZERO)?;
        let unread = fds[0]
            .revents()
            .is_some_and(|events| events.contains(PollFlags::POLLIN));
        if !unread || Instant::now() >= deadline {
            return Ok(());
        }
        thread::yield_now();
    }
}

/// Reads the plugin process's messages until it closes the connection, then reaps it and
/// tells everyone waiting how it ended. A message the agent cannot read, or an answer for no
/// call, ends the process: what it says next could not be trusted.
fn read_messages(
    connection: Arc<Connection>,
    mut input: impl std::io::BufRead,
    api: PluginApi,
    stderr_read: mpsc::Receiver<()>,
) {
    loop {
        // Read, then understood: a line that is not a message is the hook's fault, said
        // with the start of what it wrote.
        let messages = match connection.wire {
            Wire::Frames => read_frame::<FromPlugin>(&mut input).map(|m| Ok(vec![m])),
            Wire::Lines => lines::read_line(&mut input).map(|line| {
                lines::decode(&line).map_err(|e| format!("wrote {e}: {}", excerpt(&line)))
            }),
        };
        let fault = match messages {
            Ok(Ok(messages)) => messages
                .into_iter()
                .find_map(|message| handle(&connection, &api, message).err()),
            Ok(Err(fault)) => Some(fault),
            Err(FrameError::Closed) => break,
            Err(error) => Some(format!("sent a message the agent cannot read ({error})")),
        };
        if let Some(fault) = fault {
            connection.kill(&format!("{fault}; it was stopped, not trusted"));
            break;
        }
    }
    let cause = end_of(&connection);
    // What it wrote last (often why it ended) is in its report: read it first, for a moment
    // at most (a child of it may hold its stderr open).
    let _ = stderr_read.recv_timeout(Duration::from_millis(100));
    let _ = connection.death.set(cause.clone());
    connection.ended.notify_waiters();
    let calls: Vec<mpsc::SyncSender<Incoming>> = connection
        .calls
        .lock_unpoisoned()
        .values()
        .cloned()
        .collect();
    for call in calls {
        let _ = call.send(Incoming::Died(cause.clone()));
    }
    if let Some(control) = connection.control.lock_unpoisoned().take() {
        let _ = control.send(Incoming::Died(cause));
    }
}

/// Acts on one message; `Err` says why the process must not be trusted any more.
fn handle(
    connection: &Arc<Connection>,
    api: &PluginApi,
    message: FromPlugin,
) -> Result<(), String> {
    match message {
        FromPlugin::Done { id, result } => {
            if !connection.route(id, Incoming::Message(FromPlugin::Done { id, result })) {
                return Err(format!("answered call {id}, which no call was waiting for"));
            }
        }
        FromPlugin::Request {
            id,
            call: Some(call),
            request,
        } => {
            let request = Incoming::Message(FromPlugin::Request {
                id,
                call: Some(call),
                request,
            });
            if !connection.route(call, request) {
                return Err(format!(
                    "sent request {id} for call {call}, which is not running"
                ));
            }
        }
        FromPlugin::Request {
            id,
            call: None,
            request,
        } => serve_outside_calls(connection, api, id, request),
        other => {
            let control = connection.control.lock_unpoisoned().clone();
            if let Some(control) = control {
                let _ = control.send(Incoming::Message(other));
            }
        }
    }
    Ok(())
}

/// The start of a line a hook wrote, for a report.
fn excerpt(line: &[u8]) -> String {
    const SHOWN: usize = 120;
    // Its start only (a line can be 8 MiB): 4 bytes a character at most.
    let line = String::from_utf8_lossy(&line[..line.len().min(4 * SHOWN + 4)]);
    match line.char_indices().nth(SHOWN) {
        Some((end, _)) => format!("{:?}...", &line[..end]),
        None => format!("{line:?}"),
    }
}

/// Waits for the process to end (killing it if it keeps running without its connection),
/// reaps it, and says how it ended.
fn end_of(connection: &Connection) -> String {
    let ended = || connection.exited();
    let grace = Instant::now() + Duration::from_millis(200);
    while !ended() && Instant::now() < grace {
        thread::sleep(Duration::from_millis(2));
    }
    if !ended() {
        connection.kill("it closed its connection but kept running");
    }
    let _ = reap::wait_for_end(connection.pid);
    let reaped = {
        let mut reaped_flag = connection.reaped.lock_unpoisoned();
        let reaped = reap::reap(connection.pid);
        *reaped_flag = true;
        reaped
    };
    let killed_for = connection.killed_for.lock_unpoisoned().clone();
    if let Ok(reaped) = &reaped {
        let _ = connection.termination.set(reaped.termination);
    }
    match (reaped, killed_for) {
        (_, Some(why)) => why,
        (Ok(reaped), None) => {
            let memory = format!("peak memory {} MiB", reaped.peak_rss_kib / 1024);
            match reaped.termination {
                Termination::Signal(n) => {
                    format!(
                        "died with signal {n} ({}; {memory})",
                        Termination::Signal(n)
                    )
                }
                Termination::Exit(status) => format!("exited with status {status} ({memory})"),
            }
        }
        (Err(e), None) => format!("ended (cannot tell how: {e})"),
    }
}

/// Serves what a plugin asks outside any call: messages and entries go to the agent through
/// the hook's host API (with its checks), programs run under the agent's supervisor.
fn serve_outside_calls(
    connection: &Arc<Connection>,
    api: &PluginApi,
    id: u64,
    request: HostRequest,
) {
    match request {
        HostRequest::SendMessage { message, options } => reply(
            connection,
            id,
            api.send_message(message.as_str().into(), options.as_str().into())
                .map(|()| RString::new()),
        ),
        HostRequest::AppendEntry { custom_type, data } => reply(
            connection,
            id,
            api.append_entry(custom_type.as_str().into(), data.as_str().into())
                .map(|()| RString::new()),
        ),
        HostRequest::Exec {
            command,
            args,
            options,
        } => {
            if connection.execs.fetch_add(1, Ordering::AcqRel) >= MAX_EXECS {
                connection.execs.fetch_sub(1, Ordering::AcqRel);
                let refused = format!(
                    "{MAX_EXECS} programs already run for this plugin; wait for one to end"
                );
                return reply(connection, id, abi_stable::std_types::RErr(refused.into()));
            }
            let connection = connection.clone();
            let api = api.clone();
            thread::spawn(move || {
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                let cwd = api.cwd();
                // The program ends with the plugin process that asked for it.
                let ran = serde_json::from_str::<ExecOptions>(&options)
                    .map_err(|e| format!("invalid exec options: {e}"))
                    .and_then(|options| {
                        crate::host::exec_until(&command, &args, &options, cwd, connection.ended())
                            .map_err(|e| e.to_string())
                    });
                api.program_ran(&command, &args, &ran);
                let result = ran
                    .and_then(|output| serde_json::to_string(&output).map_err(|e| e.to_string()));
                let result = match result {
                    Ok(json) => abi_stable::std_types::ROk(RString::from(json)),
                    Err(e) => abi_stable::std_types::RErr(RString::from(e)),
                };
                connection.execs.fetch_sub(1, Ordering::AcqRel);
                reply(&connection, id, result);
            });
        }
        HostRequest::Service { service, request } => reply(
            connection,
            id,
            api.call(service.as_str().into(), request.as_str().into()),
        ),
        other => reply(
            connection,
            id,
            abi_stable::std_types::RErr(
                format!("{} is only available during a call", method_name(&other)).into(),
            ),
        ),
    }
}

fn reply(connection: &Connection, id: u64, result: RResult<RString, RString>) {
    let result = match result.into_result() {
        Ok(value) => Answer::Ok {
            value: Value::String(value.into_string()),
        },
        Err(message) => Answer::Err {
            message: message.into_string(),
        },
    };
    connection.send(&ToPlugin::Reply { id, result });
}

fn method_name(request: &HostRequest) -> String {
    serde_json::to_value(request)
        .ok()
        .and_then(|v| v["method"].as_str().map(str::to_owned))
        .unwrap_or_else(|| "this method".into())
}

/// Serves one request of a call with the call's context.
fn serve(request: HostRequest, ctx: &CallContext<'_>) -> Answer {
    let ok = |value: Value| Answer::Ok { value };
    let text = |value: RString| ok(Value::String(value.into_string()));
    let maybe = |value: abi_stable::std_types::ROption<RString>| {
        ok(value
            .into_option()
            .map_or(Value::Null, |v| Value::String(v.into_string())))
    };
    let action = |result: RResult<RString, RString>| match result.into_result() {
        Ok(value) => text(value),
        Err(message) => Answer::Err {
            message: message.into_string(),
        },
    };
    match request {
        HostRequest::HasUi => ok(ctx.has_ui().into()),
        HostRequest::Cwd => text(HostContext::cwd(ctx)),
        HostRequest::Session => text(ctx.session()),
        HostRequest::Model => text(ctx.model()),
        HostRequest::IsIdle => ok(ctx.is_idle().into()),
        HostRequest::Abort => {
            ctx.abort();
            ok(Value::Null)
        }
        HostRequest::HasQueuedMessages => ok(ctx.has_queued_messages().into()),
        HostRequest::UiSelect { title, options } => {
            let options: Vec<RString> = options.into_iter().map(RString::from).collect();
            maybe(ctx.ui_select(title.as_str().into(), RSlice::from_slice(&options)))
        }
        HostRequest::UiConfirm { title, message } => ok(ctx
            .ui_confirm(title.as_str().into(), message.as_str().into())
            .into()),
        HostRequest::UiInput { title, placeholder } => {
            maybe(ctx.ui_input(title.as_str().into(), placeholder.as_str().into()))
        }
        HostRequest::UiEditor { title, prefill } => {
            maybe(ctx.ui_editor(title.as_str().into(), prefill.as_str().into()))
        }
        HostRequest::UiNotify { message, level } => {
            ctx.ui_notify(message.as_str().into(), level.as_str().into());
            ok(Value::Null)
        }
        HostRequest::UiSetStatus { key, text } => {
            let text = match &text {
                Some(t) => abi_stable::std_types::RSome(t.as_str().into()),
                None => abi_stable::std_types::RNone,
            };
            ctx.ui_set_status(key.as_str().into(), text);
            ok(Value::Null)
        }
        HostRequest::UiCustom { kind, data } => {
            maybe(ctx.ui_custom(kind.as_str().into(), data.as_str().into()))
        }
        HostRequest::UiSetEditorText { text: value } => {
            ctx.ui_set_editor_text(value.as_str().into());
            ok(Value::Null)
        }
        HostRequest::UiGetEditorText => text(ctx.ui_get_editor_text()),
        HostRequest::UiTheme => text(ctx.ui_theme()),
        HostRequest::WaitForIdle => match ctx.wait_for_idle().into_result() {
            Ok(()) => ok(Value::Null),
            Err(message) => Answer::Err {
                message: message.into_string(),
            },
        },
        HostRequest::NewSession { options } => action(ctx.new_session(options.as_str().into())),
        HostRequest::Branch { entry_id } => action(ctx.branch(entry_id.as_str().into())),
        HostRequest::NavigateTree { target_id, options } => {
            action(ctx.navigate_tree(target_id.as_str().into(), options.as_str().into()))
        }
        HostRequest::Service { service, request } => {
            action(ctx.call(service.as_str().into(), request.as_str().into()))
        }
        HostRequest::SendMessage { .. }
        | HostRequest::AppendEntry { .. }
        | HostRequest::Exec { .. } => Answer::Err {
            message: "this request belongs to no call".into(),
        },
        HostRequest::Unsupported => Answer::Err {
            message: "unsupported: this agent does not know the request".into(),
        },
    }
}
