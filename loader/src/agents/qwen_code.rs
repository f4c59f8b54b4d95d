//! Qwen Code (`@qwen-code/qwen-code`): the `hooks` of `~/.qwen/settings.json` and
//! `.qwen/settings.json`, and of `/etc/qwen-code/settings.json` and
//! `/etc/qwen-code/system-defaults.json`. Claude Code's events, payload fields and answer
//! fields, with its own tool names (`run_shell_command`, `write_file`, ...), timeouts in
//! seconds (a value of 1000 or more still read as milliseconds), and answers it reads in
//! ways of its own (read from 0.24.4 and measured with the real agent,
//! tests/real-agents/qwen.rs): it takes no rewritten input before a tool, and after a tool
//! it reads only `additionalContext` and `continue`.

use serde_json::{json, Map, Value};

use super::decision::{AgentEvent, Decision, ToAgent};
use crate::agent::{HookEnv, Managed, MatcherRule, Place, PlaceFiles, Profile, DEFAULT_TIMEOUT};
use crate::event::CommandEvent;

/// The smallest `timeout` Qwen Code reads as milliseconds rather than seconds.
const MILLISECONDS_FROM: f64 = 1000.0;

/// Qwen Code.
pub(super) static PROFILE: Profile = Profile {
    name: "qwen-code",
    title: "Qwen Code",
    hook_name: Some("qwen"),
    places: &[
        Place {
            provider: "qwen (user)",
            priority: 48,
            project: false,
            files: PlaceFiles::Files(&[(".qwen/settings.json", true)]),
        },
        Place {
            provider: "qwen (project)",
            priority: 43,
            project: true,
            files: PlaceFiles::Files(&[(".qwen/settings.json", true)]),
        },
    ],
    managed: Some(Managed {
        provider: "qwen-code (managed)",
        priority: 150,
        files: &[
            ("etc/qwen-code/system-defaults.json", false),
            ("etc/qwen-code/settings.json", false),
        ],
    }),
    owns_file: |at| at.has(".qwen"),
    // `""`, `*` and `.*` match every tool; a name matches exactly (its aliases too: `Bash`
    // selects `run_shell_command`); anything else is an unanchored regex.
    matcher_rule: (MatcherRule::RegexOrStar, MatcherRule::RegexOrStar),
    // Seconds; 1000 or more is milliseconds ([`timeout_unit`]).
    timeout_unit: 1.0,
    timeout_unit_by_value: Some(timeout_unit),
    default_timeout: DEFAULT_TIMEOUT,
    // Claude Code's names. Its `TodoCreated`, `TodoCompleted` and `SessionDelete` have no
    // moment here: a file's hooks on them are reported and do not run.
    event_names: &[],
    events_of_its_own: false,
    not_events: &["enabled", "disabled", "notifications"],
    disabled_list: None,
    // Every event of 0.24.4 with a moment here but `MessageDisplay` (it fires for every
    // streamed piece of an answer, each a process).
    installed_events: &[
        "SessionStart",
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
        "PreCompact",
        "PostCompact",
        "SessionEnd",
    ],
    entry_files: (".qwen/settings.json", ".qwen/settings.json"),
    entry_file_whole: false,
    // Its default is 60 s; agent-hooks bounds each hook itself.
    entry_fields: (Some("agent-hooks"), Some(600)),
    http_entries: false,
    // It strips `//` and `/* */` comments before parsing its settings.
    lenient_json: true,
    after_install: Some(
        "Qwen Code reads it when it starts; with its folder trust on (security.folderTrust.enabled), a project's settings count only in a folder it trusts.",
    ),
    fail_open_exit: 1,
    also_runs_project_files_of: &[],
    // It has no `once`: such a hook runs every time.
    ignores_once: true,
    managed_rules: false,
    own_payload: false,
    // Plain stdout on exit 0 is context on SessionStart and UserPromptSubmit and shown to
    // the user elsewhere; only exit 2 blocks.
    plain_text_is_a_message: false,
    ignores_context_on: &[],
    reason_replaces_result_on: &[],
    // Its aggregator joins the reasons of every hook of the event, an allowing one's too.
    shows_every_reason_with_a_block: true,
    extra_fields: &["timestamp"],
    renamed_fields: &[],
    absent_fields: &[("prompt_id", &[CommandEvent::SessionStart])],
    tool_output_also_as: &["llmContent", "returnDisplay"],
    env: &[
        ("QWEN_PROJECT_DIR", HookEnv::ProjectDir),
        ("CLAUDE_PROJECT_DIR", HookEnv::ProjectDir),
        ("GEMINI_PROJECT_DIR", HookEnv::ProjectDir),
        ("QWEN_CODE_SESSION_ID", HookEnv::SessionId),
    ],
    has_env_file: false,
    // Its built-in tools (0.24.4); it has no notebook reader.
    tools: &[
        ("exec", "run_shell_command"),
        ("read", "read_file"),
        ("write", "write_file"),
        ("edit", "edit"),
        ("glob", "glob"),
        ("grep", "grep_search"),
        ("webfetch", "web_fetch"),
        ("todo_write", "todo_write"),
        ("notebook_edit", "notebook_edit"),
        ("run_subagent", "agent"),
    ],
    file_path_field: Some("file_path"),
    // The names its matchers take for a tool besides its own (its display names and
    // Claude Code's), matched exactly.
    matcher_aliases: &[
        ("run_shell_command", &["Bash", "Shell", "ShellTool"]),
        ("read_file", &["Read", "ReadFile", "ReadFileTool"]),
        ("write_file", &["Write", "WriteFile", "WriteFileTool"]),
        ("edit", &["Edit", "EditTool", "replace"]),
        ("glob", &["Glob", "GlobTool", "FindFiles"]),
        (
            "grep_search",
            &["Grep", "GrepTool", "search_file_content", "SearchFiles"],
        ),
        ("list_directory", &["ListFiles", "ListFilesTool", "ReadFolder"]),
        ("web_fetch", &["WebFetch", "WebFetchTool"]),
        ("web_search", &["WebSearch", "WebSearchTool"]),
        ("todo_write", &["TodoList", "TodoWrite", "TodoWriteTool"]),
        ("notebook_edit", &["NotebookEdit", "NotebookEditTool"]),
        ("agent", &["Agent", "AgentTool", "task", "Task", "TaskTool"]),
    ],
    reads_continue_before_a_tool: true,
    rewritten_input_field: "updatedInput",
    rewrite_needs_allow: false,
    top_level_decision: false,
    claude_form_for_claude_names: false,
    // It has one (`ui.statusLine`), not wired by `install --status-line`: its input is not
    // checked against what agent-hooks' status line reads.
    status_line: None,
    failure_denies_on: &[],
    runs_the_tool_anyway: None,
    other_places: &[],
    http_refused: None,
    unsupported_events: &[],
    own_files: &[],
};

