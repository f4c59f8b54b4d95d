//! Claude Code (`@anthropic-ai/claude-code`): `~/.claude/settings.json`,
//! `.claude/settings.json` and `.claude/settings.local.json`, its plugins'
//! `hooks/hooks.json`, `/etc/claude-code/managed-settings.json`. Its hooks reference is the
//! form every other agent's is read against.

mod plugins;

use std::path::Path;

use crate::agent::{
    FoundFiles, HookAnswer, HookEnv, Managed, MatcherRule, OwnFiles, Place, PlaceFiles, Profile,
    DEFAULT_TIMEOUT,
};
use crate::event::CommandEvent;

/// The provider of the hooks of Claude Code's plugins.
const PLUGINS: &str = "claude plugins";

/// The hooks files of the plugins of the user whose home is `home`.
fn plugin_hooks(home: &Path, _cwd: &Path) -> FoundFiles {
    plugins::find(home, PLUGINS)
}

/// Claude Code.
pub(super) static PROFILE: Profile = Profile {
    name: "claude-code",
    title: "Claude Code",
    hook_name: Some("claude"),
    // Its settings (the user's, the project's and the local ones: a key each, all run, as it
    // merges their hooks), then the scripts of its `hooks/pre` and `hooks/post`.
    places: &[
        Place {
            provider: "claude (user)",
            priority: 80,
            project: false,
            files: PlaceFiles::Files(&[(".claude/settings.json", true)]),
        },
        Place {
            provider: "claude (user)",
            priority: 80,
            project: false,
            files: PlaceFiles::Scripts(".claude/hooks"),
        },
        Place {
            provider: "claude (project)",
            priority: 70,
            project: true,
            files: PlaceFiles::Files(&[
                (".claude/settings.json", true),
                (".claude/settings.local.json", true),
            ]),
        },
        Place {
            provider: "claude (project)",
            priority: 70,
            project: true,
            files: PlaceFiles::Scripts(".claude/hooks"),
        },
    ],
    managed: Some(Managed {
        provider: "claude-code (managed)",
        priority: 190,
        files: &[
            ("etc/claude-code/managed-settings.json", false),
            ("etc/claude-code/managed-settings.d", true),
        ],
    }),
    owns_file: |at| at.has(".claude") || plugin_root(at.path).is_some(),
    matcher_rule: (MatcherRule::Common, MatcherRule::Common),
    timeout_unit: 1.0,
    timeout_unit_by_value: None,
    default_timeout: DEFAULT_TIMEOUT,
    event_names: &[],
    events_of_its_own: false,
    not_events: &[],
    disabled_list: None,
    // Every event 2.1.332 accepts in its settings (read from the installed program), except
    // where the mere presence of a hook changes what it does even when the hook answers
    // nothing: `WorktreeCreate` (a hook replaces git's worktree creation: it must make the
    // folder and print its path), `WorktreeRemove` (replaces the removal), `FileChanged`
    // (its matcher names the files Claude Code watches; an entry starts a watcher),
    // `Elicitation` (a hook stands in for the user's answer to an MCP server's question),
    // `MessageDisplay` (with a hook, the answer is no longer shown as it streams but handed
    // through the hook line by line), `PreSkillShellCommand` (with a hook, a coordinator
    // session no longer runs a skill's shell commands at all, and a hook that does not
    // answer refuses the command).
    installed_events: &[
        "SessionStart",
        "Setup",
        "InstructionsLoaded",
        "UserPromptSubmit",
        "UserPromptExpansion",
        "PreToolUse",
        "PermissionRequest",
        "PermissionDenied",
        "PostToolUse",
        "PostToolUseFailure",
        "PostToolBatch",
        "Notification",
        "SubagentStart",
        "SubagentStop",
        "Stop",
        "StopFailure",
        "TeammateIdle",
        "TaskCreated",
        "TaskCompleted",
        "ConfigChange",
        "CwdChanged",
        "DirectoryAdded",
        "PreCompact",
        "PostCompact",
        "PreModelSwitch",
        "PostModelSwitch",
        "ElicitationResult",
        "SessionEnd",
    ],
    // 2.1.332 honours `once` only in the hooks of skills and agents; a hook of a settings
    // file or a plugin with `"once": true` runs every time (a Stop hook ran three times).
    entry_files: (".claude/settings.json", ".claude/settings.json"),
    entry_file_whole: false,
    entry_fields: (None, None),
    http_entries: true,
    lenient_json: false,
    after_install: None,
    fail_open_exit: 1,
    also_runs_project_files_of: &[],
    ignores_once: true,
    managed_rules: true,
    own_payload: false,
    plain_text_is_a_message: false,
    ignores_context_on: &[],
    reason_replaces_result_on: &[],
    shows_every_reason_with_a_block: false,
    extra_fields: &[],
    renamed_fields: &[],
    absent_fields: &[(
        "permission_mode",
        &[CommandEvent::SessionStart, CommandEvent::SessionEnd],
    )],
    tool_output_also_as: &[],
    env: &[("CLAUDE_PROJECT_DIR", HookEnv::ProjectDir)],
    has_env_file: true,
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
    matcher_aliases: &[],
    reads_continue_before_a_tool: true,
    rewritten_input_field: "updatedInput",
    rewrite_needs_allow: false,
    top_level_decision: false,
    claude_form_for_claude_names: false,
    status_line: Some("statusLine"),
    failure_denies_on: &[],
    runs_the_tool_anyway: Some((
        "Claude Code runs the tool when this hook answers `continue: false` or `decision: deny`",
        &[HookAnswer::Continue, HookAnswer::Deny],
    )),
    other_places: &[".claude", ".claude/settings.local.json"],
    http_refused: None,
    unsupported_events: &[],
    own_files: &[OwnFiles {
        provider: PLUGINS,
        priority: 75,
        find: plugin_hooks,
        folder_hooks: Some(plugins::folder_hooks),
    }],
};

