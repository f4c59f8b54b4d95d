//! Starting a supervised process through the keeper (`keeper/`), which makes it a descendant
//! of its subreaper: the pipes are made here, their child ends sent along, and the process
//! is waited for through the keeper's word of its end.
//!
//! The request is sent and the run goes on without waiting for the keeper's answer (the
//! process's id): stdin is written and stdout read while the keeper starts the process, and
//! the id is awaited where it is needed (the wait, a signal to the group). A process that
//! could not be started shows as its wait's error, which the run reports as a failed spawn
//! with the same message.
//!
//! The keeper's answer carries a pidfd of the process (Linux with glibc). Once the run's pipes
//! have closed (the process has most likely exited), the run asks the pidfd how it ended
//! (`PIDFD_GET_INFO`, Linux 6.15, which tells once the process is reaped: the keeper reaps as
//! soon as it exits, and had in nine hooks in ten when the run looked), or waits for the pidfd
//! to say that it was reaped; it does not wait for the keeper's word of the end to reach the
//! agent's reading thread and be handed on. Nothing is awaited for the start itself: the
//! answer is there by the time the pipes close. The keeper's word is awaited all along, and
//! decides where the kernel does not tell. (A zombie's wait status in `/proc/PID/stat` is not
//! used: a process that ran a setuid program reads as having exited 0 to anyone not allowed
//! to trace it.)

use std::{
    ffi::OsString,
    future::Future,
    io,
    os::{
        fd::AsFd,
        unix::{ffi::OsStrExt, process::ExitStatusExt},
    },
    process::ExitStatus,
};

use nix::{sys::signal::Signal, unistd::Pid};
use tokio::net::unix::pipe;

use super::{keeper, Pipes, Spec};

/// A process asked of the keeper: the request's number, and once the keeper answered, the
/// process's id (which leads its group) or why it did not start.
pub(super) struct Kept {
    request: u64,
    started: keeper::Answered,
    waited: bool,
}

/// Starts `spec`'s program through the keeper and gives its pipes, or `Ok(None)` where no
/// subreaper keeper runs. Must be called inside a tokio runtime.
pub(super) fn spawn(spec: &Spec) -> io::Result<Option<(Kept, Pipes)>> {
    if !keeper::starts_processes() {
        return Ok(None);
    }
    if spec.program.as_bytes().contains(&0) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "a program, argument, folder or variable contains a NUL byte",
        ));
    }
    let request = keeper::wire::Request {
        program: spec.program.clone(),
        arg0: spec
            .arg0
            .map(OsString::from)
            .unwrap_or_else(|| spec.program.clone()),
        args: spec.args.clone(),
        // The keeper runs in `/`: a relative folder is the agent's, made absolute here.
        cwd: std::path::absolute(&spec.cwd)?.into_os_string(),
        set: &spec.env,
        removed: &[],
        inherit: spec.inherit_env,
        stdin: spec.stdin.is_some(),
        memory: 0,
    };
    let (stdin_child, stdin) = match spec.stdin {
        None => (None, None),
        Some(_) => {
            let (read, write) = crate::sys::pipe::cloexec()?;
            (Some(read), Some(write))
        }
    };
    let (stdout, stdout_child) = crate::sys::pipe::cloexec()?;
    let (stderr, stderr_child) = crate::sys::pipe::cloexec()?;
    let mut fds = Vec::with_capacity(3);
    fds.extend(stdin_child.as_ref().map(|fd| fd.as_fd()));
    fds.extend([stdout_child.as_fd(), stderr_child.as_fd()]);
    let sent = keeper::send(&request, &fds);
    drop(fds);
    drop((stdin_child, stdout_child, stderr_child));
    let Some(request) = sent.transpose()? else {
        return Ok(None);
    };
    let kept = Kept {
        request,
        started: keeper::Answered::default(),
        waited: false,
    };
    let pipes = Pipes {
        stdin: match stdin {
            Some(fd) => Some(Box::new(pipe::Sender::from_owned_fd(fd)?)),
            None => None,
        },
        stdout: Some(Box::new(pipe::Receiver::from_owned_fd(stdout)?)),
        stderr: Some(Box::new(pipe::Receiver::from_owned_fd(stderr)?)),
    };
    Ok(Some((kept, pipes)))
}

