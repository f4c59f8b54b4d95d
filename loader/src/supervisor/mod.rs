//! One supervisor for every process the agent starts on a hook's behalf: command hooks, the
//! programs plugins run with `exec`, and plugin processes.
//!
//! - Each process runs in a process group of its own ([`ProcessGroup`]), so that what it
//!   starts can be stopped with it: on timeout the group gets SIGTERM, then SIGKILL after a
//!   grace ([`KILL_GRACE`]); when a run is dropped before its process was reaped (the emit
//!   was cancelled), the whole group gets SIGKILL.
//! - The wait ends when the process ends, not when its pipes close: a background grandchild
//!   that keeps stdout open cannot stall the agent. Output written before the exit is still
//!   read for a moment, then the pipes are abandoned.
//! - stdin is written concurrently with reading stdout and stderr, inside the run's own
//!   future (no task per pipe); a process that never reads stdin, or exits early, is not an
//!   error.
//! - stdout and stderr are kept up to a cap each; the rest is read and dropped (so the
//!   process never blocks on a full pipe) and the truncation is reported.
//! - Every process carries the keeper's token (`keeper.rs`), so that nothing it starts, in
//!   its group or out of it, outlives the agent.
//! - On Linux with glibc, a program named by its path is started with `posix_spawn` itself
//!   and watched through a pidfd (`direct.rs`): std's `Command` copies the whole environment
//!   on every spawn to add a hook's variables. Elsewhere, `tokio::process`.

mod blocking;
mod capture;
#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod direct;
mod group;
pub(crate) mod keeper;
mod kept;
pub(crate) mod memory;
pub(crate) mod program;
pub(crate) mod reap;
pub(crate) mod workers;

use std::{
    ffi::OsString,
    os::unix::process::ExitStatusExt,
    path::PathBuf,
    process::{ExitStatus, Stdio},
    sync::Arc,
    time::{Duration, Instant},
};

use nix::sys::signal::Signal;
use tokio::{
    io::{AsyncRead, AsyncWrite, AsyncWriteExt},
    process::Command,
};

#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub(crate) use blocking::in_own_runtime;
pub(crate) use blocking::{block_on, in_current_thread_runtime, may_block, on_this_thread};
use capture::Captured;
pub use group::ProcessGroup;
pub use keeper::{keeper_in_force, KeeperInForce};
pub use memory::{DEFAULT_HOOK_MEMORY_MIB, HOOK_MEMORY_ENV};

/// The shell that runs a command hook's command (`sh -c <command>`): named by its path, as
/// `system(3)`, `popen(3)` and Node's `shell: true` do, so that starting it searches no `PATH`
/// (each folder before the one that has `sh` is a failed `execve`; on a typical `PATH` that
/// costs about as much as the rest of the spawn's own work).
pub const SHELL: &str = "/bin/sh";

/// The name [`SHELL`] is started under: its `$0`, which begins its error messages
/// (`sh: 1: ./guard.sh: not found`), as when it was found on `PATH`.
pub(crate) const SHELL_NAME: &str = "sh";

/// How long a process has to exit after SIGTERM before its group gets SIGKILL.
pub const KILL_GRACE: Duration = Duration::from_millis(500);

/// How long output already written is still read after the process exited.
const DRAIN_AFTER_EXIT: Duration = Duration::from_millis(50);

/// How a supervised process ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exit {
    /// It exited with this code.
    Code(i32),
    /// A signal ended it (not one the supervisor sent).
    Signal(i32),
    /// It ran past its timeout; its process group was killed.
    TimedOut,
    /// It could not be started.
    SpawnFailed(String),
}

impl Exit {
    fn of(status: ExitStatus) -> Self {
        match (status.code(), status.signal()) {
            (Some(code), _) => Exit::Code(code),
            (None, Some(signal)) => Exit::Signal(signal),
            (None, None) => Exit::Code(-1),
        }
    }
}

/// What one supervised run produced.
#[derive(Debug, Clone)]
pub struct Run {
    /// How it ended.
    pub exit: Exit,
    /// Its standard output, up to the cap.
    pub stdout: Vec<u8>,
    /// Its standard error, up to the cap.
    pub stderr: Vec<u8>,
    /// stdout was longer than the cap.
    pub stdout_truncated: bool,
    /// stderr was longer than the cap.
    pub stderr_truncated: bool,
    /// How long it ran.
    pub duration: Duration,
}

impl Run {
    fn spawn_failed(error: std::io::Error, started: Instant) -> Self {
        Run {
            exit: Exit::SpawnFailed(error.to_string()),
            stdout: Vec::new(),
            stderr: Vec::new(),
            stdout_truncated: false,
            stderr_truncated: false,
            duration: started.elapsed(),
        }
    }
}

/// A program to run under supervision, to its end.
#[derive(Debug, Clone)]
pub(crate) struct Spec {
    pub program: OsString,
    /// The name the program is started under (its `argv[0]`), when not `program`.
    pub arg0: Option<&'static str>,
    pub args: Vec<OsString>,
    pub cwd: PathBuf,
    /// Added to (or replacing in) the agent's environment.
    pub env: Vec<(OsString, OsString)>,
    /// Whether the program starts from this process's environment (`env` on top); when not,
    /// `env` is the whole of it (a host that gives the agent's own environment of an event).
    pub inherit_env: bool,
    /// Written to stdin, then stdin is closed; `None`: stdin is `/dev/null`.
    pub stdin: Option<Arc<[u8]>>,
    pub timeout: Duration,
    /// How much of stdout, and of stderr, is kept.
    pub output_cap: usize,
    /// When the process ends, kill what it left running in its group.
    pub kill_leftovers: bool,
}

