//! `agent-hooks emit EVENT --input JSON`: one event through the loaded hooks.

use std::time::Duration;

use agent_hooks::command_hook::CommandOutcome;
use serde_json::{json, Value};

use crate::{
    agent_payload, event_io,
    options::{Common, Outcome},
    output::{relative_text, table, Style},
    recorder::activity_lines,
    session::strict_code,
};
use agent_hooks::agents::Agent;

/// Reads `--input`: JSON, `@file`, or `-` for stdin.
pub fn read_input(input: &str) -> Result<Value, Box<dyn std::error::Error>> {
    use crate::bounded::{read_file, read_text, MAX_INPUT};
    let text = match input {
        "-" => read_text(std::io::stdin().lock(), MAX_INPUT, "--input - (stdin)")?,
        _ => match input.strip_prefix('@') {
            Some(file) => read_file(file, MAX_INPUT, &format!("--input @{file}"))?,
            None => input.to_owned(),
        },
    };
    serde_json::from_str(&text).map_err(|e| format!("--input is not valid JSON: {e}").into())
}

/// Milliseconds, for output.
pub fn millis(duration: Duration) -> f64 {
    (duration.as_secs_f64() * 1_000_000.0).round() / 1000.0
}

/// `agent-hooks emit`.
pub fn run(common: &Common, event: &str, input: &str, agent: Option<Agent>) -> Outcome {
    let payload = read_input(input)?;
    let (emitted, payload) = match agent {
        Some(agent) => {
            let (event, payload) = agent_payload::read(agent, event, payload)?;
            (event_io::parse_event(&event)?, payload)
        }
        None => (event_io::parse_event(event)?, payload),
    };
    let input_warnings = crate::input_fields::unknown_fields(emitted, &payload);
    for warning in &input_warnings {
        eprintln!("agent-hooks: warning: {warning}");
    }
    let session = agent_payload::open(common, agent)?;
    if agent.is_none() {
        if let Some(warning) = agent_payload::DialectWarnings::default().check(&session, &payload) {
            eprintln!("agent-hooks: warning: {warning}");
        }
    }
    let load_failures = session.report_load_failures(common.json);
    // With nothing to run, the event needs no worker threads (two thread starts saved), and
    // no IO or signal driver: only hooks start processes or open sockets (their set-up was
    // a sixth of an emit that found nothing).
    let runtime = if session.has_no_hooks() {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()?
    } else {
        crate::runtime::build()?
    };
    let started = std::time::Instant::now();
    let result = runtime.block_on(event_io::emit(&session.runner, emitted, payload))?;
    let elapsed = started.elapsed();
    let records = session.take_records();
    let (errors, timings) = (&records.errors, &records.timings);
    let blocked_by_error = result.is_err();
    let mut outcome = match result {
        Ok(outcome) => outcome.show(),
        // A strict event's error blocks: show it as the block it is.
        Err(error) => {
            json!({"block": true, "reason": format!("Tool execution was blocked by a hook ({error})")})
        }
    };
    // Before the fields added for `--json`, which are not the event's outcome.
    let summary = event_io::summary(emitted, &outcome);
    if !outcome.is_object() {
        outcome = json!({});
    }
    outcome["event"] = json!(emitted.name());
    if let (Some(said), Some(_)) = (&records.commands, emitted.kind()) {
        outcome["command_hooks"] = json!(said);
    }
    let mut all_errors = load_failures.clone();
    all_errors.extend(errors.iter().map(event_io::error_json));
    outcome["errors"] = json!(all_errors);
    outcome["activity"] = json!(records.activity);
    outcome["warnings"] = json!([input_warnings, records.warnings.clone()].concat());
    outcome["hooks"] = json!(timings
        .iter()
        .map(|(path, d)| json!({"path": path, "duration_ms": millis(*d)}))
        .collect::<Vec<_>>());
    outcome["duration_ms"] = json!(millis(elapsed));
    if common.json {
        outln!("{}", serde_json::to_string_pretty(&outcome)?);
    } else {
        let style = Style::for_stdout();
        outln!("{} {summary}", style.bold(emitted.name()));
        for line in said_lines(records.commands.as_ref()) {
            outln!("  {}", style.warn(&line));
        }
        print_activity("  ", &records, style);
        if blocked_by_error {
            outln!(
                "  {}",
                style.bad("a hook failed, which blocks the call (hooks fail safe)")
            );
        }
        let rows: Vec<Vec<String>> = timings
            .iter()
            .map(|(path, d)| {
                vec![
                    format!("{:.3} ms", millis(*d)),
                    relative_text(path, &session.cwd),
                ]
            })
            .collect();
        table("  ", &rows);
        for error in errors {
            outln!(
                "  {}",
                style.bad(&relative_text(&error.to_string(), &session.cwd))
            );
        }
        if session.has_no_hooks() {
            outln!(
                "  {}",
                style.dim("no hook is loaded (see `agent-hooks list`)")
            );
        }
    }
    Ok(strict_code(common, &load_failures))
}

/// What hooks did to the agent, then the `--ui` script's problems, one line each.
pub fn print_activity(indent: &str, records: &crate::session::Records, style: Style) {
    for line in activity_lines(&records.activity) {
        outln!("{indent}{line}");
    }
    for warning in &records.warnings {
        outln!("{indent}{}", style.warn(&format!("warning: {warning}")));
    }
}

/// What command hooks said beyond the outcome, for people: messages for the user, a request
/// to stop, suppressed output.
pub fn said_lines(said: Option<&CommandOutcome>) -> Vec<String> {
    let Some(said) = said else {
        return Vec::new();
    };
    let mut lines: Vec<String> = said
        .system_messages
        .iter()
        .map(|m| format!("message for the user: {m}"))
        .collect();
    if let Some(reason) = &said.stop {
        lines.push(format!("continue: false, the agent stops: {reason}"));
    }
    if said.suppress_output {
        lines.push("suppressOutput: the hooks' output is hidden from the transcript".into());
    }
    lines
}
