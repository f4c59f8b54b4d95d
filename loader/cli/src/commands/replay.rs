//! `agent-hooks replay FILE`: a recorded session driven through the hooks as an agent would.
//! Tool calls go through the tool wrapper with a stand-in tool, so that blocks, rewrites and
//! redactions show: the stand-in returns the input's `output` field as its output when there
//! is one, "ran `<command>`" for an input with a `command`, and otherwise the input itself.

use std::{
    collections::BTreeMap,
    io::{IsTerminal, Write},
    time::{Duration, Instant},
};

use agent_hooks::{
    abi::{events::ContentBlock, EventKind},
    HookToolWrapper, Tool, ToolCallError, ToolCallOutcome, ToolError, ToolOutput,
};
use serde_json::{json, Map, Value};

use crate::{
    agent_payload,
    commands::emit::millis,
    event_io,
    options::{Common, Outcome},
    output::{relative_text, Style},
    recorder::activity_lines,
    session::{strict_code, Session},
};
use agent_hooks::agents::Agent;

/// The tool of a replayed call.
struct StandIn {
    name: String,
}

impl Tool for StandIn {
    fn name(&self) -> &str {
        &self.name
    }

    async fn execute(&self, _id: &str, input: Value) -> Result<ToolOutput, ToolError> {
        let text = match (input.get("output"), input.get("command")) {
            (Some(Value::String(output)), _) => output.clone(),
            (_, Some(Value::String(command))) => format!("ran `{command}`"),
            _ => input.to_string(),
        };
        Ok(ToolOutput {
            content: vec![ContentBlock::text(text)],
            details: json!({}),
        })
    }
}

/// What a replay counted.
#[derive(Default)]
pub struct Summary {
    /// Events replayed.
    pub events: usize,
    /// Tool calls blocked, prompts rejected, stops kept going.
    pub blocks: usize,
    /// Tool calls whose input hooks rewrote.
    pub rewrites: usize,
    /// Hook errors.
    pub errors: usize,
    /// Lines that could not be read.
    pub bad_lines: usize,
    /// Time per hook.
    pub per_hook: BTreeMap<String, Duration>,
    /// The hooks that did not load (entries of an `errors` list, event `load`).
    pub load_errors: Vec<Value>,
    /// The session's fields (`session_id`, `transcript_path`) of the last line that gave
    /// them: a line without them gets these, as an agent gives every hook of a session one id.
    pub session_fields: Map<String, Value>,
    /// The tool names already warned about (an agent's, read without `--agent`).
    pub dialect: agent_payload::DialectWarnings,
}

/// The payload fields one session's hooks all share.
const SESSION_FIELDS: [&str; 2] = ["session_id", "transcript_path"];

/// Takes the session's fields from `payload` into `carried`, then gives `payload` those it
/// lacks.
fn carry_session_fields(payload: &mut Value, carried: &mut Map<String, Value>) {
    let Some(fields) = payload.as_object_mut() else {
        return;
    };
    for key in SESSION_FIELDS {
        match fields.get(key) {
            Some(value @ Value::String(_)) => {
                carried.insert(key.to_owned(), value.clone());
            }
            Some(_) => {}
            None => {
                if let Some(value) = carried.get(key) {
                    fields.insert(key.to_owned(), value.clone());
                }
            }
        }
    }
}

/// One replayed event: its outcome, as shown.
pub struct Replayed {
    /// The event's name, or the command's (`/audit`).
    pub name: String,
    /// A one-line summary.
    pub summary: String,
}

