//! The entries' sync: agent-hooks' entries in an agent's files kept to the events the
//! hooks found there use, after a change of hooks or of trust (`trust`, the resident
//! process) and at a session's start, which also says which hooks do not run in it.

use std::path::{Path, PathBuf};

use agent_hooks::{agents::Agent, DiscoveryOptions};

use super::{
    config_file, entry, json_text::top_object, load_records, lock, needed, needed_at, plan,
    project, read, records_file, save_records, status_line, take_out, take_over, write,
    InstallError, Record,
};
use crate::{
    options::Common,
    resident::http_config::{HttpConfig, CONFIG_FILE},
    session::Session,
};

/// What a sync of one install's entries changed, by the agent's names of events.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Changed {
    /// Events wired now that were not, because a hook uses them.
    pub added: Vec<String>,
    /// Events wired now that were not, because they are wired whatever the hooks
    /// ([`needed::always`]: an install from before they were).
    pub added_always: Vec<String>,
    /// Events no longer wired.
    pub removed: Vec<String>,
}

impl Changed {
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.added_always.is_empty() && self.removed.is_empty()
    }

    /// What changed in `path`, for people.
    pub fn said(&self, path: &Path) -> String {
        let mut parts = Vec::new();
        if !self.added.is_empty() {
            parts.push(format!(
                "wired {} (a hook of agent-hooks uses it)",
                self.added.join(", ")
            ));
        }
        if !self.added_always.is_empty() {
            parts.push(format!(
                "wired {} (where agent-hooks checks each session's wiring)",
                self.added_always.join(", ")
            ));
        }
        if !self.removed.is_empty() {
            parts.push(format!(
                "no longer wired: {} (no hook of agent-hooks uses it)",
                self.removed.join(", ")
            ));
        }
        format!("{}: {}", path.display(), parts.join("; "))
    }
}

/// The agents named by `--with` in an entry's command.
fn with_of(command: &str) -> Vec<Agent> {
    command
        .split_once(" --with ")
        .map(|(_, with)| {
            with.split([',', ' '])
                .filter_map(|a| a.parse().ok())
                .collect()
        })
        .unwrap_or_default()
}

/// Writes `record`'s entries for `events` (by the agent's names) in place of those it has:
/// taken out as they were written and written again, so that the rest of the file stays
/// byte for byte and `uninstall` takes out exactly what stands there. An install whose
/// entry is a file of its own keeps every event.
pub fn set_events(
    common: &Common,
    agent: Agent,
    record: &mut Record,
    events: &[&str],
) -> Result<Changed, InstallError> {
    if record.owned.is_some() || !record.moved.is_empty() {
        return Ok(Changed::default());
    }
    let Some(command) = record.command.clone() else {
        return Ok(Changed::default());
    };
    let path = record.path.clone();
    let Some(text) = read(&path)? else {
        return Ok(Changed::default());
    };
    let http = match record.mode {
        Some(_) => {
            let config = DiscoveryOptions::new(project(common).unwrap_or_default()).config_dir();
            Some(
                HttpConfig::read_or_make(&config).map_err(|error| InstallError::Io {
                    path: config.join(CONFIG_FILE),
                    error,
                })?,
            )
        }
        None => None,
    };
    let entry = |event: &str| entry(agent, &command, http.as_ref(), event);
    // The status line was written last, right after the top object's brace: it goes first,
    // and comes back the same.
    let mut current = text.clone();
    let status = record
        .status_line
        .as_ref()
        .filter(|insertion| status_line::remove(&mut current, insertion));
    let (mut after, insertions, taken_over) = match &record.taken_over {
        Some(taken) => {
            let Ok(restored) = take_over::undo(&path, &current, taken)? else {
                return Err(InstallError::EntriesChanged(path));
            };
            let planned = take_over::plan(
                &path,
                &restored,
                (agent.profile().installed_events, events),
                &entry,
                taken.copy.clone(),
            )?;
            let Some((after, again)) = planned else {
                return Err(InstallError::EntriesChanged(path));
            };
            let mut taken = taken.clone();
            taken.written = again.written;
            (after, Vec::new(), Some(taken))
        }
        None => {
            let mut after = current;
            if take_out(&path, &mut after, &record.insertions)? > 0 {
                return Err(InstallError::EntriesChanged(path));
            }
            let mut planned = plan(&path, events, &entry, &after)?;
            planned.sort_by_key(|(at, _)| std::cmp::Reverse(*at));
            for (at, insertion) in &planned {
                after.insert_str(*at, &insertion.text);
            }
            (after, planned.into_iter().map(|(_, i)| i).collect(), None)
        }
    };
    if let Some(insertion) = status {
        let top = top_object(after.as_bytes()).map_err(|error| InstallError::NotJson {
            path: path.clone(),
            error,
            entry: String::new(),
        })?;
        after.insert_str(top + 1, &insertion.text);
    }
    if after == text {
        return Ok(Changed::default());
    }
    if !agent.profile().lenient_json && serde_json::from_str::<serde_json::Value>(&after).is_err() {
        return Err(InstallError::EntriesChanged(path));
    }
    let before = needed::wired(agent, &text);
    let now = needed::wired(agent, &after);
    write(&path, &after)?;
    if taken_over.is_some() {
        record.taken_over = taken_over;
    } else {
        record.insertions = insertions;
    }
    let always = needed::always(agent);
    let (added_always, added) = now
        .iter()
        .filter(|e| !before.contains(e))
        .cloned()
        .partition(|e| always.contains(&e.as_str()));
    Ok(Changed {
        added,
        added_always,
        removed: before
            .iter()
            .filter(|e| !now.contains(e))
            .cloned()
            .collect(),
    })
}

