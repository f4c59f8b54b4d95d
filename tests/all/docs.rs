//! The shell examples of the README and of the `docs/` book, run: every ```` ```console ````
//! block is a list of `$ command` lines, each followed by the output it shows, and each page
//! is one scene in which its blocks run in order and must print exactly what they show. (The
//! Rust blocks of the same pages are doc tests of the support crate.)
//!
//! The scene of a page, and the rule that compares outputs (also told to readers in
//! `docs/README.md`):
//!
//! - a fresh folder, standing for the repository's root after the README's first command:
//!   every `target/debug/lib<name>.so` the page names is the plugin of the package `<name>`
//!   (with `-` for `_`), built for the tests and copied there, and `clients/` is the
//!   repository's when the page names it; `HOME` is another fresh folder (the XDG folders
//!   unset: the home's own), `NO_COLOR` is set
//!   and `agent-hooks` is the program built for the tests;
//! - a code block right after a line `<!-- file: PATH -->` is written to `PATH` in the scene
//!   before the next commands run (executable when it starts with `#!`);
//! - each command runs with `sh` in the scene's folder, its stderr into its stdout;
//! - both sides are compared after trailing spaces and blank last lines are dropped, every
//!   run of spaces is made one space, every duration (`0.61 ms`, `12ms`) is made `# ms`,
//!   every process id (`pid 4242`) `pid #`; in what the command printed, the scene's folder
//!   is written `<project>` and `HOME` `~`; a line `...` in the page stands for any lines.

use std::path::{Path, PathBuf};

use agent_hooks_tests::{agent_hooks_bin, plugin, set_mode, temp_dir, workspace_root};

