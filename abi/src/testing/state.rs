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
    services::ConfigAnswer,
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
    /// The plugin's own file, as the factory sees it.
    pub(crate) plugin_path: PathBuf,
    /// The project folder; the working folder when unset.
    pub(crate) project_dir: Option<PathBuf>,
    /// The configuration the host found.
    pub(crate) config: ConfigAnswer,
}

/// Where a plugin under test "is": `lib<crate>.so` in the test's folder (cargo runs a
/// crate's tests in its folder and names the crate in `CARGO_PKG_NAME`).
fn default_plugin_path(cwd: &std::path::Path) -> PathBuf {
    let name = std::env::var("CARGO_PKG_NAME").unwrap_or_else(|_| "plugin".to_owned());
    cwd.join(format!(
        "{}{}{}",
        std::env::consts::DLL_PREFIX,
        name.replace('-', "_"),
        std::env::consts::DLL_SUFFIX
    ))
}

/// Where the kit says it looked for a configuration: how a test sets one.
pub(crate) const CONFIG_HINT: &str = "set one with TestHost::config";

impl Default for World {
    fn default() -> Self {
        let cwd = std::env::current_dir().unwrap_or_default();
        Self {
            has_ui: true,
            plugin_path: default_plugin_path(&cwd),
            project_dir: None,
            config: ConfigAnswer {
                looked_in: vec![CONFIG_HINT.to_owned()],
                ..ConfigAnswer::default()
            },
            cwd,
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
