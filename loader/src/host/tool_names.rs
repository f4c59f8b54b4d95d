//! Tool names and input fields in each agent's dialect: a hook written for another agent
//! matches that agent's name of a tool and reads its input fields by that agent's names even
//! when the agent's own tools are `exec` and `read` with a `path`. The host declares its
//! tools (`AgentHost::tool_names`); the defaults are agent-hooks' own tool names as each
//! agent's profile gives them (`ToolNames::default`, in the agents' rooms, which hand their
//! profiles to `ToolNames::of_profiles`).

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::agent::{Agent, Profiles};

/// One tool: its own name, its names in other dialects, and its input fields that other
/// dialects name differently.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolAlias {
    /// The agent's own name of the tool (`exec`).
    pub tool: String,
    /// Its name in a dialect (`Bash` in the common one).
    pub names: Vec<(Agent, String)>,
    /// Input fields: (dialect, the tool's own field, that dialect's field).
    pub fields: Vec<(Agent, String, String)>,
}

/// The agent's tools in every dialect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolNames {
    tools: Vec<ToolAlias>,
}

/// agent-hooks' own tools that name a file by `path`, which agents whose profile gives a
/// [`file_path_field`](crate::agent::Profile::file_path_field) call otherwise.
const FILE_TOOLS: [&str; 3] = ["read", "write", "edit"];

impl ToolNames {
    /// agent-hooks' own tools (docs/command-hooks.md: `exec`, `read`, `write`, `edit`, `glob`,
    /// `grep`, `webfetch`, `todo_write`, `notebook_read`, `notebook_edit`, `run_subagent`)
    /// with each agent's names and file fields, from the agents' `profiles`.
    pub(crate) fn of_profiles(profiles: Profiles) -> Self {
        let mut tools: Vec<ToolAlias> = Vec::new();
        for agent in Agent::ALL {
            let profile = profiles.of(agent);
            for (own, theirs) in profile.tools {
                let at = match tools.iter().position(|t| t.tool == *own) {
                    Some(at) => at,
                    None => {
                        tools.push(ToolAlias {
                            tool: (*own).to_owned(),
                            names: Vec::new(),
                            fields: Vec::new(),
                        });
                        tools.len() - 1
                    }
                };
                let alias = &mut tools[at];
                alias.names.push((agent, (*theirs).to_owned()));
                if let (Some(field), true) = (profile.file_path_field, FILE_TOOLS.contains(own)) {
                    alias
                        .fields
                        .push((agent, "path".to_owned(), field.to_owned()));
                }
            }
        }
        Self { tools }
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
    pub fn name_in<'a>(&'a self, dialect: Agent, tool: &'a str) -> &'a str {
        self.alias(tool)
            .and_then(|a| a.names.iter().find(|(d, _)| *d == dialect))
            .map_or(tool, |(_, name)| name.as_str())
    }

    /// The agent's own name of the tool `dialect` calls `name` (`Bash` in the common dialect
    /// is `exec`); `None` when no declared tool has that name in `dialect`.
    pub fn own_name(&self, dialect: Agent, name: &str) -> Option<&str> {
        self.tools
            .iter()
            .find(|t| t.names.iter().any(|(d, n)| *d == dialect && n == name))
            .map(|t| t.tool.as_str())
    }

    /// The tool's input with `dialect`'s field names.
    pub fn input_in(&self, dialect: Agent, tool: &str, input: &Value) -> Value {
        self.input_view(dialect, tool, input).into_owned()
    }

    /// [`input_in`](Self::input_in), borrowing `input` when no field is renamed.
    pub(crate) fn input_view<'a>(
        &self,
        dialect: Agent,
        tool: &str,
        input: &'a Value,
    ) -> Cow<'a, Value> {
        self.rename(dialect, tool, input, input, true)
    }

    /// A hook's `updatedInput` (in `dialect`'s fields) back in the tool's own fields; a field
    /// is renamed back only if the tool's `original` input had it under its own name.
    pub fn input_back(
        &self,
        dialect: Agent,
        tool: &str,
        updated: &Value,
        original: &Value,
    ) -> Value {
        self.rename(dialect, tool, updated, original, false)
            .into_owned()
    }

    fn rename<'a>(
        &self,
        dialect: Agent,
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
