//! A hook's `if` field: the hooks reference's permission-rule syntax, checked against the tool call
//! before the hook is started. `Bash(git push:*)` (a command prefix), `Bash(npm run *)` (a
//! wildcard), `Edit(*.py)` and `Read(./src/**)` (paths), `WebFetch(domain:example.com)`, or
//! a bare tool name.

use std::path::Path;

use serde_json::Value;

/// A parsed `if` rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Condition {
    /// The rule as written.
    pub text: String,
    tool: String,
    specifier: Option<String>,
}

/// The tools whose specifier is a path pattern.
const PATH_TOOLS: &[&str] = &[
    "Read",
    "Edit",
    "Write",
    "MultiEdit",
    "NotebookEdit",
    "Glob",
    "Grep",
];

impl Condition {
    /// Parses `Tool` or `Tool(specifier)`; `Err` says what is wrong.
    pub fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        let (tool, specifier) = match text.split_once('(') {
            None => (text, None),
            Some((tool, rest)) => match rest.strip_suffix(')') {
                Some(specifier) => (tool, Some(specifier.to_owned())),
                None => return Err(format!("`{text}` lacks its closing parenthesis")),
            },
        };
        let valid = !tool.is_empty()
            && tool
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if !valid {
            return Err(format!(
                "`{text}` is not a permission rule such as `Bash(git push:*)` or `Edit(*.py)`"
            ));
        }
        Ok(Self {
            text: text.to_owned(),
            tool: tool.to_owned(),
            specifier: specifier.filter(|s| !s.is_empty() && s != "*"),
        })
    }

    /// Whether a call of `tool_name` with `input` (both as the hook's agent names them)
    /// matches, in the project at `cwd`.
    pub fn matches(&self, tool_name: &str, input: &Value, cwd: &Path) -> bool {
        if tool_name != self.tool {
            return false;
        }
        let Some(specifier) = &self.specifier else {
            return true;
        };
        let text = |key: &str| input.get(key).and_then(Value::as_str);
        if self.tool == "Bash" {
            let command = text("command").unwrap_or_default().trim();
            return match specifier.strip_suffix(":*") {
                Some(prefix) => command.starts_with(prefix),
                None => glob(specifier, command, false),
            };
        }
        if self.tool == "WebFetch" {
            if let Some(domain) = specifier.strip_prefix("domain:") {
                let url = text("url").unwrap_or_default();
                let host = url
                    .split_once("://")
                    .map_or(url, |(_, rest)| rest)
                    .split(['/', ':', '?'])
                    .next()
                    .unwrap_or_default();
                return glob(domain, host, false);
            }
        }
        if PATH_TOOLS.contains(&self.tool.as_str()) {
            let Some(path) = text("file_path").or(text("path")).or(text("notebook_path")) else {
                return false;
            };
            return path_matches(specifier, Path::new(path), cwd);
        }
        ["command", "file_path", "path", "url", "pattern", "query"]
            .iter()
            .find_map(|k| text(k))
            .is_some_and(|value| glob(specifier, value, false))
    }
}

/// A gitignore-like path pattern: `./x` and `/x` from the project, `~/x` from home, a
/// pattern without `/` against the file name, anything else against the project-relative
/// path.
fn path_matches(pattern: &str, path: &Path, cwd: &Path) -> bool {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        cwd.join(path)
    };
    if let Some(rest) = pattern.strip_prefix("~/") {
        let home = std::env::var_os("HOME").unwrap_or_default();
        return glob(
            &format!("{}/{rest}", Path::new(&home).display()),
            &absolute.to_string_lossy(),
            true,
        );
    }
    if let Some(rest) = pattern.strip_prefix("//") {
        return glob(&format!("/{rest}"), &absolute.to_string_lossy(), true);
    }
    let relative = absolute
        .strip_prefix(cwd)
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_else(|_| absolute.to_string_lossy().into_owned());
    let rooted = pattern
        .strip_prefix("./")
        .or_else(|| pattern.strip_prefix('/'));
    match rooted {
        Some(rest) => glob(rest, &relative, true),
        None if !pattern.contains('/') => {
            let name = absolute
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            glob(pattern, &name, true)
        }
        None => glob(pattern, &relative, true) || glob(&format!("**/{pattern}"), &relative, true),
    }
}

/// `*` matches any run of characters (not `/` when `paths`), `**` any run at all, `?` one
/// character.
fn glob(pattern: &str, text: &str, paths: bool) -> bool {
    fn go(p: &[char], t: &[char], paths: bool) -> bool {
        match p.first() {
            None => t.is_empty(),
            Some('*') => {
                let double = p.get(1) == Some(&'*');
                let rest = if double { &p[2..] } else { &p[1..] };
                let rest = if double && rest.first() == Some(&'/') {
                    // `**/x` also matches `x` at the top.
                    if go(&rest[1..], t, paths) {
                        return true;
                    }
                    rest
                } else {
                    rest
                };
                (0..=t.len()).any(|i| {
                    (double || !paths || !t[..i].contains(&'/')) && go(rest, &t[i..], paths)
                })
            }
            Some('?') => !t.is_empty() && go(&p[1..], &t[1..], paths),
            Some(c) => t.first() == Some(c) && go(&p[1..], &t[1..], paths),
        }
    }
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    go(&p, &t, paths)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn check(rule: &str, tool: &str, input: Value) -> bool {
        Condition::parse(rule)
            .unwrap()
            .matches(tool, &input, Path::new("/p"))
    }

    #[test]
    fn bash_rules_match_the_command() {
        assert!(check(
            "Bash(git push:*)",
            "Bash",
            json!({"command": "git push origin main"})
        ));
        assert!(!check("Bash(git push:*)", "Bash", json!({"command": "ls"})));
        assert!(check(
            "Bash(npm run *)",
            "Bash",
            json!({"command": "npm run test/unit"})
        ));
        assert!(check("Bash", "Bash", json!({"command": "ls"})));
        assert!(!check("Bash", "Read", json!({"file_path": "/p/x"})));
    }

    #[test]
    fn path_rules_match_like_gitignore() {
        assert!(check(
            "Edit(*.py)",
            "Edit",
            json!({"file_path": "/p/src/a.py"})
        ));
        assert!(!check(
            "Edit(*.py)",
            "Edit",
            json!({"file_path": "/p/src/a.rs"})
        ));
        assert!(check(
            "Read(./src/**)",
            "Read",
            json!({"file_path": "/p/src/x/y.rs"})
        ));
        assert!(!check(
            "Read(./src/**)",
            "Read",
            json!({"file_path": "/p/docs/y.md"})
        ));
        assert!(check(
            "Write(docs/*.md)",
            "Write",
            json!({"file_path": "docs/a.md"})
        ));
        assert!(check(
            "WebFetch(domain:example.com)",
            "WebFetch",
            json!({"url": "https://example.com/a"})
        ));
    }

    #[test]
    fn malformed_rules_say_what_is_wrong() {
        assert_eq!(
            Condition::parse("Bash(git").unwrap_err(),
            "`Bash(git` lacks its closing parenthesis"
        );
        assert!(Condition::parse("rm -rf").is_err());
    }
}
