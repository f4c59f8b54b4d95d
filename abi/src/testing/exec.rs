//! `exec` in a test: a stub's answer, or the real program.

use std::{
    io::Read,
    path::Path,
    process::{Command, Stdio},
    sync::{mpsc, Arc, Mutex},
    thread,
    time::{Duration, Instant},
};

use crate::sdk::{ExecOptions, ExecOutput};

/// How long a real program may run when the plugin sets no timeout (as in `agent-hooks`).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// How much of stdout, and of stderr, is kept (as in `agent-hooks`); the rest is read and
/// dropped.
const OUTPUT_CAP: usize = 8 * 1024 * 1024;

/// How long output already written is still read after the program ended: a pipe that
/// something it started in the background keeps open is then abandoned (as in
/// `agent-hooks`), so the run ends with the program.
const DRAIN_AFTER_EXIT: Duration = Duration::from_millis(50);

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
/// for it (not for what it started); kills it (not what it started) when `options.timeout`
/// passes.
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
    let drained = Instant::now() + DRAIN_AFTER_EXIT;
    let text = |reader: Option<Reader>| {
        let Some((kept, done)) = reader else {
            return String::new();
        };
        let _ = done.recv_timeout(drained.saturating_duration_since(Instant::now()));
        let kept = kept.lock().unwrap_or_else(|p| p.into_inner());
        String::from_utf8_lossy(&kept).into_owned()
    };
    let mut output = ExecOutput::default()
        .stdout(text(stdout))
        .stderr(text(stderr))
        .killed(killed);
    output.code = status.and_then(|s| s.code());
    Ok(output)
}

/// What a pipe's reader has kept so far, and word that it reached the end.
type Reader = (Arc<Mutex<Vec<u8>>>, mpsc::Receiver<()>);

/// Reads `from` to its end on a thread of its own, keeping [`OUTPUT_CAP`] bytes as they come
/// (what was read is there even if the pipe is abandoned).
fn read_all(mut from: impl Read + Send + 'static) -> Reader {
    let kept = Arc::new(Mutex::new(Vec::new()));
    let (done, finished) = mpsc::channel();
    let keeping = kept.clone();
    thread::spawn(move || {
        let mut chunk = [0u8; 8 * 1024];
        while let Ok(n @ 1..) = from.read(&mut chunk) {
            let mut kept = keeping.lock().unwrap_or_else(|p| p.into_inner());
            let room = OUTPUT_CAP.saturating_sub(kept.len());
            kept.extend_from_slice(&chunk[..n.min(room)]);
        }
        let _ = done.send(());
    });
    (kept, finished)
}