/// The pages of the book that are checked here and as doc tests, from the workspace root.
fn pages() -> Vec<PathBuf> {
    let root = workspace_root();
    let mut pages = vec![root.join("README.md")];
    let mut book: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("the docs/ folder")
        .map(|entry| entry.expect("a docs/ entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    book.sort();
    pages.extend(book);
    pages
}

/// One step of a page: a file to write, or a command with the output it shows.
#[derive(Debug)]
enum Step {
    File {
        path: String,
        content: String,
    },
    Run {
        line: usize,
        command: String,
        shows: Vec<String>,
    },
}

/// The steps of a page, in order.
fn steps(text: &str) -> Vec<Step> {
    let mut steps = Vec::new();
    let mut lines = text.lines().enumerate().peekable();
    let mut file: Option<String> = None;
    while let Some((_, line)) = lines.next() {
        if let Some(path) = line
            .strip_prefix("<!-- file: ")
            .and_then(|rest| rest.strip_suffix(" -->"))
        {
            file = Some(path.trim().to_owned());
            continue;
        }
        let Some(info) = line.strip_prefix("```") else {
            if !line.trim().is_empty() {
                file = None;
            }
            continue;
        };
        let mut block = Vec::new();
        for (number, line) in lines.by_ref() {
            if line.starts_with("```") {
                break;
            }
            block.push((number + 1, line));
        }
        if let Some(path) = file.take() {
            let mut content: String = block.iter().map(|(_, l)| format!("{l}\n")).collect();
            if content.is_empty() {
                content.push('\n');
            }
            steps.push(Step::File { path, content });
        } else if info.trim() == "console" {
            let mut block = block.into_iter().peekable();
            while let Some((line, text)) = block.next() {
                let command = text.strip_prefix("$ ").unwrap_or_else(|| {
                    panic!("line {line}: a console block starts with a `$ ` command")
                });
                let mut command = command.to_owned();
                while command.ends_with('\\') {
                    let (_, next) = block.next().expect("a command goes on after `\\`");
                    command.push('\n');
                    command.push_str(next);
                }
                let mut shows = Vec::new();
                while let Some((_, next)) = block.peek() {
                    if next.starts_with("$ ") {
                        break;
                    }
                    shows.push(next.to_string());
                    block.next();
                }
                steps.push(Step::Run {
                    line,
                    command,
                    shows,
                });
            }
        }
    }
    steps
}

/// A line as it is compared (see the module's rule).
fn normalise(line: &str) -> String {
    let joined = line.split_whitespace().collect::<Vec<_>>().join(" ");
    let durations = regex::Regex::new(r"\d+(\.\d+)? ?ms\b").unwrap();
    let pids = regex::Regex::new(r"\bpid \d+").unwrap();
    let joined = durations.replace_all(&joined, "# ms");
    pids.replace_all(&joined, "pid #").into_owned()
}

/// Whether `actual` is what `shows` shows: equal lines, a `...` line for any lines.
fn matches(shows: &[String], actual: &[String]) -> bool {
    match shows.split_first() {
        None => actual.is_empty(),
        Some((first, rest)) if first == "..." => {
            (0..=actual.len()).any(|skip| matches(rest, &actual[skip..]))
        }
        Some((first, rest)) => {
            actual.first().is_some_and(|line| line == first) && matches(rest, &actual[1..])
        }
    }
}

fn compared(lines: &[String]) -> Vec<String> {
    let mut lines: Vec<String> = lines.iter().map(|l| normalise(l)).collect();
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines
}

/// Lays out the scene of `page` (see the module's rule).
fn scene(text: &str, root: &Path) {
    let debug = root.join("target/debug");
    std::fs::create_dir_all(&debug).unwrap();
    let names = regex::Regex::new(r"target/debug/lib([a-z0-9_]+)\.so").unwrap();
    for found in names.captures_iter(text) {
        let name = &found[1];
        let to = debug.join(format!("lib{name}.so"));
        if !to.exists() {
            std::fs::copy(plugin(&name.replace('_', "-")), &to).unwrap();
        }
    }
    if text.contains("clients/") {
        let clients = workspace_root().join("clients");
        copy_tree(&clients, &root.join("clients"));
    }
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    set_mode(to, 0o755);
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

fn write(root: &Path, path: &str, content: &str) {
    let to = root.join(path);
    let mut folder = to.parent().unwrap().to_path_buf();
    std::fs::create_dir_all(&folder).unwrap();
    while folder.starts_with(root) && folder != root {
        set_mode(&folder, 0o755);
        folder.pop();
    }
    std::fs::write(&to, content).unwrap();
    set_mode(
        &to,
        if content.starts_with("#!") {
            0o755
        } else {
            0o644
        },
    );
}

/// Runs the console examples of `page`; what differs, for every command that differs.
fn check(page: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(page).unwrap();
    let steps = steps(&text);
    if !steps.iter().any(|s| matches!(s, Step::Run { .. })) {
        return Vec::new();
    }
    let root = temp_dir();
    let home = temp_dir();
    scene(&text, root.path());
    let program = agent_hooks_bin();
    let path = std::env::join_paths(
        std::iter::once(program.parent().unwrap().to_path_buf()).chain(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        )),
    )
    .unwrap();
    let mut differences = Vec::new();
    for step in steps {
        match step {
            Step::File { path, content } => write(root.path(), &path, &content),
            Step::Run {
                line,
                command,
                shows,
            } => {
                let output = std::process::Command::new("sh")
                    .arg("-c")
                    .arg(format!("{{ {command}\n}} 2>&1"))
                    .current_dir(root.path())
                    .env("PATH", &path)
                    .env("HOME", home.path())
                    .env_remove("XDG_CONFIG_HOME")
                    .env_remove("XDG_STATE_HOME")
                    .env("NO_COLOR", "1")
                    .output()
                    .expect("sh runs");
                let printed = String::from_utf8_lossy(&output.stdout)
                    .replace(&*home.path().to_string_lossy(), "~")
                    .replace(&*root.path().to_string_lossy(), "<project>");
                let actual: Vec<String> = printed.lines().map(str::to_owned).collect();
                if !matches(&compared(&shows), &compared(&actual)) {
                    differences.push(format!(
                        "{}:{line}: `{command}` printed\n{}\n-- but the page shows --\n{}",
                        page.display(),
                        actual.join("\n"),
                        shows.join("\n")
                    ));
                }
            }
        }
    }
    differences
}

/// Each page is a scene of its own (its own folders), so the pages run at once, each in its
/// order; the differences are told in the pages' order.
#[test]
fn every_console_example_of_the_readme_and_the_book_prints_what_it_shows() {
    let pages = pages();
    let differences: Vec<String> = std::thread::scope(|scope| {
        let checks: Vec<_> = pages
            .iter()
            .map(|page| scope.spawn(move || check(page)))
            .collect();
        checks
            .into_iter()
            .flat_map(|check| {
                check
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    });
    assert!(differences.is_empty(), "{}", differences.join("\n\n"));
}

/// The five-minute page does what a newcomer under Claude Code does, each step run with
/// the real program: wire with a take-over, trust, add a guard and a plugin, look, uninstall.
#[test]
fn the_claude_code_five_minute_page_runs_each_step_of_a_first_session() {
    let page = workspace_root().join("docs/claude-code-in-five-minutes.md");
    let text = std::fs::read_to_string(&page).unwrap();
    let commands: Vec<String> = steps(&text)
        .into_iter()
        .filter_map(|step| match step {
            Step::Run { command, .. } => Some(command),
            Step::File { .. } => None,
        })
        .collect();
    let order = [
        "agent-hooks install --agent claude --project --take-over",
        "agent-hooks trust",
        "cp target/debug/libblock_dangerous.so .agent-hooks/hooks/",
        "agent-hooks list",
        "agent-hooks doctor",
        "agent-hooks hook --agent claude",
        "agent-hooks uninstall --agent claude --project",
    ];
    let mut rest = commands.iter();
    for wanted in order {
        assert!(
            rest.any(|command| command.contains(wanted)),
            "the page runs `{wanted}` in its order: {commands:?}"
        );
    }
    let differences = check(&page);
    assert!(differences.is_empty(), "{}", differences.join("\n\n"));
}

#[test]
fn every_page_of_the_book_is_a_doc_test() {
    let support = std::fs::read_to_string(workspace_root().join("tests/support/lib.rs")).unwrap();
    for page in pages() {
        let relative = page.strip_prefix(workspace_root()).unwrap();
        let include = format!("include_str!(\"../../{}\")", relative.display());
        assert!(
            support.contains(&include),
            "tests/support/lib.rs does not check the Rust blocks of {}: add `#[doc = {include}]`",
            relative.display()
        );
    }
}

#[test]
fn the_console_rule_compares_what_it_says() {
    let shows = [
        "tool_call BLOCKED: no (0.61 ms)".to_owned(),
        "...".to_owned(),
        "  plugin  pid 4242".to_owned(),
    ];
    let actual = [
        "tool_call BLOCKED: no (12.3ms)  ".to_owned(),
        "anything".to_owned(),
        "plugin   pid 7".to_owned(),
        String::new(),
    ];
    assert!(matches(&compared(&shows), &compared(&actual)));
    let other = ["tool_call BLOCKED: yes (1 ms)".to_owned()];
    assert!(!matches(&compared(&shows[..1]), &compared(&other)));
    assert!(!matches(&compared(&shows), &compared(&actual[..2])));
}

/// The README's two commands, as written in its `## Two commands` block (the command of each
/// line, without its comment).
fn readme_commands() -> Vec<String> {
    let readme = std::fs::read_to_string(workspace_root().join("README.md")).unwrap();
    let section = readme
        .split_once("## Two commands")
        .expect("the README has a `## Two commands` section")
        .1;
    let block = section
        .split_once("```sh\n")
        .and_then(|(_, rest)| rest.split_once("```"))
        .expect("the section opens with a sh block")
        .0;
    block
        .lines()
        .map(|line| line.split(" # ").next().unwrap_or(line).trim().to_owned())
        .filter(|command| !command.is_empty())
        .collect()
}

#[test]
fn ci_runs_the_readmes_test_command() {
    let commands = readme_commands();
    assert_eq!(commands.len(), 2, "{commands:?}");
    let ci = std::fs::read_to_string(workspace_root().join(".ci/run")).unwrap();
    // CI may add `-j2` (the machine's cores) after `cargo test`.
    let runs = ci
        .lines()
        .any(|line| line.trim().replacen("cargo test -j2 ", "cargo test ", 1) == commands[1]);
    assert!(
        runs,
        ".ci/run does not run the README's test command `{}`",
        commands[1]
    );
}

/// The page of events x agents is what the code says (`agents::events_table`, also
/// `agent-hooks events`). `AGENT_HOOKS_REGENERATE=1` writes the page from the code instead.
#[test]
fn the_events_table() {
    let page = workspace_root().join("docs/events-by-agent.md");
    let generated = agent_hooks::agents::events_table();
    if std::env::var_os("AGENT_HOOKS_REGENERATE").is_some_and(|v| v == "1") {
        std::fs::write(&page, &generated).expect("write docs/events-by-agent.md");
        return;
    }
    let written = std::fs::read_to_string(&page).unwrap_or_default();
    if written != generated {
        let first = written
            .lines()
            .zip(generated.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| written.lines().count().min(generated.lines().count()));
        panic!(
            "docs/events-by-agent.md is not what the code says (first difference at line {}: page {:?}, code {:?}). Regenerate it with:\n\n    AGENT_HOOKS_REGENERATE=1 cargo test -p agent-hooks-tests --test all -- docs::the_events_table\n",
            first + 1,
            written.lines().nth(first).unwrap_or("<end>"),
            generated.lines().nth(first).unwrap_or("<end>"),
        );
    }
}

/// `agent-hooks events` prints the same table.
#[test]
fn the_program_prints_the_events_table() {
    let output = std::process::Command::new(agent_hooks_bin())
        .arg("events")
        .output()
        .expect("the program runs");
    assert!(output.status.success());
    assert_eq!(
        String::from_utf8_lossy(&output.stdout).trim_end(),
        agent_hooks::agents::events_table().trim_end()
    );
}

/// The payload fields the events table gives each agent are the ones its hooks get: a real
/// hook per agent and event writes its stdin to a file, and its keys are compared with
/// `payload_fields` (less `transcript_path`, which this host does not give, and `prompt_id`,
/// which needs a prompt first).
#[tokio::test]
async fn the_events_tables_payload_fields_are_what_hooks_get() {
    use agent_hooks::{
        agents::{payload_fields, Agent},
        command_hook::{CommandEvent, CommandHooks},
    };

    let dir = temp_dir();
    // A place whose folder names the dialect (`Agent::of_file`).
    let place = |dialect: Agent| match dialect {
        Agent::AgentHooks => "hooks.json",
        Agent::ClaudeCode => ".claude/settings.json",
        Agent::Codex => ".codex/hooks.json",
        Agent::Gemini => ".gemini/settings.json",
        Agent::Copilot => ".github/hooks/hooks.json",
        Agent::Cursor => ".cursor/hooks.json",
        Agent::Devin => ".devin/hooks.v1.json",
        Agent::Pi | Agent::OpenCode | Agent::Kilo => unreachable!("it reads no hooks files"),
        Agent::Qwen => ".qwen/settings.json",
        Agent::Droid => ".factory/settings.json",
        Agent::Cline => unreachable!("Cline's hooks are scripts named after events"),
    };
    // pi, OpenCode and Kilo Code have no hooks files of their own (agent-hooks' extension or
    // plugin sends them Claude Code's fields). Cline's hooks are scripts, not hooks files:
    // its payload is tested through the program in tests/all/cline.rs, and with the real
    // Cline.
    let no_files = [Agent::Pi, Agent::OpenCode, Agent::Kilo, Agent::Cline];
    for dialect in Agent::ALL.into_iter().filter(|d| !no_files.contains(d)) {
        for event in [
            CommandEvent::SessionStart,
            CommandEvent::PreToolUse,
            CommandEvent::PostToolUse,
            CommandEvent::Stop,
            CommandEvent::SessionEnd,
        ] {
            let out = dir.path().join(format!("{}-{event}.json", dialect.name()));
            let command = format!("cat > '{}'", out.display());
            let file = match dialect {
                // Their events list their hooks directly; Copilot CLI's command is `bash`.
                Agent::Copilot => serde_json::json!({"version": 1, "hooks": {
                    dialect.event_name(event): [{"type": "command", "bash": command}]}}),
                Agent::Cursor => serde_json::json!({"version": 1, "hooks": {
                    dialect.event_name(event): [{"command": command}]}}),
                _ => serde_json::json!({"hooks": {dialect.event_name(event): [{"hooks": [
                    {"type": "command", "command": command}
                ]}]}}),
            };
            let source = dir.path().join(place(dialect));
            let mut hooks = CommandHooks::new();
            hooks.parse(&file.to_string(), &source);
            assert!(hooks.issues().is_empty(), "{:?}", hooks.issues());
            assert_eq!(hooks.hooks().next().map(|h| h.dialect), Some(dialect));
            let mut runner = agent_hooks::HookRunner::new(Vec::new(), dir.path());
            runner.add_command_hooks(hooks);
            let fields: serde_json::Map<String, serde_json::Value> = event
                .spec()
                .fields
                .iter()
                .map(|f| {
                    let value = if *f == "tool_name" { "Bash" } else { "x" };
                    (f.to_string(), serde_json::json!(value))
                })
                .collect();
            let outcome = runner.emit_command(event, fields).await;
            assert_eq!(outcome.ran, 1, "{} {event}", dialect.name());
            let payload: serde_json::Value =
                serde_json::from_slice(&std::fs::read(&out).expect("the hook wrote its stdin"))
                    .expect("the payload is JSON");
            let mut got: Vec<String> = payload.as_object().unwrap().keys().cloned().collect();
            got.sort();
            let mut expected: Vec<String> = payload_fields(dialect, event)
                .into_iter()
                .filter(|f| {
                    !matches!(
                        f.as_str(),
                        "transcript_path" | "transcriptPath" | "prompt_id" | "turn_id"
                    )
                })
                .collect();
            expected.sort();
            assert_eq!(got, expected, "{} {event}: {payload}", dialect.name());
        }
    }
}

/// The rooms of the host crate: each file and folder at the top of `loader/src` (a module
/// and its folder, `hook.rs` and `hook/`, are one room), with the text of its code (comments
/// and test modules left out).
fn rooms() -> std::collections::BTreeMap<String, String> {
    let src = workspace_root().join("loader/src");
    let mut rooms = std::collections::BTreeMap::<String, String>::new();
    let mut files = Vec::new();
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read loader/src").flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    for path in files {
        let relative = path.strip_prefix(&src).expect("under loader/src");
        let first = relative
            .components()
            .next()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .unwrap_or_default();
        let room = first.trim_end_matches(".rs").to_owned();
        if room == "lib" {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("read a source file");
        let code = text
            .split("#[cfg(test)]\nmod tests")
            .next()
            .unwrap_or_default();
        let code: String = code
            .lines()
            .filter(|line| !line.trim_start().starts_with("//"))
            .map(|line| format!("{line}\n"))
            .collect();
        rooms.entry(room).or_default().push_str(&code);
    }
    rooms
}

/// The names `lib.rs` re-exports at the crate root, with the room each comes from.
fn root_names() -> std::collections::BTreeMap<String, String> {
    let lib = std::fs::read_to_string(workspace_root().join("loader/src/lib.rs"))
        .expect("read loader/src/lib.rs");
    let mut names = std::collections::BTreeMap::new();
    for statement in lib.split(';') {
        // Its comments and attributes (`#[doc(hidden)]`, `#[doc(inline)]`) left out.
        let statement: Vec<&str> = statement
            .lines()
            .map(str::trim)
            .filter(|line| !line.starts_with("//") && !line.starts_with("#["))
            .collect();
        let Some(rest) = statement
            .join(" ")
            .strip_prefix("pub use ")
            .map(str::to_owned)
        else {
            continue;
        };
        let Some((room, items)) = rest.split_once("::") else {
            continue;
        };
        for item in items.trim_matches(|c| c == '{' || c == '}').split(',') {
            let name = item.split(" as ").last().unwrap_or_default().trim();
            if !name.is_empty() {
                names.insert(name.to_owned(), room.trim().to_owned());
            }
        }
    }
    names
}

/// The rooms that `code` names through `crate::` paths (`crate::a::b`, `crate::{a::b, c}`),
/// a name of the crate root counting as the room it comes from.
fn rooms_named(
    code: &str,
    rooms: &std::collections::BTreeMap<String, String>,
    root: &std::collections::BTreeMap<String, String>,
) -> std::collections::BTreeSet<String> {
    let mut named = std::collections::BTreeSet::new();
    let mut add = |first: &str| {
        let first = first.trim();
        if rooms.contains_key(first) {
            named.insert(first.to_owned());
        } else if let Some(room) = root.get(first) {
            named.insert(room.clone());
        }
    };
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // The items of the group at its own depth: `a::{b, c}, d` names `a` and `d`.
            let mut depth = 0;
            let mut item = String::new();
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        add(item.split("::").next().unwrap_or_default());
                        item.clear();
                        continue;
                    }
                    _ => {}
                }
                if depth == 0 {
                    item.push(c);
                }
            }
            add(item.split("::").next().unwrap_or_default());
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            add(&name);
        }
    }
    named
}

