//! The agent's side: what the agent offers hooks ([`AgentHost`], [`HostUi`]), the programs a
//! hook may run ([`exec`], with its [`ProgramRun`] and bounds), what a hook may ask the agent
//! to do for it ([`McpToolCall`], [`ModelRequest`], [`HostCallError`]), the agent's tool names
//! ([`ToolNames`]), and the bounds of a plugin's log records ([`LOG_TARGET`]). Inside the
//! crate, also the objects that carry these to the hooks.

mod agent;
mod context;
mod exec;
mod outbox;
mod plugin_api;
mod plugin_log;
mod requests;
mod services;
mod tool_names;

pub(crate) use agent::DetachedAgent;
pub use agent::{AgentHost, HostUi, ProgramRun};
pub(crate) use context::CallContext;
pub(crate) use exec::exec_until;
pub use exec::{exec, EXEC_DEFAULT_TIMEOUT, EXEC_OUTPUT_CAP};
pub(crate) use outbox::Outbox;
pub(crate) use plugin_api::{Forward, PluginApi, Registry, Site};
pub use plugin_log::{LOG_MESSAGE_CAP, LOG_RECORDS_PER_SECOND, LOG_TARGET};
pub use requests::{HostCallError, HostCallKind, McpToolCall, ModelRequest};
pub use tool_names::{ToolAlias, ToolNames};

pub(crate) use crate::supervisor::may_block;

/// Runs host code called by a plugin, so that a panic in it cannot cross the boundary
/// (abi_stable would end the process): the panic is swallowed and `fallback` returned.
pub(crate) fn shielded<T>(fallback: T, f: impl FnOnce() -> T) -> T {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or(fallback)
}
