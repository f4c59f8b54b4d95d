//! Cline (the `cline` CLI, 3.0.65): its hooks are files named after the event they handle
//! (`PreToolUse`, `TaskStart`, ... with or without an extension such as `.sh` or `.py`) at
//! the top of `~/Documents/Cline/Hooks/`, `~/.cline/hooks/` (`$CLINE_DIR/hooks/`), and a
//! project's `.clinerules/hooks/` and `.cline/hooks/`. Measured with the real agent
//! (tests/real-agents/cline.rs):
//!
//! - it runs every such file it finds, the project's too, with no trust asked; it runs the
//!   file through an interpreter (the shebang's, else one by its extension, else `bash`),
//!   so a file needs no executable bit;
//! - a hook gets one JSON object on stdin: `hookName` (`tool_call`, `tool_result`,
//!   `agent_start`, ...), `taskId`, `workspaceRoots`, the call (`tool_call` with `id`,
//!   `name`, `input`) and the same in its older form (`preToolUse.toolName`,
//!   `preToolUse.parameters` with each value a string);
//! - it reads one JSON object from stdout (or the last line that starts with
//!   `HOOK_CONTROL<tab>`): `cancel: true` keeps the tool from running and ends the task
//!   (its `errorMessage` goes to Cline's log, not to the model nor the user),
//!   `contextModification` (or `context`, or `errorMessage` alone) is given to the model
//!   after the tool's result, `overrideInput` is the input the tool runs with;
//! - it reads no exit code; output that is not JSON, and a hook past its 120 s, are
//!   written to its log and change nothing;
//! - `PreToolUse` and `PostToolUse` hooks are waited for; the others are started and left
//!   (their output is not read).
//!
//! `agent-hooks install --agent cline` writes one such file per event, each running
//! `agent-hooks hook --agent cline` (`hook_file`).

mod hook_files;

use serde_json::{json, Map, Value};

use super::decision::{AgentEvent, Decision, ToAgent};
use crate::agent::{MatcherRule, Place, PlaceFiles, Profile};
use crate::event::CommandEvent;

pub(crate) use hook_files::{interpret, parse, payload};

/// The first line of the hook files `install` writes, after the shebang: what marks them
/// as agent-hooks' own.
pub(crate) const HOOK_FILE_MARK: &str = "# agent-hooks: wires Cline to agent-hooks";

/// The extensions Cline runs a hook file with (and none).
const EXTENSIONS: &[&str] = &[
    "sh", "bash", "zsh", "js", "mjs", "cjs", "ts", "mts", "cts", "py", "ps1",
];

