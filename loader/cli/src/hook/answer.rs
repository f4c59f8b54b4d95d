//! The combined outcome of an event, told the way the calling agent reads a hook's answer:
//! a block is exit code 2 with the reason on stderr (every one of these agents reads that the
//! same way); the rest is the JSON on stdout its hooks reference documents; problems of hooks
//! are a non-blocking error (exit 1, stderr) or, beside an answer, a `systemMessage`.

use agent_hooks::{abi::EventKind, command_hook::CommandOutcome, HookError};
use serde_json::{json, Map, Value};

use super::{Agent, Reply, Request};
use crate::{events::Emitted, session::Records};

/// What the hooks decided, in neutral terms.
#[derive(Debug, Default)]
struct Decision {
    block: Option<String>,
    input: Option<Value>,
    approve: bool,
    ask: Option<String>,
    /// PermissionRequest: `allow`, `deny` (with reasons).
    permission: Option<(&'static str, Option<String>)>,
    context: Vec<String>,
    feedback: Vec<String>,
    replacement: Option<String>,
    stop: Option<String>,
    messages: Vec<String>,
    suppress_output: bool,
    /// The other `hookSpecificOutput` fields of the events the runner has no moment for
    /// (MessageDisplay's `displayContent`, UserPromptExpansion's `suppressOriginalPrompt`),
    /// passed on as the hooks gave them.
    extra: Map<String, Value>,
}

fn text(value: &Value) -> Option<String> {
    value.as_str().filter(|s| !s.is_empty()).map(str::to_owned)
}

fn texts(value: &Value) -> Vec<String> {
    value
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(text)
        .collect()
}

impl Decision {
    fn of(emitted: Emitted, outcome: &Value, said: Option<&CommandOutcome>) -> Decision {
        let mut d = Decision::default();
        let blocked = outcome["block"] == true;
        match emitted.kind() {
            Some(EventKind::ToolCall) => {
                if blocked {
                    d.block = Some(
                        text(&outcome["reason"]).unwrap_or_else(|| "blocked by a hook".into()),
                    );
                }
                if outcome["rewritten"] == true {
                    d.input = Some(outcome["input"].clone());
                }
                d.approve = outcome["approved"] == true;
                d.ask = text(&outcome["ask"]);
                d.context = texts(&outcome["context"]);
            }
            Some(EventKind::ToolResult) => {
                if let Some(said) = said {
                    d.feedback.extend(said.reasons.iter().cloned());
                    d.feedback.extend(said.feedback.iter().cloned());
                    d.context.extend(said.context.iter().cloned());
                    d.replacement = said.replacement.clone();
                }
            }
            Some(EventKind::BeforeAgentStart) => {
                if blocked {
                    d.block = Some(
                        text(&outcome["reason"]).unwrap_or_else(|| "rejected by a hook".into()),
                    );
                }
                if let Some(message) = outcome.get("message").filter(|m| !m.is_null()) {
                    let content = crate::events::content_text(&message["content"]);
                    if !content.is_empty() {
                        d.context.push(content);
                    }
                }
                d.context.extend(texts(&outcome["context"]));
            }
            Some(EventKind::Stop) => {
                if blocked {
                    d.block = Some(
                        text(&outcome["reason"])
                            .unwrap_or_else(|| "a hook keeps the agent going".into()),
                    );
                }
                d.stop = text(&outcome["stopped"]);
            }
            Some(EventKind::SessionStart) => d.context = texts(&outcome["context"]),
            Some(EventKind::PermissionRequest) => {
                let reasons = texts(&outcome["reasons"]);
                let reason = (!reasons.is_empty()).then(|| reasons.join("\n"));
                d.permission = match outcome["decision"].as_str() {
                    Some("approve") => Some(("allow", reason)),
                    Some("deny") => Some(("deny", reason)),
                    _ => None,
                };
                if !outcome["input"].is_null() {
                    d.input = Some(outcome["input"].clone());
                }
            }
            Some(_) => {}
            None => {
                if blocked {
                    d.block = Some(texts(&outcome["reasons"]).join("\n"));
                }
                d.context = texts(&outcome["context"]);
                if let Some(extra) = outcome["extra"].as_object() {
                    d.extra = extra.clone();
                }
            }
        }
        if let Some(said) = said {
            if d.stop.is_none() {
                d.stop = said.stop.clone();
            }
            d.messages.extend(said.system_messages.iter().cloned());
            d.suppress_output = said.suppress_output;
        }
        d
    }
}

/// The agent's answer to `request`, from what the runner gave and what hooks did.
pub fn render(
    agent: Agent,
    request: &Request,
    emitted: Emitted,
    result: Result<Result<Value, HookError>, String>,
    records: &Records,
    load_failures: &[(String, String)],
) -> Reply {
    let mut problems: Vec<String> = load_failures
        .iter()
        .map(|(path, error)| format!("not loaded: {path}: {error}"))
        .collect();
    problems.extend(records.errors.iter().map(|e| e.to_string()));
    let outcome = match result {
        Ok(Ok(outcome)) => outcome,
        Ok(Err(error)) => {
            json!({"block": true, "reason": format!("Tool execution was blocked by a hook ({error})")})
        }
        Err(unreadable) => {
            problems.push(unreadable);
            Value::Null
        }
    };
    let decision = Decision::of(emitted, &outcome, records.commands.as_ref());
    // Problems are the user's: in an agent's channel for the user (`systemMessage`, Copilot
    // CLI's progress lines), never in what its model reads (a block's stderr). They are on
    // stderr too, after whatever else is there.
    let problems: Vec<String> = problems
        .iter()
        .map(|p| format!("agent-hooks: {p}"))
        .collect();
    let mut reply = reply_to(agent, request, &decision, &problems);
    for line in &problems {
        reply.note(line);
    }
    reply
}

/// The answer to `request` that `decision` makes, `problems` (each a line for the user)
/// where the agent shows its user what it is told.
fn reply_to(agent: Agent, request: &Request, decision: &Decision, problems: &[String]) -> Reply {
    let mut reply = Reply::default();
    // Copilot CLI's own form: a deny, or a stop that keeps the agent going, is JSON.
    let copilot_block = match request.event.as_str() {
        "PreToolUse" | "PermissionRequest" => Some("permissionDecision"),
        "Stop" | "SubagentStop" => Some("decision"),
        _ => None,
    };
    if let (Some(reason), true, Some(field)) =
        (&decision.block, request.copilot_form, copilot_block)
    {
        let answer = if field == "decision" {
            json!({"decision": "block", "reason": reason})
        } else {
            json!({"permissionDecision": "deny", "permissionDecisionReason": reason})
        };
        // The deny is what the user sees, as with Copilot CLI's own hook that fails ("hook
        // errored"): the problems behind it go to stderr, not into its progress.
        reply.stdout = format!("{}{answer}\n", progress_lines(&decision.messages));
        reply.note(reason);
        return reply;
    }
    // Codex CLI 0.171 reads no `continue` before a tool, and runs the tool when the answer
    // holds one (measured in tests/real-agents): it gets the block alone (exit 2).
    let tool_event = matches!(request.event.as_str(), "PreToolUse" | "BeforeTool")
        && !request.copilot_form
        && agent != Agent::Codex;
    if let (Some(reason), Some(stop), true) = (&decision.block, &decision.stop, tool_event) {
        // `continue: false` before the tool: the tool must not run and the agent must stop.
        // A block alone (exit 2) would let the agent ask its model again.
        let answer = stop_before_the_tool(agent, request, reason, stop, problems);
        reply.stdout = format!("{answer}\n");
        return reply;
    }
    if let Some(reason) = &decision.block {
        // Where the agent gives a block's stderr to its model, a block with problems to tell
        // is the agent's `decision: "block"` with the problems in `systemMessage`.
        let stderr_to_the_model = matches!(
            request.event.as_str(),
            "PreToolUse"
                | "BeforeTool"
                | "UserPromptSubmit"
                | "BeforeAgent"
                | "Stop"
                | "AfterAgent"
                | "SubagentStop"
        );
        if !problems.is_empty() && stderr_to_the_model && !request.copilot_form {
            let answer = json!({
                "decision": "block",
                "reason": reason,
                "systemMessage": problems.join("\n"),
            });
            reply.stdout = format!("{answer}\n");
            return reply;
        }
        reply.code = 2;
        reply.note(reason);
        return reply;
    }
    let answer = if request.copilot_form {
        copilot(request, decision)
    } else {
        claude_like(agent, request, decision, problems)
    };
    if !answer.is_empty() {
        reply.stdout = Value::Object(answer).to_string();
        reply.stdout.push('\n');
    }
    if request.copilot_form {
        // Copilot CLI shows a hook's progress lines to the user: its `systemMessage`, and the
        // problems. Any exit but 0 of a preToolUse hook denies the tool there ("hook
        // errored"), while its own hook that times out lets the tool run (Copilot CLI
        // 1.0.102, measured in tests/real-agents): problems never change the exit code.
        let mut shown = decision.messages.clone();
        shown.extend(problems.iter().cloned());
        reply.stdout.insert_str(0, &progress_lines(&shown));
    } else if reply.stdout.is_empty() && !problems.is_empty() {
        // Problems alone: shown to the user (`systemMessage`), with no decision in the answer,
        // so that the agent does as it would without agent-hooks' hooks.
        let answer = json!({"systemMessage": problems.join("\n")});
        reply.stdout = format!("{answer}\n");
    }
    reply
}

/// The answer to a tool event whose hooks asked the agent to stop (`continue: false`): the
/// call denied (so that the tool does not run, also where the agent reads `continue` only
/// after the tool) and the agent stopped, its `stopReason` for the user. Gemini CLI reads
/// the top-level `decision`, the others `hookSpecificOutput.permissionDecision`.
fn stop_before_the_tool(
    agent: Agent,
    request: &Request,
    reason: &str,
    stop: &str,
    problems: &[String],
) -> Value {
    let mut answer = json!({
        "continue": false,
        "stopReason": stop,
        "hookSpecificOutput": {
            "hookEventName": request.agent_event,
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        },
    });
    if agent == Agent::Gemini {
        answer["decision"] = json!("deny");
        answer["reason"] = json!(reason);
    }
    if !problems.is_empty() {
        answer["systemMessage"] = json!(problems.join("\n"));
    }
    answer
}

/// Messages for the user, as Copilot CLI's progress lines (one JSON object a line, before the
/// answer), which it shows to the user and does not give the model.
fn progress_lines(messages: &[String]) -> String {
    messages
        .iter()
        .map(|message| format!("{}\n", json!({"type": "progress", "message": message})))
        .collect()
}

/// Claude Code's answer fields, which Codex, Devin and Gemini CLI read too (with their
/// differences: Gemini CLI's rewritten input is `tool_input`, its AfterTool `deny` replaces
/// the result).
fn claude_like(
    agent: Agent,
    request: &Request,
    d: &Decision,
    problems: &[String],
) -> Map<String, Value> {
    let gemini = agent == Agent::Gemini;
    let mut answer = Map::new();
    let mut specific = Map::new();
    let event = request.event.as_str();
    let tool_event = matches!(event, "PreToolUse" | "BeforeTool");
    if tool_event {
        if let Some(input) = &d.input {
            if gemini {
                specific.insert("tool_input".into(), input.clone());
            } else {
                specific.insert("updatedInput".into(), input.clone());
            }
        }
        if let Some(reason) = &d.ask {
            if gemini {
                // Gemini CLI reads a question as the top-level `decision: "ask"` (headless,
                // with nobody to ask, it does not run the tool); it ignores
                // `hookSpecificOutput.permissionDecision`.
                answer.insert("decision".into(), json!("ask"));
                answer.insert("reason".into(), json!(reason));
            } else {
                specific.insert("permissionDecision".into(), json!("ask"));
                specific.insert("permissionDecisionReason".into(), json!(reason));
            }
        } else if d.approve || (d.input.is_some() && agent == Agent::Codex) {
            // Codex CLI 0.171 runs the original input when `updatedInput` comes without
            // `allow` (the real-agents suite measured it): a rewrite would be lost.
            specific.insert("permissionDecision".into(), json!("allow"));
        }
    }
    if let Some((behavior, reason)) = &d.permission {
        let mut decision = json!({"behavior": behavior});
        if let Some(reason) = reason {
            decision["message"] = json!(reason);
        }
        if let Some(input) = &d.input {
            decision["updatedInput"] = input.clone();
        }
        specific.insert("decision".into(), decision);
    }
    if !d.context.is_empty() {
        specific.insert("additionalContext".into(), json!(d.context.join("\n")));
    }
    for (key, value) in &d.extra {
        specific.entry(key.clone()).or_insert(value.clone());
    }
    if !d.feedback.is_empty() || d.replacement.is_some() {
        if gemini {
            let mut text: Vec<String> = d.replacement.iter().cloned().collect();
            text.extend(d.feedback.iter().cloned());
            answer.insert("decision".into(), json!("deny"));
            answer.insert("reason".into(), json!(text.join("\n")));
        } else {
            let mut text = d.feedback.clone();
            text.extend(d.replacement.iter().cloned());
            answer.insert("decision".into(), json!("block"));
            answer.insert("reason".into(), json!(text.join("\n")));
        }
    }
    if !specific.is_empty() {
        specific.insert("hookEventName".into(), json!(request.agent_event));
        answer.insert("hookSpecificOutput".into(), Value::Object(specific));
    }
    if let Some(reason) = &d.stop {
        answer.insert("continue".into(), json!(false));
        answer.insert("stopReason".into(), json!(reason));
    }
    if d.suppress_output {
        answer.insert("suppressOutput".into(), json!(true));
    }
    let mut messages = d.messages.clone();
    if !answer.is_empty() || !messages.is_empty() {
        messages.extend(problems.iter().cloned());
    }
    if !messages.is_empty() {
        answer.insert("systemMessage".into(), json!(messages.join("\n")));
    }
    answer
}

/// Copilot CLI's own answer, in the fields of the Copilot CLI dialect (docs/command-hooks.md):
/// `permissionDecision` and `modifiedArgs` on `preToolUse` (Copilot CLI 1.0.102 runs
/// `modifiedArgs` and ignores `updatedInput`, measured in tests/real-agents/through_hook.rs),
/// `modifiedResult` and `additionalContext` on `postToolUse`, `additionalContext` at the
/// start and on a prompt.
fn copilot(request: &Request, d: &Decision) -> Map<String, Value> {
    let mut answer = Map::new();
    match request.event.as_str() {
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
        request.event.as_str(),
        "PostToolUse" | "PostToolUseFailure" | "SessionStart" | "UserPromptSubmit"
    );
    if reads_context && !context.is_empty() {
        answer.insert("additionalContext".into(), json!(context.join("\n")));
    }
    answer
}
