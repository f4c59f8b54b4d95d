//! The registry of command-hook events: one row per event of the hooks reference,
//! with what its matcher looks at, how it can block, which answer fields it takes, and the
//! runner moment it happens at. Every other part of the command-hook code reads this table;
//! no event has code paths of its own elsewhere.

use std::fmt;

use agent_hooks_abi::EventKind;

/// The events of command hooks, by their common names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CommandEvent {
    /// A session started or resumed.
    SessionStart,
    /// The agent runs its set-up (`--init`, `--maintenance`).
    Setup,
    /// Instruction files (the agent's memory files, rules) were loaded.
    InstructionsLoaded,
    /// The user submitted a prompt.
    UserPromptSubmit,
    /// A slash command or an MCP prompt the user typed is about to be expanded into the
    /// prompt.
    UserPromptExpansion,
    /// Before a tool runs.
    PreToolUse,
    /// A permission dialog is about to be shown.
    PermissionRequest,
    /// An automatic permission check denied a tool call.
    PermissionDenied,
    /// A skill's or command's inline shell command is about to run.
    PreSkillShellCommand,
    /// A tool ran and succeeded.
    PostToolUse,
    /// A tool ran and failed.
    PostToolUseFailure,
    /// Every tool call of one model turn has its result, before the next model request.
    PostToolBatch,
    /// The agent sent a notification (permission prompt, idle prompt, ...).
    Notification,
    /// Newly completed lines of a streaming assistant message are about to be shown.
    MessageDisplay,
    /// A subagent was started.
    SubagentStart,
    /// A subagent is about to stop.
    SubagentStop,
    /// The agent is about to stop.
    Stop,
    /// The turn ended on an error (rate limit, authentication, ...).
    StopFailure,
    /// A teammate of an agent team is about to go idle.
    TeammateIdle,
    /// A task is being created.
    TaskCreated,
    /// A task is being marked completed.
    TaskCompleted,
    /// A configuration file changed.
    ConfigChange,
    /// The working folder changed.
    CwdChanged,
    /// A folder was added to the session's working folders (`/add-dir`).
    DirectoryAdded,
    /// A watched file changed.
    FileChanged,
    /// A worktree is being created.
    WorktreeCreate,
    /// A worktree is being removed.
    WorktreeRemove,
    /// Before a compaction.
    PreCompact,
    /// After a compaction.
    PostCompact,
    /// The session's model is about to change.
    PreModelSwitch,
    /// The session's model changed.
    PostModelSwitch,
    /// An MCP server asks the user for input.
    Elicitation,
    /// The user answered an MCP elicitation.
    ElicitationResult,
    /// The session ends.
    SessionEnd,
}

/// What exit code 2 does on an event (the docs' "exit code 2 behavior" column).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit2 {
    /// Blocks the action; stderr is the reason.
    Blocks,
    /// The action already happened; stderr is fed back to the model.
    Feedback,
    /// Cannot block; stderr is shown to the user only.
    ShownToUser,
}

/// One row of the registry.
#[derive(Debug, Clone, Copy)]
pub struct EventSpec {
    /// The event.
    pub event: CommandEvent,
    /// Its name in hooks files and in `hook_event_name`.
    pub name: &'static str,
    /// The payload field its matcher is compared with (`None`: the matcher is ignored).
    pub subject: Option<&'static str>,
    /// The event's own payload fields (after the common ones), as documented.
    pub fields: &'static [&'static str],
    /// What exit code 2 does.
    pub exit2: Exit2,
    /// Whether a top-level `decision: "block"` is read on this event.
    pub decision: bool,
    /// The `hookSpecificOutput` fields this event takes.
    pub specific: &'static [&'static str],
    /// Whether plain (non-JSON) stdout of exit 0 is added to the agent's context.
    pub plain_stdout_is_context: bool,
    /// Whether its hooks get `CLAUDE_ENV_FILE`.
    pub env_file: bool,
    /// The runner event at the same moment, when the runner has one.
    pub runner: Option<EventKind>,
}

