//! Gemini CLI (`@google/gemini-cli`): the `hooks` of `~/.gemini/settings.json` and
//! `.gemini/settings.json`, its extensions' hooks, `/etc/gemini-cli/settings.json`. Its
//! events have names of their own, its timeouts are milliseconds, and it reads a hook's
//! answer in ways of its own (measured with the real agent).

mod extensions;
mod settings_file;
mod trust;

pub(crate) use settings_file::{extension_root, hooks_turned_off, normalize, strip_comments};
pub(crate) use trust::read_json;
pub use trust::GeminiTrust;

use crate::agent::{
    HookAnswer, HookEnv, Managed, MatcherRule, OwnFiles, Place, PlaceFiles, Profile,
    DEFAULT_TIMEOUT,
};
use crate::event::CommandEvent;

/// Gemini CLI.
pub(super) static PROFILE: Profile = Profile {
    name: "gemini-cli",
    title: "Gemini CLI",
    hook_name: Some("gemini"),
    places: &[
        Place {
            provider: "gemini (user)",
            priority: 50,
            project: false,
            files: PlaceFiles::Files(&[(".gemini/settings.json", true)]),
        },
        Place {
            provider: "gemini (project)",
            priority: 45,
            project: true,
            files: PlaceFiles::Files(&[(".gemini/settings.json", true)]),
        },
    ],
    managed: Some(Managed {
        provider: "gemini-cli (managed)",
        priority: 180,
        files: &[("etc/gemini-cli/settings.json", false)],
    }),
    owns_file: |at| at.has(".gemini"),
    // A regex for tool events, an exact string for the others.
    matcher_rule: (MatcherRule::RegexOnTools, MatcherRule::RegexOnTools),
    timeout_unit: 0.001,
    timeout_unit_by_value: None,
    default_timeout: DEFAULT_TIMEOUT,
    event_names: &[
        ("BeforeTool", Some(CommandEvent::PreToolUse)),
        ("AfterTool", Some(CommandEvent::PostToolUse)),
        ("BeforeAgent", Some(CommandEvent::UserPromptSubmit)),
        ("AfterAgent", Some(CommandEvent::Stop)),
        ("PreCompress", Some(CommandEvent::PreCompact)),
    ],
    events_of_its_own: false,
    not_events: &["enabled", "disabled", "notifications"],
    disabled_list: Some("disabled"),
    // Every event of 0.61.0 but `BeforeModel`, `AfterModel` and `BeforeToolSelection` (the
    // runner has no model-request moment: an entry would only start a process per request).
    installed_events: &[
        "SessionStart",
        "BeforeAgent",
        "BeforeTool",
        "AfterTool",
        "AfterAgent",
        "PreCompress",
        "Notification",
        "SessionEnd",
    ],
    entry_files: (".gemini/settings.json", ".gemini/settings.json"),
    entry_file_whole: false,
    // Its timeouts are milliseconds, its default 60 s.
    entry_fields: (Some("agent-hooks"), Some(600_000)),
    http_entries: false,
    lenient_json: true,
    after_install: None,
    fail_open_exit: 1,
    also_runs_project_files_of: &[],
    ignores_once: false,
    managed_rules: false,
    own_payload: false,
    // A hook's text that is not JSON (stdout, or stderr when stdout is empty) is shown to
    // the user on exit 0 and blocks with it as the reason on any exit code but 0, 1 and 2.
    plain_text_is_a_message: true,
    ignores_context_on: &[CommandEvent::PreToolUse],
    // AfterTool's `decision: deny` (and exit 2) replaces the tool's result for the model.
    reason_replaces_result_on: &[CommandEvent::PostToolUse],
    shows_every_reason_with_a_block: true,
    extra_fields: &["timestamp"],
    renamed_fields: &[],
    absent_fields: &[
        ("permission_mode", &[]),
        ("prompt_id", &[]),
        ("tool_use_id", &[]),
    ],
    tool_output_also_as: &["llmContent", "returnDisplay"],
    env: &[
        ("CLAUDE_PROJECT_DIR", HookEnv::ProjectDir),
        ("GEMINI_PROJECT_DIR", HookEnv::ProjectDir),
        ("GEMINI_CWD", HookEnv::ProjectDir),
        ("GEMINI_SESSION_ID", HookEnv::SessionId),
    ],
    has_env_file: false,
    tools: &[
        ("exec", "run_shell_command"),
        ("read", "read_file"),
        ("write", "write_file"),
        ("edit", "replace"),
        ("glob", "glob"),
        ("grep", "search_file_content"),
        ("webfetch", "web_fetch"),
        ("todo_write", "write_todos"),
        ("notebook_read", "notebook_read"),
        ("notebook_edit", "notebook_edit"),
        ("run_subagent", "run_subagent"),
    ],
    file_path_field: Some("file_path"),
    matcher_aliases: &[],
    reads_continue_before_a_tool: true,
    rewritten_input_field: "tool_input",
    rewrite_needs_allow: false,
    top_level_decision: true,
    claude_form_for_claude_names: false,
    status_line: None,
    failure_denies_on: &[],
    runs_the_tool_anyway: Some((
        "Gemini CLI runs the tool when this hook exits 2 with nothing on stderr or answers `permissionDecision: deny` or `ask`",
        &[HookAnswer::Exit2, HookAnswer::Deny, HookAnswer::Ask],
    )),
    other_places: &[],
    http_refused: None,
    unsupported_events: &[
        (
            "BeforeModel",
            "Gemini CLI's model-request event; this runner does not see model requests",
        ),
        (
            "AfterModel",
            "Gemini CLI's model-response event; this runner does not see model responses",
        ),
        (
            "BeforeToolSelection",
            "Gemini CLI's tool-selection event; this runner does not filter tools per request",
        ),
    ],
    own_files: &[OwnFiles {
        provider: "gemini-cli extensions",
        priority: 48,
        find: extensions::find,
        folder_hooks: None,
    }],
};
