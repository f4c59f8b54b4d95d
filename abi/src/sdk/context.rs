use std::{ops::Deref, path::PathBuf};

use abi_stable::std_types::{RNone, ROption, RSome, RStr, RString};
use serde::{de::DeserializeOwned, Deserialize, Serialize};
use serde_json::{Map, Value};

use super::Error;
use crate::events::setters;
use crate::{events::AgentMessage, ffi::HostContextRef, services::ServiceError};

/// The session a handler runs in.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SessionInfo {
    /// The session's id.
    pub id: String,
    /// The file it is saved in, if any.
    pub file: Option<String>,
}

setters!(SessionInfo {
    id: set<String>,
    file: some<String>,
});

/// The model the agent uses.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ModelInfo {
    /// e.g. `anthropic`.
    pub provider: String,
    /// e.g. `claude-sonnet-4`.
    pub id: String,
}

setters!(ModelInfo {
    provider: set<String>,
    id: set<String>,
});

/// The UI's theme.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Theme {
    /// The theme's name.
    pub name: String,
    /// Colour names to terminal colours.
    pub colors: Map<String, Value>,
}

setters!(Theme {
    name: set<String>,
    colors: val<Map<String, Value>>,
});

/// How loud a notification is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NotifyLevel {
    /// For information.
    #[default]
    Info,
    /// Something the user should look at.
    Warning,
    /// Something failed.
    Error,
}

impl NotifyLevel {
    /// The level's wire name.
    pub const fn name(self) -> &'static str {
        match self {
            NotifyLevel::Info => "info",
            NotifyLevel::Warning => "warning",
            NotifyLevel::Error => "error",
        }
    }

    /// The level of a wire name; unknown names are `Info`, as a host shows them.
    pub fn from_name(name: &str) -> Self {
        match name {
            "warning" => NotifyLevel::Warning,
            "error" => NotifyLevel::Error,
            _ => NotifyLevel::Info,
        }
    }
}

/// Options of [`CommandContext::new_session`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct NewSessionOptions {
    /// The session the new one continues from.
    pub parent_session: Option<String>,
    /// Messages the new session starts with.
    pub messages: Vec<AgentMessage>,
}

setters!(NewSessionOptions {
    parent_session: some<String>,
    messages: val<Vec<AgentMessage>>,
});

/// Options of [`CommandContext::navigate_tree`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct NavigateTreeOptions {
    /// Summarise the branch left behind.
    pub summarize: bool,
}

setters!(NavigateTreeOptions {
    summarize: val<bool>,
});

/// What a session action did.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SessionActionOutcome {
    /// A hook (or the user) cancelled it.
    pub cancelled: bool,
}

setters!(SessionActionOutcome {
    cancelled: val<bool>,
});

/// What a handler may ask of the agent while it runs.
pub struct HookContext<'a> {
    raw: HostContextRef<'a>,
}

impl<'a> HookContext<'a> {
    pub(crate) fn new(raw: HostContextRef<'a>) -> Self {
        Self { raw }
    }

    /// The user interface; without one (`has_ui()` false) its calls return nothing.
    pub fn ui(&self) -> Ui<'_, 'a> {
        Ui { raw: &self.raw }
    }

    /// Whether an interactive UI is attached.
    pub fn has_ui(&self) -> bool {
        self.raw.has_ui()
    }

    /// The agent's working folder.
    pub fn cwd(&self) -> PathBuf {
        PathBuf::from(self.raw.cwd().into_string())
    }

    /// The current session.
    pub fn session(&self) -> SessionInfo {
        from_json_or_default(&self.raw.session())
    }

    /// The current model, if one is chosen.
    pub fn model(&self) -> Option<ModelInfo> {
        serde_json::from_str(&self.raw.model()).ok().flatten()
    }

    /// Whether the agent is idle.
    pub fn is_idle(&self) -> bool {
        self.raw.is_idle()
    }

    /// Aborts the agent's current operation.
    pub fn abort(&self) {
        self.raw.abort()
    }

    /// Whether messages are queued for the agent.
    pub fn has_queued_messages(&self) -> bool {
        self.raw.has_queued_messages()
    }

    /// Calls the host service `service` with `request`, in the context of this call, and
    /// reads its answer as `T`. See [`Host::call`](crate::Host::call).
    pub fn call<T: DeserializeOwned>(
        &self,
        service: &str,
        request: &impl Serialize,
    ) -> Result<T, ServiceError> {
        super::service::call(&self.raw, service, request)
    }
}

/// What a command handler may ask of the agent: all of [`HookContext`], and session control.
pub struct CommandContext<'a> {
    inner: HookContext<'a>,
}

