//! Starting a supervised process through the keeper (`keeper/`), which makes it a descendant
//! of its subreaper: the pipes are made here, their child ends sent along, and the process
//! is waited for through the keeper's word of its end.

use std::{
    ffi::OsString,
    io,
    os::{
        fd::AsFd,
        unix::{ffi::OsStrExt, process::ExitStatusExt},
    },
    process::ExitStatus,
};

use nix::{fcntl::OFlag, unistd::pipe2};
use tokio::net::unix::pipe;

use super::{keeper, Pipes, Spec};

/// A process the keeper started: its id, which leads its group.
pub(super) struct Kept {
    pub pid: nix::unistd::Pid,
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
    let started = keeper::start(&request, &fds);
    drop(fds);
    drop((stdin_child, stdout_child, stderr_child));
    let Some(pid) = started.transpose()? else {
        return Ok(None);
    };
    let kept = Kept {
        pid: nix::unistd::Pid::from_raw(pid),
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
    /// Waits for the process to end: the keeper reaped it and said how.
    pub(super) async fn wait(&mut self) -> io::Result<ExitStatus> {
        let ended = keeper::wait_async(self.pid.as_raw()).await;
        self.waited = true;
        Ok(ExitStatus::from_raw(ended.status))
    }
}

impl Drop for Kept {
    fn drop(&mut self) {
        if !self.waited {
            keeper::abandon(self.pid.as_raw());
        }
    }
}
