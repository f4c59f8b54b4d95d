//! Starting a supervised process with `posix_spawn` itself, not through std's `Command`
//! (Linux with glibc; elsewhere the supervisor uses `tokio::process`).
//!
//! Why: to add one variable to a child's environment (a hook gets four), std copies the whole
//! environment into a map and then into a new `envp`, on every spawn: about 84k instructions,
//! 1–2% of a hook's run. Here `envp` points at the agent's own environment strings, minus the
//! names the run sets, plus those. The child is watched through a pidfd registered with
//! tokio's I/O driver, as `tokio::process` does.
//!
//! The calls into libc themselves (`posix_spawn`, reading `environ`, `pidfd_open`) are in
//! `sys::process`.

use std::{
    ffi::{CString, OsStr},
    io,
    os::{
        fd::OwnedFd,
        unix::{ffi::OsStrExt, process::ExitStatusExt},
    },
    process::ExitStatus,
    sync::OnceLock,
};

use nix::{
    fcntl::OFlag,
    sys::wait::{waitpid, WaitPidFlag, WaitStatus},
    unistd::{pipe2, Pid},
};
use tokio::{io::unix::AsyncFd, net::unix::pipe};

use super::{Pipes, Spec};
use crate::sys::process;

/// A process started by [`spawn`], watched through its pidfd.
pub(super) struct Direct {
    pub pid: Pid,
    pidfd: AsyncFd<OwnedFd>,
}

/// Starts `spec`'s program and gives its pipes, or `Ok(None)` when this way does not apply: a program named
/// without a path (std searches `PATH` for it), or a kernel without pidfds (before Linux
/// 5.3). Must be called inside a tokio runtime.
pub(super) fn spawn(spec: &Spec) -> io::Result<Option<(Direct, Pipes)>> {
    if !spec.program.as_bytes().contains(&b'/') || !pidfds_work() {
        return Ok(None);
    }
    let program = c_string(spec.program.as_bytes())?;
    let mut argv: Vec<CString> = Vec::with_capacity(spec.args.len() + 1);
    argv.push(match spec.arg0 {
        Some(arg0) => c_string(arg0.as_bytes())?,
        None => program.clone(),
    });
    for arg in &spec.args {
        argv.push(c_string(arg.as_bytes())?);
    }
    let cwd = c_string(spec.cwd.as_os_str().as_bytes())?;
    // A name given twice takes its last value, as with std's `Command::env`.
    let set: Vec<CString> = spec
        .env
        .iter()
        .enumerate()
        .filter(|(i, (name, _))| !spec.env[i + 1..].iter().any(|(later, _)| later == name))
        .map(|(_, (name, value))| c_string(&[name.as_bytes(), b"=", value.as_bytes()].concat()))
        .collect::<io::Result<_>>()?;
    let names: Vec<&OsStr> = spec.env.iter().map(|(name, _)| name.as_os_str()).collect();

    let (stdin_child, stdin) = match spec.stdin {
        None => (None, None),
        Some(_) => {
            let (read, write) = pipe2(OFlag::O_CLOEXEC)?;
            (Some(read), Some(write))
        }
    };
    let (stdout, stdout_child) = pipe2(OFlag::O_CLOEXEC)?;
    let (stderr, stderr_child) = pipe2(OFlag::O_CLOEXEC)?;
    let pid = process::posix_spawn(
        &program,
        &argv,
        &process::environment(&names, &set, spec.inherit_env),
        &cwd,
        [
            stdin_child.as_ref(),
            Some(&stdout_child),
            Some(&stderr_child),
        ],
    )?;
    drop((stdin_child, stdout_child, stderr_child));
    let watched = (|| {
        let pidfd = process::watch(process::pidfd_open(pid)?)?;
        let pipes = Pipes {
            stdin: match stdin {
                Some(fd) => Some(Box::new(pipe::Sender::from_owned_fd(fd)?)),
                None => None,
            },
            stdout: Some(Box::new(pipe::Receiver::from_owned_fd(stdout)?)),
            stderr: Some(Box::new(pipe::Receiver::from_owned_fd(stderr)?)),
        };
        Ok::<_, io::Error>((Direct { pid, pidfd }, pipes))
    })();
    match watched {
        Ok(started) => Ok(Some(started)),
        Err(e) => {
            // It cannot be watched: stopped and reaped now.
            let _ = nix::sys::signal::killpg(pid, nix::sys::signal::Signal::SIGKILL);
            let _ = waitpid(pid, None);
            Err(e)
        }
    }
}

impl Direct {
    /// Waits for the process to end, and reaps it.
    pub(super) async fn wait(&mut self) -> io::Result<ExitStatus> {
        loop {
            if let Some(status) = try_reap(self.pid)? {
                return Ok(status);
            }
            self.pidfd.readable().await?.clear_ready();
        }
    }

