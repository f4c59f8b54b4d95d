//! Factory Droid (`droid` on npm, also `@factory/cli`): the `hooks` of
//! `~/.factory/settings.json` and `.factory/settings.json`, `~/.factory/hooks.json` and
//! `.factory/hooks.json` (events at the top), `/etc/factory/settings.json`. Claude Code's
//! form, its own tool names (`Execute`, `Create`, ...). Measured with droid 0.215.0 running
//! headless (`droid exec`) against a fake model:
//!
//! - Its events are Claude Code's classic nine, by Claude Code's names. `droid exec` fires
//!   `SessionStart`, `PreToolUse`, `PostToolUse`, `Stop` and `SessionEnd`; it sends
//!   `UserPromptSubmit` only in its interactive sessions.
//! - A matcher is `*`, `""` or none (every tool), the tool's exact name, or else an
//!   unanchored regular expression. A group may also carry `commandRegex`, which droid
//!   tests against an `Execute` call's command.
//! - The hooks of `/etc/factory/settings.json` (its managed settings on Linux) run too.
//! - Within one folder, `hooks.json` takes the place of the `hooks` of `settings.json` event
//!   by event (an event listed in both runs the `hooks.json` list only); the user's and the
//!   project's lists are joined. `.factory/settings.local.json` holds no hooks for it.
//! - `droid exec` runs a project's hooks without asking (its folder trust is asked only in
//!   the interactive interface).
//! - `timeout` is in seconds (60 when none); a hook cut at its timeout counts as exit 1,
//!   which droid reads as a warning, and the tool runs; the stderr of a hook that exits 1
//!   goes at the head of the tool's result for the model, that of one that exits 0 nowhere
//!   (`droid exec` shows no hook's output).
//! - Exit 2 blocks with stderr as the reason; exit 3 aborts the whole run; `continue:
//!   false` stops it; `hookSpecificOutput.permissionDecision` `deny` blocks and `allow` with
//!   `updatedInput` runs the call with those fields put over its input.
//! - Its hooks get `FACTORY_PROJECT_DIR`, `DROID_PROJECT_DIR` and `CLAUDE_PROJECT_DIR`, and
//!   each top-level text field of the payload as a variable of its name (`session_id`,
//!   `tool_name`, `cwd`; at `SessionStart`, `CLAUDE_ENV_FILE`).

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use super::decision::{AgentEvent, ToAgent};
use crate::agent::{HookEnv, Managed, MatcherRule, Place, PlaceFiles, Profile, DEFAULT_TIMEOUT};

