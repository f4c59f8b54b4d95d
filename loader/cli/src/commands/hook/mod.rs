//! `agent-hooks hook --agent NAME`: the command an agent runs for each of its events. It
//! reads the agent's payload on stdin, runs every hook agent-hooks knows for that event
//! (native plugins, long-running hooks, agent-hooks' own hooks files, and the other agents'
//! hooks files named with `--with`) but never the calling agent's own hooks files, which that
//! agent runs itself, and answers as that agent expects.

mod resident;

pub use crate::hook_session::HookArgs;
use crate::{
    answering::{
        answer_here,
        request::{read_bounded, Request},
    },
    options::{Common, Outcome},
};

/// `agent-hooks hook`: through the resident process (started when it is not running), or,
/// when it cannot be reached or fails mid-call, in this process, saying so on stderr.
pub fn run(common: &Common, args: &HookArgs) -> Outcome {
    let bytes = read_bounded(&mut std::io::stdin().lock());
    let serve = !args.no_serve && std::env::var_os("AGENT_HOOKS_NO_SERVE").is_none();
    let mut fallback = None;
    if let (true, Ok(bytes)) = (serve, &bytes) {
        match resident::ask(common, args, bytes) {
            Ok(reply) => return Ok(reply.deliver()),
            Err(error) => fallback = Some(error),
        }
    }
    let request = bytes.and_then(|b| Request::parse(&b, args.agent, args.event.as_deref()));
    records_to_the_log();
    let mut reply = answer_here(common, args, request);
    if let Some(error) = fallback {
        reply.note(&format!(
            "agent-hooks: the resident process could not answer ({error}); the hooks ran in this process"
        ));
    }
    Ok(reply.deliver())
}

/// Sends the log records of the hooks run in this process to the resident process's log
/// (kept under a size), where they go when it runs them, and not to the agent's stderr:
/// that carries the answer, and some agents give it to their model (a block's reason).
fn records_to_the_log() {
    if let Ok((home, xdg)) = crate::relay::user() {
        let folder = crate::relay::folder(&home, xdg.as_deref());
        crate::capped_log::open(
            &folder.join(crate::relay::LOG),
            crate::capped_log::limit(),
            false,
        );
    }
}
