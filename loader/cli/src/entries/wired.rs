//! Where each agent is wired to agent-hooks, and what is wrong with its entries: for
//! `list`, `doctor`, `status` and `uninstall`.

use std::path::PathBuf;

use agent_hooks::agents::Agent;
use serde_json::json;

use super::{config_file, has_entry, project, read, stable};
use crate::{options::Common, resident::status};

/// Where each agent is wired to agent-hooks (user and project files holding an
/// `agent-hooks hook` entry), for `list` and `doctor`.
pub fn wired(common: &Common) -> Vec<(Agent, PathBuf)> {
    let Ok(project) = project(common) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for agent in Agent::hooked() {
        for user in [true, false] {
            let Ok(path) = config_file(agent, user, &project) else {
                continue;
            };
            if let Ok(Some(text)) = read(&path) {
                if has_entry(&text, agent) {
                    found.push((agent, path));
                }
            }
        }
    }
    found
}

/// What is wrong with the programs the wired agents' entries run (gone, or of another
/// version), for `doctor`.
pub fn entry_problems(common: &Common) -> Vec<String> {
    wired(common)
        .iter()
        .flat_map(|(agent, file)| {
            let mut problems = stable::problems(*agent, file);
            problems.extend(agent.entry_shadowed(file).map(|(by, events)| {
                format!(
                    "{}: {} lists {}, which {} reads in place of agent-hooks' entries there: agent-hooks does not run on them; move those hooks into the `hooks` of {}",
                    file.display(),
                    by.display(),
                    events.join(", "),
                    agent.title(),
                    file.display()
                )
            }));
            problems
        })
        .collect()
}

/// The lines `list` and `doctor` print about wired agents.
pub fn wired_lines(common: &Common) -> Vec<String> {
    let wired = wired(common);
    let mut lines = Vec::new();
    for agent in Agent::hooked() {
        let places: Vec<String> = wired
            .iter()
            .filter(|(a, _)| *a == agent)
            .map(|(_, p)| p.display().to_string())
            .collect();
        if places.is_empty() {
            lines.push(format!(
                "  {}: not wired (agent-hooks install --agent {})",
                agent.title(),
                agent.hook_name()
            ));
        } else {
            lines.push(format!(
                "  {}: runs agent-hooks: {}",
                agent.title(),
                places.join(", ")
            ));
        }
    }
    lines.push(status::status_line());
    lines
}

/// The wired agents as JSON: `[{"agent": NAME, "file": PATH}]`.
pub fn wired_json(common: &Common) -> serde_json::Value {
    json!(wired(common)
        .iter()
        .map(|(agent, path)| json!({"agent": agent.hook_name(), "file": path}))
        .collect::<Vec<_>>())
}
