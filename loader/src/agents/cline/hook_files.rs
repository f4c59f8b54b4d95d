//! Cline's hook files (`~/Documents/Cline/Hooks/`, `~/.cline/hooks/`, a project's
//! `.clinerules/hooks/` and `.cline/hooks/`), each one hook named after its event, run and
//! answered as Cline 3.0.65 runs and reads them (measured with the real agent,
//! tests/real-agents/cline.rs; see `agents::cline` for what it does):
//!
//! - the file is run as Cline runs it: through its shebang's interpreter (`env` skipped,
//!   `bash`, `sh`, `zsh`, `python3` and `python` found on the `PATH`), else one chosen by its
//!   extension (`.sh` `bash`, `.js` `node`, `.ts` `bun run`, `.py` `python3`, `.ps1`
//!   `pwsh -File`), else `bash`; `PreToolUse` and `PostToolUse` within 120 s, the other
//!   events without waiting for them (their output is not read);
//! - its payload is Cline's (`hookName`, `taskId`, `workspaceRoots`, `tool_call`,
//!   `preToolUse`, ...), its tool names and inputs Cline's (`run_commands` with `commands`);
//! - its answer is the JSON object on stdout (or on the last line that starts with
//!   `HOOK_CONTROL<tab>`): `cancel: true` blocks the call and stops the agent (the reason is
//!   `errorMessage`), `contextModification` (or `context`, or `errorMessage` alone) is
//!   context for the model, `overrideInput` the input the tool runs with; its exit code
//!   decides nothing, and output that is not JSON or a timeout decides nothing (both are
//!   told to the user here, where Cline only logs them).

use std::path::Path;

use serde_json::{json, Map, Value};

use super::PROFILE;
use crate::agent::Agent;
use crate::command_hook::{
    shell_quote, Answer, CommandHook, ConfigIssue, Exit, HookKind, Run, Severity, OUTPUT_CAP,
};
use crate::event::CommandEvent;

/// The line prefix that marks the answer among other output.
const CONTROL_PREFIX: &str = "HOOK_CONTROL\t";

/// Reads a Cline hook file (`bytes` its content, for the shebang): one hook for the event
/// its name gives.
pub(crate) fn parse(bytes: &[u8], source: &Path) -> (Vec<CommandHook>, Vec<ConfigIssue>) {
    let issue = |message: String, severity| ConfigIssue {
        file: source.to_path_buf(),
        location: None,
        message,
        severity,
    };
    let name = source
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let Some(event_name) = super::event_of_file(&name) else {
        return (
            Vec::new(),
            vec![issue(
                "not named after one of Cline's events (TaskStart, TaskResume, UserPromptSubmit, PreToolUse, PostToolUse, TaskComplete, TaskError, TaskCancel, SessionShutdown, PreCompact), so Cline does not run it; nor does agent-hooks".into(),
                Severity::Warning,
            )],
        );
    };
    let event = match PROFILE.own_event(event_name) {
        Some(Some(event)) if event_name != "PreCompact" => event,
        _ => {
            let why = if event_name == "PreCompact" {
                "Cline 3.0.65 runs no PreCompact file"
            } else {
                "a task its user stopped has no moment in agent-hooks' runner"
            };
            return (
                Vec::new(),
                vec![issue(
                    format!("{event_name}: {why}; this hook does not run"),
                    Severity::Warning,
                )],
            );
        }
    };
    let argv = interpreter(bytes, source);
    let command = argv
        .iter()
        .map(|word| shell_quote(word))
        .collect::<Vec<_>>()
        .join(" ");
    let waited = matches!(event, CommandEvent::PreToolUse | CommandEvent::PostToolUse);
    let hook = CommandHook {
        event_name: event_name.to_owned(),
        timeout: PROFILE.default_timeout,
        run_async: !waited,
        ..CommandHook::new(event, Agent::Cline, HookKind::command(command), source)
    };
    (vec![hook], Vec::new())
}

