//! Where the agents part ways over hooks files, chosen in one place: which room reads a
//! hooks file (the common form, read in `command_hook` with the facts of the file's agent, or
//! a form of the agent's own, read in its room), which reads a hook's answer, and what
//! payload its hooks get. The rooms know nothing of each other.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{claude_code, cline, copilot_cli, cursor, file_form, Agent, PROFILES};
use crate::command_hook::{
    interpret_answer, parse_hooks_value, shell_quote, Answer, CommandHook, CommandHooks,
    ConfigIssue, HookKind, Matcher, Run, Severity,
};
use crate::event::CommandEvent;
use crate::file::{read_checked, Limit, StrictModes};

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

/// Parses hooks JSON read from `source`, in the dialect its place says (see
/// [`Agent::of_file`]).
pub fn parse_hooks(text: &str, source: &Path) -> (Vec<CommandHook>, Vec<ConfigIssue>) {
    parse_hooks_bytes(text.as_bytes(), source)
}

/// Parses hooks JSON bytes read from `source` (invalid UTF-8 is reported like invalid JSON),
/// in the dialect its place says; a `.toml` file is Codex's (its `[hooks]` table).
pub fn parse_hooks_bytes(bytes: &[u8], source: &Path) -> (Vec<CommandHook>, Vec<ConfigIssue>) {
    parse_hooks_as(bytes, source, file_form::dialect_of(source))
}

/// Parses hooks JSON bytes read from `source`, written for `dialect`.
pub fn parse_hooks_as(
    bytes: &[u8],
    source: &Path,
    dialect: Agent,
) -> (Vec<CommandHook>, Vec<ConfigIssue>) {
    // Their own formats: events that list hooks directly.
    match dialect {
        Agent::Copilot => return copilot_cli::parse(bytes, source),
        Agent::Cursor => return cursor::parse(bytes, source),
        Agent::Cline => return cline::parse(bytes, source),
        _ => {}
    }
    parse_value(file_form::read(bytes, source, dialect), source, dialect)
}

/// Parses a hooks file already read into its value (see [`file_form::read`]), written for
/// `dialect`: the common form, with that agent's facts, and each hook of a Claude Code
/// plugin given the plugin's root.
pub(crate) fn parse_value(
    read: Result<Value, ConfigIssue>,
    source: &Path,
    dialect: Agent,
) -> (Vec<CommandHook>, Vec<ConfigIssue>) {
    let (mut hooks, issues) = parse_hooks_value(read, source, dialect, PROFILES);
    if let Some(root) = claude_code::plugin_root(source) {
        for hook in &mut hooks {
            hook.plugin_root = Some(root.to_path_buf());
        }
    }
    (hooks, issues)
}

/// Reads the answer of `hook`'s run in its dialect: Copilot CLI's and Cursor's answers are
/// their own, the others Claude Code's (then adapted by [`Agent::adapt`]).
pub(crate) fn interpret_hook(hook: &CommandHook, run: &Run) -> Answer {
    match hook.dialect {
        Agent::Copilot => copilot_cli::interpret(hook.event, &hook.event_name, run),
        Agent::Cursor => cursor::interpret(hook.event, &hook.event_name, run),
        Agent::Cline => cline::interpret(hook.event, run),
        _ => interpret_answer(hook.event, run, PROFILES),
    }
}

/// The payload a hook of `agent` gets for `event` (named `event_name` in its file), from the
/// payload in Claude Code's fields (tool names already the hook's): Copilot CLI's and
/// Cursor's are their own.
pub fn payload_in(agent: Agent, event: CommandEvent, event_name: &str, claude: Value) -> Value {
    let Value::Object(fields) = claude else {
        return claude;
    };
    match agent {
        Agent::Copilot => copilot_cli::payload(event, event_name, fields),
        Agent::Cursor => cursor::payload(event, event_name, fields),
        Agent::Cline => cline::payload(event, event_name, fields),
        _ => Value::Object(fields),
    }
}

