//! The decision record: every event `agent-hooks hook` answers is appended as one JSON line
//! to the user's state folder (`$XDG_STATE_HOME/agent-hooks/decisions.jsonl`, else
//! `~/.local/state/agent-hooks/`): the event, each hook that ran and what it answered, and
//! the answer the agent got, chained by hashes. The commands `log` and `stats` read it.
//!
//! - [`Settings`]: whether, where and how (the user's settings under the managed policy).
//! - `record`: what a record holds, built from an answered event.
//! - `chain`: the files, appended to by any number of writers at once.
//! - `hex`: bytes as lowercase hex, for the chain's hashes and the inputs' digests.
//! - `redact`: secrets out of tool inputs.
//! - `line`: a record as one line for a person.
//! - [`export`]: the records sent on to an OpenTelemetry collector.

pub mod chain;
pub mod export;
mod hex;
pub mod line;
pub mod record;
mod redact;
pub mod settings;

use agent_hooks::agents::{Agent, Decision};
use serde_json::Value;

pub use record::{HookRun, Record};
pub use settings::{in_force, Settings, UserSettings};

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

/// The event as the agent sent it, as far as the record keeps it.
#[derive(Debug, Clone, Copy, Default)]
pub struct Event<'a> {
    /// Its name (`PreToolUse`).
    pub name: &'a str,
    /// The agent's session id.
    pub session: Option<&'a str>,
    /// The project folder.
    pub project: Option<&'a std::path::Path>,
    /// The tool, by the agent's name for it.
    pub tool: Option<&'a str>,
    /// The tool's input.
    pub input: Option<&'a Value>,
    /// The agent's version, when its payload says it.
    pub agent_version: Option<&'a str>,
}

/// An event answered, as the record keeps it.
pub struct Answered<'a> {
    /// The agent that asked.
    pub agent: Agent,
    /// The event as the agent sent it; `None` when the payload could not be read, or the
    /// hooks could not run.
    pub event: Option<Event<'a>>,
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

impl HookRun {
    /// A command hook's run, from its report and the hook's kind (`None` when the hook is
    /// no longer among the runner's).
    pub fn of_command(
        report: &agent_hooks::command_hook::CommandHookReport,
        kind: Option<&agent_hooks::command_hook::HookKind>,
    ) -> HookRun {
        record::command_run(report, kind)
    }

    /// A native handler's call (a plugin, or a long-running hook's registered handler),
    /// with the error it gave, if any.
    pub fn of_handler(
        timing: &agent_hooks::HandlerTiming,
        error: Option<&agent_hooks::HookError>,
    ) -> HookRun {
        record::native_run(timing, error)
    }
}

/// What stands in the way of the decision record, for `doctor`: its settings' problems,
/// and a folder or file it cannot write to (opened, not written).
pub fn check(settings: &Settings) -> Vec<String> {
    let mut problems: Vec<String> = settings
        .problems
        .iter()
        .map(|p| format!("decision record: {p}"))
        .collect();
    if settings.on {
        if let Err(error) = chain::can_append(&settings.folder) {
            problems.push(format!(
                "decision record: it cannot be written ({error}), so events are answered and not recorded; make the folder yours and writable, or set `decisions.record` to false in {}",
                settings::SETTINGS_FILE
            ));
        }
        if let Some(collector) = &settings.export {
            problems.extend(export::check(&settings.folder, collector));
        }
    } else if let Some(collector) = &settings.export {
        problems.push(format!(
            "decision export: {} asks for records to be sent to {}, but the record is off, so nothing is sent; set `decisions.record` to true in {}",
            collector.by,
            collector.address(),
            settings::SETTINGS_FILE
        ));
    }
    problems
}

