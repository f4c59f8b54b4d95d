//! Reading hooks files: the map of events to matcher groups, in both forms of spec 02.

use std::{
    path::{Path, PathBuf},
    time::Duration,
};

use serde_json::{Map, Value};

use super::{
    event::CommandEvent,
    matcher::{Dialect, Matcher},
};
use crate::file::{read_checked, Limit, StrictModes};

/// The timeout of a hook whose file gives none.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The longest timeout a file may give; more is taken for a mistake (milliseconds?).
pub const MAX_TIMEOUT: Duration = Duration::from_secs(3600);

/// One command hook, as configured.
#[derive(Debug, Clone)]
pub struct CommandHook {
    /// The event it runs on.
    pub event: CommandEvent,
    /// The matcher as written (`None` when omitted).
    pub matcher_text: Option<String>,
    /// The compiled matcher.
    pub matcher: Matcher,
    /// The shell command (`sh -c`).
    pub command: String,
    /// How long it may run.
    pub timeout: Duration,
    /// The file (or script) it came from.
    pub source: PathBuf,
    /// Marked `"required": true`: when it cannot start or does not answer in time, every
    /// `PreToolUse` it would have seen is blocked instead of going on.
    pub required: bool,
}

/// How serious a configuration problem is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    /// The hook still loads (with a default), or nothing was lost.
    Warning,
    /// Something was skipped.
    Error,
}

/// A problem in a hooks file, with where it is and what was done about it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{}: {message}", file.display(), location.as_deref().map(|l| format!(" ({l})")).unwrap_or_default())]
pub struct ConfigIssue {
    /// The file.
    pub file: PathBuf,
    /// Where in it: `line 3, column 7`, or a path like `PreToolUse[0].hooks[1]`.
    pub location: Option<String>,
    /// What is wrong and what happened.
    pub message: String,
    /// Warning or error.
    pub severity: Severity,
}

/// Parses the hooks file at `path`: its hooks in file order, and its problems. The file is
/// read once, checked first (a regular file of at most 4 MiB that other users cannot change;
/// a FIFO or a device is refused without being read).
pub fn load_hooks_file(path: &Path) -> (Vec<CommandHook>, Vec<ConfigIssue>) {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let mut modes = StrictModes::new(home.as_deref());
    match read_checked(path, Limit::HooksFile, &mut modes) {
        Ok(file) => parse_hooks_bytes(&file.bytes, path),
        Err(e) => (
            Vec::new(),
            vec![ConfigIssue {
                file: path.to_path_buf(),
                location: None,
                message: format!("the hooks file is not loaded: {e}"),
                severity: Severity::Error,
            }],
        ),
    }
}

/// Parses hooks JSON read from `source`.
pub fn parse_hooks(text: &str, source: &Path) -> (Vec<CommandHook>, Vec<ConfigIssue>) {
    parse_hooks_bytes(text.as_bytes(), source)
}

/// Parses hooks JSON bytes read from `source` (invalid UTF-8 is reported like invalid JSON).
pub fn parse_hooks_bytes(bytes: &[u8], source: &Path) -> (Vec<CommandHook>, Vec<ConfigIssue>) {
    let mut reader = Reader {
        source,
        hooks: Vec::new(),
        issues: Vec::new(),
    };
    match serde_json::from_slice::<Value>(bytes) {
        Err(e) => reader.issue(
            Some(format!("line {}, column {}", e.line(), e.column())),
            format!("invalid JSON: {e}; no hook of this file is loaded"),
            Severity::Error,
        ),
        Ok(Value::Object(top)) => match top.get("hooks") {
            Some(Value::Object(events)) => reader.events(events, Dialect::Settings, "hooks."),
            Some(_) => reader.issue(
                Some("hooks".into()),
                "`hooks` must be an object of events".into(),
                Severity::Error,
            ),
            None => reader.events(&top, Dialect::HooksFile, ""),
        },
        Ok(_) => reader.issue(
            None,
            "a hooks file must be a JSON object of events".into(),
            Severity::Error,
        ),
    }
    (reader.hooks, reader.issues)
}

struct Reader<'a> {
    source: &'a Path,
    hooks: Vec<CommandHook>,
    issues: Vec<ConfigIssue>,
}