/// Cline.
pub(super) static PROFILE: Profile = Profile {
    name: "cline",
    title: "Cline",
    hook_name: Some("cline"),
    places: &[
        Place {
            provider: "cline (user)",
            priority: 12,
            project: false,
            files: PlaceFiles::EventFiles("Documents/Cline/Hooks", None, is_hook_file),
        },
        Place {
            provider: "cline home (user)",
            priority: 11,
            project: false,
            files: PlaceFiles::EventFiles(".cline/hooks", Some("CLINE_DIR"), is_hook_file),
        },
        Place {
            provider: "cline rules (project)",
            priority: 10,
            project: true,
            files: PlaceFiles::EventFiles(".clinerules/hooks", None, is_hook_file),
        },
        Place {
            provider: "cline (project)",
            priority: 9,
            project: true,
            files: PlaceFiles::EventFiles(".cline/hooks", None, is_hook_file),
        },
    ],
    managed: None,
    owns_file: |at| {
        matches!(
            (at.parent(), at.last()),
            (Some(".cline" | ".clinerules"), Some("hooks")) | (Some("Cline"), Some("Hooks"))
        )
    },
    // Cline's hooks have no matcher: each runs for every tool.
    matcher_rule: (MatcherRule::Regex, MatcherRule::Regex),
    timeout_unit: 1.0,
    timeout_unit_by_value: None,
    // Cline waits 120 s for a `PreToolUse` or `PostToolUse` hook (the others it does not
    // wait for).
    default_timeout: std::time::Duration::from_secs(120),
    // Its hook files' names (3.0.65), each with the moment it is to agent-hooks' runner.
    // `TaskCancel` (a task stopped by its user) has no moment here; `PreCompact` is in its
    // list, but 3.0.65 runs no file of that name.
    event_names: &[
        ("TaskStart", Some(CommandEvent::SessionStart)),
        ("TaskResume", Some(CommandEvent::SessionStart)),
        ("UserPromptSubmit", Some(CommandEvent::UserPromptSubmit)),
        ("PreToolUse", Some(CommandEvent::PreToolUse)),
        ("PostToolUse", Some(CommandEvent::PostToolUse)),
        ("TaskComplete", Some(CommandEvent::Stop)),
        ("TaskError", Some(CommandEvent::StopFailure)),
        ("PreCompact", Some(CommandEvent::PreCompact)),
        ("SessionShutdown", Some(CommandEvent::SessionEnd)),
        ("TaskCancel", None),
    ],
    events_of_its_own: true,
    not_events: &[],
    disabled_list: None,
    // The files install writes: every event Cline 3.0.65 runs a file for that has a moment
    // here.
    installed_events: &[
        "TaskStart",
        "TaskResume",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "TaskComplete",
        "TaskError",
        "SessionShutdown",
    ],
    entry_files: ("Documents/Cline/Hooks/PreToolUse", ".clinerules/hooks/PreToolUse"),
    entry_file_whole: true,
    entry_fields: (None, None),
    http_entries: false,
    lenient_json: false,
    after_install: Some(
        "Cline reads its hook files when a task starts; a running Cline hub (`cline hub`) keeps the environment it was started with.",
    ),
    // It reads no exit code: a problem blocks nothing.
    fail_open_exit: 0,
    also_runs_project_files_of: &[],
    ignores_once: false,
    managed_rules: false,
    own_payload: true,
    plain_text_is_a_message: false,
    ignores_context_on: &[],
    reason_replaces_result_on: &[],
    shows_every_reason_with_a_block: false,
    extra_fields: &[],
    renamed_fields: &[],
    absent_fields: &[("permission_mode", &[]), ("transcript_path", &[])],
    tool_output_also_as: &[],
    env: &[],
    has_env_file: false,
    // Cline's tools (3.0.65, as offered to the model): `run_commands`, `read_files`,
    // `editor` (edits, and creates a missing file), `search_codebase`, `fetch_web_content`,
    // `spawn_agent`; `web_search`, `ask_question`, `apply_patch`, `skills` and the team tools
    // keep their names.
    tools: &[
        ("exec", "run_commands"),
        ("read", "read_files"),
        ("edit", "editor"),
        ("write", "editor"),
        ("grep", "search_codebase"),
        ("webfetch", "fetch_web_content"),
        ("run_subagent", "spawn_agent"),
    ],
    file_path_field: None,
    matcher_aliases: &[],
    reads_continue_before_a_tool: true,
    rewritten_input_field: "overrideInput",
    rewrite_needs_allow: false,
    top_level_decision: false,
    claude_form_for_claude_names: false,
    // Cline's CLI has no status line a hook's program can draw.
    status_line: None,
    failure_denies_on: &[],
    runs_the_tool_anyway: None,
    other_places: &[],
    http_refused: None,
    unsupported_events: &[],
    own_files: &[],
};

/// Whether Cline runs a file named `name` in one of its hooks folders as a hook: an event's
/// name in any case, with no extension or one it runs.
pub fn is_hook_file(name: &str) -> bool {
    event_of_file(name).is_some()
}

/// The event (its file name, as Cline writes it) a hook file named `name` is for.
pub(crate) fn event_of_file(name: &str) -> Option<&'static str> {
    let (stem, extension) = match name.rsplit_once('.') {
        Some((stem, extension)) if !stem.is_empty() => (stem, extension.to_ascii_lowercase()),
        _ => (name, String::new()),
    };
    if !extension.is_empty() && !EXTENSIONS.contains(&extension.as_str()) {
        return None;
    }
    let stem = stem.trim();
    PROFILE
        .event_names
        .iter()
        .map(|(n, _)| *n)
        .find(|n| n.eq_ignore_ascii_case(stem))
}

/// Cline's `hookName` of the event its files name `event_name`.
pub(crate) fn hook_name_of(event_name: &str) -> &'static str {
    match event_name {
        "TaskStart" => "agent_start",
        "TaskResume" => "agent_resume",
        "TaskCancel" => "agent_abort",
        "TaskComplete" => "agent_end",
        "TaskError" => "agent_error",
        "PreToolUse" => "tool_call",
        "PostToolUse" => "tool_result",
        "UserPromptSubmit" => "prompt_submit",
        "PreCompact" => "pre_compact",
        _ => "session_shutdown",
    }
}

