//! Reading hooks files: the map of events to matcher groups, in both forms (docs/command-hooks.md).

use std::{
    borrow::Cow,
    path::{Path, PathBuf},
    time::Duration,
};

use serde_json::{Map, Value};

use super::{
    condition::Condition,
    handler::{Handler, OnFailure},
    host_call::{HostCall, PROMPT_TIMEOUT},
    http::HttpTarget,
    matcher::Matcher,
};
use crate::agent::{Agent, Profile, Profiles};
use crate::event::CommandEvent;

pub use crate::agent::DEFAULT_TIMEOUT;

/// The longest timeout a file may give; more is taken for a mistake (milliseconds?).
pub const MAX_TIMEOUT: Duration = Duration::from_secs(3600);

/// One command hook, as configured.
#[derive(Debug, Clone)]
pub struct CommandHook {
    /// The event it runs on.
    pub event: CommandEvent,
    /// The event's name as the file gives it (an alias such as `BeforeTool` included): its
    /// `hook_event_name`.
    pub event_name: String,
    /// The agent its file was written for.
    pub dialect: Agent,
    /// The matcher as written (`None` when omitted).
    pub matcher_text: Option<String>,
    /// The compiled matcher.
    pub matcher: Matcher,
    /// What it is and what it runs: a command, an HTTP post, a call the agent answers, or a
    /// long-running command.
    pub kind: HookKind,
    /// How long it may run.
    pub timeout: Duration,
    /// Its `if` rule: it runs only for tool calls that match.
    pub condition: Option<Condition>,
    /// `async`: it runs in the background; its answer decides nothing.
    pub run_async: bool,
    /// `once`: it runs once per session (per runner).
    pub once: bool,
    /// `statusMessage`: shown in the status line while it runs.
    pub status_message: Option<String>,
    /// The plugin it belongs to (`CLAUDE_PLUGIN_ROOT`).
    pub plugin_root: Option<PathBuf>,
    /// The file (or script) it came from.
    pub source: PathBuf,
    /// Marked `"required": true`: when it cannot start or does not answer in time, every
    /// `PreToolUse` it would have seen is blocked instead of going on.
    pub required: bool,
    /// Its group is marked `"sequential": true`: when one such hook runs, every
    /// hook of that event runs one after the other, and a `BeforeTool` hook's rewritten
    /// `tool_input` is what the next one gets.
    pub sequential: bool,
    /// The reference's other handler fields: `args`, `shell`, `asyncRewake`, `onFailure`.
    pub handler: Handler,
    /// `"observe": true` (or the user's observe mode): its answers are recorded, not
    /// applied. Never for a required or managed hook, unless the managed policy allows it.
    pub observe: bool,
}

impl CommandHook {
    /// A hook of `event` of kind `kind`, read from `source` in `dialect`, with every other
    /// field at its default: the event's own name, every subject matched (no matcher
    /// written), [`DEFAULT_TIMEOUT`], no `if` rule, not `async`, not `once`, no status
    /// message, no plugin root, not required, not sequential, the reference's handler fields
    /// at their defaults. The other fields are set with struct update syntax:
    ///
    /// ```
    /// use std::{path::PathBuf, time::Duration};
    /// use agent_hooks::{
    ///     agents::Agent,
    ///     command_hook::{CommandEvent, CommandHook, HookKind},
    /// };
    ///
    /// let hook = CommandHook {
    ///     timeout: Duration::from_secs(5),
    ///     ..CommandHook::new(
    ///         CommandEvent::PreToolUse,
    ///         Agent::AgentHooks,
    ///         HookKind::command("./guard.sh"),
    ///         PathBuf::from(".agent-hooks/hooks/hooks.json"),
    ///     )
    /// };
    /// assert_eq!(hook.event_name, "PreToolUse");
    /// assert_eq!(hook.kind.label(), "./guard.sh");
    /// assert!(!hook.required);
    /// ```
    pub fn new(
        event: CommandEvent,
        dialect: Agent,
        kind: HookKind,
        source: impl Into<PathBuf>,
    ) -> CommandHook {
        CommandHook {
            event,
            event_name: event.name().to_owned(),
            dialect,
            matcher_text: None,
            matcher: Matcher::All,
            kind,
            timeout: DEFAULT_TIMEOUT,
            condition: None,
            run_async: false,
            once: false,
            status_message: None,
            plugin_root: None,
            source: source.into(),
            required: false,
            sequential: false,
            handler: Handler::default(),
            observe: false,
        }
    }
}

