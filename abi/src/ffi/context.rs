use abi_stable::{
    sabi_trait,
    std_types::{ROption, RResult, RSlice, RStr, RString},
    RRef,
};

/// What a handler may ask of the agent while it runs: the UI, the session, the model and,
/// in command handlers, session control.
///
/// Implemented by the host, borrowed for the length of one call. Structured values are JSON.
/// Session-control methods fail with an error outside command handlers.
#[sabi_trait]
pub trait HostContext {
    /// Whether an interactive UI is attached.
    fn has_ui(&self) -> bool;
    /// The agent's working folder.
    fn cwd(&self) -> RString;
    /// The current session (JSON `SessionInfo`).
    fn session(&self) -> RString;
    /// The current model (JSON `ModelInfo` or `null`).
    fn model(&self) -> RString;
    /// Whether the agent is idle (not streaming a response).
    fn is_idle(&self) -> bool;
    /// Aborts the current agent operation.
    fn abort(&self);
    /// Whether messages are queued for the agent.
    fn has_queued_messages(&self) -> bool;

    /// Asks the user to pick one of `options`.
    fn ui_select(&self, title: RStr<'_>, options: RSlice<'_, RString>) -> ROption<RString>;
    /// Asks the user a yes/no question.
    fn ui_confirm(&self, title: RStr<'_>, message: RStr<'_>) -> bool;
    /// Asks the user for one line of text.
    fn ui_input(&self, title: RStr<'_>, placeholder: RStr<'_>) -> ROption<RString>;
    /// Opens an editor with `prefill` and returns the edited text.
    fn ui_editor(&self, title: RStr<'_>, prefill: RStr<'_>) -> ROption<RString>;
    /// Shows a notification; `level` is `info`, `warning` or `error`.
    fn ui_notify(&self, message: RStr<'_>, level: RStr<'_>);
    /// Sets (or, with nothing, clears) the status-line text under `key`.
    fn ui_set_status(&self, key: RStr<'_>, text: ROption<RStr<'_>>);
    /// Shows a host-defined custom component `kind` with JSON `data`; returns its JSON result.
    fn ui_custom(&self, kind: RStr<'_>, data: RStr<'_>) -> ROption<RString>;
    /// Replaces the text of the input editor.
    fn ui_set_editor_text(&self, text: RStr<'_>);
    /// The text of the input editor.
    fn ui_get_editor_text(&self) -> RString;
    /// The UI theme (JSON `Theme`).
    fn ui_theme(&self) -> RString;

    /// Waits until the agent is idle. Command handlers only.
    fn wait_for_idle(&self) -> RResult<(), RString>;
    /// Starts a new session (JSON `NewSessionOptions`); returns JSON `SessionActionOutcome`.
    /// Command handlers only.
    fn new_session(&self, options: RStr<'_>) -> RResult<RString, RString>;
    /// Branches the session at `entry_id`; returns JSON `SessionActionOutcome`.
    /// Command handlers only.
    fn branch(&self, entry_id: RStr<'_>) -> RResult<RString, RString>;
    /// Moves to `target_id` in the session tree (options: JSON `NavigateTreeOptions`);
    /// returns JSON `SessionActionOutcome`. Command handlers only.
    fn navigate_tree(&self, target_id: RStr<'_>, options: RStr<'_>) -> RResult<RString, RString>;

    /// Calls the host service `service` with a JSON `request` in the context of this call;
    /// returns its JSON answer, or a JSON [`ServiceError`](crate::services::ServiceError).
    /// See [`crate::services`].
    #[sabi(last_prefix_field)]
    fn call(&self, service: RStr<'_>, request: RStr<'_>) -> RResult<RString, RString>;
}

/// A borrowed host context, as passed to each call.
pub type HostContextRef<'a> = HostContext_TO<'a, RRef<'a, ()>>;