/// Writes the entries of agent-hooks' installs for `agent` that serve `common`'s project
/// (the project's file and the user's) again for the events the hooks found there now use,
/// and says what changed, one line per file (problems too). With `remove`, the project's
/// file gets exactly those events; otherwise, and always for the user's file (which serves
/// every project), only what is missing is added (`install --user` takes out what no hook
/// of the user's level or of the project it runs in uses).
pub fn resync(common: &Common, agent: Agent, remove: bool) -> Vec<String> {
    resync_with(common, agent, remove, None)
}

/// [`resync`], with the events the hooks use when they are known already (a session's, at
/// its start: no second discovery, no second start of its long-running hooks).
fn resync_with(
    common: &Common,
    agent: Agent,
    remove: bool,
    known: Option<&[&'static str]>,
) -> Vec<String> {
    let mut lines = Vec::new();
    if agent.profile().entry_file_whole {
        return lines;
    }
    let (Ok(project), Ok(file)) = (project(common), records_file(common)) else {
        return lines;
    };
    let user_file = config_file(agent, true, &project).ok();
    let project_file = config_file(agent, false, &project).ok();
    let _held = match lock::take(&file) {
        Ok(held) => held,
        Err(error) => {
            lines.push(error.to_string());
            return lines;
        }
    };
    let mut records = load_records(&file);
    let mut changed = false;
    for record in records.iter_mut().filter(|r| r.agent == agent.hook_name()) {
        let user = Some(&record.path) == user_file.as_ref();
        if !user && Some(&record.path) != project_file.as_ref() {
            continue;
        }
        let with = record.command.as_deref().map(with_of).unwrap_or_default();
        let found = match known {
            Some(known) => Ok(known.to_vec()),
            None => needed_at(common, agent, &with, false),
        };
        let mut events = match found {
            Ok(events) => events,
            Err(error) => {
                lines.push(format!(
                    "the hooks to wire into {} could not be found: {error}",
                    record.path.display()
                ));
                continue;
            }
        };
        if user || !remove {
            let wired = needed::wired_in(agent, &record.path);
            events = agent
                .profile()
                .installed_events
                .iter()
                .copied()
                .filter(|e| events.contains(e) || wired.iter().any(|w| w == e))
                .collect();
        }
        match set_events(common, agent, record, &events) {
            Ok(done) if done.is_empty() => {}
            Ok(done) => {
                changed = true;
                lines.push(done.said(&record.path));
            }
            Err(error) => lines.push(error.to_string()),
        }
    }
    if changed {
        if let Err(error) = save_records(&file, &records) {
            lines.push(error.to_string());
        }
    }
    lines
}

/// [`resync`] for every agent installed with a file of this project or the user's.
pub fn resync_all(common: &Common) -> Vec<String> {
    let Ok(file) = records_file(common) else {
        return Vec::new();
    };
    let mut agents: Vec<Agent> = load_records(&file)
        .iter()
        .filter_map(|r| r.agent.parse().ok())
        .collect();
    agents.sort_by_key(|a: &Agent| a.hook_name());
    agents.dedup();
    agents
        .into_iter()
        .flat_map(|a| resync(common, a, true))
        .collect()
}

/// At the start of a session of `agent` in `session`'s project: the hooks of the session
/// whose events the agent's files do not wire. The agent read those files as the session
/// started, so these hooks may not run in it (an agent that watches its files can reread
/// them once the change has settled, and run them later in the session): their events are
/// wired now, for the next session (see [`resync`]), and each is a line for the user (its
/// channel for the user, never the model's). Also whether a required hook is among them.
/// Nothing for an agent not wired through its files (an entry file of agent-hooks' own, or
/// no entry: the relay run by hand).
pub fn unwired_at_start(common: &Common, agent: Agent, session: &Session) -> (Vec<String>, bool) {
    if agent.profile().entry_file_whole {
        return (Vec::new(), false);
    }
    let project = session.cwd.clone();
    let mut files: Vec<PathBuf> = [true, false]
        .into_iter()
        .filter_map(|user| config_file(agent, user, &project).ok())
        .collect();
    files.dedup();
    let wired: Vec<String> = files
        .iter()
        .flat_map(|f| needed::wired_in(agent, f))
        .collect();
    if wired.is_empty() {
        return (Vec::new(), false);
    }
    let unwired: Vec<(&str, Vec<needed::User>)> = needed::users(agent, session)
        .into_iter()
        .filter(|(event, _)| !wired.iter().any(|w| w == event))
        .collect();
    if unwired.is_empty() {
        return (Vec::new(), false);
    }
    let mut common = common.clone();
    common.cwd = Some(project);
    let known = needed::events(agent, session);
    let synced = resync_with(&common, agent, false, Some(&known));
    let mut lines = Vec::new();
    let mut required = false;
    for (event, users) in &unwired {
        for user in users {
            required |= user.required;
            lines.push(format!(
                "{}{} on {event} may not run in this session: {} read its hooks when the session started, before {event} was wired to agent-hooks. It is wired now and runs from the next session",
                if user.required { "the required hook " } else { "" },
                user.name,
                agent.title(),
            ));
        }
    }
    lines.extend(synced);
    (lines, required)
}
