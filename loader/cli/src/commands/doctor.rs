//! `agent-hooks doctor`: what `list` shows, plus advice on every problem.

use std::{os::unix::fs::PermissionsExt, path::Path, process::ExitCode};

use agent_hooks::{
    agents::HookAnswer as Answer,
    command_hook::{
        CommandEvent, CommandHook, CommandHooks, Exit2, HookKind, Matcher, Persistence, Severity,
        ToolNames,
    },
    isolation::{keeper_in_force, KeeperInForce},
    HookRunner, LoadError,
};
use serde_json::json;

use crate::{
    commands::list,
    options::{Common, Outcome},
    output::{indent_continuation, relative_text, Style},
};

/// Starts each long-running hook that would start on its first event (`"persistent":
/// true`) once, on its own, and says which did not say hello (a missing import, a crash on
/// start, a debugging print before its hello): under an agent, such a guard would be off
/// until its first event found it out. Each is ended again at once.
fn long_running_starts(commands: &CommandHooks, cwd: &Path) -> Vec<String> {
    let mut probe = commands.clone();
    probe.retain(|h| {
        matches!(
            h.kind.persistence(),
            Some(Persistence::Session | Persistence::User)
        )
    });
    if probe.hooks().next().is_none() {
        return Vec::new();
    }
    let before = probe.issues().len();
    probe.start_long_running_at_once();
    let Ok(runtime) = crate::runtime::build() else {
        return vec![
            "the long-running hooks could not be started to check them (no runtime)".into(),
        ];
    };
    let _entered = runtime.enter();
    let mut runner = HookRunner::new(Vec::new(), cwd);
    runner.add_command_hooks(probe);
    runner.command_hooks().issues()[before..]
        .iter()
        .map(|issue| format!("{issue} (doctor started it to check)"))
        .collect()
}

/// agent-hooks' own tool names (docs/command-hooks.md), the default set matchers are checked
/// against.
const TOOLS: &[&str] = &[
    "read",
    "write",
    "edit",
    "apply_patch",
    "notebook_read",
    "notebook_edit",
    "grep",
    "glob",
    "exec",
    "get_output",
    "write_to_process",
    "kill_shell",
    "webfetch",
    "todo_write",
    "exit_plan_mode",
    "skill",
    "run_subagent",
    "read_subagent",
    "request_scope",
    "mcp_list_servers",
    "mcp_list_tools",
    "mcp_call_tool",
    "mcp_read_resource",
];

/// Tool names of other agents, and this agent's name for the same tool.
const SYNONYMS: &[(&str, &str)] = &[
    ("bash", "exec"),
    ("shell", "exec"),
    ("bashoutput", "get_output"),
    ("killshell", "kill_shell"),
    ("killbash", "kill_shell"),
    ("multiedit", "edit"),
    ("notebookedit", "notebook_edit"),
    ("notebookread", "notebook_read"),
    ("todowrite", "todo_write"),
    ("task", "run_subagent"),
    ("exitplanmode", "exit_plan_mode"),
    ("websearch", "webfetch"),
    ("ls", "glob"),
];

/// The closest tool name to `name`: a known synonym, the same name in another case, or the
/// nearest by edit distance (at most 3 edits).
pub fn closest(name: &str, tools: &[String]) -> Option<String> {
    let lower = name.to_lowercase();
    if let Some((_, ours)) = SYNONYMS.iter().find(|(theirs, _)| *theirs == lower) {
        if tools.iter().any(|t| t == ours) {
            return Some((*ours).to_owned());
        }
    }
    if let Some(same) = tools.iter().find(|t| t.to_lowercase() == lower) {
        return Some(same.clone());
    }
    tools
        .iter()
        .map(|t| (crate::output::edit_distance(&lower, &t.to_lowercase()), t))
        .filter(|(d, _)| *d <= 3)
        .min_by_key(|(d, _)| *d)
        .map(|(_, t)| t.clone())
}

