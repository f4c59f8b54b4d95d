//! A record as one line for a person: what `agent-hooks log` shows and the body of the log
//! record the export sends.

use super::record::Record;

/// One record as a line: time, agent, event, tool, decision, the hook that decided and its
/// reason.
pub fn line(record: &Record) -> String {
    let time = record
        .time
        .get(..19)
        .unwrap_or(&record.time)
        .replace('T', " ");
    let decider = record
        .hooks
        .iter()
        .find(|h| h.answer == record.decision && h.answer != "none")
        .or_else(|| record.hooks.iter().find(|h| h.failure.is_some()));
    let reason = record
        .reason
        .clone()
        .or_else(|| decider.and_then(|h| h.reason.clone().or_else(|| h.failure.clone())))
        .map(|r| one_line(&r, 160));
    let mut text = format!(
        "{time}  {}  {}  {}  {}",
        record.agent,
        record.event,
        record.tool.as_deref().unwrap_or("-"),
        record.decision
    );
    if let Some(hook) = decider {
        text.push_str(&format!("  {}", short_id(&hook.id)));
    }
    if let Some(reason) = reason {
        text.push_str(&format!(": {reason}"));
    }
    if let Some(would) = &record.would_have {
        let observer = record
            .hooks
            .iter()
            .find(|h| h.observed && would.starts_with(h.answer.as_str()));
        let (answer, reason) = would.split_once(": ").unwrap_or((would.as_str(), ""));
        let done = match answer {
            "block" => "blocked",
            "stop" => "stopped the agent",
            "ask" => "asked the user",
            "rewrite" => "rewritten the input",
            "allow" => "allowed",
            "replace" => "replaced the result",
            _ => "added context",
        };
        let reason = if reason.is_empty() {
            String::new()
        } else {
            format!(": {}", one_line(reason, 160))
        };
        text.push_str(&format!(
            "  (observed: {} would have {done}{reason})",
            observer.map_or_else(|| "a hook".to_owned(), |h| short_id(&h.id)),
        ));
    }
    text
}

/// A hook's id for one line: a command hook's command cut short, its file whole.
fn short_id(id: &str) -> String {
    match id.rsplit_once(" (") {
        Some((command, file)) if file.ends_with(')') => {
            format!("{} ({file}", one_line(command, 40))
        }
        _ => one_line(id, 80),
    }
}

/// `text` on one line (its runs of white space made one space), cut at `most` characters
/// with `…`.
pub fn one_line(text: &str, most: usize) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= most {
        return flat;
    }
    let mut cut: String = flat.chars().take(most).collect();
    cut.push('…');
    cut
}
