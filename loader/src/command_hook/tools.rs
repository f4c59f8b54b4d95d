//! Tool names and input fields in each agent's dialect: a Claude Code hook matches `Bash`
//! and reads `tool_input.file_path` even when the agent's own tools are `exec` and `read`
//! with a `path`. The host declares its tools (the agent's `tool_names`, on the host side,
//! which stands above this module); the defaults cover agent-hooks' own tool names
//! (docs/command-hooks.md).

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::dialect::Dialect;

/// One tool: its own name, its names in other dialects, and its input fields that other
/// dialects name differently.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolAlias {
    /// The agent's own name of the tool (`exec`).
    pub tool: String,
    /// Its name in a dialect (`Bash` for Claude Code).
    pub names: Vec<(Dialect, String)>,
    /// Input fields: (dialect, the tool's own field, that dialect's field).
    pub fields: Vec<(Dialect, String, String)>,
}

/// The agent's tools in every dialect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolNames {
    tools: Vec<ToolAlias>,
}

const CLAUDE_LIKE: [Dialect; 2] = [Dialect::ClaudeCode, Dialect::Codex];

impl Default for ToolNames {
    /// agent-hooks' own tools (docs/command-hooks.md: `exec`, `read`, `write`, `edit`, `glob`,
    /// `grep`, `webfetch`, `todo_write`, `notebook_read`, `notebook_edit`, `run_subagent`) with their Claude Code
    /// (and Codex), Gemini CLI, Copilot CLI and Cursor names; file tools' `path` is
    /// `file_path` for all but Copilot CLI.
    fn default() -> Self {
        // Own name, Claude Code (and Codex), Gemini CLI, Copilot CLI, Cursor; file tool.
        let table: [(&str, &str, &str, &str, &str, bool); 11] = [
            ("exec", "Bash", "run_shell_command", "bash", "Shell", false),
            ("read", "Read", "read_file", "view", "Read", true),
            ("write", "Write", "write_file", "create", "Write", true),
            ("edit", "Edit", "replace", "edit", "Write", true),
            ("glob", "Glob", "glob", "glob", "Glob", false),
            ("grep", "Grep", "search_file_content", "grep", "Grep", false),
            (
                "webfetch",
                "WebFetch",
                "web_fetch",
                "web_fetch",
                "WebFetch",
                false,
            ),
            (
                "todo_write",
                "TodoWrite",
                "write_todos",
                "update_todo",
                "TodoWrite",
                false,
            ),
            (
                "notebook_read",
                "NotebookRead",
                "notebook_read",
                "notebook_read",
                "NotebookRead",
                false,
            ),
            (
                "notebook_edit",
                "NotebookEdit",
                "notebook_edit",
                "notebook_edit",
                "NotebookEdit",
                false,
            ),
            (
                "run_subagent",
                "Task",
                "run_subagent",
                "task",
                "Task",
                false,
            ),
        ];
        let tools = table
            .into_iter()
            .map(|(tool, claude, gemini, copilot, cursor, file_tool)| {
                let mut names: Vec<(Dialect, String)> = CLAUDE_LIKE
                    .iter()
                    .map(|d| (*d, claude.to_owned()))
                    .collect();
                names.push((Dialect::Gemini, gemini.to_owned()));
                names.push((Dialect::Copilot, copilot.to_owned()));
                names.push((Dialect::Cursor, cursor.to_owned()));
                // Copilot CLI's file tools take `path`, as agent-hooks' do; Cursor's
                // payloads name the file `file_path`.
                let fields = if file_tool {
                    [
                        Dialect::ClaudeCode,
                        Dialect::Codex,
                        Dialect::Gemini,
                        Dialect::Cursor,
                    ]
                    .into_iter()
                    .map(|d| (d, "path".to_owned(), "file_path".to_owned()))
                    .collect()
                } else {
                    Vec::new()
                };
                ToolAlias {
                    tool: tool.to_owned(),
                    names,
                    fields,
                }
            })
            .collect();
        Self { tools }
    }
}

/// The other names a matcher of `dialect` also selects a tool named `name` by. Codex
/// (0.171.0) calls its file-editing tool `apply_patch` and lets `Write` and `Edit` select
/// it, and its sub-agent tool `spawn_agent`, selected by `Agent` too; so a Codex hook's
/// `Edit|Write` runs for an `apply_patch` call, and its `apply_patch` for a `Write` or
/// `Edit` (the names a Codex hook sees for agent-hooks' `write` and `edit`).
pub fn matcher_aliases(dialect: Dialect, name: &str) -> &'static [&'static str] {
    match (dialect, name) {
        (Dialect::Codex, "apply_patch") => &["Write", "Edit"],
        (Dialect::Codex, "Write" | "Edit") => &["apply_patch"],
        (Dialect::Codex, "spawn_agent") => &["Agent"],
        _ => &[],
    }
}

impl ToolNames {
    /// No aliases: every dialect sees the tools' own names and fields.
    pub fn none() -> Self {
        Self { tools: Vec::new() }
    }

