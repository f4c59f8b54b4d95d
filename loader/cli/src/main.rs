//! `agent-hooks`: see what loads and why, fire events, replay a session, and a demo that
//! shows it all. Run without a subcommand, it runs the demo.

/// `println!` for the program's output: a closed pipe ends the program quietly (see
/// [`output::write_line`]).
macro_rules! outln {
    () => {
        $crate::output::write_line(format_args!(""))
    };
    ($($arg:tt)*) => {
        $crate::output::write_line(format_args!($($arg)*))
    };
}

mod agent_payload;
mod answering;
mod bounded;
mod capped_log;
mod commands;
mod decisions;
mod entries;
mod event_io;
mod hook_session;
mod host_script;
mod input_fields;
mod logging;
mod options;
mod output;
mod pow;
mod quick_args;
mod recorder;
mod relay;
mod resident;
mod runtime;
mod session;
mod sync;
mod taken_over;
mod ui_script;
mod wiring;

use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use crate::{
    commands::{
        command, demo, doctor, emit, events, hook, install, list, log, new, replay, serve, stats,
        status, trust,
    },
    options::{Before, Common, CwdOption, HookOptions, JsonOption, RunOptions, Unapplied},
};

/// The hook system under your coding agent (Claude Code, Codex CLI, Gemini CLI, Copilot CLI,
/// pi, ...): it runs your guards, native plugins and other agents' hooks files at every step
/// of the agent. Start with `agent-hooks install --agent NAME`, then `list`, `doctor` and
/// `log`.
#[derive(Parser)]
#[command(name = "agent-hooks", version, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// The options earlier versions took before the subcommand.
    #[command(flatten)]
    before: Before,
    /// Show plugins' log records on stderr: `-v` info, `-vv` debug, `-vvv` trace
    /// (warnings and errors always).
    #[arg(short = 'v', long = "verbose", action = clap::ArgAction::Count, global = true)]
    verbose: u8,
}

/// The options of the commands that list or check hooks.
#[derive(Args, Clone, Debug, Default)]
struct Looking {
    #[command(flatten)]
    hooks: HookOptions,
    #[command(flatten)]
    json: JsonOption,
}

/// The options of the commands that fire events themselves.
#[derive(Args, Clone, Debug, Default)]
struct Firing {
    #[command(flatten)]
    hooks: HookOptions,
    #[command(flatten)]
    json: JsonOption,
    #[command(flatten)]
    run: RunOptions,
}

/// The options of the commands that act on a project's files without running its hooks.
#[derive(Args, Clone, Debug, Default)]
struct Project {
    #[command(flatten)]
    cwd: CwdOption,
    #[command(flatten)]
    json: JsonOption,
}

