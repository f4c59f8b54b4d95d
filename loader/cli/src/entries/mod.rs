//! agent-hooks' entries in an agent's files, which `install` writes and `uninstall` takes
//! out: the file edited as text, each insertion made right after an opening bracket and
//! recorded (in `<config>/installed.json`), so that taking it out removes those bytes and no
//! other, and the rest of the file (comments, key order, spacing) stays byte for byte.
//!
//! - `json_text`: JSON text read where its bytes are, for insertions.
//! - `needed`: the events the hooks use, and those an entry wires.
//! - `status_line`: the status line entry.
//! - `take_over`: an agent's own hooks moved under agent-hooks, and put back;
//!   `folder_take_over`: the hooks files of a folder of them moved one by one.
//! - `lock`: the lock beside the install record that its writers hold.
//! - `stable`: the program an entry runs, through a link that outlives an upgrade.
//! - `sync`: the entries kept to the events the hooks use.
//! - `wired`: where each agent is wired.

pub mod folder_take_over;
pub mod json_text;
pub mod lock;
pub mod needed;
pub mod stable;
pub mod status_line;
pub mod sync;
pub mod take_over;
pub mod wired;

use std::{
    fs,
    path::{Path, PathBuf},
};

use agent_hooks::{agents::Agent, DiscoveryOptions};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::{options::Common, resident::http_config::HttpConfig};
use folder_take_over::MovedFile;
use json_text::{array_elements, object_members, top_object, JsonTextError};
use take_over::TakeOver;

/// The secret's header as written into the entry.
pub const SECRET_HEADER_NAME: &str = "X-Agent-Hooks-Secret";

/// The largest configuration file edited.
pub const FILE_LIMIT: u64 = 4 << 20;

/// Why an install or an uninstall did not happen.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    /// The file could not be read or written.
    #[error("{path}: {error}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What failed.
        error: std::io::Error,
    },
    /// The file is not JSON that can be edited.
    #[error("{path} is not a JSON object that agent-hooks can edit ({error}); fix it, or add the entry by hand: {entry}")]
    NotJson {
        /// The file.
        path: PathBuf,
        /// Where it is broken.
        error: JsonTextError,
        /// The entry to add by hand.
        entry: String,
    },
    /// `hooks`, or an event under it, is not what the agent reads.
    #[error("{path}: `{key}` is not {expected}; fix it, or add the entry by hand")]
    Shape {
        /// The file.
        path: PathBuf,
        /// The key.
        key: String,
        /// What it must be.
        expected: &'static str,
    },
    /// Larger than [`FILE_LIMIT`].
    #[error("{0} is larger than 4 MiB; agent-hooks does not edit it")]
    TooLarge(PathBuf),
    /// Another `install`, `uninstall` or sync held the record's lock for too long.
    #[error("{0} is held by another agent-hooks install, uninstall or sync of the entries; try again once it is done")]
    Busy(PathBuf),
    /// A file agent-hooks owns was changed since.
    #[error(
        "{0} was changed since agent-hooks wrote it; remove it by hand if you no longer want it"
    )]
    Changed(PathBuf),
    /// No home folder.
    #[error("no home folder: set HOME")]
    NoHome,
    /// The agent's own hook files stand where install writes agent-hooks' (files named after
    /// events).
    #[error("{0} holds hook files of your own ({1}): install with --take-over to move them under agent-hooks, which runs them (uninstall puts them back), or move them away")]
    Occupied(PathBuf, String),
    /// The hooks files that `install --take-over` moved one by one have new files in their
    /// places.
    #[error("{0} were made again since `install --take-over` moved the files of those names under agent-hooks; uninstall does not overwrite them. Move them away (or put what you want into the copies agent-hooks runs) and run uninstall again, or run `uninstall --force` to put the old files back (what they replace is kept beside the copies)")]
    PlacesTaken(String),
    /// `--http` for an agent without HTTP hooks on 127.0.0.1: the agent, the agents that
    /// have them, and why others that have HTTP hooks take none of agent-hooks' (each
    /// followed by `; `).
    #[error("{0}: --http is for {1} only ({2}the other agents have no HTTP hooks); install without --http")]
    NoHttp(&'static str, String, String),
    /// `--http` with `--project`.
    #[error("--http writes your secret into the entry, so it goes into your own settings only: install with --http --user")]
    HttpInProject,
    /// `--take-over` where an entry agent-hooks has no record of is in the file already.
    #[error("{0} runs agent-hooks already, from an entry agent-hooks has no record of (written by hand, or by an install with another configuration folder), so its hooks cannot be taken over: remove the hooks that run `agent-hooks-hook --agent` or `agent-hooks hook --agent` from it, then install again with --take-over")]
    InstalledWithout(PathBuf),
    /// Installed already, with other options than this install's.
    #[error("{path} runs agent-hooks already, installed with other options: {differs}. Nothing was changed. To install with these options, run `agent-hooks uninstall` first (`{undo}`), then `{redo}`")]
    OtherOptions {
        /// The agent's file.
        path: PathBuf,
        /// What differs, for people.
        differs: String,
        /// The uninstall to run.
        undo: String,
        /// The install asked for.
        redo: String,
    },
    /// An option `install` or `uninstall` does not apply.
    #[error("{command} does not apply {option}: {why}")]
    NotApplied {
        /// `install` or `uninstall`.
        command: &'static str,
        /// The option as given.
        option: &'static str,
        /// Why, and what to do instead.
        why: &'static str,
    },
    /// The `hooks` that `install --take-over` wrote were changed since.
    #[error("the hooks in {path} were changed since `install --take-over` wrote them, so the hooks that were there before are not put back over your changes. Move what you added into {copy} (which agent-hooks runs) or take it out, then run uninstall again; or run `uninstall --force` to put the old hooks back (what it replaces is kept beside the copy)")]
    TakenOverChanged {
        /// The agent's file.
        path: PathBuf,
        /// The copy of the hooks taken over.
        copy: PathBuf,
    },
    /// The entries install wrote were changed since, so they are not written again for
    /// other events.
    #[error("{0}: the entries agent-hooks wrote there were changed since, so they are not written again for the events your hooks use now. Remove the hooks that run `agent-hooks-hook --agent` or `agent-hooks hook --agent` from it by hand, then run `agent-hooks install` again")]
    EntriesChanged(PathBuf),
    /// Another file of the agent's takes the place of the entries for some events.
    #[error("{file} lists {events}: {agent} reads that file's hooks for those events in place of the `hooks` of {path}, so agent-hooks would not run on them. Move those hooks into the `hooks` of {path} ({agent} runs both files' other events), then run install again")]
    Shadowed {
        /// The agent's title.
        agent: &'static str,
        /// The file install writes into.
        path: PathBuf,
        /// The file that takes its place.
        file: PathBuf,
        /// The events, comma-separated.
        events: String,
    },
}