/// A process's pipes, given when it is started.
pub(crate) struct Pipes {
    pub stdin: Option<Box<dyn AsyncWrite + Send + Unpin>>,
    pub stdout: Option<Box<dyn AsyncRead + Send + Unpin>>,
    pub stderr: Option<Box<dyn AsyncRead + Send + Unpin>>,
}

/// Starts `spec`'s program in a process group of its own: by the keeper where a subreaper
/// keeper runs (see `kept.rs`), else by `posix_spawn` where that applies (see `direct.rs`),
/// else by `tokio::process`; with its pipes.
fn start(spec: &Spec) -> std::io::Result<(ProcessGroup, Pipes)> {
    if let Some((kept, pipes)) = kept::spawn(spec)? {
        return Ok((ProcessGroup::kept(kept), pipes));
    }
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if let Some((direct, pipes)) = direct::spawn(spec)? {
        return Ok((ProcessGroup::direct(direct), pipes));
    }
    let mut command = Command::new(&spec.program);
    if let Some(arg0) = spec.arg0 {
        command.arg0(arg0);
    }
    if !spec.inherit_env {
        command.env_clear();
    }
    command
        .args(&spec.args)
        .current_dir(&spec.cwd)
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .stdin(if spec.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    ProcessGroup::spawn(&mut command)
}

/// Runs `spec` to its end (see the module docs). Dropping the future before it completes
/// kills the process's group.
pub(crate) async fn run(spec: Spec) -> Run {
    let started = Instant::now();
    run_until(spec, std::future::pending())
        .await
        .unwrap_or_else(|| Run::spawn_failed(std::io::Error::other("cancelled"), started))
}

/// [`run`], unless `cancel` completes first: then the process's group is killed and its
/// process waited for (up to [`KILL_GRACE`]), so that it is gone when this returns `None`.
/// (Dropping the future kills the group too, but returns before the kernel has ended it.)
pub(crate) async fn run_until(
    mut spec: Spec,
    cancel: impl std::future::Future<Output = ()>,
) -> Option<Run> {
    let started = Instant::now();
    keeper::mark(&mut spec.env);
    let (mut group, pipes) = match start(&spec) {
        Ok(started) => started,
        Err(e) => return Some(Run::spawn_failed(e, started)),
    };
    // Freed while the process starts, not after it ends: what is left to do then is on
    // the way back to the caller.
    let Spec {
        program,
        args,
        cwd,
        env,
        stdin: payload,
        timeout,
        output_cap,
        kill_leftovers,
        ..
    } = spec;
    drop((program, args, cwd, env));
    let Pipes {
        stdin,
        stdout,
        stderr,
    } = pipes;
    let mut out = Captured::new(output_cap);
    let mut err = Captured::new(output_cap);

    let exit = {
        // Told when the pipes have closed: the process has most likely exited.
        let closed = tokio::sync::Notify::new();
        let io = async {
            let feed = async {
                if let (Some(mut pipe), Some(payload)) = (stdin, payload.as_deref()) {
                    // A process may exit without reading: a broken pipe is not an error.
                    let _ = pipe.write_all(payload).await;
                }
            };
            tokio::join!(feed, out.read_from(stdout), err.read_from(stderr));
            closed.notify_one();
        };
        let waiting = async {
            let waited = tokio::select! {
                waited = tokio::time::timeout(timeout, group.wait_closed(closed.notified())) => {
                    Some(waited)
                }
                () = cancel => None,
            };
            Some(match waited? {
                Ok(Ok(status)) => {
                    if kill_leftovers {
                        group.signal(Signal::SIGKILL);
                    }
                    Exit::of(status)
                }
                Ok(Err(e)) => Exit::SpawnFailed(e.to_string()),
                Err(_) => {
                    group.stop(KILL_GRACE).await;
                    Exit::TimedOut
                }
            })
        };
        tokio::pin!(io, waiting);
        let mut io_done = false;
        let exit = loop {
            tokio::select! {
                exit = &mut waiting => break exit,
                () = &mut io, if !io_done => io_done = true,
            }
        };
        if exit.is_some() && !io_done {
            // A pipe still held open by a grandchild is abandoned.
            let _ = tokio::time::timeout(DRAIN_AFTER_EXIT, &mut io).await;
        }
        exit
    };
    let Some(exit) = exit else {
        group.known().await;
        group.signal(Signal::SIGKILL);
        let _ = tokio::time::timeout(KILL_GRACE, group.wait()).await;
        return None;
    };
    let (stdout, stdout_truncated) = out.into_parts();
    let (stderr, stderr_truncated) = err.into_parts();
    Some(Run {
        exit,
        stdout,
        stderr,
        stdout_truncated,
        stderr_truncated,
        duration: started.elapsed(),
    })
}