impl<'a> CommandContext<'a> {
    pub(crate) fn new(raw: HostContextRef<'a>) -> Self {
        Self {
            inner: HookContext::new(raw),
        }
    }

    /// Waits until the agent is idle.
    pub fn wait_for_idle(&self) -> Result<(), Error> {
        self.inner
            .raw
            .wait_for_idle()
            .into_result()
            .map_err(into_error)
    }

    /// Starts a new session.
    pub fn new_session(&self, options: &NewSessionOptions) -> Result<SessionActionOutcome, Error> {
        let options = serde_json::to_string(options)?;
        let outcome = self.inner.raw.new_session(options.as_str().into());
        parse_outcome(outcome.into_result())
    }

    /// Branches the session at `entry_id`.
    pub fn branch(&self, entry_id: &str) -> Result<SessionActionOutcome, Error> {
        parse_outcome(self.inner.raw.branch(entry_id.into()).into_result())
    }

    /// Moves to `target_id` in the session tree.
    pub fn navigate_tree(
        &self,
        target_id: &str,
        options: &NavigateTreeOptions,
    ) -> Result<SessionActionOutcome, Error> {
        let options = serde_json::to_string(options)?;
        let outcome = self
            .inner
            .raw
            .navigate_tree(target_id.into(), options.as_str().into());
        parse_outcome(outcome.into_result())
    }
}

impl<'a> Deref for CommandContext<'a> {
    type Target = HookContext<'a>;

    fn deref(&self) -> &HookContext<'a> {
        &self.inner
    }
}

/// The user interface, as far as a hook may use it.
///
/// Without an interactive UI, `select`, `input` and `editor` return nothing, `confirm`
/// returns false, `get_editor_text` returns "", and the rest do nothing.
pub struct Ui<'c, 'a> {
    raw: &'c HostContextRef<'a>,
}

impl Ui<'_, '_> {
    /// Asks the user to pick one of `options`.
    pub fn select(&self, title: &str, options: &[&str]) -> Option<String> {
        let options: Vec<RString> = options.iter().map(|o| RString::from(*o)).collect();
        self.raw
            .ui_select(title.into(), options.as_slice().into())
            .into_option()
            .map(RString::into_string)
    }

    /// Asks the user a yes/no question.
    pub fn confirm(&self, title: &str, message: &str) -> bool {
        self.raw.ui_confirm(title.into(), message.into())
    }

    /// Asks the user for one line of text.
    pub fn input(&self, title: &str, placeholder: &str) -> Option<String> {
        self.raw
            .ui_input(title.into(), placeholder.into())
            .into_option()
            .map(RString::into_string)
    }

    /// Opens an editor on `prefill`; returns the edited text.
    pub fn editor(&self, title: &str, prefill: &str) -> Option<String> {
        self.raw
            .ui_editor(title.into(), prefill.into())
            .into_option()
            .map(RString::into_string)
    }

    /// Shows a notification.
    pub fn notify(&self, message: &str, level: NotifyLevel) {
        self.raw.ui_notify(message.into(), level.name().into())
    }

    /// Sets the status-line text under `key`; `None` clears it.
    pub fn set_status(&self, key: &str, text: Option<&str>) {
        let text: ROption<RStr<'_>> = match text {
            Some(text) => RSome(text.into()),
            None => RNone,
        };
        self.raw.ui_set_status(key.into(), text)
    }

    /// Shows a host-defined component `kind` with `data`; returns what it returns.
    pub fn custom(&self, kind: &str, data: &Value) -> Option<Value> {
        let data = data.to_string();
        self.raw
            .ui_custom(kind.into(), data.as_str().into())
            .into_option()
            .and_then(|result| serde_json::from_str(&result).ok())
    }

    /// Replaces the text of the input editor.
    pub fn set_editor_text(&self, text: &str) {
        self.raw.ui_set_editor_text(text.into())
    }

    /// The text of the input editor.
    pub fn get_editor_text(&self) -> String {
        self.raw.ui_get_editor_text().into_string()
    }

    /// The UI's theme.
    pub fn theme(&self) -> Theme {
        from_json_or_default(&self.raw.ui_theme())
    }
}

fn from_json_or_default<T: DeserializeOwned + Default>(text: &str) -> T {
    serde_json::from_str(text).unwrap_or_default()
}

fn into_error(message: RString) -> Error {
    message.into_string().into()
}

fn parse_outcome(outcome: Result<RString, RString>) -> Result<SessionActionOutcome, Error> {
    let text = outcome.map_err(into_error)?;
    Ok(from_json_or_default(&text))
}
