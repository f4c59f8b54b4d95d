use abi_stable::{
    sabi_trait,
    std_types::{RBox, ROption, RResult, RStr, RString},
    StableAbi,
};

use super::HostContextRef;

/// Why a call into plugin code did not return a value.
#[repr(C)]
#[derive(StableAbi, Debug, Clone, PartialEq, Eq)]
pub struct CallError {
    /// True when the plugin code panicked (the SDK caught the panic inside the plugin).
    pub panicked: bool,
    /// What went wrong, for a person to read.
    pub message: RString,
}

impl CallError {
    /// An ordinary error returned by plugin code.
    pub fn error(message: impl Into<String>) -> Self {
        Self {
            panicked: false,
            message: RString::from(message.into()),
        }
    }

    /// A panic caught inside the plugin.
    pub fn panic(message: impl Into<String>) -> Self {
        Self {
            panicked: true,
            message: RString::from(message.into()),
        }
    }
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.panicked {
            write!(f, "panicked: {}", self.message)
        } else {
            f.write_str(&self.message)
        }
    }
}

impl std::error::Error for CallError {}

/// A handler registered for one event.
#[sabi_trait]
pub trait EventHandler: Send + Sync {
    /// Handles one event. `event` is the event's payload as JSON. `serial` names that payload:
    /// the host gives each payload it serialises a number unique in its process, so handlers
    /// that receive the same serial receive the same bytes and a plugin may parse them once;
    /// 0 means "no such promise". Returns the handler's result as JSON, or nothing.
    #[sabi(last_prefix_field)]
    fn handle(
        &self,
        event: RStr<'_>,
        serial: u64,
        ctx: HostContextRef<'_>,
    ) -> RResult<ROption<RString>, CallError>;
}

/// An owned, type-erased [`EventHandler`].
pub type EventHandlerBox = EventHandler_TO<'static, RBox<()>>;

/// A slash command's handler.
#[sabi_trait]
pub trait CommandHandler: Send + Sync {
    /// Runs the command with the text that followed its name.
    #[sabi(last_prefix_field)]
    fn run(&self, args: RStr<'_>, ctx: HostContextRef<'_>) -> RResult<(), CallError>;
}

/// An owned, type-erased [`CommandHandler`].
pub type CommandHandlerBox = CommandHandler_TO<'static, RBox<()>>;

/// Renders the plugin's custom messages of one type.
#[sabi_trait]
pub trait MessageRenderer: Send + Sync {
    /// Renders `message` (JSON) with `options` (JSON). Nothing means "use the default".
    #[sabi(last_prefix_field)]
    fn render(
        &self,
        message: RStr<'_>,
        options: RStr<'_>,
        ctx: HostContextRef<'_>,
    ) -> RResult<ROption<RString>, CallError>;
}

/// An owned, type-erased [`MessageRenderer`].
pub type MessageRendererBox = MessageRenderer_TO<'static, RBox<()>>;