fn matcher_advice(hook: &CommandHook, tools: &[String]) -> Option<String> {
    // The hook sees each tool by its name in its own dialect (`Bash` for `exec`).
    let names = ToolNames::default();
    let tools: Vec<String> = tools
        .iter()
        .map(|t| {
            names
                .name_in(hook.dialect.tool_dialect(&hook.event_name), t)
                .to_owned()
        })
        .collect();
    let tools = &tools[..];
    if !hook.event.has_tool() || tools.iter().any(|t| hook.matcher.matches(t)) {
        return None;
    }
    let written = hook.matcher_text.clone().unwrap_or_default();
    let names: Vec<&str> = match &hook.matcher {
        Matcher::Names(names) => names.iter().map(String::as_str).collect(),
        _ => written.split('|').collect(),
    };
    let suggestions: Vec<String> = names
        .iter()
        .filter_map(|n| {
            closest(
                n.trim_matches(|c: char| !c.is_alphanumeric() && c != '_'),
                tools,
            )
            .map(|s| format!("`{s}` for `{n}`"))
        })
        .collect();
    let hint = if suggestions.is_empty() {
        String::new()
    } else {
        format!("; did you mean {}?", suggestions.join(", "))
    };
    Some(format!(
        "{} ({}): the matcher `{written}` matches none of the agent's tools, so this hook never runs{hint}",
        hook.source.display(),
        hook.event
    ))
}

/// The scripts a command runs that are missing, or not executable when they are its
/// program (`./guard.sh`, `"$CLAUDE_PROJECT_DIR"/scripts/guard.sh`, `python3
/// scripts/lint.py`), its words read as the hook's shell reads them.
fn script_advice(hook: &CommandHook, cwd: &Path) -> Vec<String> {
    let place = format!("{} ({})", hook.source.display(), hook.event);
    let mut advice = Vec::new();
    for script in agent_hooks::discover::hook_scripts(hook, cwd) {
        let path = script.path.display();
        let unset = unset_note(&script.unset);
        if let Some(interpreter) = &script.interpreter {
            if !script.path.is_file() {
                advice.push(interpreted_advice(
                    hook,
                    &place,
                    interpreter,
                    &script,
                    &unset,
                ));
            }
            continue;
        }
        advice.extend(match std::fs::metadata(&script.path) {
            Err(_) => Some(format!(
                "{place}: the script {path}{unset} does not exist; the hook would fail with exit code 127{}",
                failure_denies(hook)
            )),
            Ok(m) if m.permissions().mode() & 0o111 == 0 => Some(format!(
                "{place}: the script {path} is not executable; fix it with `chmod +x {path}`"
            )),
            Ok(_) => None,
        });
    }
    advice
}

/// A missing script run through `interpreter`: the hook fails on every run, and what to do.
fn interpreted_advice(
    hook: &CommandHook,
    place: &str,
    interpreter: &str,
    script: &agent_hooks::discover::HookScript,
    unset: &str,
) -> String {
    let program = interpreter.rsplit(' ').next().unwrap_or(interpreter);
    // Measured: both exit with code 2 when the script does not exist.
    let exit_2 = program.starts_with("python") || program == "perl";
    let blocks = match hook.event.spec().exit2 {
        _ if !failure_denies(hook).is_empty() => failure_denies(hook),
        Exit2::Blocks if exit_2 => format!(
            ", and `{program}` exits with code 2 for a missing script, which blocks every {} it matches",
            if hook.event.has_tool() { "tool call" } else { hook.event.name() }
        ),
        _ if exit_2 => format!(", with code 2 (`{program}`'s for a missing script)"),
        _ => String::new(),
    };
    let relative = if Path::new(&script.word).is_relative() {
        "; a relative path is taken from the project folder, where hooks run (\"$CLAUDE_PROJECT_DIR\"/... names it from anywhere)"
    } else {
        ""
    };
    format!(
        "{place}: `{interpreter}` runs {}{unset}, which does not exist: the hook fails every time it runs{blocks}. Create the script, or correct its path in the command{relative}",
        script.path.display()
    )
}

