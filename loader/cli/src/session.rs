//! What every subcommand starts from: discovery, the runner, and listeners that record what
//! hooks did.

use std::{
    path::PathBuf,
    sync::{Arc, Mutex},
    time::Duration,
};

use agent_hooks::{
    command_hook::{CommandHookReport, CommandOutcome, Severity},
    discover_and_load_hooks_with, Discovered, DiscoveryOptions, HandlerTiming, HookError,
    HookRunner,
};
use serde_json::{json, Value};

use crate::{
    host_script::HostScript, options::Common, recorder::Recorder, sync::lock, ui_script::UiMode,
};

/// The runner and what it recorded.
pub struct Session {
    /// The project folder.
    pub cwd: PathBuf,
    /// The runner, over everything that loaded.
    pub runner: Arc<HookRunner>,
    /// Discovery's findings; the hooks themselves are in the runner.
    pub findings: Discovered,
    /// Errors of hooks, as they happen.
    pub errors: Arc<Mutex<Vec<HookError>>>,
    /// Native handlers' calls (path, duration, answer), as they happen.
    pub timings: Arc<Mutex<Vec<HandlerTiming>>>,
    /// Command-hook runs, as they happen.
    pub reports: Arc<Mutex<Vec<CommandHookReport>>>,
    /// The agent hooks talk to: what they did to it, as it happens.
    pub recorder: Arc<Recorder>,
    /// The problems already told the user in this session (under an agent, each once).
    pub told: Arc<Mutex<std::collections::HashSet<String>>>,
    /// Whether and how the events this session answers are recorded.
    pub decisions: crate::decisions::Settings,
}

impl Session {
    /// Discovers and loads what `common` says.
    pub fn open(common: &Common) -> Result<Self, Box<dyn std::error::Error>> {
        Self::open_with(common, |_| {})
    }

    /// [`open`](Self::open), letting `adjust` change the discovery options first.
    pub fn open_with(
        common: &Common,
        adjust: impl FnOnce(&mut DiscoveryOptions),
    ) -> Result<Self, Box<dyn std::error::Error>> {
        Self::build(common, adjust, |_| {})
    }

    /// [`open_with`](Self::open_with), letting `tune` change the runner before it is shared.
    pub fn build(
        common: &Common,
        adjust: impl FnOnce(&mut DiscoveryOptions),
        tune: impl FnOnce(&mut HookRunner),
    ) -> Result<Self, Box<dyn std::error::Error>> {
        Self::build_keeping(common, adjust, |hook| !crate::wiring::is_wiring(hook), tune)
    }

    /// [`build`](Self::build), keeping only the command hooks `keep` accepts. A project file
    /// whose hooks are all agent-hooks' own wiring entries ([`crate::wiring::is_wiring`]) is
    /// not listed as awaiting trust: nothing in it would run.
    pub fn build_keeping(
        common: &Common,
        adjust: impl FnOnce(&mut DiscoveryOptions),
        keep: impl FnMut(&agent_hooks::command_hook::CommandHook) -> bool,
        tune: impl FnOnce(&mut HookRunner),
    ) -> Result<Self, Box<dyn std::error::Error>> {
        let ui = UiMode::parse(&common.ui)?;
        let host_script = common
            .host_script
            .as_deref()
            .map(HostScript::read)
            .transpose()?;
        let cwd = match &common.cwd {
            Some(dir) => std::path::absolute(dir)?,
            None => std::env::current_dir()?,
        };
        if !cwd.is_dir() {
            return Err(format!("--cwd {}: no such folder", cwd.display()).into());
        }
        let mut options = DiscoveryOptions::new(&cwd);
        options.builtin_providers = !common.no_discover;
        options.trust_project = common.trust_project;
        options.required = common.required.clone();
        if common.in_process {
            options.load = agent_hooks::LoadOptions::in_process();
        }
        // What plugins' factories are told (`plugin_info().has_ui`), as their handlers are.
        options.load.has_ui = ui.has_ui();
        if options.builtin_providers {
            // The hooks `install --take-over` moved under agent-hooks.
            options
                .extra_providers
                .extend(crate::taken_over::providers());
        }
        adjust(&mut options);
        let home = options.home.clone();
        let user = crate::decisions::UserSettings::read(&options.config_dir());
        options.observe |= user.observes(home.as_deref(), &cwd);
        let mut findings = discover_and_load_hooks_with(&common.hooks, options);
        let decisions = user.settings(home.as_deref(), findings.policy.decisions.as_ref());
        findings.commands.retain(keep);
        let wiring_only: Vec<PathBuf> = findings
            .untrusted
            .iter()
            .filter(|u| holds_only_wiring(&u.entry))
            .map(|u| u.entry.path.clone())
            .collect();
        findings
            .untrusted
            .retain(|u| !wiring_only.contains(&u.entry.path));
        findings
            .uncovered
            .retain(|u| !wiring_only.contains(&u.file));
        let mut runner = findings.take_runner(&cwd);
        tune(&mut runner);
        let recorder = Recorder::new(ui).answering(host_script);
        Ok(Self::around(runner, cwd, findings, recorder, decisions))
    }

