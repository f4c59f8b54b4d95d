//! Claude Code's answer fields, which Codex CLI, Devin CLI and Gemini CLI read too, each with
//! the differences its profile states (Gemini CLI's rewritten input is `tool_input` and its
//! top-level `decision` denies and asks; Codex CLI needs `allow` beside a rewrite).

use serde_json::{json, Map, Value};

use super::{
    decision::{AgentEvent, Decision},
    Agent,
};

/// The answer to a tool event whose hooks asked the agent to stop (`continue: false`): the
/// call denied (so that the tool does not run, also where the agent reads `continue` only
/// after the tool) and the agent stopped, its `stopReason` for the user.
pub(super) fn stop_before_the_tool(
    agent: Agent,
    event: &AgentEvent,
    reason: &str,
    stop: &str,
    problems: &[String],
) -> Value {
    let mut answer = json!({
        "continue": false,
        "stopReason": stop,
        "hookSpecificOutput": {
            "hookEventName": event.agent_event,
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        },
    });
    if agent.profile().top_level_decision {
        answer["decision"] = json!("deny");
        answer["reason"] = json!(reason);
    }
    if !problems.is_empty() {
        answer["systemMessage"] = json!(problems.join("\n"));
    }
    answer
}

/// The answer's fields for a decision that blocks nothing (empty: no answer).
pub(super) fn answer(
    agent: Agent,
    event: &AgentEvent,
    d: &Decision,
    problems: &[String],
) -> Map<String, Value> {
    let profile = agent.profile();
    let top_level = profile.top_level_decision;
    let mut answer = Map::new();
    let mut specific = Map::new();
    if event.before_a_tool() {
        if let Some(input) = &d.input {
            specific.insert(profile.rewritten_input_field.into(), input.clone());
        }
        if let Some(reason) = &d.ask {
            if top_level {
                // Gemini CLI reads a question as the top-level `decision: "ask"` (headless,
                // with nobody to ask, it does not run the tool); it ignores
                // `hookSpecificOutput.permissionDecision`.
                answer.insert("decision".into(), json!("ask"));
                answer.insert("reason".into(), json!(reason));
            } else {
                specific.insert("permissionDecision".into(), json!("ask"));
                specific.insert("permissionDecisionReason".into(), json!(reason));
            }
        } else if d.approve || (d.input.is_some() && profile.rewrite_needs_allow) {
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
        let (word, text) = if top_level {
            let mut text: Vec<String> = d.replacement.iter().cloned().collect();
            text.extend(d.feedback.iter().cloned());
            ("deny", text)
        } else {
            let mut text = d.feedback.clone();
            text.extend(d.replacement.iter().cloned());
            ("block", text)
        };
        answer.insert("decision".into(), json!(word));
        answer.insert("reason".into(), json!(text.join("\n")));
    }
    if !specific.is_empty() {
        specific.insert("hookEventName".into(), json!(event.agent_event));
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
