//! The types that cross the library boundary.
//!
//! Plugin authors never touch this module: the [`export_plugin!`](crate::export_plugin) macro
//! and the SDK ([`HookApi`](crate::HookApi), the typed events) build and call these types.
//! Hosts use it to load plugins and to implement what plugins call back into.
//!
//! Every type here is checked by abi_stable when a library is loaded: its version
//! (see [`crate::INTERFACE_VERSION`]) and the layout of every type reachable from
//! [`PluginModule`]. Data that is expected to grow (events, results, messages, options)
//! crosses as JSON text, so that either side may add fields without breaking the other.
//!
//! These types are frozen for a whole major version (see the crate's versioning policy),
//! with one exception: [`PluginModule`], the root module, is a prefix type and may gain
//! fields at its end, which a host that knows them reads as absent from an older plugin.
//! Nothing is appended to the traits, because a host that knows more trailing methods than a
//! plugin refuses it. What grows goes through `call` and [`crate::services`].

mod context;
mod handlers;
mod host_api;
mod module;

pub use context::{HostContext, HostContextRef, HostContext_TO};
pub use handlers::{
    CallError, CommandHandler, CommandHandlerBox, CommandHandler_TO, EventHandler, EventHandlerBox,
    EventHandler_TO, MessageRenderer, MessageRendererBox, MessageRenderer_TO,
};
pub use host_api::{HostApi, HostApiBox, HostApi_TO};
pub use module::{PanicStrategy, PluginFactory, PluginModule, PluginModuleRef};
