//! GitHub Copilot CLI (`@github/copilot`): every `*.json` of `.github/hooks/` and
//! `~/.copilot/hooks/`, the `hooks` of its settings files, `/etc/github-copilot/policy.d/`.
//! Its own format (`hooks_file.rs`): camelCase events listing their hooks, its own
//! payloads and answers; a file may also use Claude Code's names (its VS Code-compatible
//! form), whose hooks then see Claude Code's fields.

mod hooks_file;

use std::time::Duration;

use serde_json::{json, Map, Value};

use super::decision::{AgentEvent, Decision, ToAgent};
use crate::agent::{HookEnv, Managed, MatcherRule, Place, PlaceFiles, Profile};

use crate::event::CommandEvent;
pub use hooks_file::claude_fields;
pub(crate) use hooks_file::{interpret, parse, payload};

/// Whether a payload `agent-hooks hook` was given came in Copilot CLI's own form (that of
/// its own hooks files): no event name, and `toolName` or `timestamp`.
pub(super) fn sent_in_own_form(payload: &Map<String, Value>) -> bool {
    !payload.contains_key("hook_event_name")
        && (payload.contains_key("toolName") || payload.contains_key("timestamp"))
}

/// Copilot CLI.
pub(super) static PROFILE: Profile = Profile {
    name: "copilot-cli",
    title: "Copilot CLI",
    hook_name: Some("copilot"),
    places: &[
        Place {
            provider: "copilot (user)",
            priority: 30,
            project: false,
            files: PlaceFiles::Folder(".copilot/hooks", Some("COPILOT_HOME")),
        },
        Place {
            provider: "copilot settings (user)",
            priority: 29,
            project: false,
            files: PlaceFiles::Files(&[(".copilot/settings.json", true)]),
        },
        Place {
            provider: "copilot (project)",
            priority: 25,
            project: true,
            files: PlaceFiles::Folder(".github/hooks", None),
        },
        Place {
            provider: "copilot settings (project)",
            priority: 24,
            project: true,
            files: PlaceFiles::Files(&[
                (".github/copilot/settings.json", true),
                (".github/copilot/settings.local.json", true),
            ]),
        },
    ],
    managed: Some(Managed {
        provider: "copilot-cli (managed)",
        priority: 170,
        files: &[("etc/github-copilot/policy.d", true)],
    }),
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
    timeout_unit_by_value: None,
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
    disabled_list: None,
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
    entry_file_whole: true,
    entry_fields: (None, None),
    http_entries: false,
    lenient_json: false,
    after_install: None,
    // It denies the tool for any other exit of a `preToolUse` hook (the problem is then
    // said on stderr alone).
    fail_open_exit: 0,
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
    reads_continue_before_a_tool: true,
    rewritten_input_field: "updatedInput",
    rewrite_needs_allow: false,
    top_level_decision: false,
    claude_form_for_claude_names: true,
    status_line: None,
    // docs/command-hooks.md#copilot-cli
    failure_denies_on: &[CommandEvent::PreToolUse, CommandEvent::PermissionRequest],
    runs_the_tool_anyway: None,
    other_places: &[],
    http_refused: Some(
        "Copilot CLI 1.0.102 refuses plain http:// for preToolUse and permissionRequest hooks",
    ),
    unsupported_events: &[],
    own_files: &[],
};

/// The answer to an event that came in Copilot CLI's own form (docs/command-hooks.md): a
/// deny, or a stop that keeps the agent going, is JSON; `permissionDecision` and
/// `modifiedArgs` on `preToolUse` (1.0.102 runs `modifiedArgs` and ignores `updatedInput`),
/// `modifiedResult` and `additionalContext` on `postToolUse`, `additionalContext` at the start
/// and on a prompt. Messages and problems are its progress lines, which it shows the user and
/// does not give the model; any exit but 0 of a preToolUse hook denies the tool there ("hook
/// errored"), while its own hook that times out lets the tool run: problems never change the
/// exit code.
pub(super) fn answer(event: &AgentEvent, d: &Decision, problems: &[String]) -> ToAgent {
    let mut reply = ToAgent::default();
    let block_field = match event.event {
        "PreToolUse" | "PermissionRequest" => Some("permissionDecision"),
        "Stop" | "SubagentStop" => Some("decision"),
        _ => None,
    };
    if let (Some(reason), Some(field)) = (&d.block, block_field) {
        let answer = if field == "decision" {
            json!({"decision": "block", "reason": reason})
        } else {
            json!({"permissionDecision": "deny", "permissionDecisionReason": reason})
        };
        // The deny is what the user sees, as with its own hook that fails ("hook errored"):
        // the problems behind it go to stderr, not into its progress.
        reply.stdout = format!("{}{answer}\n", progress_lines(&d.messages));
        reply.notes.push(reason.clone());
        return reply;
    }
    if let Some(reason) = &d.block {
        reply.code = 2;
        reply.notes.push(reason.clone());
        return reply;
    }
    let mut answer = Map::new();
    match event.event {
        "PreToolUse" => {
            if let Some(reason) = &d.ask {
                answer.insert("permissionDecision".into(), json!("ask"));
                answer.insert("permissionDecisionReason".into(), json!(reason));
            } else if d.approve || d.input.is_some() {
                answer.insert("permissionDecision".into(), json!("allow"));
            }
            if let Some(input) = &d.input {
                answer.insert("modifiedArgs".into(), input.clone());
            }
        }
        "PostToolUse" => {
            if let Some(text) = &d.replacement {
                answer.insert(
                    "modifiedResult".into(),
                    json!({"resultType": "success", "textResultForLlm": text}),
                );
            }
        }
        _ => {}
    }
    let mut context = d.feedback.clone();
    context.extend(d.context.iter().cloned());
    let reads_context = matches!(
        event.event,
        "PostToolUse" | "PostToolUseFailure" | "SessionStart" | "UserPromptSubmit"
    );
    if reads_context && !context.is_empty() {
        answer.insert("additionalContext".into(), json!(context.join("\n")));
    }
    if !answer.is_empty() {
        reply.stdout = format!("{}\n", Value::Object(answer));
    }
    let mut shown = d.messages.clone();
    shown.extend(problems.iter().cloned());
    reply.stdout.insert_str(0, &progress_lines(&shown));
    reply
}

/// Its hooks file of agent-hooks' own: every installed event runs `command --event NAME`
/// (its payloads do not name the event), each allowed 10 minutes.
pub(super) fn entry_file(command: &str) -> String {
    let mut hooks = Map::new();
    for event in PROFILE.installed_events {
        hooks.insert(
            (*event).to_owned(),
            json!([{"type": "command", "bash": format!("{command} --event {event}"), "timeoutSec": 600}]),
        );
    }
    let mut file = Map::new();
    file.insert("version".into(), json!(1));
    file.insert("hooks".into(), Value::Object(hooks));
    let mut text = serde_json::to_string_pretty(&file).unwrap_or_default();
    text.push('\n');
    text
}

/// Messages for the user, as its progress lines (one JSON object a line, before the answer).
fn progress_lines(messages: &[String]) -> String {
    messages
        .iter()
        .map(|message| format!("{}\n", json!({"type": "progress", "message": message})))
        .collect()
}
