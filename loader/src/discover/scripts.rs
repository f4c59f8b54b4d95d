//! What a command hook runs besides its JSON: the scripts inside the project that its words
//! name (`./guard.sh`, `"$CLAUDE_PROJECT_DIR"/.agent/hooks/check.py`, `python3
//! scripts/lint.py`, `bash x.sh`), which trust hashes too; commands whose code trust
//! cannot locate, which are listed; and the scripts a hook runs as a program or through an
//! interpreter, which `doctor` checks ([`hook_scripts`]).
//!
//! The command is split into words as its shell splits it: quotes and backslashes removed,
//! `$NAME` and `${NAME}` given the values the hook gets (the project folder under each
//! agent's name, the plugin root) or else this process's, `~/` the home folder. A word names
//! a file when it starts with `./`, `../`, `/` or `~/`, or ends with a script extension.
//! Files outside the project (the user's own tools) are not the project's code and are left
//! out of trust.
//!
//! The splitting is this module's own: the crates that split shell words (`shell-words`,
//! `shlex`) undo quotes and backslashes only. They leave `$NAME` as text, keep `;`, `&&`,
//! `|` and redirections inside words (`./a.sh;` is one word), do not mark a word the shell
//! works out only when it runs, and give nothing at all for an unbalanced quote, where trust
//! still finds the files the words before it name.

use std::path::{Component, Path, PathBuf};

use crate::command_hook::CommandHook;

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

/// Programs whose first argument that is not an option is a script they run.
const INTERPRETERS: &[&str] = &[
    "python", "python2", "python3", "pypy", "pypy3", "node", "nodejs", "tsx", "ts-node", "bash",
    "sh", "dash", "zsh", "ksh", "fish", "ruby", "perl", "php", "lua", "Rscript",
];

/// Shells: an option with a `c` in it (`-c`, `-ec`) runs its argument, not a script.
const SHELLS: &[&str] = &["bash", "sh", "dash", "zsh", "ksh", "fish"];

/// Options with which an interpreter other than a shell runs code given on its command
/// line instead of a script (`python3 -c CODE`, `node -e CODE`, `python3 -m MODULE`), or runs nothing.
const NO_SCRIPT_OPTIONS: &[&str] = &[
    "-c",
    "-m",
    "-e",
    "-E",
    "-p",
    "-r",
    "-",
    "--eval",
    "--print",
    "--command",
    "--version",
    "-V",
    "--help",
    "-h",
];

/// Programs that run a program or script named after a `run` subcommand (`uv run
/// lint.py`, `poetry run python lint.py`, `deno run x.ts`; `bun x.ts` too).
const RUN_SUBCOMMAND: &[&str] = &[
    "uv", "poetry", "pipenv", "pdm", "rye", "hatch", "deno", "bun",
];

/// Programs whose first argument that is not an option is another program they run.
const PROGRAM_RUNNERS: &[&str] = &[
    "env", "npx", "bunx", "exec", "command", "nohup", "time", "nice",
];

/// The project code one command runs.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct CommandCode {
    /// Files inside the project it names (canonical paths).
    pub scripts: Vec<PathBuf>,
    /// Why some of the code it runs is not covered by trust.
    pub uncovered: Option<String>,
}

/// Finds the project code `hook`'s command runs; `project` is the canonical project folder.
pub(crate) fn locate(hook: &CommandHook, project: &Path) -> CommandCode {
    let mut code = CommandCode::default();
    // An HTTP hook's URL and a prompt are no shell command: they run no file.
    let Some(command) = hook.kind.shell_command() else {
        return code;
    };
    for command in simple_commands(words(command, &hook_variables(hook, project))) {
        let program = command.program.iter();
        for word in program.chain(&command.arguments).chain(&command.inputs) {
            if !names_a_file(&word.text) {
                continue;
            }
            if !word.exact {
                code.uncovered.get_or_insert_with(|| {
                    "it names a file whose path the shell works out only when it runs \
                     ($(...), backquotes, a glob)"
                        .to_owned()
                });
                continue;
            }
            let path = project.join(&word.text);
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
        }
        let Some(program) = &command.program else {
            continue;
        };
        let name = file_name(&program.text);
        if RUNNERS.contains(&name.as_str()) {
            code.uncovered
                .get_or_insert_with(|| format!("`{name}` runs code the project defines elsewhere"));
        }
    }
    code
}

