//! Hooks files whose events list their hooks directly, `{"version": 1, "hooks": {"<event>":
//! [{"command": ...}, ...]}}`: the form of the agents whose rooms (`agents/`) stand above
//! this one and hand it their [`Format`]. Each dialect gives its names of events, how a hook's command, timeout
//! and matcher are read; this file reads the structure and reports every problem with its
//! place. As those agents do, a malformed hook is dropped alone, a malformed file (not JSON,
//! a `version` other than 1, an event that is not a list) loads nothing.

use std::{path::Path, time::Duration};

use serde_json::{Map, Value};

use super::{
    config::{CommandHook, ConfigIssue, HookKind, Severity, MAX_TIMEOUT},
    matcher::Matcher,
};
use crate::agent::{Agent, Profile};
use crate::event::CommandEvent;

/// What an event name of a flat file stands for.
pub(crate) enum Named {
    /// This event; a hook of it also needs this matcher to select the call (an event of a
    /// shell command is `PreToolUse` of the shell tool only).
    Event(CommandEvent, Option<Matcher>),
    /// An event of that agent this runner has no moment for, and why.
    Unsupported(&'static str),
}

/// What a dialect of flat files decides.
pub(crate) struct Format {
    /// The agent whose format it is.
    pub dialect: Agent,
    /// What agent-hooks knows of that agent.
    pub profile: &'static Profile,
    /// The event a name stands for; `None`: not one of the agent's names.
    pub event: fn(&str) -> Option<Named>,
    /// A hook's command (its shell text) from its entry, or the problem with it.
    pub command: fn(&Map<String, Value>) -> Result<String, String>,
    /// A hook's matcher as written, compiled for the event named so.
    pub matcher: fn(&str, &str, CommandEvent) -> Result<Matcher, String>,
}

/// Reads a flat hooks file written for `format`.
pub(crate) fn parse(
    format: &Format,
    bytes: &[u8],
    source: &Path,
) -> (Vec<CommandHook>, Vec<ConfigIssue>) {
    let mut reader = Reader {
        format,
        source,
        hooks: Vec::new(),
        issues: Vec::new(),
    };
    reader.file(bytes);
    (reader.hooks, reader.issues)
}

struct Reader<'a> {
    format: &'a Format,
    source: &'a Path,
    hooks: Vec<CommandHook>,
    issues: Vec<ConfigIssue>,
}

