//! OpenCode (`opencode-ai`) and Kilo Code (`@kilocode/cli`, a fork of OpenCode that loads
//! plugins the same way): neither has command hooks or hooks files; each loads JavaScript and
//! TypeScript plugins in its own process, from `plugins/` (or `plugin/`) in its configuration
//! folders (OpenCode: `~/.config/opencode/` and a project's `.opencode/`; Kilo Code:
//! `~/.config/kilo/` and a project's `.kilo/`), with no trust asked for a project's. A plugin
//! returns handlers, of which `tool.execute.before` is awaited before each tool call (an
//! Error thrown refuses the call, its message the call's result for the model; the arguments
//! can be changed in place) and `tool.execute.after` after each call that did not throw (its
//! output can be changed); the `event` handler sees OpenCode's bus events without being
//! awaited. agent-hooks wires each with one plugin of its own ([`plugin`]), which hands those
//! events to agent-hooks and applies the answer in the plugin's terms. The request carries
//! Claude Code's payload fields under OpenCode's event names and tool names, and the answer
//! it reads is Claude Code's.

use crate::agent::{MatcherRule, Profile, DEFAULT_TIMEOUT};
use crate::event::CommandEvent;

/// The plugin's text, with [`COMMAND_MARK`], [`AGENT_MARK`] and [`VERSION_MARK`] where the
/// command, the agent's name and agent-hooks' version go.
const PLUGIN: &str = include_str!("plugin.ts");

/// The line of [`PLUGIN`] that holds the command it runs.
const COMMAND_MARK: &str = "const COMMAND = \"agent-hooks hook --agent opencode\";";

/// The line of [`PLUGIN`] that holds the agent it was written for.
const AGENT_MARK: &str = "const AGENT = \"opencode\";";

/// The line of [`PLUGIN`] that holds the version of agent-hooks that wrote it.
const VERSION_MARK: &str = "const VERSION = \"\";";

/// The events of OpenCode 1.18.33 (and Kilo Code 7.7.7) a plugin sees, by the names the
/// plugin gives them, each with its moment to agent-hooks' runner. `session.created`,
/// `session.idle`, `session.compacted` and `message.part.updated` are bus events, which the
/// plugin sees without OpenCode waiting for it: their hooks observe (a Stop hook cannot keep
/// a session going); `message.part.updated` counts when a tool part ends in error (a call
/// that threw; a command that exits non-zero is a completed call). `chat.message` is the
/// prompt before it goes to the model, `experimental.session.compacting` the moment before a
/// compaction (which a plugin cannot cancel). There is no end of a session: `opencode run`
/// ends with the process.
const EVENT_NAMES: &[(&str, Option<CommandEvent>)] = &[
    ("session.created", Some(CommandEvent::SessionStart)),
    ("chat.message", Some(CommandEvent::UserPromptSubmit)),
    ("tool.execute.before", Some(CommandEvent::PreToolUse)),
    ("tool.execute.after", Some(CommandEvent::PostToolUse)),
    (
        "message.part.updated",
        Some(CommandEvent::PostToolUseFailure),
    ),
    ("session.idle", Some(CommandEvent::Stop)),
    (
        "experimental.session.compacting",
        Some(CommandEvent::PreCompact),
    ),
    ("session.compacted", Some(CommandEvent::PostCompact)),
    ("session.status", None),
    ("session.error", None),
    ("session.deleted", None),
    ("permission.asked", None),
    ("permission.replied", None),
    ("command.execute.before", None),
    ("chat.params", None),
    ("shell.env", None),
];

/// Every event above with a moment here: the plugin handles these.
const INSTALLED_EVENTS: &[&str] = &[
    "session.created",
    "chat.message",
    "tool.execute.before",
    "tool.execute.after",
    "message.part.updated",
    "session.idle",
    "experimental.session.compacting",
    "session.compacted",
];

/// OpenCode's built-in tools (1.18.33; Kilo Code's are the same): `bash`, `read`, `write`,
/// `edit`, `glob`, `grep`, `webfetch`, `todowrite`, `task`, `skill`; `skill` has no
/// counterpart among agent-hooks' tools and keeps its name.
const TOOLS: &[(&str, &str)] = &[
    ("exec", "bash"),
    ("read", "read"),
    ("write", "write"),
    ("edit", "edit"),
    ("glob", "glob"),
    ("grep", "grep"),
    ("webfetch", "webfetch"),
    ("todo_write", "todowrite"),
    ("run_subagent", "task"),
];

