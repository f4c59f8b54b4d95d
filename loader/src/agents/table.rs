//! The table of events x agents, generated from the code that implements them: the event
//! registry ([`EVENTS`]), the dialects ([`Agent`]: names, payload fields, how answers
//! are read, timeouts, matchers) and the tool names ([`ToolNames::default`]). The book's
//! page `docs/events-by-agent.md` is this text; a test fails when the two differ, and
//! `agent-hooks events` prints it.

use std::fmt::Write;

use super::{Agent, MatcherRule, DEFAULT_TIMEOUT};
use crate::command_hook::PROMPT_TIMEOUT;
use crate::event::{CommandEvent, Exit2, EVENTS};
use crate::host::ToolNames;

/// The payload fields every event of every agent may have before its own (each agent's
/// names and omissions are [`Agent::payload_field`]'s): `transcript_path` only when the
/// host gives one, `prompt_id` once there is a prompt.
pub const COMMON_FIELDS: [&str; 6] = [
    "session_id",
    "transcript_path",
    "cwd",
    "permission_mode",
    "hook_event_name",
    "prompt_id",
];

/// The payload fields `dialect`'s hooks get on `event`, in order: the common ones as that
/// agent names them, its own extra ones, then the event's own fields it sends.
pub fn payload_fields(dialect: Agent, event: CommandEvent) -> Vec<String> {
    let claude = claude_form_fields(dialect, event);
    if !dialect.own_payload() {
        return claude.into_iter().map(str::to_owned).collect();
    }
    // Copilot CLI's and Cursor's payloads are written from Claude Code's by their dialect:
    // the fields are what that writing gives a payload with every field.
    let sample: serde_json::Map<String, serde_json::Value> = claude
        .iter()
        .map(|f| (f.to_string(), serde_json::Value::String("x".into())))
        .collect();
    match super::hooks_files::payload_in(
        dialect,
        event,
        dialect.event_name(event),
        serde_json::Value::Object(sample),
    ) {
        serde_json::Value::Object(own) => own.keys().cloned().collect(),
        _ => Vec::new(),
    }
}

/// [`payload_fields`] in Claude Code's names, before a dialect with its own payload
/// rewrites them.
fn claude_form_fields(dialect: Agent, event: CommandEvent) -> Vec<&'static str> {
    let mut fields: Vec<&'static str> = COMMON_FIELDS
        .iter()
        .filter_map(|f| dialect.payload_field(event, f))
        .collect();
    fields.extend(dialect.extra_fields());
    for field in event.spec().fields {
        if let Some(name) = dialect.payload_field(event, field) {
            if !fields.contains(&name) {
                fields.push(name);
            }
        }
    }
    fields
}

