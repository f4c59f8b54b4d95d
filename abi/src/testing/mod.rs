//! The test kit: run a plugin's factory in a test, with no `.so` and no host.
//!
//! Enabled by the `testing` feature, for tests only:
//!
//! ```toml
//! [dev-dependencies]
//! # From a clone (the crate is not on crates.io yet): the `[dependencies]` line's path.
//! agent-hooks-abi = { path = "../agent-hooks/abi", features = ["testing"] }
//! # Once published:
//! # agent-hooks-abi = { version = "1.1", features = ["testing"] }
//! ```
//!
//! Write the tests as unit tests in the plugin's `src/lib.rs`: a `cdylib` crate
//! has no Rust library that `tests/` could link.
//!
//! [`TestHost::load`] runs the plugin's factory (the function given to `export_plugin!`)
//! against a host that lives in the test. The returned [`TestPlugin`] emits typed events to
//! the plugin's handlers and returns their typed results ([`TestPlugin::emit`]), runs its
//! commands ([`TestPlugin::run_command`]) and renders its messages
//! ([`TestPlugin::render`]). Everything crosses the same boundary objects and JSON as in
//! the agent, so what works here works there.
//!
//! ```
//! use agent_hooks_abi::prelude::*;
//! use agent_hooks_abi::testing::{Answer, HandlerError, TestHost};
//!
//! fn plugin(api: &mut HookApi) -> HandlerResult<()> {
//!     api.on(|event: &ToolCallEvent, ctx| {
//!         let command = event.input["command"].as_str().unwrap_or_default();
//!         if !command.contains("rm -rf") {
//!             return Ok(None);
//!         }
//!         let allowed = ctx.ui().confirm("Dangerous command", command);
//!         ctx.ui().set_status("guard", Some(if allowed { "allowed" } else { "blocked" }));
//!         Ok((!allowed).then(|| ToolCallResult::block("Blocked by user")))
//!     });
//!     api.register_command("fail", "Always fails", |_, _| Err("no luck".into()));
//!     Ok(())
//! }
//!
//! let host = TestHost::new();
//! let plugin = host.load(plugin).unwrap();
//! let rm = ToolCallEvent::new("exec", "call-1", json!({"command": "rm -rf /"}));
//!
//! // The user says no: the call is blocked, and the status line says so.
//! host.answer(Answer::No);
//! assert_eq!(plugin.emit(&rm), Ok(Some(ToolCallResult::block("Blocked by user"))));
//! assert_eq!(plugin.status()["guard"], "blocked");
//!
//! // The user says yes: no result, the call goes ahead.
//! host.answer(Answer::Yes);
//! assert_eq!(plugin.emit(&rm), Ok(None));
//!
//! // Errors (and panics) come back as the host would report them.
//! assert_eq!(plugin.run_command("fail", ""), Err(HandlerError::Failed("no luck".into())));
//! ```
//!
//! What the kit offers, and how it differs from the agent:
//!
//! - **The UI** answers prompts (`confirm`, `select`, `input`, `editor`, `custom`) with
//!   the answers the test scripted: [`TestHost::answer`] in order, [`TestHost::answer_to`]
//!   by title. A prompt with no fitting answer fails the test, saying what to add.
//!   [`TestHost::without_ui`] detaches the UI: prompts answer nothing, as in a host without
//!   one. What the plugin shows (notifications, status, widgets, editor text) is recorded
//!   in either case.
//! - **Recording**: [`TestHost::calls`] lists everything the plugin asked of the host, in
//!   order ([`Call`]); [`TestHost::notifications`], [`TestHost::status`],
//!   [`TestHost::widgets`], [`TestHost::sent`], [`TestHost::entries`] and
//!   [`TestHost::ran`] pick out one kind.
//! - **Programs** (`exec`) run for real, in [`TestHost::cwd`] (the test's folder by
//!   default), killed after their timeout (60 s by default); unlike the agent, what they
//!   start in the background is not killed, and their output is not capped. Stub them per
//!   test with [`TestHost::stub_exec`] or [`TestHost::exec_with`].
//! - **Session control** (commands only) is recorded and answers "done", or "cancelled"
//!   after [`TestHost::cancel_session_actions`].
//! - **The factory's world** (interface 1.1): [`TestHost::config`] (or
//!   [`TestHost::config_json`], a file's text) is what `api.config::<T>()` reads;
//!   [`TestHost::plugin_path`], [`TestHost::project_dir`] and the UI are what
//!   `api.plugin_info()` says. Set them before [`TestHost::load`].
//! - **The log** (interface 1.1): [`TestHost::logs`] reads back `Host::log`,
//!   `HookContext::log` and, with the `log` feature, `log::info!` and friends; every level
//!   is kept.
//! - **Host services**: those in [`OFFERED`]; the others answer
//!   [`ServiceError::Unsupported`](crate::ServiceError::Unsupported), as an older host would.
//! - **Results combine** in the host: [`TestPlugin::emit_each`] returns each handler's own
//!   result, and every handler gets the same event.

mod answers;
mod context;
mod exec;
mod host;
mod host_api;
mod plugin;
mod record;
mod services;
mod state;

pub use answers::Answer;
pub use exec::DEFAULT_TIMEOUT as EXEC_DEFAULT_TIMEOUT;
pub use host::TestHost;
pub use plugin::TestPlugin;
pub use record::{Call, HandlerError, Ran};
pub use services::OFFERED;
