//! # agent-hooks: the host side of the hook system
//!
//! Load hook plugins (`cdylib` crates built against [`agent_hooks_abi`], re-exported as
//! [`abi`]), run their handlers in a deterministic order with the conflict rules of each
//! event, wrap the agent's tools so that hooks can block, rewrite and redact, and give
//! hooks what the agent offers.
//!
//! ## Core types
//!
//! An agent needs these, all at the crate root:
//!
//! | to | use |
//! |---|---|
//! | load plugins | [`load_hooks_with`] with [`LoadOptions`], giving a [`LoadHooksResult`] |
//! | run hooks at each event | [`HookRunner`]: `emit` gives the event's outcome ([`ToolCallOutcome`], [`ToolResultOutcome`], [`ContextOutcome`], [`PromptOutcome`], [`SessionStartOutcome`], [`PermissionOutcome`], [`StopOutcome`]) |
//! | wrap a tool | [`HookToolWrapper`] around your [`Tool`] ([`ToolOutput`], [`ToolError`]) |
//! | be the agent hooks talk to | [`AgentHost`], with its [`HostUi`] |
//! | hear what went wrong | [`HookError`] |
//!
//! Everything else is in a module ("Where the rest is", below).
//!
//! ## A complete host
//!
//! ```no_run
//! use std::sync::Arc;
//!
//! use agent_hooks::abi::prelude::*;
//! use agent_hooks::{
//!     load_hooks_with, AgentHost, HookRunner, HookToolWrapper, LoadOptions, Tool, ToolError,
//!     ToolOutput,
//! };
//!
//! /// The agent: every method of `AgentHost` has a default, override what you have.
//! struct MyAgent;
//! impl AgentHost for MyAgent {
//!     fn send_message(&self, message: CustomMessage, _options: SendMessageOptions) {
//!         println!("[{}] {:?}", message.custom_type, message.content);
//!     }
//! }
//!
//! /// One of the agent's tools.
//! struct Shell;
//! impl Tool for Shell {
//!     fn name(&self) -> &str {
//!         "exec"
//!     }
//!     async fn execute(&self, _id: &str, input: Value) -> Result<ToolOutput, ToolError> {
//!         let command = input["command"].as_str().unwrap_or_default();
//!         let output = std::process::Command::new("sh").args(["-c", command]).output()?;
//!         Ok(ToolOutput {
//!             content: vec![ContentBlock::text(String::from_utf8_lossy(&output.stdout))],
//!             details: json!({ "code": output.status.code() }),
//!         })
//!     }
//! }
//!
//! fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     // 0. This program also runs the plugin processes: when started as one, this serves
//!     //    the plugin and exits.
//!     agent_hooks::isolation::serve_if_plugin_process();
//!     tokio::runtime::Runtime::new()?.block_on(agent())
//! }
//!
//! async fn agent() -> Result<(), Box<dyn std::error::Error>> {
//!     let cwd = std::env::current_dir()?;
//!
//!     // 1. Load plugins, each in a process of its own: a bad path is an error entry, and a
//!     //    plugin that crashes or hangs is an error of its event, never a crash of the agent.
//!     let paths = ["~/.agent/hooks/libguard.so", "hooks/libredact.so"];
//!     let loaded = load_hooks_with(paths, &cwd, &LoadOptions::isolated());
//!     for failure in &loaded.errors {
//!         eprintln!("hook {} did not load: {}", failure.path, failure.error);
//!     }
//!
//!     // 2. Build the runner; the agent's own hooks use the same API as plugins.
//!     let mut runner = HookRunner::new(loaded.hooks, &cwd);
//!     runner.add_in_process("builtin", |api| {
//!         api.on(|event: &ToolCallEvent, _ctx| {
//!             let sudo = event.input["command"].as_str().is_some_and(|c| c.starts_with("sudo"));
//!             Ok(sudo.then(|| ToolCallResult::block("no sudo")))
//!         });
//!         Ok(())
//!     })?;
//!     runner.on_error(|error| eprintln!("{error}"));
//!
//!     // 3. Attach the agent: messages hooks sent while loading are delivered now.
//!     runner.attach(Arc::new(MyAgent));
//!     let runner = Arc::new(runner);
//!
//!     // 4. Wrap each tool; calls go through `tool_call` and `tool_result` hooks.
//!     let shell = HookToolWrapper::new(Shell, runner.clone());
//!     match shell.execute("call-1", json!({"command": "sudo rm -rf /"})).await {
//!         Ok(output) => println!("{:?}", output.content),
//!         Err(error) => println!("not run: {error}"),
//!     }
//!
//!     // 5. Emit the other events at each step of the agent's life.
//!     runner.emit(&SessionStartEvent::default().source("startup")).await?;
//!     let prompt = BeforeAgentStartEvent::default().prompt("fix the build");
//!     if let Some(message) = runner.emit(&prompt).await?.message {
//!         println!("a hook adds: {:?}", message.content);
//!     }
//!     Ok(())
//! }
//! ```
//!
//! ## Where the rest is
//!
//! | module | what |
//! |---|---|
//! | [`abi`] | the interface crate: events, results, the plugin SDK |
//! | [`load`] | the other ways to load ([`load::load_hooks`], [`load::load_hooks_in_process`]), a load's failures, a plugin's configuration |
//! | [`runner`] | how an event's results combine ([`runner::Combine`]), handler timings, the runner's bounds |
//! | [`tool_wrapper`] | why a wrapped call did not run ([`tool_wrapper::ToolCallError`]) |
//! | [`host`] | the rest of the agent's side: running programs for hooks ([`host::exec`]), hooks' requests to the agent (MCP tools, the model, subagents), plugins' log records |
//! | [`error`] | the error kinds, why a plugin did not load ([`error::LoadError`]), error listeners |
//! | [`hook`] | a loaded hook: its origin, slash commands and renderers |
//! | [`command_hook`] | command hooks: shell commands configured in JSON, run on events |
//! | [`discover`] | finding a user's hooks in the agents' folders, trust, required hooks, managed policy |
//! | [`agents`] | what agent-hooks knows of each agent (its files and their readers, events, tool names) |
//! | [`isolation`] | plugins in processes of their own: settings, limits, the plugin host |
//! | [`status_line`] | the line of texts hooks set with `ui.set_status` |
//!
//! ## Order and conflicts
//!
//! Hooks run in load order (in-process hooks after, in the order added), each hook's
//! handlers in registration order. How results combine is [`runner::Combine`]'s, per event:
//! `tool_call` first block wins (and is strict: an error blocks); `tool_result` and
//! `context` are chained, the last replacement wins; `before_agent_start` keeps the first
//! message; `session_before_*` keep the last result and stop at `cancel`;
//! `session.compacting` last wins; `permission_request` deny over ask over approve; `stop`
//! any block; the rest are notifications. Errors of non-strict events go to the
//! [`HookRunner::on_error`] listeners and the next handler runs.
//!
//! ## Faults
//!
//! Plugins loaded with [`load::load_hooks`], [`load_hooks_with`] and by discovery run in
//! plugin processes by default ([`isolation`]): a crash, a hang past the deadline, a leak or a
//! change of process-wide state stays in the plugin's process, which is restarted on the next
//! event. [`load::load_hooks_in_process`] loads into the agent's process, by explicit choice:
//! there a panic is caught inside the plugin and a handler past its deadline is abandoned, but
//! a crash is the agent's.

