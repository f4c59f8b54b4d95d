use std::{path::Path, time::Duration};

use agent_hooks_abi::{ExecOptions, ExecOutput};

use crate::supervisor::{self, Exit, Spec};

/// How long a program run by `exec` may take when the plugin sets no timeout.
pub const EXEC_DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// How much of a program's stdout, and of its stderr, `exec` keeps: 8 MiB each.
pub const EXEC_OUTPUT_CAP: usize = 8 * 1024 * 1024;

/// Runs `command` with `args` (no shell) in `options.cwd` or `default_cwd`, with
/// `options.env` added to the agent's environment, under the agent's process supervisor: it
/// runs in a process group of its own; when `options.timeout` (default
/// [`EXEC_DEFAULT_TIMEOUT`]) passes, the group gets SIGTERM, then SIGKILL, and `killed` is
/// true; the wait ends when the program ends, even if something it started in the
/// background keeps its output open; stdout and stderr are kept up to [`EXEC_OUTPUT_CAP`]
/// each (`truncated` says more was dropped); what the program left running in the
/// background is killed with its group when it exits. Blocks the calling thread; on a multi-threaded
/// tokio runtime the worker hands its other tasks on while it waits.
pub fn exec(
    command: &str,
    args: &[&str],
    options: &ExecOptions,
    default_cwd: &Path,
) -> std::io::Result<ExecOutput> {
    exec_until(command, args, options, default_cwd, std::future::pending())
}

/// [`exec`], which also ends when `cancel` completes: the program's whole group is then
/// killed and `killed` is true.
pub(crate) fn exec_until(
    command: &str,
    args: &[&str],
    options: &ExecOptions,
    default_cwd: &Path,
    cancel: impl std::future::Future<Output = ()> + Send,
) -> std::io::Result<ExecOutput> {
    let spec = Spec {
        program: command.into(),
        arg0: None,
        args: args.iter().map(Into::into).collect(),
        cwd: options
            .cwd
            .clone()
            .unwrap_or_else(|| default_cwd.to_path_buf()),
        env: options
            .env
            .iter()
            .map(|(k, v)| (k.into(), v.into()))
            .collect(),
        inherit_env: true,
        stdin: None,
        timeout: options.timeout.unwrap_or(EXEC_DEFAULT_TIMEOUT),
        output_cap: EXEC_OUTPUT_CAP,
        kill_leftovers: true,
    };
    let run = supervisor::block_on(supervisor::run_until(spec, cancel))?;
    let Some(run) = run else {
        return Ok(ExecOutput::default().killed(true));
    };
    let (code, killed) = match run.exit {
        Exit::Code(code) => (Some(code), false),
        Exit::Signal(_) => (None, false),
        Exit::TimedOut => (None, true),
        Exit::SpawnFailed(error) => {
            return Err(std::io::Error::other(format!(
                "cannot run `{command}`: {error}"
            )))
        }
    };
    let mut output = ExecOutput::default()
        .stdout(String::from_utf8_lossy(&run.stdout))
        .stderr(String::from_utf8_lossy(&run.stderr))
        .killed(killed)
        .truncated(run.stdout_truncated || run.stderr_truncated);
    output.code = code;
    Ok(output)
}
