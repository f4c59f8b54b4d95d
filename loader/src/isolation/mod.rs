//! Plugins in processes of their own.
//!
//! The same plugin library that loads in the agent's process can run in a plugin process:
//! a program (the `agent-hooks` command, or the agent itself, see
//! [`serve_if_plugin_process`]) loads the one library with the agent's own loader, same
//! checks and same errors, and serves it over a pipe. Whatever the plugin's
//! code does there (a segfault, an abort, `exit`, a loop, a leak, `set_var`, signal
//! dispositions) stays there: the agent sees an error that names the plugin, the event and
//! the cause, blocks the `tool_call` in flight, and starts the process again on the next
//! event. A plugin that crashes [`CRASH_LIMIT`] times within [`CRASH_WINDOW`] is disabled
//! for the rest of the session. Each call has a deadline (plugin time only: a UI prompt it
//! waits for does not count); past it the process group is killed.
//!
//! ```no_run
//! use agent_hooks::{isolation, load_hooks_with, LoadOptions};
//!
//! fn main() {
//!     // First thing: when this program was started as a plugin process, serve and exit.
//!     isolation::serve_if_plugin_process();
//!     let mut options = LoadOptions::isolated();
//!     options.defaults.handler_timeout = std::time::Duration::from_secs(2);
//!     let loaded = load_hooks_with(["hooks/libguard.so"], ".", &options);
//!     for hook in &loaded.hooks {
//!         println!("{}: {:?}", hook.path(), hook.process_state());
//!     }
//! }
//! ```
//!
//! This module is the public face of plugin processes and holds no code: the agent's side
//! is `remote/`, the plugin process's own side `child.rs`, the wire protocols `protocol/`,
//! and [`LoadOptions`] stays with the loader. Nothing in the crate imports this module, so
//! it may stand above all four.

pub use crate::child::serve_if_plugin_process;
pub use crate::load::LoadOptions;
/// The wire protocols, for the agent's own binary on both ends: hidden, not part of the
/// public API (they change with the crate, within one protocol version).
#[doc(hidden)]
pub use crate::protocol::{frames as protocol, lines};
pub use crate::remote::{
    Isolation, Limits, PluginSettings, ProcessState, CRASH_LIMIT, CRASH_WINDOW,
    DEFAULT_ADDRESS_SPACE, DEFAULT_OPEN_FILES, MAX_EXECS, PLUGIN_HOST_ENV, STDERR_LOG,
};
pub use crate::supervisor::{
    keeper_in_force, KeeperInForce, DEFAULT_HOOK_MEMORY_MIB, HOOK_MEMORY_ENV,
};
