//! The deliberate differences: where agent-hooks does not do what the agent does, on
//! purpose (docs/real-agents.md says why). Each is asserted as it is: both sides' values
//! are recorded here, so a change on either side fails the suite.

use serde_json::Value;

use crate::agents::Agent;

/// One deliberate difference.
pub struct Expected {
    pub agent: Value,
    pub agent_hooks: Value,
    pub why: &'static str,
}

/// The deliberate difference of `agent` in `case` on `fact`, if there is one.
pub fn find(agent: Agent, case: &str, fact: &str) -> Option<Expected> {
    let _ = (agent, case, fact);
    None
}