/// One insertion: the container it went into (`[]` the top object, `["hooks"]`, or
/// `["hooks", EVENT]`) and its text, which starts right after the container's bracket.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Insertion {
    /// The container it went into.
    pub container: Vec<String>,
    /// Its text.
    pub text: String,
}

/// What one install changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// The agent (its `--agent` name).
    pub agent: String,
    /// The file written.
    pub path: PathBuf,
    /// The file did not exist: uninstall removes it (when it holds only what was written).
    pub created: bool,
    /// What was inserted.
    pub insertions: Vec<Insertion>,
    /// The whole file written (a file agent-hooks owns whole, where the profile says
    /// `entry_file_whole`).
    #[serde(default)]
    pub owned: Option<String>,
    /// What `--take-over` moved.
    #[serde(default)]
    pub taken_over: Option<TakeOver>,
    /// The file's mode before `--http` made it the owner's only (put back by uninstall).
    #[serde(default)]
    pub mode: Option<u32>,
    /// The hooks files that `--take-over` moved one by one (out of a folder of them).
    #[serde(default)]
    pub moved: Vec<MovedFile>,
    /// The entry's command as written (`None` in a record of an earlier version).
    #[serde(default)]
    pub command: Option<String>,
    /// The folders made for a file owned whole, the deepest first: removed with it while
    /// empty.
    #[serde(default)]
    pub folders: Vec<PathBuf>,
    /// The status line entry `--status-line` wrote (after the hooks' entries).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_line: Option<Insertion>,
    /// Other files written whole with the same text as `owned` (one hook file per event
    /// beside the first, for an agent whose hook files are named after events).
    #[serde(default)]
    pub also: Vec<PathBuf>,
}

pub fn home() -> Result<PathBuf, InstallError> {
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .filter(|h| h.is_absolute())
        .ok_or(InstallError::NoHome)
}

