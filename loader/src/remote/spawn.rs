//! Starting plugin processes: which program, and from which thread.

use std::{
    path::Path,
    process::{Child, ChildStderr, ChildStdin, ChildStdout, Command, Stdio},
    sync::{mpsc, Mutex, OnceLock},
    thread,
};

use crate::sync::LockUnpoisoned;

/// Set in a plugin process's environment; `serve_if_plugin_process` looks for it.
pub(crate) const CHILD_MARKER: &str = "AGENT_HOOKS_PLUGIN_PROCESS";

pub use crate::supervisor::program::PLUGIN_HOST_ENV;
pub(crate) use crate::supervisor::program::{plugin_host_program, SELF_SERVES};

type Job = (Command, mpsc::Sender<std::io::Result<Child>>);

/// A started process: its id and its pipes.
pub(crate) struct Spawned {
    pub pid: i32,
    pub stdin: ChildStdin,
    pub stdout: ChildStdout,
    pub stderr: ChildStderr,
}

/// Starts `command` (its program, arguments, folder and variables; stdin, stdout and stderr
/// piped, in a process group of its own): through the keeper where a subreaper keeper runs
/// (`supervisor/keeper/`), else from [`spawn_here`]'s thread.
/// `memory` limits its data (0: no limit), see `supervisor/memory.rs`.
pub(crate) fn spawn(mut command: Command, memory: u64) -> std::io::Result<Spawned> {
    if let Some(spawned) = through_keeper(&command, memory)? {
        crate::supervisor::memory::record(spawned.pid, memory);
        return Ok(spawned);
    }
    crate::sys::process::limit_memory(&mut command, memory);
    let mut child = spawn_here(command)?;
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err(std::io::Error::other("the process has no pipes"));
    };
    let pid = i32::try_from(child.id()).unwrap_or(i32::MAX);
    crate::supervisor::memory::record(pid, memory);
    // Reaped by its connection's reader, never through `child`.
    drop(child);
    Ok(Spawned {
        pid,
        stdin,
        stdout,
        stderr,
    })
}

/// `command` started by the keeper, `None` where no subreaper keeper runs. The shell is
/// started under its name (`sh`), as [`script`] asks.
fn through_keeper(command: &Command, memory: u64) -> std::io::Result<Option<Spawned>> {
    use crate::supervisor::keeper;
    use std::os::fd::AsFd;
    if !keeper::starts_processes() {
        return Ok(None);
    }
    let program = command.get_program().to_owned();
    let mut set = Vec::new();
    let mut removed = Vec::new();
    for (name, value) in command.get_envs() {
        match value {
            Some(value) => set.push((name.to_owned(), value.to_owned())),
            None => removed.push(name.to_owned()),
        }
    }
    let request = keeper::wire::Request {
        arg0: if program == crate::supervisor::SHELL {
            crate::supervisor::SHELL_NAME.into()
        } else {
            program.clone()
        },
        program,
        args: command.get_args().map(ToOwned::to_owned).collect(),
        // The keeper runs in `/`: the folder is made absolute against the agent's.
        cwd: std::path::absolute(command.get_current_dir().unwrap_or(Path::new(".")))?
            .into_os_string(),
        set: &set,
        removed: &removed,
        inherit: true,
        stdin: true,
        memory,
    };
    let pipe = crate::sys::pipe::cloexec;
    let (stdin_child, stdin) = pipe()?;
    let (stdout, stdout_child) = pipe()?;
    let (stderr, stderr_child) = pipe()?;
    let fds = [
        stdin_child.as_fd(),
        stdout_child.as_fd(),
        stderr_child.as_fd(),
    ];
    let Some(started) = keeper::start(&request, &fds) else {
        return Ok(None);
    };
    let pid = started?;
    Ok(Some(Spawned {
        pid,
        stdin: ChildStdin::from(stdin),
        stdout: ChildStdout::from(stdout),
        stderr: ChildStderr::from(stderr),
    }))
}

/// Spawns `command` from one long-lived thread. On Linux a plugin process asks to be killed
/// when the thread that started it ends (`PR_SET_PDEATHSIG` is tied to that thread, not to
/// the process): starting every plugin process from a thread that lives as long as the
/// agent makes that mean "when the agent ends".
fn spawn_here(command: Command) -> std::io::Result<Child> {
    static SPAWNER: OnceLock<Mutex<mpsc::Sender<Job>>> = OnceLock::new();
    let spawner = SPAWNER.get_or_init(|| {
        let (jobs, receiver) = mpsc::channel::<Job>();
        thread::Builder::new()
            .name("agent-hooks-spawner".into())
            .spawn(move || {
                for (mut command, reply) in receiver {
                    let _ = reply.send(command.spawn());
                }
            })
            .map(|_| ())
            .unwrap_or(());
        Mutex::new(jobs)
    });
    let (reply, result) = mpsc::channel();
    let sent = spawner.lock_unpoisoned().send((command, reply));
    match sent {
        Ok(()) => result
            .recv()
            .unwrap_or_else(|_| Err(std::io::Error::other("the spawner thread is gone"))),
        Err(mpsc::SendError((mut command, _))) => command.spawn(),
    }
}

/// The command for a plugin process: the program, in its own process group, with the
/// protocol on stdin/stdout and its stderr kept by the agent.
pub(crate) fn command(program: &Path, cwd: &Path) -> Command {
    use std::os::unix::process::CommandExt;
    let mut command = Command::new(program);
    command
        .env(CHILD_MARKER, "1")
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    crate::supervisor::keeper::mark_command(&mut command);
    command
}

/// The command for a long-running hook: `/bin/sh -c command`, in its own process group, with the
/// protocol on stdin/stdout and its stderr kept by the agent. On Linux it is killed when the
/// agent ends (see [`spawn`]); what it starts in turn is in its group, which the agent kills
/// when it lets the hook go.
pub(crate) fn script(command: &str, env: &[(String, String)], cwd: &Path) -> Command {
    use std::os::unix::process::CommandExt;
    let mut shell = Command::new(crate::supervisor::SHELL);
    shell
        .arg0(crate::supervisor::SHELL_NAME)
        .arg("-c")
        .arg(command)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    crate::supervisor::keeper::mark_command(&mut shell);
    crate::sys::process::die_with_parent(&mut shell);
    shell
}
