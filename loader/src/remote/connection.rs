//! The connection to one plugin process, and its reader: what the agent sends (frames
//! written in place, or lines queued for a writer thread), and a thread that reads what the
//! process says, routes each answer and request to the call waiting for it, serves what
//! belongs to no call, and at the end of the connection reaps the process and says how it
//! ended. A call that is the only one waiting reads its own answer instead (`lead`), while
//! the thread sleeps.

use std::{
    collections::{HashMap, VecDeque},
    process::{ChildStderr, ChildStdin, ChildStdout},
    sync::{atomic::AtomicBool, mpsc, Arc, Mutex, OnceLock},
    thread,
    time::{Duration, Instant},
};

use nix::{
    sys::signal::{killpg, Signal},
    unistd::Pid,
};

use super::inbound::{Cut, Inbound, Lead, Next, Readers};
use super::line_out::{LineOut, Refused, OUT_QUEUE};
use super::stderr_log::{keep_stderr, wait_until_read, StderrLog};
use crate::{
    error::Termination,
    host::PluginApi,
    protocol::{
        frames::{
            read_frame, write_call, write_frame, Answer, CallOutcome, FrameError, FromPlugin,
            HostRequest, Message, Target, ToPlugin,
        },
        lines,
    },
    supervisor::reap,
    sync::LockUnpoisoned,
};

/// How long the agent waits, once a plugin process ended or was killed, for the programs
/// it ran through `exec` to be killed (each thread that runs one kills its group within
/// moments of being woken).
const EXECS_WIND_DOWN: Duration = Duration::from_secs(1);

/// Serves a request that belongs to no call (`requests::serve_outside_calls`): given to
/// [`Connection::open`] by the process, so that the reader stands below what it serves.
pub(super) type Outside = fn(&Arc<Connection>, &PluginApi, u64, HostRequest);

/// Which framing a connection speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Wire {
    /// The plugin host's length frames.
    Frames,
    /// A long-running hook's JSON lines.
    Lines,
}

pub(super) enum Incoming {
    Message(FromPlugin),
    Died(String),
}

/// Where what belongs to one call goes: the thread that waits for it, or the task that
/// awaits it (a long-running hook's event), or nowhere (its event was cancelled: requests
/// are refused, the answer is dropped).
#[derive(Clone)]
pub(super) enum CallSink {
    Thread(mpsc::SyncSender<Incoming>),
    /// Boxed: a channel's first block holds 32 messages, made with it for every event.
    Task(tokio::sync::mpsc::Sender<Box<Incoming>>),
    Abandoned,
}

impl CallSink {
    /// Tells the call that the process ended.
    fn died(&self, cause: &str) {
        match self {
            CallSink::Thread(call) => {
                let _ = call.send(Incoming::Died(cause.to_owned()));
            }
            CallSink::Task(call) => {
                let _ = call.blocking_send(Box::new(Incoming::Died(cause.to_owned())));
            }
            CallSink::Abandoned => {}
        }
    }
}

pub(super) struct Connection {
    pub(super) pid: Pid,
    pub(super) wire: Wire,
    /// Frames are written here, by the thread that sends them.
    pub(super) writer: Mutex<Option<ChildStdin>>,
    /// Lines are written at once when the pipe has room, else queued for a writer thread,
    /// so that a hook that stops reading can never block the agent (past [`OUT_QUEUE`]
    /// waiting lines it is stopped).
    pub(super) queue: Option<LineOut>,
    /// The calls waiting for their answers, by id.
    pub(super) calls: Mutex<HashMap<u64, CallSink>>,
    /// What the process says: read by the reader thread, or by a call that reads its own
    /// answer ([`lead`](Self::lead)).
    inbound: Inbound,
    pub(super) control: Mutex<Option<mpsc::Sender<Incoming>>>,
    /// Whether the process was reaped: its group may be signalled only before.
    pub(super) reaped: Mutex<bool>,
    /// Sees the process exit at once, before its reader or the keeper says so.
    end: reap::EndWatch,
    /// Why the agent killed it, if it did.
    pub(super) killed_for: Mutex<Option<String>>,
    pub(super) death: OnceLock<String>,
    /// How the process ended, once it was reaped.
    pub(super) termination: OnceLock<Termination>,
    /// Woken when the process has ended.
    pub(super) ended: tokio::sync::Notify,
    /// The death was counted (and reported) once.
    pub(super) counted: AtomicBool,
    /// Programs running for this process through `exec` (bounded by [`MAX_EXECS`]).
    pub(super) execs: std::sync::atomic::AtomicUsize,
    /// The agent killed the process: its `exec` programs are to be killed now.
    pub(super) stopping: AtomicBool,
    /// Its hello said it reads a call's payload after the frame's JSON, as it is.
    pub(super) raw_payload: AtomicBool,
    pub(super) stderr: Arc<Mutex<VecDeque<u8>>>,
    /// A long-running hook's stderr since the last event took it, and whether some was
    /// dropped.
    pub(super) stderr_log: Option<Arc<Mutex<StderrLog>>>,
    /// A second handle on a long-running hook's stderr pipe, to see whether what it wrote
    /// before its answer is still unread.
    pub(super) stderr_pipe: Option<std::os::fd::OwnedFd>,
    /// Up while the stderr thread keeps what it read from the pipe.
    stderr_busy: Arc<AtomicBool>,
}