/// For a hook on an event whose every failure its agent turns into a deny (its profile's
/// `failure_denies_on`): what that does; else nothing.
fn failure_denies(hook: &CommandHook) -> String {
    let profile = hook.dialect.profile();
    if profile.failure_denies_on.contains(&hook.event) {
        format!(
            ", and in {}'s dialect any failure of `{}` denies the call, so it blocks every tool call it matches",
            profile.title, hook.event_name
        )
    } else {
        String::new()
    }
}

/// ` ($NAME is not set here, so it is empty)` for the variables a path uses without a value.
fn unset_note(unset: &[String]) -> String {
    match unset {
        [] => String::new(),
        [one] => format!(" (${one} is not set here, so it is empty)"),
        more => {
            let names: Vec<String> = more.iter().map(|n| format!("${n}")).collect();
            format!(
                " ({} are not set here, so they are empty)",
                names.join(", ")
            )
        }
    }
}

fn load_advice(path: &str, error: &LoadError) -> String {
    let abi = agent_hooks::abi::INTERFACE_VERSION;
    let fix = match error {
        LoadError::OlderInterface { .. } | LoadError::LayoutMismatch { .. } => format!(
            " To rebuild it: in the plugin's Cargo.toml depend on `agent-hooks-abi = \"{abi}\"`, then run `cargo update -p agent-hooks-abi && cargo build --release`."
        ),
        LoadError::Script { .. } => " For example, in .agent-hooks/hooks/hooks.json: {\"PreToolUse\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"<the script's path>\"}]}]}.".into(),
        _ => String::new(),
    };
    format!("{path}: {error}{fix}")
}

/// A note for a hook that may rely on its own agent failing open where agent-hooks,
/// deliberately, does not (docs/real-agents.md, measured with the real agents): only for a
/// hook that may give one of the answers the note is about ([`may_answer`]).
fn deliberate_note(hook: &CommandHook, cwd: &Path) -> Option<String> {
    if hook.event != CommandEvent::PreToolUse {
        return None;
    }
    let (agent_runs_it, answers) = hook.dialect.profile().runs_the_tool_anyway?;
    if !may_answer(hook, cwd, answers) {
        return None;
    }
    Some(format!(
        "{} ({}): {agent_runs_it}; agent-hooks does not run it (see docs/real-agents.md)",
        hook.source.display(),
        hook.event_name
    ))
}

/// Whether `text` holds `answer`, as it shows in a hook's code: `"continue": false` as the
/// word `continue` in quotes, `deny` as a word, `"ask"` as the word `ask` in quotes, exit
/// code 2 as `exit 2`, `exit(2)`, `sys.exit(2)`, `process.exit(2)`.
fn in_text(answer: Answer, text: &str) -> bool {
    let bytes = text.as_bytes();
    let word = |word: &str, quoted: bool| {
        text.match_indices(word).any(|(at, _)| {
            let before = bytes[..at].last().copied();
            let after = text[at + word.len()..].trim_start_matches('\\');
            let after = after.bytes().next();
            if quoted {
                matches!(before, Some(b'"' | b'\'')) && matches!(after, Some(b'"' | b'\''))
            } else {
                !before.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
                    && !after.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
            }
        })
    };
    match answer {
        Answer::Continue => word("continue", true),
        Answer::Deny => word("deny", false),
        Answer::Ask => word("ask", true),
        Answer::Exit2 => text.match_indices("exit").any(|(at, _)| {
            let rest = text[at + 4..].trim_start_matches([' ', '\t', '(']);
            rest.starts_with('2') && !rest[1..].starts_with(|c: char| c.is_ascii_digit())
        }),
    }
}