const TOOL: Option<&str> = Some("tool_name");
const TOOL_FIELDS: &[&str] = &["tool_name", "tool_input", "tool_use_id"];
/// What the agent sends on `PreModelSwitch` and `PostModelSwitch` (measured).
const MODEL_SWITCH: &[&str] = &[
    "from_model",
    "to_model",
    "requested_model",
    "source",
    "context_tokens",
    "prompt_cache_warm",
    "cache_ttl",
    "estimated_cache_write_usd",
    "pricing",
];

macro_rules! row {
    ($event:ident, $subject:expr, [$($field:literal),*], $exit2:ident, $decision:expr,
     [$($specific:literal),*], $plain:expr, $env_file:expr, $runner:expr) => {
        EventSpec {
            event: CommandEvent::$event,
            name: stringify!($event),
            subject: $subject,
            fields: &[$($field),*],
            exit2: Exit2::$exit2,
            decision: $decision,
            specific: &[$($specific),*],
            plain_stdout_is_context: $plain,
            env_file: $env_file,
            runner: $runner,
        }
    };
}

use EventKind as K;

/// Every event, in the order of the enum. Columns: subject, payload fields, exit 2, top-level
/// `decision`, `hookSpecificOutput` fields, plain stdout as context, `CLAUDE_ENV_FILE`, runner
/// moment.
#[rustfmt::skip]
pub static EVENTS: [EventSpec; 34] = [
    row!(SessionStart, Some("source"), ["source", "model", "agent_type"], ShownToUser, false, ["additionalContext"], true, true, Some(K::SessionStart)),
    row!(Setup, Some("trigger"), ["trigger"], ShownToUser, false, ["additionalContext"], true, true, None),
    row!(InstructionsLoaded, Some("load_reason"), ["file_path", "memory_type", "load_reason"], ShownToUser, false, [], false, false, None),
    row!(UserPromptSubmit, None, ["prompt"], Blocks, true, ["additionalContext"], true, false, Some(K::BeforeAgentStart)),
    row!(UserPromptExpansion, Some("command_name"), ["expansion_type", "command_name", "command_args", "command_source", "prompt"], Blocks, true, ["additionalContext", "suppressOriginalPrompt"], true, false, None),
    // `tool_input` is another name of `updatedInput`, which some agents read.
    EventSpec { fields: TOOL_FIELDS, ..row!(PreToolUse, TOOL, [], Blocks, true, ["permissionDecision", "permissionDecisionReason", "updatedInput", "additionalContext", "tool_input"], false, false, Some(K::ToolCall)) },
    row!(PermissionRequest, TOOL, ["tool_name", "tool_input", "permission_suggestions"], Blocks, true, ["decision"], false, false, Some(K::PermissionRequest)),
    EventSpec { fields: &["tool_name", "tool_input", "tool_use_id", "reason"], ..row!(PermissionDenied, TOOL, [], ShownToUser, false, ["retry"], false, false, None) },
    // The agent blocks the command on `ask`, `defer` and any `updatedInput` too (the answer
    // reader makes them blocks); `allow` adds nothing.
    row!(PreSkillShellCommand, TOOL, ["tool_name", "tool_input", "tool_use_id", "command_name", "command_source", "invoked_by"], Blocks, true, ["permissionDecision", "permissionDecisionReason", "updatedInput"], false, false, None),
    row!(PostToolUse, TOOL, ["tool_name", "tool_input", "tool_response", "tool_use_id"], Feedback, true, ["additionalContext", "updatedMCPToolOutput"], false, false, Some(K::ToolResult)),
    row!(PostToolUseFailure, TOOL, ["tool_name", "tool_input", "tool_use_id", "error", "is_interrupt"], Feedback, false, ["additionalContext"], false, false, Some(K::ToolResult)),
    row!(PostToolBatch, None, ["tool_calls"], Blocks, true, ["additionalContext"], false, false, None),
    row!(Notification, Some("notification_type"), ["message", "title", "notification_type"], ShownToUser, false, [], false, false, None),
    row!(MessageDisplay, None, ["turn_id", "message_id", "index", "final", "delta"], ShownToUser, false, ["displayContent"], false, false, None),
    row!(SubagentStart, Some("agent_type"), ["agent_id", "agent_type"], ShownToUser, false, ["additionalContext"], false, false, None),
    row!(SubagentStop, Some("agent_type"), ["stop_hook_active", "agent_id", "agent_type", "agent_transcript_path", "last_assistant_message"], Blocks, true, [], false, false, None),
    row!(Stop, None, ["stop_hook_active", "last_assistant_message"], Blocks, true, [], false, false, Some(K::Stop)),
    row!(StopFailure, Some("error"), ["error", "error_details", "last_assistant_message"], ShownToUser, false, [], false, false, None),
    row!(TeammateIdle, None, ["teammate_name", "team_name"], Blocks, false, [], false, false, None),
    row!(TaskCreated, None, ["task_id", "task_subject", "task_description", "teammate_name", "team_name"], Blocks, false, [], false, false, None),
    row!(TaskCompleted, None, ["task_id", "task_subject", "task_description", "teammate_name", "team_name"], Blocks, false, [], false, false, None),
    row!(ConfigChange, Some("source"), ["source", "file_path"], Blocks, true, [], false, false, None),
    row!(CwdChanged, None, ["old_cwd", "new_cwd"], ShownToUser, false, [], false, true, None),
    row!(DirectoryAdded, Some("source"), ["directory", "source"], ShownToUser, false, [], false, false, None),
    row!(FileChanged, Some("file_name"), ["file_path", "file_name", "event"], ShownToUser, false, [], false, true, None),
    row!(WorktreeCreate, None, ["name"], Blocks, false, [], false, false, None),
    row!(WorktreeRemove, None, ["worktree_path"], ShownToUser, false, [], false, false, None),
    row!(PreCompact, Some("trigger"), ["trigger", "custom_instructions"], Blocks, true, [], false, false, Some(K::SessionBeforeCompact)),
    row!(PostCompact, Some("trigger"), ["trigger", "compact_summary"], ShownToUser, false, [], false, false, Some(K::SessionCompact)),
    // The matcher is compared with `to_model` (without a `[1m]` suffix, as the agent drops it).
    EventSpec { fields: MODEL_SWITCH, ..row!(PreModelSwitch, Some("to_model"), [], Blocks, true, ["permissionDecision", "permissionDecisionReason"], false, false, None) },
    EventSpec { fields: MODEL_SWITCH, ..row!(PostModelSwitch, Some("to_model"), [], ShownToUser, false, ["additionalContext"], false, false, None) },
    row!(Elicitation, Some("mcp_server_name"), ["mcp_server_name", "message", "requested_schema"], Blocks, false, ["action", "content"], false, false, None),
    row!(ElicitationResult, Some("mcp_server_name"), ["mcp_server_name", "action", "content"], Blocks, false, ["action", "content"], false, false, None),
    row!(SessionEnd, Some("reason"), ["reason"], ShownToUser, false, [], false, false, Some(K::SessionShutdown)),
];