/// The root of the Claude Code plugin a hooks file belongs to: `<root>/hooks/hooks.json`
/// next to `<root>/.claude-plugin/plugin.json`.
pub fn plugin_root(hooks_file: &Path) -> Option<&Path> {
    let hooks_dir = hooks_file.parent()?;
    if hooks_dir.file_name()? != "hooks" || hooks_file.file_name()? != "hooks.json" {
        return None;
    }
    let root = hooks_dir.parent()?;
    root.join(".claude-plugin")
        .join("plugin.json")
        .is_file()
        .then_some(root)
}

/// The settings file whose `disableAllHooks: true` turns Claude Code's own hooks off, if one
/// does: the most specific file that sets the key decides (local, then project, then user
/// settings), as Claude Code merges its settings. Managed hooks are not Claude Code's user's
/// to turn off (managed policy has its own `disableAllHooks`). A file that cannot be read or
/// parsed decides nothing; its hooks' own reading reports it.
pub(super) fn hooks_turned_off(cwd: &Path, home: Option<&Path>) -> Option<std::path::PathBuf> {
    use crate::file::{read_checked, Limit, StrictModes};
    let mut files = vec![
        cwd.join(".claude/settings.local.json"),
        cwd.join(".claude/settings.json"),
    ];
    files.extend(home.map(|h| h.join(".claude/settings.json")));
    let mut modes = StrictModes::new(home);
    for file in files {
        let Ok(read) = read_checked(&file, Limit::HooksFile, &mut modes) else {
            continue;
        };
        let value = serde_json::from_slice::<serde_json::Value>(&read.bytes).ok();
        match value.as_ref().and_then(|v| v.get("disableAllHooks")) {
            Some(serde_json::Value::Bool(true)) => return Some(file),
            Some(serde_json::Value::Bool(false)) => return None,
            _ => {}
        }
    }
    None
}