/// What a hook is, with what only that kind of hook has: the `type` of its entry in the
/// hooks file, and its `"persistent"` mark.
///
/// ```
/// use agent_hooks::command_hook::{HookKind, Persistence};
///
/// let kind = HookKind::LongRunning {
///     command: "./watch.sh".into(),
///     persistence: Persistence::Startup,
/// };
/// assert_eq!(kind.type_name(), "command");
/// assert_eq!(kind.shell_command(), Some("./watch.sh"));
/// assert_eq!(kind.persistence(), Some(Persistence::Startup));
/// ```
#[derive(Debug, Clone)]
pub enum HookKind {
    /// `type: "command"` (or no `type`), not `persistent`: a shell command (`sh -c`, or the
    /// exec form with `args`), one process per event.
    Command {
        /// The command.
        command: String,
    },
    /// `type: "http"`: the event is posted to a URL.
    Http(HttpTarget),
    /// `type: "mcp_tool"`, `"prompt"` or `"agent"`: the agent answers (an MCP tool's call,
    /// its model, or a subagent).
    HostCall(HostCall),
    /// A command marked `"persistent"`: its process stays running and gets one message per
    /// event over stdin/stdout (the long-running hook protocol); it always runs through the
    /// shell.
    LongRunning {
        /// The command.
        command: String,
        /// When its process starts, and whether it is kept between sessions.
        persistence: Persistence,
    },
}

impl HookKind {
    /// A command hook that runs `command`, one process per event.
    pub fn command(command: impl Into<String>) -> HookKind {
        HookKind::Command {
            command: command.into(),
        }
    }

    /// What names the hook in messages, reports and the decision record: its command, its
    /// URL, or what it asks the agent ([`HostCall::describe`]).
    pub fn label(&self) -> Cow<'_, str> {
        match self {
            HookKind::Command { command } | HookKind::LongRunning { command, .. } => {
                Cow::Borrowed(command)
            }
            HookKind::Http(target) => Cow::Borrowed(&target.url),
            HookKind::HostCall(call) => Cow::Owned(call.describe()),
        }
    }

    /// The shell command of a command hook or a long-running hook; `None` for the others.
    pub fn shell_command(&self) -> Option<&str> {
        match self {
            HookKind::Command { command } | HookKind::LongRunning { command, .. } => Some(command),
            HookKind::Http(_) | HookKind::HostCall(_) => None,
        }
    }

    /// The `type` its entry gives: `command` (a long-running hook too), `http`, `mcp_tool`,
    /// `prompt` or `agent`.
    pub fn type_name(&self) -> &'static str {
        match self {
            HookKind::Command { .. } | HookKind::LongRunning { .. } => "command",
            HookKind::Http(_) => "http",
            HookKind::HostCall(call) => call.kind().name(),
        }
    }

    /// A long-running hook's persistence; `None` for a hook that runs once per event.
    pub fn persistence(&self) -> Option<Persistence> {
        match self {
            HookKind::LongRunning { persistence, .. } => Some(*persistence),
            HookKind::Command { .. } | HookKind::Http(_) | HookKind::HostCall(_) => None,
        }
    }
}

/// How a long-running hook's process lives: its `"persistent"` mark in the hooks file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Persistence {
    /// `"persistent": true`: its command stays running for the session and gets one message
    /// per event over stdin/stdout (the long-running hook protocol); it starts on its first
    /// event.
    Session,
    /// `"persistent": "startup"`: long-running, and its process starts when the runner gets
    /// its hooks; what its hello registers (runner events, commands) joins the runner's
    /// hooks.
    Startup,
    /// `"persistent": "user"`: long-running, one process for every session of the user in
    /// the same project folder, kept between sessions by the program that runs the hooks
    /// (the resident process), so that a new session's first event finds it warm. Events
    /// carry their `session_id`; a hook that keeps state per session keys it by that, or
    /// stays `true`.
    User,
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

