//! Plugins in processes of their own.
//!
//! The same plugin library that loads in the agent's process can run in a plugin process:
//! a program (the `agent-hooks` command, or the agent itself, see
//! [`serve_if_plugin_process`]) loads the one library with the agent's own loader, same
//! checks and same errors, and serves it over a pipe ([`protocol`]). Whatever the plugin's
//! code does there (a segfault, an abort, `exit`, a loop, a leak, `set_var`, signal
//! dispositions) stays there: the agent sees an error that names the plugin, the event and
//! the cause, blocks the `tool_call` in flight, and starts the process again on the next
//! event. A plugin that crashes [`CRASH_LIMIT`] times within [`CRASH_WINDOW`] is disabled
//! for the rest of the session. Each call has a deadline (plugin time only: a UI prompt it
//! waits for does not count); past it the process group is killed.

mod child;
pub mod lines;
pub mod protocol;
mod remote;
mod spawn;

use std::{collections::BTreeMap, path::PathBuf, time::Duration};

pub(crate) use remote::{script_failure, CallFailure, PluginProcess, Starting};
pub use remote::{ProcessState, CRASH_LIMIT, CRASH_WINDOW, MAX_EXECS, STDERR_LOG};
pub(crate) use spawn::plugin_host_program;
pub use spawn::PLUGIN_HOST_ENV;

pub use protocol::Limits;

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

/// How [`load_hooks_with`](crate::load_hooks_with) loads plugins.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// The settings of every plugin without settings of its own.
    pub defaults: PluginSettings,
    /// Settings per plugin, by the path as given or by the library's file name.
    pub per_plugin: BTreeMap<String, PluginSettings>,
    /// The plugin-host program; see [`serve_if_plugin_process`] for the default.
    pub plugin_host: Option<PathBuf>,
    /// Whether the agent has an interactive UI: what a plugin's factory is told
    /// (`HookApi::plugin_info`). False by default (the `agent-hooks` command has none).
    pub has_ui: bool,
    /// Configuration objects per plugin, by the path as given or by the library's file
    /// name (discovery fills it from the settings' `plugins.NAME.config`): what
    /// `HookApi::config` gives the plugin, before a `lib<name>.toml`/`.json` next to it.
    pub configs: BTreeMap<String, crate::plugin_config::PluginConfig>,
}

impl LoadOptions {
    /// Every plugin in a process of its own (the default).
    pub fn isolated() -> Self {
        Self::default()
    }

    /// Every plugin in the agent's process.
    pub fn in_process() -> Self {
        let mut options = Self::default();
        options.defaults.isolation = Isolation::InProcess;
        options
    }

    /// The settings of the plugin given as `given`, resolved to `resolved`.
    pub fn settings_for(&self, given: &str, resolved: &std::path::Path) -> PluginSettings {
        by_name(&self.per_plugin, given, resolved)
            .copied()
            .unwrap_or(self.defaults)
    }

    /// The configuration object of the plugin given as `given`, resolved to `resolved`.
    pub fn config_for(
        &self,
        given: &str,
        resolved: &std::path::Path,
    ) -> Option<&crate::plugin_config::PluginConfig> {
        by_name(&self.configs, given, resolved)
    }
}

/// The entry of `map` for the plugin given as `given` (first), or its library's file name.
fn by_name<'m, T>(
    map: &'m BTreeMap<String, T>,
    given: &str,
    resolved: &std::path::Path,
) -> Option<&'m T> {
    let file_name = resolved
        .file_name()
        .map(|n| n.to_string_lossy().into_owned());
    map.get(given)
        .or_else(|| file_name.and_then(|n| map.get(&n)))
}

/// Makes this program able to run plugin processes, and runs one if this process was
/// started as one. Call it first thing in the agent's `main`: when the process is a plugin
/// process it serves the plugin and exits; otherwise it returns at once, and the agent's
/// plugin processes are started from its own program.
///
/// Without this call, the agent looks for its plugin-host program in `$AGENT_HOOKS_PLUGIN_HOST`,
/// then for the `agent-hooks` command next to its own program (or set
/// [`LoadOptions::plugin_host`]).
pub fn serve_if_plugin_process() {
    spawn::SELF_SERVES.store(true, std::sync::atomic::Ordering::Relaxed);
    if std::env::var_os(spawn::CHILD_MARKER).is_none() {
        return;
    }
    // Still one thread: nothing reads the environment concurrently. The marker must not
    // reach programs the plugin runs.
    std::env::remove_var(spawn::CHILD_MARKER);
    std::process::exit(run_plugin_process());
}

fn run_plugin_process() -> i32 {
    #[cfg(target_os = "linux")]
    {
        // Die with the agent, even if it is killed with SIGKILL.
        let _ = nix::sys::prctl::set_pdeathsig(nix::sys::signal::Signal::SIGKILL);
    }
    let Some((input, output)) = private_protocol_fds() else {
        eprintln!("agent-hooks plugin process: cannot set up its connection to the agent");
        return 2;
    };
    child::serve(input, output);
    0
}

/// Moves the protocol off stdin and stdout, so that a plugin that prints (or reads) cannot
/// corrupt it: the protocol gets private descriptors, stdin becomes `/dev/null` and stdout
/// goes to stderr, which the agent keeps.
fn private_protocol_fds() -> Option<(std::fs::File, std::fs::File)> {
    use std::os::fd::AsFd;
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let input = nix::unistd::dup(stdin.as_fd()).ok()?;
    let output = nix::unistd::dup(stdout.as_fd()).ok()?;
    let null = std::fs::File::open("/dev/null").ok()?;
    nix::unistd::dup2_stdin(null.as_fd()).ok()?;
    nix::unistd::dup2_stdout(std::io::stderr().as_fd()).ok()?;
    Some((input.into(), output.into()))
}
