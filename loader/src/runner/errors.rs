//! Errors of hooks at event time, and the listeners that hear of them.

use std::sync::{
    atomic::{AtomicU64, Ordering},
    Arc, RwLock, Weak,
};

use agent_hooks_abi::ffi::CallError;

/// A hook failed while handling an event, running a command or rendering a message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("hook {hook_path} {verb} on {event}: {message}", verb = if *.panicked { "panicked" } else { "failed" })]
pub struct HookError {
    /// The hook's path as given (or the name of an in-process hook).
    pub hook_path: String,
    /// The event (`tool_call`), command (`/handoff`) or renderer (`renderer:todo`).
    pub event: String,
    /// Whether the hook panicked (the panic was caught inside it).
    pub panicked: bool,
    /// What went wrong; for a panic, its message and location.
    pub message: String,
}

impl HookError {
    pub(crate) fn from_call(hook_path: &str, event: impl Into<String>, error: CallError) -> Self {
        Self {
            hook_path: hook_path.to_owned(),
            event: event.into(),
            panicked: error.panicked,
            message: error.message.into_string(),
        }
    }
}

type Listener = Arc<dyn Fn(&HookError) + Send + Sync>;

/// The error listeners of a runner.
#[derive(Default)]
pub(crate) struct Listeners {
    next_id: AtomicU64,
    listeners: RwLock<Vec<(u64, Listener)>>,
}

impl Listeners {
    pub(crate) fn subscribe(self: &Arc<Self>, listener: Listener) -> ErrorSubscription {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        self.listeners
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .push((id, listener));
        ErrorSubscription {
            id,
            listeners: Arc::downgrade(self),
        }
    }

    /// Tells every listener. A listener that panics is skipped; the others still hear.
    pub(crate) fn report(&self, error: &HookError) {
        let listeners: Vec<Listener> = self
            .listeners
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .map(|(_, l)| l.clone())
            .collect();
        for listener in listeners {
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| listener(error)));
        }
    }
}

/// Returned by [`HookRunner::on_error`](crate::HookRunner::on_error). The listener stays
/// subscribed until [`unsubscribe`](Self::unsubscribe) is called; dropping the handle does
/// not unsubscribe it.
#[derive(Debug)]
pub struct ErrorSubscription {
    id: u64,
    listeners: Weak<Listeners>,
}

impl ErrorSubscription {
    /// Removes the listener.
    pub fn unsubscribe(self) {
        if let Some(listeners) = self.listeners.upgrade() {
            listeners
                .listeners
                .write()
                .unwrap_or_else(|p| p.into_inner())
                .retain(|(id, _)| *id != self.id);
        }
    }
}
