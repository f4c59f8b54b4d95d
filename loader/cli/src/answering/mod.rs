//! An agent's event answered, the same way by `hook` in its own process and by the resident
//! process: the request read, the session's hooks run, the answer written as the calling
//! agent reads it and recorded; and the answers when the hooks could not run.
//!
//! - `request`: the event as the agent sends it.
//! - `answer`: the combined outcome handed to the agent's room to be written.
//! - `held`: sessions stopped because a required hook cannot run in them.

mod answer;
mod held;
#[cfg(test)]
mod mutations;
pub mod request;

use std::path::PathBuf;

use agent_hooks::HookRunner;

use crate::{
    decisions::{self, AnsweredBy},
    event_io,
    hook_session::{open, HookArgs},
    options::Common,
    relay::Reply,
    session::{Records, Session},
};
use agent_hooks::agents::{Agent, Decision};
use request::{Request, RequestError};

/// Runs `request` in this process and gives the agent's answer. A request that could not be
/// read is a non-blocking error, unless a required hook would have run: then it blocks.
pub fn answer_here(
    common: &Common,
    args: &HookArgs,
    request: Result<Request, RequestError>,
) -> Reply {
    let mut common = common.clone();
    if common.cwd.is_none() {
        common.cwd = request
            .as_ref()
            .ok()
            .and_then(|r| r.cwd.clone())
            .filter(|cwd| cwd.is_dir());
    }
    let session = match open(&common, args) {
        Ok(session) => session,
        Err(error) => {
            return did_not_run(
                args.agent,
                &common.required,
                "agent-hooks hook",
                &error,
                AnsweredBy::Relay,
            );
        }
    };
    match request {
        Ok(request) => match crate::runtime::build() {
            Ok(runtime) => answer_with(&session, &runtime, args.agent, &request, None),
            Err(error) => did_not_run(
                args.agent,
                &required_hooks(&session, &common),
                "agent-hooks hook",
                &error,
                AnsweredBy::Relay,
            ),
        },
        Err(error) => unreadable(&session, &common, args.agent, &error, AnsweredBy::Relay),
    }
}

/// The exit code of a problem that blocks nothing, as the calling agent's own hooks fail
/// open (1, a non-blocking error, for most; its profile's `fail_open_exit`).
pub fn open_failure_code(agent: Agent) -> u8 {
    agent.profile().fail_open_exit
}

/// The answer when the hooks could not run at all (`error`: the session or the runtime
/// could not be made; `who` says which program): the way the calling agent's own hooks
/// fail ([`open_failure_code`]), unless a hook in `required` would have run: then it
/// blocks, with what to do.
pub fn did_not_run(
    agent: Agent,
    required: &[String],
    who: &str,
    error: &dyn std::fmt::Display,
    by: AnsweredBy,
) -> Reply {
    let mut reply = did_not_run_reply(agent, required, who, error);
    // No session: the user's settings, without the managed policy's (discovery failed).
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let config_dir = agent_hooks::DiscoveryOptions::new(".").config_dir();
    let settings = decisions::Settings::read(&config_dir, home.as_deref(), None);
    let recorded = record_unanswered(&settings, agent, &reply, "(hooks did not run)", by, error);
    if let Err(problem) = recorded {
        reply.note(&format!("agent-hooks: {problem}"));
    }
    reply
}

/// Records an event whose hooks did not run (`without_request` says why): its answer
/// `reply`, a block when it blocked (a required hook would have run), and `error`.
fn record_unanswered(
    settings: &decisions::Settings,
    agent: Agent,
    reply: &Reply,
    without_request: &'static str,
    by: AnsweredBy,
    error: &dyn std::fmt::Display,
) -> Result<(), String> {
    let blocked = reply.code == 2;
    let decision = Decision {
        block: blocked.then(|| reply.stderr.trim_end().to_owned()),
        ..Decision::default()
    };
    decisions::write(
        settings,
        decisions::Answered {
            agent,
            event: None,
            without_request,
            decision: &decision,
            code: reply.code,
            by,
            problems: &[error.to_string()],
            hooks: Vec::new(),
            required: blocked,
        },
    )
}

