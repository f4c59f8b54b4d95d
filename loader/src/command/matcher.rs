use regex::Regex;

/// Which rule a hooks file's matchers follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// A hooks file (event keys at the top): a matcher is an unanchored regex.
    HooksFile,
    /// A settings file (`"hooks"` key, as `.claude/settings.json`): `*` matches all; a
    /// matcher of letters, digits, `_` and `|` is an exact name or a `|` list of names;
    /// anything else is an unanchored regex.
    Settings,
}

/// A compiled matcher of tool names.
#[derive(Debug, Clone)]
pub enum Matcher {
    /// Every tool.
    All,
    /// Exactly these names.
    Names(Vec<String>),
    /// Tool names this regex finds a match in.
    Regex(Regex),
}

impl Matcher {
    /// Compiles `pattern` (`None` when omitted) by the rule of `dialect`.
    pub fn compile(pattern: Option<&str>, dialect: Dialect) -> Result<Self, regex::Error> {
        let pattern = pattern.unwrap_or("");
        if pattern.is_empty() || (dialect == Dialect::Settings && pattern == "*") {
            return Ok(Matcher::All);
        }
        let plain = pattern
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '|');
        if dialect == Dialect::Settings && plain {
            return Ok(Matcher::Names(
                pattern
                    .split('|')
                    .filter(|n| !n.is_empty())
                    .map(str::to_owned)
                    .collect(),
            ));
        }
        Regex::new(pattern).map(Matcher::Regex)
    }

    /// Whether this matcher selects `tool_name`.
    pub fn matches(&self, tool_name: &str) -> bool {
        match self {
            Matcher::All => true,
            Matcher::Names(names) => names.iter().any(|n| n == tool_name),
            Matcher::Regex(regex) => regex.is_match(tool_name),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(pattern: &str, dialect: Dialect, tool: &str) -> bool {
        Matcher::compile(Some(pattern), dialect)
            .unwrap()
            .matches(tool)
    }

    #[test]
    fn hooks_files_use_unanchored_regexes() {
        use Dialect::HooksFile as H;
        assert!(matches("", H, "anything"));
        assert!(matches("exec", H, "exec"));
        assert!(matches("exec", H, "mcp__shell__exec_command"));
        assert!(matches("^exec$", H, "exec") && !matches("^exec$", H, "execs"));
        assert!(matches("^(exec|edit)$", H, "edit") && !matches("^(exec|edit)$", H, "read"));
        assert!(matches("^mcp__.*", H, "mcp__github__create_issue"));
        assert!(!matches(
            "^mcp__github__create_issue$",
            H,
            "mcp__github__list"
        ));
        assert!(
            Matcher::compile(Some("*"), H).is_err(),
            "a glob is not a regex"
        );
    }

    #[test]
    fn settings_files_use_exact_names_for_plain_matchers() {
        use Dialect::Settings as S;
        assert!(matches("*", S, "exec"));
        assert!(matches("exec", S, "exec") && !matches("exec", S, "exec_command"));
        assert!(matches("exec|edit", S, "edit") && !matches("exec|edit", S, "read"));
        assert!(matches("mcp__.*", S, "mcp__github__x"));
    }
}
