//! GitHub Copilot CLI's own hooks files (`.github/hooks/*.json`, `~/.copilot/hooks/*.json`,
//! `/etc/github-copilot/policy.d/*.json`), read and answered as Copilot CLI 1.0.102 does
//! (measured with the real agent, tests/real-agents; docs/command-hooks.md):
//!
//! - events in camelCase (`preToolUse`, `agentStop`, ...) get camelCase payloads
//!   (`sessionId`, `timestamp` in milliseconds, `toolName`, `toolArgs`, `toolResult`) and
//!   Copilot's tool names (`bash`, `view`, ...); their matcher is a regex that must match the
//!   whole name. Events in PascalCase (`PreToolUse`) get the VS Code form: snake_case fields,
//!   an ISO `timestamp`, Claude Code's tool names and matcher rule.
//! - a hook is `bash` (or `command`, or `exec` with `args`), with `cwd`, `env` and
//!   `timeoutSec` (or `timeout`, default 30 s).
//! - answers are top-level fields: `permissionDecision` with `permissionDecisionReason` and
//!   `modifiedArgs` (preToolUse), `behavior`/`message`/`interrupt` (permissionRequest),
//!   `modifiedResult` and `additionalContext` (postToolUse), `decision: block` with
//!   `reason` (agentStop, subagentStop), `additionalContext` elsewhere; lines
//!   `{"type": "progress", "message": ...}` are progress for the user, not the answer.
//! - on `preToolUse` (and `permissionRequest`) every non-zero exit denies (exit 2 without
//!   the stderr as reason); a timeout lets the call go on; elsewhere exit 2 shows stderr.

use std::{
    path::Path,
    time::{SystemTime, UNIX_EPOCH},
};

use agent_hooks_abi::events::PermissionDecision;
use serde_json::{json, Map, Value};

use super::PROFILE;
use crate::agent::{Agent, MatcherRule};
use crate::command_hook::{
    flat_file::{self, Format, Named},
    read_json, Answer, CommandHook, ConfigIssue, Exit, Matcher, Run, OUTPUT_CAP,
};
use crate::event::CommandEvent;

/// The command-hook event a Copilot CLI event name stands for: its camelCase names, or a
/// Claude Code name (its VS Code-compatible form).
pub fn event_of(name: &str) -> Option<CommandEvent> {
    match PROFILE.own_event(name) {
        Some(event) => event,
        None => CommandEvent::lookup(name)
            .filter(|(_, alias)| alias.is_none())
            .map(|(event, _)| event),
    }
}

/// Whether a hook's event name is one of Copilot CLI's camelCase names (its own payloads
/// and answers), not a PascalCase (VS Code-compatible) one.
pub fn is_camel_case(event_name: &str) -> bool {
    event_name.starts_with(|c: char| c.is_ascii_lowercase())
}

fn named(name: &str) -> Option<Named> {
    if name == "userPromptTransformed" {
        return Some(Named::Unsupported(
            "Copilot CLI's rewrite of the model-facing prompt; this runner has no moment after a prompt is transformed",
        ));
    }
    event_of(name).map(|event| Named::Event(event, None))
}

fn command(fields: &Map<String, Value>) -> Result<String, String> {
    let text = |key: &str| {
        fields
            .get(key)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|t| !t.is_empty())
    };
    let command = if let Some(bash) = text("bash").or_else(|| text("command")) {
        bash.to_owned()
    } else if let Some(program) = text("exec") {
        let args = fields.get("args").and_then(Value::as_array);
        let mut words = vec![flat_file::quote(program)];
        words.extend(
            args.into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(flat_file::quote),
        );
        words.join(" ")
    } else if text("powershell").is_some() {
        return Err("only a `powershell` command, which Copilot CLI runs on Windows only; this hook does not run here".into());
    } else {
        return Err("missing `bash` (or `command`, or `exec`); skipped".into());
    };
    Ok(flat_file::with_cwd_and_env(command, fields))
}

