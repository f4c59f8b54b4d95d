use std::{
    io::Read,
    os::unix::process::CommandExt,
    path::Path,
    process::{Command, Stdio},
    sync::mpsc,
    thread,
    time::{Duration, Instant},
};

use agent_hooks_abi::{ExecOptions, ExecOutput};
use nix::{
    sys::signal::{killpg, Signal},
    unistd::Pid,
};

/// Runs `command` with `args` (no shell) in `options.cwd` or `default_cwd`, waits for it,
/// and when `options.timeout` passes kills it with everything it started (it runs in a
/// process group of its own; `killed` is then true).
pub fn exec(
    command: &str,
    args: &[&str],
    options: &ExecOptions,
    default_cwd: &Path,
) -> std::io::Result<ExecOutput> {
    let mut child = Command::new(command)
        .args(args)
        .process_group(0)
        .current_dir(options.cwd.as_deref().unwrap_or(default_cwd))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let stdout = child.stdout.take().map(read_in_background);
    let stderr = child.stderr.take().map(read_in_background);

    let deadline = options.timeout.map(|t| Instant::now() + t);
    let mut killed = false;
    let mut pause = Duration::from_millis(1);
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            match i32::try_from(child.id()) {
                Ok(id) => {
                    let _ = killpg(Pid::from_raw(id), Signal::SIGKILL);
                }
                Err(_) => child.kill()?,
            }
            killed = true;
            break child.wait()?;
        }
        thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(20));
    };
    // A background child of the program may keep a pipe open: wait a moment, not forever.
    let collect = |reader: Option<mpsc::Receiver<Vec<u8>>>| {
        reader
            .and_then(|r| r.recv_timeout(Duration::from_millis(500)).ok())
            .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
            .unwrap_or_default()
    };
    Ok(ExecOutput {
        stdout: collect(stdout),
        stderr: collect(stderr),
        code: status.code(),
        killed,
    })
}

fn read_in_background(mut pipe: impl Read + Send + 'static) -> mpsc::Receiver<Vec<u8>> {
    let (sender, receiver) = mpsc::channel();
    thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        let _ = sender.send(bytes);
    });
    receiver
}
