//! [`TestHost`]: the world a plugin under test runs in, and what it recorded.

use std::{
    collections::BTreeMap,
    path::PathBuf,
    sync::{Arc, Mutex},
};

use serde_json::Value;

use super::{
    answers::Answer,
    record::{Call, Ran},
    state::{lock, Shared},
};
use crate::{
    events::{CustomMessage, SendMessageOptions},
    sdk::{ExecOptions, ExecOutput, ModelInfo, NotifyLevel, SessionInfo, Theme},
    services::{ConfigAnswer, LogLevel},
};

/// A host for tests: set the world, script the user's answers and stub programs, load a
/// plugin's factory with [`TestHost::load`], then read back what the plugin did.
///
/// Setters take `&self` and chain, so they work before loading and between emits
/// (a [`TestPlugin`](super::TestPlugin) derefs to its host). Defaults: a UI is attached, the working folder is
/// the test's, the session is `test-session`, no model, the agent is idle, programs run
/// for real.
#[derive(Clone, Default)]
pub struct TestHost {
    pub(crate) shared: Shared,
}

impl TestHost {
    /// A host with the defaults above.
    pub fn new() -> Self {
        Self {
            shared: Arc::new(Mutex::new(Default::default())),
        }
    }

    /// Panics with the test's mistakes that the last call into the plugin ran into.
    pub(crate) fn check_problems(&self) {
        let problems = std::mem::take(&mut lock(&self.shared).problems);
        if !problems.is_empty() {
            panic!("agent-hooks test kit: {}", problems.join("\n"));
        }
    }

    fn world(&self, set: impl FnOnce(&mut super::state::World)) -> &Self {
        set(&mut lock(&self.shared).world);
        self
    }

    /// Detaches the UI: prompts answer nothing (`confirm` false) without using scripted
    /// answers, as in a host without a UI; what the plugin shows is still recorded.
    pub fn without_ui(&self) -> &Self {
        self.world(|w| w.has_ui = false)
    }

    /// Attaches the UI again.
    pub fn with_ui(&self) -> &Self {
        self.world(|w| w.has_ui = true)
    }

    /// The agent's working folder (`ctx.cwd()`, and where programs run by default).
    pub fn cwd(&self, cwd: impl Into<PathBuf>) -> &Self {
        let cwd = cwd.into();
        self.world(|w| w.cwd = cwd)
    }

    /// The current session.
    pub fn session(&self, session: SessionInfo) -> &Self {
        self.world(|w| w.session = session)
    }

    /// The current model.
    pub fn model(&self, model: ModelInfo) -> &Self {
        self.world(|w| w.model = Some(model))
    }

    /// Whether the agent is busy (`ctx.is_idle()` false).
    pub fn busy(&self, busy: bool) -> &Self {
        self.world(|w| w.idle = !busy)
    }

    /// Whether messages are queued for the agent.
    pub fn queued_messages(&self, queued: bool) -> &Self {
        self.world(|w| w.queued_messages = queued)
    }

    /// The UI's theme.
    pub fn theme(&self, theme: Theme) -> &Self {
        self.world(|w| w.theme = theme)
    }

    /// The text in the input editor (`ui().get_editor_text()`).
    pub fn editor_text(&self, text: impl Into<String>) -> &Self {
        let text = text.into();
        self.world(|w| w.editor_text = text)
    }

    /// Whether session actions of commands (`new_session`, `branch`, `navigate_tree`) are
    /// cancelled, as by another hook or the user.
    pub fn cancel_session_actions(&self, cancel: bool) -> &Self {
        self.world(|w| w.cancel_session_actions = cancel)
    }

    /// Added in 1.1: the plugin's configuration, as if found in the settings (what
    /// `api.config::<T>()` reads). Without one, `T` is read from an empty object.
    pub fn config(&self, config: Value) -> &Self {
        self.world(|w| {
            w.config = ConfigAnswer::default();
            w.config.source = Some("the test's configuration".to_owned());
            w.config.value = config;
        })
    }

    /// Added in 1.1: the plugin's configuration as the text of a JSON file named `file`, so
    /// that errors name the file, line and column as in the agent.
    pub fn config_json(&self, file: impl Into<String>, text: impl Into<String>) -> &Self {
        let (file, text) = (file.into(), text.into());
        self.world(|w| {
            w.config = ConfigAnswer::default();
            w.config.source = Some(file);
            w.config.json_text = Some(text);
        })
    }

    /// Added in 1.1: the plugin's own file, as `api.plugin_info()` gives it; by default
    /// `lib<crate>.so` in the test's folder (the crate's folder under `cargo test`).
    pub fn plugin_path(&self, path: impl Into<PathBuf>) -> &Self {
        let path = path.into();
        self.world(|w| w.plugin_path = path)
    }