    /// Reaps the process once it ends, without waiting here (it was killed, or is being):
    /// by a task of the runtime, unless that runtime stops when the call that runs on it
    /// ends (`emit_blocking`'s), then by a thread.
    pub(super) fn reap_later(mut self) {
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) if !super::in_own_runtime() => {
                runtime.spawn(async move {
                    let _ = self.wait().await;
                });
            }
            _ => {
                let pid = self.pid;
                let _ = std::thread::Builder::new()
                    .name("agent-hooks-reap".into())
                    .spawn(move || waitpid(pid, None));
            }
        }
    }
}

/// Whether this kernel has `pidfd_open` (Linux 5.3), asked once.
fn pidfds_work() -> bool {
    static WORKS: OnceLock<bool> = OnceLock::new();
    *WORKS.get_or_init(|| process::pidfd_open(nix::unistd::getpid()).is_ok())
}

/// The process's exit status if it ended (and reaps it), `None` while it runs.
fn try_reap(pid: Pid) -> io::Result<Option<ExitStatus>> {
    let status = loop {
        match waitpid(pid, Some(WaitPidFlag::WNOHANG)) {
            Err(nix::errno::Errno::EINTR) => continue,
            other => break other?,
        }
    };
    Ok(match status {
        WaitStatus::Exited(_, code) => Some(ExitStatus::from_raw((code & 0xff) << 8)),
        WaitStatus::Signaled(_, signal, core) => Some(ExitStatus::from_raw(
            signal as i32 | if core { 0x80 } else { 0 },
        )),
        _ => None,
    })
}

fn c_string(bytes: &[u8]) -> io::Result<CString> {
    CString::new(bytes).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "a program, argument, folder or variable contains a NUL byte",
        )
    })
}

#[cfg(test)]
mod tests {
    use std::{path::PathBuf, sync::Arc, time::Duration};

    use super::super::{run, Exit, Spec};

    fn shell(script: &str, env: &[(&str, &str)]) -> Spec {
        Spec {
            program: "/bin/sh".into(),
            arg0: Some("sh"),
            args: vec!["-c".into(), script.into()],
            cwd: PathBuf::from("/"),
            env: env.iter().map(|(k, v)| (k.into(), v.into())).collect(),
            inherit_env: true,
            stdin: Some(Arc::from(&b"payload"[..])),
            timeout: Duration::from_secs(10),
            output_cap: 1024,
            kill_leftovers: false,
        }
    }

    #[tokio::test]
    async fn a_set_variable_replaces_the_agent_s_and_the_rest_is_inherited() {
        let script = r#"echo "$HOME"; env | grep -c '^HOME='; echo "$PATH"; cat; pwd"#;
        let ran = run(shell(script, &[("HOME", "/first"), ("HOME", "/elsewhere")])).await;
        assert_eq!(ran.exit, Exit::Code(0));
        let path = std::env::var("PATH").unwrap_or_default();
        assert_eq!(
            String::from_utf8_lossy(&ran.stdout),
            format!("/elsewhere\n1\n{path}\npayload/\n")
        );
    }

    #[tokio::test]
    async fn a_missing_folder_or_program_is_a_spawn_failure() {
        let mut spec = shell("true", &[]);
        spec.cwd = PathBuf::from("/no/such/folder");
        let ran = run(spec).await;
        assert_eq!(
            ran.exit,
            Exit::SpawnFailed("No such file or directory (os error 2)".into())
        );
        let mut spec = shell("true", &[]);
        spec.program = "/no/such/program".into();
        assert_eq!(
            run(spec).await.exit,
            Exit::SpawnFailed("No such file or directory (os error 2)".into())
        );
    }

    /// A relative folder is the agent's, whichever process starts the program (the keeper
    /// runs in `/`).
    #[tokio::test]
    async fn a_relative_folder_is_the_agent_s() {
        let mut spec = shell("pwd", &[]);
        spec.cwd = PathBuf::from(".");
        let ran = run(spec).await;
        assert_eq!(ran.exit, Exit::Code(0));
        let here = std::env::current_dir().expect("a current folder");
        assert_eq!(
            String::from_utf8_lossy(&ran.stdout).trim(),
            here.to_string_lossy()
        );
    }

    /// A run dropped before its process ended kills it and reaps it: no zombie is left.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_dropped_run_leaves_no_zombie() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let file = dir.path().join("pid");
        let script = format!("echo $$ > '{}'; exec sleep 30", file.display());
        let ran = run(shell(&script, &[]));
        let pid = tokio::select! {
            _ = ran => panic!("sleep 30 ended"),
            pid = async {
                loop {
                    let text = std::fs::read_to_string(&file).unwrap_or_default();
                    if let Ok(pid) = text.trim().parse::<u32>() {
                        break pid;
                    }
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
            } => pid,
        };
        // The run was dropped by the select: its process is killed and, soon, reaped.
        let stat = format!("/proc/{pid}/stat");
        for _ in 0..500 {
            if !std::path::Path::new(&stat).exists() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("{}", std::fs::read_to_string(&stat).unwrap_or_default());
    }
}
