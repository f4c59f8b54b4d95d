use std::{fmt, path::PathBuf};

use crate::command_hook::CommandEvent;

/// Whose a hook is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Level {
    /// The machine's: a system-wide managed policy file, owned by root (see
    /// [`ManagedFiles`](super::ManagedFiles)). Loads first, cannot be disabled, shadowed or
    /// left untrusted by user or project settings.
    Managed,
    /// The user's: from the user's folders. Trusted.
    User,
    /// The project's: anything under the working folder. Runs only once trusted.
    Project,
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Level::Managed => "managed",
            Level::User => "user",
            Level::Project => "project",
        })
    }
}

/// What a discovered file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EntryKind {
    /// A plugin library.
    Plugin,
    /// A hooks JSON file (either form), or a settings file with a `hooks` key.
    HooksFile,
    /// A script in a `pre/` (`PreToolUse`) or `post/` (`PostToolUse`) folder.
    Script(CommandEvent),
}

impl EntryKind {
    /// The `type` part of the capability key: `plugin`, `hooks`, `pre` or `post`.
    pub fn type_name(self) -> &'static str {
        match self {
            EntryKind::Plugin => "plugin",
            EntryKind::HooksFile => "hooks",
            EntryKind::Script(CommandEvent::PostToolUse) => "post",
            EntryKind::Script(_) => "pre",
        }
    }
}

/// A hook a discovery provider found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookEntry {
    /// Its file name; for an agent's hooks or settings file, its place as `list` shows it
    /// (`~/.<agent>/settings.json`, `.<agent>/settings.json`), so that the user's file and
    /// the project's are two keys and both run, as in the agent.
    pub name: String,
    /// Its path.
    pub path: PathBuf,
    /// What it is.
    pub kind: EntryKind,
    /// For scripts, the tool it is for (`*`: every tool).
    pub tool: Option<String>,
    /// Whose it is.
    pub level: Level,
    /// The provider that found it.
    pub source: String,
}

impl HookEntry {
    /// The capability key `type:tool:name` (tool `*` when the entry has none): the first
    /// entry with a key wins, later ones are shadowed. Also the id used to disable it.
    pub fn key(&self) -> String {
        format!(
            "{}:{}:{}",
            self.kind.type_name(),
            self.tool.as_deref().unwrap_or("*"),
            self.name
        )
    }
}