/// docs/architecture.md's floors are the code's: every room of the host crate is on one
/// floor of the page, and every room it names through a `crate::` path is on a lower floor.
#[test]
fn the_floors_are_the_codes() {
    let page = std::fs::read_to_string(workspace_root().join("docs/architecture.md"))
        .expect("read docs/architecture.md");
    let rooms = rooms();
    let root = root_names();
    let mut floors = std::collections::BTreeMap::<String, usize>::new();
    let mut problems = Vec::new();
    for line in page.lines() {
        let cells: Vec<&str> = line.split(" | ").collect();
        let (Some(first), Some(places)) = (cells.first(), cells.last()) else {
            continue;
        };
        let Some(floor) = first
            .trim_start_matches("| ")
            .split('.')
            .next()
            .and_then(|n| n.parse::<usize>().ok())
        else {
            continue;
        };
        for (i, place) in places.split('`').enumerate() {
            let room = place.trim_end_matches('/').trim_end_matches("/mod.rs");
            let room = room.trim_end_matches(".rs");
            if i % 2 == 1 && rooms.contains_key(room) {
                if let Some(other) = floors.insert(room.to_owned(), floor) {
                    if other != floor {
                        problems.push(format!("`{room}` is on floors {other} and {floor}"));
                    }
                }
            }
        }
    }
    for (room, code) in &rooms {
        let Some(floor) = floors.get(room) else {
            problems.push(format!("`{room}` is on no floor of the page"));
            continue;
        };
        for named in rooms_named(code, &rooms, &root) {
            let under = floors.get(&named).copied().unwrap_or(usize::MAX);
            if named != *room && under >= *floor {
                problems.push(format!(
                    "`{room}` (floor {floor}) uses `{named}` (floor {under}), which is not below it"
                ));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "docs/architecture.md's floors are not the code's; move the room on the page, or change \
         the import:\n{}",
        problems.join("\n")
    );
}
