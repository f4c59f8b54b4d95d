//! The arguments of the two subcommands an agent runs per event, `emit` and `hook`, read
//! without clap: building clap's tree of every subcommand, option and help text costs a
//! start-up measurable beside a bare spawn (docs/performance.md). Only the plain
//! forms are read here (`--name VALUE`, each once, the flags, `-v`); for anything else (help,
//! `--version`, `--name=VALUE`, `--`, a repeated option, a value that does not parse, an
//! unknown word) this gives `None` and clap reads the arguments, with its own errors. A test
//! in `main.rs` checks that both readings agree.

use std::path::PathBuf;

use crate::{hook_session::HookArgs, options::Common};

/// What the quick reading found.
#[derive(Debug)]
pub enum Quick {
    /// `emit EVENT --input JSON`.
    Emit {
        /// The options every subcommand takes.
        common: Common,
        /// `EVENT`.
        event: String,
        /// `--input` (default `{}`).
        input: String,
    },
    /// `hook --agent NAME ...`.
    Hook {
        /// The options every subcommand takes.
        common: Common,
        /// `hook`'s own options.
        args: HookArgs,
    },
}

/// Reads `args` (without the program's name) when they are one of the plain forms.
pub fn read(args: &[String]) -> Option<Quick> {
    let mut common = Common {
        cwd: None,
        hooks: Vec::new(),
        no_discover: false,
        trust_project: false,
        json: false,
        strict: false,
        required: Vec::new(),
        in_process: false,
        ui: "no".into(),
        host_script: None,
        verbose: 0,
    };
    // The subcommand comes first: options before it are clap's to read (and to warn of).
    let command = args.first().map(String::as_str)?;
    if !matches!(command, "emit" | "hook") {
        return None;
    }
    // The options the subcommand takes besides `-v`: emit's and hook's are not the same.
    let takes = |word: &str| match word {
        "--cwd" | "--hook" | "--no-discover" | "--trust-project" | "--require" | "--in-process" => {
            true
        }
        "--json" | "--strict" | "--ui" | "--host-script" | "--input" => command == "emit",
        "--agent" | "--event" | "--with" | "--no-serve" => command == "hook",
        _ => word.starts_with("-v") || word == "--verbose",
    };
    let mut seen: Vec<&str> = Vec::new();
    let mut words: Vec<&str> = Vec::new();
    let (mut input, mut agent, mut event, mut with, mut no_serve) =
        (None, None, None, Vec::new(), false);
    let mut i = 0;
    while i < args.len() {
        let word = args[i].as_str();
        i += 1;
        if !word.starts_with('-') || word == "-" {
            words.push(word);
            continue;
        }
        // Each option once: clap refuses most repeats, and says so better.
        if seen.contains(&word) || !takes(word) {
            return None;
        }
        seen.push(word);
        let flag = match word {
            "--no-discover" => &mut common.no_discover,
            "--trust-project" => &mut common.trust_project,
            "--json" => &mut common.json,
            "--strict" => &mut common.strict,
            "--in-process" => &mut common.in_process,
            "--no-serve" => &mut no_serve,
            "-v" | "-vv" | "-vvv" | "--verbose" => {
                if common.verbose > 0 {
                    return None;
                }
                common.verbose = if word == "--verbose" {
                    1
                } else {
                    (word.len() - 1) as u8
                };
                continue;
            }
            _ => {
                let value = args.get(i).map(String::as_str);
                // A value that looks like an option is clap's to refuse.
                let value = value.filter(|v| !v.starts_with('-') || *v == "-")?;
                i += 1;
                match word {
                    "--cwd" => common.cwd = Some(PathBuf::from(value)),
                    "--hook" => common.hooks.push(value.to_owned()),
                    "--require" => common.required.push(value.to_owned()),
                    "--ui" => common.ui = value.to_owned(),
                    "--host-script" => common.host_script = Some(value.to_owned()),
                    "--input" => input = Some(value.to_owned()),
                    "--agent" => agent = Some(value.parse().ok()?),
                    "--event" => event = Some(value.to_owned()),
                    "--with" => {
                        for name in value.split(',') {
                            with.push(name.parse().ok()?);
                        }
                    }
                    _ => return None,
                }
                continue;
            }
        };
        *flag = true;
    }
    match (words.as_slice(), input, agent) {
        (["emit", event_name], input, None) if event.is_none() && with.is_empty() && !no_serve => {
            Some(Quick::Emit {
                common,
                event: (*event_name).to_owned(),
                input: input.unwrap_or_else(|| "{}".into()),
            })
        }
        (["hook"], None, Some(agent)) => Some(Quick::Hook {
            common,
            args: HookArgs {
                agent,
                event,
                with,
                no_serve,
            },
        }),
        _ => None,
    }
}