#![deny(missing_docs)]
#![deny(unsafe_code)]

// The host starts processes with fork and exec, in process groups it signals, gives them
// descriptors over Unix sockets and waits for them with `waitid`: it is for Unix systems
// (Linux, macOS). On Windows the interface crate and plugins build, not the host
// (docs/platforms.md). Said here first, before the errors of every Unix call.
#[cfg(not(unix))]
compile_error!(
    "agent-hooks-host (and the agent-hooks program) run on Unix systems only (Linux, macOS): \
     on Windows, only the interface crate agent-hooks-abi and plugins build (docs/platforms.md)"
);

mod agent;
pub mod agents;
mod child;
pub mod command_hook;
pub mod discover;
pub mod error;
mod event;
mod file;
pub mod hook;
pub mod host;
pub mod isolation;
pub mod load;
mod plugin_config;
mod protocol;
mod remote;
pub mod runner;
pub mod status_line;
mod supervisor;
mod sync;
// The one module with `unsafe`: see its docs.
#[allow(unsafe_code)]
mod sys;
pub mod tool_wrapper;

/// The interface crate, re-exported so that a host depends on one crate.
pub use agent_hooks_abi as abi;

// The core types: what a host needs to load, run, wrap a tool and be the agent (shown here
// in full, not as re-exports of their modules).
#[doc(inline)]
pub use error::HookError;
#[doc(inline)]
pub use host::{AgentHost, HostUi};
#[doc(inline)]
pub use load::{load_hooks_with, LoadHooksResult, LoadOptions};
#[doc(inline)]
pub use runner::{
    ContextOutcome, HookRunner, PermissionOutcome, PromptOutcome, SessionStartOutcome, StopOutcome,
    ToolCallOutcome, ToolResultOutcome,
};
#[doc(inline)]
pub use tool_wrapper::{HookToolWrapper, Tool, ToolError, ToolOutput};

// Other names at the crate root, so that code written against 0.1 builds: each is
// documented in its module, and hidden here so that the root shows only the core types.
#[doc(hidden)]
pub use discover::{
    discover_and_load_hooks, discover_and_load_hooks_with, Discovered, DiscoveryOptions,
};
#[doc(hidden)]
pub use error::{
    ErrorSubscription, FileError, HookErrorKind, LoadError, Subscription, Termination,
};
#[doc(hidden)]
pub use hook::{Hook, HookOrigin, Renderer, SlashCommand};
#[doc(hidden)]
pub use host::{
    exec, HostCallError, HostCallKind, McpToolCall, ModelRequest, ProgramRun, EXEC_DEFAULT_TIMEOUT,
    EXEC_OUTPUT_CAP, LOG_MESSAGE_CAP, LOG_RECORDS_PER_SECOND, LOG_TARGET,
};
#[doc(hidden)]
pub use isolation::{Isolation, PluginSettings};
#[doc(hidden)]
pub use load::{load_hooks, load_hooks_in_process, DuplicatePath, LoadFailure, PluginConfig};
#[doc(hidden)]
pub use runner::{
    default_rendering, Combine, CommandInput, Fold, HandlerTiming,
    DEFAULT_MAX_CONCURRENT_COMMAND_HOOKS, DEFAULT_MAX_STOP_BLOCKS,
};
#[doc(hidden)]
pub use status_line::StatusLine;
#[doc(hidden)]
pub use tool_wrapper::{ToolCallError, DEFAULT_BLOCK_REASON};

/// The old name of [`command_hook`], kept so that existing paths build (see CHANGELOG.md).
#[doc(hidden)]
pub use command_hook as command;

/// The old name of [`hook::SlashCommand`].
#[doc(hidden)]
#[deprecated(note = "renamed SlashCommand: a command hook is something else (see `command_hook`)")]
pub type Command = SlashCommand;
