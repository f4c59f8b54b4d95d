//! An agent's payloads in `emit`, `replay` and `doctor`: with `--agent NAME`, read as `hook
//! --agent NAME` reads them (the agent's field and tool names, the agent's own hooks files
//! left to the agent, the hooks `install --take-over` moved run); without it, a warning when
//! a payload's tool name is an agent's name of a tool, which agent-hooks' hooks would not
//! match.

use std::collections::BTreeSet;

use agent_hooks::command_hook::ToolNames;
use serde_json::Value;

use crate::{
    answering::request::{own_tool_name, Request, RequestError},
    hook_session::{self, HookArgs},
    options::Common,
    session::Session,
};
use agent_hooks::agents::Agent;

/// The session of `emit`, `replay` or `doctor`: that of `hook --agent NAME` with an agent,
/// else the program's own.
pub fn open(common: &Common, agent: Option<Agent>) -> Result<Session, Box<dyn std::error::Error>> {
    match agent {
        Some(agent) => hook_session::open(
            common,
            &HookArgs {
                agent,
                event: None,
                with: Vec::new(),
                no_serve: true,
            },
        ),
        None => Session::open(common),
    }
}

/// `payload` of `event` as `hook --agent` reads it from `agent`: the event named as
/// agent-hooks names it, the tool too (`Bash` → `exec`). `event` names the event unless it
/// is empty and the payload names it (`hook_event_name`).
pub fn read(
    agent: Agent,
    event: &str,
    mut payload: Value,
) -> Result<(String, Value), RequestError> {
    if let (Some(fields), false) = (payload.as_object_mut(), event.is_empty()) {
        if fields.contains_key("hook_event_name") {
            fields.insert("hook_event_name".into(), Value::String(event.to_owned()));
        }
    }
    let bytes = serde_json::to_vec(&payload).map_err(|e| RequestError::NotJson(e.to_string()))?;
    let event = (!event.is_empty()).then_some(event);
    let request = Request::parse(&bytes, agent, event)?;
    Ok((request.event.clone(), request.fields()))
}

/// Warns, once per tool name, about payloads read without `--agent`.
#[derive(Default)]
pub struct DialectWarnings {
    said: BTreeSet<String>,
}

impl DialectWarnings {
    /// The warning for `payload`, the first time its tool name is seen: when it is an agent's
    /// name of a tool that agent-hooks names otherwise, and some hook of `session` would not
    /// know it by that name (a native plugin, a long-running hook, a hook of agent-hooks'
    /// own files); the hooks of that agent's own files know it, and need no warning.
    pub fn check(&mut self, session: &Session, payload: &Value) -> Option<String> {
        let tool = payload
            .get("tool_name")
            .or_else(|| payload.get("toolName"))
            .and_then(Value::as_str)?;
        let names = ToolNames::default();
        let missed = !session.runner.hooks().is_empty()
            || session
                .runner
                .command_hooks()
                .hooks()
                .any(|h| names.own_name(h.dialect, tool).is_none());
        if !missed {
            return None;
        }
        let text = dialect_warning(tool)?;
        self.said.insert(tool.to_owned()).then_some(text)
    }
}

/// Why a payload whose tool is `tool` needs `--agent`, when some agent names a tool so.
pub fn dialect_warning(tool: &str) -> Option<String> {
    let agents: Vec<(Agent, String)> = Agent::hooked()
        .map(|agent| (agent, own_tool_name(agent, tool)))
        .filter(|(_, own)| own != tool)
        .collect();
    let (first, own) = agents.first()?;
    let others: Vec<String> = agents[1..]
        .iter()
        .map(|(agent, _)| format!("--agent {}", agent.hook_name()))
        .collect();
    let others = if others.is_empty() {
        String::new()
    } else {
        format!(" (or {}, for those agents)", others.join(", "))
    };
    Some(format!(
        "the payload's tool name `{tool}` is {}'s name of agent-hooks' `{own}`: hooks that match `{own}` do not see it. Give --agent {}{others} to read the payload as {} sends it",
        first.title(),
        first.hook_name(),
        first.title()
    ))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_claude_code_tool_name_is_told_with_the_option_to_use() {
        let said = dialect_warning("Bash").unwrap_or_default();
        assert!(said.contains("`Bash`"), "{said}");
        assert!(said.contains("--agent claude"), "{said}");
        assert!(said.contains("`exec`"), "{said}");
        // agent-hooks' own names and unknown names need nothing.
        assert_eq!(dialect_warning("exec"), None);
        assert_eq!(dialect_warning("my_tool"), None);
    }

    #[test]
    fn with_an_agent_its_tool_and_event_names_are_read() {
        let payload = json!({"hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": "ls"}});
        let (event, fields) = read(Agent::ClaudeCode, "", payload.clone()).unwrap_or_default();
        assert_eq!(event, "PreToolUse");
        assert_eq!(fields["tool_name"], "exec");
        let mut bare = payload;
        bare.as_object_mut().map(|o| o.remove("hook_event_name"));
        let (event, fields) = read(Agent::ClaudeCode, "PreToolUse", bare).unwrap_or_default();
        assert_eq!(event, "PreToolUse");
        assert_eq!(fields["tool_name"], "exec");
        assert!(read(Agent::ClaudeCode, "", json!({"tool_name": "Bash"})).is_err());
    }
}