/// A profile of this plugin mechanism: the agent's names, where its plugins go (under the
/// home folder and under the project), and what `install` tells the user.
const fn profile(
    name: &'static str,
    title: &'static str,
    entry_files: (&'static str, &'static str),
    after_install: &'static str,
) -> Profile {
    Profile {
        name,
        title,
        hook_name: Some(name),
        places: &[],
        managed: None,
        // It reads no hooks files.
        owns_file: |_| false,
        matcher_rule: (MatcherRule::Common, MatcherRule::Common),
        timeout_unit: 1.0,
        timeout_unit_by_value: None,
        default_timeout: DEFAULT_TIMEOUT,
        event_names: EVENT_NAMES,
        events_of_its_own: true,
        not_events: &[],
        disabled_list: None,
        installed_events: INSTALLED_EVENTS,
        entry_files,
        entry_file_whole: true,
        entry_fields: (None, None),
        http_entries: false,
        lenient_json: false,
        after_install: Some(after_install),
        fail_open_exit: 1,
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
        // It has no permission modes.
        absent_fields: &[("permission_mode", &[])],
        tool_output_also_as: &[],
        env: &[],
        has_env_file: false,
        tools: TOOLS,
        // Its file tools take `filePath`, which the plugin sends as agent-hooks' `path` and
        // gives back as `filePath`.
        file_path_field: None,
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
    }
}

/// OpenCode.
pub(super) static OPENCODE: Profile = profile(
    "opencode",
    "OpenCode",
    (
        ".config/opencode/plugins/agent-hooks.ts",
        ".opencode/plugins/agent-hooks.ts",
    ),
    "OpenCode loads it when it starts; a project's plugins load with no trust asked.",
);

/// Kilo Code's CLI.
pub(super) static KILO: Profile = profile(
    "kilo",
    "Kilo Code",
    (
        ".config/kilo/plugins/agent-hooks.ts",
        ".kilo/plugins/agent-hooks.ts",
    ),
    "Kilo Code loads it when it starts; a project's plugins load with no trust asked.",
);

/// The plugin `install` writes (`agent-hooks.ts`) for the agent named `agent` (its
/// `--agent` name) with agent-hooks' `version`: it sends each event to the resident process
/// of that version, or runs `command` (a shell command, as the other agents' entries run it)
/// when that cannot answer.
pub(super) fn plugin(agent: &str, command: &str, version: &str) -> String {
    let text = |value: &str| serde_json::Value::String(value.to_owned()).to_string();
    PLUGIN
        .replacen(
            COMMAND_MARK,
            &format!("const COMMAND = {};", text(command)),
            1,
        )
        .replacen(AGENT_MARK, &format!("const AGENT = {};", text(agent)), 1)
        .replacen(
            VERSION_MARK,
            &format!("const VERSION = {};", text(version)),
            1,
        )
}

/// The command a plugin written by [`plugin`] runs, read back from its `text`.
pub(super) fn command_of(text: &str) -> Option<String> {
    let line = text
        .lines()
        .find_map(|line| line.strip_prefix("const COMMAND = "))?;
    serde_json::from_str(line.strip_suffix(';')?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plugin_runs_the_command_given_for_the_agent_given() {
        let text = plugin("kilo", "'/opt/a b/agent-hooks-hook' --agent kilo", "1.2.3");
        assert!(text.contains(r#"const COMMAND = "'/opt/a b/agent-hooks-hook' --agent kilo";"#));
        assert!(text.contains(r#"const AGENT = "kilo";"#));
        assert!(text.contains(r#"const VERSION = "1.2.3";"#));
        for mark in [COMMAND_MARK, AGENT_MARK, VERSION_MARK] {
            assert!(!text.contains(mark), "{mark}");
        }
        assert_eq!(
            command_of(&text).as_deref(),
            Some("'/opt/a b/agent-hooks-hook' --agent kilo")
        );
        assert_eq!(command_of("const X = 1;"), None);
    }

    #[test]
    fn the_plugin_handles_every_installed_event() {
        for event in INSTALLED_EVENTS {
            assert!(
                PLUGIN.contains(&format!("\"{event}\"")),
                "{event} is not in the plugin"
            );
        }
    }
}
