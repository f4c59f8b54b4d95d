//! Errors: what a hook did wrong at event time, and why a hook did not load.
//!
//! [`HookError`] is a hook's failure at an event (its [`HookErrorKind`] and, for a process
//! that ended, its [`Termination`]), given to the [`HookRunner::on_error`](crate::HookRunner::on_error)
//! listeners ([`ErrorSubscription`], [`Subscription`]) or returned by `emit` for a strict event.
//! [`LoadError`] is why a hook path did not load, in process or in a plugin process (it
//! crosses the plugin-process protocol as it is); [`FileError`] why a hook's file could not be
//! read. Inside the crate this is the ground floor: nothing here imports another module but
//! `file`.

mod hook;
mod load;

pub use crate::file::FileError;
pub(crate) use hook::Listeners;
pub use hook::{ErrorSubscription, HookError, HookErrorKind, Subscription, Termination};
pub use load::LoadError;