/// A script a command hook runs, found where its shell would look for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookScript {
    /// The script's path as the shell passes it on (quotes removed, variables expanded).
    pub word: String,
    /// The file: `word`, from the hook's working folder when it is relative.
    pub path: PathBuf,
    /// The program that runs it (`python3`, `uv run`), or `None` when the script is the
    /// program itself (`./guard.sh`), which must then be executable.
    pub interpreter: Option<String>,
    /// Variables the word uses that have no value here, so that the shell makes them empty.
    pub unset: Vec<String>,
}

/// The scripts `hook`'s command runs, its working folder being `cwd`: each program given by
/// a path (`"$CLAUDE_PROJECT_DIR"/.agent/hooks/guard.sh`) and each script given to an
/// interpreter (`python3 scripts/lint.py`, `bash x.sh`, `uv run x.py`). The command's words
/// are split as its shell splits them, and its variables take the values the hook gets, or
/// else this process's. Words the shell works out only when it runs (`$(...)`, globs) are
/// left out.
pub fn hook_scripts(hook: &CommandHook, cwd: &Path) -> Vec<HookScript> {
    let mut scripts = Vec::new();
    let Some(shell_command) = hook.kind.shell_command() else {
        return scripts;
    };
    // The exec form (`args`): the words are the program and its arguments, no shell.
    let exec = hook
        .handler
        .argv(shell_command, cwd, hook.plugin_root.as_deref())
        .filter(|_| hook.handler.args.is_some())
        .map(|argv| {
            let mut texts = argv.into_iter().map(|word| Text {
                text: word.to_string_lossy().into_owned(),
                exact: true,
                unset: Vec::new(),
            });
            SimpleCommand {
                program: texts.next(),
                arguments: texts.collect(),
                inputs: Vec::new(),
            }
        });
    let commands = match exec {
        Some(command) => vec![command],
        None => simple_commands(words(shell_command, &hook_variables(hook, cwd))),
    };
    for command in commands {
        let Some(program) = command.program.filter(|p| p.exact) else {
            continue;
        };
        let mut push = |script: &Text, interpreter: Option<String>| {
            scripts.push(HookScript {
                path: lexical(&cwd.join(&script.text)),
                word: script.text.clone(),
                interpreter,
                unset: script.unset.clone(),
            })
        };
        if program.text.contains('/') {
            push(&program, None);
        }
        if let Some((interpreter, script)) = interpreted(&program.text, &command.arguments) {
            push(script, Some(interpreter));
        }
    }
    scripts
}

/// The variables of `hook`'s shell: those the runner sets, else this process's.
fn hook_variables(hook: &CommandHook, cwd: &Path) -> impl Fn(&str) -> Option<String> {
    // No session here: a script path that names the session id is not a path to check.
    let set = crate::runner::hook_env(hook, cwd, None, "");
    move |name: &str| {
        set.iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.clone())
            .or_else(|| std::env::var(name).ok())
            .filter(|v| !v.is_empty())
    }
}