impl Kept {
    /// Waits for the process to end: once `closed` has completed (its pipes closed), as the
    /// kernel tells it through its pidfd; else, or meanwhile, as the keeper tells it once it
    /// reaped it. An error if it did not start.
    pub(super) async fn wait(
        &mut self,
        closed: impl Future<Output = ()>,
    ) -> io::Result<ExitStatus> {
        let status = {
            let seen = async {
                closed.await;
                self.seen_ended().await
            };
            let told = keeper::ended_async(self.request, &self.started);
            tokio::pin!(seen, told);
            tokio::select! {
                Some(status) = &mut seen => {
                    if let Some(Ok(pid)) = self.started.get() {
                        // Its end, as the keeper tells it (now or soon), is not kept.
                        keeper::abandon(*pid);
                    }
                    status
                }
                told = &mut told => told?.status,
            }
        };
        self.waited = true;
        Ok(ExitStatus::from_raw(status))
    }

    /// The process's wait status as the kernel tells it, through the pidfd the keeper sent:
    /// at once if the keeper has reaped it, else when it does; `None` where there is no pidfd,
    /// or the kernel does not tell (the keeper's word then).
    async fn seen_ended(&self) -> Option<i32> {
        self.started().await.ok()?;
        let pidfd = self.started.take_pidfd()?;
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        {
            use crate::sys::process::{exit_status, watch, Exit};
            match exit_status(pidfd.as_fd()) {
                Exit::Reaped(status) => return Some(status),
                Exit::Untold => return None,
                Exit::NotYet => {}
            }
            // Readable once the process has exited, and again once it is reaped.
            let pidfd = watch(pidfd).ok()?;
            loop {
                let mut ready = pidfd.readable().await.ok()?;
                match exit_status(pidfd.get_ref().as_fd()) {
                    Exit::Reaped(status) => return Some(status),
                    Exit::Untold => return None,
                    Exit::NotYet => ready.clear_ready(),
                }
            }
        }
        #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
        {
            drop(pidfd);
            None
        }
    }

    /// The process's id, awaiting the keeper's answer if it has not come yet.
    pub(super) async fn started(&self) -> io::Result<i32> {
        if self.started.get().is_none() {
            self.started.keep(keeper::started_async(self.request).await);
        }
        self.known()
            .ok_or_else(|| io::Error::other("not started"))?
    }

    /// The process's id if the keeper's answer was taken, else waiting a moment for it (it
    /// comes as soon as the keeper has started the process); `None` if it did not start.
    pub(super) fn pid(&self) -> Option<Pid> {
        if self.started.get().is_none() {
            self.started.keep(keeper::started(self.request));
        }
        self.known()
            .and_then(Result::ok)
            .map(nix::unistd::Pid::from_raw)
    }

    /// The process's id, or why it did not start, if the keeper's answer was taken.
    fn known(&self) -> Option<io::Result<i32>> {
        self.started
            .get()
            .map(|started| started.clone().map_err(io::Error::other))
    }
}

impl Drop for Kept {
    fn drop(&mut self) {
        if self.waited {
            return;
        }
        match self.started.get() {
            Some(Ok(pid)) => {
                // Not reaped while the keeper has not said so: the id is still its own.
                if keeper::peek(*pid).is_none() {
                    let _ = nix::sys::signal::killpg(Pid::from_raw(*pid), Signal::SIGKILL);
                }
                keeper::abandon(*pid);
            }
            Some(Err(_)) => {}
            // Killed with its group as its id comes (or now, if it is there).
            None => keeper::unwanted(self.request),
        }
    }
}