/// The page: every table, in Markdown.
pub fn events_table() -> String {
    let mut page = String::new();
    let out = &mut page;
    let agents = Agent::ALL;
    let _ = writeln!(out, "# Events by agent");
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "Generated from the code that implements them (the event registry in `loader/src/event.rs`, each agent's profile in `loader/src/agents/`) by `agent-hooks events`; do not edit it by hand. After a change to events or agents, regenerate it with `AGENT_HOOKS_REGENERATE=1 cargo test -p agent-hooks-tests --test all -- docs::the_events_table`, which also fails while this page and the code differ. How hooks files are read and answered is in [command hooks](command-hooks.md)."
    );
    let _ = writeln!(out);

    let _ = writeln!(out, "## Names");
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "The name each agent's hooks files give an event, which its hooks also see as `hook_event_name`. Every file accepts every name of the table; a file keeps its own agent's meaning. The last column is the runner event at the same moment (none: a host that has the moment calls `HookRunner::emit_command`)."
    );
    let _ = writeln!(out);
    let mut header = vec!["event".to_owned()];
    header.extend(agents.iter().map(|d| d.title().to_owned()));
    header.push("runner event".into());
    row(out, &header);
    rule(out, header.len());
    for spec in &EVENTS {
        let mut cells = vec![format!("`{}`", spec.name)];
        cells.extend(agents.iter().map(|d| {
            match d.own_event_names(spec.event) {
                None => format!("`{}`", d.event_name(spec.event)),
                Some(names) if names.is_empty() => "none".into(),
                Some(names) => names
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
            }
        }));
        cells.push(match spec.runner {
            Some(kind) => format!("`{}`", kind.name()),
            None => "none".into(),
        });
        row(out, &cells);
    }
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "Other agents' events this runner has no moment for: their hooks do not run, and the file's problems say so:"
    );
    let _ = writeln!(out);
    for (name, why) in super::PROFILES.unsupported() {
        let _ = writeln!(out, "- `{name}`: {why}.");
    }
    let _ = writeln!(out);

    let _ = writeln!(out, "## Payload and answers");
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "What each event's payload has besides the common fields, and which answers it reads (Claude Code's meaning; the next table says where an agent differs). \"matcher\" is the payload field a group's matcher is compared with (none: the matcher is ignored)."
    );
    let _ = writeln!(out);
    let header = [
        "event",
        "matcher",
        "its own payload fields",
        "exit 2",
        "`decision: \"block\"`",
        "`hookSpecificOutput`",
        "plain stdout on exit 0",
        "`CLAUDE_ENV_FILE`",
    ];
    row(out, &header.map(str::to_owned));
    rule(out, header.len());
    for spec in &EVENTS {
        row(
            out,
            &[
                format!("`{}`", spec.name),
                spec.subject.map_or("none".into(), |s| format!("`{s}`")),
                code_list(spec.fields),
                match spec.exit2 {
                    Exit2::Blocks => "blocks; stderr is the reason".into(),
                    Exit2::Feedback => "stderr is fed back to the model".into(),
                    Exit2::ShownToUser => "stderr is shown to the user".into(),
                },
                yes_no(spec.decision),
                code_list(spec.specific),
                if spec.plain_stdout_is_context {
                    "added to the context".into()
                } else {
                    "not read".into()
                },
                if spec.env_file { "given" } else { "not given" }.into(),
            ],
        );
    }
    let _ = writeln!(out);

    let _ = writeln!(out, "## Per agent");
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "The common payload fields each agent's hooks get (`transcript_path` when the host gives one, `prompt_id` once there is a prompt), the events where its payload differs, how its answers differ from Claude Code's, and its defaults. A `timeout` is read in the agent's unit; a command hook without one gets its agent's default (the column), an `http`, `mcp_tool` or `agent` hook {} s, a `prompt` hook {} s. Copilot CLI's and Cursor's payloads are their own: their fields are in the next table.",
        DEFAULT_TIMEOUT.as_secs(),
        PROMPT_TIMEOUT.as_secs()
    );
    let _ = writeln!(out);
    let header = [
        "agent",
        "common payload fields",
        "payload differs on",
        "text that is not JSON",
        "`additionalContext` not read on",
        "a block replaces the tool's result on",
        "`timeout` unit",
        "default `timeout` of a command hook",
        "matcher (settings files)",
    ];
    row(out, &header.map(str::to_owned));
    rule(out, header.len());
    for dialect in agents {
        let common = common_fields(dialect, CommandEvent::PreToolUse);
        let mut differs = Vec::new();
        for spec in &EVENTS {
            let here = common_fields(dialect, spec.event);
            let missing: Vec<&str> = common
                .iter()
                .filter(|f| !here.contains(f))
                .copied()
                .collect();
            let renamed: Vec<String> = spec
                .fields
                .iter()
                .filter_map(|f| match dialect.payload_field(spec.event, f) {
                    None => Some(format!("no `{f}`")),
                    Some(name) if name != *f => Some(format!("`{name}` for `{f}`")),
                    Some(_) => None,
                })
                .chain(missing.iter().map(|f| format!("no `{f}`")))
                .collect();
            if !renamed.is_empty() {
                differs.push(format!(
                    "`{}`: {}",
                    dialect.event_name(spec.event),
                    renamed.join(", ")
                ));
            }
        }
        let renamed_common: Vec<String> = COMMON_FIELDS
            .iter()
            .filter_map(
                |f| match dialect.payload_field(CommandEvent::PreToolUse, f) {
                    Some(name) if name != *f => Some(format!("`{name}` for `{f}`")),
                    _ => None,
                },
            )
            .collect();
        let mut common_text = code_list(&common);
        if !renamed_common.is_empty() {
            common_text.push_str(&format!(" ({})", renamed_common.join(", ")));
        }
        if dialect.own_payload() {
            common_text = "its own (the next table)".into();
            differs.clear();
        }
        let not_read: Vec<String> = EVENTS
            .iter()
            .filter(|s| !dialect.reads_context(s.event))
            .map(|s| format!("`{}`", dialect.event_name(s.event)))
            .collect();
        let replaces: Vec<String> = EVENTS
            .iter()
            .filter(|s| dialect.feedback_replaces_result(s.event))
            .map(|s| format!("`{}`", dialect.event_name(s.event)))
            .collect();
        row(
            out,
            &[
                dialect.title().to_owned(),
                common_text,
                or_none(differs.join("; ")),
                if dialect.plain_text_is_a_message() {
                    "shown to the user on exit 0; blocks, as the reason, on exit codes above 2"
                        .into()
                } else {
                    "as the event's plain stdout (above)".into()
                },
                or_none(not_read.join(", ")),
                or_none(replaces.join(", ")),
                if dialect.timeout_unit() < 1.0 {
                    "milliseconds".into()
                } else {
                    "seconds".into()
                },
                format!("{} s", dialect.default_timeout().as_secs()),
                matcher_rule(dialect.matcher_rule(true)),
            ],
        );
    }
    let _ = writeln!(out);

    let _ = writeln!(out, "## Payloads of their own");
    let _ = writeln!(
        out,
        "\nThe fields a Copilot CLI, Cursor or Cline hook gets on each event it has (the payload its dialect writes; every field a host gives, with the agent's own names).\n"
    );
    let own: Vec<Agent> = agents.iter().copied().filter(|d| d.own_payload()).collect();
    let mut header = vec!["event".to_owned()];
    header.extend(own.iter().map(|d| d.title().to_owned()));
    row(out, &header);
    rule(out, header.len());
    for spec in &EVENTS {
        let cells: Vec<String> = own
            .iter()
            .map(|d| match d.own_event_names(spec.event) {
                Some(names) if names.is_empty() => "none".into(),
                _ => {
                    let fields = payload_fields(*d, spec.event);
                    let fields: Vec<&str> = fields.iter().map(String::as_str).collect();
                    code_list(&fields)
                }
            })
            .collect();
        if cells.iter().all(|c| c == "none") {
            continue;
        }
        let mut line = vec![format!("`{}`", spec.name)];
        line.extend(cells);
        row(out, &line);
    }
    let _ = writeln!(out);

    let _ = writeln!(out, "## Tools");
    let _ = writeln!(
        out,
        "\nagent-hooks' own tools as each agent's hooks see them (a host declares its own with `AgentHost::tool_names`); a matcher and `tool_name` use these names, `tool_input` these fields.\n"
    );
    let mut header: Vec<String> = agents.iter().map(|d| d.title().to_owned()).collect();
    header.push("input fields".into());
    row(out, &header);
    rule(out, header.len());
    let names = ToolNames::default();
    for tool in names.tools() {
        let mut cells: Vec<String> = agents
            .iter()
            .map(|d| format!("`{}`", names.name_in(*d, &tool.tool)))
            .collect();
        let mut fields: Vec<String> = Vec::new();
        for (own, theirs) in tool.fields.iter().map(|(_, own, theirs)| (own, theirs)) {
            let who: Vec<&str> = tool
                .fields
                .iter()
                .filter(|(_, o, t)| o == own && t == theirs)
                .map(|(d, _, _)| d.title())
                .collect();
            let line = format!("`{own}` is `{theirs}` for {}", who.join(", "));
            if !fields.contains(&line) {
                fields.push(line);
            }
        }
        cells.push(or_none(fields.join("; ")));
        row(out, &cells);
    }
    page
}

