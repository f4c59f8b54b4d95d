//! `agent-hooks-hook --agent NAME [--event E] [--with AGENTS]`: the small program an agent
//! runs for its events when it is installed next to `agent-hooks` (`cargo install` puts both
//! in the same folder). It does what `agent-hooks hook` does through the resident process,
//! without starting the whole program: it reads the payload, sends it to the resident process
//! (starting `agent-hooks serve` when nobody listens) and relays the answer. For anything
//! else (other options, a payload past the limit, a resident process that cannot answer) it
//! runs `agent-hooks hook` with the same arguments and the same payload, so that an answer
//! is never lost.

#[allow(dead_code)]
mod bounded;
#[allow(dead_code)]
mod relay;

use std::{
    io::Write,
    path::PathBuf,
    process::{Command, ExitCode, Stdio},
};

/// `agent-hooks` in this program's folder, or on the `PATH`.
fn program() -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|p| p.parent().map(|d| d.join("agent-hooks")))
        .filter(|p| p.is_file())
        .unwrap_or_else(|| PathBuf::from("agent-hooks"))
}

/// The arguments this program reads itself; `None` for anything else.
fn parse(args: &[String]) -> Option<(String, Option<String>, Vec<String>)> {
    let (mut agent, mut event, mut with) = (None, None, Vec::new());
    let mut i = 0;
    while i < args.len() {
        let value = args.get(i + 1).cloned();
        match args[i].as_str() {
            "--agent" => agent = Some(value?),
            "--event" => event = Some(value?),
            "--with" => with.extend(value?.split(',').map(str::to_owned)),
            _ => return None,
        }
        i += 2;
    }
    Some((agent?, event, with))
}

/// The agents (by `--agent` name) whose hooks fail open with exit 0, as their profiles'
/// `fail_open_exit` say: the relay does not link the library, so it keeps them here, and a
/// test holds this list to the profiles. Copilot CLI denies the tool on any other exit of a
/// `preToolUse` hook, Factory Droid shows the stderr of an exit 1 to the model, and Cline
/// reads no exit code.
const FAIL_OPEN_WITH_0: [&str; 3] = ["copilot", "droid", "cline"];

/// The exit of a problem that blocks nothing, as the agent's own hooks fail: 1, or 0 under
/// the agents of [`FAIL_OPEN_WITH_0`].
fn open_failure(args: &[String]) -> ExitCode {
    let agent = args
        .iter()
        .enumerate()
        .find_map(|(i, a)| match a.strip_prefix("--agent") {
            Some("") => args.get(i + 1).map(String::as_str),
            Some(rest) => rest.strip_prefix('='),
            None => None,
        });
    let zero = agent.is_some_and(|name| FAIL_OPEN_WITH_0.contains(&name));
    ExitCode::from(if zero { 0 } else { 1 })
}

/// Runs `agent-hooks hook ARGS` with `payload` (and the rest of stdin) as its input.
fn in_full(args: &[String], payload: &[u8], note: Option<String>) -> ExitCode {
    let mut command = Command::new(program());
    command.arg("hook").args(args);
    if note.is_some() {
        command.arg("--no-serve");
    }
    let child = command.stdin(Stdio::piped()).spawn();
    let mut child = match child {
        Ok(child) => child,
        Err(e) => {
            eprintln!(
                "agent-hooks-hook: hooks did not run: {} could not start: {e}",
                program().display()
            );
            return open_failure(args);
        }
    };
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(payload);
        let _ = std::io::copy(&mut std::io::stdin().lock(), &mut stdin);
    }
    let code = child.wait().ok().and_then(|s| s.code()).unwrap_or(1);
    if let Some(note) = note {
        eprintln!("agent-hooks: the resident process could not answer ({note}); the hooks ran in agent-hooks");
    }
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let payload = match relay::read_bounded(&mut std::io::stdin().lock()) {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(bytes)) => return in_full(&args, &bytes, None),
        // agent-hooks reads stdin again and answers, blocking if a required hook would run.
        Err(e) => {
            eprintln!("agent-hooks-hook: the payload could not be read from stdin: {e}");
            return in_full(&args, &[], None);
        }
    };
    let parsed = parse(&args);
    let no_serve = std::env::var_os("AGENT_HOOKS_NO_SERVE").is_some();
    let (Some((agent, event, with)), false) = (parsed, no_serve) else {
        return in_full(&args, &payload, None);
    };
    let header = relay::user().and_then(|(home, xdg)| {
        Ok(relay::Header {
            v: relay::VERSION,
            agent,
            event,
            with,
            home,
            xdg_config_home: xdg,
            cwd: std::env::current_dir().map_err(|e| e.to_string())?,
            hooks: Vec::new(),
            no_discover: false,
            trust_project: false,
            required: Vec::new(),
            in_process: false,
            env: Some(relay::environment()),
            agent_pid: relay::agent_pid(),
            status: false,
            length: None,
            ui: None,
            keep: false,
            program: Some(relay::program_version()),
        })
    });
    match header.and_then(|h| relay::ask(&h, &payload, &program())) {
        Ok(reply) => reply.deliver(),
        Err(note) => in_full(&args, &payload, Some(note)),
    }
}

#[cfg(test)]
mod tests {
    use agent_hooks::agents::Agent;

    use super::*;

    #[test]
    fn the_agents_that_fail_open_with_0_are_those_whose_profiles_say_so() {
        let mut from_profiles: Vec<&str> = Agent::ALL
            .into_iter()
            .map(|a| a.profile())
            .filter(|p| p.fail_open_exit == 0)
            .filter_map(|p| p.hook_name)
            .collect();
        from_profiles.sort_unstable();
        let mut here = FAIL_OPEN_WITH_0.to_vec();
        here.sort_unstable();
        assert_eq!(here, from_profiles);
        for agent in Agent::ALL {
            let profile = agent.profile();
            let Some(name) = profile.hook_name else {
                continue;
            };
            for args in [
                vec!["--agent".to_owned(), name.to_owned()],
                vec![
                    format!("--agent={name}"),
                    "--event".to_owned(),
                    "x".to_owned(),
                ],
            ] {
                let expected = ExitCode::from(profile.fail_open_exit);
                assert_eq!(open_failure(&args), expected, "{args:?}");
            }
        }
    }
}
