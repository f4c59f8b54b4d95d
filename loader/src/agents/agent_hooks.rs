//! agent-hooks' own hooks files (docs/command-hooks.md): any other place, and
//! `/etc/agent-hooks/`. Claude Code's form; its hooks see agent-hooks' own tool names and
//! every agent's project variables.

use crate::agent::{HookEnv, Managed, MatcherRule, Profile, DEFAULT_TIMEOUT};

/// agent-hooks itself.
pub(super) static PROFILE: Profile = Profile {
    name: "agent-hooks",
    title: "agent-hooks",
    hook_name: None,
    places: &[],
    managed: Some(Managed {
        provider: "agent-hooks (managed)",
        priority: 200,
        files: &[("etc/agent-hooks/policy.json", false)],
    }),
    owns_file: |_| true,
    // A settings-form file follows Claude Code's rule; a flat one reads `*` as every tool.
    matcher_rule: (MatcherRule::Claude, MatcherRule::RegexOrStar),
    timeout_unit: 1.0,
    timeout_unit_by_value: None,
    default_timeout: DEFAULT_TIMEOUT,
    event_names: &[],
    events_of_its_own: false,
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
    managed_rules: true,
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
    status_line: None,
};