impl CommandEvent {
    /// Every command event, in registry order.
    pub const ALL: [CommandEvent; 34] = {
        let mut all = [CommandEvent::SessionStart; 34];
        let mut i = 0;
        while i < 34 {
            all[i] = EVENTS[i].event;
            i += 1;
        }
        all
    };

    /// Its row of the registry.
    pub fn spec(self) -> &'static EventSpec {
        &EVENTS[self as usize]
    }

    /// The name in hooks files and in `hook_event_name`.
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// The runner event it happens at, if the runner has one.
    pub fn runner_event(self) -> Option<EventKind> {
        self.spec().runner
    }

    /// Whether the event has a tool name for matchers.
    pub fn has_tool(self) -> bool {
        self.spec().subject == TOOL
    }

    /// The payload field its matcher is compared with.
    pub fn subject(self) -> Option<&'static str> {
        self.spec().subject
    }

    /// Whether plain (non-JSON) stdout is added context.
    pub fn plain_stdout_is_context(self) -> bool {
        self.spec().plain_stdout_is_context
    }
}

impl fmt::Display for CommandEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_in_enum_order_and_names_are_unique() {
        for (i, spec) in EVENTS.iter().enumerate() {
            assert_eq!(spec.event as usize, i, "{}", spec.name);
            assert_eq!(format!("{:?}", spec.event), spec.name);
        }
    }
}