/// Reading hooks files: their agent's room reads each (`command_hook` stands below the rooms
/// and is handed their facts).
impl CommandHooks {
    /// Adds the hooks of the hooks file at `path` (either form: docs/command-hooks.md) after those
    /// already there; its problems are added to [`issues`](Self::issues).
    pub fn load_file(&mut self, path: &Path) -> &mut Self {
        let (hooks, issues) = load_hooks_file(path);
        self.extend(hooks, issues)
    }

    /// Adds the hooks of hooks JSON `bytes`, read (and checked) from `source`.
    pub fn load_bytes(&mut self, bytes: &[u8], source: &Path) -> &mut Self {
        let (hooks, issues) = parse_hooks_bytes(bytes, source);
        self.extend(hooks, issues)
    }

    /// Adds the hooks of hooks JSON `text`, read from `source`.
    pub fn parse(&mut self, text: &str, source: &Path) -> &mut Self {
        let (hooks, issues) = parse_hooks(text, source);
        self.extend(hooks, issues)
    }

    /// Adds a hooks file read (and reviewed) by the caller: its value as
    /// [`file_form::read`] gave it, from `source`.
    pub(crate) fn load_value(
        &mut self,
        read: Result<Value, ConfigIssue>,
        source: &Path,
        extra: Vec<ConfigIssue>,
    ) -> &mut Self {
        let (hooks, mut issues) = parse_value(read, source, file_form::dialect_of(source));
        issues.extend(extra);
        self.extend(hooks, issues)
    }

    /// Adds a legacy hook script: an executable in a `pre/` (`PreToolUse`) or `post/`
    /// (`PostToolUse`) folder named `<tool>.<ext>`, which runs for that tool (`*`: every
    /// tool) with the same protocol as any command hook.
    pub fn add_script(&mut self, script: &Path, event: CommandEvent) -> &mut Self {
        let tool = script
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let matcher = if tool == "*" {
            Matcher::All
        } else {
            Matcher::Names(vec![tool.clone()])
        };
        let hook = CommandHook {
            matcher_text: Some(tool),
            matcher,
            ..CommandHook::new(
                event,
                Agent::of_file(script),
                HookKind::command(shell_quote(&script.to_string_lossy())),
                script,
            )
        };
        self.extend(vec![hook], Vec::new())
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::agents::DEFAULT_TIMEOUT;

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
            {"matcher": "*exec", "hooks": [{"type": "command", "command": "bad-matcher"}]},
            {"matcher": "exec", "hooks": [
              {"type": "prompt"},
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
        let commands: Vec<_> = hooks.iter().map(|h| h.kind.label()).collect();
        assert_eq!(commands, ["slow", "negative", "tiny", "ok"]);
        assert_eq!(hooks[0].timeout, DEFAULT_TIMEOUT);
        assert_eq!(
            issues,
            [
                "hooks.json (PreToolUse[0].matcher): invalid matcher `*exec`: it is not a valid regular expression (error: repetition operator missing expression); `*` alone matches every tool, and in a regular expression `.*` is any text; its hooks are skipped",
                "hooks.json (PreToolUse[1].hooks[0].prompt): a `prompt` hook needs `prompt` (what to ask the model; `$ARGUMENTS` stands for the event's JSON); skipped",
                "hooks.json (PreToolUse[1].hooks[1]): missing `command`; skipped",
                "hooks.json (PreToolUse[1].hooks[2].timeout): timeout 5000 is in seconds (83 minutes), more than the 3600 allowed; milliseconds are not accepted; the default of 60 s is used",
                "hooks.json (PreToolUse[1].hooks[3].timeout): timeout -1 must be a positive number of seconds; the default of 60 s is used",
                "hooks.json (PreToolUse[1].hooks[4].timeout): timeout 0.0001 is below 1 ms, too short for any hook to start (it is in seconds: 0.5 is half a second); the default of 60 s is used",
                "hooks.json (BeforeEverything): unknown event `BeforeEverything`, ignored (known: SessionStart, Setup, InstructionsLoaded, UserPromptSubmit, UserPromptExpansion, PreToolUse, PermissionRequest, PermissionDenied, PreSkillShellCommand, PostToolUse, PostToolUseFailure, PostToolBatch, Notification, MessageDisplay, SubagentStart, SubagentStop, Stop, StopFailure, TeammateIdle, TaskCreated, TaskCompleted, ConfigChange, CwdChanged, DirectoryAdded, FileChanged, WorktreeCreate, WorktreeRemove, PreCompact, PostCompact, PreModelSwitch, PostModelSwitch, Elicitation, ElicitationResult, SessionEnd; and the other agents' names BeforeTool, AfterTool, BeforeAgent, AfterAgent, PreCompress, PostCompaction)",
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

    #[test]
    fn hook_fields_are_read_and_other_types_are_reported_not_skipped_silently() {
        let text = r#"{"hooks": {
          "PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "guard", "if": "Bash(git push:*)", "statusMessage": "Checking the push", "once": true},
            {"type": "command", "command": "log", "async": true},
            {"type": "http", "url": "ftp://policy.example/hook"},
            {"type": "command", "command": "bad-if", "if": "Bash(git"}
          ]}],
          "SessionStart": [{"matcher": "startup|clear|compact", "hooks": [{"type": "command", "command": "ctx", "if": "Bash"}]}]
        }}"#;
        let (hooks, issues) =
            parse_hooks_as(text.as_bytes(), Path::new("s.json"), Agent::ClaudeCode);
        let issues: Vec<String> = issues.iter().map(|i| i.to_string()).collect();
        let commands: Vec<_> = hooks.iter().map(|h| h.kind.label()).collect();
        assert_eq!(commands, ["guard", "log", "ctx"]);
        assert_eq!(
            hooks[0].condition.as_ref().map(|c| c.text.as_str()),
            Some("Bash(git push:*)")
        );
        assert_eq!(
            hooks[0].status_message.as_deref(),
            Some("Checking the push")
        );
        // Claude Code ignores `once` outside skills and agents (measured), so a Claude Code
        // file's hook runs every time.
        assert!(!hooks[0].once && !hooks[0].run_async);
        assert!(hooks[1].run_async);
        assert!(hooks[2].condition.is_none());
        assert!(hooks[2].matcher.matches("compact") && !hooks[2].matcher.matches("resume"));
        assert_eq!(
            issues,
            [
                "s.json (hooks.PreToolUse[0].hooks[0].once): Claude Code honours `once` only in skill and agent hooks, so this hook runs every time, as it does under Claude Code",
                "s.json (hooks.PreToolUse[0].hooks[2].url): `ftp://policy.example/hook` is not an http:// or https:// URL; this hook does not run",
                "s.json (hooks.PreToolUse[0].hooks[3].if): `Bash(git` lacks its closing parenthesis; this hook does not run",
                "s.json (hooks.SessionStart[0].hooks[0].if): `if` is only evaluated on tool events, not on SessionStart; ignored",
            ]
        );
    }

