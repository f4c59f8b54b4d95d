//! pi (`@earendil-works/pi-coding-agent`): it has no hooks files; it runs TypeScript
//! extensions in its own process, from `~/.pi/agent/extensions/` and, once the project is
//! trusted, a project's `.pi/extensions/`. agent-hooks wires it with one extension of its
//! own ([`extension`]), which hands each of pi's events to `agent-hooks hook --agent pi` and
//! applies the answer in pi's terms. The request it sends carries Claude Code's payload
//! fields under pi's event names and pi's tool names, and the answer it reads is Claude
//! Code's: the form every other agent's is read against, written once here for pi.

use serde_json::{Map, Value};

use super::decision::{Decision, ToAgent};
use crate::agent::{MatcherRule, Profile, DEFAULT_TIMEOUT};
use crate::event::CommandEvent;

/// The extension's text, with [`COMMAND_MARK`] where the command goes and [`VERSION_MARK`]
/// where the version goes.
const EXTENSION: &str = include_str!("extension.ts");

/// The line of [`EXTENSION`] that holds the command it runs.
const COMMAND_MARK: &str = "const COMMAND = \"agent-hooks hook --agent pi\";";

/// The line of [`EXTENSION`] that holds the version of agent-hooks that wrote it.
const VERSION_MARK: &str = "const VERSION = \"\";";

/// The name the extension sends a failed tool's `tool_result` (`isError`) by: not an event
/// of pi's of its own, so it is not among the events the extension subscribes to.
const FAILED_RESULT: &str = "tool_result (isError)";

/// pi.
pub(super) static PROFILE: Profile = Profile {
    name: "pi",
    title: "pi",
    hook_name: Some("pi"),
    places: &[],
    managed: None,
    // It reads no hooks files.
    owns_file: |_| false,
    matcher_rule: (MatcherRule::Common, MatcherRule::Common),
    timeout_unit: 1.0,
    timeout_unit_by_value: None,
    default_timeout: DEFAULT_TIMEOUT,
    // pi's events (its extensions' `pi.on` names, read from 1.6.0), each with the moment it
    // is to agent-hooks' runner. `input` is the prompt as typed (it can be refused or left
    // alone), `agent_before_settle` the last moment a run can be kept going (a stop hook's
    // block continues it), `session_shutdown` the end of every session. pi has one
    // `tool_result` for every call that ran: the extension sends one with `isError` (the
    // tool threw, or `bash` exited non-zero; a blocked call has none) as
    // [`FAILED_RESULT`], Claude Code's failure with the result's text as its `error`.
    event_names: &[
        ("session_start", Some(CommandEvent::SessionStart)),
        ("input", Some(CommandEvent::UserPromptSubmit)),
        ("tool_call", Some(CommandEvent::PreToolUse)),
        ("tool_result", Some(CommandEvent::PostToolUse)),
        (FAILED_RESULT, Some(CommandEvent::PostToolUseFailure)),
        ("agent_before_settle", Some(CommandEvent::Stop)),
        ("session_before_compact", Some(CommandEvent::PreCompact)),
        ("session_compact", Some(CommandEvent::PostCompact)),
        ("session_shutdown", Some(CommandEvent::SessionEnd)),
        ("before_agent_start", None),
        ("agent_start", None),
        ("agent_end", None),
        ("agent_settled", None),
        ("turn_start", None),
        ("turn_end", None),
        ("context", None),
        ("user_bash", None),
    ],
    events_of_its_own: true,
    not_events: &[],
    disabled_list: None,
    // Every event above with a moment here: the extension subscribes to these.
    installed_events: &[
        "session_start",
        "input",
        "tool_call",
        "tool_result",
        "agent_before_settle",
        "session_before_compact",
        "session_compact",
        "session_shutdown",
    ],
    entry_files: (
        ".pi/agent/extensions/agent-hooks.ts",
        ".pi/extensions/agent-hooks.ts",
    ),
    entry_file_whole: true,
    entry_fields: (None, None),
    http_entries: false,
    lenient_json: false,
    after_install: Some(
        "pi loads it when it starts (/reload in a running pi); a project's extensions load once pi trusts the project.",
    ),
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
    // pi has no permission modes.
    absent_fields: &[("permission_mode", &[])],
    tool_output_also_as: &[],
    env: &[],
    has_env_file: false,
    // pi's built-in tools (1.6.0): `bash`, `read`, `edit`, `write`, `grep`, `find`, `ls`;
    // `ls` has no counterpart among agent-hooks' tools and keeps its name.
    tools: &[
        ("exec", "bash"),
        ("read", "read"),
        ("write", "write"),
        ("edit", "edit"),
        ("glob", "find"),
        ("grep", "grep"),
    ],
    // Its file tools take `path`, as agent-hooks' do.
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
};

