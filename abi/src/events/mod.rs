//! Typed events and the results handlers may return.
//!
//! Each event is a struct implementing [`Event`]; its [`Event::Output`] is what a handler may
//! return (`()` for notifications, whose results are ignored). Payloads cross the library
//! boundary as JSON: unknown fields are ignored when reading and missing ones take their
//! default, so a plugin built against an older version of this crate keeps working when the
//! host adds a field. Messages keep the fields they do not know in `extra`, so a handler that
//! returns a message it was given does not drop what a newer host put in it.

mod agent;
mod builder;
mod kind;
mod message;
mod session;
mod tool;

pub use agent::*;
pub use kind::{EventKind, UnknownEvent};
pub use message::*;
pub use session::*;
pub use tool::*;

pub(crate) use builder::setters;
use serde::{de::DeserializeOwned, Serialize};

/// An event a hook may handle.
pub trait Event: Serialize + DeserializeOwned + Clone + Send + Sync + 'static {
    /// Which event this is.
    const KIND: EventKind;
    /// What a handler may return; `()` for notifications.
    type Output: Serialize + DeserializeOwned + Send + 'static;
}

/// Calls the macro `$callback` with every event of the interface, in [`EventKind`] order, as
/// `Type => KindVariant, OutputType;` entries, so that code over all events has one list:
///
/// ```
/// macro_rules! count {
///     ($($ty:ty => $kind:ident, $out:ty;)*) => { [$(stringify!($kind)),*].len() };
/// }
/// assert_eq!(agent_hooks_abi::for_each_event!(count), agent_hooks_abi::EventKind::COUNT);
/// ```
#[macro_export]
macro_rules! for_each_event {
    ($callback:ident) => {
        $callback! {
            $crate::events::SessionStartEvent => SessionStart, $crate::events::SessionStartResult;
            $crate::events::SessionBeforeSwitchEvent => SessionBeforeSwitch, $crate::events::SessionBeforeSwitchResult;
            $crate::events::SessionSwitchEvent => SessionSwitch, ();
            $crate::events::SessionBeforeBranchEvent => SessionBeforeBranch, $crate::events::SessionBeforeBranchResult;
            $crate::events::SessionBranchEvent => SessionBranch, ();
            $crate::events::SessionBeforeCompactEvent => SessionBeforeCompact, $crate::events::SessionBeforeCompactResult;
            $crate::events::SessionCompactingEvent => SessionCompacting, $crate::events::SessionCompactingResult;
            $crate::events::SessionCompactEvent => SessionCompact, ();
            $crate::events::SessionBeforeTreeEvent => SessionBeforeTree, $crate::events::SessionBeforeTreeResult;
            $crate::events::SessionTreeEvent => SessionTree, ();
            $crate::events::SessionShutdownEvent => SessionShutdown, ();
            $crate::events::ContextEvent => Context, $crate::events::ContextResult;
            $crate::events::BeforeAgentStartEvent => BeforeAgentStart, $crate::events::BeforeAgentStartResult;
            $crate::events::AgentStartEvent => AgentStart, ();
            $crate::events::AgentEndEvent => AgentEnd, ();
            $crate::events::TurnStartEvent => TurnStart, ();
            $crate::events::TurnEndEvent => TurnEnd, ();
            $crate::events::AutoCompactionStartEvent => AutoCompactionStart, ();
            $crate::events::AutoCompactionEndEvent => AutoCompactionEnd, ();
            $crate::events::AutoRetryStartEvent => AutoRetryStart, ();
            $crate::events::AutoRetryEndEvent => AutoRetryEnd, ();
            $crate::events::TtsrTriggeredEvent => TtsrTriggered, ();
            $crate::events::TodoReminderEvent => TodoReminder, ();
            $crate::events::ToolCallEvent => ToolCall, $crate::events::ToolCallResult;
            $crate::events::ToolResultEvent => ToolResult, $crate::events::ToolResultPatch;
            $crate::events::PermissionRequestEvent => PermissionRequest, $crate::events::PermissionResult;
            $crate::events::StopEvent => Stop, $crate::events::StopResult;
        }
    };
}

/// Implements [`Event`] for each event struct.
macro_rules! impl_events {
    ($($ty:ty => $kind:ident, $out:ty;)*) => {
        $(impl Event for $ty {
            const KIND: EventKind = EventKind::$kind;
            type Output = $out;
        })*
    };
}

for_each_event!(impl_events);
