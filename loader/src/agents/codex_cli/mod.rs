//! Codex CLI (`@openai/codex`): `~/.codex/hooks.json` and `.codex/hooks.json`, the `[hooks]`
//! table of `config.toml` in both, `/etc/codex/`. Its hooks read Claude Code's fields and
//! tool names; it trusts a hook by its hash (`trust.rs`, which discovery asks). Its TOML
//! files are read in `toml_file.rs`.

mod toml_file;
mod trust;

use std::time::Duration;

pub(crate) use toml_file::{normalize, toml_as_json};
pub use trust::{has_hooks_table, hook_hash, CodexHook, CodexState, CodexVerdict};

use crate::agent::{HookAnswer, Managed, MatcherRule, Place, PlaceFiles, Profile};

/// Codex CLI.
pub(super) static PROFILE: Profile = Profile {
    name: "codex",
    title: "Codex CLI",
    hook_name: Some("codex"),
    places: &[
        Place {
            provider: "codex (user)",
            priority: 60,
            project: false,
            files: PlaceFiles::Files(&[(".codex/hooks.json", false), (".codex/config.toml", true)]),
        },
        Place {
            provider: "codex (project)",
            priority: 55,
            project: true,
            files: PlaceFiles::Files(&[(".codex/hooks.json", false), (".codex/config.toml", true)]),
        },
    ],
    managed: Some(Managed {
        provider: "codex (managed)",
        priority: 160,
        files: &[("etc/codex/requirements.toml", false)],
    }),
    owns_file: |at| at.has(".codex"),
    // A plain name is exact, as in Claude Code (measured: `Bas` does not match `Bash`).
    matcher_rule: (MatcherRule::Common, MatcherRule::Common),
    timeout_unit: 1.0,
    timeout_unit_by_value: None,
    default_timeout: Duration::from_secs(600),
    event_names: &[],
    events_of_its_own: false,
    not_events: &["state", "managed_dir", "windows_managed_dir"],
    disabled_list: None,
    // Every event of 0.171.0 but `Interrupt` (agent-hooks has no such event).
    installed_events: &[
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PermissionRequest",
        "PostToolUse",
        "SubagentStart",
        "SubagentStop",
        "Stop",
        "PreCompact",
        "PostCompact",
        "SessionEnd",
    ],
    entry_files: (".codex/hooks.json", ".codex/hooks.json"),
    entry_file_whole: false,
    entry_fields: (None, None),
    http_entries: false,
    lenient_json: false,
    after_install: Some(
        "Codex CLI asks to trust a new hook: trust this one in Codex (or run it with --dangerously-bypass-hook-trust).",
    ),
    fail_open_exit: 1,
    also_runs_project_files_of: &[],
    ignores_once: false,
    managed_rules: false,
    own_payload: false,
    plain_text_is_a_message: false,
    ignores_context_on: &[],
    reason_replaces_result_on: &[crate::event::CommandEvent::PostToolUse],
    shows_every_reason_with_a_block: false,
    extra_fields: &[],
    renamed_fields: &[("prompt_id", "turn_id")],
    absent_fields: &[],
    tool_output_also_as: &[],
    env: &[],
    has_env_file: false,
    tools: &[
        ("exec", "Bash"),
        ("read", "Read"),
        ("write", "Write"),
        ("edit", "Edit"),
        ("glob", "Glob"),
        ("grep", "Grep"),
        ("webfetch", "WebFetch"),
        ("todo_write", "TodoWrite"),
        ("notebook_read", "NotebookRead"),
        ("notebook_edit", "NotebookEdit"),
        ("run_subagent", "Task"),
    ],
    file_path_field: Some("file_path"),
    // 0.171.0 calls its file-editing tool `apply_patch` and lets `Write` and `Edit` select
    // it, and its sub-agent tool `spawn_agent`, selected by `Agent` too; so a Codex hook's
    // `Edit|Write` runs for an `apply_patch` call, and its `apply_patch` for a `Write` or
    // `Edit` (the names a Codex hook sees for agent-hooks' `write` and `edit`).
    matcher_aliases: &[
        ("apply_patch", &["Write", "Edit"]),
        ("Write", &["apply_patch"]),
        ("Edit", &["apply_patch"]),
        ("spawn_agent", &["Agent"]),
    ],
    reads_continue_before_a_tool: false,
    rewritten_input_field: "updatedInput",
    rewrite_needs_allow: true,
    top_level_decision: false,
    claude_form_for_claude_names: false,
    status_line: None,
    failure_denies_on: &[],
    runs_the_tool_anyway: Some((
        "Codex runs the tool when this hook exits 2 with nothing on stderr, denies without a reason, asks, or answers `continue: false` or `decision: deny`",
        &[HookAnswer::Exit2, HookAnswer::Deny, HookAnswer::Ask, HookAnswer::Continue],
    )),
    other_places: &[],
    http_refused: None,
    unsupported_events: &[],
    own_files: &[],
};

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::command_hook::{CommandEvent, CommandHooks, ToolNames};

    #[test]
    fn codex_matchers_select_apply_patch_by_its_aliases() {
        let mut hooks = CommandHooks::new();
        let file = r#"{"hooks": {"PreToolUse": [
            {"matcher": "Edit|Write", "hooks": [{"command": "edits"}]},
            {"matcher": "apply_patch", "hooks": [{"command": "patches"}]}
        ]}}"#;
        hooks.parse(file, Path::new("/h/.codex/hooks.json"));
        let run = |tool: &str| -> Vec<String> {
            let fields = serde_json::json!({"tool_name": tool});
            hooks
                .matching(
                    CommandEvent::PreToolUse,
                    fields.as_object().unwrap(),
                    &ToolNames::default(),
                    crate::agents::PROFILES,
                    Path::new("/p"),
                )
                .iter()
                .map(|h| h.kind.label().into_owned())
                .collect()
        };
        assert_eq!(run("apply_patch"), ["edits", "patches"]);
        assert_eq!(run("write"), ["edits", "patches"]);
        assert_eq!(run("exec"), Vec::<String>::new());
        // Claude Code has no such alias.
        let mut claude = CommandHooks::new();
        claude.parse(file, Path::new("/p/.claude/settings.json"));
        let fields = serde_json::json!({"tool_name": "apply_patch"});
        let matched = claude.matching(
            CommandEvent::PreToolUse,
            fields.as_object().unwrap(),
            &ToolNames::default(),
            crate::agents::PROFILES,
            Path::new("/p"),
        );
        assert_eq!(matched.len(), 1);
        assert_eq!(matched[0].kind.label(), "patches");
    }
}
