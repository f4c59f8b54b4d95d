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
//! have closed (the process has most likely exited), the run takes the process's end from the
//! kernel, not from the keeper's word (which comes after the keeper woke, reaped it and wrote,
//! and the agent's reading thread woke): from `/proc` while the process is a zombie (checked
//! through the pidfd to be still unreaped after the read, so that its id was still its own),
//! or from the pidfd once reaped (Linux 6.15); if it has not exited, through the pidfd
//! registered with the runtime then. Nothing is awaited for the start itself: the answer is
//! there by the time the pipes close. Where the kernel does not say, the keeper's word is
//! awaited, as without a pidfd.

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
        set: &spec.env,
        removed: &[],
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
    /// at once if it has exited, else when it does; `None` where there is no pidfd, or the
    /// kernel does not say (the keeper's word then).
    async fn seen_ended(&self) -> Option<i32> {
        if self.started.get().is_none() {
            self.started.keep(keeper::started_async(self.request).await);
        }
        let pid = *self.started.get()?.as_ref().ok()?;
        let pidfd = self.started.take_pidfd()?;
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        {
            if let Some(status) = exited(pid, pidfd.as_fd()) {
                return Some(status);
            }
            let pidfd = crate::sys::process::watch(pidfd).ok()?;
            // Readable once the process has exited.
            drop(pidfd.readable().await.ok()?);
            exited(pid, pidfd.get_ref().as_fd())
        }
        #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
        {
            let _ = (pid, pidfd);
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

/// The wait status of process `pid` (`pidfd` its pidfd) if it has exited: from the pidfd once
/// reaped (Linux 6.15); from `/proc` while it is a zombie, the id checked to be still its own
/// after the read. `None` while it runs, or if neither says.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn exited(pid: i32, pidfd: std::os::fd::BorrowedFd<'_>) -> Option<i32> {
    use crate::sys::process::{exit_status, not_reaped};
    // Reaped already: the keeper reaps as soon as it exits, and usually before the run
    // looks (nine hooks in ten here).
    if let Some(status) = exit_status(pidfd) {
        return Some(status);
    }
    if let Some(status) = zombie_status(pid) {
        // Still unreaped after the read: the id was its own while it was read.
        if not_reaped(pidfd) {
            return Some(status);
        }
    }
    // Reaped meanwhile, or not exited.
    exit_status(pidfd)
}

/// The wait status of exited process `pid`, from its `/proc/PID/stat` (its 52nd field, as
/// `waitpid` gives it) while it is a zombie; `None` if it is not one, or `/proc` does not say.
/// Whether the id was still that process's is for the caller to check.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn zombie_status(pid: i32) -> Option<i32> {
    use std::io::Read;
    let mut stat = [0u8; 1024];
    let mut file = std::fs::File::open(format!("/proc/{pid}/stat")).ok()?;
    let mut len = 0;
    while len < stat.len() {
        match file.read(&mut stat[len..]) {
            Ok(0) => break,
            Ok(n) => len += n,
            Err(_) => return None,
        }
    }
    parse_zombie_status(&stat[..len])
}

/// A `/proc/PID/stat` line's wait status if its state is a zombie's (`Z`).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn parse_zombie_status(stat: &[u8]) -> Option<i32> {
    // After the command's closing parenthesis: the state is field 3, the exit code field 52.
    let after = stat.iter().rposition(|&b| b == b')')?;
    let rest = std::str::from_utf8(&stat[after + 1..]).ok()?;
    let mut fields = rest.split_ascii_whitespace();
    if fields.next()? != "Z" {
        return None;
    }
    fields.nth(48)?.parse().ok()
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

#[cfg(all(test, target_os = "linux", target_env = "gnu"))]
mod tests {
    use std::process::Command;

    /// `/proc/PID/stat` of `child` once it is a zombie (it exited, not yet reaped).
    fn zombie_stat(child: &std::process::Child) -> Vec<u8> {
        let path = format!("/proc/{}/stat", child.id());
        loop {
            let stat = std::fs::read(&path).unwrap();
            if super::parse_zombie_status(&stat).is_some() {
                return stat;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }

    #[test]
    fn a_zombies_stat_gives_its_wait_status_and_a_live_process_gives_none() {
        let mut exits = Command::new("/bin/sh")
            .args(["-c", "exit 3"])
            .spawn()
            .unwrap();
        let mut killed = Command::new("/bin/sh")
            .args(["-c", "kill -9 $$"])
            .spawn()
            .unwrap();
        let mut runs = Command::new("sleep").arg("10").spawn().unwrap();
        assert_eq!(
            super::parse_zombie_status(&zombie_stat(&exits)),
            Some(3 << 8)
        );
        assert_eq!(super::parse_zombie_status(&zombie_stat(&killed)), Some(9));
        assert_eq!(super::zombie_status(exits.id() as i32), Some(3 << 8));
        assert_eq!(super::zombie_status(runs.id() as i32), None);
        // A command with a closing parenthesis and spaces in it.
        let stat = format!("42 (a) b (c) Z {} 256", ["0"; 48].join(" "));
        assert_eq!(super::parse_zombie_status(stat.as_bytes()), Some(256));
        let running = format!("42 (a) b (c) S {} 256", ["0"; 48].join(" "));
        assert_eq!(super::parse_zombie_status(running.as_bytes()), None);
        runs.kill().unwrap();
        for child in [&mut exits, &mut killed, &mut runs] {
            child.wait().unwrap();
        }
    }
}
