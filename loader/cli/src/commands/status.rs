//! `agent-hooks status`: one short line for a person, or for an agent's status line: how
//! many hooks run here (and how many observe), how many problems stand in their way, whether
//! the resident process is up, which agents are wired, and the last block recorded (UTC).
//! Never the model's business: nothing of it reaches an agent but where the user shows it.
//!
//! With `--agent NAME` it is that agent's status line (`install --status-line` writes it
//! for an agent whose profile names a `status_line` key): it reads the agent's status input
//! on stdin and asks the resident process how the session stands, finding and loading
//! nothing itself, so that it costs the agent a round trip on a socket each time the line
//! is drawn.

use std::{
    io::{IsTerminal, Read},
    os::unix::net::UnixStream,
    path::PathBuf,
    process::ExitCode,
    time::Duration,
};

use agent_hooks::agents::Agent;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::{
    options::{Common, Outcome},
    relay,
    session::Session,
};

/// `status`'s options.
#[derive(Debug, Clone, clap::Args)]
pub struct StatusArgs {
    /// Be this agent's status line: read its status input on stdin and ask the resident
    /// process how the session stands (nothing is discovered or loaded).
    #[arg(
        long,
        value_name = "NAME",
        value_parser = crate::options::agent_names(),
        ignore_case = true,
    )]
    pub agent: Option<Agent>,
}

/// How a session's hooks stand.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Figures {
    /// The resident process serves the session.
    pub session: bool,
    /// Hooks that run.
    pub hooks: usize,
    /// Of them, those that observe.
    pub observing: usize,
    /// Hooks that failed to load.
    pub problems: usize,
    /// Project files that wait for the user's trust.
    pub awaiting_trust: usize,
}

impl Figures {
    /// The figures of `session`.
    pub fn of(session: &Session) -> Figures {
        let commands = session.runner.command_hooks();
        Figures {
            session: true,
            hooks: session.runner.hooks().len() + commands.hooks().count(),
            observing: session
                .runner
                .hooks()
                .iter()
                .filter(|h| h.is_observing())
                .count()
                + commands.hooks().filter(|h| h.observe).count(),
            problems: session.load_failures().len(),
            awaiting_trust: session.findings.untrusted.len(),
        }
    }

    /// Its parts of the line.
    fn parts(&self) -> Vec<String> {
        let mut parts = vec![count(self.hooks, "hook")];
        if self.observing > 0 {
            parts.push(format!("{} observing", self.observing));
        }
        if self.problems > 0 {
            parts.push(format!(
                "{} (agent-hooks doctor)",
                count(self.problems, "problem")
            ));
        }
        if self.awaiting_trust > 0 {
            parts.push(format!(
                "{} awaiting trust (agent-hooks trust)",
                self.awaiting_trust
            ));
        }
        parts
    }
}

/// Whether this user's resident process answers on its socket.
fn resident_up() -> bool {
    let Ok((home, xdg)) = relay::user() else {
        return false;
    };
    let socket: PathBuf = relay::folder(&home, xdg.as_deref()).join(relay::SOCKET);
    UnixStream::connect(socket).is_ok()
}

/// `n` and `word`, `s` added past one.
fn count(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// Prints the line (or, with `--json`, its parts); exit 0 whatever it says.
pub fn run(common: &Common, args: &StatusArgs) -> Outcome {
    if let Some(agent) = args.agent {
        return status_line(agent);
    }
    let session = Session::open(common)?;
    let figures = Figures::of(&session);
    let up = resident_up();
    let last_block = crate::commands::log::last_block();
    let wired: Vec<&str> = crate::entries::wired::wired(common)
        .iter()
        .map(|(agent, _)| agent.title())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    if common.json {
        outln!(
            "{}",
            json!({"hooks": figures.hooks, "problems": figures.problems,
            "awaiting_trust": figures.awaiting_trust,
            "resident": up, "wired": wired, "observing": figures.observing,
            "last_block": last_block.as_ref().map(|r| json!({
                "time": r.time, "agent": r.agent, "tool": r.tool, "reason": r.reason,
            }))})
        );
        return Ok(ExitCode::SUCCESS);
    }
    let mut parts = figures.parts();
    parts.push(
        if up {
            "resident up"
        } else {
            "resident not running"
        }
        .to_owned(),
    );
    parts.push(if wired.is_empty() {
        "no agent wired".to_owned()
    } else {
        format!("wired: {}", wired.join(", "))
    });
    parts.extend(last_block_part());
    outln!("agent-hooks: {}", parts.join(" · "));
    Ok(ExitCode::SUCCESS)
}

/// The last block recorded, as the line says it.
fn last_block_part() -> Option<String> {
    let block = crate::commands::log::last_block()?;
    let time = block.time.get(11..16).unwrap_or_default();
    let reason = crate::decisions::line::one_line(block.reason.as_deref().unwrap_or(""), 60);
    Some(format!(
        "last block {time} {}: {reason}",
        block.tool.as_deref().unwrap_or(&block.event)
    ))
}

/// The most of the agent's status input read.
const INPUT_LIMIT: u64 = 1 << 20;

/// How long the resident process has to say how the session stands.
const ASK_LIMIT: Duration = Duration::from_secs(2);

/// `agent`'s status line: the session's figures from the resident process, and the last
/// block recorded. Whatever fails is said on the line itself, where the user looks.
fn status_line(agent: Agent) -> Outcome {
    let mut input = Vec::new();
    if !std::io::stdin().is_terminal() {
        let _ = std::io::stdin()
            .lock()
            .take(INPUT_LIMIT)
            .read_to_end(&mut input);
    }
    let said: Value = serde_json::from_slice(&input).unwrap_or(Value::Null);
    let cwd = ["cwd", "/workspace/current_dir"]
        .iter()
        .find_map(|at| {
            let value = if at.starts_with('/') {
                said.pointer(at)
            } else {
                said.get(at)
            };
            value.and_then(Value::as_str).map(PathBuf::from)
        })
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_default();
    let mut parts = match ask_resident(agent, cwd, &input) {
        Ok(figures) if figures.session => figures.parts(),
        Ok(_) => vec!["waiting for this session's first event".to_owned()],
        Err(why) if why == "not running" => {
            vec!["not running (the session's next event starts it)".to_owned()]
        }
        Err(why) => vec![format!(
            "the resident process did not say ({why}; agent-hooks doctor)"
        )],
    };
    parts.extend(last_block_part());
    outln!("agent-hooks: {}", parts.join(" · "));
    Ok(ExitCode::SUCCESS)
}

/// The figures of the session the resident process serves for `agent` in `cwd` (the one
/// the status input names, when it serves several).
fn ask_resident(agent: Agent, cwd: PathBuf, input: &[u8]) -> Result<Figures, String> {
    let (home, xdg) = relay::user()?;
    let header = relay::Header {
        v: relay::VERSION,
        agent: agent.hook_name().into(),
        event: None,
        with: Vec::new(),
        home,
        xdg_config_home: xdg,
        cwd,
        hooks: Vec::new(),
        no_discover: false,
        trust_project: false,
        required: Vec::new(),
        in_process: false,
        env: None,
        // Any resident process answers: a status request never makes one give way.
        program: None,
        agent_pid: None,
        status: true,
        length: None,
        ui: None,
        keep: false,
    };
    let reply = relay::ask_running(&header, input, ASK_LIMIT)?;
    serde_json::from_str(&reply.stdout).map_err(|e| format!("its answer is not readable: {e}"))
}