/// Factory Droid.
pub(super) static PROFILE: Profile = Profile {
    name: "factory-droid",
    title: "Factory Droid",
    hook_name: Some("droid"),
    places: &[
        Place {
            provider: "droid (user)",
            priority: 12,
            project: false,
            files: PlaceFiles::Files(&[
                (".factory/settings.json", true),
                (".factory/hooks.json", false),
            ]),
        },
        Place {
            provider: "droid (project)",
            priority: 11,
            project: true,
            files: PlaceFiles::Files(&[
                (".factory/settings.json", true),
                (".factory/hooks.json", false),
            ]),
        },
    ],
    managed: Some(Managed {
        provider: "factory-droid (managed)",
        priority: 150,
        files: &[("etc/factory/settings.json", false)],
    }),
    owns_file: |at| at.has(".factory"),
    // `*`, `""` or none: every tool; otherwise an exact name or an unanchored regex.
    matcher_rule: (MatcherRule::RegexOrStar, MatcherRule::RegexOrStar),
    timeout_unit: 1.0,
    timeout_unit_by_value: None,
    default_timeout: DEFAULT_TIMEOUT,
    event_names: &[],
    events_of_its_own: false,
    not_events: &["hooksDisabled", "showHookOutput"],
    disabled_list: None,
    installed_events: &[
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "Notification",
        "SubagentStop",
        "Stop",
        "PreCompact",
        "SessionEnd",
    ],
    // The `hooks` of settings.json: the file Factory documents, and one whose entries shadow
    // none of the user's own (an event of hooks.json would replace settings.json's).
    entry_files: (".factory/settings.json", ".factory/settings.json"),
    entry_file_whole: false,
    // Its default timeout is 60 s; agent-hooks bounds each hook itself.
    entry_fields: (None, Some(600)),
    http_entries: false,
    lenient_json: true,
    after_install: None,
    // Droid puts a hook's stderr on exit 1 at the head of the tool's result for the model;
    // on exit 0 it keeps stderr from the model. A problem meant for the user exits 0.
    fail_open_exit: 0,
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
    // It sends neither on any event. (Its `SessionStart` also has no `model` or
    // `agent_type`, its `Stop` no `last_assistant_message`; agent-hooks gives a hook what
    // the calling agent sent.)
    absent_fields: &[("prompt_id", &[]), ("tool_use_id", &[])],
    tool_output_also_as: &[],
    env: &[
        ("CLAUDE_PROJECT_DIR", HookEnv::ProjectDir),
        ("FACTORY_PROJECT_DIR", HookEnv::ProjectDir),
        ("DROID_PROJECT_DIR", HookEnv::ProjectDir),
        ("session_id", HookEnv::SessionId),
    ],
    has_env_file: true,
    tools: &[
        ("exec", "Execute"),
        ("read", "Read"),
        ("write", "Create"),
        ("edit", "Edit"),
        ("glob", "Glob"),
        ("grep", "Grep"),
        ("webfetch", "FetchUrl"),
        ("todo_write", "TodoWrite"),
        ("run_subagent", "Task"),
    ],
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

/// Where droid's `hooks.json` takes the place of the `hooks` of `settings`, the settings file
/// `install` writes its entry into: the `hooks.json` beside it (or, without one, its
/// `hooks/hooks.json`) and the events of `events` that file lists. Droid reads that file's
/// list of such an event and not the settings file's, so an entry there would never run.
/// `None` when no such file lists one of them (or it cannot be read: droid ignores it too).
pub(super) fn shadowing(settings: &Path, events: &[&str]) -> Option<(PathBuf, Vec<String>)> {
    let folder = settings.parent()?;
    let beside = folder.join("hooks.json");
    let file = if beside.is_file() {
        beside
    } else {
        folder.join("hooks").join("hooks.json")
    };
    let text = std::fs::read_to_string(&file).ok()?;
    let lists = |event: &str| match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(value) => value.get(event).is_some(),
        // Droid reads comments and trailing commas too: a key of that name is enough.
        Err(_) => text
            .match_indices(&format!("\"{event}\""))
            .any(|(at, key)| text[at + key.len()..].trim_start().starts_with(':')),
    };
    let listed: Vec<String> = events
        .iter()
        .filter(|e| lists(e))
        .map(|e| (*e).to_owned())
        .collect();
    (!listed.is_empty()).then_some((file, listed))
}

/// The answer of Claude Code's form put in the terms droid 0.215.0 reads: before a tool it
/// reads no top-level `decision` (a block is `permissionDecision: "deny"`), after a tool it
/// gives the model the stderr of an exit 2 and no `reason`; and whatever it gets on stderr
/// with an exit 2 goes to the model, so the problems meant for the user go in
/// `systemMessage` instead.
pub(super) fn in_droid_terms(reply: &mut ToAgent, event: &AgentEvent, problems: &[String]) {
    let mut fields = match serde_json::from_str::<Value>(reply.stdout.trim()) {
        Ok(Value::Object(fields)) => fields,
        _ if reply.stdout.trim().is_empty() => Map::new(),
        _ => return,
    };
    let blocks = fields.get("decision").and_then(Value::as_str) == Some("block");
    let reason = fields
        .get("reason")
        .and_then(Value::as_str)
        .map(str::to_owned);
    match (event.event, blocks, reason) {
        ("PreToolUse", true, Some(reason)) => {
            fields.remove("decision");
            fields.remove("reason");
            let specific = fields
                .entry("hookSpecificOutput")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(specific) = specific {
                specific.insert("hookEventName".into(), json!(event.agent_event));
                specific.insert("permissionDecision".into(), json!("deny"));
                specific.insert("permissionDecisionReason".into(), json!(reason));
            }
        }
        ("PostToolUse", true, Some(reason)) => {
            fields.remove("decision");
            fields.remove("reason");
            reply.code = 2;
            reply.notes.retain(|n| !problems.contains(n));
            reply.notes.insert(0, reason);
        }
        _ => {}
    }
    if reply.code == 2 && !problems.is_empty() {
        reply.notes.retain(|n| !problems.contains(n));
        if !fields.contains_key("systemMessage") {
            fields.insert("systemMessage".into(), json!(problems.join("\n")));
        }
    }
    reply.stdout = if fields.is_empty() {
        String::new()
    } else {
        format!("{}\n", Value::Object(fields))
    };
}
