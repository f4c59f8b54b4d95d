//! `agent-hooks events`: the table of events x agents, generated from the agents' rooms
//! (the page docs/events-by-agent.md).

use std::process::ExitCode;

use crate::options::Outcome;

/// Prints the table in Markdown.
pub fn run() -> Outcome {
    outln!("{}", agent_hooks::agents::events_table().trim_end());
    Ok(ExitCode::SUCCESS)
}