/// Whether `hook` may give one of `answers`, judged from its command and the scripts it
/// names (`./guard.sh`, `python3 scripts/guard.py`): yes when one of them shows the answer,
/// or when a script it names cannot be read, or for a hook whose code cannot be seen (an
/// HTTP hook, a hook the agent answers). A program found on the PATH is not read.
fn may_answer(hook: &CommandHook, cwd: &Path, answers: &[Answer]) -> bool {
    /// The most of a script read to look for an answer.
    const SCRIPT_LIMIT: u64 = 1 << 20;
    let Some(command) = hook.kind.shell_command() else {
        return true;
    };
    let shows = |text: &str| answers.iter().any(|a| in_text(*a, text));
    if shows(command) {
        return true;
    }
    agent_hooks::discover::hook_scripts(hook, cwd)
        .iter()
        .any(|script| {
            use std::io::Read;
            let mut bytes = Vec::new();
            match std::fs::File::open(&script.path)
                .and_then(|f| f.take(SCRIPT_LIMIT).read_to_end(&mut bytes))
            {
                Ok(_) => shows(&String::from_utf8_lossy(&bytes)),
                // A missing script is a problem of its own (see `script_advice`).
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
                Err(_) => true,
            }
        })
}

/// `agent-hooks doctor`.
/// Which keeper ends a hook's processes with the agent (docs/keeper.md): its line, its
/// JSON, and the warning of a keeper program that does not serve (a problem to fix).
fn keeper() -> (String, serde_json::Value, Option<String>) {
    match keeper_in_force() {
        KeeperInForce::Subreaper { program } => (
            format!(
                "the subreaper keeper ({}): whatever a hook starts ends with the agent",
                program.display()
            ),
            json!({"keeper": "subreaper", "program": program}),
            None,
        ),
        KeeperInForce::Shell { unserved } => {
            let found = if unserved.is_some() {
                "the keeper program found does not serve (see Problems)"
            } else {
                "no keeper program was found"
            };
            (
                format!("the shell keeper ({found}): a process a hook starts ends with the agent only while it keeps AGENT_HOOKS_KEEPER in its environment (docs/keeper.md)"),
                json!({"keeper": "shell", "unserved": unserved}),
                unserved,
            )
        }
        _ => (
            "none: a hook's processes end when the agent kills their process group (docs/keeper.md)".into(),
            json!({"keeper": "none"}),
            None,
        ),
    }
}

