//! What `hook` and the resident process say to each other (see [`crate::relay`], which the
//! small relay program shares), and the header read as the options of a `hook` run.

pub use crate::relay::{folder, Header, HEADER_LIMIT, LOCK, LOG, SOCKET, VERSION};

use crate::options::Common;
use agent_hooks::agents::Agent;

/// The options of a `hook` run as the resident process runs it.
pub fn common(header: &Header) -> Common {
    Common {
        cwd: Some(header.cwd.clone()),
        hooks: header.hooks.clone(),
        no_discover: header.no_discover,
        trust_project: header.trust_project,
        json: false,
        strict: false,
        required: header.required.clone(),
        in_process: header.in_process,
        ui: "no".into(),
        // Under an agent, agent-hooks cannot call that agent's MCP servers or model.
        host_script: None,
        verbose: 0,
    }
}

/// The agents of the header's `with`, read.
pub fn with(header: &Header) -> Result<Vec<Agent>, String> {
    header
        .with
        .iter()
        .map(|a| {
            a.parse()
                .map_err(|e: agent_hooks::agents::UnknownAgent| e.to_string())
        })
        .collect()
}