/// Drives one line through the hooks. `Err` when the line cannot be read.
/// `agent`: the line is that agent's payload (`--agent`), read as `hook --agent` reads it.
pub fn replay_line(
    session: &Session,
    runtime: &tokio::runtime::Runtime,
    line: &str,
    agent: Option<Agent>,
    summary: &mut Summary,
) -> Result<(Replayed, Value), String> {
    let mut payload: Value = serde_json::from_str(line).map_err(|e| format!("not JSON: {e}"))?;
    if let Some(command) = payload.get("command").and_then(Value::as_str) {
        let args = match payload.get("args") {
            None => "",
            Some(Value::String(args)) => args.as_str(),
            Some(_) => return Err("\"args\" of a command must be a string".into()),
        };
        return replay_command(session, runtime, command, args, summary);
    }
    let name = payload
        .as_object_mut()
        .and_then(|o| o.remove("event"))
        .and_then(|e| e.as_str().map(str::to_owned));
    let (name, mut payload) = match agent {
        Some(agent) => {
            let named = name.is_some() || payload.get("hook_event_name").is_some();
            if !named {
                return Err("no \"event\" nor \"hook_event_name\" field".into());
            }
            agent_payload::read(agent, name.as_deref().unwrap_or_default(), payload)
                .map_err(|e| e.to_string())?
        }
        None => {
            let name = name.ok_or("no \"event\" field")?;
            if let Some(warning) = summary.dialect.check(session, &payload) {
                eprintln!("agent-hooks: warning: {warning}");
            }
            (name, payload)
        }
    };
    let emitted = event_io::parse_event(&name)?;
    carry_session_fields(&mut payload, &mut summary.session_fields);
    let input_warnings = crate::input_fields::unknown_fields(emitted, &payload);
    let started = Instant::now();
    let mut outcome = if emitted.kind() == Some(EventKind::ToolCall) {
        runtime.block_on(tool_call(session, payload))
    } else {
        match runtime.block_on(event_io::emit(&session.runner, emitted, payload))? {
            Ok(outcome) => outcome.show(),
            Err(error) => json!({"block": true, "reason": error.to_string()}),
        }
    };
    let elapsed = started.elapsed();
    let records = session.take_records();
    let (errors, timings) = (&records.errors, &records.timings);
    if let (Some(said), Some(_)) = (&records.commands, emitted.kind()) {
        outcome["command_hooks"] = json!(said);
    }
    summary.events += 1;
    summary.errors += errors.len();
    if outcome["block"] == true {
        summary.blocks += 1;
    }
    if outcome["rewritten"] == true {
        summary.rewrites += 1;
    }
    for (path, duration) in timings {
        *summary.per_hook.entry(path.clone()).or_default() += *duration;
    }
    let mut text = if emitted.kind() == Some(EventKind::ToolCall) && outcome["block"] != true {
        let mut text = match (outcome["rewritten"] == true, &outcome["input"]) {
            (true, input) => format!("rewritten to {input}; "),
            _ => String::new(),
        };
        text.push_str(&event_io::summary(
            event_io::Emitted::Runner(EventKind::ToolResult, None),
            &outcome["result"],
        ));
        text
    } else {
        event_io::summary(emitted, &outcome)
    };
    for line in crate::commands::emit::said_lines(records.commands.as_ref()) {
        text.push_str(&format!("; {line}"));
    }
    let record = json!({
        "event": emitted.name(),
        "outcome": outcome,
        "duration_ms": millis(elapsed),
        "errors": errors.iter().map(event_io::error_json).collect::<Vec<_>>(),
        "activity": records.activity,
        "warnings": input_warnings.iter().chain(&records.warnings).collect::<Vec<_>>(),
        "hooks": timings.iter().map(|(p, d)| json!({"path": p, "duration_ms": millis(*d)})).collect::<Vec<_>>(),
    });
    Ok((
        Replayed {
            name: emitted.name().to_owned(),
            summary: text,
        },
        record,
    ))
}