/// The program and arguments Cline runs the hook file at `path` with (its content `bytes`).
pub fn interpreter(bytes: &[u8], path: &Path) -> Vec<String> {
    let file = path.to_string_lossy().into_owned();
    let first = bytes.split(|b| *b == b'\n').next().unwrap_or_default();
    let first = String::from_utf8_lossy(first);
    if let Some(shebang) = first.trim().strip_prefix("#!") {
        let words: Vec<String> = shebang.split_whitespace().map(str::to_owned).collect();
        if !words.is_empty() {
            let mut argv = normalized(&words).unwrap_or(words);
            argv.push(file);
            return argv;
        }
    }
    let lower = file.to_ascii_lowercase();
    let ends = |exts: &[&str]| exts.iter().any(|e| lower.ends_with(e));
    let mut argv: Vec<String> = if ends(&[".sh", ".bash", ".zsh"]) {
        vec!["bash".into()]
    } else if ends(&[".js", ".mjs", ".cjs"]) {
        vec!["node".into()]
    } else if ends(&[".ts", ".mts", ".cts"]) {
        vec!["bun".into(), "run".into()]
    } else if ends(&[".py"]) {
        vec!["python3".into()]
    } else if ends(&[".ps1"]) {
        vec!["pwsh".into(), "-File".into()]
    } else {
        vec!["bash".into()]
    };
    argv.push(file);
    argv
}

/// A shebang's words as Cline runs them: `env` skipped, the shells and Pythons by their
/// name alone (found on the `PATH`), any other interpreter as written.
fn normalized(words: &[String]) -> Option<Vec<String>> {
    let (first, rest) = words.split_first()?;
    let name = first
        .replace('\\', "/")
        .to_ascii_lowercase()
        .rsplit('/')
        .next()
        .unwrap_or_default()
        .to_owned();
    match name.as_str() {
        "env" => normalized(rest),
        "bash" | "sh" | "zsh" | "python3" | "python" => {
            let mut argv = vec![name];
            argv.extend(rest.iter().cloned());
            Some(argv)
        }
        _ => Some(words.to_vec()),
    }
}

/// The payload of a Cline hook for `event` (its file's name `event_name`), from the payload
/// in Claude Code's fields (tool names already Cline's, inputs agent-hooks' own).
pub(crate) fn payload(event: CommandEvent, event_name: &str, claude: Map<String, Value>) -> Value {
    let get = |key: &str| claude.get(key).cloned().unwrap_or(Value::Null);
    let text = |key: &str| {
        claude
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let session = text("session_id");
    let cwd = text("cwd");
    let hint = Path::new(&cwd)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let user = std::env::var("CLINE_USER_ID")
        .or_else(|_| std::env::var("USER"))
        .ok()
        .filter(|u| !u.trim().is_empty())
        .unwrap_or_else(|| "unknown".into());
    let mut out = Map::new();
    out.insert("clineVersion".into(), json!(""));
    out.insert(
        "timestamp".into(),
        json!(jiff::Timestamp::now()
            .strftime("%Y-%m-%dT%H:%M:%S%.3fZ")
            .to_string()),
    );
    out.insert("taskId".into(), json!(session));
    out.insert("sessionContext".into(), json!({"rootSessionId": session}));
    out.insert("workspaceRoots".into(), json!([cwd]));
    out.insert(
        "workspaceInfo".into(),
        json!({"rootPath": cwd, "hint": hint}),
    );
    out.insert("userId".into(), json!(user));
    out.insert("agent_id".into(), json!(session));
    out.insert("parent_agent_id".into(), Value::Null);
    out.insert("hookName".into(), json!(super::hook_name_of(event_name)));
    let tool = text("tool_name");
    let input = super::input_from_own(&tool, &get("tool_input"));
    let parameters: Map<String, Value> = input
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| {
            let value = match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            (k.clone(), json!(value))
        })
        .collect();
    let call = json!({"id": get("tool_use_id"), "name": tool, "input": input});
    match event {
        CommandEvent::PreToolUse => {
            out.insert("tool_call".into(), call);
            out.insert(
                "preToolUse".into(),
                json!({"toolName": tool, "parameters": parameters}),
            );
        }
        CommandEvent::PostToolUse => {
            let response = get("tool_response");
            let output = match response.get("output").or(response.get("stdout")) {
                Some(Value::String(s)) => s.clone(),
                Some(other) => other.to_string(),
                None => match &response {
                    Value::String(s) => s.clone(),
                    Value::Null => String::new(),
                    other => other.to_string(),
                },
            };
            let failed = response.get("success") == Some(&Value::Bool(false));
            let mut result = call;
            result["output"] = json!(output);
            if failed {
                result["error"] = json!(output);
            }
            out.insert("tool_result".into(), result);
            out.insert(
                "postToolUse".into(),
                json!({"toolName": tool, "parameters": parameters, "result": output,
                    "success": !failed, "executionTimeMs": 0}),
            );
        }
        CommandEvent::UserPromptSubmit => {
            out.insert(
                "userPromptSubmit".into(),
                json!({"prompt": get("prompt"), "attachments": []}),
            );
        }
        CommandEvent::SessionStart if event_name == "TaskResume" => {
            out.insert(
                "taskResume".into(),
                json!({"taskMetadata": {}, "previousState": {}}),
            );
        }
        CommandEvent::SessionStart => {
            out.insert("taskStart".into(), json!({"taskMetadata": {}}));
        }
        CommandEvent::Stop => {
            out.insert(
                "turn".into(),
                json!({"outputText": get("last_assistant_message"), "status": "completed"}),
            );
            out.insert("taskComplete".into(), json!({"taskMetadata": {}}));
        }
        CommandEvent::StopFailure => {
            let message = match get("error") {
                Value::String(s) => s,
                Value::Null => String::new(),
                other => other.to_string(),
            };
            out.insert("error".into(), json!({"name": "Error", "message": message}));
        }
        CommandEvent::SessionEnd => {
            out.insert("reason".into(), get("reason"));
        }
        _ => {}
    }
    Value::Object(out)
}

