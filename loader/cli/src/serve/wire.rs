//! What `hook` and the resident process say to each other over the Unix socket, and where
//! the socket is.
//!
//! One request per connection: a header (one JSON line, at most [`HEADER_LIMIT`] bytes),
//! then the agent's payload as it came (at most the payload limit), then the end of the
//! client's writing. The answer is one JSON line ([`Reply`](crate::hook::Reply)), at most
//! [`REPLY_LIMIT`] bytes.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::{hook::AgentName, Common};

/// The version of this exchange.
pub const VERSION: u32 = 1;

/// The largest header.
pub const HEADER_LIMIT: usize = 64 << 10;

/// The largest answer a client reads.
pub const REPLY_LIMIT: usize = 32 << 20;

/// The request's header.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Header {
    /// [`VERSION`].
    pub v: u32,
    /// `--agent`.
    pub agent: String,
    /// `--event`.
    pub event: Option<String>,
    /// `--with`.
    pub with: Vec<String>,
    /// The client's user: its `HOME` and `XDG_CONFIG_HOME`.
    pub home: PathBuf,
    /// `XDG_CONFIG_HOME`, when set.
    pub xdg_config_home: Option<PathBuf>,
    /// `--cwd`, or the client's working folder.
    pub cwd: PathBuf,
    /// `--hook` paths.
    pub hooks: Vec<String>,
    /// `--no-discover`.
    pub no_discover: bool,
    /// `--trust-project`.
    pub trust_project: bool,
    /// `--require` ids.
    pub required: Vec<String>,
    /// `--in-process`.
    pub in_process: bool,
}

impl Header {
    /// The options of a `hook` run as the resident process runs it.
    pub fn common(&self) -> Common {
        Common {
            cwd: Some(self.cwd.clone()),
            hooks: self.hooks.clone(),
            no_discover: self.no_discover,
            trust_project: self.trust_project,
            json: false,
            strict: false,
            required: self.required.clone(),
            in_process: self.in_process,
            ui: "no".into(),
            verbose: 0,
        }
    }

    /// The agents of `with`, read.
    pub fn with(&self) -> Result<Vec<AgentName>, String> {
        self.with.iter().map(|a| a.parse()).collect()
    }
}

/// A short stable hash (FNV-1a, hex) that names a user's socket folder.
fn fnv(text: &str) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in text.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{hash:016x}")
}

/// The folder of the socket and its lock: `$XDG_RUNTIME_DIR/agent-hooks/<user>` or
/// `~/.cache/agent-hooks/run/<user>`, where `<user>` stands for the home and configuration
/// folder, so that each sees its own hooks.
pub fn folder(home: &std::path::Path, xdg_config: Option<&std::path::Path>) -> PathBuf {
    let tag = fnv(&format!(
        "{}\0{}",
        home.display(),
        xdg_config
            .map(|p| p.display().to_string())
            .unwrap_or_default()
    ));
    let base = std::env::var_os("XDG_RUNTIME_DIR")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute() && p.is_dir())
        .map(|p| p.join("agent-hooks"))
        .unwrap_or_else(|| home.join(".cache").join("agent-hooks").join("run"));
    base.join(tag)
}

/// The socket in [`folder`].
pub const SOCKET: &str = "serve.sock";

/// The lock that makes one resident process per folder.
pub const LOCK: &str = "serve.lock";