impl Reader<'_> {
    fn issue(&mut self, location: Option<String>, message: String, severity: Severity) {
        self.issues.push(ConfigIssue {
            file: self.source.to_path_buf(),
            location,
            message,
            severity,
        });
    }

    fn events(&mut self, events: &Map<String, Value>, dialect: Dialect, prefix: &str) {
        for (name, groups) in events {
            let at = format!("{prefix}{name}");
            let Ok(event) = name.parse::<CommandEvent>() else {
                let known: Vec<&str> = CommandEvent::ALL.iter().map(|e| e.name()).collect();
                self.issue(
                    Some(at),
                    format!(
                        "unknown event `{name}`, ignored (known: {})",
                        known.join(", ")
                    ),
                    Severity::Warning,
                );
                continue;
            };
            let Some(groups) = groups.as_array() else {
                self.issue(
                    Some(at),
                    "expected a list of matcher groups".into(),
                    Severity::Error,
                );
                continue;
            };
            for (i, group) in groups.iter().enumerate() {
                self.group(event, group, dialect, &format!("{at}[{i}]"));
            }
        }
    }

    fn group(&mut self, event: CommandEvent, group: &Value, dialect: Dialect, at: &str) {
        let matcher_text = match group.get("matcher") {
            None | Some(Value::Null) => None,
            Some(Value::String(m)) => Some(m.clone()),
            Some(_) => {
                self.issue(
                    Some(format!("{at}.matcher")),
                    "the matcher must be a string; this group is skipped".into(),
                    Severity::Error,
                );
                return;
            }
        };
        let matcher = match Matcher::compile(matcher_text.as_deref(), dialect) {
            Ok(matcher) => matcher,
            Err(e) => {
                let pattern = matcher_text.as_deref().unwrap_or_default();
                self.issue(
                    Some(format!("{at}.matcher")),
                    format!(
                        "invalid matcher `{pattern}` (a regular expression, not a glob: write `.*`, not `*`): {}; its hooks are skipped",
                        e.to_string().lines().last().unwrap_or_default().trim()
                    ),
                    Severity::Error,
                );
                return;
            }
        };
        let matches_all = matches!(matcher, Matcher::All);
        if !matches_all && !event.has_tool() {
            self.issue(
                Some(format!("{at}.matcher")),
                format!("{event} has no tool name; the matcher is ignored"),
                Severity::Warning,
            );
        }
        let Some(entries) = group.get("hooks").and_then(Value::as_array) else {
            self.issue(
                Some(at.to_owned()),
                "expected `hooks`: a list of hooks".into(),
                Severity::Error,
            );
            return;
        };
        for (i, entry) in entries.iter().enumerate() {
            let at = format!("{at}.hooks[{i}]");
            if let Some(hook) = self.hook(event, entry, &matcher, &matcher_text, &at) {
                self.hooks.push(hook);
            }
        }
    }

    fn hook(
        &mut self,
        event: CommandEvent,
        entry: &Value,
        matcher: &Matcher,
        matcher_text: &Option<String>,
        at: &str,
    ) -> Option<CommandHook> {
        match entry.get("type").and_then(Value::as_str) {
            None | Some("command") => {}
            Some(other) => {
                self.issue(
                    Some(at.to_owned()),
                    format!("unknown hook type `{other}` (only `command` is supported); skipped"),
                    Severity::Error,
                );
                return None;
            }
        }
        let command = match entry.get("command").and_then(Value::as_str).map(str::trim) {
            Some(command) if !command.is_empty() => command.to_owned(),
            _ => {
                self.issue(
                    Some(at.to_owned()),
                    "missing `command`; skipped".into(),
                    Severity::Error,
                );
                return None;
            }
        };
        let timeout = self.timeout(entry.get("timeout"), at);
        let required = match entry.get("required") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(required)) => *required,
            Some(other) => {
                self.issue(
                    Some(format!("{at}.required")),
                    format!("`required` must be true or false, not {other}; the hook is taken as required"),
                    Severity::Warning,
                );
                true
            }
        };
        Some(CommandHook {
            event,
            matcher_text: matcher_text.clone(),
            matcher: matcher.clone(),
            command,
            timeout,
            source: self.source.to_path_buf(),
            required,
        })
    }

    fn timeout(&mut self, value: Option<&Value>, at: &str) -> Duration {
        let Some(value) = value else {
            return DEFAULT_TIMEOUT;
        };
        let default = DEFAULT_TIMEOUT.as_secs();
        let problem = match value.as_f64() {
            None => format!("timeout {value} is not a number of seconds"),
            Some(s) if !s.is_finite() => format!("timeout {value} is not a finite number of seconds"),
            Some(s) if s <= 0.0 => format!("timeout {value} must be a positive number of seconds"),
            Some(s) if s < 0.001 => format!(
                "timeout {value} is below 1 ms, too short for any hook to start (it is in seconds: 0.5 is half a second)"
            ),
            Some(s) if s > MAX_TIMEOUT.as_secs_f64() => format!(
                "timeout {value} is in seconds ({:.0} minutes), more than the {} allowed; milliseconds are not accepted",
                s / 60.0,
                MAX_TIMEOUT.as_secs()
            ),
            Some(s) => return Duration::from_secs_f64(s),
        };
        self.issue(
            Some(format!("{at}.timeout")),
            format!("{problem}; the default of {default} s is used"),
            Severity::Warning,
        );
        DEFAULT_TIMEOUT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> (Vec<CommandHook>, Vec<String>) {
        let (hooks, issues) = parse_hooks(text, Path::new("hooks.json"));
        (hooks, issues.iter().map(|i| i.to_string()).collect())
    }

    #[test]
    fn both_forms_load() {
        let top = r#"{"PreToolUse": [{"matcher": "exec", "hooks": [{"type": "command", "command": "a", "timeout": 5}]}]}"#;
        let (hooks, issues) = parse(top);
        assert!(issues.is_empty(), "{issues:?}");
        assert_eq!(hooks[0].event, CommandEvent::PreToolUse);
        assert_eq!(hooks[0].timeout, Duration::from_secs(5));
        assert!(hooks[0].matcher.matches("mcp__x__exec"));

        let settings = r#"{"model": "x", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "b"}]}], "PostToolUse": [{"matcher": "exec", "hooks": [{"command": "c"}]}]}}"#;
        let (hooks, issues) = parse(settings);
        assert!(issues.is_empty(), "{issues:?}");
        assert_eq!(hooks.len(), 2);
        assert_eq!(hooks[0].timeout, DEFAULT_TIMEOUT);
        assert!(
            !hooks[1].matcher.matches("mcp__x__exec"),
            "settings: exact name"
        );
    }

    #[test]
    fn each_problem_is_reported_with_its_place_and_the_rest_loads() {
        let text = r#"{
          "PreToolUse": [
            {"matcher": "*", "hooks": [{"type": "command", "command": "bad-matcher"}]},
            {"matcher": "exec", "hooks": [
              {"type": "prompt", "prompt": "x"},
              {"type": "command"},
              {"type": "command", "command": "slow", "timeout": 5000},
              {"type": "command", "command": "negative", "timeout": -1},
              {"type": "command", "command": "tiny", "timeout": 0.0001},
              {"type": "command", "command": "ok", "timeout": 2}
            ]}
          ],
          "BeforeEverything": []
        }"#;
        let (hooks, issues) = parse(text);
        let commands: Vec<&str> = hooks.iter().map(|h| h.command.as_str()).collect();
        assert_eq!(commands, ["slow", "negative", "tiny", "ok"]);
        assert_eq!(hooks[0].timeout, DEFAULT_TIMEOUT);
        assert_eq!(
            issues,
            [
                "hooks.json (PreToolUse[0].matcher): invalid matcher `*` (a regular expression, not a glob: write `.*`, not `*`): error: repetition operator missing expression; its hooks are skipped",
                "hooks.json (PreToolUse[1].hooks[0]): unknown hook type `prompt` (only `command` is supported); skipped",
                "hooks.json (PreToolUse[1].hooks[1]): missing `command`; skipped",
                "hooks.json (PreToolUse[1].hooks[2].timeout): timeout 5000 is in seconds (83 minutes), more than the 3600 allowed; milliseconds are not accepted; the default of 60 s is used",
                "hooks.json (PreToolUse[1].hooks[3].timeout): timeout -1 must be a positive number of seconds; the default of 60 s is used",
                "hooks.json (PreToolUse[1].hooks[4].timeout): timeout 0.0001 is below 1 ms, too short for any hook to start (it is in seconds: 0.5 is half a second); the default of 60 s is used",
                "hooks.json (BeforeEverything): unknown event `BeforeEverything`, ignored (known: PreToolUse, PostToolUse, PermissionRequest, UserPromptSubmit, Stop, PostCompaction, SessionStart, SessionEnd)",
            ]
        );
    }

    #[test]
    fn invalid_json_gives_line_and_column() {
        let (hooks, issues) = parse("{\n  \"Stop\": [\n    {\"hooks\": [}\n  ]\n}");
        assert!(hooks.is_empty());
        assert_eq!(issues.len(), 1);
        assert!(
            issues[0].starts_with("hooks.json (line 3, column 16): invalid JSON: "),
            "{}",
            issues[0]
        );
    }
}
