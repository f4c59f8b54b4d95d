use abi_stable::{
    sabi_trait,
    std_types::{RArc, RResult, RSlice, RStr, RString},
};

use super::{CommandHandlerBox, EventHandlerBox, MessageRendererBox};

/// What the host offers a plugin: registration, messages, entries and programs.
///
/// Implemented by the host, one object per loaded plugin; handed to the plugin's factory and
/// kept by the plugin for as long as it likes (handlers may send messages later).
/// Structured arguments and results are JSON text.
#[sabi_trait]
pub trait HostApi: Send + Sync + Clone {
    /// Registers a handler for the event named `event`. Fails for an event this host does
    /// not know, or when called after the factory returned.
    fn on(&self, event: RStr<'_>, handler: EventHandlerBox) -> RResult<(), RString>;

    /// Registers a slash command.
    fn register_command(
        &self,
        name: RStr<'_>,
        description: RStr<'_>,
        handler: CommandHandlerBox,
    ) -> RResult<(), RString>;

    /// Registers the renderer of one custom message type.
    fn register_message_renderer(
        &self,
        custom_type: RStr<'_>,
        renderer: MessageRendererBox,
    ) -> RResult<(), RString>;

    /// Sends a custom message (JSON `CustomMessage`) with options (JSON `SendMessageOptions`).
    fn send_message(&self, message: RStr<'_>, options: RStr<'_>) -> RResult<(), RString>;

    /// Appends a non-LLM entry to the session.
    fn append_entry(&self, custom_type: RStr<'_>, data: RStr<'_>) -> RResult<(), RString>;

    /// Runs a program without a shell. `options` is JSON `ExecOptions`; the result is JSON
    /// `ExecOutput`.
    fn exec(
        &self,
        command: RStr<'_>,
        args: RSlice<'_, RString>,
        options: RStr<'_>,
    ) -> RResult<RString, RString>;

    /// Calls the host service `service` with a JSON `request`; returns its JSON answer, or a
    /// JSON [`ServiceError`](crate::services::ServiceError). Everything a later minor version
    /// offers comes through here: see [`crate::services`].
    #[sabi(last_prefix_field)]
    fn call(&self, service: RStr<'_>, request: RStr<'_>) -> RResult<RString, RString>;
}

/// The shared, clonable host API object a plugin receives.
pub type HostApiBox = HostApi_TO<'static, RArc<()>>;