fn did_not_run_reply(
    agent: Agent,
    required: &[String],
    who: &str,
    error: &dyn std::fmt::Display,
) -> Reply {
    if required.is_empty() {
        return Reply {
            code: open_failure_code(agent),
            stdout: String::new(),
            stderr: format!("{who}: hooks did not run: {error}\n"),
        };
    }
    Reply {
        code: 2,
        stdout: String::new(),
        stderr: format!(
            "Blocked by agent-hooks: hooks did not run ({error}), so the required hook {} \
             could not run. Run `agent-hooks doctor` to see why, or remove the requirement.\n",
            required.join(", ")
        ),
    }
}

/// The required hooks of `session` and those `common` requires by name.
fn required_hooks(session: &Session, common: &Common) -> Vec<String> {
    session
        .findings
        .required_failures
        .iter()
        .map(|f| f.id.clone())
        .chain(common.required.iter().cloned())
        .chain(
            session
                .runner
                .command_hooks()
                .hooks()
                // A hook required because `--require` names its file is named by that.
                .filter(|h| h.required && !common.required.iter().any(|id| h.source.ends_with(id)))
                .map(|h| format!("{} ({})", h.kind.label(), h.source.display())),
        )
        .collect()
}

/// Runs one readable request through `session` and gives the agent's answer. `env`: the
/// environment the agent gave the event, when this process is not the one it started (the
/// resident process): the hooks get it, as the agent's own would.
pub fn answer_with(
    session: &Session,
    runtime: &tokio::runtime::Runtime,
    agent: Agent,
    request: &Request,
    env: Option<&[(String, String)]>,
) -> Reply {
    let Ok(emitted) = event_io::parse_event(&request.event) else {
        // An event of the agent that agent-hooks has no moment for: nothing to run.
        return Reply::default();
    };
    let emit = event_io::emit(&session.runner, emitted, request.fields());
    let result = match env {
        Some(env) => runtime.block_on(HookRunner::with_agent_environment(env.to_vec(), emit)),
        None => runtime.block_on(emit),
    };
    let mut records = session.take_records();
    let mut load_failures = session.load_failures();
    load_failures.extend(awaiting_trust(session));
    // What stands (a file that does not load, hooks awaiting trust, what discovery warned
    // of, a hook that fails the same way each time) is told the user once per session, not
    // on every event.
    session.keep_untold(&mut load_failures, |(path, error)| {
        format!("{path}\n{error}")
    });
    let mut warnings = session.findings.warnings.clone();
    session.keep_untold(&mut warnings, String::clone);
    let standing: Vec<String> = load_failures
        .iter()
        .map(|(path, error)| format!("not loaded: {path}: {error}"))
        .chain(warnings)
        .collect();
    session.keep_untold(&mut records.errors, ToString::to_string);
    let (hooks, required) = hooks_of(session, &records);
    let mut unwired = answer::Unwired::default();
    if request.event == "SessionStart" {
        let common = Common {
            cwd: Some(session.cwd.clone()),
            ui: "no".into(),
            ..Common::default()
        };
        (unwired.lines, unwired.required) =
            crate::entries::sync::unwired_at_start(&common, agent, session);
        if let (true, Some(id)) = (unwired.required, &request.session_id) {
            if let Err(error) = held::hold(agent, id) {
                unwired.lines.push(format!(
                    "this session could not be marked to be stopped at its next events ({error}): stop it yourself"
                ));
            }
        }
    } else if let Some(id) = &request.session_id {
        unwired.required = held::is_held(agent, id);
    }
    let (mut reply, decision, problems) =
        answer::render(agent, request, result, &records, standing, unwired);
    let recorded = decisions::write(
        &session.decisions,
        decisions::Answered {
            agent,
            event: Some(recorded(request)),
            without_request: "",
            decision: &decision,
            code: reply.code,
            by: if env.is_some() {
                AnsweredBy::Resident
            } else {
                AnsweredBy::Relay
            },
            problems: &problems,
            hooks,
            required,
        },
    );
    tell_once(session, &mut reply, recorded.err());
    reply
}

