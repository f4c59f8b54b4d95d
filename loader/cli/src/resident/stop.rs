//! Stopping this user's resident process (`serve --stop`, and `uninstall` of the last
//! agent): SIGTERM, then SIGKILL if it does not end, and its socket removed.

use std::{
    path::PathBuf,
    time::{Duration, Instant},
};

use crate::relay;

/// Why `serve --stop` could not stop the resident process.
#[derive(Debug, thiserror::Error)]
pub enum StopError {
    /// No home folder: the user's resident process cannot be found.
    #[error("HOME is not set")]
    NoHome,
    /// A file of its folder could not be read or removed.
    #[error("{path}: {error}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        error: std::io::Error,
    },
    /// It holds its lock, but its pid could not be found.
    #[error("a resident process holds {0} but its pid is not in it")]
    NoPid(PathBuf),
    /// It did not end, even killed.
    #[error("the resident process (pid {0}) did not end")]
    StillRunning(i32),
}

/// What `serve --stop` did, as it says it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stopped {
    /// Nothing ran; a socket left behind (by a process killed at once) was removed.
    NoneRunning {
        /// The socket removed, if there was one.
        removed: Option<PathBuf>,
    },
    /// The resident process `pid` was stopped and its socket removed.
    Stopped {
        /// Its pid.
        pid: i32,
        /// Its socket.
        socket: PathBuf,
    },
}

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stopped::NoneRunning { removed: None } => {
                write!(f, "agent-hooks serve: no resident process runs")
            }
            Stopped::NoneRunning {
                removed: Some(socket),
            } => write!(
                f,
                "agent-hooks serve: no resident process runs; removed the socket it left: {}",
                socket.display()
            ),
            Stopped::Stopped { pid, socket } => write!(
                f,
                "agent-hooks serve: stopped the resident process (pid {pid}) and its sessions' hooks; removed {}",
                socket.display()
            ),
        }
    }
}

/// Stops this user's resident process (SIGTERM, then SIGKILL if it does not end) and
/// removes its socket.
pub fn stop() -> Result<Stopped, StopError> {
    let (home, xdg) = crate::relay::user().map_err(|_| StopError::NoHome)?;
    let folder = relay::folder(&home, xdg.as_deref());
    let socket = folder.join(relay::SOCKET);
    let lock_path = folder.join(relay::LOCK);
    let io = |path: &PathBuf| {
        let path = path.clone();
        move |error| StopError::Io { path, error }
    };
    let remove = |socket: &PathBuf| -> Result<bool, StopError> {
        match std::fs::remove_file(socket) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(io(socket)(e)),
        }
    };
    let lock_file = match std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&lock_path)
    {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let removed = remove(&socket)?.then(|| socket.clone());
            return Ok(Stopped::NoneRunning { removed });
        }
        Err(e) => return Err(io(&lock_path)(e)),
    };
    let pid = std::fs::read_to_string(&lock_path)
        .ok()
        .and_then(|text| text.trim().parse::<i32>().ok())
        .filter(|pid| *pid > 1);
    let free = |file: std::fs::File| {
        nix::fcntl::Flock::lock(file, nix::fcntl::FlockArg::LockExclusiveNonblock)
            .map_err(|(file, _)| file)
    };
    let mut file = match free(lock_file) {
        // Nobody holds the lock: nothing runs.
        Ok(_released) => {
            let removed = remove(&socket)?.then(|| socket.clone());
            return Ok(Stopped::NoneRunning { removed });
        }
        Err(file) => file,
    };
    let pid = pid.ok_or_else(|| StopError::NoPid(lock_path.clone()))?;
    let target = nix::unistd::Pid::from_raw(pid);
    for (signal, wait) in [
        (nix::sys::signal::Signal::SIGTERM, Duration::from_secs(5)),
        (nix::sys::signal::Signal::SIGKILL, Duration::from_secs(2)),
    ] {
        let _ = nix::sys::signal::kill(target, signal);
        let until = Instant::now() + wait;
        loop {
            match free(file) {
                Ok(_released) => {
                    remove(&socket)?;
                    return Ok(Stopped::Stopped { pid, socket });
                }
                Err(again) => file = again,
            }
            if Instant::now() > until {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    Err(StopError::StillRunning(pid))
}
