//! The keeper where no subreaper keeper can start (no program that serves it, or not
//! Linux): a small `/bin/sh` that waits on a pipe only the agent holds and, when it closes,
//! freezes and kills every process whose environment holds the agent's token. It cannot see
//! a process that cleared its environment.

use std::{
    process::{ChildStdin, Command, Stdio},
    sync::Mutex,
};

use super::KEEPER_VAR;

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

pub(super) struct Keeper {
    /// The pipe's write end: held, never written, until the agent's process ends.
    _pipe: Mutex<ChildStdin>,
}

/// Starts the shell keeper for `token` (Linux with `/proc`), `None` where it cannot.
pub(super) fn start(token: &str) -> Option<Keeper> {
    if !cfg!(target_os = "linux") || !std::path::Path::new("/proc/self/environ").exists() {
        return None;
    }
    use std::os::unix::process::CommandExt;
    let mut child = Command::new(crate::supervisor::SHELL)
        .arg0("agent-hooks-keeper")
        .arg("-c")
        .arg(SCRIPT)
        .arg("agent-hooks-keeper")
        .arg(token)
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
        _pipe: Mutex::new(pipe),
    })
}