/// How many seconds one unit of `timeout` is in a Qwen Code file: seconds, but a value of
/// 1000 or more keeps the milliseconds its older releases read.
pub(crate) fn timeout_unit(timeout: &Value) -> f64 {
    match timeout.as_f64() {
        Some(value) if value >= MILLISECONDS_FROM => 0.001,
        _ => 1.0,
    }
}

/// Whether the settings turn every hook off (`disableAllHooks: true`).
pub(crate) fn hooks_turned_off(file: &Value) -> bool {
    file.get("disableAllHooks") == Some(&Value::Bool(true))
}

/// `answer` in the terms Qwen Code reads. Before a tool it takes no rewritten input: a call
/// the hooks rewrote is denied, the model told the call the hooks would run instead (the
/// original never runs), the user told why. After a tool it reads neither `decision` nor
/// exit 2: what the hooks have to tell the model goes in `additionalContext`, which it adds
/// to the tool's result. `problems`: the lines for the user that go with the answer.
pub(super) fn in_its_terms(
    answer: &mut ToAgent,
    event: &AgentEvent,
    decision: &Decision,
    problems: &[String],
) {
    if event.before_a_tool() {
        if let (Some(input), None, 0) = (&decision.input, &decision.block, answer.code) {
            let reason = format!(
                "This call was not run: a hook changed its input to {input}, and Qwen Code cannot run a changed call. Make the call with that input instead."
            );
            let mut reply = json!({
                "hookSpecificOutput": {
                    "hookEventName": event.agent_event,
                    "permissionDecision": "deny",
                    "permissionDecisionReason": reason,
                },
                "systemMessage": "agent-hooks: a hook rewrote this tool call; Qwen Code cannot run a rewritten call, so it was denied and the model was given the rewritten input.",
            });
            if let Some(old) = stdout_json(answer) {
                if let Some(message) = old.get("systemMessage").and_then(Value::as_str) {
                    reply["systemMessage"] = json!(format!(
                        "{}\n{message}",
                        reply["systemMessage"].as_str().unwrap_or_default()
                    ));
                }
            }
            answer.stdout = format!("{reply}\n");
        }
        return;
    }
    if !matches!(event.event, "PostToolUse" | "PostToolUseFailure") {
        return;
    }
    let mut reply = stdout_json(answer).unwrap_or_default();
    let mut told: Vec<String> = Vec::new();
    if answer.code == 2 {
        // A block after the tool: its reason is the note, and the problems are for the
        // user, whom an answer on exit 0 reaches through `systemMessage`.
        answer.code = 0;
        told.append(&mut answer.notes);
        if !problems.is_empty() {
            reply.insert("systemMessage".into(), json!(problems.join("\n")));
        }
    }
    if matches!(
        reply.get("decision").and_then(Value::as_str),
        Some("block" | "deny")
    ) {
        reply.remove("decision");
        if let Some(Value::String(reason)) = reply.remove("reason") {
            told.push(reason);
        }
    }
    if told.is_empty() {
        return;
    }
    let specific = reply
        .entry("hookSpecificOutput")
        .or_insert_with(|| json!({"hookEventName": event.agent_event}));
    if let Value::Object(specific) = specific {
        if let Some(Value::String(context)) = specific.get("additionalContext") {
            told.insert(0, context.clone());
        }
        specific.insert("additionalContext".into(), json!(told.join("\n")));
    }
    answer.stdout = format!("{}\n", Value::Object(reply));
}

