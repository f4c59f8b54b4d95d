//! The agent's side of one plugin process: start it, call into it with a deadline, notice
//! its death, restart it, and give up on one that keeps crashing. Its connection and reader
//! are `connection`, what it asks is served by `requests`, its stderr kept by `stderr_log`.

use std::{
    collections::VecDeque,
    future::Future,
    sync::{
        atomic::{AtomicU64, Ordering},
        mpsc, Arc, Mutex,
    },
    task::{Context, Poll, Wake, Waker},
    thread,
    time::{Duration, Instant},
};

use nix::unistd::Pid;
use serde_json::Value;

use super::{
    connection::{death_termination, CallSink, Connection, Incoming, Wire},
    line_out::Refused,
    requests::{may_wait, serve_in_call, serve_outside_calls},
    spawn, PluginSettings,
};
use crate::{
    error::LoadError,
    error::{HookError, HookErrorKind, Termination},
    file::SealedCopy,
    host::{AgentHost, CallContext, PluginApi},
    protocol::{
        frames::{
            Answer, CallOutcome, FromPlugin, HostRequest, Registered, Target, ToPlugin,
            PROTOCOL_VERSION,
        },
        lines::{self, LINE_PROTOCOL_VERSION},
    },
    supervisor::workers::recv_letting_worker_go,
    sync::LockUnpoisoned,
};

/// How many messages of one call may wait for the agent to serve them; past that, the
/// agent stops reading the process until it catches up (a flood of requests waits in the
/// process's pipe, not in the agent's memory).
const CALL_QUEUE: usize = 16;

