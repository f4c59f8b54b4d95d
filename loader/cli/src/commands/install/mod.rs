//! `agent-hooks install --agent NAME [--user | --project]` writes the one hook entry
//! (`agent-hooks hook --agent NAME`) into that agent's configuration for every event it
//! has; `uninstall` takes out exactly what `install` put in, as the entries are edited
//! ([`crate::entries`]).

mod folders;

use std::{
    fs,
    path::{Path, PathBuf},
    process::ExitCode,
};

use agent_hooks::{command_hook::shell_quote, discover::TrustStore, DiscoveryOptions};

use crate::{
    entries::{
        config_file, entry, folder_take_over, has_entry, json_text::JsonTextError, load_records,
        lock, needed, needed_at, plan, project, read, records_file, relative_file, save_records,
        stable, status_line, sync, take_out, take_over, take_over::TakeOver, wired, write,
        InstallError, Record,
    },
    options::{agent_names, Common, Outcome},
    resident::{
        http_config::{HttpConfig, CONFIG_FILE},
        stop,
    },
    taken_over,
};
use agent_hooks::agents::Agent;

/// `install`/`uninstall`'s options.
#[derive(Debug, Clone, clap::Args)]
pub struct InstallArgs {
    /// The agent.
    #[arg(long, value_name = "NAME", value_parser = agent_names(), ignore_case = true)]
    pub agent: Agent,
    /// The user's configuration of the agent (the default).
    #[arg(long, conflicts_with = "project")]
    pub user: bool,
    /// The project's configuration of the agent (in --cwd).
    #[arg(long)]
    pub project: bool,
    /// Also run these agents' hooks files under this one (written into the entry).
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "AGENTS",
        value_parser = agent_names(),
        ignore_case = true,
    )]
    pub with: Vec<Agent>,
    /// The program the entry runs (default: this program's path).
    #[arg(long, value_name = "PATH")]
    pub program: Option<String>,
    /// install: move the agent's own hooks in that file under agent-hooks, which runs them
    /// (with its timeouts, process hygiene and trust); uninstall puts them back.
    #[arg(long)]
    pub take_over: bool,
    /// uninstall: put taken-over hooks back even over changes made since.
    #[arg(long)]
    pub force: bool,
    /// install: Claude Code posts its events to the resident process on 127.0.0.1 (HTTP
    /// hooks with a per-user secret), except SessionStart and UserPromptSubmit, which stay
    /// commands that start it. User level only.
    #[arg(long, conflicts_with = "project")]
    pub http: bool,
    /// install: the agent's status line (Claude Code's) shows agent-hooks' (`agent-hooks
    /// status --agent NAME`: the session's hooks, problems, the last block), when it has no
    /// status line of its own; uninstall takes it out.
    #[arg(long)]
    pub status_line: bool,
}

/// The files beside `path` that an agent whose entry file is named after one of its
/// events gets for each other event it is installed for (Cline's `TaskStart`, ... beside
/// `PreToolUse`); none for the others.
fn event_files_beside(agent: Agent, path: &Path) -> Vec<PathBuf> {
    let events = agent.profile().installed_events;
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    if !events.contains(&name.as_ref()) {
        return Vec::new();
    }
    let dir = path.parent().unwrap_or(Path::new("."));
    events
        .iter()
        .filter(|e| **e != name)
        .map(|e| dir.join(e))
        .collect()
}

/// Whether `file` is one of the agent's own hook files of a folder of files named after its
/// events (Cline's), rather than a `*.json` hooks file.
fn is_event_file(agent: Agent, file: &Path) -> bool {
    let name = file.file_name().unwrap_or_default().to_string_lossy();
    agent
        .profile()
        .places
        .iter()
        .any(|place| match place.files {
            agent_hooks::agents::PlaceFiles::EventFiles(_, _, is_event) => is_event(&name),
            _ => false,
        })
}

/// The command of the entry.
/// The entry runs the small relay program `agent-hooks-hook` when it is installed next to
/// this program (through a link that outlives an upgrade, for an npm package: see
/// [`stable`]), else `agent-hooks hook`.
fn command(agent: Agent, args: &InstallArgs) -> String {
    let relay = if args.program.is_some() {
        None
    } else {
        stable::relay()
    };
    let program = match (&args.program, relay) {
        (Some(program), _) => format!("{program} hook"),
        (None, Some(relay)) => shell_quote(&relay.to_string_lossy()),
        (None, None) => std::env::current_exe()
            .map(|p| format!("{} hook", shell_quote(&p.to_string_lossy())))
            .unwrap_or_else(|_| "agent-hooks hook".into()),
    };
    let mut command = format!("{program} --agent {}", agent.hook_name());
    if !args.with.is_empty() {
        let with: Vec<&str> = args.with.iter().map(|a| a.hook_name()).collect();
        command.push_str(&format!(" --with {}", with.join(",")));
    }
    command
}