/// The event of `request` as the decision record keeps it.
fn recorded(request: &Request) -> decisions::Event<'_> {
    let text = |key: &str| request.payload.get(key).and_then(serde_json::Value::as_str);
    decisions::Event {
        name: &request.event,
        session: request.session_id.as_deref(),
        project: request.cwd.as_deref(),
        tool: request.agent_tool.as_deref(),
        input: request.payload.get("tool_input"),
        agent_version: text("agent_version").or_else(|| text("version")),
    }
}

/// Each hook's part in the event `records` were taken for, and whether a required hook
/// that could not run decided it.
fn hooks_of(session: &Session, records: &Records) -> (Vec<decisions::HookRun>, bool) {
    let mut required = false;
    let mut runs: Vec<decisions::HookRun> = records
        .native
        .iter()
        .map(|timing| {
            let error = records
                .errors
                .iter()
                .find(|e| e.hook_path == timing.hook_path);
            required |= error.is_some_and(|e| e.message.contains("it is required"));
            decisions::HookRun::of_handler(timing, error)
        })
        .collect();
    let hooks = session.runner.command_hooks();
    for report in &records.reports {
        let hook = hooks
            .hooks()
            .find(|h| h.kind.label() == report.command && h.source == report.source);
        required |= hook.is_some_and(|h| h.required)
            && report.answer.failed
            && report.answer.block.is_some();
        runs.push(decisions::HookRun::of_command(
            report,
            hook.map(|h| &h.kind),
        ));
    }
    (runs, required)
}

/// Tells the user a problem of agent-hooks' own (the decision record's, its settings') once
/// per session: on stderr, which the agent shows the user, and in the resident process's
/// log.
fn tell_once(session: &Session, reply: &mut Reply, problem: Option<String>) {
    let mut problems: Vec<String> = session.decisions.problems.clone();
    problems.extend(problem);
    session.keep_untold(&mut problems, String::clone);
    for problem in problems {
        tracing::warn!("{problem}");
        reply.note(&format!("agent-hooks: {problem}"));
    }
}

/// The project's hooks that do not run until the user trusts them, as problems to tell.
fn awaiting_trust(session: &Session) -> Vec<(String, String)> {
    session
        .findings
        .untrusted
        .iter()
        .map(|u| {
            (
                u.entry.path.display().to_string(),
                format!(
                    "not trusted yet, so it does not run: run `agent-hooks trust` in {} to allow it",
                    session.cwd.display()
                ),
            )
        })
        .collect()
}

/// The answer when the agent's payload could not be read: the way the agent's own hooks
/// fail ([`open_failure_code`]), unless a required hook would have run: then it blocks.
pub fn unreadable(
    session: &Session,
    common: &Common,
    agent: Agent,
    error: &RequestError,
    by: AnsweredBy,
) -> Reply {
    let mut reply = unreadable_reply(session, common, agent, error);
    let recorded = record_unanswered(
        &session.decisions,
        agent,
        &reply,
        "(unreadable payload)",
        by,
        error,
    );
    tell_once(session, &mut reply, recorded.err());
    reply
}

fn unreadable_reply(
    session: &Session,
    common: &Common,
    agent: Agent,
    error: &RequestError,
) -> Reply {
    let required = required_hooks(session, common);
    if required.is_empty() {
        return Reply {
            code: open_failure_code(agent),
            stdout: String::new(),
            stderr: format!(
                "agent-hooks hook: hooks did not run: {error}; {} goes on without them\n",
                agent.title()
            ),
        };
    }
    Reply {
        code: 2,
        stdout: String::new(),
        stderr: format!(
            "Blocked by agent-hooks: {error}, so the required hook {} could not run. \
             Check that {} runs `agent-hooks hook --agent {}` for this event (see \
             `agent-hooks doctor`), or remove the requirement.\n",
            required.join(", "),
            agent.title(),
            agent.hook_name()
        ),
    }
}