impl Reader<'_> {
    fn issue(&mut self, at: Option<String>, message: String, severity: Severity) {
        self.issues.push(ConfigIssue {
            file: self.source.to_path_buf(),
            location: at,
            message,
            severity,
        });
    }

    fn file(&mut self, bytes: &[u8]) {
        let agent = self.format.profile.title;
        let top = match serde_json::from_slice::<Value>(bytes) {
            Ok(Value::Object(top)) => top,
            Ok(_) => {
                let message = format!("a {agent} hooks file must be a JSON object with `version` and `hooks`; no hook of this file is loaded");
                return self.issue(None, message, Severity::Error);
            }
            Err(e) => {
                let at = format!("line {}, column {}", e.line(), e.column());
                let message = format!("invalid JSON: {e}; no hook of this file is loaded");
                return self.issue(Some(at), message, Severity::Error);
            }
        };
        // A settings file has a `hooks` key, not a version.
        let settings = self
            .source
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("settings"));
        match top.get("version") {
            Some(v) if v.as_u64() == Some(1) => {}
            None if settings => {}
            None => self.issue(
                Some("version".into()),
                format!("no `version`; read as version 1 ({agent} files say `\"version\": 1`)"),
                Severity::Warning,
            ),
            Some(other) => {
                let message = format!("version {other} is not one {agent} knows (only 1); no hook of this file is loaded");
                return self.issue(Some("version".into()), message, Severity::Error);
            }
        }
        if top.get("disableAllHooks").and_then(Value::as_bool) == Some(true) {
            let message =
                "`disableAllHooks` is true: no hook of this file runs (as in the agent)".into();
            return self.issue(Some("disableAllHooks".into()), message, Severity::Warning);
        }
        let events = match top.get("hooks") {
            Some(Value::Object(events)) => events,
            None => return,
            Some(_) => {
                let message =
                    "`hooks` must be an object of events; no hook of this file is loaded".into();
                return self.issue(Some("hooks".into()), message, Severity::Error);
            }
        };
        // The agent rejects the whole file when an event's value is not a list.
        if let Some((name, _)) = events.iter().find(|(_, v)| !v.is_array()) {
            let message = format!("`{name}` must be a list of hooks; no hook of this file is loaded (as {agent} does)");
            return self.issue(Some(format!("hooks.{name}")), message, Severity::Error);
        }
        for (name, entries) in events {
            let at = format!("hooks.{name}");
            let (event, implied) = match (self.format.event)(name) {
                Some(Named::Event(event, implied)) => (event, implied),
                Some(Named::Unsupported(why)) => {
                    let message =
                        format!("event `{name}` is not supported: {why}; its hooks do not run");
                    self.issue(Some(at), message, Severity::Warning);
                    continue;
                }
                None => {
                    let message = format!(
                        "unknown event `{name}`, ignored ({agent}'s events: {})",
                        self.format
                            .profile
                            .event_names
                            .iter()
                            .map(|(name, _)| *name)
                            .collect::<Vec<_>>()
                            .join(", ")
                    );
                    self.issue(Some(at), message, Severity::Warning);
                    continue;
                }
            };
            for (i, entry) in entries.as_array().into_iter().flatten().enumerate() {
                let at = format!("{at}[{i}]");
                self.entry(event, name, implied.as_ref(), entry, &at);
            }
        }
    }

    /// One item of an event's list: a hook, or (as the agents also accept) a group of the
    /// common form, `{"matcher": ..., "hooks": [...]}`.
    fn entry(
        &mut self,
        event: CommandEvent,
        name: &str,
        implied: Option<&Matcher>,
        entry: &Value,
        at: &str,
    ) {
        let Some(fields) = entry.as_object() else {
            let message = "a hook must be an object; skipped".into();
            return self.issue(Some(at.into()), message, Severity::Error);
        };
        if let Some(inner) = fields.get("hooks").and_then(Value::as_array) {
            let group_matcher = fields.get("matcher").and_then(Value::as_str);
            for (i, hook) in inner.iter().enumerate() {
                let mut hook = hook.as_object().cloned().unwrap_or_default();
                if let Some(m) = group_matcher {
                    hook.entry("matcher")
                        .or_insert_with(|| Value::String(m.into()));
                }
                self.hook(event, name, implied, &hook, &format!("{at}.hooks[{i}]"));
            }
            return;
        }
        self.hook(event, name, implied, fields, at);
    }

    fn hook(
        &mut self,
        event: CommandEvent,
        name: &str,
        implied: Option<&Matcher>,
        fields: &Map<String, Value>,
        at: &str,
    ) {
        match fields.get("type").and_then(Value::as_str) {
            None | Some("command") => {}
            Some("prompt") => {
                let message = format!("a `prompt` hook submits text as the user in {}'s interactive sessions; this runner has no such moment, so it does not run", self.format.profile.title);
                return self.issue(Some(at.into()), message, Severity::Warning);
            }
            Some(other) => {
                let message = format!(
                    "hook type `{other}` is not run from a {} file here (only `command`); skipped",
                    self.format.profile.title
                );
                return self.issue(Some(at.into()), message, Severity::Error);
            }
        }
        let command = match (self.format.command)(fields) {
            Ok(command) => command,
            Err(problem) => return self.issue(Some(at.into()), problem, Severity::Error),
        };
        let matcher_text = fields
            .get("matcher")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let written = match &matcher_text {
            None => Matcher::All,
            Some(m) => {
                match (self.format.matcher)(m, name, event) {
                    Ok(matcher) => matcher,
                    Err(problem) => {
                        let message = format!("invalid matcher `{m}`: {problem}; this hook is skipped (as {} skips it)", self.format.profile.title);
                        return self.issue(Some(format!("{at}.matcher")), message, Severity::Error);
                    }
                }
            }
        };
        // An event such as `beforeShellExecution` selects its tool itself; a matcher the
        // file adds cannot widen that.
        let (matcher, matcher_text) = match (implied, &written) {
            (Some(implied), Matcher::All) => (implied.clone(), matcher_text),
            (Some(_), _) => {
                let message = format!("`{name}` already selects its tool; the matcher is ignored");
                self.issue(Some(format!("{at}.matcher")), message, Severity::Warning);
                (implied.cloned().unwrap_or(Matcher::All), None)
            }
            (None, _) => (written, matcher_text),
        };
        let timeout = self.timeout(fields, at);
        let required = fields.get("required").and_then(Value::as_bool) == Some(true)
            || fields.get("failClosed").and_then(Value::as_bool) == Some(true);
        self.hooks.push(CommandHook {
            event_name: name.to_owned(),
            matcher_text,
            matcher,
            timeout,
            required,
            ..CommandHook::new(
                event,
                self.format.dialect,
                HookKind::command(command),
                self.source,
            )
        });
    }

    /// `timeoutSec`, else `timeout`, in seconds; the format's default.
    fn timeout(&mut self, fields: &Map<String, Value>, at: &str) -> Duration {
        let (key, value) = match (fields.get("timeoutSec"), fields.get("timeout")) {
            (Some(v), _) => ("timeoutSec", v),
            (None, Some(v)) => ("timeout", v),
            (None, None) => return self.format.profile.default_timeout,
        };
        let default = self.format.profile.default_timeout.as_secs();
        let problem = match value.as_f64() {
            Some(s) if s.is_finite() && s >= 0.001 && s <= MAX_TIMEOUT.as_secs_f64() => {
                return Duration::from_secs_f64(s)
            }
            Some(s) if s > MAX_TIMEOUT.as_secs_f64() => format!(
                "{key} {value} is more than the {} s allowed",
                MAX_TIMEOUT.as_secs()
            ),
            Some(_) => format!("{key} {value} must be a positive number of seconds"),
            None => format!("{key} {value} is not a number of seconds"),
        };
        let message = format!("{problem}; the default of {default} s is used");
        self.issue(Some(format!("{at}.{key}")), message, Severity::Warning);
        self.format.profile.default_timeout
    }
}

