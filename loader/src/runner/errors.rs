//! Errors of hooks at event time, and the listeners that hear of them.

use std::sync::{
    atomic::{AtomicU64, Ordering},
    Arc, RwLock,
};

use agent_hooks_abi::ffi::CallError;

/// A hook failed while handling an event, running a command or rendering a message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("hook {hook_path} {verb} on {event}: {message}", verb = if *.panicked { "panicked" } else { "failed" })]
pub struct HookError {
    /// The hook's path as given (or the name of an in-process hook; for a command hook, the
    /// file it was configured in).
    pub hook_path: String,
    /// The event (`tool_call`, `PreToolUse`), command (`/handoff`) or renderer
    /// (`renderer:todo`).
    pub event: String,
    /// Whether the hook panicked (the panic was caught inside it).
    pub panicked: bool,
    /// What went wrong; for a panic, its message and location.
    pub message: String,
}

impl HookError {
    /// What was wrong with a command hook's run or answer.
    pub(crate) fn command(hook: &crate::command::CommandHook, problems: &[String]) -> Self {
        Self {
            hook_path: hook.source.to_string_lossy().into_owned(),
            event: hook.event_name.clone(),
            panicked: false,
            message: format!("`{}` {}", hook.command, problems.join("; ")),
        }
    }

    pub(crate) fn from_call(hook_path: &str, event: impl Into<String>, error: CallError) -> Self {
        Self {
            hook_path: hook_path.to_owned(),
            event: event.into(),
            panicked: error.panicked,
            message: error.message.into_string(),
        }
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
        self.listeners
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .push((id, listener));
        let listeners = Arc::downgrade(self);
        Subscription {
            unsubscribe: Box::new(move || {
                if let Some(listeners) = listeners.upgrade() {
                    listeners
                        .listeners
                        .write()
                        .unwrap_or_else(|p| p.into_inner())
                        .retain(|(i, _)| *i != id);
                }
            }),
        }
    }

    /// Tells every listener. A listener that panics is skipped; the others still hear.
    pub(crate) fn report(&self, report: &T) {
        let listeners: Vec<Listener<T>> = self
            .listeners
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .map(|(_, l)| l.clone())
            .collect();
        for listener in listeners {
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
