//! Where the hooks `install --take-over` moved out of an agent's configuration are kept, and
//! the discovery provider that finds them again: `<config>/taken-over/<agent>/user/<file>`
//! for the user's file, `<config>/taken-over/<agent>/project-<id>/<file>` for a project's
//! (`<id>` stands for the project folder), where `<file>` is the agent's own path of it
//! (`.<agent>/settings.json`), so that each copy is read in its agent's dialect, as the
//! original was. A project's copy is a project hook: it runs once trusted.

use std::path::{Path, PathBuf};

use agent_hooks::{
    agents::Agent,
    discover::{DiscoveryContext, DiscoveryProvider, EntryKind, Found, HookEntry, Level},
};

/// The folder of the copies, in agent-hooks' configuration folder.
pub const FOLDER: &str = "taken-over";

/// A short stable hash (FNV-1a, hex) that stands for a project folder.
fn tag(project: &Path) -> String {
    let project = std::fs::canonicalize(project).unwrap_or_else(|_| project.to_path_buf());
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in project.to_string_lossy().bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{hash:016x}")
}

/// The folder of all of `agent`'s copies.
fn agent_folder(config_dir: &Path, agent: &str) -> PathBuf {
    config_dir.join(FOLDER).join(agent)
}

/// The folder of `agent`'s copies at one level: the user's, or `project`'s.
pub fn scope(config_dir: &Path, agent: &str, project: Option<&Path>) -> PathBuf {
    let base = agent_folder(config_dir, agent);
    match project {
        None => base.join("user"),
        Some(project) => base.join(format!("project-{}", tag(project))),
    }
}

/// The copy of the agent's file at `relative` (its path under the home or the project).
pub fn copy_path(
    config_dir: &Path,
    agent: &str,
    project: Option<&Path>,
    relative: &str,
) -> PathBuf {
    scope(config_dir, agent, project).join(relative)
}

/// The providers of the copies, one per agent that runs agent-hooks, named `<agent> (taken
/// over)`.
pub fn providers() -> Vec<Box<dyn DiscoveryProvider>> {
    Agent::hooked()
        .map(|agent| {
            Box::new(TakenOver {
                agent,
                name: format!("{} (taken over)", agent.hook_name()),
            }) as Box<dyn DiscoveryProvider>
        })
        .collect()
}

/// The copies of one agent's hooks: the user's, then the project's.
struct TakenOver {
    agent: Agent,
    name: String,
}

impl DiscoveryProvider for TakenOver {
    fn name(&self) -> &str {
        &self.name
    }

    /// The agent whose hooks were taken over.
    fn agent(&self) -> Option<Agent> {
        Some(self.agent)
    }

    /// Between agent-hooks' own folders (100, 90) and the agents' files (80 and below).
    fn priority(&self) -> i32 {
        85
    }

    fn discover(&self, ctx: &DiscoveryContext) -> Result<Found, String> {
        let mut found = Found::default();
        // Nothing taken over from this agent (the common case): no project path to resolve.
        if !agent_folder(&ctx.config_dir, self.agent.hook_name()).is_dir() {
            return Ok(found);
        }
        for (project, level) in [
            (None, Level::User),
            (Some(ctx.cwd.as_path()), Level::Project),
        ] {
            let dir = scope(&ctx.config_dir, self.agent.hook_name(), project);
            let mut files = Vec::new();
            json_files(&dir, 0, &mut files);
            files.sort();
            for path in files {
                let relative = path
                    .strip_prefix(&dir)
                    .unwrap_or(&path)
                    .display()
                    .to_string();
                found.entries.push(HookEntry {
                    name: format!("taken-over:{}:{level}:{relative}", self.agent.hook_name()),
                    path,
                    kind: EntryKind::HooksFile,
                    tool: None,
                    level,
                    source: self.name().to_owned(),
                });
            }
        }
        Ok(found)
    }
}

/// Whether `path` is a copy of an agent's hook file named after its event, in a folder that
/// agent reads (its profile's places of such files).
fn is_event_hook(path: &Path) -> bool {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let event_file = Agent::of_file(path).profile().event_file_names();
    event_file.is_some_and(|is_event| is_event(&name))
}

/// The `*.json` files under `dir`, a few folders deep, and copies of hook files named after
/// events.
fn json_files(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    if depth > 4 {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            json_files(&path, depth + 1, out);
        } else if path.extension().is_some_and(|e| e == "json") || is_event_hook(&path) {
            out.push(path);
        }
    }
}
