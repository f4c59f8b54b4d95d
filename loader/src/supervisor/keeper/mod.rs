//! The keeper: nothing started on a hook's behalf outlives the agent, however the agent ends
//! (normal exit, SIGTERM, SIGKILL), including what leaves its process group or session
//! (`setsid`) and what its parent left behind.
//!
//! Every process the agent starts on a hook's behalf (command hooks, `exec` programs, plugin
//! processes, long-running hooks) gets the variable [`KEEPER_VAR`] with a token made once
//! per agent process, and what those start inherit it. The first such start also starts the
//! keeper: one small `/bin/sh` whose stdin is a pipe the agent holds the only write end of
//! (close-on-exec, so no hook holds it). It waits on that pipe, in a process group of its
//! own, ignoring the signals a terminal sends its foreground group. When the agent ends, by
//! any means, the kernel closes the pipe; the keeper then stops (SIGSTOP) every process
//! whose environment holds the token, in passes until none is left running (so a process
//! that forks meanwhile is caught), and kills them (SIGKILL).
//!
//! While the agent lives nothing changes: background children of a hook that exited
//! normally (notifiers) go on as before. What the keeper cannot see is a process that
//! dropped the variable from its environment (`env -i`) and also left its process group;
//! such a process outlives the agent, as everything did before the keeper. The keeper needs
//! Linux's `/proc`; elsewhere (and when `/bin/sh` cannot start) nothing is started and
//! processes end as before: with their group when the agent lets them go.
//!
//! Why not a subreaper: a keeper that is a child subreaper catches escapees only if it is
//! their ancestor, that is if it starts every hook process itself, which moves spawning,
//! waiting and exit statuses (and a plugin process's resource usage) into another process
//! behind a protocol; making the agent's own process a subreaper instead would make the
//! agent reap children it does not know, among the host's own. The token needs neither.

use std::{
    process::{ChildStdin, Command, Stdio},
    sync::{Mutex, OnceLock},
};

/// The variable every process started on a hook's behalf carries.
pub(crate) const KEEPER_VAR: &str = "AGENT_HOOKS_KEEPER";

/// The keeper's script: `$1` is the token. It reads until the agent's end, then freezes and
/// kills, pass after pass, every process whose environment holds `KEEPER_VAR=$1`.
const SCRIPT: &str = r#"trap '' INT TERM HUP QUIT PIPE
while read -r _; do :; done
m="AGENT_HOOKS_KEEPER=$1"
pass=0
while [ "$pass" -lt 50 ]; do
  found=
  for e in $(grep -lzxF -- "$m" /proc/[0-9]*/environ 2>/dev/null); do
    p=${e#/proc/}; p=${p%/environ}
    [ "$p" = "$$" ] && continue
    kill -STOP "$p" 2>/dev/null && found="$found $p"
  done
  [ -z "$found" ] && break
  kill -KILL $found 2>/dev/null
  pass=$((pass + 1))
done
"#;

struct Keeper {
    token: String,
    /// The pipe's write end: held, never written, until the agent's process ends.
    _pipe: Mutex<ChildStdin>,
}

static KEEPER: OnceLock<Option<Keeper>> = OnceLock::new();

/// The variable and token to give a process started on a hook's behalf, starting the keeper
/// on the first call; `None` where there is no keeper (not Linux, or it could not start).
pub(crate) fn marker() -> Option<(&'static str, &'static str)> {
    KEEPER
        .get_or_init(start)
        .as_ref()
        .map(|keeper| (KEEPER_VAR, keeper.token.as_str()))
}

fn start() -> Option<Keeper> {
    if !cfg!(target_os = "linux") || !std::path::Path::new("/proc/self/environ").exists() {
        return None;
    }
    use std::os::unix::process::CommandExt;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    let token = format!("{}-{nanos}", std::process::id());
    let mut child = Command::new(super::SHELL)
        .arg0("agent-hooks-keeper")
        .arg("-c")
        .arg(SCRIPT)
        .arg("agent-hooks-keeper")
        .arg(&token)
        .env_remove(KEEPER_VAR)
        .current_dir("/")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .ok()?;
    let pipe = child.stdin.take()?;
    // Never waited for: it outlives the agent by design, and is reaped by whoever inherits it.
    drop(child);
    Some(Keeper {
        token,
        _pipe: Mutex::new(pipe),
    })
}

/// Adds the keeper's variable to `env` (a process's additions to the agent's environment).
pub(crate) fn mark(env: &mut Vec<(std::ffi::OsString, std::ffi::OsString)>) {
    if let Some((name, token)) = marker() {
        env.push((name.into(), token.into()));
    }
}

/// Adds the keeper's variable to `command`.
pub(crate) fn mark_command(command: &mut Command) {
    if let Some((name, token)) = marker() {
        command.env(name, token);
    }
}
