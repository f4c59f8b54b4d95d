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

use super::{
    protocol::{
        read_frame, write_frame, Answer, CallOutcome, FromPlugin, HostRequest, Registered, Target,
        ToPlugin, PROTOCOL_VERSION,
    },
    spawn, PluginSettings,
};
use crate::{
    host::{CallContext, PluginApi},
    load::{LoadError, SealedCopy},
    runner::{HookError, HookErrorKind, Termination},
    supervisor::{reap, workers::recv_letting_worker_go},
};

/// How many programs one plugin process may have running through `exec` at once; more are
/// refused with an error (each holds a thread and a process group of the agent's).
pub const MAX_EXECS: usize = 8;

/// How much of a plugin process's stderr is kept for reports.
const STDERR_TAIL: usize = 2048;

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
    writer: Mutex<ChildStdin>,
    calls: Mutex<HashMap<u64, mpsc::Sender<Incoming>>>,
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
}

impl Connection {
    fn send(&self, message: &ToPlugin) -> bool {
        let mut writer = self.writer.lock().unwrap_or_else(|p| p.into_inner());
        write_frame(&mut *writer, message).is_ok()
    }

    /// Kills the process's whole group (unless it was reaped already), saying why.
    fn kill(&self, why: &str) {
        let reaped = self.reaped.lock().unwrap_or_else(|p| p.into_inner());
        if !*reaped {
            self.killed_for
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .get_or_insert_with(|| why.to_owned());
            let _ = killpg(self.pid, Signal::SIGKILL);
        }
    }

