//! What a command hook runs besides its JSON: the scripts inside the project that its words
//! name (`./guard.sh`, `"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.py`, `python3
//! scripts/lint.py`, `bash x.sh`), which trust hashes too; and commands whose code trust
//! cannot locate, which are listed.
//!
//! A word names a file when it starts with `./`, `../`, `/`, `~` or a project-folder
//! variable, or ends with a script extension. Quotes are removed and `$CLAUDE_PROJECT_DIR`,
//! `$AGENT_HOOKS_PROJECT_DIR` (also in `${...}` form) become the project folder. Files
//! outside the project (the user's own tools) are not the project's code and are left out.

use std::path::{Path, PathBuf};

/// Extensions of scripts that interpreters run.
const SCRIPT_EXTENSIONS: &[&str] = &[
    "sh", "bash", "zsh", "fish", "py", "js", "mjs", "cjs", "ts", "rb", "pl", "php", "lua",
];

/// Programs that run code the project defines elsewhere (a Makefile, package.json, ...),
/// which trust does not hash.
const RUNNERS: &[&str] = &[
    "make", "npm", "npx", "yarn", "pnpm", "bun", "bunx", "cargo", "uv", "uvx", "poetry", "pipenv",
    "just", "task", "gradle", "mvn", "rake", "bundle", "go", "deno",
];

const PROJECT_VARIABLES: &[&str] = &["CLAUDE_PROJECT_DIR", "AGENT_HOOKS_PROJECT_DIR"];

/// The project code one command runs.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct CommandCode {
    /// Files inside the project it names (canonical paths).
    pub scripts: Vec<PathBuf>,
    /// Why some of the code it runs is not covered by trust.
    pub uncovered: Option<String>,
}

/// Finds the project code `command` runs; `project` is the canonical project folder.
pub(crate) fn locate(command: &str, project: &Path) -> CommandCode {
    let mut code = CommandCode::default();
    let mut program_next = true;
    for word in words(command) {
        if word.chars().all(|c| ";|&()".contains(c)) {
            program_next = true;
            continue;
        }
        let is_program = std::mem::replace(&mut program_next, false);
        let text = expand(&word, project);
        if names_a_file(&text) {
            let path = if let Some(rest) = text.strip_prefix("~/") {
                std::env::var_os("HOME")
                    .map(|h| PathBuf::from(h).join(rest))
                    .unwrap_or_else(|| PathBuf::from(&text))
            } else {
                project.join(&text)
            };
            match std::fs::canonicalize(&path) {
                Ok(real) if real.starts_with(project) && real.is_file() => {
                    if !code.scripts.contains(&real) {
                        code.scripts.push(real);
                    }
                }
                Ok(_) => {}
                Err(_) if std::path::absolute(&path).is_ok_and(|p| p.starts_with(project)) => {
                    code.uncovered.get_or_insert_with(|| {
                        format!("it names {}, which does not exist", path.display())
                    });
                }
                Err(_) => {}
            }
        } else if is_program {
            let program = Path::new(&text)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if RUNNERS.contains(&program.as_str()) {
                code.uncovered.get_or_insert_with(|| {
                    format!("`{program}` runs code the project defines elsewhere")
                });
            }
        }
    }
    code
}

/// The command's words, split at blanks and at `;`, `|`, `&`, `(`, `)` (each a word).
fn words(command: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    for c in command.chars() {
        if c.is_whitespace() || ";|&()".contains(c) {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            if !c.is_whitespace() {
                words.push(c.to_string());
            }
        } else {
            current.push(c);
        }
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

/// The word without quotes, with the project-folder variables replaced.
fn expand(word: &str, project: &Path) -> String {
    let mut text: String = word.chars().filter(|c| *c != '"' && *c != '\'').collect();
    let folder = project.to_string_lossy();
    for variable in PROJECT_VARIABLES {
        text = text
            .replace(&format!("${{{variable}}}"), &folder)
            .replace(&format!("${variable}"), &folder);
    }
    text
}

fn names_a_file(text: &str) -> bool {
    let starts = ["./", "../", "/", "~/"].iter().any(|p| text.starts_with(p));
    let extension = Path::new(text)
        .extension()
        .is_some_and(|e| SCRIPT_EXTENSIONS.iter().any(|s| e == *s));
    starts || extension
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scripts_a_command_names_are_found_and_the_rest_is_said() {
        let dir = tempfile::tempdir().unwrap();
        let project = std::fs::canonicalize(dir.path()).unwrap();
        for file in [
            "guard.sh",
            ".claude/hooks/check.py",
            "scripts/lint.py",
            "x.sh",
        ] {
            let path = project.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "#!/bin/sh\n").unwrap();
        }
        let found = |command: &str| {
            let code = locate(command, &project);
            let scripts: Vec<String> = code
                .scripts
                .iter()
                .map(|s| s.strip_prefix(&project).unwrap().display().to_string())
                .collect();
            (scripts, code.uncovered)
        };
        assert_eq!(found("./guard.sh"), (vec!["guard.sh".into()], None));
        assert_eq!(
            found(r#""$CLAUDE_PROJECT_DIR"/.claude/hooks/check.py --strict"#),
            (vec![".claude/hooks/check.py".into()], None)
        );
        assert_eq!(
            found("python3 scripts/lint.py && bash x.sh | tee /tmp/log"),
            (vec!["scripts/lint.py".into(), "x.sh".into()], None)
        );
        assert_eq!(found("sed 's/a/b/' | jq ."), (vec![], None));
        assert_eq!(
            found("make lint"),
            (
                vec![],
                Some("`make` runs code the project defines elsewhere".into())
            )
        );
        assert_eq!(
            found("./gone.sh"),
            (
                vec![],
                Some(format!(
                    "it names {}, which does not exist",
                    project.join("./gone.sh").display()
                ))
            )
        );
    }
}