    #[test]
    fn gemini_files_give_milliseconds_and_name_events_their_way() {
        let text = r#"{"hooks": {
          "enabled": true,
          "disabled": ["off"],
          "BeforeTool": [{"matcher": "write_file|replace", "hooks": [
            {"name": "guard", "type": "command", "command": "g", "timeout": 5000},
            {"name": "off", "type": "command", "command": "o"}
          ]}],
          "BeforeModel": [{"hooks": [{"type": "command", "command": "m"}]}]
        }}"#;
        let (hooks, issues) =
            parse_hooks_as(text.as_bytes(), Path::new("settings.json"), Agent::Gemini);
        let issues: Vec<String> = issues.iter().map(|i| i.to_string()).collect();
        assert_eq!(hooks.len(), 1);
        assert_eq!(hooks[0].event, CommandEvent::PreToolUse);
        assert_eq!(hooks[0].event_name, "BeforeTool");
        assert_eq!(hooks[0].timeout, Duration::from_secs(5));
        assert!(hooks[0].matcher.matches("write_file"));
        assert_eq!(
            issues,
            [
                "settings.json (hooks.BeforeTool[0].hooks[1]): listed in `hooks.disabled`; it does not run",
                "settings.json (hooks.BeforeModel): event `BeforeModel` is not supported: Gemini CLI's model-request event; this runner does not see model requests; its hooks do not run",
            ]
        );
    }
}