/// Parses a hooks file already read (and given its agent's meaning) by the room of the
/// agent it was written for, `dialect`; `profiles` are every agent's, whose names of events
/// every file accepts.
pub(crate) fn parse_hooks_value(
    read: Result<Value, ConfigIssue>,
    source: &Path,
    dialect: Agent,
    profiles: Profiles,
) -> (Vec<CommandHook>, Vec<ConfigIssue>) {
    let mut reader = Reader {
        source,
        dialect,
        profile: profiles.of(dialect),
        profiles,
        settings_form: false,
        disabled: Vec::new(),
        sequential: false,
        hooks: Vec::new(),
        issues: Vec::new(),
    };
    match read {
        Err(issue) => reader.issues.push(issue),
        Ok(Value::Object(top)) => match top.get("hooks") {
            Some(Value::Object(events)) => {
                reader.settings_form = true;
                reader.events(events, "hooks.")
            }
            Some(_) => reader.issue(
                Some("hooks".into()),
                "`hooks` must be an object of events".into(),
                Severity::Error,
            ),
            None => reader.events(&top, ""),
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
    dialect: Agent,
    profile: &'static Profile,
    profiles: Profiles,
    settings_form: bool,
    /// The names of hooks that do not run (`Profile::disabled_list`).
    disabled: Vec<String>,
    /// The group being read is `"sequential": true`.
    sequential: bool,
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

    fn events(&mut self, events: &Map<String, Value>, prefix: &str) {
        if let Some(key) = self.profile.disabled_list {
            self.disabled = events
                .get(key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect();
        }
        for (name, groups) in events {
            let at = format!("{prefix}{name}");
            if self.profile.not_events.contains(&name.as_str()) {
                continue;
            }
            let Some((event, _)) = self.profiles.lookup(name) else {
                let message = match self.profiles.unsupported().find(|(n, _)| n == name) {
                    Some((_, why)) => {
                        format!("event `{name}` is not supported: {why}; its hooks do not run")
                    }
                    None => {
                        let known: Vec<&str> = CommandEvent::ALL.iter().map(|e| e.name()).collect();
                        format!(
                            "unknown event `{name}`, ignored (known: {}; and the other agents' names {})",
                            known.join(", "),
                            self.profiles.aliases().map(|(name, _, _)| name).collect::<Vec<_>>().join(", ")
                        )
                    }
                };
                self.issue(Some(at), message, Severity::Warning);
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
                self.group(event, name, group, &format!("{at}[{i}]"));
            }
        }
    }

    fn group(&mut self, event: CommandEvent, event_name: &str, group: &Value, at: &str) {
        if group.get("commandRegex").is_some() {
            // In the agent whose files have it, `commandRegex` narrows the group to the shell
            // calls whose command matches; this runner does not read it.
            self.issue(
                Some(format!("{at}.commandRegex")),
                "`commandRegex` is not read here: its hooks run on every call the matcher selects, whatever the command".into(),
                Severity::Warning,
            );
        }
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
        let rule = self.profile.matcher_rule(self.settings_form);
        let matcher = match Matcher::compile(matcher_text.as_deref(), rule, event.has_tool()) {
            Ok(matcher) => matcher,
            Err(e) => {
                let pattern = matcher_text.as_deref().unwrap_or_default();
                // A glob habit (`*exec`, `Bash*(`): say what `*` means here.
                let star = if pattern.contains('*') {
                    "; `*` alone matches every tool, and in a regular expression `.*` is any text"
                } else {
                    ""
                };
                self.issue(
                    Some(format!("{at}.matcher")),
                    format!(
                        "invalid matcher `{pattern}`: it is not a valid regular expression ({}){star}; its hooks are skipped",
                        e.to_string().lines().last().unwrap_or_default().trim()
                    ),
                    Severity::Error,
                );
                return;
            }
        };
        let matches_all = matches!(matcher, Matcher::All);
        if !matches_all && event.subject().is_none() {
            self.issue(
                Some(format!("{at}.matcher")),
                format!("{event} has nothing to match; the matcher is ignored"),
                Severity::Warning,
            );
        }
        self.sequential = match group.get("sequential") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(sequential)) => *sequential,
            Some(other) => {
                self.issue(
                    Some(format!("{at}.sequential")),
                    format!("`sequential` must be true or false, not {other}; taken as false"),
                    Severity::Warning,
                );
                false
            }
        };
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
            if let Some(hook) = self.hook(event, event_name, entry, &matcher, &matcher_text, &at) {
                self.hooks.push(hook);
            }
        }
    }

    fn hook(
        &mut self,
        event: CommandEvent,
        event_name: &str,
        entry: &Value,
        matcher: &Matcher,
        matcher_text: &Option<String>,
        at: &str,
    ) -> Option<CommandHook> {
        let kind = match entry.get("type").and_then(Value::as_str) {
            None | Some("command") => {
                match entry.get("command").and_then(Value::as_str).map(str::trim) {
                    Some(command) if !command.is_empty() => HookKind::command(command),
                    _ => {
                        self.issue(
                            Some(at.to_owned()),
                            "missing `command`; skipped".into(),
                            Severity::Error,
                        );
                        return None;
                    }
                }
            }
            Some("http") => HookKind::Http(self.http_target(entry, at)?),
            Some(kind @ ("prompt" | "agent" | "mcp_tool")) => {
                HookKind::HostCall(self.host_call(kind, entry, at)?)
            }
            Some(other) => {
                self.issue(
                    Some(at.to_owned()),
                    format!("unknown hook type `{other}` (known: `command`, `http`, `mcp_tool`, `prompt`, `agent`); skipped"),
                    Severity::Error,
                );
                return None;
            }
        };
        let name = entry.get("name").and_then(Value::as_str);
        if self
            .disabled
            .iter()
            .any(|d| Some(d.as_str()) == name || *d == kind.label())
        {
            self.issue(
                Some(at.to_owned()),
                "listed in `hooks.disabled`; it does not run".into(),
                Severity::Warning,
            );
            return None;
        }
        let condition = match entry.get("if") {
            None | Some(Value::Null) => None,
            Some(Value::String(rule)) if event.has_tool() => match Condition::parse(rule) {
                Ok(condition) => Some(condition),
                Err(problem) => {
                    self.issue(
                        Some(format!("{at}.if")),
                        format!("{problem}; this hook does not run"),
                        Severity::Error,
                    );
                    return None;
                }
            },
            Some(Value::String(_)) => {
                self.issue(
                    Some(format!("{at}.if")),
                    format!("`if` is only evaluated on tool events, not on {event}; ignored"),
                    Severity::Warning,
                );
                None
            }
            Some(other) => {
                self.issue(
                    Some(format!("{at}.if")),
                    format!("`if` must be a rule such as \"Bash(git push:*)\", not {other}; this hook does not run"),
                    Severity::Error,
                );
                return None;
            }
        };
        let run_async = self.flag(entry, "async", at);
        let mut problems = Vec::new();
        let is_http = matches!(kind, HookKind::Http(_));
        let handler = Handler::read(entry, event, is_http, run_async, &mut problems);
        for problem in problems {
            let severity = if problem.skips_hook {
                Severity::Error
            } else {
                Severity::Warning
            };
            self.issue(
                Some(format!("{at}.{}", problem.key)),
                problem.message,
                severity,
            );
        }
        let handler = handler?;
        let persistence = match entry.get("persistent") {
            Some(Value::String(when)) if when == "startup" => Some(Persistence::Startup),
            Some(Value::String(when)) if when == "user" => Some(Persistence::User),
            Some(Value::String(other)) => {
                self.issue(
                    Some(format!("{at}.persistent")),
                    format!("`persistent` must be true, false, \"startup\" or \"user\", not \"{other}\"; taken as true"),
                    Severity::Warning,
                );
                Some(Persistence::Session)
            }
            _ if self.flag(entry, "persistent", at) => Some(Persistence::Session),
            _ => None,
        };
        if persistence.is_some() && handler.args.is_some() {
            self.issue(
                Some(format!("{at}.args")),
                "a `persistent` hook's command runs through the shell, so `args` is not used; give the whole command in `command`".into(),
                Severity::Warning,
            );
        }
        let kind = match (kind, persistence) {
            (HookKind::Command { command }, Some(persistence)) => HookKind::LongRunning {
                command,
                persistence,
            },
            (kind @ HookKind::Http(_), Some(_)) => {
                self.issue(
                    Some(format!("{at}.persistent")),
                    "`persistent` applies to command hooks only; this http hook posts once per event"
                        .into(),
                    Severity::Warning,
                );
                kind
            }
            (HookKind::HostCall(call), Some(_)) => {
                self.issue(
                    Some(format!("{at}.persistent")),
                    format!(
                        "`persistent` applies to command hooks only; this `{}` hook asks the agent once per event",
                        call.kind().name()
                    ),
                    Severity::Warning,
                );
                HookKind::HostCall(call)
            }
            (kind, _) => kind,
        };
        let once = self.flag(entry, "once", at);
        let once = if once && self.profile.ignores_once {
            let agent = self.profile.title;
            self.issue(
                Some(format!("{at}.once")),
                format!("{agent} honours `once` only in skill and agent hooks, so this hook runs every time, as it does under {agent}"),
                Severity::Warning,
            );
            false
        } else {
            once
        };
        let status_message = entry
            .get("statusMessage")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let timeout = match (&kind, entry.get("timeout")) {
            (HookKind::HostCall(HostCall::Prompt { .. }), None) => PROMPT_TIMEOUT,
            (_, given) => self.timeout(given, at),
        };
        // `onFailure: "block"` on a tool call is what `required` is (docs/fail-closed.md).
        let fails_closed =
            handler.on_failure == OnFailure::Block && event == CommandEvent::PreToolUse;
        let required = fails_closed
            || match entry.get("required") {
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
            event_name: event_name.to_owned(),
            matcher_text: matcher_text.clone(),
            matcher: matcher.clone(),
            timeout,
            condition,
            run_async,
            once,
            status_message,
            required,
            sequential: self.sequential,
            handler,
            observe: self.flag(entry, "observe", at),
            ..CommandHook::new(event, self.dialect, kind, self.source)
        })
    }

    /// A hook the agent answers: `mcp_tool` (`server`, `tool`, `input`), `prompt` and
    /// `agent` (`prompt`, `model`).
    fn host_call(&mut self, kind: &str, entry: &Value, at: &str) -> Option<HostCall> {
        let text = |key: &str| {
            entry
                .get(key)
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .map(str::to_owned)
        };
        let mut missing = |key: &str, what: &str| {
            self.issue(
                Some(format!("{at}.{key}")),
                format!("a `{kind}` hook needs `{key}` ({what}); skipped"),
                Severity::Error,
            );
        };
        if kind == "mcp_tool" {
            let Some(server) = text("server") else {
                missing(
                    "server",
                    "the MCP server's name, as the agent's configuration gives it",
                );
                return None;
            };
            let Some(tool) = text("tool") else {
                missing("tool", "the name of the server's tool");
                return None;
            };
            let input = match entry.get("input") {
                None | Some(Value::Null) => Value::Object(Map::new()),
                Some(input @ Value::Object(_)) => input.clone(),
                Some(other) => {
                    self.issue(
                        Some(format!("{at}.input")),
                        format!("`input` must be an object of the tool's arguments, not {other}; skipped"),
                        Severity::Error,
                    );
                    return None;
                }
            };
            return Some(HostCall::McpTool {
                server,
                tool,
                input,
            });
        }
        let Some(prompt) = text("prompt") else {
            missing(
                "prompt",
                "what to ask the model; `$ARGUMENTS` stands for the event's JSON",
            );
            return None;
        };
        let model = text("model");
        Some(if kind == "agent" {
            HostCall::Agent { prompt, model }
        } else {
            HostCall::Prompt { prompt, model }
        })
    }

    /// An HTTP hook's `url` (`http://` or `https://`), `headers` and `allowedEnvVars`.
    fn http_target(&mut self, entry: &Value, at: &str) -> Option<HttpTarget> {
        let url = entry.get("url").and_then(Value::as_str).map(str::trim);
        let problem = match url {
            None | Some("") => Some("an `http` hook needs a `url`; skipped".to_owned()),
            Some(url) if !url.starts_with("http://") && !url.starts_with("https://") => Some(
                format!("`{url}` is not an http:// or https:// URL; this hook does not run"),
            ),
            Some(_) => None,
        };
        if let Some(problem) = problem {
            self.issue(Some(format!("{at}.url")), problem, Severity::Error);
            return None;
        }
        let headers = entry
            .get("headers")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .filter_map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_owned())))
            .collect();
        let allowed_env = entry
            .get("allowedEnvVars")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect();
        Some(HttpTarget {
            url: url.unwrap_or_default().to_owned(),
            headers,
            allowed_env,
        })
    }

    fn flag(&mut self, entry: &Value, key: &str, at: &str) -> bool {
        match entry.get(key) {
            None | Some(Value::Null) => false,
            Some(Value::Bool(value)) => *value,
            Some(other) => {
                self.issue(
                    Some(format!("{at}.{key}")),
                    format!("`{key}` must be true or false, not {other}; taken as false"),
                    Severity::Warning,
                );
                false
            }
        }
    }

    fn timeout(&mut self, value: Option<&Value>, at: &str) -> Duration {
        let Some(value) = value else {
            return DEFAULT_TIMEOUT;
        };
        let default = DEFAULT_TIMEOUT.as_secs();
        let unit = match self.profile.timeout_unit_by_value {
            Some(unit_of) => unit_of(value),
            None => self.profile.timeout_unit,
        };
        let unit_name = if unit < 1.0 {
            "milliseconds"
        } else {
            "seconds"
        };
        let problem = match value.as_f64().map(|v| v * unit) {
            None => format!("timeout {value} is not a number of {unit_name}"),
            Some(s) if !s.is_finite() => {
                format!("timeout {value} is not a finite number of {unit_name}")
            }
            Some(s) if s <= 0.0 => format!("timeout {value} must be a positive number of {unit_name}"),
            Some(s) if s < 0.001 => format!(
                "timeout {value} is below 1 ms, too short for any hook to start (it is in {})",
                if unit < 1.0 {
                    "milliseconds"
                } else {
                    "seconds: 0.5 is half a second"
                }
            ),
            Some(s) if s > MAX_TIMEOUT.as_secs_f64() && unit < 1.0 => format!(
                "timeout {value} ms is more than the {} s allowed",
                MAX_TIMEOUT.as_secs()
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
