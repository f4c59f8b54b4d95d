//! Starting plugin processes: which program, and from which thread.

use std::{
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    sync::{
        atomic::{AtomicBool, Ordering},
        mpsc, Mutex, OnceLock,
    },
    thread,
};

use crate::sync::LockUnpoisoned;

/// Set in a plugin process's environment; `serve_if_plugin_process` looks for it.
pub(crate) const CHILD_MARKER: &str = "AGENT_HOOKS_PLUGIN_PROCESS";

/// Names the plugin-host program, overriding the default lookup.
pub const PLUGIN_HOST_ENV: &str = "AGENT_HOOKS_PLUGIN_HOST";

/// The program's file name next to the agent: the `agent-hooks` command.
const PROGRAM: &str = "agent-hooks";

/// Whether this program serves plugin processes itself (it called
/// `serve_if_plugin_process` at start).
pub(crate) static SELF_SERVES: AtomicBool = AtomicBool::new(false);

/// The program that runs plugin processes: `explicit`, else `$AGENT_HOOKS_PLUGIN_HOST`, else
/// this program if it serves them, else `agent-hooks` next to this program (or one folder
/// up, for test binaries in cargo's `deps/`).
pub(crate) fn plugin_host_program(explicit: Option<&Path>) -> Result<PathBuf, String> {
    if let Some(path) = explicit {
        return Ok(path.to_path_buf());
    }
    if let Some(path) = std::env::var_os(PLUGIN_HOST_ENV).filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(path));
    }
    let exe =
        std::env::current_exe().map_err(|e| format!("cannot tell which program this is ({e})"))?;
    if SELF_SERVES.load(Ordering::Relaxed) {
        return Ok(exe);
    }
    let name = format!("{PROGRAM}{}", std::env::consts::EXE_SUFFIX);
    let folder = exe.parent();
    folder
        .into_iter()
        .chain(folder.and_then(Path::parent))
        .map(|f| f.join(&name))
        .find(|candidate| candidate.is_file())
        .ok_or_else(|| {
            format!(
                "no plugin-host program: {name} is not next to {} and {PLUGIN_HOST_ENV} is not set (install the agent-hooks command beside the agent, set {PLUGIN_HOST_ENV}, call agent_hooks::isolation::serve_if_plugin_process() at the start of the agent's main, or load plugins in process)",
                exe.display()
            )
        })
}

type Job = (Command, mpsc::Sender<std::io::Result<Child>>);

/// Spawns `command` from one long-lived thread. On Linux a plugin process asks to be killed
/// when the thread that started it ends (`PR_SET_PDEATHSIG` is tied to that thread, not to
/// the process): starting every plugin process from a thread that lives as long as the
/// agent makes that mean "when the agent ends".
pub(crate) fn spawn(command: Command) -> std::io::Result<Child> {
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