    /// Declares `alias`, replacing an earlier one of the same tool.
    pub fn declare(&mut self, alias: ToolAlias) -> &mut Self {
        self.tools.retain(|t| t.tool != alias.tool);
        self.tools.push(alias);
        self
    }

    fn alias(&self, tool: &str) -> Option<&ToolAlias> {
        self.tools.iter().find(|t| t.tool == tool)
    }

    /// The declared tools, in order.
    pub fn tools(&self) -> impl Iterator<Item = &ToolAlias> + '_ {
        self.tools.iter()
    }

    /// The tool's name in `dialect`.
    pub fn name_in<'a>(&'a self, dialect: Dialect, tool: &'a str) -> &'a str {
        self.alias(tool)
            .and_then(|a| a.names.iter().find(|(d, _)| *d == dialect))
            .map_or(tool, |(_, name)| name.as_str())
    }

    /// The agent's own name of the tool `dialect` calls `name` (`Bash` in Claude Code is
    /// `exec`); `None` when no declared tool has that name in `dialect`.
    pub fn own_name(&self, dialect: Dialect, name: &str) -> Option<&str> {
        self.tools
            .iter()
            .find(|t| t.names.iter().any(|(d, n)| *d == dialect && n == name))
            .map(|t| t.tool.as_str())
    }

    /// The tool's input with `dialect`'s field names.
    pub fn input_in(&self, dialect: Dialect, tool: &str, input: &Value) -> Value {
        self.input_view(dialect, tool, input).into_owned()
    }

    /// [`input_in`](Self::input_in), borrowing `input` when no field is renamed.
    pub(crate) fn input_view<'a>(
        &self,
        dialect: Dialect,
        tool: &str,
        input: &'a Value,
    ) -> Cow<'a, Value> {
        self.rename(dialect, tool, input, input, true)
    }

    /// A hook's `updatedInput` (in `dialect`'s fields) back in the tool's own fields; a field
    /// is renamed back only if the tool's `original` input had it under its own name.
    pub fn input_back(
        &self,
        dialect: Dialect,
        tool: &str,
        updated: &Value,
        original: &Value,
    ) -> Value {
        self.rename(dialect, tool, updated, original, false)
            .into_owned()
    }

    fn rename<'a>(
        &self,
        dialect: Dialect,
        tool: &str,
        input: &'a Value,
        original: &Value,
        forward: bool,
    ) -> Cow<'a, Value> {
        let (Some(alias), Some(fields)) = (self.alias(tool), input.as_object()) else {
            return Cow::Borrowed(input);
        };
        let renames = alias.fields.iter().filter_map(|(d, own, theirs)| {
            let (from, to) = if forward {
                (own, theirs)
            } else {
                (theirs, own)
            };
            let applies = *d == dialect && original.get(own).is_some();
            applies.then_some((from, to))
        });
        let mut out: Option<Map<String, Value>> = None;
        for (from, to) in renames {
            let current = out.as_ref().unwrap_or(fields);
            if current.contains_key(to) || !current.contains_key(from) {
                continue;
            }
            let out = out.get_or_insert_with(|| fields.clone());
            if let Some(value) = out.remove(from) {
                out.insert(to.clone(), value);
            }
        }
        out.map_or(Cow::Borrowed(input), |out| Cow::Owned(Value::Object(out)))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn names_and_fields_map_both_ways() {
        let names = ToolNames::default();
        assert_eq!(names.name_in(Dialect::ClaudeCode, "exec"), "Bash");
        assert_eq!(names.name_in(Dialect::Gemini, "exec"), "run_shell_command");
        assert_eq!(names.name_in(Dialect::Devin, "exec"), "exec");
        assert_eq!(names.name_in(Dialect::Copilot, "read"), "view");
        assert_eq!(names.own_name(Dialect::Copilot, "bash"), Some("exec"));
        assert_eq!(names.name_in(Dialect::Cursor, "exec"), "Shell");
        assert_eq!(names.own_name(Dialect::ClaudeCode, "Bash"), Some("exec"));
        assert_eq!(
            names.own_name(Dialect::Gemini, "run_shell_command"),
            Some("exec")
        );
        assert_eq!(names.own_name(Dialect::Gemini, "Bash"), None);
        assert_eq!(
            names.name_in(Dialect::ClaudeCode, "mcp__gh__x"),
            "mcp__gh__x"
        );
        let own = json!({"path": "/p/a.rs", "offset": 1});
        let claude = names.input_in(Dialect::ClaudeCode, "read", &own);
        assert_eq!(claude, json!({"file_path": "/p/a.rs", "offset": 1}));
        let updated = json!({"file_path": "/p/b.rs", "offset": 1});
        assert_eq!(
            names.input_back(Dialect::ClaudeCode, "read", &updated, &own),
            json!({"path": "/p/b.rs", "offset": 1})
        );
        let already = json!({"file_path": "/p/a.rs"});
        assert_eq!(
            names.input_in(Dialect::ClaudeCode, "read", &already),
            already
        );
        assert_eq!(
            names.input_back(Dialect::ClaudeCode, "read", &already, &already),
            already
        );
    }
}