#[derive(Subcommand)]
enum Command {
    /// Wire an agent to agent-hooks: write the one hook entry (`agent-hooks hook --agent
    /// NAME`) into the agent's configuration, for every event it has.
    Install {
        #[command(flatten)]
        args: install::InstallArgs,
        #[command(flatten)]
        cwd: CwdOption,
        #[command(flatten)]
        unapplied: Unapplied,
    },
    /// Take out exactly what `install` wrote; the rest of the file stays byte for byte.
    Uninstall {
        #[command(flatten)]
        args: install::InstallArgs,
        #[command(flatten)]
        cwd: CwdOption,
        #[command(flatten)]
        unapplied: Unapplied,
    },
    /// Every hook discovered and loaded, and everything shadowed, disabled, untrusted or
    /// failed, with its reason. Exit code 1 when a hook failed to load.
    List(Looking),
    /// What `list` shows, plus advice on every problem found. Exit code 1 on a problem.
    Doctor {
        /// The agent's tool names, to check matchers against (default: agent-hooks' own tool
        /// names, as docs/command-hooks.md lists them).
        #[arg(long, value_delimiter = ',', value_name = "NAMES")]
        tools: Vec<String>,
        /// Check the hooks as `hook --agent NAME` runs them for that agent (its own hooks
        /// files left to it, the hooks `install --take-over` moved included).
        #[arg(
            long,
            value_name = "NAME",
            value_parser = crate::options::agent_names(),
            ignore_case = true,
        )]
        agent: Option<agent_hooks::agents::Agent>,
        #[command(flatten)]
        options: Looking,
    },
    /// The decisions recorded for the events agent-hooks answered under an agent, newest
    /// last: time, agent, event, tool, decision, the hook that decided and its reason.
    Log {
        #[command(flatten)]
        args: log::LogArgs,
        #[command(flatten)]
        json: JsonOption,
    },
    /// Per hook, over the recorded decisions: calls, blocks, asks, rewrites, errors,
    /// timeouts and how long it took; the slowest first.
    Stats {
        #[command(flatten)]
        args: stats::StatsArgs,
        #[command(flatten)]
        json: JsonOption,
    },
    /// One short line: the hooks that run here, the problems in their way, whether the
    /// resident process is up, which agents are wired (for a person, or a status line).
    Status {
        #[command(flatten)]
        args: status::StatusArgs,
        #[command(flatten)]
        options: Looking,
    },
    /// Trust the current project's hooks (lists what it trusts first).
    Trust(Project),
    /// Remove trust entries: the project's (the default), those of the files or folders
    /// given, or, with --gone, those of files that no longer exist.
    Untrust {
        #[command(flatten)]
        args: trust::UntrustArgs,
        #[command(flatten)]
        options: Project,
    },
    /// Fire one event through the loaded hooks and print the combined outcome.
    Emit {
        /// A runner event (`tool_call`) or a command-hook event (`PreToolUse`).
        event: String,
        /// The event's payload: JSON, `@file`, or `-` for stdin.
        #[arg(long, default_value = "{}")]
        input: String,
        /// Read the payload as this agent sends it, as `hook --agent NAME` does (its field
        /// and tool names, `Bash` being `exec`; its own hooks files left to it).
        #[arg(
            long,
            value_name = "NAME",
            value_parser = crate::options::agent_names(),
            ignore_case = true,
        )]
        agent: Option<agent_hooks::agents::Agent>,
        #[command(flatten)]
        options: Firing,
    },
    /// Drive a recorded session (one `{"event": NAME, ...payload}` per line) through the
    /// hooks, as an agent would.
    Replay {
        /// The session file, or `-` for stdin.
        file: String,
        /// Read each line as this agent's payload, as `hook --agent NAME` does (its field
        /// and tool names, `Bash` being `exec`, `hook_event_name` naming the event when there
        /// is no `event`; its own hooks files left to it).
        #[arg(
            long,
            value_name = "NAME",
            value_parser = crate::options::agent_names(),
            ignore_case = true,
        )]
        agent: Option<agent_hooks::agents::Agent>,
        #[command(flatten)]
        options: Firing,
    },
    /// Run a plugin's slash command (one a plugin registered with `register_command`) and
    /// print what it did. Exit code 1 when the command fails.
    ///
    /// Everything after NAME is the command's text, options included, joined with spaces:
    /// give this program's options before NAME (`agent-hooks command --json audit --since
    /// monday` runs `/audit` with the text `--since monday`). A `--` right after NAME is
    /// dropped, so `command audit -- -x` and `command audit -x` both pass `-x`.
    #[command(name = "command")]
    Run {
        /// The command's name (with or without `/`), then its text.
        #[arg(
            value_names = ["NAME", "TEXT"],
            required = true,
            num_args = 1..,
            trailing_var_arg = true,
            allow_hyphen_values = true
        )]
        words: Vec<String>,
        #[command(flatten)]
        options: Firing,
    },
    /// The built-in demo: the sample plugins and built-in command hooks, on a built-in
    /// session.
    Demo {
        #[command(flatten)]
        json: JsonOption,
        #[command(flatten)]
        run: RunOptions,
    },
    /// The table of events x agents (each agent's names, payload fields, answers and
    /// defaults), in Markdown, generated from the code: the page docs/events-by-agent.md.
    Events,
    /// The command an agent runs for its events: reads the agent's payload on stdin, runs
    /// every hook agent-hooks knows for that event (not the agent's own hooks files, which
    /// it runs itself) and answers as that agent expects.
    Hook {
        #[command(flatten)]
        args: hook::HookArgs,
        #[command(flatten)]
        hooks: HookOptions,
    },
    /// The resident process `hook` talks to (started by the first `hook` call): keeps
    /// discovery, trust, plugin processes and long-running hooks warm, per agent session.
    Serve(serve::ServeArgs),
    /// Write a new plugin crate (Cargo.toml, src/lib.rs with a handler and its test, a
    /// README) that builds, tests and loads as it is.
    New(new::NewArgs),
}