pub fn project(common: &Common) -> Result<PathBuf, Box<dyn std::error::Error>> {
    Ok(match &common.cwd {
        Some(dir) => std::path::absolute(dir)?,
        None => std::env::current_dir()?,
    })
}

/// The agent's configuration file that holds its hooks, at the user or project level.
pub fn config_file(agent: Agent, user: bool, project: &Path) -> Result<PathBuf, InstallError> {
    let base = if user { home()? } else { project.to_path_buf() };
    Ok(base.join(relative_file(agent, user)))
}

/// [`config_file`]'s path under the home or the project.
pub fn relative_file(agent: Agent, user: bool) -> &'static str {
    let (user_file, project_file) = agent.profile().entry_files;
    if user {
        user_file
    } else {
        project_file
    }
}

/// The events that keep the command entry under `--http`: the first of a session and of a
/// turn, which start the resident process when it is not running (an HTTP hook cannot).
pub const HTTP_STARTERS: &[&str] = &["SessionStart", "UserPromptSubmit"];

/// One matcher group with the entry for `event`, as the agent writes it: under `--http`
/// (`http` given), an HTTP hook with the secret, except for [`HTTP_STARTERS`].
pub fn entry(agent: Agent, command: &str, http: Option<&HttpConfig>, event: &str) -> String {
    if let Some(http) = http.filter(|_| !HTTP_STARTERS.contains(&event)) {
        let url = match command.split_once(" --with ") {
            Some((_, with)) => format!("{}?with={with}", http.url(agent.hook_name())),
            None => http.url(agent.hook_name()),
        };
        let hook = json!({"type": "http", "url": url,
            "headers": {SECRET_HEADER_NAME: http.secret}, "timeout": 600});
        return json!({"hooks": [hook]}).to_string();
    }
    agent.entry(command)
}

pub fn read(path: &Path) -> Result<Option<String>, InstallError> {
    let io = |error| InstallError::Io {
        path: path.to_path_buf(),
        error,
    };
    match fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io(e)),
        Ok(meta) if meta.len() > FILE_LIMIT => return Err(InstallError::TooLarge(path.into())),
        Ok(meta) if !meta.is_file() => {
            return Err(io(std::io::Error::other("not a regular file")));
        }
        Ok(_) => {}
    }
    fs::read_to_string(path).map(Some).map_err(io)
}

