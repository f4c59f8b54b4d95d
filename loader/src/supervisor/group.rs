use std::{io, process::ExitStatus, time::Duration};

use nix::{
    sys::signal::{killpg, Signal},
    unistd::Pid,
};
use tokio::process::{Child, Command};

#[cfg(all(target_os = "linux", target_env = "gnu"))]
use super::direct::Direct;
use super::{kept::Kept, Pipes};

/// A child process that leads a process group of its own, so that everything it starts can
/// be signalled with it.
///
/// Dropped before its process was reaped (a cancelled run, a supervisor that goes away),
/// it sends SIGKILL to the whole group, and the process is reaped in the background. Once
/// the process was reaped, dropping it signals nothing: a process group outlives its
/// leader only through members it started, and a run that ended normally leaves those alone.
pub struct ProcessGroup {
    leader: Leader,
    /// The group's id; for a process asked of the keeper, its leader knows it (see `kept.rs`).
    group: Option<Pid>,
    reaped: bool,
}

/// The group's leader, as it was started.
enum Leader {
    /// By `tokio::process` (which reaps a dropped child itself).
    Tokio(Child),
    /// By `posix_spawn` (see `direct.rs`); `None` once handed to the background reaper.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    Direct(Option<Direct>),
    /// By the keeper (see `kept.rs`), which reaps it.
    Kept(Kept),
}

impl ProcessGroup {
    /// Spawns `command` as the leader of a new process group, and gives its pipes. Must be
    /// called inside a tokio runtime.
    pub(crate) fn spawn(command: &mut Command) -> io::Result<(Self, Pipes)> {
        let mut child = command.process_group(0).kill_on_drop(false).spawn()?;
        let pipes = Pipes {
            stdin: child.stdin.take().map(|p| Box::new(p) as _),
            stdout: child.stdout.take().map(|p| Box::new(p) as _),
            stderr: child.stderr.take().map(|p| Box::new(p) as _),
        };
        let group = child
            .id()
            .and_then(|id| i32::try_from(id).ok())
            .map(Pid::from_raw);
        let group = Self {
            leader: Leader::Tokio(child),
            group,
            reaped: false,
        };
        Ok((group, pipes))
    }

    /// A process started by `posix_spawn` in a group of its own.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    pub(super) fn direct(direct: Direct) -> Self {
        Self {
            group: Some(direct.pid),
            leader: Leader::Direct(Some(direct)),
            reaped: false,
        }
    }

    /// A process asked of the keeper, in a group of its own.
    pub(super) fn kept(kept: Kept) -> Self {
        Self {
            group: None,
            leader: Leader::Kept(kept),
            reaped: false,
        }
    }

    /// Waits until the group's id is known (a process asked of the keeper: its answer came),
    /// so that a signal reaches it without waiting.
    pub(super) async fn known(&self) {
        if let Leader::Kept(kept) = &self.leader {
            let _ = kept.started().await;
        }
    }

    /// Waits for the process to end (not for its pipes to close).
    pub async fn wait(&mut self) -> io::Result<ExitStatus> {
        self.wait_closed(std::future::pending()).await
    }

    /// [`wait`](Self::wait), told by `closed` when the process's pipes have closed (a process
    /// asked of the keeper is then looked at through its pidfd, see `kept.rs`).
    pub(super) async fn wait_closed(
        &mut self,
        closed: impl std::future::Future<Output = ()>,
    ) -> io::Result<ExitStatus> {
        let status = match &mut self.leader {
            Leader::Tokio(child) => child.wait().await?,
            #[cfg(all(target_os = "linux", target_env = "gnu"))]
            Leader::Direct(Some(direct)) => direct.wait().await?,
            #[cfg(all(target_os = "linux", target_env = "gnu"))]
            Leader::Direct(None) => return Err(io::Error::other("the process was let go")),
            Leader::Kept(kept) => kept.wait(closed).await?,
        };
        self.reaped = true;
        Ok(status)
    }

    /// Sends `signal` to the whole group (of a process asked of the keeper, once the keeper
    /// said its id: waiting a moment for that if it has not come).
    pub fn signal(&self, signal: Signal) {
        let group = match &self.leader {
            Leader::Kept(kept) => kept.pid(),
            _ => self.group,
        };
        if let Some(group) = group {
            let _ = killpg(group, signal);
        }
    }

    /// Stops the group: SIGTERM, then SIGKILL if the process has not ended after `grace`,
    /// then SIGKILL again for members that outlived it. Returns once the process was reaped.
    pub async fn stop(&mut self, grace: Duration) -> Option<ExitStatus> {
        self.known().await;
        self.signal(Signal::SIGTERM);
        let status = match tokio::time::timeout(grace, self.wait()).await {
            Ok(status) => status.ok(),
            Err(_) => {
                self.signal(Signal::SIGKILL);
                self.wait().await.ok()
            }
        };
        self.signal(Signal::SIGKILL);
        status
    }
}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        if !self.reaped {
            // The leader is not reaped (by this process, or by the keeper a moment ago), so
            // its id cannot have been reused: the group is ours. (A process asked of the
            // keeper is killed by its `Kept`: now, or as its id arrives.)
            if let Some(group) = self.group {
                let _ = killpg(group, Signal::SIGKILL);
            }
            #[cfg(all(target_os = "linux", target_env = "gnu"))]
            if let Leader::Direct(direct) = &mut self.leader {
                if let Some(direct) = direct.take() {
                    direct.reap_later();
                }
            }
        }
    }
}