/// How long a call that is the only one waiting reads its process's answer itself
/// (`Connection::lead`) before it leaves the reading to the reader thread and waits: most
/// answers come within microseconds. The caller's thread blocks (in `poll`, not spinning)
/// for this long at most, as long as a blocking call waits before it lets its tokio worker
/// go (`recv_letting_worker_go`).
const LEAD_WINDOW: Duration = Duration::from_millis(1);

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
        connection.take_stderr_log()
    }

    /// The API the process's requests are served with.
    pub(crate) fn api(&self) -> PluginApi {
        self.api.clone()
    }

    /// Spawns the process and asks it to load the plugin; [`finish`](Self::finish) waits for
    /// the answer. Split so that many plugins start in parallel.
    pub(crate) fn begin(&self) -> Result<Starting, LoadError> {
        let begun = Instant::now();
        let (command, wire, memory) = match &self.launch {
            // A plugin process limits itself (`Limits`, set once it runs).
            Launch::Library { program, .. } => {
                (spawn::command(program, &self.cwd), Wire::Frames, 0)
            }
            Launch::Script { command, env, .. } => (
                spawn::script(command, env, &self.cwd),
                Wire::Lines,
                crate::supervisor::memory::hook_limit(),
            ),
        };
        let spawn::Spawned {
            pid,
            stdin,
            stdout,
            stderr,
        } = spawn::spawn(command, memory).map_err(|e| LoadError::PluginHost {
            detail: format!("cannot start {}: {e}", self.program()),
        })?;
        // Reaped by the reader thread below.
        let pid = Pid::from_raw(pid);
        let (connection, receiver) = Connection::open(
            pid,
            wire,
            stdin,
            stdout,
            stderr,
            self.api.clone(),
            serve_outside_calls,
        );
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
                Incoming::Message(FromPlugin::Hello {
                    protocol,
                    raw_payload,
                    ..
                }) => {
                    connection.raw_payload.store(raw_payload, Ordering::Relaxed);
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
    /// Returns whether it is now disabled. Its cause: how it ended, else why it was killed
    /// (a deadline's kill is counted before the process is reaped), else `otherwise`.
    fn count_death(&self, state: &mut State, connection: &Connection, otherwise: &str) -> bool {
        if connection.counted.swap(true, Ordering::AcqRel) {
            return state.disabled.is_some();
        }
        let cause = connection
            .death
            .get()
            .cloned()
            .or_else(|| connection.killed_for.lock_unpoisoned().clone())
            .unwrap_or_else(|| otherwise.to_owned());
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
        self.live_asking(true)
    }

    /// [`live`](Self::live); `ask_exit`: whether a script that exited but whose end its
    /// reader has not seen yet counts as ended (a system call), or is seen later.
    fn live_asking(&self, ask_exit: bool) -> Result<Option<Arc<Connection>>, CallFailure> {
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
        let exited = ask_exit && connection.wire == Wire::Lines && connection.exited();
        if connection.death.get().is_none() && !killed && !exited {
            return Ok(Some(connection));
        }
        // Killed (after a deadline) but not reaped yet: wait for its end, so that the next
        // call goes to a new process, not to one that is dying.
        let cause = match connection.death.get() {
            Some(cause) => cause.clone(),
            None => self.wait_death(&connection),
        };
        let reported = connection.counted.load(Ordering::Acquire);
        state.connection = None;
        if self.count_death(&mut state, &connection, &cause) {
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
                    connection.death.get().cloned().unwrap_or(cause)
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
        connection
            .calls
            .lock_unpoisoned()
            .insert(id, CallSink::Thread(sender));
        let call = Exchange {
            connection: &connection,
            id,
            what,
            timeout,
        };
        let mut wait = OnThread {
            receiver: &receiver,
            ctx,
        };
        let result = run_here(self.exchange(&call, Message::Call(&target, payload), &mut wait))
            // Only an event's exchange tells an end before its message was read.
            .unwrap_or_else(|| Err(self.died(&call, "stopped answering")));
        connection.calls.lock_unpoisoned().remove(&id);
        if let Some(cause) = ended(&result) {
            // This call reports the death: the next call restarts without another report.
            let mut state = self.lock();
            self.count_death(&mut state, &connection, &cause);
        }
        result
    }

    /// A long-running hook's event when its process runs: [`call_answer`](Self::call_answer)
    /// awaited in the emitting task, so that the event costs no thread hand-off (the line is
    /// written by the sender, the answer wakes the task). `None` when the process is not
    /// running: the caller starts it through `call_answer`, on a thread that may wait.
    ///
    /// Requests that may wait for the user are served on a blocking thread (other hooks of
    /// the emit go on meanwhile); the others (status, notifications) at once. Dropping the
    /// future (a cancelled emit) leaves the event to the hook: its answer is dropped, its
    /// requests refused.
    pub(crate) async fn event_in_task(
        &self,
        event: &LineEvent<'_>,
    ) -> Option<Result<Option<String>, CallFailure>> {
        // A hook that exited between events gets no event. The only hook of its emit is not
        // asked first (a system call on every event): its answer says it runs, and a hook
        // that gives none is asked then, with whether it read the event (`exchange`).
        let connection = match self.live_asking(!event.alone) {
            Ok(Some(connection)) if connection.wire == Wire::Lines => connection,
            Ok(_) => return None,
            Err(failure) => return Some(Err(failure)),
        };
        let id = self.next_call.fetch_add(1, Ordering::Relaxed);
        let (sender, mut receiver) = tokio::sync::mpsc::channel(CALL_QUEUE);
        connection
            .calls
            .lock_unpoisoned()
            .insert(id, CallSink::Task(sender));
        let mut waiting = Waiting {
            connection: &connection,
            id,
            done: false,
        };
        let call = Exchange {
            connection: &connection,
            id,
            what: event.name,
            timeout: event.timeout,
        };
        let mut wait = InTask {
            receiver: &mut receiver,
            agent: event.agent,
            cwd: event.cwd,
            alone: event.alone,
        };
        let result = self
            .exchange(&call, Message::Event(event.name, event.payload), &mut wait)
            .await;
        waiting.done = true;
        drop(waiting);
        let Some(result) = result else {
            // It ended before it read the event: an end between events, said as such; the
            // event goes to its next process, as if it had been asked first.
            return match self.live() {
                Ok(_) => None,
                Err(failure) => Some(Err(failure)),
            };
        };
        if let Some(cause) = ended(&result) {
            let mut state = self.lock();
            self.count_death(&mut state, &connection, &cause);
        }
        Some(result)
    }

    /// The exchange of one call, however it waits: `message` sent, the answer read by the
    /// caller itself for a moment when it may lead (`LEAD_WINDOW`), then waited for, the
    /// call's requests served meanwhile, within the call's deadline (the time its requests
    /// took not counted). Its answer or failure, or `None` when a long-running hook ended
    /// before it read its event (an end between events: the caller restarts it and sends the
    /// event to its next process).
    async fn exchange(
        &self,
        call: &Exchange<'_>,
        message: Message<'_>,
        wait: &mut impl Wait,
    ) -> Option<Result<Option<String>, CallFailure>> {
        let connection = call.connection;
        let event = matches!(message, Message::Event(..));
        let leading = Instant::now();
        let lead = wait.leads().then(|| connection.leader()).flatten();
        if event && wait.leads() && lead.is_none() && connection.exited() {
            // Not led after all: asked first, as any event is.
            return None;
        }
        // Whether the hook ended before it read the event (then it ended between events).
        let unread = |sent: Option<u64>| {
            event
                && connection.exited()
                && sent.is_none_or(|start| connection.read_past(start) == Some(false))
        };
        let sent = match message.send(connection, call.id) {
            Ok(sent) => sent,
            Err(refused) => {
                drop(lead);
                if refused == Refused::Closed && unread(None) {
                    return None;
                }
                let cause = crate::host::may_block(|| self.wait_death(connection));
                return Some(Err(self.died(call, &cause)));
            }
        };
        let mut budget = call.timeout;
        if let Some(lead) = lead {
            let led = connection.lead(
                lead,
                call.id,
                leading + budget.min(LEAD_WINDOW),
                |asked| !may_wait(asked),
                |asked| wait.serve_now(asked),
            );
            if let Some(result) = led {
                return Some(call_result(result));
            }
            if unread(sent) {
                return None;
            }
            budget = budget.saturating_sub(leading.elapsed());
        }
        loop {
            let waiting = Instant::now();
            let Some(incoming) = wait.next(budget).await else {
                let timeout = call.timeout;
                crate::host::may_block(|| {
                    connection.kill(&format!("was killed after {timeout:?} without an answer"))
                });
                return Some(Err(self.timed_out(call.what, timeout)));
            };
            budget = budget.saturating_sub(waiting.elapsed());
            match incoming {
                Incoming::Message(FromPlugin::Done { result, .. }) => {
                    return Some(call_result(result))
                }
                Incoming::Message(FromPlugin::Request {
                    id: request,
                    request: asked,
                    ..
                }) => {
                    let answer = if may_wait(&asked) {
                        wait.serve(asked).await
                    } else {
                        wait.serve_now(asked)
                    };
                    connection.send(&ToPlugin::Reply {
                        id: request,
                        result: answer,
                    });
                }
                Incoming::Message(_) => {}
                Incoming::Died(_) if unread(sent) => return None,
                Incoming::Died(cause) => return Some(Err(self.died(call, &cause))),
            }
        }
    }

    /// The failure of a call whose process ended (`cause`) before it answered, with what the
    /// process last wrote to its stderr.
    fn died(&self, call: &Exchange<'_>, cause: &str) -> CallFailure {
        let tail = call.connection.stderr_tail();
        let mut message = format!("{} {cause} while handling {}", self.name(), call.what);
        if !tail.is_empty() {
            message.push_str(&format!("; its last output: {tail}"));
        }
        CallFailure::Failed(
            HookErrorKind::Crashed(death_termination(call.connection)),
            message,
        )
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

impl PluginProcess {
    /// The failure of a call its process did not answer within `timeout` (it was killed).
    fn timed_out(&self, what: &str, timeout: Duration) -> CallFailure {
        CallFailure::Failed(
            HookErrorKind::TimedOut(timeout),
            format!(
                "{} did not answer {what} within {timeout:?}; its process was killed and starts again on the next event",
                self.name()
            ),
        )
    }
}

/// A long-running hook's event, as [`PluginProcess::event_in_task`] sends it.
pub(crate) struct LineEvent<'a> {
    /// The event's name, also what its failures name.
    pub(crate) name: &'a str,
    /// The event's payload, as the runner serialised it.
    pub(crate) payload: &'a str,
    /// The agent the event's requests are served by.
    pub(crate) agent: &'a Arc<dyn AgentHost>,
    /// The session's folder, for its requests.
    pub(crate) cwd: &'a std::path::Path,
    /// How long the hook may take, its requests' time not counted.
    pub(crate) timeout: Duration,
    /// It is the only hook its emit waits for: it may read its answer itself for a moment
    /// (`LEAD_WINDOW`), blocking this thread (with others, it would hold their futures back).
    pub(crate) alone: bool,
}

/// One call into a plugin process, as its exchange sees it.
struct Exchange<'a> {
    connection: &'a Connection,
    id: u64,
    /// What is called, for messages (an event's name, a command's).
    what: &'a str,
    timeout: Duration,
}

/// What a call sends its process.
enum Message<'a> {
    /// A call of `Target` with its payload: a frame, or a line for a long-running hook
    /// started on this call.
    Call(&'a Target, &'a str),
    /// A long-running hook's event (its name, the runner's payload), written around the
    /// payload as it is: an end of the hook before it read the line is an end between events.
    Event(&'a str, &'a str),
}

impl Message<'_> {
    /// Sends the message as call `id`: for an event, where its line starts in what was sent
    /// to the hook (`Connection::read_past`).
    fn send(&self, connection: &Connection, id: u64) -> Result<Option<u64>, Refused> {
        match *self {
            Message::Call(target, payload) => connection
                .send_call(id, target, payload)
                .then_some(None)
                .ok_or(Refused::Closed),
            Message::Event(event, payload) => connection
                .queue_at(lines::event(id, event, payload))
                .map(Some),
        }
    }
}