/// The file name of the event Cline's payload names `hook_name` (`tool_call`).
pub(crate) fn event_of_hook_name(hook_name: &str) -> Option<&'static str> {
    PROFILE
        .event_names
        .iter()
        .map(|(n, _)| *n)
        .find(|n| hook_name_of(n) == hook_name)
}

/// A tool's input as agent-hooks' own tool takes it, from Cline's: `run_commands`'
/// `commands` (one command a line) as `command`, `read_files`' first file as `path`.
pub(crate) fn input_to_own(tool: &str, input: &Value) -> Value {
    let Some(fields) = input.as_object() else {
        return input.clone();
    };
    match tool {
        "run_commands" => {
            let command = match fields.get("commands") {
                Some(Value::Array(commands)) => commands
                    .iter()
                    .map(|c| match c {
                        Value::String(text) => text.clone(),
                        other => command_text(other),
                    })
                    .collect::<Vec<_>>()
                    .join("\n"),
                Some(Value::String(text)) => text.clone(),
                Some(other) => command_text(other),
                None => return input.clone(),
            };
            json!({"command": command})
        }
        "read_files" => {
            let first = match fields.get("files") {
                Some(Value::Array(files)) => files.first().cloned(),
                other => other.cloned(),
            };
            let mut out = Map::new();
            match first {
                Some(Value::String(path)) => {
                    out.insert("path".into(), json!(path));
                }
                Some(Value::Object(file)) => {
                    for (key, value) in file {
                        out.insert(key, value);
                    }
                }
                _ => return input.clone(),
            }
            Value::Object(out)
        }
        _ => input.clone(),
    }
}

/// A structured command of `run_commands` (`{command, args}`) as one line of shell.
fn command_text(value: &Value) -> String {
    let Some(program) = value.get("command").and_then(Value::as_str) else {
        return value.to_string();
    };
    let mut words = vec![program.to_owned()];
    words.extend(
        value
            .get("args")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(|arg| format!("'{}'", arg.replace('\'', r"'\''"))),
    );
    words.join(" ")
}

/// A tool's input as Cline's tool takes it, from agent-hooks' own (the other way of
/// [`input_to_own`]): `command` as `run_commands`' one command, `path` as `read_files`'
/// one file.
pub(crate) fn input_from_own(tool: &str, input: &Value) -> Value {
    let Some(fields) = input.as_object() else {
        return input.clone();
    };
    match tool {
        "run_commands" if !fields.contains_key("commands") => match fields.get("command") {
            Some(command) => json!({"commands": [command]}),
            None => input.clone(),
        },
        "read_files" if !fields.contains_key("files") => json!({"files": [input]}),
        _ => input.clone(),
    }
}

/// The fields of a payload Cline sent (for `agent-hooks hook --agent cline`), added in
/// Claude Code's names: `hook_event_name` (its file's name of the event), `session_id`,
/// `cwd`, `tool_name`, `tool_input` (in agent-hooks' own fields), `tool_use_id`,
/// `tool_response`, `prompt`.
pub fn claude_fields(payload: &mut Map<String, Value>) {
    let event = payload
        .get("hookName")
        .and_then(Value::as_str)
        .and_then(event_of_hook_name);
    if let Some(event) = event {
        payload.insert("hook_event_name".into(), json!(event));
    }
    if let Some(id) = payload.get("taskId").cloned() {
        payload.entry("session_id").or_insert(id);
    }
    let root = payload
        .get("workspaceRoots")
        .and_then(|r| r.get(0))
        .cloned();
    if let Some(root) = root {
        payload.entry("cwd").or_insert(root);
    }
    let call = payload
        .get("tool_call")
        .or(payload.get("tool_result"))
        .cloned();
    if let Some(call) = call {
        let name = call.get("name").and_then(Value::as_str).unwrap_or_default();
        let input = call.get("input").cloned().unwrap_or(Value::Null);
        payload.insert("tool_input".into(), input_to_own(name, &input));
        payload.insert("tool_name".into(), json!(name));
        if let Some(id) = call.get("id") {
            payload.insert("tool_use_id".into(), id.clone());
        }
    }
    if let Some(Value::Object(result)) = payload.get("tool_result").cloned() {
        let output = match result.get("output") {
            Some(Value::String(text)) => json!(text),
            Some(other) => json!(other.to_string()),
            None => Value::Null,
        };
        let error = result.get("error").cloned().unwrap_or(Value::Null);
        payload.insert(
            "tool_response".into(),
            json!({"success": error.is_null(), "output": output, "error": error}),
        );
    }
    if let Some(prompt) = payload
        .get("userPromptSubmit")
        .and_then(|p| p.get("prompt"))
        .cloned()
    {
        payload.insert("prompt".into(), prompt);
    }
    if let Some(message) = payload.get("error").and_then(|e| e.get("message")).cloned() {
        payload.insert("error".into(), message);
    }
    if let Some(text) = payload
        .get("turn")
        .and_then(|t| t.get("outputText"))
        .cloned()
    {
        payload.insert("last_assistant_message".into(), text);
    }
    // Cline's own fields, now given in Claude Code's names, are not passed on.
    for field in CLINE_FIELDS {
        payload.remove(*field);
    }
}

