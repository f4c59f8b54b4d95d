//! Running one command hook as a real process, under the agent's process supervisor
//! (`/bin/sh -c <command>` in its own process group; see `loader/src/supervisor/` for what that
//! guarantees: a timeout or a cancelled emit kills the whole group, the wait ends with the
//! process and not with its pipes, output is capped).

use std::{ffi::OsString, path::Path, sync::Arc, time::Duration};

use crate::supervisor::{self, Spec};
pub use crate::supervisor::{Exit, Run};

/// How much of stdout, and of stderr, is kept: 1 MiB each.
pub const OUTPUT_CAP: usize = 1024 * 1024;

/// What to run and how.
pub(crate) struct RunSpec<'a> {
    /// The shell command, run as `/bin/sh -c <command>`.
    pub command: &'a str,
    /// The program and its arguments instead, when the hook gives them (its `args`, its
    /// `shell`: see [`Handler::argv`](super::Handler)).
    pub argv: Option<Vec<OsString>>,
    /// The working folder (the project).
    pub cwd: &'a Path,
    /// Extra environment variables, on top of this process's (a later one of a name wins).
    pub env: &'a [(String, String)],
    /// Whether this process's environment is the base; when not, `env` is the whole of it.
    pub inherit_env: bool,
    /// Written to stdin, then stdin is closed.
    pub stdin: Arc<[u8]>,
    /// When to kill it.
    pub timeout: Duration,
}

/// Runs a hook. Dropping the future before it completes (a cancelled emit) kills the hook's
/// whole process group.
pub(crate) async fn run(spec: RunSpec<'_>) -> Run {
    let (program, arg0, args) = match spec.argv {
        Some(mut argv) if !argv.is_empty() => {
            let program = argv.remove(0);
            (program, None, argv)
        }
        _ => (
            supervisor::SHELL.into(),
            Some(supervisor::SHELL_NAME),
            vec!["-c".into(), spec.command.into()],
        ),
    };
    supervisor::run(Spec {
        program,
        arg0,
        args,
        cwd: spec.cwd.to_path_buf(),
        env: spec.env.iter().map(|(k, v)| (k.into(), v.into())).collect(),
        inherit_env: spec.inherit_env,
        stdin: Some(spec.stdin),
        timeout: spec.timeout,
        output_cap: OUTPUT_CAP,
        // A hook may start something in the background on purpose (a notifier, a log
        // shipper); only a timeout or a cancelled emit kills its group.
        kill_leftovers: false,
    })
    .await
}
