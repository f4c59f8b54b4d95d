//! The agent a hooks file was written for: it decides the matcher rule, the unit of
//! `timeout`, the event and tool names its hooks see, and the environment they get.

use std::{borrow::Cow, fmt, path::Path};

use serde_json::Value;

use super::{answer::Answer, event::CommandEvent};

/// The agent a hooks file was written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// This project's own hooks files (spec 02).
    Agent,
    /// Claude Code: `.claude/settings*.json`, a plugin's `hooks/hooks.json`.
    ClaudeCode,
    /// OpenAI Codex: `.codex/hooks.json`.
    Codex,
    /// Gemini CLI: `.gemini/settings.json`.
    Gemini,
    /// Devin CLI: `.devin/hooks.v1.json`, `~/.config/devin/config.json`.
    Devin,
}

/// How a matcher is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatcherRule {
    /// An unanchored regex; `""` or none matches all (spec 02 hooks files, Devin).
    Regex,
    /// As [`Regex`](Self::Regex), and `*` also matches all (Codex).
    RegexOrStar,
    /// Claude Code's rule: `*`, `""` or none match all; letters, digits, `_` and `|` only
    /// is an exact name or a `|` list of names; anything else an unanchored regex.
    Claude,
    /// Gemini CLI's rule: a regex for tool events, an exact string for the others.
    Gemini,
}

impl Dialect {
    /// Its name, as `list` shows it.
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Agent => "agent-hooks",
            Dialect::ClaudeCode => "claude-code",
            Dialect::Codex => "codex",
            Dialect::Gemini => "gemini-cli",
            Dialect::Devin => "devin",
        }
    }

    /// The dialect of the hooks file at `path`, from where it lies: a `.claude`, `.codex`,
    /// `.gemini` or `.devin` folder (or `~/.config/devin`), or a Claude Code plugin's
    /// `hooks/hooks.json`; anything else is this project's own format.
    pub fn of_file(path: &Path) -> Dialect {
        let folders: Vec<String> = path
            .parent()
            .into_iter()
            .flat_map(Path::components)
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let last = folders.last().map(String::as_str);
        if folders.iter().any(|f| f == ".codex") {
            Dialect::Codex
        } else if folders.iter().any(|f| f == ".gemini") {
            Dialect::Gemini
        } else if folders.iter().any(|f| f == ".devin") || last == Some("devin") {
            Dialect::Devin
        } else if folders.iter().any(|f| f == ".claude") || plugin_root(path).is_some() {
            Dialect::ClaudeCode
        } else {
            Dialect::Agent
        }
    }

    /// How its matchers are read; `settings_form` tells whether the events stand under a
    /// `"hooks"` key (this project's files then follow Claude Code's rule, as spec 02 says).
    pub fn matcher_rule(self, settings_form: bool) -> MatcherRule {
        match self {
            Dialect::Agent if settings_form => MatcherRule::Claude,
            Dialect::Agent | Dialect::Devin => MatcherRule::Regex,
            Dialect::ClaudeCode => MatcherRule::Claude,
            Dialect::Codex => MatcherRule::RegexOrStar,
            Dialect::Gemini => MatcherRule::Gemini,
        }
    }

    /// Gives an answer the meaning its agent gives it where that differs from Claude Code's:
    /// Gemini CLI's AfterTool `decision: deny` (and exit 2) replaces the tool's result for
    /// the model with the reason, where Claude Code's PostToolUse appends it.
    pub fn adapt(self, event: CommandEvent, answer: &mut Answer) {
        if self == Dialect::Gemini && event == CommandEvent::PostToolUse {
            answer.replacement = answer.feedback.take();
        }
    }

    /// A tool's `tool_response` with the fields its agent documents under other names:
    /// Gemini CLI's AfterTool response has `llmContent` and `returnDisplay`.
    pub fn tool_response(self, response: &Value) -> Cow<'_, Value> {
        match response {
            Value::Object(fields) if self == Dialect::Gemini => {
                let output = fields.get("output").cloned().unwrap_or(Value::Null);
                let mut fields = fields.clone();
                fields.entry("llmContent").or_insert(output.clone());
                fields.entry("returnDisplay").or_insert(output);
                Cow::Owned(Value::Object(fields))
            }
            _ => Cow::Borrowed(response),
        }
    }

    /// How many seconds one unit of `timeout` is: Gemini CLI gives milliseconds.
    pub fn timeout_unit(self) -> f64 {
        match self {
            Dialect::Gemini => 0.001,
            _ => 1.0,
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The root of the Claude Code plugin a hooks file belongs to: `<root>/hooks/hooks.json`
/// next to `<root>/.claude-plugin/plugin.json`.
pub fn plugin_root(hooks_file: &Path) -> Option<&Path> {
    let hooks_dir = hooks_file.parent()?;
    if hooks_dir.file_name()? != "hooks" || hooks_file.file_name()? != "hooks.json" {
        return None;
    }
    let root = hooks_dir.parent()?;
    root.join(".claude-plugin")
        .join("plugin.json")
        .is_file()
        .then_some(root)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_folder_names_the_dialect() {
        for (path, dialect) in [
            ("/p/.codex/hooks.json", Dialect::Codex),
            ("/h/.gemini/settings.json", Dialect::Gemini),
            ("/p/.devin/hooks.v1.json", Dialect::Devin),
            ("/h/.config/devin/config.json", Dialect::Devin),
            ("/p/.claude/settings.json", Dialect::ClaudeCode),
            ("/p/hooks.json", Dialect::Agent),
        ] {
            assert_eq!(Dialect::of_file(Path::new(path)), dialect, "{path}");
        }
    }
}
