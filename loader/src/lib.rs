//! # agent-hooks: the host side of the hook system
//!
//! Load hook plugins (`cdylib` crates built against [`agent_hooks_abi`]), run their
//! handlers in a deterministic order, and give them what the agent offers.
//!
//! ## A complete host
//!
//! ```no_run
//! use std::sync::Arc;
//! use agent_hooks::{load_hooks, AgentHost, HookRunner};
//! use agent_hooks::abi::prelude::*;
//!
//! struct MyAgent;
//! impl AgentHost for MyAgent {} // every method has a default
//!
//! let cwd = std::env::current_dir()?;
//! let loaded = load_hooks(["~/.agent/hooks/libguard.so", "target/debug/libredact.so"], &cwd);
//! for failure in &loaded.errors {
//!     eprintln!("hook {} did not load: {}", failure.path, failure.error);
//! }
//! let mut runner = HookRunner::new(loaded.hooks, &cwd);
//! // The agent's own hooks use the same API as plugins.
//! runner.add_in_process("builtin", |api| {
//!     api.on(|e: &ToolCallEvent, _ctx| Ok(None));
//!     Ok(())
//! })?;
//! runner.attach(Arc::new(MyAgent));
//!
//! let call = ToolCallEvent {
//!     tool_name: "exec".into(),
//!     tool_call_id: "call-1".into(),
//!     input: json!({"command": "rm -rf /"}),
//! };
//! runner.for_each_handler(&call, |hook, outcome| {
//!     println!("{}: {:?}", hook.path(), outcome);
//!     std::ops::ControlFlow::Continue(())
//! })?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]

mod hook;
mod host;
mod load;
mod runner;
pub mod status_line;
mod tool_wrapper;

/// The interface crate, re-exported so that a host depends on one crate.
pub use agent_hooks_abi as abi;

pub use hook::{Command, Hook, HookOrigin, Renderer};
pub use host::{exec, AgentHost, DetachedAgent, HostUi};
pub use load::{load_hooks, DuplicatePath, LoadError, LoadFailure, LoadHooksResult};
pub use runner::{
    default_rendering, Combine, ContextOutcome, ErrorSubscription, Fold, HookError, HookRunner,
    PermissionOutcome, StopOutcome, ToolCallOutcome, ToolResultOutcome,
};
pub use status_line::StatusLine;
pub use tool_wrapper::{
    HookToolWrapper, Tool, ToolCallError, ToolError, ToolOutput, DEFAULT_BLOCK_REASON,
};
