//! Errors of hooks at event time, and the listeners that hear of them.

use std::{
    fmt,
    sync::{
        atomic::{AtomicU64, Ordering},
        Arc, RwLock,
    },
    time::Duration,
};

use crate::sync::RwLockUnpoisoned;

/// A hook failed while handling an event, running a command or rendering a message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("hook {hook_path} {verb} on {event}: {message}", verb = kind.verb())]
pub struct HookError {
    /// The hook's path as given (or the name of an in-process hook; for a command hook, the
    /// file it was configured in).
    pub hook_path: String,
    /// The event (`tool_call`, `PreToolUse`), command (`/handoff`) or renderer
    /// (`renderer:todo`).
    pub event: String,
    /// What kind of failure it was.
    pub kind: HookErrorKind,
    /// What went wrong; for a panic, its message and location.
    pub message: String,
}

/// What kind of failure a [`HookError`] is. More kinds may come: match with a wildcard.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum HookErrorKind {
    /// The hook returned an error (a handler's `Err`, a command hook's exit code other than
    /// 0 and 2, a command that could not start).
    Failed,
    /// The hook panicked; the panic was caught inside it.
    Panicked,
    /// The process running the hook ended abnormally: a signal, or an exit it should not make.
    Crashed(Termination),
    /// The hook did not answer within its deadline, and was stopped.
    TimedOut(Duration),
    /// The hook answered something the host cannot understand: an invalid result, invalid
    /// JSON, a value this host does not know (the hook may be newer than the host).
    Protocol,
    /// A failure of the runner itself, not of the hook (`hook_path` is empty, or names the
    /// hook the runner was about to call).
    Runner,
}

/// How a process ended when it should not have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Termination {
    /// A signal ended it (by number: 11 is SIGSEGV).
    Signal(i32),
    /// It exited by itself, with this status.
    Exit(i32),
}

impl fmt::Display for Termination {
    /// `SIGSEGV`, `signal 77`, `exit status 3`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Termination::Signal(number) => match nix::sys::signal::Signal::try_from(number) {
                Ok(signal) => f.write_str(signal.as_str()),
                Err(_) => write!(f, "signal {number}"),
            },
            Termination::Exit(status) => write!(f, "exit status {status}"),
        }
    }
}

impl HookErrorKind {
    fn verb(&self) -> String {
        match self {
            HookErrorKind::Failed | HookErrorKind::Runner => "failed".into(),
            HookErrorKind::Panicked => "panicked".into(),
            HookErrorKind::Crashed(how) => format!("crashed ({how})"),
            HookErrorKind::TimedOut(after) => format!("timed out after {after:?}"),
            HookErrorKind::Protocol => "answered something the host does not understand".into(),
        }
    }

    /// A short name for machine-readable output: `failed`, `panicked`, `crashed`,
    /// `timed_out`, `protocol`, `runner`.
    pub fn name(&self) -> &'static str {
        match self {
            HookErrorKind::Failed => "failed",
            HookErrorKind::Panicked => "panicked",
            HookErrorKind::Crashed(_) => "crashed",
            HookErrorKind::TimedOut(_) => "timed_out",
            HookErrorKind::Protocol => "protocol",
            HookErrorKind::Runner => "runner",
        }
    }
}

impl HookError {
    /// An error of `kind` in the hook at `hook_path`, on `event`.
    pub fn new(
        kind: HookErrorKind,
        hook_path: impl Into<String>,
        event: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Self {
            hook_path: hook_path.into(),
            event: event.into(),
            kind,
            message: message.into(),
        }
    }

    /// Whether the hook panicked.
    pub fn panicked(&self) -> bool {
        self.kind == HookErrorKind::Panicked
    }
}

type Listener<T> = Arc<dyn Fn(&T) + Send + Sync>;

/// Listeners of one kind of report.
pub(crate) struct Listeners<T> {
    next_id: AtomicU64,
    listeners: RwLock<Vec<(u64, Listener<T>)>>,
}

impl<T> Default for Listeners<T> {
    fn default() -> Self {
        Self {
            next_id: AtomicU64::new(0),
            listeners: RwLock::new(Vec::new()),
        }
    }
}

impl<T: 'static> Listeners<T> {
    pub(crate) fn subscribe(self: &Arc<Self>, listener: Listener<T>) -> Subscription {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        self.listeners.write_unpoisoned().push((id, listener));
        let listeners = Arc::downgrade(self);
        Subscription {
            unsubscribe: Box::new(move || {
                if let Some(listeners) = listeners.upgrade() {
                    listeners
                        .listeners
                        .write_unpoisoned()
                        .retain(|(i, _)| *i != id);
                }
            }),
        }
    }

    /// Tells every listener. A listener that panics is skipped; the others still hear.
    pub(crate) fn report(&self, report: &T) {
        self.report_with(|| report);
    }

    /// [`report`](Self::report), making the report only when someone listens.
    pub(crate) fn report_with<R: std::borrow::Borrow<T>>(&self, make: impl FnOnce() -> R) {
        let listeners: Vec<Listener<T>> = self
            .listeners
            .read_unpoisoned()
            .iter()
            .map(|(_, l)| l.clone())
            .collect();
        if listeners.is_empty() {
            return;
        }
        let report = make();
        for listener in listeners {
            let report = report.borrow();
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| listener(report)));
        }
    }
}

/// Returned by [`HookRunner::on_error`](crate::HookRunner::on_error) and
/// [`HookRunner::on_command_hook`](crate::HookRunner::on_command_hook). The listener stays
/// subscribed until [`unsubscribe`](Self::unsubscribe) is called; dropping the handle does
/// not unsubscribe it.
pub struct Subscription {
    unsubscribe: Box<dyn FnOnce() + Send + Sync>,
}

impl Subscription {
    /// Removes the listener.
    pub fn unsubscribe(self) {
        (self.unsubscribe)()
    }
}

impl std::fmt::Debug for Subscription {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Subscription")
    }
}

/// The handle of an error listener.
pub type ErrorSubscription = Subscription;
