use regex::Regex;

use crate::agent::MatcherRule;

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
    /// Compiles `pattern` (`None` when omitted) by `rule`, for an event whose subject is a
    /// tool name (`tool_event`) or not.
    pub fn compile(
        pattern: Option<&str>,
        rule: MatcherRule,
        tool_event: bool,
    ) -> Result<Self, regex::Error> {
        let pattern = pattern.unwrap_or("");
        let star_is_all = matches!(
            rule,
            MatcherRule::Common | MatcherRule::RegexOrStar | MatcherRule::RegexOnTools
        );
        if pattern.is_empty() || (star_is_all && pattern == "*") {
            return Ok(Matcher::All);
        }
        let plain = pattern
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '|');
        let exact = match rule {
            MatcherRule::Common => plain,
            MatcherRule::RegexOnTools => !tool_event,
            MatcherRule::Regex | MatcherRule::RegexOrStar => false,
        };
        if exact {
            let names = if rule == MatcherRule::Common {
                pattern
                    .split('|')
                    .filter(|n| !n.is_empty())
                    .map(str::to_owned)
                    .collect()
            } else {
                vec![pattern.to_owned()]
            };
            return Ok(Matcher::Names(names));
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

    fn matches(pattern: &str, rule: MatcherRule, tool: &str) -> bool {
        Matcher::compile(Some(pattern), rule, true)
            .unwrap()
            .matches(tool)
    }

    #[test]
    fn hooks_files_use_unanchored_regexes() {
        use MatcherRule::Regex as H;
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
            Matcher::compile(Some("*"), H, true).is_err(),
            "a glob is not a regex"
        );
    }

    #[test]
    fn this_projects_hooks_files_read_a_lone_star_as_every_tool() {
        use MatcherRule::RegexOrStar as A;
        assert!(matches("*", A, "exec") && matches("*", A, "mcp__github__x"));
        assert!(matches("^exec$", A, "exec") && !matches("^exec$", A, "execs"));
        assert!(
            Matcher::compile(Some("*exec"), A, true).is_err(),
            "a star elsewhere is still no regex"
        );
        assert_eq!(
            crate::agents::Agent::AgentHooks.matcher_rule(false),
            A,
            "agent-hooks' own hooks files"
        );
    }

    #[test]
    fn settings_files_use_exact_names_for_plain_matchers() {
        use MatcherRule::Common as S;
        assert!(matches("*", S, "exec"));
        assert!(matches("exec", S, "exec") && !matches("exec", S, "exec_command"));
        assert!(matches("exec|edit", S, "edit") && !matches("exec|edit", S, "read"));
        assert!(matches("mcp__.*", S, "mcp__github__x"));
    }

    #[test]
    fn lifecycle_matchers_are_exact_in_claude_and_gemini_files() {
        let common =
            Matcher::compile(Some("startup|clear|compact"), MatcherRule::Common, false).unwrap();
        assert!(common.matches("compact") && !common.matches("resume"));
        let exact = Matcher::compile(Some("startup"), MatcherRule::RegexOnTools, false).unwrap();
        assert!(exact.matches("startup") && !exact.matches("startup2"));
        let tools =
            Matcher::compile(Some("write_.*|replace"), MatcherRule::RegexOnTools, true).unwrap();
        assert!(tools.matches("write_file") && tools.matches("replace"));
        assert!(Matcher::compile(Some("*"), MatcherRule::RegexOrStar, true)
            .unwrap()
            .matches("Bash"));
    }
}
