//! Added in 1.1: the plugin's log, kept by the host (the `log` service), and the optional
//! bridge from the `log` crate (feature `log`).

use std::sync::{
    atomic::{AtomicBool, AtomicU8, Ordering},
    OnceLock,
};

use super::{HookApi, HookContext, Host};
use crate::services::{self, LogLevel, LogRecord, PluginInfo, ServiceError};

/// The plugin's host, kept when its factory runs, for [`HookContext::log`] and the bridge.
/// Each plugin library has its own copy of this crate, so its own.
static HOST: OnceLock<Host> = OnceLock::new();

#[cfg(feature = "testing")]
std::thread_local! {
    /// The test kit's host, while the kit calls into a plugin on this thread: in a test
    /// process many test hosts live at once, so the static above cannot name the right one.
    static TEST_HOST: std::cell::RefCell<Option<Host>> = const { std::cell::RefCell::new(None) };
}

/// Runs `f` with `host` as this thread's host for [`HookContext::log`] and the bridge.
#[cfg(feature = "testing")]
pub(crate) fn with_test_host<T>(host: &Host, f: impl FnOnce() -> T) -> T {
    let previous = TEST_HOST.with(|slot| slot.replace(Some(host.clone())));
    let outcome = f();
    TEST_HOST.with(|slot| *slot.borrow_mut() = previous);
    outcome
}

/// The host that this thread's records go to: the test kit's during its calls, else the
/// plugin's.
fn current_host() -> Option<Host> {
    #[cfg(feature = "testing")]
    if let Some(host) = TEST_HOST.with(|slot| slot.borrow().clone()) {
        return Some(host);
    }
    HOST.get().cloned()
}

/// Installs the `log` bridge (feature `log`) without keeping a host: the test kit's.
#[cfg(feature = "testing")]
pub(crate) fn install_bridge() {
    #[cfg(feature = "log")]
    bridge::install();
}

/// The most detailed level the host keeps, once asked: [`UNKNOWN`] until then, [`OFF`]
/// when it keeps none.
static MAX_LEVEL: AtomicU8 = AtomicU8::new(UNKNOWN);
const UNKNOWN: u8 = u8::MAX;

/// The host has no log (interface 1.0): records go straight to stderr.
static TO_STDERR: AtomicBool = AtomicBool::new(false);
const OFF: u8 = 0;

fn rank(level: LogLevel) -> u8 {
    level as u8 + 1
}

/// Keeps `api`'s host for the plugin's log, and installs the `log` bridge (feature `log`).
/// Called by the export macro's factory, before the author's.
pub(crate) fn install(api: &HookApi) {
    let _ = HOST.set(api.host());
    #[cfg(feature = "log")]
    bridge::install();
}

/// Whether the host keeps records of `level` (asked once, on the first record).
fn kept(host: &Host, level: LogLevel) -> bool {
    let mut max = MAX_LEVEL.load(Ordering::Relaxed);
    if max == UNKNOWN {
        max = match host.call::<PluginInfo>(services::PLUGIN, &serde_json::json!({})) {
            Ok(info) => info.log_level.map_or(OFF, rank),
            // A 1.0 host: records go to stderr, as plugins wrote them before, without a call
            // to a log it does not have.
            Err(ServiceError::Unsupported { .. }) => {
                TO_STDERR.store(true, Ordering::Relaxed);
                rank(LogLevel::Info)
            }
            Err(_) => rank(LogLevel::Info),
        };
        MAX_LEVEL.store(max, Ordering::Relaxed);
        #[cfg(feature = "log")]
        bridge::set_max_level(max);
    }
    rank(level) <= max
}

impl Host {
    /// Added in 1.1: writes `message` to the agent's log, at `level`, with the plugin's name.
    ///
    /// The agent keeps records at the level it was asked for (the `agent-hooks` command:
    /// `-v` for info, `-vv` for debug, `-vvv` for trace; warnings and errors always) and
    /// drops the rest before they leave the plugin. It bounds what a plugin may log (see the
    /// docs/writing-plugins.md, "Logging"). A host of interface 1.0 has no log: the record goes to the
    /// agent's stderr instead (from a plugin process of such a host, on Linux, to its
    /// parent's: the agent's).
    ///
    /// ```
    /// # use agent_hooks_abi::prelude::*;
    /// fn plugin(api: &mut HookApi) -> HandlerResult<()> {
    ///     let host = api.host();
    ///     host.log(LogLevel::Info, "guard loaded");
    ///     api.on(move |event: &ToolCallEvent, _ctx| {
    ///         host.log(LogLevel::Debug, &format!("checking {}", event.tool_name));
    ///         Ok(None)
    ///     });
    ///     Ok(())
    /// }
    /// ```
    pub fn log(&self, level: LogLevel, message: &str) {
        if kept(self, level) {
            self.log_record(&LogRecord::new(level, message));
        }
    }

    fn log_record(&self, record: &LogRecord) {
        if TO_STDERR.load(Ordering::Relaxed) {
            to_users_stderr(&format!("[{}] {}", record.level, record.message));
            return;
        }
        match self.call::<serde_json::Value>(services::LOG, record) {
            Ok(_) => {}
            Err(ServiceError::Unsupported { .. }) => {
                to_users_stderr(&format!("[{}] {}", record.level, record.message))
            }
            // The host's log failed: nowhere better to say so.
            Err(_) => {}
        }
    }
}