/// `agent-hooks install`.
pub fn install(common: &Common, args: &InstallArgs) -> Outcome {
    refuse_unapplied(common, "install")?;
    if args.force {
        return Err(InstallError::NotApplied {
            command: "install",
            option: "--force",
            why: "it is an option of uninstall; run install without it",
        }
        .into());
    }
    let agent = args.agent;
    let profile = agent.profile();
    // An agent wired by a file of agent-hooks' own that reads no hooks files (pi, which runs
    // agent-hooks' extension) has none to take over.
    if args.take_over && profile.entry_file_whole && profile.places.is_empty() {
        return Err(InstallError::NotApplied {
            command: "install",
            option: "--take-over",
            why: "this agent has no hooks files of its own to move under agent-hooks; run install without it",
        }
        .into());
    }
    if args.status_line && profile.status_line.is_none() {
        return Err(InstallError::NotApplied {
            command: "install",
            option: "--status-line",
            why: "this agent has no status line command to show agent-hooks' in; `agent-hooks status` prints the same line in a terminal",
        }
        .into());
    }
    let path = config_file(agent, !args.project, &project(common)?)?;
    if let Some((file, events)) = agent.entry_shadowed(&path) {
        return Err(InstallError::Shadowed {
            agent: agent.title(),
            path,
            file,
            events: events.join(", "),
        }
        .into());
    }
    let command = command(agent, args);
    let events = events_for(common, args);
    let _held = lock::take(&records_file(common)?)?;
    let before = read(&path)?;
    if let Some(record) = load_records(&records_file(common)?)
        .into_iter()
        .find(|r| r.path == path)
    {
        let holds = match &record.owned {
            Some(owned) => before.as_ref() == Some(owned),
            None => before.as_deref().is_some_and(|t| has_entry(t, agent)),
        };
        if holds {
            if record.status_line.is_none() {
                with_status_line(common, args, &path)?;
            }
            return installed_already(common, &record, args, (&command, &events), &path);
        }
    }
    let http = if args.http {
        if !agent.profile().http_entries {
            let profiles = Agent::ALL.map(Agent::profile);
            let with_http = profiles.iter().filter(|p| p.http_entries);
            let titles: Vec<&str> = with_http.map(|p| p.title).collect();
            let refused: String = profiles
                .iter()
                .filter_map(|p| p.http_refused)
                .map(|why| format!("{why}; "))
                .collect();
            return Err(InstallError::NoHttp(agent.title(), titles.join(", "), refused).into());
        }
        if args.project {
            return Err(InstallError::HttpInProject.into());
        }
        let config = DiscoveryOptions::new(project(common)?).config_dir();
        Some(
            HttpConfig::read_or_make(&config).map_err(|error| InstallError::Io {
                path: config.join(CONFIG_FILE),
                error,
            })?,
        )
    } else {
        None
    };
    // The mode to put back, when --http makes the file the owner's only.
    let old_mode = match (&http, fs::metadata(&path)) {
        (Some(_), Ok(meta)) => Some(std::os::unix::fs::PermissionsExt::mode(&meta.permissions())),
        (Some(_), Err(_)) => Some(0o644),
        _ => None,
    };
    if before.as_deref().is_some_and(|t| has_entry(t, agent)) {
        if args.take_over {
            return Err(InstallError::InstalledWithout(path).into());
        }
        outln!(
            "{} already runs agent-hooks: {}",
            agent.title(),
            path.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let record = if let Some(text) = agent.entry_file(&command, env!("CARGO_PKG_VERSION")) {
        let also = event_files_beside(agent, &path);
        let by_event = !also.is_empty();
        if before.is_some() && !by_event {
            return Err(InstallError::Changed(path).into());
        }
        let moved = if args.take_over {
            let project = project(common)?;
            let config = DiscoveryOptions::new(&project).config_dir();
            let level = args.project.then_some(project.as_path());
            let folder = relative_file(agent, !args.project)
                .rsplit_once('/')
                .map_or("", |(folder, _)| folder);
            let copy_of = |name: &str| {
                taken_over::copy_path(
                    &config,
                    agent.hook_name(),
                    level,
                    &format!("{folder}/{name}"),
                )
            };
            let dir = path.parent().unwrap_or(Path::new("."));
            if by_event {
                folder_take_over::plan_where(dir, &|p| is_event_file(agent, p), &copy_of)?
            } else {
                folder_take_over::plan(dir, &path, &copy_of)?
            }
        } else {
            Vec::new()
        };
        if by_event && !args.take_over {
            let dir = path.parent().unwrap_or(Path::new("."));
            let theirs: Vec<String> = fs::read_dir(dir)
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.path())
                .filter(|p| is_event_file(agent, p))
                .map(|p| {
                    p.file_name()
                        .unwrap_or_default()
                        .to_string_lossy()
                        .into_owned()
                })
                .collect();
            if !theirs.is_empty() {
                return Err(InstallError::Occupied(dir.to_path_buf(), theirs.join(", ")).into());
            }
        }
        let record = Record {
            agent: agent.hook_name().into(),
            path: path.clone(),
            created: true,
            insertions: Vec::new(),
            owned: Some(text.clone()),
            taken_over: None,
            mode: None,
            moved,
            command: Some(command.clone()),
            folders: folders::missing(&path),
            status_line: None,
            also: also.clone(),
        };
        if !record.moved.is_empty() {
            // The copies first, then the record, then the agent's folder, so that a crash
            // between two of them leaves what `uninstall` undoes.
            folder_take_over::write_copies(&record.moved)?;
            let file = records_file(common)?;
            let mut records = load_records(&file);
            records.retain(|r| r.path != path);
            records.push(record.clone());
            save_records(&file, &records)?;
        }
        folder_take_over::remove_originals(&record.moved)?;
        for file in std::iter::once(&path).chain(&also) {
            write(file, &text)?;
            if by_event {
                // Cline runs it through `sh` whatever its mode; executable as a script is.
                fs::set_permissions(file, std::os::unix::fs::PermissionsExt::from_mode(0o755))
                    .map_err(|error| InstallError::Io {
                        path: file.clone(),
                        error,
                    })?;
            }
        }
        if let Some(first) = record.moved.first() {
            outln!(
                "Its {} hooks files there moved under agent-hooks, which runs them now: {}",
                record.moved.len(),
                first.to.parent().unwrap_or(Path::new(".")).display()
            );
            if args.project {
                outln!("They are the project's hooks: they run once you trust them (agent-hooks trust).");
            }
        }
        record
    } else if let Some((after, taken)) = match (&before, args.take_over) {
        (Some(text), true) => {
            let project = project(common)?;
            let config = DiscoveryOptions::new(&project).config_dir();
            let level = args.project.then_some(project.as_path());
            let copy = taken_over::copy_path(
                &config,
                agent.hook_name(),
                level,
                relative_file(agent, !args.project),
            );
            let entry = |event: &str| entry(agent, &command, http.as_ref(), event);
            take_over::plan(
                &path,
                text,
                (agent.profile().installed_events, &events),
                &entry,
                copy,
            )?
        }
        _ => None,
    } {
        let before = before.as_deref().unwrap_or_default();
        take_over_file(
            common,
            (agent, &command),
            &path,
            (before, &after),
            taken,
            args.project,
            old_mode,
        )?;
        with_status_line(common, args, &path)?;
        return Ok(ExitCode::SUCCESS);
    } else {
        let created = before.is_none();
        let text = before.unwrap_or_else(|| "{}\n".into());
        let entry = |event: &str| entry(agent, &command, http.as_ref(), event);
        let mut planned = plan(&path, &events, &entry, &text)?;
        planned.sort_by_key(|(at, _)| std::cmp::Reverse(*at));
        let mut after = text.clone();
        for (at, insertion) in &planned {
            after.insert_str(*at, &insertion.text);
        }
        // What was written must read as JSON where the agent reads strict JSON.
        if !agent.profile().lenient_json
            && serde_json::from_str::<serde_json::Value>(&after).is_err()
        {
            return Err(InstallError::NotJson {
                path,
                error: JsonTextError {
                    at: 0,
                    what: "strict JSON (the file has comments or trailing commas)",
                },
                entry: entry("PreToolUse"),
            }
            .into());
        }
        write(&path, &after)?;
        if http.is_some() {
            owner_only(&path)?;
        }
        Record {
            agent: agent.hook_name().into(),
            path: path.clone(),
            created,
            insertions: planned.into_iter().map(|(_, i)| i).collect(),
            owned: None,
            taken_over: None,
            mode: old_mode,
            moved: Vec::new(),
            command: Some(command.clone()),
            folders: Vec::new(),
            status_line: None,
            also: Vec::new(),
        }
    };
    let file = records_file(common)?;
    let mut records = load_records(&file);
    records.retain(|r| r.path != path);
    records.push(record);
    save_records(&file, &records)?;
    if events.len() < agent.profile().installed_events.len() {
        outln!(
            "{} now runs `{command}` for {}: {}",
            agent.title(),
            events.join(", "),
            path.display()
        );
        outln!("Those are the events some hook of agent-hooks uses, and the first of a session and of a turn, where agent-hooks checks the wiring (and stops a session that started without the event of a required hook); another event is wired once a hook uses it (by the next install, trust or session start, or by the resident process when your hooks change).");
    } else {
        outln!(
            "{} now runs `{command}` for {} events: {}",
            agent.title(),
            events.len(),
            path.display()
        );
    }
    if let Some(note) = agent.profile().after_install {
        outln!("{note}");
    }
    with_status_line(common, args, &path)?;
    outln!(
        "Undo with: agent-hooks uninstall --agent {}{}",
        agent.hook_name(),
        if args.project { " --project" } else { "" }
    );
    Ok(ExitCode::SUCCESS)
}

/// `--status-line`: the agent's status line entry written into `path` (its settings file,
/// which install wrote into) and kept in that install's record; said either way.
fn with_status_line(
    common: &Common,
    args: &InstallArgs,
    path: &Path,
) -> Result<(), Box<dyn std::error::Error>> {
    let Some(key) = args
        .agent
        .profile()
        .status_line
        .filter(|_| args.status_line)
    else {
        return Ok(());
    };
    let program = match &args.program {
        Some(program) => program.clone(),
        None => std::env::current_exe()
            .map(|p| shell_quote(&p.to_string_lossy()))
            .unwrap_or_else(|_| "agent-hooks".into()),
    };
    let ours = status_line::command(&program, args.agent);
    let added = status_line::add(path, key, &ours)?;
    outln!(
        "{}",
        status_line::said(&added, args.agent.title(), path, &ours)
    );
    if let status_line::Added::Written(insertion) = added {
        let file = records_file(common)?;
        let mut records = load_records(&file);
        if let Some(record) = records.iter_mut().find(|r| r.path == path) {
            record.status_line = Some(insertion);
        }
        save_records(&file, &records)?;
    }
    Ok(())
}

/// The options of the commands that run hooks, which `install` and `uninstall` do not
/// apply: refused, with what to do, rather than ignored.
fn refuse_unapplied(common: &Common, command: &'static str) -> Result<(), InstallError> {
    const RUNS_HOOKS: &str = "it is an option of the commands that run or list hooks (list, doctor, emit, replay, command, hook); run it without this option";
    let given: [(bool, &'static str, &'static str); 9] = [
        (
            !common.required.is_empty(),
            "--require",
            "the entry it writes does not carry it; to make a hook required, write `\"required\": true` in its hooks file (docs/discovery-and-trust.md#required-hooks), or give --require to the commands that run hooks",
        ),
        (!common.hooks.is_empty(), "--hook", "the entry runs the hooks discovery finds; put the hook in ~/.config/agent-hooks/hooks/ or the project's .agent-hooks/hooks/ instead"),
        (common.no_discover, "--no-discover", RUNS_HOOKS),
        (common.trust_project, "--trust-project", "trust is recorded with `agent-hooks trust` in the project"),
        (common.strict, "--strict", RUNS_HOOKS),
        (common.in_process, "--in-process", RUNS_HOOKS),
        (common.ui != "no", "--ui", RUNS_HOOKS),
        (common.host_script.is_some(), "--host-script", RUNS_HOOKS),
        (common.json, "--json", "it says what it did in text only"),
    ];
    match given.into_iter().find(|(given, _, _)| *given) {
        Some((_, option, why)) => Err(InstallError::NotApplied {
            command,
            option,
            why,
        }),
        None => Ok(()),
    }
}

/// `install` where `record` says agent-hooks is installed in `path` already: nothing to do
/// when it was installed with the same options, else what differs and what to run.
fn installed_already(
    common: &Common,
    record: &Record,
    args: &InstallArgs,
    (command, events): (&str, &[&'static str]),
    path: &Path,
) -> Outcome {
    let agent = args.agent;
    let with_or_without = |with: bool| if with { "with" } else { "without" };
    let mut differs = Vec::new();
    let took_over = record.taken_over.is_some() || !record.moved.is_empty();
    if took_over != args.take_over {
        differs.push(format!(
            "it was installed {} --take-over, and this install is {} it",
            with_or_without(took_over),
            with_or_without(args.take_over)
        ));
    }
    let http = record.mode.is_some();
    if http != args.http {
        differs.push(format!(
            "it was installed {} --http, and this install is {} it",
            with_or_without(http),
            with_or_without(args.http)
        ));
    }
    if let Some(written) = record.command.as_deref().filter(|w| *w != command) {
        differs.push(format!(
            "its entry runs `{written}`, and this install would write `{command}` (--with, --program, or the program's place)"
        ));
    }
    if differs.is_empty() {
        // Installing again writes the entries for the events the hooks use now.
        let mut synced = record.clone();
        let changed = sync::set_events(common, agent, &mut synced, events)?;
        if changed.is_empty() {
            outln!(
                "{} already runs agent-hooks, installed with these options: {}. Nothing to do.",
                agent.title(),
                path.display()
            );
            return Ok(ExitCode::SUCCESS);
        }
        let file = records_file(common)?;
        let mut records = load_records(&file);
        if let Some(kept) = records.iter_mut().find(|r| r.path == path) {
            kept.insertions = synced.insertions;
            kept.taken_over = synced.taken_over;
        }
        save_records(&file, &records)?;
        outln!(
            "{} already runs agent-hooks, installed with these options; its entries now follow your hooks: {}",
            agent.title(),
            changed.said(path)
        );
        return Ok(ExitCode::SUCCESS);
    }
    let level = if args.project { " --project" } else { "" };
    let mut redo = format!("agent-hooks install --agent {}{level}", agent.hook_name());
    if args.take_over {
        redo.push_str(" --take-over");
    }
    if args.http {
        redo.push_str(" --http");
    }
    if !args.with.is_empty() {
        let with: Vec<&str> = args.with.iter().map(|a| a.hook_name()).collect();
        redo.push_str(&format!(" --with {}", with.join(",")));
    }
    if let Some(program) = &args.program {
        redo.push_str(&format!(" --program {}", shell_quote(program)));
    }
    Err(InstallError::OtherOptions {
        path: path.to_path_buf(),
        differs: differs.join("; "),
        undo: format!("agent-hooks uninstall --agent {}{level}", agent.hook_name()),
        redo,
    }
    .into())
}

/// Puts back the mode the file had before `--http`.
fn restore_mode(path: &Path, mode: Option<u32>) -> Result<(), InstallError> {
    use std::os::unix::fs::PermissionsExt;
    match mode {
        Some(mode) if path.exists() => fs::set_permissions(path, fs::Permissions::from_mode(mode))
            .map_err(|error| InstallError::Io {
                path: path.to_path_buf(),
                error,
            }),
        _ => Ok(()),
    }
}

/// Makes `path` readable and writable by its owner only (it holds the HTTP secret).
fn owner_only(path: &Path) -> Result<(), InstallError> {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(0o600)).map_err(|error| InstallError::Io {
        path: path.to_path_buf(),
        error,
    })
}

/// Writes a take-over: the copy first, then the record, then the agent's file, so that a
/// crash between two of them leaves what `uninstall` (with `--force` at worst) undoes.
fn take_over_file(
    common: &Common,
    (agent, command): (Agent, &str),
    path: &Path,
    (before, after): (&str, &str),
    taken: TakeOver,
    project_level: bool,
    mode: Option<u32>,
) -> Result<(), Box<dyn std::error::Error>> {
    if !agent.profile().lenient_json && serde_json::from_str::<serde_json::Value>(after).is_err() {
        return Err(InstallError::NotJson {
            path: path.to_path_buf(),
            error: JsonTextError {
                at: 0,
                what: "strict JSON (the file has comments or trailing commas)",
            },
            entry: String::new(),
        }
        .into());
    }
    write(&taken.copy, &taken.copy_text)?;
    // The project's hooks move, and the user's trust of them moves with them.
    let trusted =
        project_level && carry_trust(common, (path, before), (&taken.copy, &taken.copy_text));
    let file = records_file(common)?;
    let mut records = load_records(&file);
    records.retain(|r| r.path != path);
    let (copy, moved) = (taken.copy.clone(), taken.moved);
    records.push(Record {
        agent: agent.hook_name().into(),
        path: path.to_path_buf(),
        created: false,
        insertions: Vec::new(),
        owned: None,
        taken_over: Some(taken),
        mode,
        moved: Vec::new(),
        command: Some(command.to_owned()),
        folders: Vec::new(),
        status_line: None,
        also: Vec::new(),
    });
    save_records(&file, &records)?;
    write(path, after)?;
    if mode.is_some() {
        owner_only(path)?;
    }
    outln!(
        "{} now runs only agent-hooks for {}: {}",
        agent.title(),
        needed::wired(agent, after).join(", "),
        path.display()
    );
    outln!(
        "Its {moved} hooks there moved under agent-hooks, which runs them now: {}",
        copy.display()
    );
    if project_level && moved > 0 {
        if trusted {
            outln!(
                "They are the project's hooks, which you trusted as they were: they stay trusted."
            );
        } else {
            outln!(
                "They are the project's hooks: they run once you trust them (agent-hooks trust)."
            );
        }
    }
    outln!(
        "Undo with: agent-hooks uninstall --agent {}{} (puts them back)",
        agent.hook_name(),
        if project_level { " --project" } else { "" }
    );
    Ok(())
}

/// Records `to` (with its content) as trusted when `from` is trusted with its content: the
/// same hooks in another file. Whether it did; a trust store that cannot be read or written
/// carries nothing (the hooks then wait for `agent-hooks trust`, as any project hook).
fn carry_trust(common: &Common, from: (&Path, &str), to: (&Path, &str)) -> bool {
    let Ok(project) = project(common) else {
        return false;
    };
    let config = DiscoveryOptions::new(project).config_dir();
    let Ok(mut store) = TrustStore::open(&config) else {
        return false;
    };
    let trusted = store
        .check(from.0, &TrustStore::hash_of(from.1.as_bytes()))
        .is_ok();
    trusted
        && store
            .trust([(to.0, TrustStore::hash_of(to.1.as_bytes()).as_str())])
            .is_ok()
}

/// After the undo of a take-over: the trust of the copy goes back to the agent's file (as
/// `restored`) when the copy was trusted as written and is unchanged (`copy_now`); the
/// copy's entry goes (it no longer runs), and so does an entry for the agent's file as it
/// was while it held agent-hooks' entries (`wired`), which no longer describes it.
fn trust_back(
    common: &Common,
    path: &Path,
    (wired, restored): (&str, &str),
    taken: &TakeOver,
    copy_now: Option<&str>,
) {
    if copy_now == Some(taken.copy_text.as_str()) {
        carry_trust(common, (&taken.copy, &taken.copy_text), (path, restored));
    }
    let Ok(project) = project(common) else {
        return;
    };
    let Ok(mut store) = TrustStore::open(&DiscoveryOptions::new(project).config_dir()) else {
        return;
    };
    let (copy, file) = (TrustStore::key_of(&taken.copy), TrustStore::key_of(path));
    let wired = TrustStore::hash_of(wired.as_bytes());
    // What is left is an entry that cannot let anything run: nothing to report.
    let _ = store.untrust(|entry, hash| entry == copy || (entry == file && hash == wired));
}

/// Uninstalls a take-over: the `hooks` as they were put back, the copy removed (kept aside
/// when it was edited). Refused, nothing changed, when they were changed since (unless `force`).
fn undo_take_over(
    path: &Path,
    text: &str,
    taken: &TakeOver,
    force: bool,
) -> Result<String, InstallError> {
    let restored = match take_over::undo(path, text, taken)? {
        Ok(restored) => restored,
        Err(current) if force => {
            let aside = taken.copy.with_extension("json.replaced");
            write(&aside, &current)?;
            eprintln!(
                "agent-hooks: the hooks that stood in {} are kept in {}",
                path.display(),
                aside.display()
            );
            take_over::undo_anyway(path, text, taken)?
        }
        Err(_) => {
            return Err(InstallError::TakenOverChanged {
                path: path.to_path_buf(),
                copy: taken.copy.clone(),
            })
        }
    };
    let edits = match read(&taken.copy)? {
        Some(copy) if copy != taken.copy_text => {
            take_over::with_copy_edits(path, &restored, taken, &copy)?
        }
        _ => None,
    };
    let restored = match edits {
        // The hooks as the user left them in the copy (where `uninstall`'s advice sends an
        // added hook) go back into the agent's file; nothing is set aside.
        Some(with_edits) => {
            write(path, &with_edits)?;
            fs::remove_file(&taken.copy).map_err(|error| InstallError::Io {
                path: taken.copy.clone(),
                error,
            })?;
            outln!(
                "Your changes to the hooks agent-hooks ran for you are back in {}, with them.",
                path.display()
            );
            return Ok(with_edits);
        }
        None => restored,
    };
    write(path, &restored)?;
    match read(&taken.copy)? {
        Some(copy) if copy == taken.copy_text => {
            fs::remove_file(&taken.copy).map_err(|error| InstallError::Io {
                path: taken.copy.clone(),
                error,
            })?;
        }
        Some(_) => {
            let kept = taken.copy.with_extension("json.kept");
            fs::rename(&taken.copy, &kept).map_err(|error| InstallError::Io {
                path: taken.copy.clone(),
                error,
            })?;
            outln!(
                "You changed the hooks agent-hooks ran for you since, in a form it cannot put back: your version is kept in {} (no longer run): copy what you want into {}",
                kept.display(),
                path.display()
            );
        }
        None => {}
    }
    Ok(restored)
}

/// Uninstalls a take-over of the hooks files of an agent's folder: agent-hooks' own file
/// removed (when it is as written, or gone), the moved files written back as they were.
/// Refused, nothing changed, when agent-hooks' file was edited or a moved file's place holds
/// another file (unless `force`: what stands there is kept beside the copy).
fn undo_folder_take_over(record: &Record, force: bool) -> Result<(), InstallError> {
    let own = read(&record.path)?;
    if own.is_some() && own != record.owned {
        return Err(InstallError::Changed(record.path.clone()));
    }
    for file in &record.also {
        let text = read(file)?;
        if text.is_some() && text != record.owned {
            return Err(InstallError::Changed(file.clone()));
        }
    }
    // agent-hooks' own files may stand where moved ones were (files named after events):
    // those places are agent-hooks' to give back.
    let ours = |p: &PathBuf| *p == record.path || record.also.contains(p);
    let mut taken = folder_take_over::taken_places(&record.moved)?;
    taken.retain(|p| !ours(p));
    if !taken.is_empty() {
        if !force {
            let names: Vec<String> = taken.iter().map(|p| p.display().to_string()).collect();
            return Err(InstallError::PlacesTaken(names.join(", ")));
        }
        for file in record.moved.iter().filter(|f| taken.contains(&f.from)) {
            let aside = file.to.with_extension("json.replaced");
            if let Some(current) = read(&file.from)? {
                write(&aside, &current)?;
            }
            eprintln!(
                "agent-hooks: the file that stood in {} is kept in {}",
                file.from.display(),
                aside.display()
            );
        }
    }
    if own.is_some() {
        fs::remove_file(&record.path).map_err(|error| InstallError::Io {
            path: record.path.clone(),
            error,
        })?;
    }
    for file in &record.also {
        match fs::remove_file(file) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            other => other.map_err(|error| InstallError::Io {
                path: file.clone(),
                error,
            })?,
        }
    }
    folder_take_over::put_back(&record.moved)?;
    folders::remove_empty(&record.folders);
    Ok(())
}

/// `agent-hooks uninstall`: once no agent is wired any more, the resident process is
/// stopped too (nothing runs for agent-hooks once nothing calls it).
pub fn uninstall(common: &Common, args: &InstallArgs) -> Outcome {
    let done = uninstall_agent(common, args)?;
    let file = records_file(common)?;
    if done == ExitCode::SUCCESS
        && load_records(&file).is_empty()
        && wired::wired(common).is_empty()
    {
        match stop::stop() {
            Ok(stop::Stopped::Stopped { pid, .. }) => outln!(
                "No agent is wired to agent-hooks any more: stopped its resident process (pid {pid})"
            ),
            Ok(stop::Stopped::NoneRunning { .. }) => {}
            Err(error) => eprintln!(
                "agent-hooks: no agent is wired any more, but its resident process could not be stopped: {error} (agent-hooks serve --stop)"
            ),
        }
    }
    Ok(done)
}

/// Removes agent-hooks from the agent's file of `args`.
fn uninstall_agent(common: &Common, args: &InstallArgs) -> Outcome {
    refuse_unapplied(common, "uninstall")?;
    let agent = args.agent;
    let path = config_file(agent, !args.project, &project(common)?)?;
    let file = records_file(common)?;
    let _held = lock::take(&file)?;
    let mut records = load_records(&file);
    let Some(index) = records.iter().position(|r| r.path == path) else {
        outln!(
            "agent-hooks is not installed in {} (no record of it)",
            path.display()
        );
        return Ok(ExitCode::SUCCESS);
    };
    let record = records.remove(index);
    if !record.moved.is_empty() {
        undo_folder_take_over(&record, args.force)?;
        save_records(&file, &records)?;
        outln!(
            "{} no longer runs agent-hooks, and runs its own hooks files again: {}",
            agent.title(),
            path.parent().unwrap_or(Path::new(".")).display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let Some(mut text) = read(&path)? else {
        save_records(&file, &records)?;
        outln!("{} is gone already", path.display());
        return Ok(ExitCode::SUCCESS);
    };
    // The status line first: it was written last, right after the top object's brace.
    if let Some(insertion) = &record.status_line {
        if status_line::remove(&mut text, insertion) {
            write(&path, &text)?;
        } else {
            eprintln!(
                "agent-hooks: the status line install wrote into {} was changed since, so it is left there; remove its `statusLine` by hand if it still runs agent-hooks",
                path.display()
            );
        }
    }
    if let Some(taken) = &record.taken_over {
        // Read before the undo removes it: the copy as it is, to carry its trust back.
        let copy_now = read(&taken.copy)?;
        let restored = undo_take_over(&path, &text, taken, args.force)?;
        trust_back(
            common,
            &path,
            (&text, &restored),
            taken,
            copy_now.as_deref(),
        );
        restore_mode(&path, record.mode)?;
        save_records(&file, &records)?;
        outln!(
            "{} no longer runs agent-hooks, and runs its own hooks again: {}",
            agent.title(),
            path.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(owned) = &record.owned {
        if &text != owned {
            return Err(InstallError::Changed(path).into());
        }
        let changed: Vec<&PathBuf> = record
            .also
            .iter()
            .filter(|f| read(f).ok().flatten().is_some_and(|t| &t != owned))
            .collect();
        if let Some(first) = changed.first() {
            return Err(InstallError::Changed((*first).clone()).into());
        }
        for file in std::iter::once(&path).chain(&record.also) {
            match fs::remove_file(file) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                other => other.map_err(|error| InstallError::Io {
                    path: file.clone(),
                    error,
                })?,
            }
        }
        folders::remove_empty(&record.folders);
    } else {
        let insertions = &record.insertions;
        let missing = take_out(&path, &mut text, insertions)?;
        if record.created && text == "{}\n" {
            fs::remove_file(&path).map_err(|error| InstallError::Io {
                path: path.clone(),
                error,
            })?;
        } else {
            write(&path, &text)?;
            restore_mode(&path, record.mode)?;
        }
        if missing > 0 && has_entry(&text, agent) {
            // The file was rewritten since (Gemini CLI rewrites its user settings when it
            // migrates them): the entries are no longer the text install wrote.
            save_records(&file, &records)?;
            eprintln!(
                "agent-hooks: {} still runs agent-hooks: what install wrote into {} was changed since ({missing} of its {} insertions are not there as written: the file was rewritten, by the agent or by hand), so its entries are left there. Remove the hooks whose command runs `agent-hooks-hook --agent {}` (or `agent-hooks hook --agent {}`) by hand; `agent-hooks list` then no longer shows it as wired",
                agent.title(),
                path.display(),
                insertions.len(),
                agent.hook_name(),
                agent.hook_name()
            );
            return Ok(ExitCode::FAILURE);
        }
    }
    save_records(&file, &records)?;
    outln!(
        "{} no longer runs agent-hooks: {}",
        agent.title(),
        path.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// The events `install` writes the entry for: every one for an agent whose entry is a file
/// of agent-hooks' own (all its events in one file); for the others, the events some hook
/// of agent-hooks would run on for that agent at that level (found as `hook --agent` finds
/// them; the user's hooks and those of the project it runs in, at either level), and those
/// that stay wired always ([`needed::always`]).
fn events_for(common: &Common, args: &InstallArgs) -> Vec<&'static str> {
    let agent = args.agent;
    let all = agent.profile().installed_events;
    if agent.profile().entry_file_whole {
        return all.to_vec();
    }
    match needed_at(common, agent, &args.with, false) {
        Ok(events) => events,
        Err(error) => {
            eprintln!(
                "agent-hooks: the hooks to wire could not be found ({error}), so every event of {} is wired",
                agent.title()
            );
            all.to_vec()
        }
    }
}
