//! Running one command hook as a real process, so that it can never hang the agent.
//!
//! - The payload is written to stdin by a task of its own, concurrently with reading stdout
//!   and stderr; a hook that never reads stdin, or exits early, is not an error.
//! - The hook runs in a process group of its own. On timeout the whole group gets SIGTERM,
//!   then SIGKILL after a short grace, so nothing it started survives.
//! - The wait ends when the hook's process ends, not when its pipes close: a background
//!   grandchild that keeps stdout open cannot stall the agent.
//! - stdout and stderr are kept up to a cap each; the rest is read and dropped (so the hook
//!   never blocks on a full pipe) and the truncation is reported.

use std::{
    os::unix::process::ExitStatusExt,
    path::Path,
    process::Stdio,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use nix::{
    sys::signal::{killpg, Signal},
    unistd::Pid,
};
use tokio::{
    io::{AsyncRead, AsyncReadExt, AsyncWriteExt},
    process::Command,
};

/// How much of stdout, and of stderr, is kept: 1 MiB each.
pub const OUTPUT_CAP: usize = 1024 * 1024;

/// How long a hook has to exit after SIGTERM before its group gets SIGKILL.
pub const KILL_GRACE: Duration = Duration::from_millis(500);

/// How long output already written is still read after the hook exited.
const DRAIN_AFTER_EXIT: Duration = Duration::from_millis(50);

/// How a hook's process ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exit {
    /// It exited with this code.
    Code(i32),
    /// A signal ended it (not one the runner sent).
    Signal(i32),
    /// It ran past its timeout; its process group was killed.
    TimedOut,
    /// It could not be started.
    SpawnFailed(String),
}

/// What one run of a hook produced.
#[derive(Debug, Clone)]
pub struct Run {
    /// How it ended.
    pub exit: Exit,
    /// Its standard output, up to [`OUTPUT_CAP`].
    pub stdout: Vec<u8>,
    /// Its standard error, up to [`OUTPUT_CAP`].
    pub stderr: Vec<u8>,
    /// stdout was longer than the cap.
    pub stdout_truncated: bool,
    /// stderr was longer than the cap.
    pub stderr_truncated: bool,
    /// How long it ran.
    pub duration: Duration,
}

/// What to run and how.
pub struct RunSpec<'a> {
    /// The shell command, run as `sh -c <command>`.
    pub command: &'a str,
    /// The working folder (the project).
    pub cwd: &'a Path,
    /// Extra environment variables, on top of the agent's.
    pub env: &'a [(&'a str, String)],
    /// Written to stdin, then stdin is closed.
    pub stdin: Arc<[u8]>,
    /// When to kill it.
    pub timeout: Duration,
}

/// Runs a hook (see the module docs).
pub async fn run(spec: RunSpec<'_>) -> Run {
    let started = Instant::now();
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(spec.command)
        .current_dir(spec.cwd)
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(e) => {
            return Run {
                exit: Exit::SpawnFailed(e.to_string()),
                stdout: Vec::new(),
                stderr: Vec::new(),
                stdout_truncated: false,
                stderr_truncated: false,
                duration: started.elapsed(),
            }
        }
    };
    let group = child
        .id()
        .and_then(|id| i32::try_from(id).ok())
        .map(Pid::from_raw);

    if let Some(mut stdin) = child.stdin.take() {
        let payload = spec.stdin.clone();
        tokio::spawn(async move {
            // A hook may exit without reading: a broken pipe here is not an error.
            let _ = stdin.write_all(&payload).await;
        });
    }
    let stdout = Capture::start(child.stdout.take());
    let stderr = Capture::start(child.stderr.take());

    let exit = match tokio::time::timeout(spec.timeout, child.wait()).await {
        Ok(Ok(status)) => match (status.code(), status.signal()) {
            (Some(code), _) => Exit::Code(code),
            (None, Some(signal)) => Exit::Signal(signal),
            (None, None) => Exit::Code(-1),
        },
        Ok(Err(e)) => Exit::SpawnFailed(e.to_string()),
        Err(_) => {
            if let Some(group) = group {
                let _ = killpg(group, Signal::SIGTERM);
                if tokio::time::timeout(KILL_GRACE, child.wait())
                    .await
                    .is_err()
                {
                    let _ = killpg(group, Signal::SIGKILL);
                    let _ = child.wait().await;
                }
                // Members of the group that outlived the leader.
                let _ = killpg(group, Signal::SIGKILL);
            }
            Exit::TimedOut
        }
    };
    let (stdout, stdout_truncated) = stdout.finish().await;
    let (stderr, stderr_truncated) = stderr.finish().await;
    Run {
        exit,
        stdout,
        stderr,
        stdout_truncated,
        stderr_truncated,
        duration: started.elapsed(),
    }
}

/// Reads a pipe into a capped buffer in a task of its own.
struct Capture {
    buffer: Arc<Mutex<(Vec<u8>, bool)>>,
    task: Option<tokio::task::JoinHandle<()>>,
}

impl Capture {
    fn start(pipe: Option<impl AsyncRead + Unpin + Send + 'static>) -> Self {
        let buffer = Arc::new(Mutex::new((Vec::new(), false)));
        let task = pipe.map(|mut pipe| {
            let buffer = buffer.clone();
            tokio::spawn(async move {
                let mut chunk = vec![0u8; 64 * 1024];
                loop {
                    match pipe.read(&mut chunk).await {
                        Ok(0) | Err(_) => break,
                        Ok(n) => {
                            let mut guard = buffer.lock().unwrap_or_else(|p| p.into_inner());
                            let (kept, truncated) = &mut *guard;
                            let room = OUTPUT_CAP.saturating_sub(kept.len());
                            kept.extend_from_slice(&chunk[..n.min(room)]);
                            if n > room {
                                *truncated = true;
                            }
                        }
                    }
                }
            })
        });
        Self { buffer, task }
    }

    /// What was read, after a last moment to read what the hook wrote before it exited.
    /// A pipe still held open by a grandchild is abandoned.
    async fn finish(mut self) -> (Vec<u8>, bool) {
        if let Some(mut task) = self.task.take() {
            if tokio::time::timeout(DRAIN_AFTER_EXIT, &mut task)
                .await
                .is_err()
            {
                task.abort();
            }
        }
        let mut guard = self.buffer.lock().unwrap_or_else(|p| p.into_inner());
        (std::mem::take(&mut guard.0), guard.1)
    }
}