/// How a call waits for its process's messages and serves its requests: on the calling
/// thread ([`OnThread`]) or in the emitting task ([`InTask`]).
trait Wait {
    /// Whether the call may read its answer itself for a moment (`Connection::lead`).
    fn leads(&self) -> bool;
    /// Serves a request that does not wait for the user, at once.
    fn serve_now(&self, asked: HostRequest) -> Answer;
    /// Serves a request that may wait for the user, letting the runtime's work go on.
    async fn serve(&self, asked: HostRequest) -> Answer;
    /// The call's next message, or `None` when `budget` passed first.
    async fn next(&mut self, budget: Duration) -> Option<Incoming>;
}

/// A call waited for on the calling thread (which may be a tokio worker: it lets the
/// worker's tasks go while it waits, `recv_letting_worker_go`).
struct OnThread<'a> {
    receiver: &'a mpsc::Receiver<Incoming>,
    ctx: &'a CallContext<'a>,
}

impl Wait for OnThread<'_> {
    fn leads(&self) -> bool {
        true
    }

    fn serve_now(&self, asked: HostRequest) -> Answer {
        serve_in_call(asked, self.ctx)
    }

    async fn serve(&self, asked: HostRequest) -> Answer {
        crate::host::may_block(|| serve_in_call(asked, self.ctx))
    }

    async fn next(&mut self, budget: Duration) -> Option<Incoming> {
        match recv_letting_worker_go(self.receiver, budget) {
            Ok(incoming) => Some(incoming),
            Err(mpsc::RecvTimeoutError::Timeout) => None,
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                Some(Incoming::Died("stopped answering".into()))
            }
        }
    }
}

