//! `install --take-over`: the agent's own hooks (the members of its file's `hooks` object
//! named after its events) move into a copy that agent-hooks runs (see
//! [`crate::taken_over`]), where they get agent-hooks' timeouts, process hygiene, trust and
//! `persistent`; the agent's file keeps only the agent-hooks entry for each event, and every
//! other member of `hooks` (an event agent-hooks does not run, a setting) as it was. The
//! `hooks` value as it was is recorded, and `uninstall` puts it back, byte for byte, where
//! the `hooks` value agent-hooks wrote still stands; the rest of the file keeps what the user
//! changed meanwhile.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{
    json_text::{object_members, strict, top_object, JsonTextError},
    InstallError,
};

/// What one take-over changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TakeOver {
    /// The text of the file's `hooks` value before (what `uninstall` puts back).
    pub original: String,
    /// The text of the `hooks` value written in its place.
    pub written: String,
    /// The copy agent-hooks runs.
    pub copy: PathBuf,
    /// The copy's text as written.
    pub copy_text: String,
    /// How many hooks moved.
    pub moved: usize,
}

/// The file's `hooks` value: where it is, or `None` when the file has none.
fn hooks_value(path: &Path, text: &str) -> Result<Option<(usize, usize)>, InstallError> {
    let bytes = text.as_bytes();
    let not_json = |error: JsonTextError| InstallError::NotJson {
        path: path.to_path_buf(),
        error,
        entry: String::new(),
    };
    let top = top_object(bytes).map_err(not_json)?;
    let (members, _) = object_members(bytes, top).map_err(not_json)?;
    Ok(members
        .iter()
        .find(|m| m.key == "hooks")
        .map(|m| (m.value_start, m.value_end)))
}

/// The take-over of `text`: the file's new text and what to record, or `None` when the file
/// has no `hooks` (then there is nothing to take over). `entry` is one matcher group with
/// the agent-hooks entry; `events` the agent's events (whose hooks move); `wire` those
/// that get the entry, besides every event whose hooks moved; `copy` where the copy goes.
pub fn plan(
    path: &Path,
    text: &str,
    (events, wire): (&[&str], &[&str]),
    entry: &dyn Fn(&str) -> String,
    copy: PathBuf,
) -> Result<Option<(String, TakeOver)>, InstallError> {
    let Some((start, end)) = hooks_value(path, text)? else {
        return Ok(None);
    };
    let bytes = text.as_bytes();
    let shape = || InstallError::Shape {
        path: path.to_path_buf(),
        key: "hooks".into(),
        expected: "an object",
    };
    if bytes[start] != b'{' {
        return Err(shape());
    }
    let not_json = |error: JsonTextError| InstallError::NotJson {
        path: path.to_path_buf(),
        error,
        entry: entry("PreToolUse"),
    };
    let (members, _) = object_members(bytes, start).map_err(not_json)?;
    let mut moved = serde_json::Map::new();
    let mut count = 0;
    let mut kept = Vec::new();
    for member in &members {
        if !events.contains(&member.key.as_str()) {
            kept.push(format!(
                "\n    \"{}\": {}",
                member.key,
                &text[member.value_start..member.value_end]
            ));
            continue;
        }
        let value_text = strict(bytes, member.value_start, member.value_end).map_err(not_json)?;
        let value: Value = serde_json::from_str(&value_text).map_err(|_| InstallError::Shape {
            path: path.to_path_buf(),
            key: format!("hooks.{}", member.key),
            expected: "JSON agent-hooks can read",
        })?;
        let Value::Array(groups) = &value else {
            return Err(InstallError::Shape {
                path: path.to_path_buf(),
                key: format!("hooks.{}", member.key),
                expected: "a list",
            });
        };
        count += groups
            .iter()
            .map(|g| g.get("hooks").and_then(Value::as_array).map_or(1, Vec::len))
            .sum::<usize>();
        moved.insert(member.key.clone(), value);
    }
    let mut written_members: Vec<String> = events
        .iter()
        .filter(|e| wire.contains(e) || moved.contains_key(**e))
        .map(|e| format!("\n    \"{e}\": [{}]", entry(e)))
        .collect();
    written_members.extend(kept);
    let written = format!("{{{}\n  }}", written_members.join(","));
    let mut copy_text =
        serde_json::to_string_pretty(&serde_json::json!({ "hooks": moved })).unwrap_or_default();
    copy_text.push('\n');
    let mut after = text.to_owned();
    after.replace_range(start..end, &written);
    Ok(Some((
        after,
        TakeOver {
            original: text[start..end].to_owned(),
            written,
            copy,
            copy_text,
            moved: count,
        },
    )))
}