/// Writes `text` to `path` through a temporary file in the same folder, keeping the old
/// file's permissions.
pub fn write(path: &Path, text: &str) -> Result<(), InstallError> {
    let io = |error| InstallError::Io {
        path: path.to_path_buf(),
        error,
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(io)?;
    let permissions = fs::metadata(path).ok().map(|m| m.permissions());
    let temp = dir.join(format!(
        ".{}.agent-hooks-{}",
        path.file_name().unwrap_or_default().to_string_lossy(),
        std::process::id()
    ));
    fs::write(&temp, text).map_err(io)?;
    if let Some(permissions) = permissions {
        fs::set_permissions(&temp, permissions).map_err(io)?;
    }
    fs::rename(&temp, path).map_err(io)
}

/// The insertions that put `entry` under every event of `agent` in `text` (`None`: a file
/// that does not exist yet).
pub fn plan(
    path: &Path,
    events: &[&str],
    entry: &dyn Fn(&str) -> String,
    text: &str,
) -> Result<Vec<(usize, Insertion)>, InstallError> {
    let bytes = text.as_bytes();
    let not_json = |error| InstallError::NotJson {
        path: path.to_path_buf(),
        error,
        entry: entry("PreToolUse"),
    };
    let top = top_object(bytes).map_err(not_json)?;
    let (members, _) = object_members(bytes, top).map_err(not_json)?;
    if events.is_empty() {
        return Ok(Vec::new());
    }
    let new_events = |names: &[&str]| -> String {
        names
            .iter()
            .map(|e| format!("\n    \"{e}\": [{}]", entry(e)))
            .collect::<Vec<_>>()
            .join(",")
    };
    let Some(hooks) = members.iter().find(|m| m.key == "hooks") else {
        let comma = if members.is_empty() { "\n" } else { "," };
        return Ok(vec![(
            top + 1,
            Insertion {
                container: Vec::new(),
                text: format!("\n  \"hooks\": {{{}\n  }}{comma}", new_events(events)),
            },
        )]);
    };
    if bytes[hooks.value_start] != b'{' {
        return Err(InstallError::Shape {
            path: path.into(),
            key: "hooks".into(),
            expected: "an object",
        });
    }
    let (event_members, _) = object_members(bytes, hooks.value_start).map_err(not_json)?;
    let mut insertions = Vec::new();
    let mut missing = Vec::new();
    for event in events {
        match event_members.iter().find(|m| m.key == *event) {
            Some(member) if bytes[member.value_start] == b'[' => {
                let (count, _) = array_elements(bytes, member.value_start).map_err(not_json)?;
                let comma = if count == 0 { "" } else { "," };
                insertions.push((
                    member.value_start + 1,
                    Insertion {
                        container: vec!["hooks".into(), (*event).into()],
                        text: format!("{}{comma}", entry(event)),
                    },
                ));
            }
            Some(_) => {
                return Err(InstallError::Shape {
                    path: path.into(),
                    key: format!("hooks.{event}"),
                    expected: "a list",
                })
            }
            None => missing.push(*event),
        }
    }
    if !missing.is_empty() {
        let comma = if event_members.is_empty() {
            "\n  "
        } else {
            ","
        };
        insertions.push((
            hooks.value_start + 1,
            Insertion {
                container: vec!["hooks".into()],
                text: format!("{}{comma}", new_events(&missing)),
            },
        ));
    }
    Ok(insertions)
}

/// Where the container's opening bracket is in `text` now.
pub fn locate(text: &str, container: &[String]) -> Result<Option<usize>, JsonTextError> {
    let bytes = text.as_bytes();
    let mut at = top_object(bytes)?;
    for key in container {
        if bytes[at] != b'{' {
            return Ok(None);
        }
        let (members, _) = object_members(bytes, at)?;
        match members.iter().find(|m| &m.key == key) {
            Some(member) => at = member.value_start,
            None => return Ok(None),
        }
    }
    Ok(Some(at))
}

pub fn records_file(common: &Common) -> Result<PathBuf, Box<dyn std::error::Error>> {
    Ok(DiscoveryOptions::new(project(common)?)
        .config_dir()
        .join("installed.json"))
}

pub fn load_records(file: &Path) -> Vec<Record> {
    fs::read_to_string(file)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default()
}

pub fn save_records(file: &Path, records: &[Record]) -> Result<(), InstallError> {
    let text = serde_json::to_string_pretty(records).unwrap_or_default();
    write(file, &text)
}

/// The events to wire for the hooks of `agent` (and `with`) found from `common`'s project.
pub fn needed_at(
    common: &Common,
    agent: Agent,
    with: &[Agent],
    user_level_only: bool,
) -> Result<Vec<&'static str>, Box<dyn std::error::Error>> {
    let args = crate::hook_session::HookArgs {
        agent,
        event: None,
        with: with.to_vec(),
        no_serve: true,
    };
    let session = crate::hook_session::open_at(common, &args, None, user_level_only)?;
    Ok(needed::events(agent, &session))
}

/// Takes `insertions` out of `text` where they stand as written; how many do not.
pub fn take_out(
    path: &Path,
    text: &mut String,
    insertions: &[Insertion],
) -> Result<usize, InstallError> {
    // Deepest containers first: their brackets move when an outer insertion goes.
    let mut insertions = insertions.to_vec();
    insertions.sort_by_key(|i| std::cmp::Reverse(i.container.len()));
    let mut missing = 0;
    for insertion in &insertions {
        let at = locate(text, &insertion.container).map_err(|error| InstallError::NotJson {
            path: path.to_path_buf(),
            error,
            entry: String::new(),
        })?;
        match at {
            Some(at) if text[at + 1..].starts_with(&insertion.text) => {
                text.replace_range(at + 1..at + 1 + insertion.text.len(), "");
            }
            _ => missing += 1,
        }
    }
    Ok(missing)
}

/// Whether a configuration file's text holds an agent-hooks entry for `agent`.
pub fn has_entry(text: &str, agent: Agent) -> bool {
    let flag = format!("--agent {}", agent.hook_name());
    text.match_indices(&flag).any(|(at, _)| {
        let before = &text[..at];
        before.ends_with("hook ")
            || before.ends_with("agent-hooks-hook' ")
            || before.ends_with("agent-hooks-hook ")
    })
}
