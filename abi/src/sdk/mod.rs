//! The plugin author's SDK: register typed handlers, commands and renderers; use the
//! agent's UI, session and services. No `unsafe`, no `extern`, no abi_stable types.

mod adapters;
mod api;
mod compat;
mod context;
pub(crate) mod export;
mod factory;
pub(crate) mod guard;
pub(crate) mod log;
mod service;

pub use api::{ExecOptions, ExecOutput, HandlerResult, HookApi, Host, RenderOptions};
pub use context::{
    CommandContext, HookContext, ModelInfo, NavigateTreeOptions, NewSessionOptions, NotifyLevel,
    SessionActionOutcome, SessionInfo, Theme, Ui,
};
pub use factory::ConfigError;

/// The error a handler, command or factory may return: anything that converts into it with
/// `?` (`std::io::Error`, `serde_json::Error`, a `String`, ...).
pub type Error = Box<dyn std::error::Error + Send + Sync + 'static>;