impl Command {
    /// Whether it takes the option `name` (given before it, as earlier versions read it).
    fn takes(&self, name: &str) -> bool {
        const HOOKS: [&str; 6] = [
            "--cwd",
            "--hook",
            "--no-discover",
            "--trust-project",
            "--require",
            "--in-process",
        ];
        const RUN: [&str; 3] = ["--strict", "--ui", "--host-script"];
        match self {
            Command::List(_) | Command::Doctor { .. } | Command::Status { .. } => {
                HOOKS.contains(&name) || name == "--json"
            }
            Command::Emit { .. } | Command::Replay { .. } | Command::Run { .. } => true,
            Command::Demo { .. } => RUN.contains(&name) || name == "--json",
            Command::Trust(_) | Command::Untrust { .. } => name == "--cwd" || name == "--json",
            Command::Log { .. } | Command::Stats { .. } => name == "--json",
            Command::Hook { .. } => HOOKS.contains(&name),
            // Given any other, they refuse it and say why.
            Command::Install { .. } | Command::Uninstall { .. } => name == "--cwd",
            Command::Events | Command::Serve(_) | Command::New(_) => false,
        }
    }

    /// Its name, as the user types it.
    fn name(&self) -> &'static str {
        match self {
            Command::Install { .. } => "install",
            Command::Uninstall { .. } => "uninstall",
            Command::List(_) => "list",
            Command::Doctor { .. } => "doctor",
            Command::Log { .. } => "log",
            Command::Stats { .. } => "stats",
            Command::Status { .. } => "status",
            Command::Trust(_) => "trust",
            Command::Untrust { .. } => "untrust",
            Command::Emit { .. } => "emit",
            Command::Replay { .. } => "replay",
            Command::Run { .. } => "command",
            Command::Demo { .. } => "demo",
            Command::Events => "events",
            Command::Hook { .. } => "hook",
            Command::Serve(_) => "serve",
            Command::New(_) => "new",
        }
    }
}

fn main() -> ExitCode {
    agent_hooks::isolation::serve_if_plugin_process();
    // The subcommands an agent runs per event skip clap when their arguments are plain.
    let args: Option<Vec<String>> = std::env::args_os()
        .skip(1)
        .map(|a| a.into_string().ok())
        .collect();
    if let Some(quick) = args.as_deref().and_then(quick_args::read) {
        return finish(match quick {
            quick_args::Quick::Emit {
                common,
                event,
                input,
            } => {
                logging::init(common.verbose);
                emit::run(&common, &event, &input, None)
            }
            quick_args::Quick::Hook { common, args } => {
                logging::init(common.verbose);
                hook::run(&common, &args)
            }
        });
    }
    let cli = Cli::parse();
    logging::init(cli.verbose);
    let command = cli.command.unwrap_or(Command::Demo {
        json: JsonOption::default(),
        run: RunOptions::default(),
    });
    for warning in cli
        .before
        .warnings(command.name(), |name| command.takes(name))
    {
        eprintln!("{warning}");
    }
    let (before, verbose) = (cli.before, cli.verbose);
    let common = |hooks, json, run, cwd| Common::of(before.clone(), verbose, hooks, json, run, cwd);
    let outcome = match command {
        Command::List(o) => list::run(&common(Some(o.hooks), Some(o.json), None, None)),
        Command::Status { args, options: o } => {
            status::run(&common(Some(o.hooks), Some(o.json), None, None), &args)
        }
        Command::Doctor {
            tools,
            agent,
            options: o,
        } => doctor::run(
            &common(Some(o.hooks), Some(o.json), None, None),
            &tools,
            agent,
        ),
        Command::Emit {
            event,
            input,
            agent,
            options: o,
        } => emit::run(
            &common(Some(o.hooks), Some(o.json), Some(o.run), None),
            &event,
            &input,
            agent,
        ),
        Command::Replay {
            file,
            agent,
            options: o,
        } => replay::run(
            &common(Some(o.hooks), Some(o.json), Some(o.run), None),
            &file,
            agent,
        ),
        Command::Run { words, options: o } => command::run(
            &common(Some(o.hooks), Some(o.json), Some(o.run), None),
            &words,
        ),
        Command::Demo { json, run } => demo::run(&common(None, Some(json), Some(run), None)),
        Command::Trust(o) => trust::run(&common(None, Some(o.json), None, Some(o.cwd))),
        Command::Untrust { args, options: o } => {
            trust::untrust(&common(None, Some(o.json), None, Some(o.cwd)), &args)
        }
        Command::Events => events::run(),
        Command::New(args) => new::run(&args),
        Command::Hook { args, hooks } => hook::run(&common(Some(hooks), None, None, None), &args),
        Command::Serve(args) => serve::run(&args),
        Command::Log { args, json } => log::run(&common(None, Some(json), None, None), &args),
        Command::Stats { args, json } => stats::run(&common(None, Some(json), None, None), &args),
        Command::Install {
            args,
            cwd,
            unapplied,
        } => install::install(
            &Common::of(unapplied.with(before), verbose, None, None, None, Some(cwd)),
            &args,
        ),
        Command::Uninstall {
            args,
            cwd,
            unapplied,
        } => install::uninstall(
            &Common::of(unapplied.with(before), verbose, None, None, None, Some(cwd)),
            &args,
        ),
    };
    finish(outcome)
}