/// Reads what a Cline hook answered for `event`, as Cline reads it.
pub(crate) fn interpret(event: CommandEvent, run: &Run) -> Answer {
    let mut answer = Answer::default();
    let stderr = String::from_utf8_lossy(&run.stderr).trim().to_owned();
    let said = if stderr.is_empty() {
        String::new()
    } else {
        format!(
            " (its stderr: {})",
            stderr.chars().take(300).collect::<String>()
        )
    };
    match &run.exit {
        Exit::TimedOut => {
            answer.failed = true;
            answer.problems.push(format!(
                "timed out; its process group was killed and, as in Cline, it decided nothing{said}"
            ));
            return answer;
        }
        Exit::SpawnFailed(error) => {
            answer.failed = true;
            answer.problems.push(format!(
                "could not be started ({error}); as in Cline, it decided nothing"
            ));
            return answer;
        }
        Exit::Signal(signal) => {
            answer.failed = true;
            answer.problems.push(format!(
                "was killed by signal {signal}; its output is read as Cline reads it{said}"
            ));
        }
        Exit::Code(0) => {}
        Exit::Code(code) => {
            answer.problems.push(format!(
                "exited with code {code}; Cline reads no exit code, so its output is read as it is{said}"
            ));
        }
    }
    if run.stdout_truncated {
        answer.problems.push(format!(
            "its stdout was longer than {} MiB; the rest was dropped",
            OUTPUT_CAP / (1024 * 1024)
        ));
    }
    let stdout = String::from_utf8_lossy(&run.stdout);
    let trimmed = stdout.trim();
    if trimmed.is_empty() {
        return answer;
    }
    let control = trimmed
        .lines()
        .map(str::trim)
        .filter_map(|line| line.strip_prefix(CONTROL_PREFIX))
        .next_back()
        .unwrap_or(trimmed);
    let fields = match serde_json::from_str::<Value>(control) {
        Ok(Value::Object(fields)) => fields,
        Ok(_) => return answer,
        Err(e) => {
            answer.problems.push(format!(
                "printed something that is not JSON ({e}); as in Cline, it decided nothing"
            ));
            return answer;
        }
    };
    let text = |key: &str| {
        fields
            .get(key)
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
            .map(str::to_owned)
    };
    let context = text("context").or_else(|| text("contextModification"));
    let error = text("errorMessage").filter(|t| !t.trim().is_empty());
    let tool_event = matches!(event, CommandEvent::PreToolUse | CommandEvent::PostToolUse);
    if !tool_event {
        return answer;
    }
    if fields.get("cancel") == Some(&Value::Bool(true)) {
        let reason = error
            .or(context)
            .unwrap_or_else(|| "cancelled by a Cline hook".into());
        if event == CommandEvent::PreToolUse {
            answer.block = Some(reason.clone());
        }
        answer.stop_agent = Some(reason);
        return answer;
    }
    if let Some(context) = context.or(error) {
        answer.context.push(context);
    }
    if event == CommandEvent::PreToolUse {
        if let Some(input) = fields.get("overrideInput").filter(|v| !v.is_null()) {
            let tool = if input.get("commands").is_some() {
                "run_commands"
            } else if input.get("files").is_some() {
                "read_files"
            } else {
                ""
            };
            answer.updated_input = Some(super::input_to_own(tool, input));
        }
    }
    answer
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn run(code: i32, stdout: &str) -> Run {
        Run {
            exit: Exit::Code(code),
            stdout: stdout.as_bytes().to_vec(),
            stderr: Vec::new(),
            stdout_truncated: false,
            stderr_truncated: false,
            duration: Duration::ZERO,
        }
    }

    #[test]
    fn the_interpreter_is_clines() {
        let p = Path::new("/h/PreToolUse");
        assert_eq!(interpreter(b"#!/bin/sh\necho", p), ["sh", "/h/PreToolUse"]);
        assert_eq!(
            interpreter(b"#!/usr/bin/env python3 -u\n", p),
            ["python3", "-u", "/h/PreToolUse"]
        );
        assert_eq!(
            interpreter(b"#!/opt/ruby/bin/ruby\n", p),
            ["/opt/ruby/bin/ruby", "/h/PreToolUse"]
        );
        assert_eq!(interpreter(b"echo", p), ["bash", "/h/PreToolUse"]);
        assert_eq!(
            interpreter(b"print(1)", Path::new("/h/PreToolUse.py")),
            ["python3", "/h/PreToolUse.py"]
        );
        assert_eq!(
            interpreter(b"x", Path::new("/h/TaskStart.ts")),
            ["bun", "run", "/h/TaskStart.ts"]
        );
    }

    #[test]
    fn a_file_is_one_hook_of_its_event() {
        let (hooks, issues) = parse(
            b"#!/bin/sh\n",
            Path::new("/p/.clinerules/hooks/pretooluse.sh"),
        );
        assert!(issues.is_empty());
        assert_eq!(hooks[0].event, CommandEvent::PreToolUse);
        assert_eq!(hooks[0].event_name, "PreToolUse");
        assert_eq!(
            hooks[0].kind.label(),
            "'sh' '/p/.clinerules/hooks/pretooluse.sh'"
        );
        assert_eq!(hooks[0].timeout, std::time::Duration::from_secs(120));
        assert!(!hooks[0].run_async);
        let (hooks, _) = parse(b"", Path::new("/p/.clinerules/hooks/TaskStart"));
        assert!(hooks[0].run_async);
        let (hooks, issues) = parse(b"", Path::new("/p/.clinerules/hooks/TaskCancel"));
        assert!(hooks.is_empty());
        assert_eq!(issues.len(), 1);
    }

    #[test]
    fn answers_are_read_as_cline_reads_them() {
        let cancel = interpret(
            CommandEvent::PreToolUse,
            &run(1, r#"{"cancel": true, "errorMessage": "no"}"#),
        );
        assert_eq!(cancel.block.as_deref(), Some("no"));
        assert_eq!(cancel.stop_agent.as_deref(), Some("no"));
        assert_eq!(cancel.problems.len(), 1, "the exit code is told");
        let rewrite = interpret(
            CommandEvent::PreToolUse,
            &run(
                0,
                "noise\nHOOK_CONTROL\t{\"overrideInput\": {\"commands\": [\"ls\"]}, \"contextModification\": \"c\"}\n",
            ),
        );
        assert_eq!(rewrite.updated_input, Some(json!({"command": "ls"})));
        assert_eq!(rewrite.context, ["c"]);
        let error_alone = interpret(
            CommandEvent::PostToolUse,
            &run(0, r#"{"errorMessage": "e"}"#),
        );
        assert_eq!(error_alone.context, ["e"]);
        assert!(error_alone.block.is_none());
        let bad = interpret(CommandEvent::PreToolUse, &run(0, "not json"));
        assert!(bad.block.is_none() && bad.problems.len() == 1);
    }

    #[test]
    fn the_payload_is_clines() {
        let claude = json!({"session_id": "s1", "cwd": "/p/proj", "hook_event_name": "PreToolUse",
            "tool_name": "run_commands", "tool_input": {"command": "ls"}, "tool_use_id": "t1"});
        let Value::Object(claude) = claude else {
            unreachable!()
        };
        let payload = payload(CommandEvent::PreToolUse, "PreToolUse", claude);
        assert_eq!(payload["hookName"], "tool_call");
        assert_eq!(payload["taskId"], "s1");
        assert_eq!(payload["workspaceRoots"], json!(["/p/proj"]));
        assert_eq!(
            payload["tool_call"],
            json!({"id": "t1", "name": "run_commands", "input": {"commands": ["ls"]}})
        );
        assert_eq!(
            payload["preToolUse"],
            json!({"toolName": "run_commands", "parameters": {"commands": "[\"ls\"]"}})
        );
        assert!(payload["timestamp"]
            .as_str()
            .is_some_and(|t| t.ends_with('Z')));
    }
}