/// A command line (`{"command": "audit", "args": "..."}`): the plugin's command, run.
fn replay_command(
    session: &Session,
    runtime: &tokio::runtime::Runtime,
    name: &str,
    args: &str,
    summary: &mut Summary,
) -> Result<(Replayed, Value), String> {
    let started = Instant::now();
    let (outcome, text) = runtime.block_on(async {
        tokio::task::block_in_place(|| crate::commands::command::run_one(session, name, args))
    })?;
    let elapsed = started.elapsed();
    let records = session.take_records();
    summary.events += 1;
    summary.errors += records.errors.len();
    let name = name.trim_start_matches('/');
    let record = json!({
        "command": name,
        "args": args,
        "outcome": outcome,
        "duration_ms": millis(elapsed),
        "errors": records.errors.iter().map(event_io::error_json).collect::<Vec<_>>(),
        "activity": records.activity,
        "warnings": records.warnings,
    });
    Ok((
        Replayed {
            name: format!("/{name}"),
            summary: text,
        },
        record,
    ))
}

/// A tool call through the wrapper: blocked, or run (maybe rewritten) and its result.
async fn tool_call(session: &Session, payload: Value) -> Value {
    let name = payload["tool_name"].as_str().unwrap_or("tool").to_owned();
    let id = payload["tool_call_id"]
        .as_str()
        .or(payload["tool_use_id"].as_str())
        .unwrap_or("replay")
        .to_owned();
    let input = payload
        .get("input")
        .or(payload.get("tool_input"))
        .cloned()
        .unwrap_or(json!({}));
    // The line's session (its id, its transcript) is the session of the call's hooks too.
    let given: Map<String, Value> = SESSION_FIELDS
        .iter()
        .filter_map(|key| payload.get(*key).map(|v| ((*key).to_owned(), v.clone())))
        .collect();
    let tool =
        HookToolWrapper::new(StandIn { name }, session.runner.clone()).with_payload_fields(given);
    let (outcome, result) = tool.execute_with_outcome(&id, input.clone()).await;
    let outcome = match (outcome, &result) {
        (Some(outcome), _) => outcome,
        // A hook failed, which blocks: shown as `emit` shows it.
        (None, Err(ToolCallError::Blocked { reason, .. })) => {
            return json!({"block": true, "reason": reason});
        }
        // No hook listens to `tool_call`.
        (None, _) => ToolCallOutcome::default(),
    };
    let mut shown = outcome.shown(&input);
    match result {
        Err(ToolCallError::Blocked { reason, .. }) => {
            // Blocked by a hook, or not confirmed by the user.
            shown["block"] = json!(true);
            shown["reason"] = json!(reason);
        }
        result => {
            let (content, is_error) = match result {
                Ok(output) => (output.content, false),
                Err(ToolCallError::MarkedFailed { output, .. }) => (output.content, true),
                Err(error) => (vec![ContentBlock::text(error.to_string())], true),
            };
            shown["result"] = json!({"content": content, "is_error": is_error});
        }
    }
    shown
}

