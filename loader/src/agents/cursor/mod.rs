//! Cursor: `.cursor/hooks.json` and `~/.cursor/hooks.json`. Its own format
//! (`hooks_file.rs`): camelCase events listing their hooks, its own payloads and
//! answers. From Cursor's docs: Cursor does not run here.

mod hooks_file;

use crate::agent::{HookEnv, MatcherRule, Place, PlaceFiles, Profile, DEFAULT_TIMEOUT};
use crate::event::CommandEvent;

pub(crate) use hooks_file::{interpret, parse, payload};

/// What `cursor_version` and `CURSOR_VERSION` say to a Cursor hook run by agent-hooks: not
/// a Cursor version, but present, since hooks written for several agents tell Cursor by it.
pub const CURSOR_VERSION: &str = concat!("agent-hooks ", env!("CARGO_PKG_VERSION"));

/// Cursor.
pub(super) static PROFILE: Profile = Profile {
    name: "cursor",
    title: "Cursor",
    hook_name: None,
    places: &[
        Place {
            provider: "cursor (user)",
            priority: 20,
            project: false,
            files: PlaceFiles::Files(&[(".cursor/hooks.json", false)]),
        },
        Place {
            provider: "cursor (project)",
            priority: 15,
            project: true,
            files: PlaceFiles::Files(&[(".cursor/hooks.json", false)]),
        },
    ],
    managed: None,
    owns_file: |at| at.has(".cursor"),
    // Its own reader compiles its matchers.
    matcher_rule: (MatcherRule::Regex, MatcherRule::Regex),
    timeout_unit: 1.0,
    timeout_unit_by_value: None,
    default_timeout: DEFAULT_TIMEOUT,
    event_names: &[
        ("sessionStart", Some(CommandEvent::SessionStart)),
        ("sessionEnd", Some(CommandEvent::SessionEnd)),
        ("beforeSubmitPrompt", Some(CommandEvent::UserPromptSubmit)),
        ("preToolUse", Some(CommandEvent::PreToolUse)),
        ("postToolUse", Some(CommandEvent::PostToolUse)),
        ("postToolUseFailure", Some(CommandEvent::PostToolUseFailure)),
        ("beforeShellExecution", Some(CommandEvent::PreToolUse)),
        ("afterShellExecution", Some(CommandEvent::PostToolUse)),
        ("beforeMCPExecution", Some(CommandEvent::PreToolUse)),
        ("afterMCPExecution", Some(CommandEvent::PostToolUse)),
        ("beforeReadFile", Some(CommandEvent::PreToolUse)),
        ("afterFileEdit", Some(CommandEvent::PostToolUse)),
        ("subagentStart", Some(CommandEvent::SubagentStart)),
        ("subagentStop", Some(CommandEvent::SubagentStop)),
        ("preCompact", Some(CommandEvent::PreCompact)),
        ("stop", Some(CommandEvent::Stop)),
        ("afterAgentResponse", None),
        ("afterAgentThought", None),
        ("beforeTabFileRead", None),
        ("afterTabFileEdit", None),
    ],
    events_of_its_own: true,
    not_events: &[],
    disabled_list: None,
    installed_events: &[],
    entry_files: ("", ""),
    entry_file_whole: false,
    entry_fields: (None, None),
    http_entries: false,
    lenient_json: false,
    after_install: None,
    fail_open_exit: 1,
    also_runs_project_files_of: &[],
    ignores_once: false,
    managed_rules: false,
    own_payload: true,
    plain_text_is_a_message: false,
    ignores_context_on: &[],
    reason_replaces_result_on: &[],
    shows_every_reason_with_a_block: false,
    extra_fields: &[],
    renamed_fields: &[],
    absent_fields: &[],
    tool_output_also_as: &[],
    env: &[
        ("CLAUDE_PROJECT_DIR", HookEnv::ProjectDir),
        ("CURSOR_PROJECT_DIR", HookEnv::ProjectDir),
        ("CURSOR_VERSION", HookEnv::Text(CURSOR_VERSION)),
    ],
    has_env_file: false,
    tools: &[
        ("exec", "Shell"),
        ("read", "Read"),
        ("write", "Write"),
        ("edit", "Write"),
        ("glob", "Glob"),
        ("grep", "Grep"),
        ("webfetch", "WebFetch"),
        ("todo_write", "TodoWrite"),
        ("notebook_read", "NotebookRead"),
        ("notebook_edit", "NotebookEdit"),
        ("run_subagent", "Task"),
    ],
    // Its payloads name the file `file_path`.
    file_path_field: Some("file_path"),
    matcher_aliases: &[],
    reads_continue_before_a_tool: true,
    rewritten_input_field: "updatedInput",
    rewrite_needs_allow: false,
    top_level_decision: false,
    claude_form_for_claude_names: false,
    status_line: None,
    failure_denies_on: &[],
    runs_the_tool_anyway: None,
    other_places: &[],
    http_refused: None,
    unsupported_events: &[],
    own_files: &[],
};