fn matcher(pattern: &str, name: &str, event: CommandEvent) -> Result<Matcher, String> {
    let error = |e: regex::Error| {
        e.to_string()
            .lines()
            .last()
            .unwrap_or_default()
            .trim()
            .to_owned()
    };
    if is_camel_case(name) {
        // Copilot CLI anchors its matchers: `^(?:PATTERN)$`.
        regex::Regex::new(&format!("^(?:{pattern})$"))
            .map(Matcher::Regex)
            .map_err(error)
    } else {
        Matcher::compile(Some(pattern), MatcherRule::Common, event.has_tool()).map_err(error)
    }
}

static FORMAT: Format = Format {
    dialect: Agent::Copilot,
    profile: &PROFILE,
    event: named,
    command,
    matcher,
};

/// Reads a Copilot CLI hooks file.
pub(crate) fn parse(bytes: &[u8], source: &Path) -> (Vec<CommandHook>, Vec<ConfigIssue>) {
    flat_file::parse(&FORMAT, bytes, source)
}

/// The payload of a Copilot CLI hook, from the payload in Claude Code's fields (tool names
/// already the hook's: Copilot's for camelCase events, Claude Code's for PascalCase ones).
pub(crate) fn payload(event: CommandEvent, event_name: &str, claude: Map<String, Value>) -> Value {
    if !is_camel_case(event_name) {
        return vs_code_form(event, claude);
    }
    let mut out = Map::new();
    if event == CommandEvent::PermissionRequest {
        out.insert("hookName".into(), json!(event_name));
    }
    if event == CommandEvent::Notification {
        out.insert("hook_event_name".into(), json!("Notification"));
    }
    let millis = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or_default();
    let transcript = matches!(
        event,
        CommandEvent::Stop
            | CommandEvent::SubagentStop
            | CommandEvent::SubagentStart
            | CommandEvent::PreCompact
    );
    for (key, value) in claude {
        match key.as_str() {
            "session_id" => {
                out.insert("sessionId".into(), value);
                out.insert("timestamp".into(), json!(millis));
            }
            "timestamp" | "hook_event_name" | "permission_mode" | "prompt_id" | "tool_use_id"
            | "model" => {}
            "transcript_path" if !transcript => {}
            "tool_input" if event == CommandEvent::PermissionRequest => {
                out.insert("toolInput".into(), value);
            }
            "tool_input" => {
                out.insert("toolArgs".into(), value);
            }
            "tool_response" => {
                out.insert(
                    "toolResult".into(),
                    tool_result(&value, "resultType", "textResultForLlm"),
                );
            }
            "error" if event == CommandEvent::StopFailure => {
                let message = value
                    .as_str()
                    .map(str::to_owned)
                    .unwrap_or_else(|| value.to_string());
                out.insert("error".into(), json!({"message": message, "name": "Error"}));
                out.insert("errorContext".into(), json!("system"));
                out.insert("recoverable".into(), json!(false));
            }
            // Measured: Copilot CLI sends these in snake_case in its camelCase payloads.
            "stop_hook_active" | "message" | "title" | "notification_type" => {
                out.insert(key, value);
            }
            _ => {
                out.insert(camel(&key), value);
            }
        }
    }
    if matches!(event, CommandEvent::Stop | CommandEvent::SubagentStop) {
        out.entry("stopReason").or_insert(json!("end_turn"));
    }
    Value::Object(out)
}

/// The VS Code-compatible form (a PascalCase event in a Copilot CLI file): Claude Code's
/// fields with an ISO `timestamp`, `tool_result` for `tool_response`, `stop_reason`, and no
/// `permission_mode`, `prompt_id` or `tool_use_id`.
fn vs_code_form(event: CommandEvent, claude: Map<String, Value>) -> Value {
    let mut out = Map::new();
    for (key, value) in claude {
        match key.as_str() {
            "permission_mode" | "prompt_id" | "tool_use_id" | "model" => {}
            "tool_response" => {
                out.insert(
                    "tool_result".into(),
                    tool_result(&value, "result_type", "text_result_for_llm"),
                );
            }
            _ => {
                out.insert(key, value);
            }
        }
    }
    if matches!(event, CommandEvent::Stop | CommandEvent::SubagentStop) {
        out.entry("stop_reason").or_insert(json!("end_turn"));
    }
    Value::Object(out)
}

