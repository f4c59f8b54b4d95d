//! # agent-hooks-abi: write hook plugins for agent-hooks
//!
//! A hook plugin observes, blocks, rewrites or redacts what a coding agent does: before and
//! after each tool call, on each prompt, at compaction, at session start and end. It is a
//! `cdylib` crate that depends on this crate alone, and the agent loads the `.so` (`.dylib`
//! on macOS) at start-up. You write ordinary, safe Rust: typed events in, typed results
//! out. No `unsafe`, no `extern`.
//!
//! ## A complete plugin
//!
//! `Cargo.toml`:
//!
//! ```toml
//! [package]
//! name = "no-force-push"
//! version = "0.1.0"
//! edition = "2021"
//!
//! [lib]
//! crate-type = ["cdylib"]
//!
//! [dependencies]
//! # Today (the crate is not on crates.io yet): a clone's `abi/` folder, or its repository.
//! agent-hooks-abi = { path = "../agent-hooks/abi" }   # or: { git = "<repository URL>" }
//! # Once published:
//! # agent-hooks-abi = "1.1"
//!
//! [dev-dependencies]
//! # The test kit (see "Testing a plugin" below); same source, one more feature.
//! agent-hooks-abi = { path = "../agent-hooks/abi", features = ["testing"] }
//! ```
//!
//! `agent-hooks new no-force-push` writes such a crate, with a handler and its test, and
//! the dependency lines filled in (`--abi-path`, `--abi-git` or `--abi-registry` choose
//! where the interface crate comes from).
//!
//! `src/lib.rs`:
//!
//! ```
//! use agent_hooks_abi::prelude::*;
//!
//! fn plugin(api: &mut HookApi) -> HandlerResult<()> {
//!     // Block `git push --force` before it runs.
//!     api.on(|event: &ToolCallEvent, ctx| {
//!         let command = event.input["command"].as_str().unwrap_or_default();
//!         if event.tool_name == "exec" && command.contains("git push --force") {
//!             ctx.ui().notify("force push blocked", NotifyLevel::Warning);
//!             return Ok(Some(ToolCallResult::block("Force pushes are not allowed here.")));
//!         }
//!         Ok(None)
//!     });
//!
//!     // Count the tool calls in the status line.
//!     let calls = std::sync::atomic::AtomicUsize::new(0);
//!     api.on(move |_: &ToolResultEvent, ctx| {
//!         let n = calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
//!         ctx.ui().set_status("tools", Some(&format!("{n} tool calls")));
//!         Ok(None)
//!     });
//!
//!     // A slash command.
//!     api.register_command("hello", "Say hello", |args, ctx| {
//!         ctx.ui().notify(&format!("hello {args}"), NotifyLevel::Info);
//!         Ok(())
//!     });
//!     Ok(())
//! }
//!
//! agent_hooks_abi::export_plugin!(plugin);
//! # fn main() {}
//! ```
//!
//! Build it with `cargo build --release`: the plugin is `target/release/libno_force_push.so`
//! (`.dylib` on macOS). Put it in a hooks folder or give its path to the agent
//! (`agent-hooks list --hook target/release/libno_force_push.so` shows whether it loads).
//!
//! ## Testing a plugin
//!
//! With the `testing` feature (under `[dev-dependencies]`), `testing::TestHost` runs the
//! plugin's factory in a unit test, with no `.so` and no agent: emit typed events and get
//! the typed results, script the user's answers, read back what the plugin showed, sent,
//! appended and ran. Put the tests in `src/lib.rs` (a `cdylib` has no library for `tests/`
//! to link):
//!
#![cfg_attr(feature = "testing", doc = "```")]
#![cfg_attr(not(feature = "testing"), doc = "```ignore")]
//! # use agent_hooks_abi::prelude::*;
//! # fn plugin(api: &mut HookApi) -> HandlerResult<()> {
//! #     api.on(|event: &ToolCallEvent, ctx| {
//! #         let command = event.input["command"].as_str().unwrap_or_default();
//! #         if event.tool_name == "exec" && command.contains("git push --force") {
//! #             ctx.ui().notify("force push blocked", NotifyLevel::Warning);
//! #             return Ok(Some(ToolCallResult::block("Force pushes are not allowed here.")));
//! #         }
//! #         Ok(None)
//! #     });
//! #     api.register_command("hello", "Say hello", |args, ctx| {
//! #         ctx.ui().notify(&format!("hello {args}"), NotifyLevel::Info);
//! #         Ok(())
//! #     });
//! #     Ok(())
//! # }
//! use agent_hooks_abi::testing::TestHost;
//!
//! // A unit test: in the plugin's src/lib.rs, in `#[cfg(test)] mod tests`, with `#[test]`.
//! fn force_pushes_are_blocked_with_a_notification() {
//!     let plugin = TestHost::new().load(plugin).unwrap();
//!     let push = ToolCallEvent::new("exec", "call-1", json!({"command": "git push --force"}));
//!     assert_eq!(
//!         plugin.emit(&push),
//!         Ok(Some(ToolCallResult::block("Force pushes are not allowed here.")))
//!     );
//!     assert_eq!(
//!         plugin.notifications(),
//!         [("force push blocked".to_owned(), NotifyLevel::Warning)]
//!     );
//!
//!     plugin.run_command("hello", "world").unwrap();
//!     assert_eq!(plugin.notifications()[1].0, "hello world");
//! }
//! # force_pushes_are_blocked_with_a_notification();
//! ```
//!
//! The `testing` module's docs cover scripted answers, stubbed programs, the configuration
//! and the log.
//!
//! ## What a handler gets and returns
//!
//! [`HookApi::on`] takes a closure whose first parameter names the event (see [`events`]).
//! It returns `Ok(Some(result))` to act, `Ok(None)` to let things be, or an error, which the
//! host reports (for `tool_call`, an error also blocks the call: hooks fail safe). A panic
//! is caught inside the plugin and reported like an error; it never takes the agent down.
//! Build plugins with the default `panic = "unwind"`: a plugin built with `panic = "abort"`
//! is refused at load time, because its first panic would kill the agent.
//!
//! The second parameter, [`HookContext`], reaches the UI ([`Ui`]: `confirm`, `select`,
//! `notify`, `set_status`, ...), the session, the model and the agent's state. Commands get a
//! [`CommandContext`], which can also wait for the agent, start a new session, branch and
//! move in the session tree. [`HookApi::host`] gives a clonable [`Host`] to send messages,
//! append entries and run programs from a handler.
//!
//! ## Async work in a handler
//!
//! Handlers are plain functions: the host calls one and waits for what it returns. A handler
//! that needs async code (an HTTP client, `tokio::process`, a database driver) runs it on a
//! runtime the plugin owns, built once on first use and kept for the plugin's life, and
//! waits for it with `block_on`:
//!
//! ```
//! use std::{sync::OnceLock, time::Duration};
//!
//! use agent_hooks_abi::prelude::*;
//! use tokio::runtime::{Builder, Runtime};
//!
//! /// The plugin's runtime: no thread of its own; `block_on` drives it on the caller's.
//! fn runtime() -> &'static Runtime {
//!     static RUNTIME: OnceLock<Runtime> = OnceLock::new();
//!     RUNTIME.get_or_init(|| {
//!         Builder::new_current_thread().enable_all().build().expect("a runtime")
//!     })
//! }
//!
//! async fn allowed(command: &str) -> bool {
//!     tokio::time::sleep(Duration::from_millis(1)).await; // a policy service, say
//!     !command.starts_with("deploy")
//! }
//!
//! fn plugin(api: &mut HookApi) -> HandlerResult<()> {
//!     api.on(|event: &ToolCallEvent, _ctx| {
//!         let command = event.input["command"].as_str().unwrap_or_default();
//!         let allowed = runtime().block_on(allowed(command));
//!         Ok((!allowed).then(|| ToolCallResult::block("the policy service said no")))
//!     });
//!     Ok(())
//! }
//!
//! agent_hooks_abi::export_plugin!(plugin);
//! # fn main() { assert!(!runtime().block_on(allowed("deploy prod"))); }
//! ```
//!
//! This works in a plugin process and in process alike: a plugin library has its own copy
//! of tokio, so its `block_on` does not meet the host's runtime (the test suite's
//! `async-handler` fixture checks both). What it costs (`cargo bench -p agent-hooks-host --bench
//! async_handler`, medians on a shared 2-core machine, see BENCHMARKS.md): `block_on` of a
//! ready future adds 0.11 µs to a call and a future that yields once 0.54 µs, against about
//! 1 µs for the host to call a native handler at all, and nothing next to the I/O worth
//! awaiting. Building a runtime per call costs 10.8 µs and is to be avoided; so is a
//! multi-threaded runtime unless the work needs it: each of its workers is a thread in the
//! agent (or the plugin process), and handing work to one and back costs 5.4 µs per call.
//! A current-thread runtime runs one `block_on` at a time: when the host calls the handler
//! from several threads at once, the calls take turns; use
//! `Builder::new_multi_thread().worker_threads(1)` and `runtime().block_on` the same way if
//! they must overlap. Spawned tasks run only while some call is in `block_on`.
//!
//! ## Added in 1.1
//!
//! - [`HookApi::plugin_info`]: the library's own path, the project folder, whether there is a
//!   UI. [`HookApi::config`]: the plugin's configuration read into your serde type, from the
//!   user's settings entry for the plugin or a `lib<name>.toml` / `lib<name>.json` next to the
//!   library; what does not parse or fit is a [`ConfigError`] naming the file, the field and
//!   the line and column.
//! - [`ToolCallResult::ask`](events::ToolCallResult::ask): the user confirms the call (blocked
//!   without a UI), as a command hook's `permissionDecision: "ask"`.
//!   [`SessionStartResult`](events::SessionStartResult): context added at session start.
//! - [`Host::log`] and [`HookContext::log`]: records in the agent's log, with the plugin's
//!   name. With the crate's `log` feature, the `log` crate's macros go there too:
//!
//! ```toml
//! [dependencies]
//! # From a clone (the crate is not on crates.io yet): its `abi/` folder.
//! agent-hooks-abi = { path = "../agent-hooks/abi", features = ["log"] }
//! # Once published:
//! # agent-hooks-abi = { version = "1.1", features = ["log"] }
//! log = "0.4"
//! ```
//!
//! ```ignore
//! // In a handler, with the `log` feature (the SDK installs the logger when the plugin loads):
//! log::info!("checking {}", event.tool_name);
//! ```
//!
//! - [`events::field_names`]: a type's field names as they cross (each event's page also
//!   shows its JSON).
//!
//! In an agent of interface 1.0 (the SDK asks the host's version once and speaks to it in
//! 1.0's shapes): [`HookApi::config`] gives the type's defaults, with a warning in the
//! plugin's log; a `session_start` result is not sent, and the first is reported once as
//! not supported; log records go to the agent's stderr (also from a plugin process, on
//! Linux); an ask is read as a block with its reason; [`HookApi::plugin_info`] answers
//! [`ServiceError::Unsupported`].
//!
//! ## Versioning policy
//!
//! The interface version is this crate's version, [`INTERFACE_VERSION`]. Within one major
//! version, plugins never need a rebuild: a plugin built against any `1.y` loads and runs in
//! a host built against any other `1.y`, older or newer.
//!
//! | | |
//! |---|---|
//! | a minor (`1.y` → `1.y+1`) may add | host services (reached through `call`, see [`services`]); events; types; fields of the `#[non_exhaustive]` types added since 1.1 (1.0.0's types keep their fields, see below); values of enums that have an `Unknown` fallback |
//! | only a major (`1.x` → `2.0`) may change | anything in [`ffi`] (the checked types: the root module, the host traits, the handler traits); removing or changing a service, an event or a field |
//! | a newer host, older plugin | loads; every event and service the plugin knows works; events it does not know are not delivered to it |
//! | an older host, newer plugin | loads; a service the host lacks answers [`ServiceError::Unsupported`] (never a panic); a handler for an event the host does not emit is listed as a warning; a service the plugin declared with [`HookApi::require`] refuses the load: "upgrade the agent" |
//! | another major | refused at load, saying which side to upgrade or rebuild |
//! | a plugin author rebuilds | for a new major only |
//!
//! Why a generic service call rather than appending methods: abi_stable's layout check lets a
//! host know *fewer* trailing fields or methods of a checked type than the plugin, never
//! more. Appending a method to `HostApi` in a minor would therefore lock every older plugin
//! out of every newer host. So the checked graph ([`ffi`]) is frozen for the whole major
//! version (but for the root module `PluginModule`, a prefix type, which may grow at the
//! end), and growth goes through one method that was there from `1.0`:
//! `call(service, json) -> json` on both [`ffi::HostApi`] and [`ffi::HostContext`], with
//! the SDK's typed methods ([`Host::call`], [`Host::interface_version`],
//! [`HookContext::call`]) on top. JSON costs microseconds, which a host service (UI, I/O)
//! dwarfs. The host applies this policy itself when it loads a plugin (the major must
//! match) instead of abi_stable's default rule, so that each refusal says what to do.
//!
//! ### Source compatibility within 1.x
//!
//! A plugin's *source* that compiled against `1.0.0` compiles against every later `1.y`
//! (checked in CI by `cargo semver-checks` against the last release tag, and by building
//! 1.0.0's sample plugins, unchanged, against this crate). So the structs of 1.0.0 are built
//! the way 1.0.0's docs showed, with a struct expression and `..Default::default()`, or with a
//! constructor, or with the builder-style setters (named after the fields) added in 1.1:
//!
//! ```
//! use agent_hooks_abi::prelude::*;
//! use std::time::Duration;
//!
//! // As 1.0.0's docs showed, and still:
//! let content = vec![ContentBlock::text("[redacted]")];
//! let patch = ToolResultPatch { content: Some(content), ..Default::default() };
//! // Events (the host builds them; plugin tests do too).
//! let call = ToolCallEvent::new("exec", "call-1", json!({"command": "ls"}));
//! let ran = ToolResultEvent::new("exec", "call-1", json!({})).is_error(true);
//! // Results a handler returns.
//! let blocked = ToolCallResult::block("not here");
//! let details = ToolResultPatch::default().details(json!({"redacted": true}));
//! let options = ExecOptions::default().timeout(Duration::from_secs(5)).env("LANG", "C");
//! # let _ = (patch, call, ran, blocked, details, options);
//! ```
//!
//! Which types may grow within the major, and which are frozen, is one rule
//! (docs/compatibility.md, "The rule for growth"): the types that 1.0.0 had
//! gain no public field within 1.x (new data comes as a new type, a new event or a host
//! service); types added since 1.1 are `#[non_exhaustive]` and may gain fields. 1.1.0 broke
//! this once: it added `ToolCallResult::ask` and made the 1.0.0 types `#[non_exhaustive]`;
//! the second is undone (see CHANGELOG.md), the first stays (a struct expression of
//! `ToolCallResult` that names all its fields without `..` fails; 1.0.0's docs built it with
//! `block` or `replace_input`). `ContentBlock` and `AgentMessage` mirror the wire shape of
//! a message and keep unknown fields in `extra`. Unknown JSON fields of every type are
//! ignored when read (or kept in `extra`), as before.

