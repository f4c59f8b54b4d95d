use std::{fmt, str::FromStr};

/// The events of command hooks, as named in hooks files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CommandEvent {
    /// Before a tool runs (the runner's `tool_call`).
    PreToolUse,
    /// After a tool ran (`tool_result`).
    PostToolUse,
    /// A tool needs permission (`permission_request`).
    PermissionRequest,
    /// The user submitted a prompt (`before_agent_start`).
    UserPromptSubmit,
    /// The agent is about to stop (`stop`).
    Stop,
    /// A compaction finished (`session_compact`).
    PostCompaction,
    /// A session started (`session_start`).
    SessionStart,
    /// A session ended (`session_shutdown`).
    SessionEnd,
}

impl CommandEvent {
    /// Every command event.
    pub const ALL: [CommandEvent; 8] = [
        CommandEvent::PreToolUse,
        CommandEvent::PostToolUse,
        CommandEvent::PermissionRequest,
        CommandEvent::UserPromptSubmit,
        CommandEvent::Stop,
        CommandEvent::PostCompaction,
        CommandEvent::SessionStart,
        CommandEvent::SessionEnd,
    ];

    /// The name in hooks files and in `hook_event_name`.
    pub const fn name(self) -> &'static str {
        match self {
            CommandEvent::PreToolUse => "PreToolUse",
            CommandEvent::PostToolUse => "PostToolUse",
            CommandEvent::PermissionRequest => "PermissionRequest",
            CommandEvent::UserPromptSubmit => "UserPromptSubmit",
            CommandEvent::Stop => "Stop",
            CommandEvent::PostCompaction => "PostCompaction",
            CommandEvent::SessionStart => "SessionStart",
            CommandEvent::SessionEnd => "SessionEnd",
        }
    }

    /// The runner event it is: command hooks run in the same emit as native handlers.
    pub const fn runner_event(self) -> agent_hooks_abi::EventKind {
        use agent_hooks_abi::EventKind as K;
        match self {
            CommandEvent::PreToolUse => K::ToolCall,
            CommandEvent::PostToolUse => K::ToolResult,
            CommandEvent::PermissionRequest => K::PermissionRequest,
            CommandEvent::UserPromptSubmit => K::BeforeAgentStart,
            CommandEvent::Stop => K::Stop,
            CommandEvent::PostCompaction => K::SessionCompact,
            CommandEvent::SessionStart => K::SessionStart,
            CommandEvent::SessionEnd => K::SessionShutdown,
        }
    }

    /// Whether the event has a tool name for matchers.
    pub const fn has_tool(self) -> bool {
        matches!(
            self,
            CommandEvent::PreToolUse | CommandEvent::PostToolUse | CommandEvent::PermissionRequest
        )
    }

    /// Whether plain (non-JSON) stdout is added context.
    pub const fn plain_stdout_is_context(self) -> bool {
        matches!(
            self,
            CommandEvent::UserPromptSubmit | CommandEvent::SessionStart
        )
    }
}

impl fmt::Display for CommandEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for CommandEvent {
    type Err = ();

    fn from_str(name: &str) -> Result<Self, ()> {
        Self::ALL.into_iter().find(|e| e.name() == name).ok_or(())
    }
}
