//! `install --status-line`: the agent's status line (the settings key its profile names,
//! `status_line`) runs `agent-hooks status --agent NAME`, when the user has
//! no status line of their own; `uninstall` takes out exactly what was written. The entry
//! is one insertion right after the settings object's opening brace, recorded with the
//! install it belongs to.

use std::path::Path;

use agent_hooks::agents::Agent;

use super::{
    json_text::{object_members, top_object},
    read, write, Insertion, InstallError,
};

/// What `add` did.
pub enum Added {
    /// The entry, written.
    Written(Insertion),
    /// The file names a status line already (its command, as written, when it has one): it
    /// was left alone.
    Theirs(Option<String>),
}

/// The command of the status line: `program status --agent NAME`.
pub fn command(program: &str, agent: Agent) -> String {
    format!("{program} status --agent {}", agent.hook_name())
}

/// Writes the status line entry running `command` into `path` (the agent's settings file,
/// which install wrote into), unless the file names a status line already.
pub fn add(path: &Path, key: &str, command: &str) -> Result<Added, InstallError> {
    let text = read(path)?.unwrap_or_else(|| "{}\n".into());
    let not_json = |error| InstallError::NotJson {
        path: path.to_path_buf(),
        error,
        entry: entry(key, command),
    };
    let bytes = text.as_bytes();
    let top = top_object(bytes).map_err(not_json)?;
    let (members, _) = object_members(bytes, top).map_err(not_json)?;
    if let Some(theirs) = members.iter().find(|m| m.key == key) {
        let value: Option<serde_json::Value> =
            serde_json::from_slice(&bytes[theirs.value_start..theirs.value_end]).ok();
        let command = value
            .as_ref()
            .and_then(|v| v["command"].as_str())
            .map(str::to_owned);
        return Ok(Added::Theirs(command));
    }
    let comma = if members.is_empty() { "\n" } else { "," };
    let insertion = Insertion {
        container: Vec::new(),
        text: format!("\n  {}{comma}", entry(key, command)),
    };
    let mut after = text.clone();
    after.insert_str(top + 1, &insertion.text);
    if serde_json::from_str::<serde_json::Value>(&after).is_err() {
        return Err(not_json(super::json_text::JsonTextError {
            at: 0,
            what: "strict JSON (the file has comments or trailing commas)",
        }));
    }
    write(path, &after)?;
    Ok(Added::Written(insertion))
}

/// The entry as written: `"statusLine": {"type": "command", "command": ...}`.
fn entry(key: &str, command: &str) -> String {
    format!(
        "\"{key}\": {{\"type\": \"command\", \"command\": {}, \"padding\": 0}}",
        serde_json::Value::from(command)
    )
}

/// Takes `insertion` out of `text` where install put it (right after the top object's
/// brace); `false` when it is no longer there as written.
pub fn remove(text: &mut String, insertion: &Insertion) -> bool {
    let Ok(top) = top_object(text.as_bytes()) else {
        return false;
    };
    if !text[top + 1..].starts_with(&insertion.text) {
        return false;
    }
    text.replace_range(top + 1..top + 1 + insertion.text.len(), "");
    true
}

/// What `install` says of the status line, for the agent named `title`, the file `path` and
/// the command `ours`.
pub fn said(added: &Added, title: &str, path: &Path, ours: &str) -> String {
    match added {
        Added::Written(_) => format!(
            "{title} shows agent-hooks' status line: `{ours}` ({})",
            path.display()
        ),
        Added::Theirs(theirs) => format!(
            "{title} shows a status line of yours already ({}), so agent-hooks' was not added. To show both, make your status line command print its line, then agent-hooks', from the same input, e.g.:\n  input=$(cat); printf '%s' \"$input\" | {}; printf '%s' \"$input\" | {ours}",
            path.display(),
            theirs.as_deref().unwrap_or("YOUR-COMMAND")
        ),
    }
}
