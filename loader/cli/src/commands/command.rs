//! `agent-hooks command NAME [ARGS]`: a plugin's slash command, run as the agent would run
//! it, with what it does recorded.

use std::time::Instant;

use serde_json::{json, Value};

use crate::{
    commands::emit::{millis, print_activity},
    event_io,
    options::{Common, Outcome},
    output::{relative_text, Style},
    session::{strict_code, Session},
};

/// Runs the command `name` with `args`: its outcome (`{"ok": ...}` and the error, if any)
/// and a one-line summary. `Err` when no hook registered it.
pub fn run_one(session: &Session, name: &str, args: &str) -> Result<(Value, String), String> {
    let name = name.trim_start_matches('/');
    let result = session
        .runner
        .run_command(name, args)
        .ok_or_else(|| unknown(session, name))?;
    Ok(match result {
        Ok(()) => (json!({"ok": true, "error": null}), "ran".to_owned()),
        Err(error) => (
            json!({"ok": false, "error": error.message}),
            format!("FAILED: {}", error.message.replace('\n', " / ")),
        ),
    })
}

/// Says that no hook registered `/name`, and which commands there are.
fn unknown(session: &Session, name: &str) -> String {
    let known: Vec<String> = session
        .runner
        .registered_commands()
        .map(|c| {
            format!(
                "/{} ({})",
                c.name,
                relative_text(&c.hook_path, &session.cwd)
            )
        })
        .collect();
    if known.is_empty() {
        format!("unknown command `/{name}`: no loaded plugin registers a command (see `agent-hooks list`)")
    } else {
        format!(
            "unknown command `/{name}`; registered commands: {}",
            known.join(", ")
        )
    }
}

/// The command's name and text from the words after `command`: the first word, then the
/// others joined with spaces, a `--` right after the name dropped.
pub fn name_and_text(words: &[String]) -> (&str, String) {
    let (name, rest) = words
        .split_first()
        .map_or(("", &[][..]), |(n, r)| (n.as_str(), r));
    let rest = match rest.split_first() {
        Some((first, after)) if first == "--" => after,
        _ => rest,
    };
    (name, rest.join(" "))
}

/// `agent-hooks command`.
pub fn run(common: &Common, words: &[String]) -> Outcome {
    let (name, args) = name_and_text(words);
    let session = Session::open(common)?;
    let load_failures = session.report_load_failures(common.json);
    let runtime = crate::runtime::build()?;
    let started = Instant::now();
    let (mut outcome, summary) = runtime
        .block_on(async { tokio::task::block_in_place(|| run_one(&session, name, &args)) })?;
    let elapsed = started.elapsed();
    let records = session.take_records();
    let name = name.trim_start_matches('/');
    if common.json {
        let mut errors = load_failures.clone();
        errors.extend(records.errors.iter().map(event_io::error_json));
        outcome["command"] = json!(name);
        outcome["args"] = json!(args);
        outcome["activity"] = json!(records.activity);
        outcome["warnings"] = json!(records.warnings);
        outcome["errors"] = json!(errors);
        outcome["duration_ms"] = json!(millis(elapsed));
        outln!("{}", serde_json::to_string_pretty(&outcome)?);
    } else {
        let style = Style::for_stdout();
        let summary = if outcome["ok"] == true {
            style.ok(&summary)
        } else {
            style.bad(&summary)
        };
        outln!("{} {summary}", style.bold(&format!("/{name}")));
        print_activity("  ", &records, style);
    }
    if outcome["ok"] != true {
        return Ok(std::process::ExitCode::FAILURE);
    }
    Ok(strict_code(common, &load_failures))
}
