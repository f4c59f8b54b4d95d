//! The ground floor: the errors every other module reports in.
//!
//! [`HookError`] is what a hook did wrong at event time (with its [`HookErrorKind`] and, for
//! a process that ended, its [`Termination`]); [`Listeners`] are who hears of it;
//! [`LoadError`] is why a hook path did not load, in process or in a plugin process (it
//! crosses the plugin-process protocol as it is). Nothing here imports another module of the
//! crate but `file` (the reading errors a load error can carry).

mod hook;
mod load;

pub(crate) use hook::Listeners;
pub use hook::{ErrorSubscription, HookError, HookErrorKind, Subscription, Termination};
pub use load::LoadError;
