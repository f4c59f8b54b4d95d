//! Stops panics inside the plugin, where they can still be caught.
//!
//! Each plugin library carries its own copy of std, so a panic that left the plugin could
//! not be caught by the host: it would abort the agent. Every call into author code goes
//! through [`guarded`], which turns a panic into a [`CallError`].

use std::{
    any::Any,
    cell::{Cell, RefCell},
    panic::{self, AssertUnwindSafe},
    sync::Once,
};

use crate::ffi::CallError;

thread_local! {
    /// How many guarded calls are running on this thread.
    static DEPTH: Cell<usize> = const { Cell::new(0) };
    /// The message and location of the last panic caught on this thread.
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

static INSTALL_HOOK: Once = Once::new();

/// Installs a panic hook that records the panic's location instead of printing it, while a
/// guarded call runs; other panics go to the previous hook.
///
/// Only called in a plugin library: the hook belongs to the plugin's own copy of std.
/// A host that runs in-process hooks keeps its own panic hook.
pub(crate) fn install_plugin_panic_hook() {
    INSTALL_HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if DEPTH.with(Cell::get) > 0 {
                let message = payload_text(info.payload());
                let text = match info.location() {
                    Some(at) => format!("{message} (at {}:{})", at.file(), at.line()),
                    None => message,
                };
                LAST_PANIC.with(|last| *last.borrow_mut() = Some(text));
            } else {
                previous(info);
            }
        }));
    });
}

/// Runs `f`, turning a panic into [`CallError::panic`] and an error into [`CallError::error`].
pub(crate) fn guarded<T>(f: impl FnOnce() -> Result<T, CallError>) -> Result<T, CallError> {
    DEPTH.with(|d| d.set(d.get() + 1));
    let outcome = panic::catch_unwind(AssertUnwindSafe(f));
    DEPTH.with(|d| d.set(d.get() - 1));
    outcome.unwrap_or_else(|payload| {
        let recorded = LAST_PANIC.with(|last| last.borrow_mut().take());
        Err(CallError::panic(
            recorded.unwrap_or_else(|| payload_text(payload.as_ref())),
        ))
    })
}

/// Drops `value`, swallowing a panic from its destructor (there is nobody to report it to).
pub(crate) fn drop_guarded<T>(value: T) {
    let _ = guarded(move || {
        drop(value);
        Ok(())
    });
}

fn payload_text(payload: &(dyn Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "a panic with a non-text payload".to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_an_error_value() {
        let outcome: Result<(), CallError> = guarded(|| panic!("boom {}", 7));
        let error = outcome.unwrap_err();
        assert!(error.panicked);
        assert!(error.message.contains("boom 7"), "{}", error.message);
    }

    #[test]
    fn an_error_passes_through() {
        let outcome: Result<(), CallError> = guarded(|| Err(CallError::error("nope")));
        assert_eq!(outcome, Err(CallError::error("nope")));
    }
}
