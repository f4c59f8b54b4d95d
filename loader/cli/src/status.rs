//! `agent-hooks status`: one short line for a person, or for an agent's status line: how
//! many hooks run here (and how many observe), how many problems stand in their way, whether
//! the resident process is up, which agents are wired, and the last block recorded (UTC).
//! Never the model's business: nothing of it reaches an agent but where the user shows it.

use std::{os::unix::net::UnixStream, path::PathBuf, process::ExitCode};

use serde_json::json;

use crate::{
    install,
    options::{Common, Outcome},
    relay,
    session::Session,
};

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
pub fn run(common: &Common) -> Outcome {
    let session = Session::open(common)?;
    let hooks = session.runner.hooks().len() + session.runner.command_hooks().hooks().count();
    let problems = session.load_failures().len();
    let untrusted = session.findings.untrusted.len();
    let up = resident_up();
    let observing = session
        .runner
        .hooks()
        .iter()
        .filter(|h| h.is_observing())
        .count()
        + session
            .runner
            .command_hooks()
            .hooks()
            .filter(|h| h.observe)
            .count();
    let last_block = crate::decisions::show::last_block();
    let wired: Vec<&str> = install::wired(common)
        .iter()
        .map(|(agent, _)| agent.title())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    if common.json {
        outln!(
            "{}",
            json!({"hooks": hooks, "problems": problems, "awaiting_trust": untrusted,
            "resident": up, "wired": wired, "observing": observing,
            "last_block": last_block.as_ref().map(|r| json!({
                "time": r.time, "agent": r.agent, "tool": r.tool, "reason": r.reason,
            }))})
        );
        return Ok(ExitCode::SUCCESS);
    }
    let mut parts = vec![count(hooks, "hook")];
    if observing > 0 {
        parts.push(format!("{observing} observing"));
    }
    if problems > 0 {
        parts.push(format!(
            "{} (agent-hooks doctor)",
            count(problems, "problem")
        ));
    }
    if untrusted > 0 {
        parts.push(format!("{untrusted} awaiting trust (agent-hooks trust)"));
    }
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
    if let Some(block) = last_block {
        let time = block.time.get(11..16).unwrap_or_default();
        let reason = crate::decisions::show::one_line(block.reason.as_deref().unwrap_or(""), 60);
        parts.push(format!(
            "last block {time} {}: {reason}",
            block.tool.as_deref().unwrap_or(&block.event)
        ));
    }
    outln!("agent-hooks: {}", parts.join(" · "));
    Ok(ExitCode::SUCCESS)
}
