//! A plugin's log (the `log` host service, interface 1.1): each record goes to `tracing`,
//! at its level, with the plugin as a field; a plugin that floods is bounded.

use std::{
    sync::Mutex,
    time::{Duration, Instant},
};

use agent_hooks_abi::services::{LogLevel, LogRecord};
use tracing::Level;

use crate::sync::LockUnpoisoned;

/// Records a plugin may log in one second; the rest of that second's are dropped.
pub const LOG_RECORDS_PER_SECOND: u32 = 200;

/// Bytes of one record's message that are kept; the rest is cut.
pub const LOG_MESSAGE_CAP: usize = 8 * 1024;

/// The `tracing` target of plugins' records.
pub const LOG_TARGET: &str = "agent_hooks::plugin";

/// One plugin's log.
pub(crate) struct PluginLog {
    /// The plugin, as reports name it.
    plugin: String,
    window: Mutex<Window>,
}

struct Window {
    started: Instant,
    records: u32,
}

impl PluginLog {
    pub(crate) fn new(plugin: &str) -> Self {
        Self {
            plugin: plugin.to_owned(),
            window: Mutex::new(Window {
                started: Instant::now(),
                records: 0,
            }),
        }
    }

    /// Sends `record` to `tracing`, unless the plugin logged too much this second (the
    /// first record over the bound is replaced by a warning that says so).
    pub(crate) fn record(&self, record: &LogRecord) {
        let records = {
            let mut window = self.window.lock_unpoisoned();
            if window.started.elapsed() >= Duration::from_secs(1) {
                window.started = Instant::now();
                window.records = 0;
            }
            window.records = window.records.saturating_add(1);
            window.records
        };
        if records > LOG_RECORDS_PER_SECOND + 1 {
            return;
        }
        let plugin = self.plugin.as_str();
        if records == LOG_RECORDS_PER_SECOND + 1 {
            tracing::warn!(
                target: LOG_TARGET,
                plugin = %plugin,
                "the plugin logs more than {LOG_RECORDS_PER_SECOND} records a second: the rest of this second's are dropped"
            );
            return;
        }
        let message = capped(&record.message);
        // The plugin's own target (its module, with the `log` bridge) when it gave one.
        macro_rules! emit {
            ($level:expr) => {
                match record.target.as_deref() {
                    Some(module) => tracing::event!(
                        target: LOG_TARGET, $level, plugin = %plugin, module = %module, "{message}"
                    ),
                    None => tracing::event!(target: LOG_TARGET, $level, plugin = %plugin, "{message}"),
                }
            };
        }
        match record.level {
            LogLevel::Error => emit!(Level::ERROR),
            LogLevel::Warn => emit!(Level::WARN),
            LogLevel::Info => emit!(Level::INFO),
            LogLevel::Debug => emit!(Level::DEBUG),
            LogLevel::Trace => emit!(Level::TRACE),
        }
    }
}

/// The most detailed level the process's `tracing` subscriber keeps; `None`: none.
pub(crate) fn kept_level() -> Option<LogLevel> {
    let current = tracing::level_filters::LevelFilter::current();
    [
        (Level::TRACE, LogLevel::Trace),
        (Level::DEBUG, LogLevel::Debug),
        (Level::INFO, LogLevel::Info),
        (Level::WARN, LogLevel::Warn),
        (Level::ERROR, LogLevel::Error),
    ]
    .into_iter()
    .find(|(level, _)| current >= *level)
    .map(|(_, ours)| ours)
}

/// `message`, cut to [`LOG_MESSAGE_CAP`] bytes (on a character boundary) with a note.
fn capped(message: &str) -> std::borrow::Cow<'_, str> {
    if message.len() <= LOG_MESSAGE_CAP {
        return message.into();
    }
    let mut end = LOG_MESSAGE_CAP;
    while !message.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… [{} bytes cut]", &message[..end], message.len() - end).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_message_is_cut_on_a_character_boundary() {
        let message = format!("{}é", "a".repeat(LOG_MESSAGE_CAP - 1));
        assert_eq!(
            capped(&message),
            format!("{}… [2 bytes cut]", "a".repeat(LOG_MESSAGE_CAP - 1))
        );
        assert_eq!(capped("short"), "short");
    }
}
