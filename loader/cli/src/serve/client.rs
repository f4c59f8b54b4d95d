//! `hook`'s side: one request to the resident process, which is started when it is not
//! running. Any failure is an error the caller answers by running the hooks itself.

use std::{
    io::{BufRead, BufReader, Read, Write},
    os::unix::{net::UnixStream, process::CommandExt},
    path::{Path, PathBuf},
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use super::wire::{self, Header, REPLY_LIMIT, VERSION};
use crate::{
    hook::{HookArgs, Reply},
    Common,
};

/// How long a client waits for a resident process it started to listen.
const START_WAIT: Duration = Duration::from_secs(3);

/// The longest a call may take before the client gives up on the resident process (the
/// agent bounds the whole command anyway; this bounds a process that stopped answering).
const CALL_LIMIT: Duration = Duration::from_secs(600);

fn user() -> Result<(PathBuf, Option<PathBuf>), String> {
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .filter(|h| h.is_absolute())
        .ok_or("HOME is not set")?;
    let xdg = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute());
    Ok((home, xdg))
}

/// Sends one event to the resident process and gives its answer.
pub fn ask(common: &Common, args: &HookArgs, payload: &[u8]) -> Result<Reply, String> {
    let (home, xdg) = user()?;
    let cwd = match &common.cwd {
        Some(dir) => std::path::absolute(dir).map_err(|e| e.to_string())?,
        None => std::env::current_dir().map_err(|e| e.to_string())?,
    };
    let header = Header {
        v: VERSION,
        agent: args.agent.name().into(),
        event: args.event.clone(),
        with: args.with.iter().map(|a| a.name().to_owned()).collect(),
        home: home.clone(),
        xdg_config_home: xdg.clone(),
        cwd,
        hooks: common.hooks.clone(),
        no_discover: common.no_discover,
        trust_project: common.trust_project,
        required: common.required.clone(),
        in_process: common.in_process,
    };
    let folder = wire::folder(&home, xdg.as_deref());
    let socket = folder.join(wire::SOCKET);
    let stream = match UnixStream::connect(&socket) {
        Ok(stream) => stream,
        Err(_) => {
            start(&folder)?;
            wait_for(&socket)?
        }
    };
    exchange(stream, &header, payload)
}

fn exchange(mut stream: UnixStream, header: &Header, payload: &[u8]) -> Result<Reply, String> {
    stream
        .set_read_timeout(Some(CALL_LIMIT))
        .and_then(|_| stream.set_write_timeout(Some(CALL_LIMIT)))
        .map_err(|e| e.to_string())?;
    let mut line = serde_json::to_vec(header).map_err(|e| e.to_string())?;
    line.push(b'\n');
    stream
        .write_all(&line)
        .and_then(|_| stream.write_all(payload))
        .and_then(|_| stream.shutdown(std::net::Shutdown::Write))
        .map_err(|e| format!("sending the event: {e}"))?;
    let mut answer = Vec::new();
    BufReader::new(stream.take(REPLY_LIMIT as u64 + 1))
        .read_until(b'\n', &mut answer)
        .map_err(|e| format!("reading the answer: {e}"))?;
    if answer.is_empty() {
        return Err("it closed the connection without an answer".into());
    }
    if answer.len() > REPLY_LIMIT {
        return Err(format!("its answer is larger than {REPLY_LIMIT} bytes"));
    }
    serde_json::from_slice(&answer).map_err(|e| format!("its answer is not readable: {e}"))
}

/// Starts `agent-hooks serve` in a process group of its own (so that the agent ending the
/// hook's group does not end it), its output to a log in `folder`.
fn start(folder: &Path) -> Result<(), String> {
    let program = std::env::current_exe().map_err(|e| e.to_string())?;
    super::make_folder(folder)?;
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(folder.join("serve.log"))
        .map_err(|e| e.to_string())?;
    let mut command = Command::new(program);
    command.arg("serve");
    if let Some(idle) = std::env::var_os("AGENT_HOOKS_SERVE_IDLE") {
        command.arg("--idle").arg(idle);
    }
    command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .process_group(0)
        .spawn()
        .map(drop)
        .map_err(|e| format!("starting it: {e}"))
}

fn wait_for(socket: &Path) -> Result<UnixStream, String> {
    let started = Instant::now();
    loop {
        match UnixStream::connect(socket) {
            Ok(stream) => return Ok(stream),
            Err(e) if started.elapsed() > START_WAIT => {
                return Err(format!(
                    "it did not listen on {} within {START_WAIT:?}: {e}",
                    socket.display()
                ))
            }
            Err(_) => std::thread::sleep(Duration::from_millis(5)),
        }
    }
}
