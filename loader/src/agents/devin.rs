//! Devin CLI: `.devin/hooks.v1.json`, the `hooks` of `.devin/config.json`,
//! `.devin/config.local.json` and `~/.config/devin/config.json`. Claude Code's form, its
//! matchers unanchored regexes.

use super::profile::{HookEnv, MatcherRule, Profile, DEFAULT_TIMEOUT};
use crate::event::CommandEvent;

/// Devin CLI.
pub(super) static PROFILE: Profile = Profile {
    name: "devin",
    title: "Devin CLI",
    hook_name: Some("devin"),
    managed_folder: None,
    owns_file: |at| at.has(".devin") || at.last() == Some("devin"),
    matcher_rule: (MatcherRule::Regex, MatcherRule::Regex),
    timeout_unit: 1.0,
    default_timeout: DEFAULT_TIMEOUT,
    event_names: &[("PostCompaction", Some(CommandEvent::PostCompact))],
    events_of_its_own: false,
    not_events: &[],
    installed_events: &[
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "Stop",
        "SessionEnd",
    ],
    entry_files: (".config/devin/config.json", ".devin/hooks.v1.json"),
    also_runs_project_files_of: &[],
    ignores_once: false,
    managed_rules: false,
    own_payload: false,
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
        ("GEMINI_PROJECT_DIR", HookEnv::ProjectDir),
        ("DEVIN_PROJECT_DIR", HookEnv::ProjectDir),
    ],
    has_env_file: true,
    tools: &[],
    file_path_field: None,
    matcher_aliases: &[],
    reads_continue_before_a_tool: true,
    rewritten_input_field: "updatedInput",
    rewrite_needs_allow: false,
    top_level_decision: false,
    claude_form_for_claude_names: false,
};
