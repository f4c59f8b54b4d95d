//! The port and the secret of a user's HTTP hooks (`<config>/http.json`): `install --http`
//! writes them into the agent's entry, and the resident process listens on that port.

use std::{
    io::{Read, Write},
    net::TcpListener,
    path::Path,
};

use serde::{Deserialize, Serialize};

/// The file, in agent-hooks' configuration folder, with the port and the secret.
pub const CONFIG_FILE: &str = "http.json";

/// The port and the secret of a user's HTTP hooks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HttpConfig {
    /// The port on 127.0.0.1.
    pub port: u16,
    /// The secret (64 hex digits).
    pub secret: String,
}

impl HttpConfig {
    /// Reads `<config>/http.json`, if there is one.
    pub fn read(config_dir: &Path) -> Option<HttpConfig> {
        let text = std::fs::read_to_string(config_dir.join(CONFIG_FILE)).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// Reads it, or makes one (a free port, a fresh secret) readable by the user only.
    pub fn read_or_make(config_dir: &Path) -> std::io::Result<HttpConfig> {
        if let Some(config) = Self::read(config_dir) {
            return Ok(config);
        }
        let port = TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        let mut bytes = [0u8; 32];
        std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
        let secret: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let config = HttpConfig { port, secret };
        std::fs::create_dir_all(config_dir)?;
        let path = config_dir.join(CONFIG_FILE);
        let text = serde_json::to_string_pretty(&config).map_err(std::io::Error::other)?;
        let mut file = std::fs::OpenOptions::new();
        std::os::unix::fs::OpenOptionsExt::mode(&mut file, 0o600);
        file.write(true)
            .create_new(true)
            .open(&path)?
            .write_all(text.as_bytes())?;
        Ok(config)
    }

    /// The URL of `agent`'s hooks.
    pub fn url(&self, agent: &str) -> String {
        format!("http://127.0.0.1:{}/hook/{agent}", self.port)
    }
}
