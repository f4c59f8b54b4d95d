use std::{
    path::{Path, PathBuf},
    sync::Arc,
};

use abi_stable::std_types::{RErr, RNone, ROk, ROption, RResult, RSlice, RSome, RStr, RString};
use agent_hooks_abi::{ffi::HostContext, NotifyLevel, SessionActionOutcome};

use super::{may_block, shielded, AgentHost, HostUi};
use crate::supervisor::workers::CallClock;

/// The context of one call into a hook: what the agent offers, borrowed for the call.
pub(crate) struct CallContext<'a> {
    agent: Arc<dyn AgentHost>,
    cwd: &'a Path,
    is_command: bool,
    /// Paused while the call waits for the user or the agent (its deadline stands still).
    clock: Option<Arc<CallClock>>,
}

impl<'a> CallContext<'a> {
    /// The context of an event handler or renderer.
    pub(crate) fn event(agent: &Arc<dyn AgentHost>, cwd: &'a Path) -> Self {
        Self {
            agent: agent.clone(),
            cwd,
            is_command: false,
            clock: None,
        }
    }

    /// The context of a command handler, which may also control the session.
    pub(crate) fn command(agent: &Arc<dyn AgentHost>, cwd: &'a Path) -> Self {
        Self {
            agent: agent.clone(),
            cwd,
            is_command: true,
            clock: None,
        }
    }

    /// The same context, owned, to hand to another thread, with a clock that its waits
    /// for the user pause.
    pub(crate) fn detach(&self, clock: Arc<CallClock>) -> DetachedContext {
        DetachedContext {
            agent: self.agent.clone(),
            cwd: self.cwd.to_path_buf(),
            is_command: self.is_command,
            clock,
        }
    }

    /// Runs `f`, which may wait, on a thread that may be a tokio worker, with the call's
    /// clock paused.
    fn waiting<T>(&self, f: impl FnOnce() -> T) -> T {
        match &self.clock {
            Some(clock) => clock.paused(|| may_block(f)),
            None => may_block(f),
        }
    }

    fn ui<T>(&self, fallback: T, f: impl FnOnce(&dyn HostUi) -> T) -> T {
        shielded_with(fallback, || self.agent.ui().map(f))
    }

    /// A UI call that waits for the user.
    fn ask<T>(&self, fallback: T, f: impl FnOnce(&dyn HostUi) -> T) -> T {
        self.waiting(|| self.ui(fallback, f))
    }

    fn session_action(
        &self,
        name: &str,
        action: impl FnOnce() -> Result<SessionActionOutcome, String>,
    ) -> RResult<RString, RString> {
        if !self.is_command {
            return RErr(format!("{name} is only available to command handlers").into());
        }
        let outcome = self
            .waiting(|| shielded(Err(format!("{name} failed in the host")), action))
            .and_then(|o| serde_json::to_string(&o).map_err(|e| e.to_string()));
        match outcome {
            Ok(json) => ROk(json.into()),
            Err(e) => RErr(e.into()),
        }
    }
}

/// A [`CallContext`] that owns what it borrows, for a call run on another thread.
pub(crate) struct DetachedContext {
    agent: Arc<dyn AgentHost>,
    cwd: PathBuf,
    is_command: bool,
    clock: Arc<CallClock>,
}

impl DetachedContext {
    /// The call context it carries.
    pub(crate) fn context(&self) -> CallContext<'_> {
        CallContext {
            agent: self.agent.clone(),
            cwd: &self.cwd,
            is_command: self.is_command,
            clock: Some(self.clock.clone()),
        }
    }
}

/// `shielded`, for UI calls that may have no UI to go to.
fn shielded_with<T>(fallback: T, f: impl FnOnce() -> Option<T>) -> T {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
        .ok()
        .flatten()
        .unwrap_or(fallback)
}

fn to_roption(value: Option<String>) -> ROption<RString> {
    match value {
        Some(value) => RSome(value.into()),
        None => RNone,
    }
}

