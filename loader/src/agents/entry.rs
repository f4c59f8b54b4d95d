//! The entry `agent-hooks install` writes for an agent: a matcher group that runs
//! `command` (in the agent's settings file), or a hooks file of agent-hooks' own, whole.

use serde_json::json;

use super::{cline, copilot_cli, opencode, pi, Agent};

impl Agent {
    /// One matcher group whose hook runs `command`, as the agent's settings hold it.
    pub fn entry(self, command: &str) -> String {
        let mut hook = json!({"type": "command"});
        let (name, timeout) = self.profile().entry_fields;
        if let Some(name) = name {
            hook["name"] = json!(name);
        }
        hook["command"] = json!(command);
        if let Some(timeout) = timeout {
            hook["timeout"] = json!(timeout);
        }
        json!({"hooks": [hook]}).to_string()
    }

    /// The hooks file of agent-hooks' own that wires the agent to `command`, where
    /// [`entry_file_whole`](super::Profile::entry_file_whole) (Copilot CLI's
    /// `agent-hooks.json`, pi's extension `agent-hooks.ts`); `None` for an agent whose own
    /// file gets entries. `version`: the version of the agent-hooks program that writes it
    /// (pi's extension names it to the resident process it talks to).
    pub fn entry_file(self, command: &str, version: &str) -> Option<String> {
        match self {
            Agent::Copilot => Some(copilot_cli::entry_file(command)),
            Agent::Pi => Some(pi::extension(command, version)),
            Agent::OpenCode | Agent::Kilo => {
                Some(opencode::plugin(self.hook_name(), command, version))
            }
            Agent::Cline => Some(cline::hook_file(command, version)),
            _ => None,
        }
    }

    /// The command in the text of a file [`entry_file`](Self::entry_file) wrote that is not
    /// JSON (pi's extension), for `doctor` to check the program it runs.
    pub fn entry_file_command(self, text: &str) -> Option<String> {
        match self {
            Agent::Pi => pi::command_of(text),
            Agent::OpenCode | Agent::Kilo => opencode::command_of(text),
            Agent::Cline => cline::command_of(text),
            _ => None,
        }
    }
}