/// `agent-hooks replay`.
pub fn run(common: &Common, file: &str, agent: Option<Agent>) -> Outcome {
    let max = crate::bounded::MAX_REPLAY_LINE;
    let lines: Vec<crate::bounded::Line> = if file == "-" {
        crate::bounded::lines(std::io::stdin().lock(), max)?
    } else {
        let opened = std::fs::File::open(file).map_err(|e| format!("cannot read {file}: {e}"))?;
        crate::bounded::lines(std::io::BufReader::new(opened), max)
            .map_err(|e| format!("cannot read {file}: {e}"))?
    };
    let session = agent_payload::open(common, agent)?;
    let load_failures = session.report_load_failures(common.json);
    let runtime = crate::runtime::build()?;
    let style = Style::for_stdout();
    let progress = !common.json && std::io::stderr().is_terminal() && lines.len() > 100;
    let mut summary = Summary::default();
    let started = Instant::now();
    for (number, line) in lines.iter().enumerate() {
        if line.as_ref().is_ok_and(|line| line.trim().is_empty()) {
            continue;
        }
        let number = number + 1;
        let replayed = match line {
            Ok(line) => replay_line(&session, &runtime, line, agent, &mut summary),
            Err(skipped) => Err(skipped.clone()),
        };
        match replayed {
            Ok((replayed, mut record)) => {
                if common.json {
                    record["line"] = json!(number);
                    outln!("{record}");
                } else {
                    let time = style.dim(&format!(
                        "({:.2} ms)",
                        record["duration_ms"].as_f64().unwrap_or(0.0)
                    ));
                    outln!(
                        "{number:>5}  {:<20} {} {time}",
                        replayed.name,
                        replayed.summary
                    );
                    for line in
                        activity_lines(record["activity"].as_array().map_or(&[], Vec::as_slice))
                    {
                        outln!("       {line}");
                    }
                    for warning in record["warnings"].as_array().into_iter().flatten() {
                        outln!(
                            "       {}",
                            style.warn(&format!(
                                "warning: {}",
                                warning.as_str().unwrap_or_default()
                            ))
                        );
                    }
                    for error in record["errors"].as_array().into_iter().flatten() {
                        outln!(
                            "       {}",
                            style.bad(&format!(
                                "{}: {}",
                                error["hook_path"].as_str().unwrap_or_default(),
                                error["error"].as_str().unwrap_or_default()
                            ))
                        );
                    }
                }
            }
            Err(error) => {
                summary.bad_lines += 1;
                if common.json {
                    outln!("{}", json!({"line": number, "error": error}));
                } else {
                    outln!("{number:>5}  {}", style.bad(&format!("skipped: {error}")));
                }
            }
        }
        if progress && number % 50 == 0 {
            draw_progress(number, lines.len());
        }
    }
    if progress {
        eprint!("\r{}\r", " ".repeat(60));
    }
    summary.load_errors = load_failures;
    print_summary(common, &summary, started.elapsed(), style, &session.cwd)?;
    Ok(strict_code(common, &summary.load_errors))
}

fn draw_progress(done: usize, total: usize) {
    let width = 30;
    let filled = done * width / total.max(1);
    eprint!(
        "\r[{}{}] {done}/{total}",
        "#".repeat(filled),
        " ".repeat(width - filled)
    );
    let _ = std::io::stderr().flush();
}

/// Prints the summary: a last JSON line, or a few lines for people.
pub fn print_summary(
    common: &Common,
    summary: &Summary,
    elapsed: Duration,
    style: Style,
    base: &std::path::Path,
) -> Result<(), Box<dyn std::error::Error>> {
    let mut slowest: Vec<(&String, &Duration)> = summary.per_hook.iter().collect();
    slowest.sort_by(|a, b| b.1.cmp(a.1));
    slowest.truncate(3);
    if common.json {
        let summary = json!({"summary": {
            "events": summary.events,
            "blocks": summary.blocks,
            "rewrites": summary.rewrites,
            "errors": summary.errors,
            "bad_lines": summary.bad_lines,
            "load_errors": summary.load_errors,
            "duration_ms": millis(elapsed),
            "slowest_hooks": slowest.iter().map(|(p, d)| json!({"path": p, "total_ms": millis(**d)})).collect::<Vec<_>>(),
        }});
        outln!("{summary}");
        return Ok(());
    }
    outln!(
        "{} {} events, {} blocked, {} rewritten, {} hook errors{}{} in {:.1} ms",
        style.bold("Summary:"),
        summary.events,
        summary.blocks,
        summary.rewrites,
        summary.errors,
        if summary.bad_lines > 0 {
            format!(", {} unreadable lines", summary.bad_lines)
        } else {
            String::new()
        },
        if summary.load_errors.is_empty() {
            String::new()
        } else {
            format!(", {} hooks not loaded", summary.load_errors.len())
        },
        millis(elapsed)
    );
    if !slowest.is_empty() {
        outln!("Slowest hooks:");
        for (path, total) in slowest {
            outln!(
                "  {:>9.3} ms  {}",
                millis(*total),
                relative_text(path, base)
            );
        }
    }
    Ok(())
}