/// Writes a log line where a host of interface 1.0 (which has no log) lets the user see it:
/// the agent's stderr. In process that is this process's; in a 1.0 plugin process (stdin
/// `/dev/null`, stdout moved onto stderr, both a pipe the host keeps only for crash
/// reports) it is the parent's, the agent's, on Linux.
fn to_users_stderr(line: &str) {
    use std::io::Write;
    static AGENT: OnceLock<Option<std::sync::Mutex<std::fs::File>>> = OnceLock::new();
    let agent = AGENT.get_or_init(|| legacy_plugin_process_agent_stderr().map(Into::into));
    match agent {
        Some(file) => {
            let mut file = file.lock().unwrap_or_else(|p| p.into_inner());
            if writeln!(file, "{line}").is_err() {
                eprintln!("{line}");
            }
        }
        None => eprintln!("{line}"),
    }
}

/// The agent's stderr, when this is a plugin process of a 1.0 host.
#[cfg(target_os = "linux")]
fn legacy_plugin_process_agent_stderr() -> Option<std::fs::File> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let fd = |n: u8| std::fs::metadata(format!("/proc/self/fd/{n}")).ok();
    let (stdin, stdout, stderr) = (fd(0)?, fd(1)?, fd(2)?);
    let null = std::fs::metadata("/dev/null").ok()?;
    let stdin_is_null = stdin.dev() == null.dev() && stdin.ino() == null.ino();
    let stdout_is_stderr = stdout.dev() == stderr.dev() && stdout.ino() == stderr.ino();
    if !(stdin_is_null && stdout_is_stderr && stderr.file_type().is_fifo()) {
        return None;
    }
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // `pid (comm) state ppid ...`: the command may hold spaces and parentheses.
    let ppid = stat.rsplit_once(") ")?.1.split(' ').nth(1)?;
    let agent = format!("/proc/{ppid}/fd/2");
    let theirs = std::fs::metadata(&agent).ok()?;
    if theirs.dev() == stderr.dev() && theirs.ino() == stderr.ino() {
        return None;
    }
    std::fs::OpenOptions::new().append(true).open(agent).ok()
}

#[cfg(not(target_os = "linux"))]
fn legacy_plugin_process_agent_stderr() -> Option<std::fs::File> {
    None
}

impl HookContext<'_> {
    /// Added in 1.1: [`Host::log`], from a handler. In a hook that a host runs from its own
    /// binary (not a plugin library), the record goes to stderr.
    ///
    /// ```
    /// # use agent_hooks_abi::prelude::*;
    /// # fn register(api: &mut HookApi) {
    /// api.on(|event: &ToolResultEvent, ctx| {
    ///     if event.is_error {
    ///         ctx.log(LogLevel::Warn, &format!("{} failed", event.tool_name));
    ///     }
    ///     Ok(None)
    /// });
    /// # }
    /// ```
    pub fn log(&self, level: LogLevel, message: &str) {
        match current_host() {
            Some(host) => host.log(level, message),
            None => eprintln!("[{level}] {message}"),
        }
    }
}

#[cfg(feature = "log")]
mod bridge {
    //! `log::info!` and friends, sent to the host's log.

    use std::sync::atomic::{AtomicBool, Ordering};

    use super::{current_host, kept};
    use crate::services::{LogLevel, LogRecord};

    struct Bridge;

    static BRIDGE: Bridge = Bridge;

    /// Whether the bridge is the plugin's logger (the plugin did not install its own).
    static INSTALLED: AtomicBool = AtomicBool::new(false);

    fn level(level: log::Level) -> LogLevel {
        match level {
            log::Level::Error => LogLevel::Error,
            log::Level::Warn => LogLevel::Warn,
            log::Level::Info => LogLevel::Info,
            log::Level::Debug => LogLevel::Debug,
            log::Level::Trace => LogLevel::Trace,
        }
    }

    impl log::Log for Bridge {
        fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
            current_host().is_some_and(|host| kept(&host, level(metadata.level())))
        }

        fn log(&self, record: &log::Record<'_>) {
            let Some(host) = current_host() else { return };
            let level = level(record.level());
            if kept(&host, level) {
                let message = record.args().to_string();
                host.log_record(&LogRecord::new(level, message).target(record.target()));
            }
        }

        fn flush(&self) {}
    }

    /// Installs the bridge as the plugin's `log` logger, unless the plugin has one.
    pub(super) fn install() {
        if log::set_logger(&BRIDGE).is_ok() {
            INSTALLED.store(true, Ordering::Relaxed);
            log::set_max_level(log::LevelFilter::Trace);
        }
    }

    /// Lets `log`'s macros skip what the host does not keep.
    pub(super) fn set_max_level(max: u8) {
        if !INSTALLED.load(Ordering::Relaxed) {
            return;
        }
        let filter = [
            log::LevelFilter::Off,
            log::LevelFilter::Error,
            log::LevelFilter::Warn,
            log::LevelFilter::Info,
            log::LevelFilter::Debug,
            log::LevelFilter::Trace,
        ];
        log::set_max_level(filter[usize::from(max).min(filter.len() - 1)]);
    }
}