impl Connection {
    pub(super) fn send(&self, message: &ToPlugin) -> bool {
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

    /// Sends call `id` (as [`send`](Self::send) sends [`ToPlugin::Call`]), its payload
    /// after the frame's JSON when the plugin process reads it so: neither copied nor
    /// escaped first.
    pub(super) fn send_call(&self, id: u64, target: &Target, payload: &str) -> bool {
        if self.wire == Wire::Lines {
            return self.send(&ToPlugin::Call {
                id,
                target: target.clone(),
                payload: payload.to_owned(),
            });
        }
        let raw = self.raw_payload.load(std::sync::atomic::Ordering::Relaxed);
        let mut writer = self.writer.lock_unpoisoned();
        writer
            .as_mut()
            .is_some_and(|writer| write_call(writer, id, target, payload, raw).is_ok())
    }

    /// Queues a line for the writer thread; a hook that lets [`OUT_QUEUE`] lines wait is
    /// stopped.
    pub(super) fn queue(&self, line: Vec<u8>) -> bool {
        self.queue_at(line).is_ok()
    }

    /// [`queue`](Self::queue), saying where the line starts in all that was sent to the
    /// hook ([`read_past`](Self::read_past)), or why it was not sent.
    pub(super) fn queue_at(&self, line: Vec<u8>) -> Result<u64, Refused> {
        let Some(queue) = &self.queue else {
            return Err(Refused::Closed);
        };
        let sent = queue.send(line);
        if sent == Err(Refused::Full) {
            self.kill(&format!(
                "stopped reading what the agent sends ({OUT_QUEUE} messages waited for it); {STOPPED}"
            ));
        }
        sent
    }

    /// Whether a long-running hook read past `start` of what was sent to it (`None`: it
    /// cannot be told): a hook that ended before it read an event ended between events.
    pub(super) fn read_past(&self, start: u64) -> Option<bool> {
        self.queue.as_ref()?.read_past(start)
    }

    /// Kills the process's whole group (unless it was reaped already), saying why, and the
    /// programs it runs through `exec` (each in a group of its own): those are killed before
    /// this returns (within [`EXECS_WIND_DOWN`]), so that none outlives an agent that goes
    /// on, or exits, right after.
    pub(super) fn kill(&self, why: &str) {
        {
            let reaped = self.reaped.lock_unpoisoned();
            if !*reaped {
                self.killed_for
                    .lock_unpoisoned()
                    .get_or_insert_with(|| why.to_owned());
                let _ = killpg(self.pid, Signal::SIGKILL);
            }
        }
        // The `exec` threads wait on `ended`: wake them now, not when the reader has seen
        // the end (which waits a moment for stderr), and wait for them to have killed their
        // programs' groups.
        self.stopping
            .store(true, std::sync::atomic::Ordering::Release);
        self.ended.notify_waiters();
        self.wait_for_execs();
    }

    /// Waits (up to [`EXECS_WIND_DOWN`]) for the `exec` threads, woken by `ended`, to have
    /// killed their programs' groups.
    fn wait_for_execs(&self) {
        let deadline = std::time::Instant::now() + EXECS_WIND_DOWN;
        while self.execs.load(std::sync::atomic::Ordering::Acquire) > 0
            && std::time::Instant::now() < deadline
        {
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// Hands `incoming` to call `id`; whether a call of that id is waiting.
    pub(super) fn route(&self, id: u64, incoming: Incoming) -> bool {
        let waiting = self.calls.lock_unpoisoned().get(&id).cloned();
        match waiting {
            // Blocks while the call's queue is full: the process waits for the agent.
            Some(CallSink::Thread(waiting)) => {
                let _ = waiting.send(incoming);
                true
            }
            Some(CallSink::Task(waiting)) => {
                let _ = waiting.blocking_send(Box::new(incoming));
                true
            }
            Some(CallSink::Abandoned) => {
                match incoming {
                    Incoming::Message(FromPlugin::Request { id: request, .. }) => {
                        self.send(&ToPlugin::Reply {
                            id: request,
                            result: crate::protocol::frames::Answer::Err {
                                message: "the event this request belongs to was cancelled".into(),
                            },
                        });
                    }
                    Incoming::Message(FromPlugin::Done { .. }) | Incoming::Died(_) => {
                        self.calls.lock_unpoisoned().remove(&id);
                    }
                    Incoming::Message(_) => {}
                }
                true
            }
            None => false,
        }
    }

    /// The process's output, for a call that will read its own answer
    /// ([`lead`](Self::lead)): taken before the call is sent, when it is the only call
    /// waiting and the reader thread is not reading (see `inbound`); the reader thread is
    /// then not woken by the answer.
    pub(super) fn leader(&self) -> Option<Lead<'_>> {
        let only = self.calls.lock_unpoisoned().len() == 1;
        self.inbound.lead(only)
    }

    /// Reads call `id`'s answer with `lead`, until `until` at most: no thread hand-off between
    /// the answer and its caller. Requests of the call that `serves_now` accepts are served
    /// on the way with `serve`. `None` when something came that is not its own (a message
    /// for another call or for none, a line it cannot read, the end) or nothing within the
    /// window: what it did not read is left to the reader thread, which routes it by the
    /// usual rules, and the call waits for its answer as before.
    pub(super) fn lead(
        &self,
        mut lead: Lead<'_>,
        id: u64,
        until: Instant,
        serves_now: impl Fn(&HostRequest) -> bool,
        mut serve: impl FnMut(HostRequest) -> Answer,
    ) -> Option<CallOutcome> {
        let cut = match self.wire {
            Wire::Frames => Cut::Frame,
            Wire::Lines => Cut::Line,
        };
        loop {
            let (message, taken) = match lead.next(cut, until) {
                Next::Message(bytes, taken) => (self.own(bytes, id, &serves_now)?, taken),
                Next::Later | Next::HandBack => return None,
            };
            lead.consume(taken);
            match message {
                FromPlugin::Done { result, .. } => return Some(result),
                FromPlugin::Request {
                    id: request,
                    request: asked,
                    ..
                } => {
                    let answer = serve(asked);
                    self.send(&ToPlugin::Reply {
                        id: request,
                        result: answer,
                    });
                }
                _ => return None,
            }
        }
    }

    /// The message in `bytes` if it is call `id`'s answer, or a request of it that
    /// `serves_now` accepts.
    fn own(
        &self,
        bytes: &[u8],
        id: u64,
        serves_now: impl Fn(&HostRequest) -> bool,
    ) -> Option<FromPlugin> {
        let message = match self.wire {
            Wire::Frames => FromPlugin::decode(bytes).ok()?,
            Wire::Lines => {
                let mut messages = lines::decode(bytes).ok()?;
                if messages.len() != 1 {
                    return None;
                }
                messages.pop()?
            }
        };
        let own = match &message {
            FromPlugin::Done { id: done, .. } => *done == id,
            FromPlugin::Request {
                call: Some(call),
                request,
                ..
            } => *call == id && serves_now(request),
            _ => false,
        };
        own.then_some(message)
    }

    /// Completes when the process has ended or the agent killed it (at once if it has).
    pub(super) async fn ended(&self) {
        let notified = self.ended.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        if self.death.get().is_some() || self.stopping.load(std::sync::atomic::Ordering::Acquire) {
            return;
        }
        notified.await;
    }

    /// Whether the process has exited (or was reaped), even if its reader has not said so
    /// yet: a process that exits between two calls gets no call.
    pub(super) fn exited(&self) -> bool {
        if *self.reaped.lock_unpoisoned() {
            return true;
        }
        self.end.has_ended()
    }

    pub(super) fn stderr_tail(&self) -> String {
        let tail = self.stderr.lock_unpoisoned();
        let bytes: Vec<u8> = tail.iter().copied().collect();
        String::from_utf8_lossy(&bytes).trim().to_owned()
    }

    /// Connects to the process `pid` just spawned over its pipes: a reader thread reads
    /// what it says (serving its outside calls with `outside` and `api`) until it ends, then reaps it;
    /// another keeps its stderr. Messages that belong to no call go to the receiver.
    pub(super) fn open(
        pid: Pid,
        wire: Wire,
        stdin: ChildStdin,
        stdout: ChildStdout,
        stderr: ChildStderr,
        api: PluginApi,
        outside: Outside,
    ) -> (Arc<Self>, mpsc::Receiver<Incoming>) {
        let (control, receiver) = mpsc::channel();
        let (stdin, queue) = match wire {
            Wire::Frames => (Some(stdin), None),
            Wire::Lines => (None, Some(LineOut::new(stdin))),
        };
        let stderr_pipe = (wire == Wire::Lines)
            .then(|| std::os::fd::AsFd::as_fd(&stderr).try_clone_to_owned().ok())
            .flatten();
        let tail: Arc<Mutex<VecDeque<u8>>> = Arc::default();
        let log = (wire == Wire::Lines).then(Arc::default);
        let (stderr_read, stderr_busy) = keep_stderr(stderr, tail.clone(), log.clone());
        let connection = Arc::new(Connection {
            pid,
            wire,
            writer: Mutex::new(stdin),
            queue,
            calls: Mutex::default(),
            // Only the agent holds this end of the pipe: it may be non-blocking.
            inbound: Inbound::new(stdout, Readers::ThreadAndLeaders),
            control: Mutex::new(Some(control)),
            reaped: Mutex::new(false),
            end: reap::EndWatch::new(pid),
            killed_for: Mutex::new(None),
            death: OnceLock::new(),
            termination: OnceLock::new(),
            ended: tokio::sync::Notify::new(),
            counted: AtomicBool::new(false),
            execs: std::sync::atomic::AtomicUsize::new(0),
            stopping: AtomicBool::new(false),
            raw_payload: AtomicBool::new(false),
            stderr: tail,
            stderr_log: log,
            stderr_pipe,
            stderr_busy,
        });
        let reader = connection.clone();
        thread::spawn(move || read_messages(reader, api, outside, stderr_read));
        (connection, receiver)
    }

    /// A long-running hook's stderr since the last call to this, and whether some of it was
    /// dropped; nothing for a plugin process.
    pub(super) fn take_stderr_log(&self) -> (Vec<u8>, bool) {
        if let Some(pipe) = &self.stderr_pipe {
            let _ = wait_until_read(pipe, &self.stderr_busy);
        }
        let Some(log) = self.stderr_log.clone() else {
            return (Vec::new(), false);
        };
        let mut log = log.lock_unpoisoned();
        std::mem::take(&mut *log)
    }
}

pub(super) fn death_termination(connection: &Connection) -> Termination {
    connection
        .termination
        .get()
        .copied()
        .unwrap_or(Termination::Signal(9))
}

/// What the agent did about a process that broke the protocol: what it sends next cannot
/// be matched to the calls it answers, so it is ended (and started again for the next call).
const STOPPED: &str =
    "a protocol error, so it was stopped (what it sends next could not be matched to calls)";

/// [`STOPPED`] for a line that is no protocol message, with what to do about it.
const NOT_PROTOCOL: &str = "a protocol error, so it was stopped: everything a long-running hook prints on stdout must be a protocol message (one JSON object per line); print debugging output on stderr instead";

/// Reads the plugin process's messages until it closes the connection, then reaps it and
/// tells everyone waiting how it ended. A message the agent cannot read, or an answer for no
/// call, ends the process: what it says next could not be trusted.
fn read_messages(
    connection: Arc<Connection>,
    api: PluginApi,
    outside: Outside,
    stderr_read: mpsc::Receiver<()>,
) {
    // Its turn comes when the process wrote and no call reads its own answer; it reads on
    // while what it read holds more.
    'reading: loop {
        let mut input = connection.inbound.turn();
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
                    .find_map(|message| handle(&connection, &api, outside, message).err())
                    .map(|fault| format!("{fault}; {STOPPED}")),
                // A long-running hook's stdout is the protocol: a line of anything else (a
                // debugging print) is the usual way to get here.
                Ok(Err(fault)) => Some(format!("{fault}; {NOT_PROTOCOL}")),
                Err(FrameError::Closed) => break 'reading,
                Err(error) => Some(format!(
                    "sent a message the agent cannot read ({error}); {STOPPED}"
                )),
            };
            if let Some(fault) = fault {
                connection.kill(&fault);
                break 'reading;
            }
            if input.buffered().is_empty() {
                connection.inbound.give_back(input);
                continue 'reading;
            }
        }
    }
    let cause = end_of(&connection);
    // What it wrote last (often why it ended) is in its report: read it first, for a moment
    // at most (a child of it may hold its stderr open).
    let _ = stderr_read.recv_timeout(Duration::from_millis(100));
    let _ = connection.death.set(cause.clone());
    if let Some(queue) = &connection.queue {
        queue.let_go();
    }
    connection.ended.notify_waiters();
    // Its `exec` programs end before its calls hear of its death, so that none outlives an
    // agent that exits right after.
    connection.wait_for_execs();
    let calls: Vec<CallSink> = connection
        .calls
        .lock_unpoisoned()
        .values()
        .cloned()
        .collect();
    for call in calls {
        call.died(&cause);
    }
    if let Some(control) = connection.control.lock_unpoisoned().take() {
        let _ = control.send(Incoming::Died(cause));
    }
}

/// Acts on one message; `Err` says why the process must not be trusted any more.
fn handle(
    connection: &Arc<Connection>,
    api: &PluginApi,
    outside: Outside,
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
        } => outside(connection, api, id, request),
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
            let memory =
                crate::supervisor::memory::describe(connection.pid.as_raw(), reaped.peak_rss_kib);
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