/// The file's text with the `hooks` value as it was before the take-over, when the `hooks`
/// value agent-hooks wrote still stands; `Err(current hooks text)` when it was changed.
pub fn undo(
    path: &Path,
    text: &str,
    record: &TakeOver,
) -> Result<Result<String, String>, InstallError> {
    let Some((start, end)) = hooks_value(path, text)? else {
        return Ok(Err(String::new()));
    };
    let current = &text[start..end];
    let mut after = text.to_owned();
    after.replace_range(start..end, &record.original);
    Ok(if current == record.written {
        Ok(after)
    } else {
        Err(current.to_owned())
    })
}

/// [`undo`] whatever the `hooks` value is now (`uninstall --force`): the file's text with the
/// old `hooks` value put back (added when the file has none).
pub fn undo_anyway(path: &Path, text: &str, record: &TakeOver) -> Result<String, InstallError> {
    match hooks_value(path, text)? {
        Some((start, end)) => {
            let mut after = text.to_owned();
            after.replace_range(start..end, &record.original);
            Ok(after)
        }
        None => {
            let bytes = text.as_bytes();
            let top = top_object(bytes).map_err(|error| InstallError::NotJson {
                path: path.to_path_buf(),
                error,
                entry: String::new(),
            })?;
            let (members, _) =
                object_members(bytes, top).map_err(|error| InstallError::NotJson {
                    path: path.to_path_buf(),
                    error,
                    entry: String::new(),
                })?;
            let comma = if members.is_empty() { "\n" } else { "," };
            let mut after = text.to_owned();
            after.insert_str(
                top + 1,
                &format!("\n  \"hooks\": {}{comma}", record.original),
            );
            Ok(after)
        }
    }
}

/// `restored` (the agent's file with its old `hooks` put back) with the events the copy
/// holds as the user left them in `copy_now` (an edited copy): the events that moved are
/// replaced by the copy's, the others stay. `None` when either cannot be read as JSON (the
/// copy is then kept aside instead).
pub fn with_copy_edits(
    path: &Path,
    restored: &str,
    record: &TakeOver,
    copy_now: &str,
) -> Result<Option<String>, InstallError> {
    let Ok(Value::Object(mut copy)) = serde_json::from_str::<Value>(copy_now) else {
        return Ok(None);
    };
    let Some(Value::Object(edited)) = copy.remove("hooks") else {
        return Ok(None);
    };
    let Ok(Value::Object(written)) = serde_json::from_str::<Value>(&record.copy_text) else {
        return Ok(None);
    };
    let moved: Vec<String> = match written.get("hooks") {
        Some(Value::Object(hooks)) => hooks.keys().cloned().collect(),
        _ => return Ok(None),
    };
    let Some((start, end)) = hooks_value(path, restored)? else {
        return Ok(None);
    };
    let Ok(old) = strict(restored.as_bytes(), start, end) else {
        return Ok(None);
    };
    let Ok(Value::Object(mut hooks)) = serde_json::from_str::<Value>(&old) else {
        return Ok(None);
    };
    hooks.retain(|event, _| !moved.contains(event));
    hooks.extend(edited);
    let Ok(text) = serde_json::to_string_pretty(&Value::Object(hooks)) else {
        return Ok(None);
    };
    let mut after = restored.to_owned();
    after.replace_range(start..end, &text);
    Ok(Some(after))
}