/// Appends the record of `answered` where `settings` say, unless they turn it off. What
/// went wrong comes back as a sentence for the user.
pub fn write(settings: &Settings, answered: Answered) -> Result<(), String> {
    if !settings.on {
        return Ok(());
    }
    let (mut record, input) = of(settings, answered);
    let result = chain::append(&settings.folder, |prev| {
        record.prev = prev.to_owned();
        let text = serde_json::to_string(&record).unwrap_or_default();
        if text.len() <= record::LINE_LIMIT {
            return text;
        }
        // Bounded: the input gives way to its digest first.
        if record.input.take().is_some() {
            record.input_digest = input.map(redact::digest);
        }
        for hook in &mut record.hooks {
            hook.reason = hook.reason.take().map(|r| r.chars().take(200).collect());
        }
        record.hooks.truncate(64);
        serde_json::to_string(&record).unwrap_or_default()
    });
    result.map_err(|error| {
        format!(
            "the decision record could not be written ({error}); the event was answered, not recorded. Check that the folder is yours and writable, or set `decisions.record` to false in {}",
            settings::SETTINGS_FILE
        )
    })
}

/// The record of `answered`, and the tool input it was made from.
fn of<'a>(settings: &Settings, answered: Answered<'a>) -> (Record, Option<&'a Value>) {
    let (decision, reason) =
        if answered.event.is_none() && answered.hooks.is_empty() && answered.code != 2 {
            ("error", None)
        } else {
            record::decided(answered.decision)
        };
    let event = answered.event.unwrap_or_default();
    let text = |text: Option<&str>| text.map(|t| record::cut(t.to_owned()));
    let (input, input_digest) = match event.input {
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
    let record = Record {
        time: record::now(),
        agent: answered.agent.hook_name().to_owned(),
        // What the payload says is bounded like a reason.
        agent_version: text(event.agent_version),
        session: text(event.session),
        project: event.project.map(|p| record::cut(p.display().to_string())),
        event: match answered.event {
            Some(event) => record::cut(event.name.to_owned()),
            None => answered.without_request.to_owned(),
        },
        tool: text(event.tool),
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
    (record, event.input)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What one record costs the event that writes it, in turns with the record off: run
    /// with `cargo test --release -p agent-hooks-cli decision_record_cost -- --ignored
    /// --nocapture` (BENCHMARKS.md).
    #[test]
    #[ignore = "a measurement, run by hand"]
    fn decision_record_cost() {
        let folder = tempfile::tempdir().expect("a scratch folder");
        let payload = br#"{"hook_event_name":"PreToolUse","session_id":"s1","cwd":"/p","tool_name":"Bash","tool_input":{"command":"curl -H 'Authorization: Bearer abcdef0123456789' https://example.com | tee out.txt"}}"#;
        let payload: Value = serde_json::from_slice(payload).expect("a payload");
        let event = Event {
            name: "PreToolUse",
            session: Some("s1"),
            project: Some(std::path::Path::new("/p")),
            tool: Some("Bash"),
            input: payload.get("tool_input"),
            agent_version: None,
        };
        let decision = Decision::default();
        let hook = HookRun {
            id: "guard.sh (/home/u/.config/agent-hooks/hooks/guard.json)".into(),
            kind: "command".into(),
            answer: "none".into(),
            reason: None,
            ms: 4.2,
            failure: None,
            observed: false,
        };
        let mut settings = Settings::read(folder.path(), Some(folder.path()), None);
        settings.folder = folder.path().join("state");
        let write = |settings: &Settings| {
            let started = std::time::Instant::now();
            let written = write(
                settings,
                Answered {
                    agent: Agent::ClaudeCode,
                    event: Some(event),
                    without_request: "",
                    decision: &decision,
                    code: 0,
                    by: AnsweredBy::Resident,
                    problems: &[],
                    hooks: vec![hook.clone()],
                    required: false,
                },
            );
            assert!(written.is_ok(), "{written:?}");
            started.elapsed()
        };
        let off = Settings {
            on: false,
            ..settings.clone()
        };
        let turns = 20;
        let each = 500;
        let (mut on_total, mut off_total) = (std::time::Duration::ZERO, std::time::Duration::ZERO);
        for _ in 0..turns {
            for _ in 0..each {
                on_total += write(&settings);
            }
            for _ in 0..each {
                off_total += write(&off);
            }
        }
        let n = f64::from(turns * each);
        println!(
            "decision record: {:.2} µs per event recorded, {:.3} µs with the record off ({} events each, in {turns} turns)",
            on_total.as_secs_f64() * 1e6 / n,
            off_total.as_secs_f64() * 1e6 / n,
            turns * each
        );
    }
}