/// The last part of a program's path: `python3` for `/usr/bin/python3`.
fn file_name(program: &str) -> String {
    Path::new(program)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// `path` without its `.` parts.
fn lexical(path: &Path) -> PathBuf {
    path.components()
        .filter(|c| *c != Component::CurDir)
        .collect()
}

/// One of [`INTERPRETERS`], or a versioned Python (`python3.12`).
fn is_interpreter(name: &str) -> bool {
    let versioned_python = name.strip_prefix("python").is_some_and(|v| {
        v.starts_with(|c: char| c.is_ascii_digit())
            && v.chars().all(|c| c.is_ascii_digit() || c == '.')
    });
    INTERPRETERS.contains(&name) || versioned_python
}

/// The script `program` runs given `arguments`, and what runs it (`python3`, `uv run`):
/// the first argument that is not an option, when it names a script.
fn interpreted<'w>(program: &str, arguments: &'w [Text]) -> Option<(String, &'w Text)> {
    let name = file_name(program);
    let shell = SHELLS.contains(&name.as_str());
    let mut rest = arguments.iter();
    let first = loop {
        let word = rest.next()?;
        if word.text == "--" {
            break rest.next()?;
        }
        if name == "env" && is_assignment(&word.text) {
            continue;
        }
        if !word.text.starts_with('-') || word.text == "-" && !is_interpreter(&name) {
            break word;
        }
        let runs_code = if shell {
            // `-c`, `-ec`: the argument is code; `-s`: the script comes on stdin.
            let short = !word.text.starts_with("--");
            (short && (word.text.contains('c') || word.text.contains('s')))
                || ["--version", "--help"].contains(&word.text.as_str())
        } else {
            NO_SCRIPT_OPTIONS.contains(&word.text.as_str())
        };
        if runs_code {
            return None;
        }
    };
    let remaining = rest.as_slice();
    if is_interpreter(&name) {
        return names_a_script(first).then_some((name, first));
    }
    if RUN_SUBCOMMAND.contains(&name.as_str()) {
        let (label, next) = match (first.text.as_str(), name.as_str()) {
            ("run", _) => (format!("{name} run"), remaining),
            ("x" | "exec", _) => return None,
            (_, "bun") => (
                name.clone(),
                &arguments[arguments.len() - remaining.len() - 1..],
            ),
            _ => return None,
        };
        let at = next.iter().position(|w| !w.text.starts_with('-'))?;
        let script = &next[at];
        if names_a_script(script) {
            return Some((label, script));
        }
        return interpreted(&script.text, &next[at + 1..])
            .map(|(inner, found)| (format!("{label} {inner}"), found));
    }
    if PROGRAM_RUNNERS.contains(&name.as_str()) {
        return interpreted(&first.text, remaining);
    }
    None
}

/// An interpreter's argument that is a script's path: it has a `/` or a script extension.
fn names_a_script(word: &Text) -> bool {
    word.exact
        && (word.text.contains('/')
            || Path::new(&word.text)
                .extension()
                .is_some_and(|e| SCRIPT_EXTENSIONS.iter().any(|s| e == *s)))
}

/// One simple command: its program (after variable assignments and `env`), its
/// arguments, and the files its redirections read.
#[derive(Debug, Default)]
struct SimpleCommand {
    program: Option<Text>,
    arguments: Vec<Text>,
    inputs: Vec<Text>,
}

/// The simple commands of a command's words, in order.
fn simple_commands(words: Vec<Word>) -> Vec<SimpleCommand> {
    let mut commands: Vec<SimpleCommand> = Vec::new();
    let mut current = SimpleCommand::default();
    let mut redirected: Option<Word> = None;
    for word in words {
        match word {
            Word::Separator => {
                redirected = None;
                commands.push(std::mem::take(&mut current));
            }
            Word::Output | Word::Input => redirected = Some(word),
            Word::Text(text) => match redirected.take() {
                Some(Word::Input) => current.inputs.push(text),
                Some(_) => {}
                None if current.program.is_some() => current.arguments.push(text),
                None if is_assignment(&text.text) || text.text == "env" => {}
                None => current.program = Some(text),
            },
        }
    }
    commands.push(current);
    commands.retain(|c| c.program.is_some());
    commands
}

/// `NAME=value` before a program.
fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// One word of a command as its shell passes it on.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Word {
    /// A word: quotes and backslashes removed, variables expanded.
    Text(Text),
    /// `;`, `&&`, `||`, `|`, `&`, `(`, `)` or a line's end: the next word is a program.
    Separator,
    /// `>`, `>>`, `2>`, `&>`...: the next word is a file the shell writes, not code.
    Output,
    /// `<`, `<<`, `<>`: the next word is a file (or a here-document's word) the shell reads.
    Input,
}

/// The text of a word, and whether the shell's expansions of it could be followed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Text {
    text: String,
    /// False when part of it is known only when the shell runs it: a command substitution
    /// (`$(...)`, backquotes), a glob, a special parameter or an expansion with an operator.
    exact: bool,
    /// Variables it uses that have no value (the shell makes them empty).
    unset: Vec<String>,
}

/// Splits `command` into words as a POSIX shell does: blanks separate words; single quotes
/// keep everything; double quotes keep all but `$`, backquotes and `\` before `$`, `` ` ``,
/// `"`, `\` or a newline; a backslash outside quotes keeps the next character; `$NAME` and
/// `${NAME}` are replaced by `variable(NAME)` (split at blanks outside quotes), `~/` by
/// `$HOME/`; `#` at a word's start begins a comment.
fn words(command: &str, variable: &dyn Fn(&str) -> Option<String>) -> Vec<Word> {
    let mut split = Splitter {
        chars: command.chars().collect(),
        at: 0,
        words: Vec::new(),
        current: Text {
            exact: true,
            ..Text::default()
        },
        started: false,
        variable,
    };
    split.run();
    split.words
}