    /// Added in 1.1: the project folder, as `api.plugin_info()` gives it; the working folder
    /// ([`TestHost::cwd`]) by default.
    pub fn project_dir(&self, dir: impl Into<PathBuf>) -> &Self {
        let dir = dir.into();
        self.world(|w| w.project_dir = Some(dir))
    }

    /// Scripts the answer to the next prompt (in the order the plugin asks) that has no
    /// answer by title.
    pub fn answer(&self, answer: Answer) -> &Self {
        lock(&self.shared).answers.push(answer);
        self
    }

    /// Scripts the answer to every prompt titled `title` (for `custom`, its kind).
    pub fn answer_to(&self, title: impl Into<String>, answer: Answer) -> &Self {
        lock(&self.shared)
            .answers
            .set_for_title(title.into(), answer);
        self
    }

    /// The answers scripted in order that no prompt used yet.
    pub fn unused_answers(&self) -> Vec<Answer> {
        lock(&self.shared).answers.unused()
    }

    /// Runs of `program` (any arguments) answer `output` instead of running it.
    pub fn stub_exec(&self, program: impl Into<String>, output: ExecOutput) -> &Self {
        let program = program.into();
        self.exec_with(move |command, _, _| (command == program).then(|| Ok(output.clone())))
    }

    /// Runs that `stub` recognises answer what it returns (`Err` is the error `exec`
    /// returns, as when a program cannot be started); for the others it returns `None` and
    /// an earlier stub or the real program answers. The latest stub is asked first.
    pub fn exec_with<F>(&self, stub: F) -> &Self
    where
        F: Fn(&str, &[String], &ExecOptions) -> Option<Result<ExecOutput, String>>
            + Send
            + Sync
            + 'static,
    {
        lock(&self.shared).stubs.push(Arc::new(stub));
        self
    }

    /// Everything the plugin asked of the host so far, in order.
    pub fn calls(&self) -> Vec<Call> {
        lock(&self.shared).calls.clone()
    }

    /// [`TestHost::calls`], forgetting them: the next call returns only what came after.
    pub fn take_calls(&self) -> Vec<Call> {
        std::mem::take(&mut lock(&self.shared).calls)
    }

    fn collect<T>(&self, pick: impl FnMut(&Call) -> Option<T>) -> Vec<T> {
        lock(&self.shared).calls.iter().filter_map(pick).collect()
    }

    /// The notifications shown, in order.
    pub fn notifications(&self) -> Vec<(String, NotifyLevel)> {
        self.collect(|call| match call {
            Call::Notify { message, level } => Some((message.clone(), *level)),
            _ => None,
        })
    }

    /// The status line as the plugin left it: key to text, entries it cleared removed.
    pub fn status(&self) -> BTreeMap<String, String> {
        let mut status = BTreeMap::new();
        for (key, text) in self.collect(|call| match call {
            Call::SetStatus { key, text } => Some((key.clone(), text.clone())),
            _ => None,
        }) {
            match text {
                Some(text) => status.insert(key, text),
                None => status.remove(&key),
            };
        }
        status
    }

    /// The custom components (widgets) shown: their kind and data, in order.
    pub fn widgets(&self) -> Vec<(String, Value)> {
        self.collect(|call| match call {
            Call::Custom { kind, data, .. } => Some((kind.clone(), data.clone())),
            _ => None,
        })
    }

    /// The text the plugin left in the input editor.
    pub fn editor(&self) -> String {
        lock(&self.shared).world.editor_text.clone()
    }

    /// The messages sent, with their options, in order.
    pub fn sent(&self) -> Vec<(CustomMessage, SendMessageOptions)> {
        self.collect(|call| match call {
            Call::SendMessage { message, options } => Some((message.clone(), options.clone())),
            _ => None,
        })
    }

    /// The entries appended: their type and data, in order.
    pub fn entries(&self) -> Vec<(String, Value)> {
        self.collect(|call| match call {
            Call::AppendEntry { custom_type, data } => Some((custom_type.clone(), data.clone())),
            _ => None,
        })
    }

    /// Added in 1.1: the records of the plugin's log: level and text, in order (every
    /// level is kept).
    pub fn logs(&self) -> Vec<(LogLevel, String)> {
        self.collect(|call| match call {
            Call::Log(record) => Some((record.level, record.message.clone())),
            _ => None,
        })
    }

    /// The programs run, in order.
    pub fn ran(&self) -> Vec<Ran> {
        self.collect(|call| match call {
            Call::Exec(ran) => Some(ran.clone()),
            _ => None,
        })
    }
}
