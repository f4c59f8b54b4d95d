//! Typed events and the results handlers may return.
//!
//! Each event is a struct implementing [`Event`]; its [`Event::Output`] is what a handler may
//! return (`()` for notifications, whose results are ignored). Payloads cross the library
//! boundary as JSON: unknown fields are ignored when reading and missing ones take their
//! default, so a plugin built against an older version of this crate keeps working when the
//! host adds a field. Messages keep the fields they do not know in `extra`, so a handler that
//! returns a message it was given does not drop what a newer host put in it.

mod agent;
mod kind;
mod message;
mod session;
mod tool;

pub use agent::*;
pub use kind::{EventKind, UnknownEvent};
pub use message::*;
pub use session::*;
pub use tool::*;

use serde::{de::DeserializeOwned, Serialize};

/// An event a hook may handle.
pub trait Event: Serialize + DeserializeOwned + Clone + Send + Sync + 'static {
    /// Which event this is.
    const KIND: EventKind;
    /// What a handler may return; `()` for notifications.
    type Output: Serialize + DeserializeOwned + Send + 'static;
}

/// Declares the event structs' [`Event`] impls in one place.
macro_rules! impl_events {
    ($($ty:ty => $kind:ident, $out:ty;)*) => {
        $(impl Event for $ty {
            const KIND: EventKind = EventKind::$kind;
            type Output = $out;
        })*
    };
}

impl_events! {
    SessionStartEvent => SessionStart, ();
    SessionBeforeSwitchEvent => SessionBeforeSwitch, SessionBeforeSwitchResult;
    SessionSwitchEvent => SessionSwitch, ();
    SessionBeforeBranchEvent => SessionBeforeBranch, SessionBeforeBranchResult;
    SessionBranchEvent => SessionBranch, ();
    SessionBeforeCompactEvent => SessionBeforeCompact, SessionBeforeCompactResult;
    SessionCompactingEvent => SessionCompacting, SessionCompactingResult;
    SessionCompactEvent => SessionCompact, ();
    SessionBeforeTreeEvent => SessionBeforeTree, SessionBeforeTreeResult;
    SessionTreeEvent => SessionTree, ();
    SessionShutdownEvent => SessionShutdown, ();
    ContextEvent => Context, ContextResult;
    BeforeAgentStartEvent => BeforeAgentStart, BeforeAgentStartResult;
    AgentStartEvent => AgentStart, ();
    AgentEndEvent => AgentEnd, ();
    TurnStartEvent => TurnStart, ();
    TurnEndEvent => TurnEnd, ();
    AutoCompactionStartEvent => AutoCompactionStart, ();
    AutoCompactionEndEvent => AutoCompactionEnd, ();
    AutoRetryStartEvent => AutoRetryStart, ();
    AutoRetryEndEvent => AutoRetryEnd, ();
    TtsrTriggeredEvent => TtsrTriggered, ();
    TodoReminderEvent => TodoReminder, ();
    ToolCallEvent => ToolCall, ToolCallResult;
    ToolResultEvent => ToolResult, ToolResultPatch;
    PermissionRequestEvent => PermissionRequest, PermissionResult;
    StopEvent => Stop, StopResult;
}
