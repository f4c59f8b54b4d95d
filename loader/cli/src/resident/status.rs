//! How this user's resident process stands, as `list` and `doctor` say it: up or not, its
//! log, and its HTTP hooks' address.

use std::{os::unix::net::UnixStream, path::PathBuf, time::Duration};

use super::http_config::HttpConfig;
use crate::{capped_log, relay};

/// Whether this user's resident process is up, and where its log is, for `list` and
/// `doctor`.
pub fn status_line() -> String {
    let Some(home) = std::env::var_os("HOME").map(PathBuf::from) else {
        return "  resident process: unknown (HOME is not set)".into();
    };
    let xdg = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute());
    let folder = relay::folder(&home, xdg.as_deref());
    let socket = folder.join(relay::SOCKET);
    let mut line = match UnixStream::connect(&socket) {
        Ok(_) => format!("  resident process: up, on {}", socket.display()),
        Err(_) => "  resident process: not running (the next `agent-hooks hook` starts it)".into(),
    };
    let log = folder.join(relay::LOG);
    if let Ok(meta) = std::fs::metadata(&log) {
        line.push_str(&format!(
            "\n  its log: {} ({} KiB, kept under {} KiB)",
            log.display(),
            meta.len().div_ceil(1024),
            capped_log::limit() >> 10
        ));
    }
    let config_dir = match &xdg {
        Some(xdg) => xdg.join("agent-hooks"),
        None => home.join(".config/agent-hooks"),
    };
    if let Some(config) = HttpConfig::read(&config_dir) {
        let address = std::net::SocketAddr::from(([127, 0, 0, 1], config.port));
        let listening =
            std::net::TcpStream::connect_timeout(&address, Duration::from_millis(200)).is_ok();
        line.push_str(&if listening {
            format!("\n  HTTP hooks: listening on {address}")
        } else {
            format!("\n  HTTP hooks: on {address}, not listening (the next SessionStart or prompt starts the resident process)")
        });
    }
    line
}