    fn route(&self, id: u64, incoming: Incoming) {
        let waiting = self
            .calls
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&id)
            .cloned();
        if let Some(waiting) = waiting {
            let _ = waiting.send(incoming);
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

    fn stderr_tail(&self) -> String {
        let tail = self.stderr.lock().unwrap_or_else(|p| p.into_inner());
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

/// One plugin, run in a process of its own.
pub(crate) struct PluginProcess {
    given: String,
    library: std::path::PathBuf,
    /// The sealed copy of the library's checked bytes that every start of the process loads.
    image: Arc<SealedCopy>,
    cwd: std::path::PathBuf,
    program: std::path::PathBuf,
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
        Self {
            given: given.to_owned(),
            library: library.to_path_buf(),
            image,
            cwd: cwd.to_path_buf(),
            program,
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
        self.library
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or(&self.given)
    }

    /// Spawns the process and asks it to load the plugin; [`finish`](Self::finish) waits for
    /// the answer. Split so that many plugins start in parallel.
    pub(crate) fn begin(&self) -> Result<Starting, LoadError> {
        let command = spawn::command(&self.program, &self.cwd);
        let mut child = spawn::spawn(command).map_err(|e| LoadError::PluginHost {
            detail: format!("cannot start {}: {e}", self.program.display()),
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
        let connection = Arc::new(Connection {
            pid,
            writer: Mutex::new(stdin),
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
        });
        keep_stderr(stderr, connection.stderr.clone());
        let reader = connection.clone();
        let api = self.api.clone();
        thread::spawn(move || read_messages(reader, BufReader::new(stdout), api));
        connection.send(&ToPlugin::Load {
            library: self.library.clone(),
            image: Some(self.image.path_for_children()),
            given: self.given.clone(),
            cwd: self.cwd.clone(),
            limits: self.settings.limits,
        });
        Ok(Starting {
            connection,
            control: receiver,
        })
    }

    /// Waits for a started process's answer, within the factory's deadline.
    pub(crate) fn finish(&self, starting: Starting) -> Result<Registered, LoadError> {
        let Starting {
            connection,
            control,
        } = starting;
        let deadline = Instant::now() + self.settings.factory_timeout;
        let mut hello = false;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let incoming = match control.recv_timeout(left) {
                Ok(incoming) => incoming,
                Err(mpsc::RecvTimeoutError::Timeout) if !hello => {
                    connection.kill("it never said hello");
                    return Err(self.not_a_plugin_host(&format!(
                        "it did not answer within {:?}",
                        self.settings.factory_timeout
                    )));
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    connection.kill("its factory ran past its deadline");
                    return Err(LoadError::FactoryTimedOut {
                        after: self.settings.factory_timeout,
                    });
                }
                Err(mpsc::RecvTimeoutError::Disconnected) if !hello => {
                    return Err(self.not_a_plugin_host("it went away"))
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(self.died_loading(&connection, "the plugin process went away"))
                }
            };
            match incoming {
                Incoming::Message(FromPlugin::Hello { protocol, .. }) => {
                    if protocol != PROTOCOL_VERSION {
                        connection.kill("it speaks another protocol");
                        return Err(LoadError::PluginHost {
                            detail: format!(
                                "{} speaks plugin protocol {protocol}, this agent {PROTOCOL_VERSION}: install the agent-hooks command of the agent's version",
                                self.program.display()
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
                    return Err(self.not_a_plugin_host(&format!("it {cause} before it said hello")))
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
    fn not_a_plugin_host(&self, what: &str) -> LoadError {
        LoadError::PluginHost {
            detail: format!(
                "{} is not an agent-hooks plugin host of this version ({what}); point {} or LoadOptions::plugin_host at the agent-hooks command of the agent's version",
                self.program.display(),
                super::PLUGIN_HOST_ENV
            ),
        }
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
        self.state.lock().unwrap_or_else(|p| p.into_inner())
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
        let killed = connection
            .killed_for
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_some();
        if connection.death.get().is_none() && !killed {
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
        let _restarting = self.restart.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(connection) = self.live()? {
            return Ok(connection);
        }
        let started = self.begin().and_then(|starting| self.finish(starting));
        match started {
            Ok(_) => self.live()?.ok_or_else(|| {
                CallFailure::Failed(
                    HookErrorKind::Crashed(Termination::Exit(0)),
                    format!("{} ended as soon as it was restarted", self.name()),
                )
            }),
            Err(error) => {
                let mut state = self.lock();
                let message = format!("{} could not be restarted: {error}", self.name());
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
    pub(crate) fn call(
        &self,
        target: Target,
        payload: &str,
        ctx: &CallContext<'_>,
        timeout: Duration,
        what: &str,
    ) -> Result<Option<String>, CallFailure> {
        let connection = self.running()?;
        let id = self.next_call.fetch_add(1, Ordering::Relaxed);
        let (sender, receiver) = mpsc::channel();
        connection
            .calls
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id, sender);
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
        connection
            .calls
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&id);
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

fn death_termination(connection: &Connection) -> Termination {
    connection
        .termination
        .get()
        .copied()
        .unwrap_or(Termination::Signal(9))
}

/// Keeps the last bytes of the plugin process's stderr.
fn keep_stderr(mut stderr: impl Read + Send + 'static, tail: Arc<Mutex<VecDeque<u8>>>) {
    thread::spawn(move || {
        let mut chunk = [0u8; 4096];
        while let Ok(n) = stderr.read(&mut chunk) {
            if n == 0 {
                break;
            }
            let mut tail = tail.lock().unwrap_or_else(|p| p.into_inner());
            tail.extend(&chunk[..n]);
            let excess = tail.len().saturating_sub(STDERR_TAIL);
            tail.drain(..excess);
        }
    });
}

/// Reads the plugin process's messages until it closes the connection, then reaps it and
/// tells everyone waiting how it ended.
fn read_messages(connection: Arc<Connection>, mut input: impl Read, api: PluginApi) {
    loop {
        match read_frame::<FromPlugin>(&mut input) {
            Ok(FromPlugin::Done { id, result }) => {
                connection.route(id, Incoming::Message(FromPlugin::Done { id, result }))
            }
            Ok(FromPlugin::Request {
                id,
                call: Some(call),
                request,
            }) => connection.route(
                call,
                Incoming::Message(FromPlugin::Request {
                    id,
                    call: Some(call),
                    request,
                }),
            ),
            Ok(FromPlugin::Request {
                id,
                call: None,
                request,
            }) => serve_outside_calls(&connection, &api, id, request),
            Ok(other) => {
                let control = connection
                    .control
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .clone();
                if let Some(control) = control {
                    let _ = control.send(Incoming::Message(other));
                }
            }
            Err(super::protocol::FrameError::Closed) => break,
            Err(error) => {
                connection.kill(&format!("sent a message the agent cannot read ({error})"));
                break;
            }
        }
    }
    let cause = end_of(&connection);
    let _ = connection.death.set(cause.clone());
    connection.ended.notify_waiters();
    let calls: Vec<mpsc::Sender<Incoming>> = connection
        .calls
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .values()
        .cloned()
        .collect();
    for call in calls {
        let _ = call.send(Incoming::Died(cause.clone()));
    }
    if let Some(control) = connection
        .control
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .take()
    {
        let _ = control.send(Incoming::Died(cause));
    }
}

/// Waits for the process to end (killing it if it keeps running without its connection),
/// reaps it, and says how it ended.
fn end_of(connection: &Connection) -> String {
    let ended = || {
        matches!(
            waitid(
                Id::Pid(connection.pid),
                WaitPidFlag::WEXITED | WaitPidFlag::WNOWAIT | WaitPidFlag::WNOHANG
            ),
            Ok(status) if status != nix::sys::wait::WaitStatus::StillAlive
        )
    };
    let grace = Instant::now() + Duration::from_millis(200);
    while !ended() && Instant::now() < grace {
        thread::sleep(Duration::from_millis(2));
    }
    if !ended() {
        connection.kill("it closed its connection but kept running");
    }
    let _ = reap::wait_for_end(connection.pid);
    let reaped = {
        let mut reaped_flag = connection.reaped.lock().unwrap_or_else(|p| p.into_inner());
        let reaped = reap::reap(connection.pid);
        *reaped_flag = true;
        reaped
    };
    let killed_for = connection
        .killed_for
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clone();
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
