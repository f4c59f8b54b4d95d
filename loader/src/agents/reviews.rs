//! What the agents themselves decide of the hooks in their own files, which discovery asks:
//! the reviews a user made in the agent (Codex CLI's hooks trusted or turned off by their
//! hash, Gemini CLI's trusted project hooks), read once for a discovery, and the settings of
//! an agent that turn its own hooks off (Claude Code's `disableAllHooks`).

use std::path::Path;

use serde_json::Value;

use super::{claude_code, codex_cli::CodexState, file_form, gemini_cli::GeminiTrust, Agent};
use crate::command_hook::ConfigIssue;

/// The agents' reviews of hooks, as their users left them.
#[derive(Debug)]
pub(crate) struct Reviews {
    /// Codex CLI's review of hooks (`[hooks.state]` of `~/.codex/config.toml`).
    codex: CodexState,
    /// The project hooks Gemini CLI's user trusted (`~/.gemini/trusted_hooks.json`).
    gemini: GeminiTrust,
}

impl Reviews {
    /// The reviews under the home folder `home`.
    pub(crate) fn read(home: Option<&Path>) -> Self {
        Reviews {
            codex: CodexState::read(home),
            gemini: GeminiTrust::read(home),
        }
    }

    /// Whether the agent whose hooks file `bytes` (at `path`) is trusts every hook of it as
    /// it is now: Codex CLI's user trusted each by its hash (`/hooks`), or Gemini CLI's user
    /// was shown each for the project `project` (`trusted_hooks.json`).
    pub(crate) fn trust_all(&self, bytes: &[u8], path: &Path, project: &Path) -> bool {
        let dialect = file_form::dialect_of(path);
        if !matches!(dialect, Agent::Codex | Agent::Gemini) {
            return false;
        }
        let Ok(value) = file_form::read(bytes, path, dialect) else {
            return false;
        };
        match dialect {
            Agent::Codex => self.codex.trusts_all(&value, path),
            _ => self.gemini.trusts_all(&value, project),
        }
    }

    /// The hooks file `bytes` (at `path`, not a managed one: a managed file is beyond the
    /// user's reach) read with what its agent's user turned off or did not trust as it is
    /// taken out (Codex CLI's review), and what was taken out; `None` for a file whose agent
    /// takes nothing out, which is read as it is.
    pub(crate) fn withheld(
        &self,
        bytes: &[u8],
        path: &Path,
    ) -> Option<(Result<Value, ConfigIssue>, Vec<ConfigIssue>)> {
        if file_form::dialect_of(path) != Agent::Codex {
            return None;
        }
        let mut read = file_form::read(bytes, path, Agent::Codex);
        let withheld = match &mut read {
            Ok(value) => self.codex.withhold(value, path),
            Err(_) => Vec::new(),
        };
        Some((read, withheld))
    }
}

/// The agents whose own hooks a setting of theirs turns off, each with the reason (which
/// file turns them off), for the project `cwd` and the home folder `home`.
pub(crate) fn turned_off(cwd: &Path, home: Option<&Path>) -> Vec<(Agent, String)> {
    claude_code::hooks_turned_off(cwd, home)
        .map(|file| {
            let reason = format!(
                "Claude Code's hooks are turned off: `disableAllHooks` is true in {}",
                file.display()
            );
            (Agent::ClaudeCode, reason)
        })
        .into_iter()
        .collect()
}
