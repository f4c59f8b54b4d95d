//! GitHub Copilot CLI (`@github/copilot`): every `*.json` of `.github/hooks/` and
//! `~/.copilot/hooks/`, the `hooks` of its settings files, `/etc/github-copilot/policy.d/`.
//! Its own format (`command_hook/copilot.rs`): camelCase events listing their hooks, its own
//! payloads and answers; a file may also use Claude Code's names (its VS Code-compatible
//! form), whose hooks then see Claude Code's fields.

use std::time::Duration;

use super::profile::{HookEnv, MatcherRule, Profile};
use crate::event::CommandEvent;

/// Copilot CLI.
pub(super) static PROFILE: Profile = Profile {
    name: "copilot-cli",
    title: "Copilot CLI",
    hook_name: Some("copilot"),
    managed_folder: Some("github-copilot"),
    owns_file: |at| {
        matches!(
            (at.parent(), at.last()),
            (Some(".github" | ".copilot"), Some("hooks"))
                | (Some(".github"), Some("copilot"))
                | (_, Some(".copilot"))
        )
    },
    // Its own reader compiles its matchers.
    matcher_rule: (MatcherRule::Regex, MatcherRule::Regex),
    timeout_unit: 1.0,
    // 30 s, as it documents.
    default_timeout: Duration::from_secs(30),
    event_names: &[
        ("sessionStart", Some(CommandEvent::SessionStart)),
        ("sessionEnd", Some(CommandEvent::SessionEnd)),
        ("userPromptSubmitted", Some(CommandEvent::UserPromptSubmit)),
        ("userPromptTransformed", None),
        ("preToolUse", Some(CommandEvent::PreToolUse)),
        ("permissionRequest", Some(CommandEvent::PermissionRequest)),
        ("postToolUse", Some(CommandEvent::PostToolUse)),
        ("postToolUseFailure", Some(CommandEvent::PostToolUseFailure)),
        ("agentStop", Some(CommandEvent::Stop)),
        ("subagentStart", Some(CommandEvent::SubagentStart)),
        ("subagentStop", Some(CommandEvent::SubagentStop)),
        ("errorOccurred", Some(CommandEvent::StopFailure)),
        ("preCompact", Some(CommandEvent::PreCompact)),
        ("notification", Some(CommandEvent::Notification)),
    ],
    events_of_its_own: true,
    not_events: &[],
    // Every event of 1.0.102 but `userPromptTransformed` and `preMcpToolCall` (no moment
    // here).
    installed_events: &[
        "sessionStart",
        "userPromptSubmitted",
        "preToolUse",
        "permissionRequest",
        "postToolUse",
        "postToolUseFailure",
        "subagentStart",
        "subagentStop",
        "agentStop",
        "errorOccurred",
        "preCompact",
        "notification",
        "sessionEnd",
    ],
    entry_files: (
        ".copilot/hooks/agent-hooks.json",
        ".github/hooks/agent-hooks.json",
    ),
    also_runs_project_files_of: &[super::Agent::ClaudeCode],
    ignores_once: false,
    managed_rules: false,
    own_payload: true,
    plain_text_is_a_message: false,
    ignores_context_on: &[],
    reason_replaces_result_on: &[],
    shows_every_reason_with_a_block: false,
    extra_fields: &["timestamp"],
    renamed_fields: &[],
    absent_fields: &[],
    tool_output_also_as: &[],
    // Measured with 1.0.102: both project variables and the folder of the hook's file.
    env: &[
        ("CLAUDE_PROJECT_DIR", HookEnv::ProjectDir),
        ("COPILOT_PROJECT_DIR", HookEnv::ProjectDir),
        ("COPILOT_HOOK_DIR", HookEnv::HookFileFolder),
    ],
    has_env_file: false,
    tools: &[
        ("exec", "bash"),
        ("read", "view"),
        ("write", "create"),
        ("edit", "edit"),
        ("glob", "glob"),
        ("grep", "grep"),
        ("webfetch", "web_fetch"),
        ("todo_write", "update_todo"),
        ("notebook_read", "notebook_read"),
        ("notebook_edit", "notebook_edit"),
        ("run_subagent", "task"),
    ],
    // Its file tools take `path`, as agent-hooks' do.
    file_path_field: None,
    matcher_aliases: &[],
    claude_form_for_claude_names: true,
};
