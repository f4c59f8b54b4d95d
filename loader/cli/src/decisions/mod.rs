//! The decision record: every event `agent-hooks hook` answers is appended as one JSON line
//! to the user's state folder (`$XDG_STATE_HOME/agent-hooks/decisions.jsonl`, else
//! `~/.local/state/agent-hooks/`): the event, each hook that ran and what it answered, and
//! the answer the agent got, chained by hashes. `agent-hooks log` reads it and checks the
//! chain, `agent-hooks stats` sums it up per hook.
//!
//! - [`Settings`]: whether, where and how (the user's settings under the managed policy).
//! - `record`: what a record holds, built from an answered event.
//! - `chain`: the files, appended to by any number of writers at once.
//! - `redact`: secrets out of tool inputs.

mod chain;
mod record;
mod redact;
mod settings;
pub mod show;
pub mod stats;

use agent_hooks::agents::{Agent, Decision};
use serde_json::Value;

pub use record::{HookRun, Record};
pub use settings::{observes, Settings};

use crate::{hook::Request, session::Records, session::Session};

/// Who answered an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnsweredBy {
    /// The resident process.
    Resident,
    /// `agent-hooks hook` alone.
    Relay,
}

impl AnsweredBy {
    fn name(self) -> &'static str {
        match self {
            AnsweredBy::Resident => "resident",
            AnsweredBy::Relay => "relay",
        }
    }
}

/// An event answered, as the record keeps it.
pub struct Answered<'a> {
    /// The agent that asked.
    pub agent: Agent,
    /// Its request; `None` when the payload could not be read, or the hooks could not run.
    pub request: Option<&'a Request>,
    /// What stands for the event without a request: `(unreadable payload)`, `(hooks did
    /// not run)`.
    pub without_request: &'static str,
    /// What the hooks decided.
    pub decision: &'a Decision,
    /// The exit code the agent got.
    pub code: u8,
    /// Who answered.
    pub by: AnsweredBy,
    /// The problems the user was told.
    pub problems: &'a [String],
    /// Each hook's part.
    pub hooks: Vec<HookRun>,
    /// A required hook decided.
    pub required: bool,
}

/// Each hook's part in the event `records` were taken for, and whether a required hook
/// that could not run decided it.
pub fn hooks_of(session: &Session, records: &Records) -> (Vec<HookRun>, bool) {
    let mut required = false;
    let mut runs: Vec<HookRun> = records
        .native
        .iter()
        .map(|timing| {
            let error = records
                .errors
                .iter()
                .find(|e| e.hook_path == timing.hook_path);
            required |= error.is_some_and(|e| e.message.contains("it is required"));
            record::native_run(timing, error)
        })
        .collect();
    let hooks = session.runner.command_hooks();
    for report in &records.reports {
        let hook = hooks
            .hooks()
            .find(|h| h.command == report.command && h.source == report.source);
        let long_running = hook.is_some_and(|h| h.persistent.is_long_running());
        required |= hook.is_some_and(|h| h.required)
            && report.answer.failed
            && report.answer.block.is_some();
        runs.push(record::command_run(report, long_running));
    }
    (runs, required)
}

/// Appends the record of `answered` where `settings` say, unless they turn it off. What
/// went wrong comes back as a sentence for the user.
pub fn write(settings: &Settings, answered: Answered) -> Result<(), String> {
    if !settings.on {
        return Ok(());
    }
    let mut record = of(settings, answered);
    let result = chain::append(&settings.folder, |prev| {
        record.prev = prev.to_owned();
        serde_json::to_string(&record).unwrap_or_default()
    });
    result.map_err(|error| {
        format!(
            "the decision record could not be written ({error}); the event was answered, not recorded. Check that the folder is yours and writable, or set `decisions.record` to false in {}",
            settings::SETTINGS_FILE
        )
    })
}

fn of(settings: &Settings, answered: Answered) -> Record {
    let (decision, reason) =
        if answered.request.is_none() && answered.hooks.is_empty() && answered.code != 2 {
            ("error", None)
        } else {
            record::decided(answered.decision)
        };
    let request = answered.request;
    let text = |key: &str| {
        request
            .and_then(|r| r.payload.get(key))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let (input, input_digest) = match request.and_then(|r| r.payload.get("tool_input")) {
        Some(input) => redact::keep(input, settings.input),
        None => (None, None),
    };
    // The strongest answer of an observing hook, when stronger than what was applied.
    let would_have = answered
        .hooks
        .iter()
        .filter(|h| h.observed)
        .max_by_key(|h| record::strength(&h.answer))
        .filter(|h| record::strength(&h.answer) > record::strength(decision))
        .map(|h| match &h.reason {
            Some(reason) => format!("{}: {}", h.answer, record::cut(reason.clone())),
            None => h.answer.clone(),
        });
    let mut record = Record {
        time: record::now(),
        agent: answered.agent.hook_name().to_owned(),
        agent_version: text("agent_version").or_else(|| text("version")),
        session: request.and_then(|r| r.session_id.clone()),
        project: request
            .and_then(|r| r.cwd.as_ref())
            .map(|p| p.display().to_string()),
        event: request.map_or_else(|| answered.without_request.to_owned(), |r| r.event.clone()),
        tool: request.and_then(|r| r.agent_tool.clone()),
        input,
        input_digest,
        hooks: answered.hooks,
        decision: decision.to_owned(),
        reason: reason.map(record::cut),
        code: answered.code,
        answered_by: answered.by.name().to_owned(),
        required: answered.required,
        would_have,
        problems: answered.problems.iter().cloned().map(record::cut).collect(),
        prev: String::new(),
        hash: None,
    };
    // Bounded: the input gives way to its digest first.
    if serde_json::to_string(&record).map_or(0, |t| t.len()) > record::LINE_LIMIT {
        if record.input.take().is_some() {
            record.input_digest = request
                .and_then(|r| r.payload.get("tool_input"))
                .map(redact::digest);
        }
        for hook in &mut record.hooks {
            hook.reason = hook.reason.take().map(|r| r.chars().take(200).collect());
        }
        record.hooks.truncate(64);
    }
    record
}