/// The common fields `dialect` sends on `event`.
fn common_fields(dialect: Agent, event: CommandEvent) -> Vec<&'static str> {
    let mut fields: Vec<&'static str> = COMMON_FIELDS
        .iter()
        .filter_map(|f| dialect.payload_field(event, f))
        .collect();
    fields.extend(dialect.extra_fields());
    fields
}

fn matcher_rule(rule: MatcherRule) -> String {
    match rule {
        MatcherRule::Regex => "a regular expression; none or `\"\"` matches all",
        MatcherRule::RegexOrStar => "a regular expression; none, `\"\"` or `*` matches all",
        MatcherRule::Common => "`*`, `\"\"` or none match all; names and `|` lists match exactly; anything else is a regular expression",
        MatcherRule::RegexOnTools => "a regular expression on tool events, an exact string on the others",
    }
    .into()
}

fn row(out: &mut String, cells: &[String]) {
    let cells: Vec<String> = cells.iter().map(|c| c.replace('|', "\\|")).collect();
    let _ = writeln!(out, "| {} |", cells.join(" | "));
}

fn rule(out: &mut String, columns: usize) {
    let _ = writeln!(out, "|{}", "---|".repeat(columns));
}

fn code_list(items: &[&str]) -> String {
    or_none(
        items
            .iter()
            .map(|i| format!("`{i}`"))
            .collect::<Vec<_>>()
            .join(", "),
    )
}

fn yes_no(yes: bool) -> String {
    if yes { "read" } else { "not read" }.into()
}

fn or_none(text: String) -> String {
    if text.is_empty() {
        "none".into()
    } else {
        text
    }
}
