use std::{io, process::ExitStatus, time::Duration};

use nix::{
    sys::signal::{killpg, Signal},
    unistd::Pid,
};
use tokio::process::{Child, Command};

/// A child process that leads a process group of its own, so that everything it starts can
/// be signalled with it.
///
/// Dropped before its process was reaped (a cancelled run, a supervisor that goes away),
/// it sends SIGKILL to the whole group; tokio reaps the process in the background. Once
/// the process was reaped, dropping it signals nothing: a process group outlives its
/// leader only through members it started, and a run that ended normally leaves those alone.
pub struct ProcessGroup {
    child: Child,
    group: Option<Pid>,
    reaped: bool,
}

impl ProcessGroup {
    /// Spawns `command` as the leader of a new process group. Must be called inside a tokio
    /// runtime.
    pub fn spawn(command: &mut Command) -> io::Result<Self> {
        let child = command.process_group(0).kill_on_drop(false).spawn()?;
        let group = child
            .id()
            .and_then(|id| i32::try_from(id).ok())
            .map(Pid::from_raw);
        Ok(Self {
            child,
            group,
            reaped: false,
        })
    }

    /// The process, to take its pipes.
    pub fn child_mut(&mut self) -> &mut Child {
        &mut self.child
    }

    /// Waits for the process to end (not for its pipes to close).
    pub async fn wait(&mut self) -> io::Result<ExitStatus> {
        let status = self.child.wait().await?;
        self.reaped = true;
        Ok(status)
    }

    /// Sends `signal` to the whole group.
    pub fn signal(&self, signal: Signal) {
        if let Some(group) = self.group {
            let _ = killpg(group, signal);
        }
    }

    /// Stops the group: SIGTERM, then SIGKILL if the process has not ended after `grace`,
    /// then SIGKILL again for members that outlived it. Returns once the process was reaped.
    pub async fn stop(&mut self, grace: Duration) -> Option<ExitStatus> {
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
            // The leader is not reaped, so its id cannot have been reused: the group is ours.
            self.signal(Signal::SIGKILL);
        }
    }
}