    fn around(
        runner: HookRunner,
        cwd: PathBuf,
        findings: Discovered,
        recorder: Recorder,
        decisions: crate::decisions::Settings,
    ) -> Self {
        let recorder = Arc::new(recorder);
        runner.attach(recorder.clone());
        let errors = Arc::new(Mutex::new(Vec::new()));
        let sink = errors.clone();
        runner.on_error(move |e| lock(&sink).push(e.clone()));
        let timings = Arc::new(Mutex::new(Vec::new()));
        let sink = timings.clone();
        runner.on_handler_timing(move |t| lock(&sink).push(t.clone()));
        let reports = Arc::new(Mutex::new(Vec::new()));
        let sink = reports.clone();
        runner.on_command_hook(move |r| {
            lock(&sink).push(r.clone());
        });
        Self {
            cwd,
            runner: Arc::new(runner),
            findings,
            errors,
            timings,
            reports,
            recorder,
            told: Arc::default(),
            decisions,
        }
    }

    /// Keeps of `problems` those not yet told the user in this session (by their `key`),
    /// which are marked told.
    pub fn keep_untold<T>(&self, problems: &mut Vec<T>, key: impl Fn(&T) -> String) {
        let mut told = lock(&self.told);
        problems.retain(|p| told.insert(key(p)));
    }

    /// Takes what was recorded since the last call: errors, time per hook in order (native
    /// handlers, then command hooks), and the combined answer of the command hooks that were
    /// waited for (`None` when none ran).
    pub fn take_records(&self) -> Records {
        let errors = std::mem::take(&mut *lock(&self.errors));
        let native = std::mem::take(&mut *lock(&self.timings));
        let reports = std::mem::take(&mut *lock(&self.reports));
        let mut timings: Vec<(String, Duration)> = native
            .iter()
            .map(|t| (t.hook_path.clone(), t.duration))
            .collect();
        // An observing hook's answer is recorded, not applied.
        let waited: Vec<&CommandHookReport> = reports
            .iter()
            .filter(|r| !r.background && !r.observed)
            .collect();
        let commands =
            (!waited.is_empty()).then(|| CommandOutcome::combine(waited.iter().map(|r| &r.answer)));
        timings.extend(reports.iter().map(|r| {
            (
                format!("{} ({})", r.command, r.source.display()),
                r.duration,
            )
        }));
        let recorded = self.recorder.take();
        Records {
            errors,
            timings,
            native,
            reports,
            commands,
            activity: recorded.activity,
            warnings: recorded.warnings,
        }
    }
}

/// What hooks did in one emit.
pub struct Records {
    /// Hook errors.
    pub errors: Vec<HookError>,
    /// Time per hook.
    pub timings: Vec<(String, Duration)>,
    /// Each native handler's call: its time and answer.
    pub native: Vec<HandlerTiming>,
    /// Each command hook's run.
    pub reports: Vec<CommandHookReport>,
    /// The command hooks' combined answer.
    pub commands: Option<CommandOutcome>,
    /// What hooks did to the agent, in order (see [`Recorder`]).
    pub activity: Vec<Value>,
    /// Problems with the `--ui` script.
    pub warnings: Vec<String>,
}

impl Session {
    /// Whether nothing loaded: no native plugin, long-running hook or command hook.
    pub fn has_no_hooks(&self) -> bool {
        self.runner.hooks().is_empty() && self.runner.command_hooks().hooks().next().is_none()
    }

    /// Every hook that did not load, as `(path, why)`: plugins and files that failed or were
    /// refused, and the errors of hooks files (a hook or a whole file skipped).
    pub fn load_failures(&self) -> Vec<(String, String)> {
        let mut failures: Vec<(String, String)> = self
            .findings
            .loaded
            .errors
            .iter()
            .map(|f| (f.path.clone(), f.error.to_string()))
            .collect();
        failures.extend(
            self.runner
                .command_hooks()
                .issues()
                .iter()
                .filter(|i| i.severity == Severity::Error)
                .map(|i| (i.file.to_string_lossy().into_owned(), i.to_string())),
        );
        failures
    }

    /// The load failures as entries of an `errors` list (event `load`), and, for people, on
    /// stderr.
    pub fn report_load_failures(&self, json: bool) -> Vec<Value> {
        let failures = self.load_failures();
        if !json {
            for (path, error) in &failures {
                let error = crate::output::indent_continuation(error, "    ");
                eprintln!("agent-hooks: not loaded: {path}: {error}");
            }
        }
        failures
            .into_iter()
            .map(|(path, error)| json!({"hook_path": path, "event": "load", "kind": "failed", "panicked": false, "error": error}))
            .collect()
    }
}

/// Whether `entry` is a hooks or settings file whose every hook is one of agent-hooks' own
/// wiring entries (a file `install` wrote into, or that holds nothing else).
fn holds_only_wiring(entry: &agent_hooks::discover::HookEntry) -> bool {
    use std::io::Read;
    if entry.kind != agent_hooks::discover::EntryKind::HooksFile {
        return false;
    }
    // Discovery read it already, within the bound of a hooks file.
    let mut bytes = Vec::new();
    let read = std::fs::File::open(&entry.path)
        .and_then(|file| file.take(HOOKS_FILE_LIMIT).read_to_end(&mut bytes));
    if read.is_err() {
        return false;
    }
    let (hooks, _) = agent_hooks::agents::parse_hooks_bytes(&bytes, &entry.path);
    !hooks.is_empty() && hooks.iter().all(crate::wiring::is_wiring)
}

/// The largest hooks or settings file read (as discovery bounds them).
const HOOKS_FILE_LIMIT: u64 = 4 << 20;

/// The exit code when `--strict` is given and a hook failed to load.
pub fn strict_code(common: &crate::options::Common, failures: &[Value]) -> std::process::ExitCode {
    if common.strict && !failures.is_empty() {
        std::process::ExitCode::FAILURE
    } else {
        std::process::ExitCode::SUCCESS
    }
}
