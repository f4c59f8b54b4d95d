//! Starting a supervised process through the keeper (`keeper/`), which makes it a descendant
//! of its subreaper: the pipes are made here, their child ends sent along, and the process
//! is waited for through the keeper's word of its end.
//!
//! The request is sent and the run goes on without waiting for the keeper's answer (the
//! process's id): stdin is written and stdout read while the keeper starts the process, and
//! the id is awaited where it is needed (the wait, a signal to the group). A process that
//! could not be started shows as its wait's error, which the run reports as a failed spawn
//! with the same message.

use std::{
    ffi::OsString,
    io,
    os::{
        fd::AsFd,
        unix::{ffi::OsStrExt, process::ExitStatusExt},
    },
    process::ExitStatus,
    sync::OnceLock,
};

use nix::{
    fcntl::OFlag,
    sys::signal::Signal,
    unistd::{pipe2, Pid},
};
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
        env: keeper::environment(&spec.env, &[]),
        stdin: spec.stdin.is_some(),
        memory: 0,
    };
    let (stdin_child, stdin) = match spec.stdin {
        None => (None, None),
        Some(_) => {
            let (read, write) = pipe2(OFlag::O_CLOEXEC)?;
            (Some(read), Some(write))
        }
    };
    let (stdout, stdout_child) = pipe2(OFlag::O_CLOEXEC)?;
    let (stderr, stderr_child) = pipe2(OFlag::O_CLOEXEC)?;
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
        started: OnceLock::new(),
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
    /// Waits for the process to end: the keeper reaped it and said how. An error if it did
    /// not start.
    pub(super) async fn wait(&mut self) -> io::Result<ExitStatus> {
        let ended = keeper::ended_async(self.request, &self.started).await?;
        self.waited = true;
        Ok(ExitStatus::from_raw(ended.status))
    }

    /// The process's id, awaiting the keeper's answer if it has not come yet.
    pub(super) async fn started(&self) -> io::Result<i32> {
        if self.started.get().is_none() {
            let answer = keeper::started_async(self.request).await;
            let _ = self.started.set(answer.map_err(|e| e.to_string()));
        }
        self.known()
            .ok_or_else(|| io::Error::other("not started"))?
    }

    /// The process's id if the keeper's answer was taken, else waiting a moment for it (it
    /// comes as soon as the keeper has started the process); `None` if it did not start.
    pub(super) fn pid(&self) -> Option<Pid> {
        if self.started.get().is_none() {
            let answer = keeper::started(self.request);
            let _ = self.started.set(answer.map_err(|e| e.to_string()));
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