/// The exit code of a subcommand's outcome; an error is printed.
fn finish(outcome: options::Outcome) -> ExitCode {
    match outcome {
        Ok(code) => code,
        Err(error) => {
            eprintln!("agent-hooks: {error}");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::{quick_args, Cli, Command, Common};

    fn words(line: &str) -> Vec<String> {
        line.split(' ').map(str::to_owned).collect()
    }

    /// What clap reads from `line`, in the quick reading's terms.
    fn by_clap(line: &str) -> Option<String> {
        let argv = std::iter::once("agent-hooks".to_owned()).chain(words(line));
        let cli = Cli::try_parse_from(argv).ok()?;
        let (before, verbose) = (cli.before, cli.verbose);
        Some(match cli.command? {
            Command::Emit {
                event,
                input,
                agent: None,
                options: o,
            } => {
                let common = Common::of(
                    before,
                    verbose,
                    Some(o.hooks),
                    Some(o.json),
                    Some(o.run),
                    None,
                );
                format!(
                    "{:?}",
                    quick_args::Quick::Emit {
                        common,
                        event,
                        input
                    }
                )
            }
            Command::Hook { args, hooks } => {
                let common = Common::of(before, verbose, Some(hooks), None, None, None);
                format!("{:?}", quick_args::Quick::Hook { common, args })
            }
            _ => return None,
        })
    }

    #[test]
    fn the_quick_reading_agrees_with_clap_or_leaves_it_to_clap() {
        let read = [
            "emit PreToolUse --input -",
            "emit tool_call",
            "emit --json PreToolUse --input {\"a\":1} --cwd p --hook a.so --require x --strict",
            "emit PreToolUse --no-discover --trust-project --in-process --ui yes -vv",
            "emit PreToolUse --host-script h.json --verbose --input @p.json",
            "emit - --input -",
            "hook --agent claude",
            "hook --agent Claude-Code --event PreToolUse --with codex,gemini --no-serve",
            "hook --cwd p --agent copilot --in-process -v",
        ];
        for line in read {
            let quick = quick_args::read(&words(line)).map(|q| format!("{q:?}"));
            assert!(quick.is_some(), "{line}: not read quickly");
            assert_eq!(quick, by_clap(line), "{line}");
        }
        let left_to_clap = [
            "emit",
            "emit --help",
            "emit PreToolUse extra",
            "emit PreToolUse --input",
            "emit PreToolUse --input=-",
            "emit PreToolUse --input a --input b",
            "emit PreToolUse --cwd --json",
            "emit PreToolUse --hook a --hook b",
            "emit PreToolUse -v -v",
            "emit PreToolUse -vvvv",
            "emit PreToolUse --agent claude",
            "emit -- PreToolUse",
            "--version",
            "list",
            "hook",
            "hook --agent nobody",
            "hook --agent claude --with claude,",
            "hook --agent claude --input x",
            "hook --agent claude extra",
            "hook --agent claude --with codex --with gemini",
            "PreToolUse emit",
            // Before the subcommand: clap reads them, with a warning.
            "--json emit PreToolUse",
            "--cwd p hook --agent copilot",
            // Not hook's options.
            "hook --agent claude --json",
            "hook --agent claude --strict",
        ];
        for line in left_to_clap {
            assert!(
                quick_args::read(&words(line)).is_none(),
                "{line}: read quickly"
            );
        }
    }
}
