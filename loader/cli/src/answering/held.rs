//! Sessions held because a required hook cannot run in them: an agent reads its hooks when a
//! session starts, so a required hook whose event was not wired then does not run in that
//! session whatever is wired later. Its start says so and asks the agent to stop; an agent
//! that goes on anyway (as one may, after `SessionStart`) is stopped at the session's
//! next event that reaches agent-hooks: the first of a turn is always wired for that.
//!
//! A held session is an empty file in the user's socket folder, named by a hash of the agent
//! and the session id; it outlives the process that wrote it (the
//! relay answers one event and exits). Files older than [`KEPT`] are removed when another is
//! written: a session that lasts longer than that is no longer held.

use std::{
    path::PathBuf,
    time::{Duration, SystemTime},
};

use agent_hooks::agents::Agent;

/// How long a held session stays held.
const KEPT: Duration = Duration::from_secs(7 * 24 * 60 * 60);

/// The folder of held sessions.
fn folder() -> Result<PathBuf, String> {
    let (home, xdg) = crate::relay::user()?;
    Ok(crate::relay::folder(&home, xdg.as_deref()).join("held"))
}

fn file(agent: Agent, session: &str) -> Result<PathBuf, String> {
    let name = crate::relay::fnv(&format!("{}\0{session}", agent.hook_name()));
    Ok(folder()?.join(name))
}

/// Holds `session` of `agent`; the error says why it could not be recorded.
pub fn hold(agent: Agent, session: &str) -> Result<(), String> {
    let folder = folder()?;
    crate::relay::make_folder(&folder)?;
    if let Ok(entries) = std::fs::read_dir(&folder) {
        let now = SystemTime::now();
        for entry in entries.flatten() {
            let old = entry
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|m| now.duration_since(m).ok())
                .is_some_and(|age| age > KEPT);
            if old {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
    let path = file(agent, session)?;
    std::fs::write(&path, "").map_err(|e| format!("{}: {e}", path.display()))
}

/// Whether `session` of `agent` is held.
pub fn is_held(agent: Agent, session: &str) -> bool {
    file(agent, session).is_ok_and(|path| path.exists())
}