/// The fields of Cline's payloads that [`claude_fields`] gives in Claude Code's names.
const CLINE_FIELDS: &[&str] = &[
    "clineVersion",
    "hookName",
    "timestamp",
    "taskId",
    "sessionContext",
    "workspaceRoots",
    "workspaceInfo",
    "userId",
    "agent_id",
    "parent_agent_id",
    "iteration",
    "tool_call",
    "tool_result",
    "preToolUse",
    "postToolUse",
    "userPromptSubmit",
    "taskStart",
    "taskResume",
    "taskCancel",
    "taskComplete",
    "turn",
];

/// The answer Cline reads from agent-hooks: one JSON object on stdout, exit 0 (Cline reads
/// no exit code). A block is `cancel: true` with the reason as `errorMessage`: the only way
/// Cline keeps a tool from running, and it ends the task (Cline writes the reason to its
/// log). Context for the model is `contextModification` (read on `PreToolUse` and
/// `PostToolUse`); a rewritten input is `overrideInput`, in Cline's fields. Problems and
/// messages for the user go to stderr, which Cline does not show: agent-hooks' record
/// (`agent-hooks log`) has them.
pub(super) fn answer(event: &AgentEvent, decision: &Decision, problems: &[String]) -> ToAgent {
    let mut reply = ToAgent::default();
    let mut answer = Map::new();
    let before = matches!(event.event, "PreToolUse");
    let reads = matches!(event.event, "PreToolUse" | "PostToolUse");
    if let Some(reason) = decision.block.as_ref().or(decision.stop.as_ref()) {
        if reads {
            answer.insert("cancel".into(), json!(true));
            answer.insert("errorMessage".into(), json!(reason));
        }
        reply.notes.push(reason.clone());
    } else {
        if before {
            if let Some(input) = &decision.input {
                // The input as agent-hooks' own tool takes it: a `command` is
                // `run_commands`' (the only one of Cline's tools with that field).
                let tool = if input.get("command").is_some() {
                    "run_commands"
                } else {
                    ""
                };
                answer.insert("overrideInput".into(), input_from_own(tool, input));
            }
        }
        let mut context = decision.context.clone();
        context.extend(decision.feedback.iter().cloned());
        context.extend(decision.replacement.iter().cloned());
        if reads && !context.is_empty() {
            answer.insert("contextModification".into(), json!(context.join("\n")));
        }
        if let Some(reason) = &decision.ask {
            // Cline's CLI does not ask its user from a hook: the call goes on, and the
            // user is told on stderr.
            reply.notes.push(format!(
                "a hook asked to confirm this call ({reason}); Cline cannot ask its user from a hook, so it runs"
            ));
        }
    }
    reply.notes.extend(decision.messages.iter().cloned());
    let _ = problems;
    reply.stdout = format!("{}\n", Value::Object(answer));
    reply
}

/// The hook file `install` writes under each event's name: a shell script that hands the
/// payload to `command` (agent-hooks' `hook --agent cline`), marked as agent-hooks' own.
pub(super) fn hook_file(command: &str, version: &str) -> String {
    format!(
        "#!/bin/sh\n{HOOK_FILE_MARK} (agent-hooks {version}); `agent-hooks uninstall --agent cline` removes it.\nexec {command}\n"
    )
}

