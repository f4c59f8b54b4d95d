//! `exec` in a test: a stub's answer, or the real program.

use std::{
    io::Read,
    path::Path,
    process::{Command, Stdio},
    sync::Arc,
    thread,
    time::{Duration, Instant},
};

use crate::sdk::{ExecOptions, ExecOutput};

/// How long a real program may run when the plugin sets no timeout (as in `agent-hooks`).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// A stub: answers the runs it recognises, `None` for the others.
pub(crate) type Stub =
    Arc<dyn Fn(&str, &[String], &ExecOptions) -> Option<Result<ExecOutput, String>> + Send + Sync>;

/// The answer of the most recently added stub that recognises the run.
pub(crate) fn stubbed(
    stubs: &[Stub],
    command: &str,
    args: &[String],
    options: &ExecOptions,
) -> Option<Result<ExecOutput, String>> {
    stubs
        .iter()
        .rev()
        .find_map(|stub| stub(command, args, options))
}

/// Runs `command` for real, without a shell, in `cwd` with `options.env` added, and waits
/// for it; kills it (not what it started) when `options.timeout` passes.
pub(crate) fn run(
    command: &str,
    args: &[String],
    options: &ExecOptions,
    cwd: &Path,
) -> Result<ExecOutput, String> {
    let mut child = Command::new(command)
        .args(args)
        .current_dir(cwd)
        .envs(&options.env)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run `{command}`: {e}"))?;
    let stdout = child.stdout.take().map(read_all);
    let stderr = child.stderr.take().map(read_all);
    let deadline = Instant::now() + options.timeout.unwrap_or(DEFAULT_TIMEOUT);
    let mut killed = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() >= deadline => {
                killed = true;
                let _ = child.kill();
                break child.wait().ok();
            }
            Ok(None) => thread::sleep(Duration::from_millis(2)),
            Err(e) => return Err(format!("cannot wait for `{command}`: {e}")),
        }
    };
    let text = |reader: Option<thread::JoinHandle<Vec<u8>>>| {
        let bytes = reader.and_then(|r| r.join().ok()).unwrap_or_default();
        String::from_utf8_lossy(&bytes).into_owned()
    };
    let mut output = ExecOutput::default()
        .stdout(text(stdout))
        .stderr(text(stderr))
        .killed(killed);
    output.code = status.and_then(|s| s.code());
    Ok(output)
}

fn read_all(mut from: impl Read + Send + 'static) -> thread::JoinHandle<Vec<u8>> {
    thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = from.read_to_end(&mut bytes);
        bytes
    })
}