/// The state of [`words`].
struct Splitter<'a> {
    chars: Vec<char>,
    at: usize,
    words: Vec<Word>,
    current: Text,
    /// The current word has begun (a character or a quote was read).
    started: bool,
    variable: &'a dyn Fn(&str) -> Option<String>,
}

impl Splitter<'_> {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn next(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.at += 1;
        Some(c)
    }

    fn push(&mut self, c: char) {
        self.current.text.push(c);
        self.started = true;
    }

    fn finish(&mut self) {
        if std::mem::take(&mut self.started) {
            let text = std::mem::replace(
                &mut self.current,
                Text {
                    exact: true,
                    ..Text::default()
                },
            );
            self.words.push(Word::Text(text));
        } else {
            self.current = Text {
                exact: true,
                ..Text::default()
            };
        }
    }

    fn run(&mut self) {
        while let Some(c) = self.next() {
            match c {
                '\n' => {
                    self.finish();
                    self.words.push(Word::Separator);
                }
                c if c.is_whitespace() => self.finish(),
                '#' if !self.started => {
                    while self.peek().is_some_and(|c| c != '\n') {
                        self.at += 1;
                    }
                }
                ';' | '&' | '|' | '(' | ')' => {
                    if c == '&' && self.peek() == Some('>') {
                        // `&>file`: both outputs to a file.
                        self.at += 1;
                        self.redirect(Word::Output);
                        continue;
                    }
                    self.finish();
                    if c != '(' && c != ')' {
                        while self
                            .peek()
                            .is_some_and(|n| n == c || (c == '|' && n == '&'))
                        {
                            self.at += 1;
                        }
                    }
                    self.words.push(Word::Separator);
                }
                '<' | '>' => {
                    // `2>`: the digits before are the descriptor, not a word.
                    let descriptor = self.started
                        && self.current.exact
                        && self.current.text.chars().all(|c| c.is_ascii_digit());
                    if descriptor {
                        self.started = false;
                    }
                    while self.peek().is_some_and(|n| "<>&|".contains(n)) {
                        self.at += 1;
                    }
                    self.redirect(if c == '>' { Word::Output } else { Word::Input });
                }
                '\\' => match self.next() {
                    Some('\n') => {}
                    Some(c) => self.push(c),
                    None => self.push('\\'),
                },
                '\'' => {
                    self.started = true;
                    loop {
                        match self.next() {
                            Some('\'') => break,
                            Some(c) => self.current.text.push(c),
                            None => {
                                self.current.exact = false;
                                break;
                            }
                        }
                    }
                }
                '"' => self.double_quoted(),
                '$' => self.dollar(false),
                '`' => self.backquoted(),
                '~' if !self.started && matches!(self.peek(), None | Some('/')) => {
                    self.expand_variable("HOME", true);
                }
                '*' | '?' | '[' => {
                    self.current.exact = false;
                    self.push(c);
                }
                c => self.push(c),
            }
        }
        self.finish();
    }

    /// Ends the word before a redirection, which the word after it is the file of.
    fn redirect(&mut self, kind: Word) {
        self.finish();
        self.words.push(kind);
    }

    fn double_quoted(&mut self) {
        self.started = true;
        loop {
            match self.next() {
                Some('"') => return,
                Some('\\') => match self.next() {
                    Some('\n') => {}
                    Some(c @ ('$' | '`' | '"' | '\\')) => self.current.text.push(c),
                    Some(c) => {
                        self.current.text.push('\\');
                        self.current.text.push(c);
                    }
                    None => self.current.text.push('\\'),
                },
                Some('$') => self.dollar(true),
                Some('`') => self.backquoted(),
                Some(c) => self.current.text.push(c),
                None => {
                    self.current.exact = false;
                    return;
                }
            }
        }
    }

    /// After a `$`: a variable, or something only the running shell knows.
    fn dollar(&mut self, quoted: bool) {
        let name_char = |c: char| c.is_ascii_alphanumeric() || c == '_';
        match self.peek() {
            Some('{') => {
                self.at += 1;
                let start = self.at;
                let mut depth = 1;
                while let Some(c) = self.next() {
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                let end = if depth == 0 { self.at - 1 } else { self.at };
                let inside: String = self.chars[start..end].iter().collect();
                let plain = inside.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                    && inside.chars().all(name_char);
                if plain && depth == 0 {
                    self.expand_variable(&inside, quoted);
                } else {
                    self.unknown();
                }
            }
            Some('(') => {
                let mut depth = 0;
                while let Some(c) = self.next() {
                    match c {
                        '(' => depth += 1,
                        ')' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                self.unknown();
            }
            Some(c) if c.is_ascii_alphabetic() || c == '_' => {
                let start = self.at;
                while self.peek().is_some_and(name_char) {
                    self.at += 1;
                }
                let name: String = self.chars[start..self.at].iter().collect();
                self.expand_variable(&name, quoted);
            }
            Some(c) if c.is_ascii_digit() || "@*#?-$!".contains(c) => {
                self.at += 1;
                self.unknown();
            }
            _ => self.push('$'),
        }
    }

    fn backquoted(&mut self) {
        while let Some(c) = self.next() {
            match c {
                '`' => break,
                '\\' => self.at += 1,
                _ => {}
            }
        }
        self.unknown();
    }

    /// Part of the word is known only when the shell runs.
    fn unknown(&mut self) {
        self.started = true;
        self.current.exact = false;
    }

    /// `name`'s value in the word; outside quotes it is split at blanks, as the shell does.
    fn expand_variable(&mut self, name: &str, quoted: bool) {
        let value = (self.variable)(name);
        if value.is_none() && !self.current.unset.iter().any(|u| u == name) {
            self.current.unset.push(name.to_owned());
        }
        let value = value.unwrap_or_default();
        if quoted {
            self.started = true;
            self.current.text.push_str(&value);
            return;
        }
        for c in value.chars() {
            if c.is_whitespace() {
                self.finish();
            } else {
                self.push(c);
            }
        }
    }
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

    /// A `PreToolUse` hook of `command`.
    fn hook(command: &str) -> CommandHook {
        let file = serde_json::json!({"PreToolUse": [{"hooks": [{"type": "command", "command": command}]}]});
        let (mut hooks, issues) =
            crate::agents::parse_hooks(&file.to_string(), Path::new("hooks.json"));
        assert!(issues.is_empty(), "{issues:?}");
        hooks.remove(0)
    }

    /// The words of `command` as text, `|` for a separator, `>` and `<` for redirections,
    /// `?` after a word that is not exact; `$P` is `/p q`, `$E` is empty, `$U` unset.
    fn split(command: &str) -> Vec<String> {
        let variable = |name: &str| match name {
            "P" => Some("/p q".to_owned()),
            "HOME" => Some("/home/u".to_owned()),
            "E" => Some(String::new()),
            _ => None,
        };
        words(command, &variable)
            .into_iter()
            .map(|w| match w {
                Word::Text(t) if t.exact => t.text,
                Word::Text(t) => format!("{}?", t.text),
                Word::Separator => "|".into(),
                Word::Output => ">".into(),
                Word::Input => "<".into(),
            })
            .collect()
    }

    #[test]
    fn words_are_split_and_unquoted_as_the_shell_does() {
        assert_eq!(
            split(r#""$P"/scripts/guard.sh --x"#),
            ["/p q/scripts/guard.sh", "--x"]
        );
        assert_eq!(split("$P/guard.sh"), ["/p", "q/guard.sh"]);
        assert_eq!(split("${P}/a.sh '$P/b.sh'"), ["/p", "q/a.sh", "$P/b.sh"]);
        assert_eq!(
            split(r#"a\ b "c\"d" "e\f" 'g\h'"#),
            ["a b", "c\"d", "e\\f", "g\\h"]
        );
        assert_eq!(
            split("x$U$E y \"\" '' \\\"\\\""),
            ["x", "y", "", "", "\"\""]
        );
        assert_eq!(split("~/bin/x.sh a~b"), ["/home/u/bin/x.sh", "a~b"]);
        assert_eq!(
            split("a&&b||c;d|e&f (g) # h i\nj"),
            ["a", "|", "b", "|", "c", "|", "d", "|", "e", "|", "f", "|", "g", "|", "|", "j"]
        );
        assert_eq!(
            split("a 2>&1 >out <in >>log &>all"),
            ["a", ">", "1", ">", "out", "<", "in", ">", "log", ">", "all"]
        );
        assert_eq!(
            split("$(git rev-parse --show-toplevel)/x.sh `pwd`/y *.py $1"),
            ["/x.sh?", "/y?", "*.py?", "?"]
        );
        assert_eq!(split("a\\\nb 'open"), ["ab", "open?"]);
    }

    #[test]
    fn the_scripts_a_hook_runs_as_programs_or_through_interpreters() {
        let cwd = Path::new("/proj");
        let found = |command: &str| -> Vec<(String, Option<String>)> {
            hook_scripts(&hook(command), cwd)
                .into_iter()
                .map(|s| (s.path.display().to_string(), s.interpreter))
                .collect()
        };
        let program = |path: &str| (path.to_owned(), None);
        let through = |path: &str, by: &str| (path.to_owned(), Some(by.to_owned()));
        assert_eq!(
            found(r#""$CLAUDE_PROJECT_DIR"/scripts/guard.sh"#),
            [program("/proj/scripts/guard.sh")]
        );
        assert_eq!(
            found("./guard.sh; ../up.sh"),
            [program("/proj/guard.sh"), program("/proj/../up.sh")]
        );
        assert_eq!(
            found("python3 -u scripts/lint.py --fix && node x.js | bash -e ./y.sh"),
            [
                through("/proj/scripts/lint.py", "python3"),
                through("/proj/x.js", "node"),
                through("/proj/y.sh", "bash")
            ]
        );
        assert_eq!(
            found("FOO=1 env BAR=2 /usr/bin/python3.12 a.py"),
            [
                program("/usr/bin/python3.12"),
                through("/proj/a.py", "python3.12")
            ]
        );
        assert_eq!(
            found("/usr/bin/env BAR=2 node a.js"),
            [program("/usr/bin/env"), through("/proj/a.js", "node")]
        );
        assert_eq!(
            found(
                "uv run lint.py; poetry run python b.py; bun c.ts; deno run -A d.ts; npx tsx e.ts"
            ),
            [
                through("/proj/lint.py", "uv run"),
                through("/proj/b.py", "poetry run python"),
                through("/proj/c.ts", "bun"),
                through("/proj/d.ts", "deno run"),
                through("/proj/e.ts", "tsx"),
            ]
        );
        assert_eq!(
            found("python3 -c 'print(1)'; python3 -m pytest x.py; bash -ec 'a.sh'; node --version; uv run pytest; jq . f.json"),
            []
        );
        assert_eq!(found("python3 tool; cat < in.py > out.sh"), []);
    }

    #[test]
    fn the_scripts_a_command_names_are_found_and_the_rest_is_said() {
        let dir = tempfile::tempdir().unwrap();
        let project = std::fs::canonicalize(dir.path()).unwrap();
        for file in [
            "guard.sh",
            ".agent/hooks/check.py",
            "scripts/lint.py",
            "x.sh",
        ] {
            let path = project.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "#!/bin/sh\n").unwrap();
        }
        let found = |command: &str| {
            let code = locate(&hook(command), &project);
            let scripts: Vec<String> = code
                .scripts
                .iter()
                .map(|s| s.strip_prefix(&project).unwrap().display().to_string())
                .collect();
            (scripts, code.uncovered)
        };
        assert_eq!(found("./guard.sh"), (vec!["guard.sh".into()], None));
        assert_eq!(
            found(r#""$CLAUDE_PROJECT_DIR"/.agent/hooks/check.py --strict"#),
            (vec![".agent/hooks/check.py".into()], None)
        );
        assert_eq!(
            found("python3 scripts/lint.py && bash x.sh | tee /tmp/log"),
            (vec!["scripts/lint.py".into(), "x.sh".into()], None)
        );
        assert_eq!(found("sed 's/a/b/' | jq ."), (vec![], None));
        assert_eq!(
            found("$(git rev-parse --show-toplevel)/hooks/x.sh"),
            (
                vec![],
                Some("it names a file whose path the shell works out only when it runs ($(...), backquotes, a glob)".into())
            )
        );
        assert_eq!(
            found("'./x.sh' > ./out.log 2>&1 < scripts/lint.py"),
            (vec!["x.sh".into(), "scripts/lint.py".into()], None)
        );
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