/// A long-running hook's event awaited in the emitting task.
struct InTask<'a> {
    receiver: &'a mut tokio::sync::mpsc::Receiver<Box<Incoming>>,
    agent: &'a Arc<dyn AgentHost>,
    cwd: &'a std::path::Path,
    alone: bool,
}

impl Wait for InTask<'_> {
    fn leads(&self) -> bool {
        self.alone
    }

    fn serve_now(&self, asked: HostRequest) -> Answer {
        serve_in_call(asked, &CallContext::event(self.agent, self.cwd))
    }

    async fn serve(&self, asked: HostRequest) -> Answer {
        let (agent, cwd) = (self.agent.clone(), self.cwd.to_path_buf());
        tokio::task::spawn_blocking(move || serve_in_call(asked, &CallContext::event(&agent, &cwd)))
            .await
            .unwrap_or_else(|e| Answer::Err {
                message: format!("the agent failed to serve it: {e}"),
            })
    }

    async fn next(&mut self, budget: Duration) -> Option<Incoming> {
        match tokio::time::timeout(budget, self.receiver.recv()).await {
            Ok(Some(incoming)) => Some(*incoming),
            Ok(None) => Some(Incoming::Died("stopped answering".into())),
            Err(_) => None,
        }
    }
}

/// Runs `future` to its end on this thread, parked while it waits for a wake-up. An
/// [`OnThread`] exchange never does (its waits block the thread itself), so it ends at its
/// first poll; the park is there so that a future that does wait is woken, not spun on.
fn run_here<F: Future>(future: F) -> F::Output {
    struct Unpark(thread::Thread);

    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }

    let waker = Waker::from(Arc::new(Unpark(thread::current())));
    let mut context = Context::from_waker(&waker);
    let mut future = std::pin::pin!(future);
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut context) {
            return output;
        }
        thread::park();
    }
}

/// If `result` ended its process (it crashed or was killed at its deadline), what the call
/// saw: the cause to count if neither its end nor its kill is recorded yet.
fn ended(result: &Result<Option<String>, CallFailure>) -> Option<String> {
    match result {
        Err(CallFailure::Failed(
            HookErrorKind::Crashed(_) | HookErrorKind::TimedOut(_),
            message,
        )) => Some(message.clone()),
        _ => None,
    }
}

/// A call's result as its process sent it.
fn call_result(result: CallOutcome) -> Result<Option<String>, CallFailure> {
    match result {
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

impl Drop for PluginProcess {
    /// No plugin process outlives its hook: its whole group is killed.
    fn drop(&mut self) {
        if let Some(connection) = self.lock().connection.take() {
            connection.send(&ToPlugin::Goodbye);
            connection.kill("the agent let it go");
        }
    }
}

/// A call awaited in a task: if the task lets it go before its answer (a cancelled emit),
/// the hook is sent `cancel` for it, and what it still says for it is dropped, not taken for
/// a protocol fault.
struct Waiting<'c> {
    connection: &'c Connection,
    id: u64,
    done: bool,
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        let abandoned = {
            let mut calls = self.connection.calls.lock_unpoisoned();
            if self.done {
                calls.remove(&self.id);
                false
            } else if let Some(call) = calls.get_mut(&self.id) {
                *call = CallSink::Abandoned;
                true
            } else {
                false
            }
        };
        // The hook is told, so that it can stop the event's work (docs/long-running-hooks.md).
        if abandoned {
            self.connection.queue(lines::cancel(self.id));
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
