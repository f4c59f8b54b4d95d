//! Gemini CLI's hooks files as Gemini CLI 0.61.0 reads them: its `settings.json` may hold
//! comments (it strips `//` and `/* */` comments before parsing); `hooksConfig` holds the
//! switches (`enabled`, `disabled`: hook names or commands that do not run,
//! `notifications`), which older files kept inside `hooks`; an extension's
//! `hooks/hooks.json` may use `${extensionPath}`, `${workspacePath}`, `${/}` and
//! `${pathSeparator}`, which Gemini CLI replaces in every string before reading it.

use std::path::Path;

use serde_json::Value;

/// `text` without its `//` and `/* */` comments (outside strings); each comment becomes
/// spaces, and its newlines stay, so that the parser's line and column still point into
/// the file as written. An unterminated block comment runs to the end.
pub fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match c {
                '\\' => {
                    if let Some(next) = chars.next() {
                        out.push(next);
                    }
                }
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            ('/', Some('/')) => {
                out.push_str("  ");
                chars.next();
                while let Some(&next) = chars.peek() {
                    if next == '\n' {
                        break;
                    }
                    out.push(' ');
                    chars.next();
                }
            }
            ('/', Some('*')) => {
                out.push_str("  ");
                chars.next();
                let mut last = ' ';
                for next in chars.by_ref() {
                    out.push(if next == '\n' { '\n' } else { ' ' });
                    if last == '*' && next == '/' {
                        break;
                    }
                    last = next;
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// Whether the settings turn Gemini CLI's hooks off (`hooksConfig.enabled: false`, or the
/// older `hooks.enabled: false`).
pub fn hooks_turned_off(file: &Value) -> bool {
    ["hooksConfig", "hooks"]
        .iter()
        .any(|key| file.pointer(&format!("/{key}/enabled")) == Some(&Value::Bool(false)))
}

/// Moves `hooksConfig.disabled` into `hooks.disabled` (where the reader looks), drops the
/// switches that are not events, and replaces an extension's variables.
pub fn normalize(file: &mut Value, source: &Path) {
    let disabled: Vec<Value> = file
        .pointer("/hooksConfig/disabled")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if let Some(Value::Object(events)) = file.get_mut("hooks") {
        if !disabled.is_empty() {
            let list = events
                .entry("disabled")
                .or_insert_with(|| Value::Array(Vec::new()));
            if let Value::Array(list) = list {
                list.extend(disabled);
            }
        }
        events.remove("notifications");
    }
    if let Some(root) = extension_root(source) {
        let root = root.to_string_lossy().into_owned();
        let workspace = std::env::current_dir()
            .map(|d| d.to_string_lossy().into_owned())
            .unwrap_or_default();
        hydrate(
            file,
            &[
                ("extensionPath", root.as_str()),
                ("workspacePath", workspace.as_str()),
                ("/", "/"),
                ("pathSeparator", "/"),
            ],
        );
    }
}

/// The extension folder an extension's `hooks/hooks.json` belongs to: the folder above
/// `hooks/` that holds `gemini-extension.json`.
pub(crate) fn extension_root(hooks_file: &Path) -> Option<&Path> {
    let hooks_dir = hooks_file.parent()?;
    if hooks_dir.file_name()? != "hooks" || hooks_file.file_name()? != "hooks.json" {
        return None;
    }
    let root = hooks_dir.parent()?;
    root.join("gemini-extension.json").is_file().then_some(root)
}

/// Replaces `${name}` by its value in every string of `value`; unknown names stay as
/// written, as Gemini CLI leaves them.
fn hydrate(value: &mut Value, variables: &[(&str, &str)]) {
    match value {
        Value::String(text) if text.contains("${") => {
            let mut out = String::with_capacity(text.len());
            let mut rest = text.as_str();
            while let Some(start) = rest.find("${") {
                out.push_str(&rest[..start]);
                let after = &rest[start + 2..];
                match after.find('}') {
                    Some(end) => {
                        let name = &after[..end];
                        match variables.iter().find(|(n, _)| *n == name) {
                            Some((_, value)) => out.push_str(value),
                            None => out.push_str(&rest[start..start + 2 + end + 1]),
                        }
                        rest = &after[end + 1..];
                    }
                    None => {
                        out.push_str(&rest[start..]);
                        rest = "";
                    }
                }
            }
            out.push_str(rest);
            *text = out;
        }
        Value::Array(items) => items.iter_mut().for_each(|v| hydrate(v, variables)),
        Value::Object(fields) => fields.values_mut().for_each(|v| hydrate(v, variables)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_go_strings_stay_and_lines_keep_their_place() {
        let text = "{\n  // a comment \"with quotes\"\n  \"a\": \"http://x/*y*/\", /* block\n spanning */ \"b\": 1\n}";
        let stripped = strip_comments(text);
        assert_eq!(stripped.lines().count(), text.lines().count());
        let value: Value = serde_json::from_str(&stripped).unwrap();
        assert_eq!(value, serde_json::json!({"a": "http://x/*y*/", "b": 1}));
        let escaped = r#"{"a": "quote \" // not a comment"}"#;
        assert_eq!(strip_comments(escaped), escaped);
    }

    #[test]
    fn variables_are_replaced_and_unknown_ones_stay() {
        let mut value = serde_json::json!({"c": "node ${extensionPath}${/}x.js ${other} ${"});
        hydrate(&mut value, &[("extensionPath", "/e"), ("/", "/")]);
        assert_eq!(value, serde_json::json!({"c": "node /e/x.js ${other} ${"}));
    }

    #[test]
    fn switches_move_out_of_the_events() {
        let mut value = serde_json::json!({
            "hooksConfig": {"enabled": true, "disabled": ["off"], "notifications": false},
            "hooks": {"notifications": true, "BeforeTool": []}
        });
        normalize(&mut value, Path::new("settings.json"));
        assert_eq!(
            value["hooks"],
            serde_json::json!({"BeforeTool": [], "disabled": ["off"]})
        );
        assert!(!hooks_turned_off(&value));
        assert!(hooks_turned_off(
            &serde_json::json!({"hooksConfig": {"enabled": false}})
        ));
    }
}