/// The command a hook file written by [`hook_file`] runs, read back from its `text`.
pub(super) fn command_of(text: &str) -> Option<String> {
    if !text.lines().nth(1)?.starts_with(HOOK_FILE_MARK) {
        return None;
    }
    text.lines()
        .find_map(|line| line.strip_prefix("exec "))
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hook_files_are_named_after_events_in_any_case() {
        for (name, event) in [
            ("PreToolUse", Some("PreToolUse")),
            ("pretooluse.sh", Some("PreToolUse")),
            ("TaskStart.py", Some("TaskStart")),
            ("PostToolUse.PY", Some("PostToolUse")),
            ("PreToolUse.rb", None),
            ("README.md", None),
            ("Stop", None),
            (".PreToolUse", None),
        ] {
            assert_eq!(event_of_file(name), event, "{name}");
        }
    }

    #[test]
    fn hook_names_read_back() {
        for (name, _) in PROFILE.event_names {
            assert_eq!(event_of_hook_name(hook_name_of(name)), Some(*name));
        }
    }

    #[test]
    fn commands_go_both_ways() {
        let cline = json!({"commands": ["echo hi"]});
        let own = input_to_own("run_commands", &cline);
        assert_eq!(own, json!({"command": "echo hi"}));
        assert_eq!(input_from_own("run_commands", &own), cline);
        let two = json!({"commands": ["a", {"command": "ls", "args": ["-l", "x y"]}]});
        assert_eq!(
            input_to_own("run_commands", &two),
            json!({"command": "a\nls '-l' 'x y'"})
        );
        let read = json!({"files": [{"path": "/p/a.txt", "start_line": null}]});
        assert_eq!(
            input_to_own("read_files", &read),
            json!({"path": "/p/a.txt", "start_line": null})
        );
        assert_eq!(
            input_from_own("read_files", &json!({"path": "/p/a.txt"})),
            json!({"files": [{"path": "/p/a.txt"}]})
        );
    }

    #[test]
    fn cline_s_payload_reads_as_claude_code_s_fields() {
        let mut payload = json!({"clineVersion": "", "hookName": "tool_result", "taskId": "c1",
            "workspaceRoots": ["/p"], "iteration": 1,
            "tool_result": {"id": "t1", "name": "run_commands", "input": {"commands": ["ls"]},
                "output": [{"query": "ls", "result": "a", "success": true}]},
            "postToolUse": {"toolName": "run_commands"}});
        let Value::Object(fields) = &mut payload else {
            unreachable!()
        };
        claude_fields(fields);
        assert_eq!(
            payload,
            json!({"hook_event_name": "PostToolUse", "session_id": "c1", "cwd": "/p",
                "tool_name": "run_commands", "tool_input": {"command": "ls"}, "tool_use_id": "t1",
                "tool_response": {"success": true, "error": null,
                    "output": r#"[{"query":"ls","result":"a","success":true}]"#}})
        );
    }

    #[test]
    fn the_hook_file_runs_the_command_given() {
        let text = hook_file("'/opt/a b/agent-hooks-hook' --agent cline", "1.2.3");
        assert!(text.starts_with("#!/bin/sh\n"));
        assert_eq!(
            command_of(&text).as_deref(),
            Some("'/opt/a b/agent-hooks-hook' --agent cline")
        );
        assert_eq!(command_of("#!/bin/sh\nexec rm -rf /\n"), None);
    }

    #[test]
    fn a_block_cancels_and_context_is_given_on_tool_events() {
        let event = AgentEvent {
            event: "PreToolUse",
            agent_event: "PreToolUse",
            own_form: false,
        };
        let blocked = answer(
            &event,
            &Decision {
                block: Some("no".into()),
                ..Decision::default()
            },
            &[],
        );
        assert_eq!(blocked.code, 0);
        assert_eq!(
            serde_json::from_str::<Value>(&blocked.stdout).ok(),
            Some(json!({"cancel": true, "errorMessage": "no"}))
        );
        let rewritten = answer(
            &event,
            &Decision {
                input: Some(json!({"command": "ls"})),
                context: vec!["c".into()],
                ..Decision::default()
            },
            &[],
        );
        assert_eq!(
            serde_json::from_str::<Value>(&rewritten.stdout).ok(),
            Some(json!({"overrideInput": {"commands": ["ls"]}, "contextModification": "c"}))
        );
    }
}
