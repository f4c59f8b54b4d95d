//! The agent's side of a plugin process: where a plugin's code runs ([`Isolation`]) and
//! with which deadlines and limits ([`PluginSettings`]); which program is started and from
//! which thread (`spawn`); the process itself, started, called with a deadline, watched,
//! restarted and given up on (`process`); its connection and the thread that reads it
//! (`connection`), what it says read by that thread or by the call it answers (`inbound`), and what the agent writes to a long-running hook (`line_out`), the pipes' waits and flags (`fd`); what it
//! asks, served outside calls and during them (`requests`); and its stderr, kept for
//! reports (`stderr_log`). The plugin process's own side is `crate::child`;
//! what the two say to each other is `crate::protocol`.

mod connection;
mod fd;
mod inbound;
mod line_out;
mod process;
mod requests;
mod spawn;
mod stderr_log;

use std::time::Duration;

pub(crate) use inbound::{Inbound, Readers};
pub(crate) use process::{script_failure, CallFailure, LineEvent, PluginProcess, Starting};
pub use process::{ProcessState, CRASH_LIMIT, CRASH_WINDOW};
pub use requests::MAX_EXECS;
pub use spawn::PLUGIN_HOST_ENV;
pub(crate) use spawn::{plugin_host_program, CHILD_MARKER, SELF_SERVES};
pub use stderr_log::STDERR_LOG;

pub use crate::protocol::frames::Limits;

/// Where a plugin's code runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Isolation {
    /// In a plugin process of its own, supervised by the agent (the default).
    #[default]
    Process,
    /// In the agent's process: nanoseconds per call, but a crash of the plugin is a crash of
    /// the agent. For plugins a user trusts for speed.
    InProcess,
}

/// How one plugin runs: where, its deadlines, its resource limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PluginSettings {
    /// Where its code runs.
    pub isolation: Isolation,
    /// How long its factory may take (plugin processes): 10 s.
    pub factory_timeout: Duration,
    /// How long one event handler may take: 5 s.
    pub handler_timeout: Duration,
    /// How long one command may take: 30 s.
    pub command_timeout: Duration,
    /// How long one renderer may take: 5 s.
    pub renderer_timeout: Duration,
    /// Resource limits of its process.
    pub limits: Limits,
    /// In process: call each event handler on a thread of its own, so that the runner can
    /// stop waiting at `handler_timeout` and a stalled handler never holds a tokio worker
    /// (true, the default; some microseconds per call). False calls handlers on the
    /// emitting thread: nanoseconds, but no deadline.
    pub in_process_deadline: bool,
}

impl PluginSettings {
    /// The defaults, with handlers called on the emitting thread (no in-process deadline).
    pub fn inline() -> Self {
        Self {
            in_process_deadline: false,
            ..Self::default()
        }
    }
}

/// The default address-space limit of a plugin process: 8 GiB.
pub const DEFAULT_ADDRESS_SPACE: u64 = 8 << 30;

/// The default open-files limit of a plugin process.
pub const DEFAULT_OPEN_FILES: u64 = 1024;

impl Default for PluginSettings {
    fn default() -> Self {
        Self {
            isolation: Isolation::Process,
            factory_timeout: Duration::from_secs(10),
            handler_timeout: Duration::from_secs(5),
            command_timeout: Duration::from_secs(30),
            renderer_timeout: Duration::from_secs(5),
            limits: Limits {
                address_space: Some(DEFAULT_ADDRESS_SPACE),
                open_files: Some(DEFAULT_OPEN_FILES),
            },
            in_process_deadline: true,
        }
    }
}