/// The answer's stdout as a JSON object, if it is one.
fn stdout_json(answer: &ToAgent) -> Option<Map<String, Value>> {
    match serde_json::from_str(answer.stdout.trim()) {
        Ok(Value::Object(fields)) => Some(fields),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(name: &'static str) -> AgentEvent<'static> {
        AgentEvent {
            event: name,
            agent_event: name,
            own_form: false,
        }
    }

    #[test]
    fn a_timeout_of_a_thousand_or_more_is_milliseconds() {
        assert_eq!(timeout_unit(&json!(30)), 1.0);
        assert_eq!(timeout_unit(&json!(999.5)), 1.0);
        assert_eq!(timeout_unit(&json!(1000)), 0.001);
        assert_eq!(timeout_unit(&json!("x")), 1.0);
    }

    #[test]
    fn a_rewrite_is_a_denial_that_names_the_rewritten_input() {
        let decision = Decision {
            input: Some(json!({"command": "ls -a"})),
            ..Decision::default()
        };
        let mut answer = ToAgent::default();
        in_its_terms(&mut answer, &event("PreToolUse"), &decision, &[]);
        let reply: Value = serde_json::from_str(&answer.stdout).unwrap();
        assert_eq!(reply["hookSpecificOutput"]["permissionDecision"], "deny");
        let reason = reply["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .unwrap();
        assert!(reason.contains(r#"{"command":"ls -a"}"#), "{reason}");
        assert_eq!(answer.code, 0);
    }

    #[test]
    fn a_block_after_a_tool_is_context() {
        let mut answer = ToAgent {
            code: 2,
            stdout: String::new(),
            notes: vec!["too big".into()],
        };
        let problems = ["a problem".to_owned()];
        in_its_terms(
            &mut answer,
            &event("PostToolUse"),
            &Decision::default(),
            &problems,
        );
        assert_eq!(answer.code, 0);
        assert!(answer.notes.is_empty());
        let reply: Value = serde_json::from_str(&answer.stdout).unwrap();
        assert_eq!(reply["hookSpecificOutput"]["additionalContext"], "too big");
        assert_eq!(reply["systemMessage"], "a problem");

        let mut answer = ToAgent {
            code: 0,
            stdout: r#"{"decision":"block","reason":"see this","hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"first"}}"#.into(),
            notes: Vec::new(),
        };
        in_its_terms(
            &mut answer,
            &event("PostToolUse"),
            &Decision::default(),
            &[],
        );
        let reply: Value = serde_json::from_str(&answer.stdout).unwrap();
        assert_eq!(
            reply,
            json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "first\nsee this"}})
        );
    }

    #[test]
    fn other_answers_stay_as_they_are() {
        let mut answer = ToAgent {
            code: 2,
            stdout: String::new(),
            notes: vec!["no".into()],
        };
        let before = answer.clone();
        in_its_terms(&mut answer, &event("PreToolUse"), &Decision::default(), &[]);
        assert_eq!(answer, before);
        in_its_terms(&mut answer, &event("Stop"), &Decision::default(), &[]);
        assert_eq!(answer, before);
    }
}