impl HostContext for CallContext<'_> {
    fn has_ui(&self) -> bool {
        shielded(false, || self.agent.has_ui())
    }

    fn cwd(&self) -> RString {
        self.cwd.to_string_lossy().into_owned().into()
    }

    fn session(&self) -> RString {
        let session = shielded(Default::default(), || self.agent.session());
        serde_json::to_string(&session).unwrap_or_default().into()
    }

    fn model(&self) -> RString {
        let model = shielded(None, || self.agent.model());
        serde_json::to_string(&model).unwrap_or_default().into()
    }

    fn is_idle(&self) -> bool {
        shielded(true, || self.agent.is_idle())
    }

    fn abort(&self) {
        shielded((), || self.agent.abort())
    }

    fn has_queued_messages(&self) -> bool {
        shielded(false, || self.agent.has_queued_messages())
    }

    fn ui_select(&self, title: RStr<'_>, options: RSlice<'_, RString>) -> ROption<RString> {
        let options: Vec<String> = options.iter().map(|o| o.to_string()).collect();
        to_roption(self.ask(None, |ui| ui.select(title.as_str(), &options)))
    }

    fn ui_confirm(&self, title: RStr<'_>, message: RStr<'_>) -> bool {
        self.ask(false, |ui| ui.confirm(title.as_str(), message.as_str()))
    }

    fn ui_input(&self, title: RStr<'_>, placeholder: RStr<'_>) -> ROption<RString> {
        to_roption(self.ask(None, |ui| ui.input(title.as_str(), placeholder.as_str())))
    }

    fn ui_editor(&self, title: RStr<'_>, prefill: RStr<'_>) -> ROption<RString> {
        to_roption(self.ask(None, |ui| ui.editor(title.as_str(), prefill.as_str())))
    }

    fn ui_notify(&self, message: RStr<'_>, level_name: RStr<'_>) {
        self.ui((), |ui| {
            ui.notify(
                message.as_str(),
                NotifyLevel::from_name(level_name.as_str()),
            )
        })
    }

    fn ui_set_status(&self, key: RStr<'_>, text: ROption<RStr<'_>>) {
        let text = text.into_option();
        self.ui((), |ui| {
            ui.set_status(key.as_str(), text.as_ref().map(RStr::as_str))
        })
    }

    fn ui_custom(&self, kind: RStr<'_>, data: RStr<'_>) -> ROption<RString> {
        let data = serde_json::from_str(data.as_str()).unwrap_or_default();
        let result = self.ask(None, |ui| ui.custom(kind.as_str(), data));
        to_roption(result.map(|value| value.to_string()))
    }

    fn ui_set_editor_text(&self, text: RStr<'_>) {
        self.ui((), |ui| ui.set_editor_text(text.as_str()))
    }

    fn ui_get_editor_text(&self) -> RString {
        self.ui(String::new(), |ui| ui.get_editor_text()).into()
    }

    fn ui_theme(&self) -> RString {
        let theme = self.ui(Default::default(), |ui| ui.theme());
        serde_json::to_string(&theme).unwrap_or_default().into()
    }

    fn wait_for_idle(&self) -> RResult<(), RString> {
        if !self.is_command {
            return RErr("wait_for_idle is only available to command handlers".into());
        }
        match self.waiting(|| {
            shielded(Err("wait_for_idle failed in the host".into()), || {
                self.agent.wait_for_idle()
            })
        }) {
            Ok(()) => ROk(()),
            Err(e) => RErr(e.into()),
        }
    }

    fn new_session(&self, options: RStr<'_>) -> RResult<RString, RString> {
        let options = serde_json::from_str(options.as_str()).unwrap_or_default();
        self.session_action("new_session", || self.agent.new_session(options))
    }

    fn branch(&self, entry_id: RStr<'_>) -> RResult<RString, RString> {
        self.session_action("branch", || self.agent.branch(entry_id.as_str()))
    }

    fn navigate_tree(&self, target_id: RStr<'_>, options: RStr<'_>) -> RResult<RString, RString> {
        let options = serde_json::from_str(options.as_str()).unwrap_or_default();
        self.session_action("navigate_tree", || {
            self.agent.navigate_tree(target_id.as_str(), options)
        })
    }

    fn call(&self, service: RStr<'_>, request: RStr<'_>) -> RResult<RString, RString> {
        super::services::to_abi(super::services::answer_service(
            service.as_str(),
            request.as_str(),
            super::services::CONTEXT_SERVICES,
        ))
    }
}