/// `text` quoted for `sh`.
pub(crate) fn quote(text: &str) -> String {
    super::shell_quote(text)
}

/// A command that first goes to `cwd` (relative to the project, where the hook runs) and
/// sets `env`, as a hook's `cwd` and `env` fields ask: `cd 'dir' && NAME="value" ... && { cmd }`.
/// Values are in double quotes, so `$VAR` in them expands as the agent documents.
pub(crate) fn with_cwd_and_env(command: String, fields: &Map<String, Value>) -> String {
    let mut prefix = String::new();
    if let Some(cwd) = fields.get("cwd").and_then(Value::as_str) {
        prefix.push_str(&format!("cd {} && ", quote(cwd)));
    }
    let env = fields.get("env").and_then(Value::as_object);
    let mut exports = Vec::new();
    for (name, value) in env.into_iter().flatten() {
        let valid = !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        let Some(value) = value.as_str().filter(|_| valid) else {
            continue;
        };
        let escaped: String = value
            .chars()
            .flat_map(|c| match c {
                '"' | '\\' | '`' => vec!['\\', c],
                c => vec![c],
            })
            .collect();
        exports.push(format!("{name}=\"{escaped}\""));
    }
    if !exports.is_empty() {
        prefix.push_str(&format!("export {} && ", exports.join(" ")));
    }
    if prefix.is_empty() {
        command
    } else {
        format!("{prefix}{{ {command}\n}}")
    }
}