/// The extension `install` writes (`agent-hooks.ts`) with agent-hooks' `version`: it sends
/// each of pi's events to the resident process of that version, or runs `command` (a shell
/// command, as the other agents' entries run it) when that cannot answer.
pub(super) fn extension(command: &str, version: &str) -> String {
    let text = |value: &str| serde_json::Value::String(value.to_owned()).to_string();
    EXTENSION
        .replacen(
            COMMAND_MARK,
            &format!("const COMMAND = {};", text(command)),
            1,
        )
        .replacen(
            VERSION_MARK,
            &format!("const VERSION = {};", text(version)),
            1,
        )
}

/// pi's answer: Claude Code's, with the tool's result whole (`content`, agent-hooks' content
/// blocks) where the hooks changed it, which the extension gives pi in place of its own (pi
/// takes a changed result whole, where Claude Code takes text after it). A block (exit code 2)
/// stays as it is.
pub(super) fn with_content(answer: &mut ToAgent, decision: &Decision) {
    let Some(content) = &decision.content else {
        return;
    };
    if answer.code != 0 {
        return;
    }
    let mut fields = match serde_json::from_str::<Value>(answer.stdout.trim()) {
        Ok(Value::Object(fields)) => fields,
        _ if answer.stdout.trim().is_empty() => Map::new(),
        // Not an answer this adds to.
        _ => return,
    };
    fields.insert("content".into(), content.clone());
    answer.stdout = format!("{}\n", Value::Object(fields));
}

/// The command an extension written by [`extension`] runs, read back from its `text`.
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
    fn a_changed_result_is_added_whole_and_a_block_is_left_alone() {
        let decision = Decision {
            content: Some(serde_json::json!([{"type": "text", "text": "API_KEY=[REDACTED]"}])),
            ..Decision::default()
        };
        let mut answer = ToAgent::default();
        with_content(&mut answer, &decision);
        assert!(answer.stdout.ends_with('\n'));
        assert_eq!(
            serde_json::from_str::<Value>(&answer.stdout).ok(),
            Some(serde_json::json!({"content": [{"type": "text", "text": "API_KEY=[REDACTED]"}]}))
        );
        let mut blocked = ToAgent {
            code: 2,
            ..ToAgent::default()
        };
        with_content(&mut blocked, &decision);
        assert_eq!(blocked.stdout, "");
    }

    #[test]
    fn the_extension_runs_the_command_given() {
        let text = extension("'/opt/a b/agent-hooks-hook' --agent pi", "1.2.3");
        assert!(text.contains(r#"const COMMAND = "'/opt/a b/agent-hooks-hook' --agent pi";"#));
        assert!(text.contains(r#"const VERSION = "1.2.3";"#));
        assert!(!text.contains(COMMAND_MARK));
        assert!(!text.contains(VERSION_MARK));
        assert_eq!(
            command_of(&text).as_deref(),
            Some("'/opt/a b/agent-hooks-hook' --agent pi")
        );
        assert_eq!(command_of("const X = 1;"), None);
    }

    #[test]
    fn the_extension_sends_every_event_with_a_moment() {
        for (event, moment) in PROFILE.event_names {
            if moment.is_some() {
                assert!(
                    EXTENSION.contains(&format!("\"{event}\"")),
                    "{event} is not in the extension"
                );
            }
        }
    }

    #[test]
    fn the_extension_subscribes_to_every_installed_event() {
        for event in PROFILE.installed_events {
            assert!(
                EXTENSION.contains(&format!("\"{event}\"")),
                "{event} is not in the extension"
            );
        }
    }
}