#![deny(missing_docs)]
// Hand-written `unsafe` lives in `sys` alone (`ffi` is allowed only the code abi_stable's
// derive and trait macros generate there: its files hold none written by hand).
#![deny(unsafe_code)]
#![warn(clippy::undocumented_unsafe_blocks)]

pub mod events;
#[allow(unsafe_code)]
pub mod ffi;
pub mod host;
mod sdk;
pub mod services;
#[allow(unsafe_code)]
mod sys;
#[cfg(feature = "testing")]
pub mod testing;

pub use events::{Event, EventKind};
pub use sdk::*;
pub use services::{LogLevel, ServiceError};

/// Re-exported so that a plugin needs no other dependency to read and write JSON.
pub use serde;
/// Re-exported so that a plugin needs no other dependency to read and write JSON.
pub use serde_json;

/// The version of the interface this crate defines (its package version).
pub const INTERFACE_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Everything a plugin usually needs: `use agent_hooks_abi::prelude::*;`.
pub mod prelude {
    pub use crate::events::*;
    pub use crate::sdk::{
        CommandContext, ConfigError, Error, ExecOptions, ExecOutput, HandlerResult, HookApi,
        HookContext, Host, NavigateTreeOptions, NewSessionOptions, NotifyLevel, RenderOptions, Ui,
    };
    pub use crate::services::{LogLevel, PluginInfo, ServiceError};
    /// The crate itself, for `serde_json::from_value` and the rest, with no dependency line.
    pub use serde_json::{self, json, Value};
}

/// Used by [`export_plugin!`]; not part of the public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::sdk::export::PluginEntry;
    pub use crate::sys::lib_header;
    pub use abi_stable::library::LibHeader;
}
