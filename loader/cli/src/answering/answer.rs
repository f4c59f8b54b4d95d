//! The combined outcome of an event, with the problems the user is to be told, handed to the
//! calling agent's room to be written as that agent reads a hook's answer
//! ([`Agent::answer`]).

use agent_hooks::{
    agents::{AgentEvent, Decision},
    HookError,
};

use super::request::Request;
use crate::{
    event_io::{with_said, Ran},
    relay::Reply,
    session::Records,
};
use agent_hooks::agents::Agent;

/// The hooks of a session that its agent does not run it for, told at its start (see
/// [`crate::entries::sync::unwired_at_start`]): lines for the user, and whether a required hook
/// is among them (then the answer stops the session, at its start and at each later event:
/// [`super::held`]).
#[derive(Debug, Default)]
pub struct Unwired {
    /// The lines.
    pub lines: Vec<String>,
    /// Whether a required hook is among them.
    pub required: bool,
}

/// The agent's answer to `request`, from what the runner gave and what hooks did: the
/// reply, what it says in neutral terms, and the problems it tells the user (first the
/// `standing` ones of the session, not yet told).
pub fn render(
    agent: Agent,
    request: &Request,
    result: Result<Result<Box<dyn Ran>, HookError>, String>,
    records: &Records,
    standing: Vec<String>,
    unwired: Unwired,
) -> (Reply, Decision, Vec<String>) {
    let mut problems = standing;
    problems.extend(unwired.lines);
    problems.extend(records.errors.iter().map(|e| e.to_string()));
    let said = records.commands.as_ref();
    let mut decision = match result {
        Ok(Ok(outcome)) => outcome.decision(said),
        Ok(Err(error)) => with_said(
            Decision {
                block: Some(format!("Tool execution was blocked by a hook ({error})")),
                ..Decision::default()
            },
            said,
        ),
        Err(unreadable) => {
            problems.push(unreadable);
            with_said(Decision::default(), said)
        }
    };
    if unwired.required {
        // A required hook that cannot run in this session: the session does not go on, and
        // what this event would do does not happen.
        let reason = format!(
            "agent-hooks: a required hook cannot run in this session ({} read its hooks before they were wired for it); start a new session",
            agent.title()
        );
        if request.event != "SessionStart" {
            decision.block.get_or_insert_with(|| reason.clone());
        }
        decision.stop.get_or_insert(reason);
    }
    // Problems are the user's: in an agent's channel for the user (`systemMessage`, an
    // agent's progress lines), never in what its model reads (a block's stderr). They are on
    // stderr too, after whatever else is there.
    let problems: Vec<String> = problems
        .iter()
        .map(|p| format!("agent-hooks: {p}"))
        .collect();
    let event = AgentEvent {
        event: &request.event,
        agent_event: &request.agent_event,
        own_form: request.own_form,
    };
    let answer = agent.answer(&event, &decision, &problems);
    let mut reply = Reply {
        code: answer.code,
        stdout: answer.stdout,
        stderr: String::new(),
    };
    for line in &answer.notes {
        reply.note(line);
    }
    (reply, decision, problems)
}