/// A tool's response as Copilot CLI's tool result: its type and the text the model gets.
fn tool_result(response: &Value, kind: &str, text: &str) -> Value {
    let failed = response.get("success") == Some(&Value::Bool(false))
        || response.get("is_error") == Some(&Value::Bool(true));
    let output = ["output", "stdout", "content", "llmContent"]
        .iter()
        .find_map(|k| response.get(*k).and_then(Value::as_str))
        .map(str::to_owned)
        .unwrap_or_else(|| match response {
            Value::String(s) => s.clone(),
            Value::Null => String::new(),
            other => other.to_string(),
        });
    let mut result = Map::new();
    result.insert(
        kind.into(),
        json!(if failed { "failure" } else { "success" }),
    );
    result.insert(text.into(), json!(output));
    Value::Object(result)
}

fn camel(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    let mut upper = false;
    for c in key.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// The fields of a payload Copilot CLI sent in its own form (`toolName`, `toolArgs` as an
/// object or a JSON string, `toolResult`), added in Claude Code's names (`tool_name`,
/// `tool_input`, `tool_response`), as the other agents send them (for `agent-hooks hook
/// --agent copilot`).
pub fn claude_fields(payload: &mut Map<String, Value>) {
    if let Some(name) = payload.get("toolName").cloned() {
        payload.insert("tool_name".into(), name);
    }
    if let Some(args) = payload
        .get("toolArgs")
        .or(payload.get("toolInput"))
        .cloned()
    {
        let input = match args {
            Value::String(text) => serde_json::from_str(&text).unwrap_or(Value::String(text)),
            other => other,
        };
        payload.insert("tool_input".into(), input);
    }
    if let Some(Value::Object(result)) = payload.get("toolResult").cloned() {
        let output = result
            .get("textResultForLlm")
            .cloned()
            .unwrap_or(Value::Null);
        let failed = result.get("resultType").and_then(Value::as_str) == Some("failure");
        payload.insert(
            "tool_response".into(),
            json!({"success": !failed, "output": output, "error": Value::Null}),
        );
    }
    if let Some(id) = payload.get("sessionId").cloned() {
        payload.entry("session_id").or_insert(id);
    }
}

/// Reads what a Copilot CLI hook answered for `event` (named `event_name` in its file).
pub(crate) fn interpret(event: CommandEvent, event_name: &str, run: &Run) -> Answer {
    let mut answer = Answer::default();
    let (stdout, progress) = progress_lines(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr).trim().to_owned();
    let decides = matches!(
        event,
        CommandEvent::PreToolUse | CommandEvent::PermissionRequest
    );
    match &run.exit {
        Exit::Code(0) => read(event, event_name, &stdout, &mut answer),
        Exit::TimedOut => {
            answer.failed = true;
            answer.problems.push(
                "timed out; its process group was killed and, as in Copilot CLI, the call goes on (a timeout is not a deny there)".into(),
            );
        }
        Exit::Code(2) if decides => {
            read(event, event_name, &stdout, &mut answer);
            deny(
                &mut answer,
                "denied by a hook: it exited with code 2".into(),
            );
        }
        Exit::Code(2) => {
            let said = if stderr.is_empty() {
                stdout.trim().to_owned()
            } else {
                stderr.clone()
            };
            if !said.is_empty() {
                if event == CommandEvent::PostToolUseFailure {
                    answer.context.push(said);
                } else {
                    answer.system_message = Some(said);
                }
            }
        }
        other if decides => {
            // Copilot CLI fails closed on a crash or any other exit code of preToolUse.
            let how = match other {
                Exit::Code(code) => format!("exited with code {code}"),
                Exit::Signal(signal) => format!("was killed by signal {signal}"),
                Exit::SpawnFailed(e) => format!("could not be started ({e})"),
                _ => "failed".into(),
            };
            answer.problems.push(format!("{how}{}", said(&stderr)));
            deny(&mut answer, format!("denied by a hook: it {how} (Copilot CLI denies the call when a preToolUse hook errors)"));
        }
        other => {
            answer.failed = true;
            let how = match other {
                Exit::Code(code) => format!("exited with code {code}"),
                Exit::Signal(signal) => format!("was killed by signal {signal}"),
                Exit::SpawnFailed(e) => format!("could not be started: {e}"),
                _ => "failed".into(),
            };
            answer.problems.push(format!("{how}{}", said(&stderr)));
        }
    }
    if !progress.is_empty() {
        let mut lines = progress;
        lines.extend(answer.system_message.take());
        answer.system_message = Some(lines.join("\n"));
    }
    for (truncated, stream) in [
        (run.stdout_truncated, "stdout"),
        (run.stderr_truncated, "stderr"),
    ] {
        if truncated {
            answer.problems.push(format!(
                "its {stream} was longer than {} MiB; the rest was dropped",
                OUTPUT_CAP / (1024 * 1024)
            ));
        }
    }
    answer
}

fn said(stderr: &str) -> String {
    if stderr.is_empty() {
        String::new()
    } else {
        format!(": {}", stderr.chars().take(300).collect::<String>())
    }
}

fn deny(answer: &mut Answer, reason: String) {
    answer.permission = Some(PermissionDecision::Deny);
    answer.updated_input = None;
    if answer.block.is_none() {
        answer.block = Some(reason);
    }
}

/// stdout without its progress lines (each a one-line JSON object with `"type":
/// "progress"`), and their messages.
fn progress_lines(stdout: &[u8]) -> (String, Vec<String>) {
    let text = String::from_utf8_lossy(stdout);
    let mut kept = Vec::new();
    let mut progress = Vec::new();
    for line in text.lines() {
        let trimmed = line.trim();
        let parsed = trimmed
            .starts_with('{')
            .then(|| serde_json::from_str::<Value>(trimmed).ok())
            .flatten();
        match parsed {
            Some(v) if v.get("type").and_then(Value::as_str) == Some("progress") => {
                if let Some(message) = v.get("message").and_then(Value::as_str) {
                    progress.push(message.to_owned());
                }
            }
            _ => kept.push(line),
        }
    }
    (kept.join("\n"), progress)
}

fn read(event: CommandEvent, event_name: &str, stdout: &str, answer: &mut Answer) {
    let trimmed = stdout.trim();
    if trimmed.is_empty() {
        return;
    }
    let fields = match serde_json::from_str::<Value>(trimmed) {
        Ok(Value::Object(fields)) => fields,
        // Copilot CLI takes output that is not one JSON object as no output.
        _ => {
            answer.problems.push(
                "printed something that is not one JSON object; as in Copilot CLI, it is taken as no answer".into(),
            );
            return;
        }
    };
    let text = |key: &str| fields.get(key).and_then(Value::as_str).map(str::to_owned);
    let mut rest = Map::new();
    for (key, value) in &fields {
        match (event, key.as_str()) {
            (CommandEvent::PreToolUse, "permissionDecision") => {
                let reason = text("permissionDecisionReason");
                match value.as_str() {
                    Some("allow") => answer.permission = Some(PermissionDecision::Approve),
                    Some("ask") => {
                        answer.permission = Some(PermissionDecision::Ask);
                        answer.permission_reason = reason;
                    }
                    Some("deny") => deny(
                        answer,
                        reason.unwrap_or_else(|| "denied by a hook (permissionDecision)".into()),
                    ),
                    _ => answer.problems.push(format!(
                        "unknown permissionDecision {value}; no decision was taken from it"
                    )),
                }
            }
            (CommandEvent::PreToolUse, "permissionDecisionReason") => {}
            (CommandEvent::PreToolUse, "modifiedArgs") if value.is_object() => {
                answer.updated_input = Some(value.clone())
            }
            (CommandEvent::PreToolUse, "modifiedArgs") => answer
                .problems
                .push("modifiedArgs must be an object; ignored".into()),
            (CommandEvent::PermissionRequest, "behavior") => match value.as_str() {
                Some("allow") => answer.permission = Some(PermissionDecision::Approve),
                Some("deny") => deny(
                    answer,
                    text("message").unwrap_or_else(|| "denied by a hook (behavior)".into()),
                ),
                _ => answer.problems.push(format!("unknown behavior {value}; ignored")),
            },
            (CommandEvent::PermissionRequest, "message") => {}
            (CommandEvent::PermissionRequest, "interrupt") => {
                answer.interrupt = value.as_bool() == Some(true)
            }
            (CommandEvent::PostToolUse, "modifiedResult") => match value
                .get("textResultForLlm")
                .and_then(Value::as_str)
            {
                Some(text) => answer.replacement = Some(text.to_owned()),
                None => answer.problems.push(
                    "modifiedResult needs `textResultForLlm` (and `resultType`); ignored".into(),
                ),
            },
            (CommandEvent::Stop | CommandEvent::SubagentStop, "decision") => match value.as_str() {
                Some("block") => {
                    answer.block = Some(
                        text("reason").unwrap_or_else(|| "a hook keeps the agent going".into()),
                    )
                }
                Some("allow") => {}
                _ => answer.problems.push(format!("unknown decision {value}; ignored")),
            },
            (CommandEvent::Stop | CommandEvent::SubagentStop, "reason") => {}
            (CommandEvent::SubagentStop, "modifiedResponse") => {
                answer.extra.insert(key.clone(), value.clone());
            }
            (CommandEvent::UserPromptSubmit, "modifiedPrompt") => answer.problems.push(
                "modifiedPrompt is honoured by Copilot CLI only in SDK hooks, not in a hooks file; ignored".into(),
            ),
            (_, "additionalContext") => match value.as_str() {
                Some(t) if !t.trim().is_empty() => answer.context.push(t.to_owned()),
                Some(_) | None if value.is_null() => {}
                Some(_) => {}
                None => answer.problems.push("additionalContext must be a string".into()),
            },
            (_, "suppressOutput") => answer.suppress_output = value.as_bool() == Some(true),
            _ => {
                rest.insert(key.clone(), value.clone());
            }
        }
    }
    if rest.is_empty() {
        return;
    }
    if is_camel_case(event_name) {
        for key in rest.keys() {
            answer.problems.push(format!(
                "printed the field `{key}`, which Copilot CLI does not read on {event_name}; ignored"
            ));
        }
    } else {
        // A PascalCase hook may answer as a Claude Code hook (measured: Copilot CLI reads
        // its `hookSpecificOutput`).
        read_json(event, &rest, answer, crate::agents::PROFILES);
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn run(code: i32, stdout: &str, stderr: &str) -> Run {
        Run {
            exit: Exit::Code(code),
            stdout: stdout.as_bytes().to_vec(),
            stderr: stderr.as_bytes().to_vec(),
            stdout_truncated: false,
            stderr_truncated: false,
            duration: Duration::ZERO,
        }
    }

    #[test]
    fn every_failure_of_pre_tool_use_denies_but_a_timeout_does_not() {
        let pre = CommandEvent::PreToolUse;
        for code in [1, 2, 3, 127] {
            let answer = interpret(
                pre,
                "preToolUse",
                &run(code, r#"{"permissionDecision":"allow"}"#, "no"),
            );
            assert!(answer.block.is_some(), "exit {code}: {answer:?}");
        }
        let mut timed_out = run(0, "", "");
        timed_out.exit = Exit::TimedOut;
        let answer = interpret(pre, "preToolUse", &timed_out);
        assert!(answer.block.is_none() && answer.failed, "{answer:?}");
        let answer = interpret(CommandEvent::PostToolUse, "postToolUse", &run(1, "", "x"));
        assert!(answer.block.is_none() && answer.failed, "{answer:?}");
    }

    #[test]
    fn answers_are_top_level_fields_and_progress_lines_are_not_the_answer() {
        let out = "{\"type\": \"progress\", \"message\": \"Checking\"}\n{\"permissionDecision\": \"deny\",\n \"permissionDecisionReason\": \"no rm\"}";
        let answer = interpret(CommandEvent::PreToolUse, "preToolUse", &run(0, out, ""));
        assert_eq!(answer.block.as_deref(), Some("no rm"));
        assert_eq!(answer.system_message.as_deref(), Some("Checking"));
        assert!(answer.problems.is_empty(), "{:?}", answer.problems);

        let out = r#"{"modifiedArgs": {"command": "ls"}}"#;
        let answer = interpret(CommandEvent::PreToolUse, "preToolUse", &run(0, out, ""));
        assert_eq!(answer.updated_input, Some(json!({"command": "ls"})));

        let out = r#"{"modifiedResult": {"resultType": "success", "textResultForLlm": "redacted"}, "additionalContext": "note"}"#;
        let answer = interpret(CommandEvent::PostToolUse, "postToolUse", &run(0, out, ""));
        assert_eq!(answer.replacement.as_deref(), Some("redacted"));
        assert_eq!(answer.context, ["note"]);

        let out = r#"{"decision": "block", "reason": "run the tests"}"#;
        let answer = interpret(CommandEvent::Stop, "agentStop", &run(0, out, ""));
        assert_eq!(answer.block.as_deref(), Some("run the tests"));

        let out = r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "pascal"}}"#;
        let answer = interpret(CommandEvent::PreToolUse, "PreToolUse", &run(0, out, ""));
        assert_eq!(answer.block.as_deref(), Some("pascal"));
        let answer = interpret(CommandEvent::PreToolUse, "preToolUse", &run(0, out, ""));
        assert!(answer.block.is_none());
        assert_eq!(answer.problems.len(), 1, "{:?}", answer.problems);
    }

    #[test]
    fn payloads_are_camel_case_or_the_vs_code_form() {
        let claude = json!({"session_id": "s", "transcript_path": "/t", "cwd": "/p",
            "permission_mode": "default", "hook_event_name": "PreToolUse",
            "tool_name": "bash", "tool_input": {"command": "ls"}, "tool_use_id": "t1"});
        let Value::Object(claude) = claude else {
            unreachable!()
        };
        let camel = payload(CommandEvent::PreToolUse, "preToolUse", claude.clone());
        let keys: Vec<&String> = camel
            .as_object()
            .map(|o| o.keys().collect())
            .unwrap_or_default();
        assert_eq!(
            keys,
            ["sessionId", "timestamp", "cwd", "toolName", "toolArgs"]
        );
        assert!(camel["timestamp"].is_u64());
        let pascal = payload(CommandEvent::PreToolUse, "PreToolUse", claude);
        assert_eq!(pascal["hook_event_name"], "PreToolUse");
        assert!(pascal.get("permission_mode").is_none() && pascal.get("tool_use_id").is_none());
    }

    #[test]
    fn hooks_are_read_with_their_defaults_and_problems() {
        let text = r#"{"version": 1, "hooks": {
            "preToolUse": [
              {"type": "command", "bash": "./guard.sh", "matcher": "bash", "timeoutSec": 5},
              {"bash": "./all.sh", "cwd": "scripts", "env": {"LEVEL": "strict"}},
              {"exec": "python3", "args": ["g.py", "--x"]},
              {"powershell": "./guard.ps1"},
              {"bash": "./bad.sh", "matcher": "("}
            ],
            "userPromptTransformed": [{"bash": "./t.sh"}],
            "beforeEverything": [{"bash": "./x.sh"}]
        }}"#;
        let (hooks, issues) = parse(text.as_bytes(), Path::new("/p/.github/hooks/h.json"));
        let commands: Vec<_> = hooks.iter().map(|h| h.kind.label()).collect();
        assert_eq!(
            commands,
            [
                "./guard.sh",
                "cd 'scripts' && export LEVEL=\"strict\" && { ./all.sh\n}",
                "'python3' 'g.py' '--x'"
            ]
        );
        assert_eq!(hooks[0].timeout, Duration::from_secs(5));
        assert_eq!(hooks[1].timeout, Agent::Copilot.default_timeout());
        assert!(hooks[0].matcher.matches("bash") && !hooks[0].matcher.matches("bash2"));
        assert_eq!(hooks[0].dialect, Agent::Copilot);
        let issues: Vec<String> = issues.iter().map(ToString::to_string).collect();
        assert_eq!(issues.len(), 4, "{issues:?}");
        assert!(issues[0].contains("powershell"), "{issues:?}");
        assert!(issues[1].contains("invalid matcher `(`"), "{issues:?}");
        assert!(issues[2].contains("userPromptTransformed"), "{issues:?}");
        assert!(
            issues[3].contains("unknown event `beforeEverything`"),
            "{issues:?}"
        );

        let (hooks, issues) = parse(br#"{"version": 2, "hooks": {}}"#, Path::new("h.json"));
        assert!(hooks.is_empty());
        assert!(issues[0].to_string().contains("version 2"), "{issues:?}");
    }
}