/// `agent`: check the hooks as `hook --agent NAME` runs them for that agent.
pub fn run(
    common: &Common,
    tools: &[String],
    agent: Option<agent_hooks::agents::Agent>,
) -> Outcome {
    let session = crate::agent_payload::open(common, agent)?;
    let tools: Vec<String> = if tools.is_empty() {
        TOOLS.iter().map(|t| (*t).to_owned()).collect()
    } else {
        tools.to_vec()
    };
    let mut problems: Vec<String> = session
        .findings
        .loaded
        .errors
        .iter()
        .map(|f| load_advice(&f.path, &f.error))
        .collect();
    let commands = session.runner.command_hooks();
    problems.extend(commands.issues().iter().map(|i| {
        let kind = if i.severity == Severity::Error {
            "error"
        } else {
            "warning"
        };
        format!("{i} ({kind})")
    }));
    for hook in commands.hooks() {
        problems.extend(matcher_advice(hook, &tools));
        problems.extend(script_advice(hook, &session.cwd));
    }
    problems.extend(long_running_starts(commands, &session.cwd));
    problems.extend(crate::decisions::check(&session.decisions));
    problems.extend(session.findings.warnings.iter().cloned());
    for hook in session.runner.hooks() {
        problems.extend(
            hook.warnings()
                .iter()
                .map(|w| format!("{}: {w}", hook.path())),
        );
    }
    let mut notes: Vec<String> = session
        .findings
        .untrusted
        .iter()
        .map(|u| format!("{}: {}", u.entry.path.display(), u.reason))
        .chain(session.findings.uncovered.iter().map(|u| {
            format!(
                "{}: `{}` runs code that trust does not cover ({})",
                u.file.display(),
                u.command,
                u.reason
            )
        }))
        .chain(
            session
                .findings
                .forbidden
                .iter()
                .map(|(entry, reason)| format!("{}: {reason}", entry.path.display())),
        )
        .chain(commands.hooks().filter_map(|hook| {
            let HookKind::HostCall(call) = &hook.kind else {
                return None;
            };
            Some(format!(
                "{} ({}): `{}` is a `{}` hook: the agent answers it ({}); the agent-hooks program answers it only from --host-script FILE, and under `agent-hooks hook` it is reported as not supported",
                hook.source.display(),
                hook.event_name,
                call.describe(),
                call.kind().name(),
                call.kind().method()
            ))
        }))
        .chain(
            commands
                .hooks()
                .filter_map(|hook| deliberate_note(hook, &session.cwd)),
        )
        .collect();
    notes.dedup();
    let (keeper_line, keeper_json, keeper_problem) = keeper();
    problems.extend(keeper_problem);
    problems.extend(crate::entries::wired::entry_problems(common));

    let mut report = list::report(&session);
    if common.json {
        report["problems"] = json!(problems);
        report["notes"] = json!(notes);
        report["agents"] = crate::entries::wired::wired_json(common);
        report["keeper"] = keeper_json;
        outln!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        let style = Style::for_stdout();
        list::print(&session, &report, style);
        outln!("Agents");
        for line in crate::entries::wired::wired_lines(common) {
            outln!("{line}");
        }
        outln!("Keeper");
        outln!("  {keeper_line}");
        outln!();
        if problems.is_empty() {
            outln!("{}", style.ok("No problems found."));
        } else {
            outln!("{}", style.bold(&format!("Problems ({})", problems.len())));
            for problem in &problems {
                outln!(
                    "  {} {}",
                    style.bad("✗"),
                    indent_continuation(&relative_text(problem, &session.cwd), "    ")
                );
            }
        }
        for note in &notes {
            outln!(
                "  {} {}",
                style.warn("!"),
                relative_text(note, &session.cwd)
            );
        }
    }
    Ok(if problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_agents_tool_names_get_this_agent_s_name() {
        let tools: Vec<String> = TOOLS.iter().map(|t| (*t).to_owned()).collect();
        assert_eq!(closest("Bash", &tools).as_deref(), Some("exec"));
        assert_eq!(closest("Read", &tools).as_deref(), Some("read"));
        assert_eq!(closest("TodoWrite", &tools).as_deref(), Some("todo_write"));
        assert_eq!(closest("exce", &tools).as_deref(), Some("exec"));
        assert_eq!(closest("Frobnicate", &tools), None);
    }

    #[test]
    fn an_answer_is_found_in_a_hook_s_code_only_where_it_is_given() {
        let shows = |answer: Answer, text: &str| in_text(answer, text);
        assert!(shows(Answer::Continue, r#"echo '{"continue": false}'"#));
        assert!(shows(
            Answer::Continue,
            r#"print(json.dumps({'continue': False}))"#
        ));
        assert!(shows(Answer::Continue, r#"echo "{\"continue\": false}""#));
        assert!(!shows(Answer::Continue, "for f in *; do continue; done"));
        assert!(shows(Answer::Deny, r#"{"decision": "deny"}"#));
        assert!(!shows(Answer::Deny, "echo denylist"));
        assert!(shows(Answer::Ask, r#"{"permissionDecision": "ask"}"#));
        assert!(!shows(Answer::Ask, "echo task >> log"));
        for exit in ["exit 2", "sys.exit(2)", "process.exit( 2 )", "exit 2; fi"] {
            assert!(shows(Answer::Exit2, exit), "{exit}");
        }
        for other in ["exit 0", "exit 20", "exit", "echo pre >> /tmp/log"] {
            assert!(!shows(Answer::Exit2, other), "{other}");
        }
    }
}
