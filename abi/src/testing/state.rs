//! What the test host knows and has recorded, shared by the test and the plugin's host objects.

use std::{
    path::PathBuf,
    sync::{Arc, Mutex, MutexGuard, PoisonError},
};

use super::{answers::Answers, exec::Stub, record::Call};
use crate::{
    events::EventKind,
    ffi::{CommandHandlerBox, EventHandlerBox, MessageRendererBox},
    sdk::{ModelInfo, SessionInfo, Theme},
};

/// The world the plugin runs in, as a test sets it.
pub(crate) struct World {
    pub(crate) has_ui: bool,
    pub(crate) cwd: PathBuf,
    pub(crate) session: SessionInfo,
    pub(crate) model: Option<ModelInfo>,
    pub(crate) idle: bool,
    pub(crate) queued_messages: bool,
    pub(crate) theme: Theme,
    pub(crate) editor_text: String,
    pub(crate) cancel_session_actions: bool,
}

impl Default for World {
    fn default() -> Self {
        Self {
            has_ui: true,
            cwd: std::env::current_dir().unwrap_or_default(),
            session: SessionInfo::default().id("test-session"),
            model: None,
            idle: true,
            queued_messages: false,
            theme: Theme::default(),
            editor_text: String::new(),
            cancel_session_actions: false,
        }
    }
}

/// A registered command.
pub(crate) struct Command {
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) handler: CommandHandlerBox,
}

/// What the factory registered.
#[derive(Default)]
pub(crate) struct Registry {
    pub(crate) handlers: Vec<(EventKind, EventHandlerBox)>,
    pub(crate) commands: Vec<Command>,
    pub(crate) renderers: Vec<(String, MessageRendererBox)>,
}

#[derive(Default)]
pub(crate) struct State {
    pub(crate) world: World,
    pub(crate) answers: Answers,
    pub(crate) stubs: Vec<Stub>,
    pub(crate) calls: Vec<Call>,
    /// Mistakes of the test itself (a prompt with no scripted answer, ...), reported by the
    /// kit when the call into the plugin returns.
    pub(crate) problems: Vec<String>,
    /// Open while the factory runs.
    pub(crate) registry: Option<Registry>,
}

pub(crate) type Shared = Arc<Mutex<State>>;

/// Locks the state; a panic elsewhere (in a test) does not hide what was recorded.
pub(crate) fn lock(shared: &Shared) -> MutexGuard<'_, State> {
    shared.lock().unwrap_or_else(PoisonError::into_inner)
}
