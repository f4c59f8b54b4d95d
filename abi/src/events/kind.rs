use std::{fmt, str::FromStr};

/// Declares [`EventKind`] with its wire names, in one list.
macro_rules! event_kinds {
    ($($(#[$doc:meta])* $variant:ident = $name:literal,)*) => {
        /// Every event of the hook system, by name.
        ///
        /// Later versions of the interface add events, so match with a wildcard. A name this
        /// version does not know does not parse ([`UnknownEvent`]): a host that gets a handler
        /// for such an event (from a plugin built against a newer interface) ignores that
        /// handler and lists a warning; the plugin's other handlers work.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum EventKind {
            $($(#[$doc])* $variant,)*
        }

        impl EventKind {
            /// Every event, in declaration order.
            pub const ALL: &'static [EventKind] = &[$(EventKind::$variant,)*];

            /// How many events there are.
            pub const COUNT: usize = Self::ALL.len();

            /// The event's name on the wire and in `on(...)`.
            pub const fn name(self) -> &'static str {
                match self {
                    $(EventKind::$variant => $name,)*
                }
            }

            /// A dense index in `0..COUNT`, for tables indexed by event.
            pub const fn index(self) -> usize {
                self as usize
            }
        }

        impl FromStr for EventKind {
            type Err = UnknownEvent;

            fn from_str(name: &str) -> Result<Self, UnknownEvent> {
                match name {
                    $($name => Ok(EventKind::$variant),)*
                    _ => Err(UnknownEvent(name.to_owned())),
                }
            }
        }
    };
}

event_kinds! {
    /// A session started.
    SessionStart = "session_start",
    /// A switch to another session is about to happen; may be cancelled.
    SessionBeforeSwitch = "session_before_switch",
    /// The agent switched sessions.
    SessionSwitch = "session_switch",
    /// A branch is about to be made; may be cancelled.
    SessionBeforeBranch = "session_before_branch",
    /// A branch was made.
    SessionBranch = "session_branch",
    /// A compaction is about to run; may be cancelled or replaced.
    SessionBeforeCompact = "session_before_compact",
    /// A compaction is being prepared; hooks may add context and change the prompt.
    SessionCompacting = "session.compacting",
    /// A compaction finished.
    SessionCompact = "session_compact",
    /// A move in the session tree is about to happen; may be cancelled or summarised.
    SessionBeforeTree = "session_before_tree",
    /// A move in the session tree happened.
    SessionTree = "session_tree",
    /// The session is shutting down.
    SessionShutdown = "session_shutdown",
    /// The messages about to be sent to the model; handlers may replace them (chained).
    Context = "context",
    /// A prompt is about to start the agent; the first handler's message is injected.
    BeforeAgentStart = "before_agent_start",
    /// The agent started working on a prompt.
    AgentStart = "agent_start",
    /// The agent finished working on a prompt.
    AgentEnd = "agent_end",
    /// A turn (one model call and its tools) started.
    TurnStart = "turn_start",
    /// A turn ended.
    TurnEnd = "turn_end",
    /// Automatic compaction started.
    AutoCompactionStart = "auto_compaction_start",
    /// Automatic compaction ended.
    AutoCompactionEnd = "auto_compaction_end",
    /// An automatic retry started.
    AutoRetryStart = "auto_retry_start",
    /// An automatic retry ended.
    AutoRetryEnd = "auto_retry_end",
    /// A time-sensitive reminder rule triggered.
    TtsrTriggered = "ttsr_triggered",
    /// The agent is reminded of unfinished todos.
    TodoReminder = "todo_reminder",
    /// A tool is about to run; handlers may block it or rewrite its input.
    ToolCall = "tool_call",
    /// A tool ran; handlers may replace its content, details and error status.
    ToolResult = "tool_result",
    /// A tool needs the user's permission; handlers may approve, deny or ask.
    PermissionRequest = "permission_request",
    /// The agent is about to stop; handlers may keep it going.
    Stop = "stop",
}

impl fmt::Display for EventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not an event of this version of the interface.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownEvent(pub String);

impl fmt::Display for UnknownEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown event `{}`", self.0)
    }
}

impl std::error::Error for UnknownEvent {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_indices_are_dense() {
        for (i, kind) in EventKind::ALL.iter().enumerate() {
            assert_eq!(kind.index(), i);
            assert_eq!(kind.name().parse::<EventKind>(), Ok(*kind));
        }
        assert_eq!(EventKind::COUNT, 27);
        assert_eq!(
            "session.compacting".parse::<EventKind>(),
            Ok(EventKind::SessionCompacting)
        );
        assert_eq!(
            "PreToolUse".parse::<EventKind>(),
            Err(UnknownEvent("PreToolUse".into()))
        );
    }
}
