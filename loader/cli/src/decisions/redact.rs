//! A tool's input as a record keeps it: secrets replaced by `[redacted]` (values under keys
//! that name a secret, and tokens, keys and passwords written in strings), long strings
//! cut, or only its digest. Redaction is by pattern: it catches the common forms (API keys
//! and tokens of the large providers, `Authorization` headers, `password=...`, private key
//! blocks, credentials in URLs), not every secret a command can hold.

use std::sync::LazyLock;

use regex::{Regex, RegexSet};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::{hex::hex, settings::InputForm};

/// What replaces a secret.
pub const REDACTED: &str = "[redacted]";

/// The longest string kept whole; a longer one is cut and says how long it was.
const STRING_LIMIT: usize = 4096;

/// The largest input kept as JSON; a larger one is kept as its digest.
const INPUT_LIMIT: usize = 32 * 1024;

/// Keys whose values are secrets whatever they hold.
static SECRET_KEY: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^(.*[_-])?(pass(word|wd|phrase)?|secret|token|api[_-]?key|apikey|access[_-]?key|auth(orization)?|credentials?|private[_-]?key|cookie|session[_-]?key)$",
    )
    .ok()
});

/// Secrets written in text, each with what replaces it.
static SECRET_TEXT: LazyLock<(RegexSet, Vec<(Regex, &'static str)>)> = LazyLock::new(|| {
    let patterns: Vec<(Regex, &'static str)> = [
        (
            r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----",
            "[redacted private key]",
        ),
        (r"(?i)\b(bearer|basic|token)\s+[A-Za-z0-9._~+/=-]{8,}", "$1 [redacted]"),
        (
            r#"(?i)\b([A-Za-z0-9_]*(?:pass(?:word|wd)?|secret|token|api[_-]?key|apikey|auth)[A-Za-z0-9_]*)(\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s&;,'"]+)"#,
            "$1$2[redacted]",
        ),
        (r"://[^/\s:@]+:[^/\s@]+@", "://[redacted]@"),
        (r"\bAKIA[0-9A-Z]{16}\b", "[redacted]"),
        (r"\bgh[pousr]_[A-Za-z0-9]{30,}\b", "[redacted]"),
        (r"\bgithub_pat_[A-Za-z0-9_]{20,}\b", "[redacted]"),
        (r"\bsk-[A-Za-z0-9_-]{20,}", "[redacted]"),
        (r"\bxox[abprs]-[A-Za-z0-9-]{10,}", "[redacted]"),
        (r"\bAIza[0-9A-Za-z_-]{35}\b", "[redacted]"),
    ]
    .into_iter()
    .filter_map(|(pattern, with)| Regex::new(pattern).ok().map(|r| (r, with)))
    .collect();
    // One pass finds which patterns a string holds (most hold none).
    let set = RegexSet::new(patterns.iter().map(|(r, _)| r.as_str()))
        .unwrap_or_else(|_| RegexSet::empty());
    (set, patterns)
});

/// A tool's input in a record: `(input, digest)`, one of them set, as `form` says.
pub fn keep(input: &Value, form: InputForm) -> (Option<Value>, Option<String>) {
    let kept = match form {
        InputForm::Digest => return (None, Some(digest(input))),
        InputForm::Full => cut(input.clone(), false),
        InputForm::Redacted => cut(input.clone(), true),
    };
    if kept.to_string().len() > INPUT_LIMIT {
        return (None, Some(digest(input)));
    }
    (Some(kept), None)
}

/// `sha256:` and the hex SHA-256 of `value`'s JSON.
pub fn digest(value: &Value) -> String {
    format!(
        "sha256:{}",
        hex(&Sha256::digest(value.to_string().as_bytes()))
    )
}

fn cut(value: Value, redacting: bool) -> Value {
    match value {
        Value::String(text) => Value::String(cut_text(text, redacting)),
        Value::Array(items) => Value::Array(items.into_iter().map(|v| cut(v, redacting)).collect()),
        Value::Object(fields) => Value::Object(
            fields
                .into_iter()
                .map(|(key, value)| {
                    let value = if redacting && is_secret_key(&key) && !value.is_null() {
                        Value::String(REDACTED.into())
                    } else {
                        cut(value, redacting)
                    };
                    (key, value)
                })
                .collect::<Map<String, Value>>(),
        ),
        other => other,
    }
}

fn is_secret_key(key: &str) -> bool {
    SECRET_KEY.as_ref().is_some_and(|r| r.is_match(key))
}

fn cut_text(mut text: String, redacting: bool) -> String {
    if redacting {
        let (set, patterns) = &*SECRET_TEXT;
        for index in set.matches(&text).into_iter() {
            if let Some((pattern, with)) = patterns.get(index) {
                if let std::borrow::Cow::Owned(replaced) = pattern.replace_all(&text, *with) {
                    text = replaced;
                }
            }
        }
    }
    if text.len() > STRING_LIMIT {
        let length = text.len();
        let mut end = STRING_LIMIT;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push_str(&format!("… [cut: {length} bytes in all]"));
    }
    text
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn redacted(input: Value) -> Value {
        keep(&input, InputForm::Redacted).0.unwrap_or(Value::Null)
    }

    #[test]
    fn secrets_in_commands_and_fields_are_replaced() {
        let input = json!({
            "command": "curl -H 'Authorization: Bearer abcdef0123456789' https://bob:hunter2@example.com/?api_key=XYZ123 && export GITHUB_TOKEN=ghp_0123456789abcdefghijklmnopqrstuvwxyz",
            "env": {"AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI", "HOME": "/home/u"},
            "password": "pw",
            "description": "list files"
        });
        let kept = redacted(input);
        let command = kept["command"].as_str().unwrap_or_default();
        for secret in ["abcdef0123456789", "hunter2", "XYZ123", "ghp_0123"] {
            assert!(!command.contains(secret), "{secret} in {command}");
        }
        assert!(
            command.starts_with("curl -H 'Authorization: [redacted]"),
            "{command}"
        );
        assert_eq!(kept["env"]["AWS_SECRET_ACCESS_KEY"], "[redacted]");
        assert_eq!(kept["env"]["HOME"], "/home/u");
        assert_eq!(kept["password"], "[redacted]");
        assert_eq!(kept["description"], "list files");
    }

    #[test]
    fn a_private_key_block_goes_whole() {
        let kept = redacted(
            json!({"content": "a\n-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\nBBBB\n-----END OPENSSH PRIVATE KEY-----\nb"}),
        );
        assert_eq!(kept["content"], "a\n[redacted private key]\nb");
    }

    #[test]
    fn full_keeps_secrets_digest_keeps_nothing_and_long_strings_are_cut() {
        let input = json!({"command": "echo password=pw"});
        assert_eq!(keep(&input, InputForm::Full).0, Some(input.clone()));
        let (kept, digest) = keep(&input, InputForm::Digest);
        assert_eq!(kept, None);
        assert_eq!(digest.map(|d| d.len()), Some(7 + 64));
        let long = json!({"content": "x".repeat(5000)});
        let kept = keep(&long, InputForm::Full).0.unwrap_or(Value::Null);
        assert!(kept["content"]
            .as_str()
            .is_some_and(|t| t.ends_with("… [cut: 5000 bytes in all]")));
    }
}
