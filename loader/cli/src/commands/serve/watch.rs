//! Which warm sessions must be built again: the places their hooks are found in (hooks
//! files, plugins, the agents' settings, the trust store, and the folders that would hold
//! them) are watched with the `notify` crate (inotify on Linux), and a change to one of them
//! marks the sessions that read it stale; the next event of such a session builds it again,
//! discovery and trust checked again with it. Each place is watched through its folder (an
//! editor or `install` replaces a file by renaming another over it, which a watch of the
//! file itself would miss) or, when that folder does not exist yet, through the nearest
//! folder above it that does.
//!
//! When watching cannot be set up (no inotify, its limit of watches reached), the session
//! says so in the log and falls back to comparing the modification time and size of each
//! place on each of its events (some 40 `stat` calls), as before there was watching.

use std::{
    collections::HashSet,
    path::{Path, PathBuf},
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc, Mutex, Weak,
    },
};

use notify::{RecursiveMode, Watcher as _};

use crate::sync::lock;

/// Each watched session's places, and its flag (dropped with the session).
type Sessions = Arc<Mutex<Vec<(Vec<PathBuf>, Weak<AtomicBool>)>>>;

/// The watcher of every session's places.
pub struct Watch {
    inner: Mutex<Option<notify::RecommendedWatcher>>,
    watched: Mutex<HashSet<PathBuf>>,
    sessions: Sessions,
}

impl Watch {
    /// Starts watching nothing yet; `None` inside when the platform's watcher cannot start
    /// (then every session uses the fallback).
    pub fn new() -> Watch {
        let sessions: Sessions = Arc::default();
        let seen = sessions.clone();
        let watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
            let Ok(event) = event else { return };
            if event.kind.is_access() {
                return;
            }
            let mut sessions = lock(&seen);
            sessions.retain(|(_, stale)| stale.strong_count() > 0);
            for (places, stale) in sessions.iter() {
                if event.paths.iter().any(|p| touches(places, p)) {
                    if let Some(stale) = stale.upgrade() {
                        stale.store(true, Ordering::Release);
                    }
                }
            }
        });
        let inner = match watcher {
            Ok(watcher) => Some(watcher),
            Err(e) => {
                eprintln!("agent-hooks serve: file watching is off ({e}); changed hooks are found by their times and sizes on each event");
                None
            }
        };
        Watch {
            inner: Mutex::new(inner),
            watched: Mutex::default(),
            sessions,
        }
    }

    /// A watcher that watches nothing: every session uses the fallback
    /// (`AGENT_HOOKS_SERVE_NO_WATCH`).
    pub fn off() -> Watch {
        eprintln!("agent-hooks serve: file watching is off (AGENT_HOOKS_SERVE_NO_WATCH); changed hooks are found by their times and sizes on each event");
        Watch {
            inner: Mutex::new(None),
            watched: Mutex::default(),
            sessions: Arc::default(),
        }
    }

    /// Watches `places` for one session: the flag it gives turns true when one changes.
    /// `None` when they cannot all be watched (the session then uses the fallback).
    pub fn session(&self, places: &[PathBuf]) -> Option<Arc<AtomicBool>> {
        let mut inner = lock(&self.inner);
        let watcher = inner.as_mut()?;
        let mut watched = lock(&self.watched);
        for place in places {
            for folder in folders_of(place) {
                if watched.contains(&folder) {
                    continue;
                }
                if let Err(e) = watcher.watch(&folder, RecursiveMode::NonRecursive) {
                    eprintln!(
                        "agent-hooks serve: {} cannot be watched ({e}); this session's hooks are checked by their times and sizes on each event",
                        folder.display()
                    );
                    return None;
                }
                watched.insert(folder);
            }
        }
        let stale = Arc::new(AtomicBool::new(false));
        lock(&self.sessions).push((places.to_vec(), Arc::downgrade(&stale)));
        Some(stale)
    }
}

/// The folders watched for `place`: its own folder (or the nearest one above it that
/// exists), and itself when it is a folder.
fn folders_of(place: &Path) -> Vec<PathBuf> {
    let mut folders = Vec::new();
    if place.is_dir() {
        folders.push(place.to_path_buf());
    }
    let mut parent = place.parent();
    while let Some(folder) = parent {
        if folder.is_dir() {
            folders.push(folder.to_path_buf());
            break;
        }
        parent = folder.parent();
    }
    folders
}

/// Whether a change at `path` can change what is found at `places`: the place itself, a
/// file right inside a place that is a hooks folder (`hooks/`, `pre/`, `post/`), or a
/// folder above a place (made, removed, renamed). Other files in a folder that is a place
/// (an agent's own files in its folder, `~/.<agent>/history.jsonl`) are not hooks.
fn touches(places: &[PathBuf], path: &Path) -> bool {
    places.iter().any(|place| {
        let hooks_folder = place
            .file_name()
            .is_some_and(|n| n == "hooks" || n == "pre" || n == "post");
        place == path
            || (hooks_folder && path.parent() == Some(place.as_path()))
            || place.starts_with(path)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_touches_the_place_its_folder_holds_or_a_folder_above_it() {
        let places = vec![
            PathBuf::from("/h/.agent"),
            PathBuf::from("/h/.agent/settings.json"),
            PathBuf::from("/h/.config/agent-hooks/hooks"),
        ];
        assert!(touches(&places, Path::new("/h/.agent/settings.json")));
        assert!(touches(
            &places,
            Path::new("/h/.config/agent-hooks/hooks/g.json")
        ));
        assert!(touches(&places, Path::new("/h/.agent")));
        assert!(!touches(&places, Path::new("/h/.agent/projects")));
        assert!(!touches(&places, Path::new("/h/.agent/history.jsonl")));
        assert!(!touches(&places, Path::new("/h/notes.txt")));
        assert!(!touches(
            &places,
            Path::new("/h/.config/agent-hooks/hooks/pre/x/y")
        ));
    }
}
