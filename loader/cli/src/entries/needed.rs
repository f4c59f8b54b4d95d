//! Which events an agent's entries are written for: those some hook of agent-hooks would
//! run on for that agent (native plugins' handlers, long-running and command hooks, the
//! hooks `--take-over` moved, other agents' files named with `--with`), found with the
//! discovery `hook --agent` uses, and the event that starts a session, where the wiring is
//! checked. An event with no entry costs the agent nothing: it does not start the relay.

use std::path::Path;

use agent_hooks::{abi::EventKind, agents::Agent, command_hook::CommandEvent};
use serde_json::Value;

use super::json_text::{object_members, strict, top_object};
use crate::{
    event_io::{parse_event, Emitted},
    session::Session,
};

/// One hook that runs on an event: how it is named for people, and whether it is required.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    /// The hook: a command with its file, or a plugin's path.
    pub name: String,
    /// Whether it is required (fails closed).
    pub required: bool,
}

/// The events, by the agent's names, that stay wired whatever the hooks: the first of a
/// session, where the relay compares what the session's hooks need with what is wired, and
/// the first of a turn, where a session that started without the event of a required hook
/// is stopped (an agent reads its hooks when a session starts, and an agent may go on after
/// a `SessionStart` that asks it to stop). The first of a turn also starts the
/// resident process HTTP entries post to.
pub fn always(agent: Agent) -> Vec<&'static str> {
    agent
        .profile()
        .installed_events
        .iter()
        .copied()
        .filter(|e| {
            parsed(agent, e)
                .and_then(|(_, command)| command)
                .is_some_and(|c| matches!(c.name(), "SessionStart" | "UserPromptSubmit"))
        })
        .collect()
}

/// `event`, by `agent`'s name, as the runner's kind of event and the command hooks' event
/// (each where it has one); `None` for a name the registry does not know.
fn parsed(agent: Agent, event: &str) -> Option<(Option<EventKind>, Option<CommandEvent>)> {
    match parse_event(agent.claude_event_name(event)).ok()? {
        Emitted::Runner(kind, command) => Some((Some(kind), command)),
        Emitted::Command(command) => Some((None, Some(command))),
    }
}

/// For each event the agent's entry can be installed for (its profile's
/// `installed_events`, in that order), the hooks of `session` that run on it; events no
/// hook uses are left out.
pub fn users(agent: Agent, session: &Session) -> Vec<(&'static str, Vec<User>)> {
    let runner = &session.runner;
    let mut used = Vec::new();
    for event in agent.profile().installed_events {
        let Some((kind, command)) = parsed(agent, event) else {
            continue;
        };
        let mut users: Vec<User> = Vec::new();
        if let Some(kind) = kind {
            users.extend(
                runner
                    .hooks()
                    .iter()
                    .filter(|h| h.events().any(|k| k == kind))
                    .map(|h| User {
                        name: h.path().to_owned(),
                        required: h.is_required(),
                    }),
            );
        }
        if let Some(command) = command {
            users.extend(
                runner
                    .command_hooks()
                    .hooks()
                    .filter(|h| h.event == command)
                    .map(|h| User {
                        name: format!("`{}` ({})", h.kind.label(), h.source.display()),
                        required: h.required,
                    }),
            );
        }
        users.dedup();
        if !users.is_empty() {
            used.push((*event, users));
        }
    }
    used
}

/// The events to wire for `session`'s hooks: [`always`] and those of [`users`], in the
/// order of the agent's `installed_events`.
pub fn events(agent: Agent, session: &Session) -> Vec<&'static str> {
    let always = always(agent);
    let used = users(agent, session);
    agent
        .profile()
        .installed_events
        .iter()
        .copied()
        .filter(|e| always.contains(e) || used.iter().any(|(u, _)| u == e))
        .collect()
}

/// The events under `hooks` in an agent's configuration file's `text` whose list holds an
/// agent-hooks entry for `agent` (a command that runs `agent-hooks hook --agent NAME`, or
/// an HTTP hook to the resident process), in the file's order.
pub fn wired(agent: Agent, text: &str) -> Vec<String> {
    let Some(hooks) = hooks_object(text) else {
        return Vec::new();
    };
    let ours = |hook: &Value| match hook.get("type").and_then(Value::as_str) {
        Some("http") => hook
            .get("headers")
            .and_then(Value::as_object)
            .is_some_and(|h| {
                h.keys()
                    .any(|k| k.eq_ignore_ascii_case(crate::wiring::AGENT_HOOKS_SECRET_HEADER))
            }),
        _ => hook
            .get("command")
            .or_else(|| hook.get("bash"))
            .and_then(Value::as_str)
            .is_some_and(|c| super::has_entry(c, agent)),
    };
    hooks
        .into_iter()
        .filter(|(_, groups)| {
            groups.as_array().is_some_and(|groups| {
                groups.iter().any(|group| {
                    group
                        .get("hooks")
                        .and_then(Value::as_array)
                        .is_some_and(|hooks| hooks.iter().any(ours))
                        || ours(group)
                })
            })
        })
        .map(|(event, _)| event)
        .collect()
}

/// The `hooks` object of a configuration file's text (comments and trailing commas
/// allowed), its members in the file's order.
fn hooks_object(text: &str) -> Option<Vec<(String, Value)>> {
    let bytes = text.as_bytes();
    let top = top_object(bytes).ok()?;
    let (members, _) = object_members(bytes, top).ok()?;
    let hooks = members.iter().find(|m| m.key == "hooks")?;
    if bytes.get(hooks.value_start) != Some(&b'{') {
        return None;
    }
    let (events, _) = object_members(bytes, hooks.value_start).ok()?;
    Some(
        events
            .iter()
            .filter_map(|m| {
                let value = strict(bytes, m.value_start, m.value_end).ok()?;
                Some((m.key.clone(), serde_json::from_str(&value).ok()?))
            })
            .collect(),
    )
}

/// The events wired in the agent's file at `path` (none when it cannot be read).
pub fn wired_in(agent: Agent, path: &Path) -> Vec<String> {
    super::read(path)
        .ok()
        .flatten()
        .map(|text| wired(agent, &text))
        .unwrap_or_default()
}
