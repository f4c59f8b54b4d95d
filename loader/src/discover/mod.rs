//! Discovery: find every hook a user has, in a stable order, with nothing silently ignored,
//! and run project hooks only once the user trusts them.
//!
//! Providers run by priority, highest first (docs/discovery-and-trust.md has them as a
//! table). The built-in ones:
//!
//! | priority | provider | where | level |
//! |---|---|---|---|
//! | 200 | `agent-hooks (managed)` | `/etc/agent-hooks/policy.json` | managed |
//! | below 200 | `<agent> (managed)` | each agent's managed files (its profile's `managed`) | managed |
//! | 100 | `agent (user)` | `<config_dir>/hooks/` (`~/.config/<app>/hooks/`) | user |
//! | 90 | `agent (project)` | `<cwd>/.<app>/hooks/` | project |
//! | below 90 | `<agent> (user)`, `<agent> (project)`, ... | each agent's hooks files: where its profile's `places` say (one provider each, at the priority the place gives), and the extensions and plugins it finds by rules of its own (its profile's `own_files`, found by its room's procedure); each provider says whose files it reads ([`DiscoveryProvider::agent`]) | user, project |
//!
//! Managed entries (the first rows, see [`ManagedFiles`]) are read before all others, with
//! or without the built-in providers, and only when root owns them; their rules
//! ([`ManagedPolicy`]) can forbid every other hook.
//!
//! A hooks folder holds plugin libraries and hooks files (`*.json`) at the top, and scripts
//! in `pre/` and `post/` named `<tool>.<ext>`. User folders come first, so that a cloned
//! repository cannot shadow a user's hook with one of its own. The agents' hooks and
//! settings files are named by their place (`~/.<agent>/settings.json`,
//! `.<agent>/settings.json`): a user's and a project's are two keys and both run, in the
//! table's order, as the agents merge them.
//!
//! ```no_run
//! use agent_hooks::discover::{discover_and_load_hooks_with, DiscoveryOptions};
//!
//! let cwd = std::env::current_dir()?;
//! let mut options = DiscoveryOptions::new(&cwd);
//! options.app_name = "my-agent".into(); // ~/.config/my-agent/hooks/, .my-agent/hooks/
//! let found = discover_and_load_hooks_with(&["~/extra/libguard.so"], options);
//! for hook in &found.untrusted {
//!     eprintln!("not run until trusted: {hook:?}");
//! }
//! let runner = found.into_runner(&cwd);
//! # let _ = runner;
//! # Ok::<(), std::io::Error>(())
//! ```

mod crate_folder;
mod entry;
mod managed;
mod observe;
mod places;
mod plugin_settings;
mod providers;
mod required;
mod scan;
mod scripts;
mod trust;

use std::{
    collections::HashSet,
    path::{Path, PathBuf},
};

pub use crate::agents::codex_cli::{
    hook_hash as codex_hook_hash, CodexHook, CodexState, CodexVerdict,
};
pub use crate::agents::gemini_cli::GeminiTrust;
pub use entry::{EntryKind, HookEntry, Level};
pub use managed::{managed_providers, ManagedFiles, ManagedPolicy, MANAGED_ROOT_ENV};
pub use places::{AgentOwnFiles, AgentPlace};
pub use providers::{AgentProjectHooks, AgentUserHooks, DiscoveryContext, DiscoveryProvider};
pub use required::RequiredFailure;
pub use scan::{scan_hooks_folder, Found};
/// The scripts a hook's command names, for `agent-hooks list`: not part of the host's API.
#[doc(hidden)]
pub use scripts::{hook_scripts, HookScript};
pub use trust::{TrustError, TrustStore, Untrust, TRUST_STORE_FILE};

use crate::{
    agents::{Agent, Reviews},
    command_hook::CommandHooks,
    file::{read_checked, CheckedFile, Limit, StrictModes},
    load::{resolve_path, LoadError, LoadFailure, LoadHooksResult, LoadOptions, PluginLoader},
    runner::HookRunner,
};

/// The built-in providers, highest priority first (the table above).
pub fn builtin_providers() -> Vec<Box<dyn DiscoveryProvider>> {
    let mut providers: Vec<Box<dyn DiscoveryProvider>> =
        vec![Box::new(AgentUserHooks), Box::new(AgentProjectHooks)];
    providers.extend(AgentOwnFiles::all().map(|p| Box::new(p) as Box<dyn DiscoveryProvider>));
    providers.extend(AgentPlace::all().map(|p| Box::new(p) as Box<dyn DiscoveryProvider>));
    providers
}

/// How to discover: the agent's name and folders, what is disabled, extra providers, trust.
pub struct DiscoveryOptions {
    /// The agent's name, which names its folders. Default `agent-hooks`.
    pub app_name: String,
    /// The project folder.
    pub cwd: PathBuf,
    /// The user's home (default `$HOME`).
    pub home: Option<PathBuf>,
    /// The agent's user configuration folder (default `$XDG_CONFIG_HOME/<app>` or
    /// `~/.config/<app>`), which holds the user's hooks folder and the trust store.
    pub config_dir: Option<PathBuf>,
    /// Hook ids (`type:tool:name` keys, or file names) left out.
    pub disabled: Vec<String>,
    /// Providers added to the built-in ones.
    pub extra_providers: Vec<Box<dyn DiscoveryProvider>>,
    /// Use the built-in providers (false: only configured paths and extra providers).
    pub builtin_providers: bool,
    /// Trust every project hook (a CI run, or `--trust-project`).
    pub trust_project: bool,
    /// Hooks that must run (ids as for `disabled`, or paths): when one is not running, the
    /// runner blocks every tool call, naming it (see [`Discovered::required_failures`]).
    pub required: Vec<String>,
    /// How plugins load: by default each in a process of its own.
    pub load: LoadOptions,
    /// A second system root under which managed files are read too (for tests: default
    /// from [`MANAGED_ROOT_ENV`]). It never replaces `/`: a user who sets it cannot escape
    /// the machine's policy, only add rules on themselves; files under it may be owned by
    /// the user running the agent as well as by root.
    pub managed_root: Option<PathBuf>,
    /// Managed providers (by name) whose hooks do not run here, while their rules still
    /// apply: the calling agent runs its own managed hooks itself (`agent-hooks hook`).
    pub managed_rules_only: Vec<String>,
    /// Every hook observes: its answers are recorded, not applied (the user's or a
    /// project's observe mode); a hook can also observe alone (`"observe": true`). A
    /// required or managed hook never observes, unless the managed policy's
    /// `decisions.observeRequired` is true.
    pub observe: bool,
}

impl DiscoveryOptions {
    /// The defaults for a project at `cwd`.
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        Self {
            app_name: "agent-hooks".into(),
            cwd: cwd.into(),
            home: std::env::var_os("HOME").map(PathBuf::from),
            config_dir: None,
            disabled: Vec::new(),
            extra_providers: Vec::new(),
            builtin_providers: true,
            trust_project: false,
            required: Vec::new(),
            load: LoadOptions::isolated(),
            managed_root: std::env::var_os(MANAGED_ROOT_ENV)
                .filter(|root| !root.is_empty())
                .map(PathBuf::from),
            managed_rules_only: Vec::new(),
            observe: false,
        }
    }

    /// The configuration folder: given, or `$XDG_CONFIG_HOME/<app>`, or `~/.config/<app>`.
    pub fn config_dir(&self) -> PathBuf {
        if let Some(dir) = &self.config_dir {
            return dir.clone();
        }
        let base = std::env::var_os("XDG_CONFIG_HOME")
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
            .or_else(|| self.home.as_ref().map(|h| h.join(".config")))
            .unwrap_or_else(|| PathBuf::from(".config"));
        base.join(&self.app_name)
    }
}

/// A project hook that was found but does not run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UntrustedHook {
    /// The hook.
    pub entry: HookEntry,
    /// Why it does not run.
    pub reason: Untrust,
    /// The SHA-256 of the content that was read and listed: what `trust` records.
    pub hash: String,
    /// For a hooks file: the scripts inside the project its commands run, with the SHA-256
    /// of each as read. For a plugin: its configuration files (`lib<name>.toml` and `.json`
    /// beside it), with the SHA-256 of each, or [`ABSENT`] for one that does not exist.
    /// `trust` records them too.
    pub scripts: Vec<(PathBuf, String)>,
}

/// A command of a project hooks file that runs code trust does not cover.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UncoveredCode {
    /// The hooks file.
    pub file: PathBuf,
    /// The command.
    pub command: String,
    /// What trust cannot see.
    pub reason: String,
}

/// Everything discovery found, loaded, and left out.
#[derive(Debug, Default)]
pub struct Discovered {
    /// The hooks accepted for loading, in order (discovered, then configured).
    pub entries: Vec<HookEntry>,
    /// The plugins loaded, and every path that failed (plugins, and files refused for
    /// their permissions).
    pub loaded: LoadHooksResult,
    /// The command hooks, from hooks files and script folders, with their files' problems.
    pub commands: CommandHooks,
    /// Entries whose key an earlier entry already had: listed, not loaded.
    pub shadowed: Vec<HookEntry>,
    /// Entries left out because their id is disabled.
    pub disabled: Vec<HookEntry>,
    /// Project hooks that do not run until trusted.
    pub untrusted: Vec<UntrustedHook>,
    /// Providers that failed, and files in hooks folders that are not hooks.
    pub warnings: Vec<String>,
    /// Required hooks that are not running: the runner blocks every tool call for each.
    pub required_failures: Vec<RequiredFailure>,
    /// Commands of project hooks files that run code trust does not cover.
    pub uncovered: Vec<UncoveredCode>,
    /// The rules of the managed files that were read (and not refused).
    pub policy: ManagedPolicy,
    /// Hooks the managed policy does not let load, with the reason.
    pub forbidden: Vec<(HookEntry, String)>,
}

impl Discovered {
    /// A runner over what was loaded: the plugins, then the command hooks.
    pub fn into_runner(mut self, cwd: impl Into<PathBuf>) -> HookRunner {
        self.take_runner(cwd)
    }

    /// [`into_runner`](Self::into_runner), keeping the rest of the findings (entries, errors,
    /// shadowed, ...) to show: `loaded.hooks` and `commands` are left empty.
    pub fn take_runner(&mut self, cwd: impl Into<PathBuf>) -> HookRunner {
        let mut runner = HookRunner::new(std::mem::take(&mut self.loaded.hooks), cwd);
        runner.add_command_hooks(std::mem::take(&mut self.commands));
        for failure in &self.required_failures {
            required::add_blocker(&mut runner, failure);
        }
        runner
    }
}

/// [`discover_and_load_hooks_with`] with the default options for `cwd`.
pub fn discover_and_load_hooks<P: AsRef<str>>(
    configured_paths: &[P],
    cwd: impl Into<PathBuf>,
) -> Discovered {
    discover_and_load_hooks_with(configured_paths, DiscoveryOptions::new(cwd))
}

/// Finds the hooks of the providers, then adds `configured_paths` (each a plugin library, a
/// hooks JSON file, or a hooks folder), resolved like [`load_hooks`](crate::load::load_hooks)'s; shadows by key, leaves
/// out disabled ids, untrusted project hooks and files others can write to; loads the rest
/// in that order. Configured paths are the user's explicit choice: trusted, never shadowed.
pub fn discover_and_load_hooks_with<P: AsRef<str>>(
    configured_paths: &[P],
    options: DiscoveryOptions,
) -> Discovered {
    let mut managed_roots = vec![PathBuf::from("/")];
    managed_roots.extend(options.managed_root.clone().filter(|r| r != Path::new("/")));
    let ctx = DiscoveryContext {
        app_name: options.app_name.clone(),
        cwd: options.cwd.clone(),
        home: options.home.clone(),
        config_dir: options.config_dir(),
        managed_roots,
    };
    // The managed providers always run: neither `builtin_providers: false` nor
    // `--no-discover` turns the machine's policy off.
    let mut providers = managed_providers();
    if options.builtin_providers {
        providers.extend(builtin_providers());
    }
    providers.extend(options.extra_providers);
    // A stable sort: equal priorities keep registration order.
    providers.sort_by_key(|p| std::cmp::Reverse(p.priority()));

    let trust = TrustStore::open(&ctx.config_dir);
    let mut discovery = Discovery {
        reviews: Reviews::read(ctx.home.as_deref()),
        modes: StrictModes::new(ctx.home.as_deref()),
        discovered: Discovered::default(),
        accepted: Vec::new(),
    };
    if let Err(error) = &trust {
        discovery.discovered.warnings.push(error.to_string());
    }
    let mut keys: HashSet<String> = HashSet::new();
    let project = std::fs::canonicalize(&ctx.cwd).unwrap_or_else(|_| ctx.cwd.clone());
    let mut load_options = options.load.clone();
    let read = plugin_settings::read(
        &ctx.config_dir.join("settings.json"),
        load_options.defaults,
        ctx.home.as_deref(),
    );
    discovery.discovered.warnings.extend(read.warnings);
    for (name, settings) in read.settings {
        load_options.per_plugin.entry(name).or_insert(settings);
    }
    for (name, config) in read.configs {
        load_options.configs.entry(name).or_insert(config);
    }
    let observed_plugins = read.observed;
    let mut found_entries = Vec::new();
    for provider in &providers {
        match provider.discover(&ctx) {
            Ok(found) => {
                discovery.discovered.warnings.extend(found.warnings);
                found_entries.extend(found.entries);
            }
            Err(error) => discovery.discovered.warnings.push(format!(
                "hook provider `{}` failed: {error}",
                provider.name()
            )),
        }
    }
    // Managed entries first, whatever their providers' priorities.
    let (managed, others): (Vec<HookEntry>, Vec<HookEntry>) = found_entries
        .into_iter()
        .partition(|e| e.level == Level::Managed);
    discovery.managed(managed, &ctx, &options.managed_rules_only);
    // The agents whose own hooks a setting of theirs turns off, and their providers of one
    // user or project level (the agent's own hooks files, which that setting turns off).
    let turned_off: Vec<(Vec<&str>, String)> =
        crate::agents::hooks_turned_off(&ctx.cwd, ctx.home.as_deref())
            .into_iter()
            .map(|(agent, reason)| {
                let sources = providers
                    .iter()
                    .filter(|p| {
                        p.agent() == Some(agent)
                            && matches!(p.level(), Some(Level::User | Level::Project))
                    })
                    .map(|p| p.name())
                    .collect();
                (sources, reason)
            })
            .collect();
    for entry in others {
        let key = entry.key();
        if !keys.insert(key.clone()) {
            discovery.discovered.shadowed.push(entry);
            continue;
        }
        if let Some(reason) = discovery.discovered.policy.forbids(&entry) {
            discovery.discovered.forbidden.push((entry, reason));
            continue;
        }
        if let Some((_, reason)) = turned_off
            .iter()
            .find(|(sources, _)| sources.contains(&entry.source.as_str()))
        {
            let reason = reason.clone();
            discovery.discovered.forbidden.push((entry, reason));
            continue;
        }
        if options
            .disabled
            .iter()
            .any(|d| *d == key || *d == entry.name)
        {
            discovery.discovered.disabled.push(entry);
            continue;
        }
        discovery.admit(entry, &trust, &project, options.trust_project);
    }
    for given in configured_paths {
        discovery.configured(given.as_ref(), &ctx);
    }
    discovery.forbid_configured();
    let mut discovered = discovery.load(&ctx.cwd, &load_options);
    let policy = std::mem::take(&mut discovered.policy);
    policy.apply_http(&mut discovered.commands);
    discovered.policy = policy;
    required::mark(&mut discovered, &options.required);
    discovered.required_failures = required::failures(&discovered, &options.required);
    observe::apply(&mut discovered, &observed_plugins, options.observe);
    discovered
}

/// Whether a managed file has hooks to load: a JSON settings file only with a `hooks` key
/// (one that is not JSON is loaded, so that the hooks' reader reports it).
fn settings_with_hooks(entry: &HookEntry, file: &CheckedFile) -> bool {
    if entry.path.extension().is_none_or(|e| e != "json") {
        return true;
    }
    serde_json::from_slice::<serde_json::Value>(&file.bytes)
        .map(|v| v.get("hooks").is_some())
        .unwrap_or(true)
}

/// What trust records for a plugin's configuration file that does not exist.
pub const ABSENT: &str = "absent";

/// What trust records for a plugin's configuration file that cannot be read.
const UNREADABLE: &str = "unreadable";

/// Discovery under way: what was read and accepted so far.
struct Discovery {
    /// The agents' own reviews of the hooks in their files.
    reviews: Reviews,
    modes: StrictModes,
    discovered: Discovered,
    accepted: Vec<(String, HookEntry, CheckedFile)>,
}

impl Discovery {
    /// Reads the managed entries with the managed check (owned by root, writable by no one
    /// else; under a test root the user may own them too), combines their rules, and
    /// accepts their hooks first, unless their rules say no hook runs. A refused file's
    /// rules are not applied: nothing says the administrator wrote them.
    fn managed(&mut self, entries: Vec<HookEntry>, ctx: &DiscoveryContext, rules_only: &[String]) {
        let mut read = Vec::new();
        for entry in entries {
            let under_test_root = ctx
                .managed_roots
                .iter()
                .skip(1)
                .any(|root| entry.path.starts_with(root));
            let mut modes = StrictModes::managed(under_test_root);
            let given = entry.path.to_string_lossy().into_owned();
            match read_checked(&entry.path, Limit::HooksFile, &mut modes) {
                Ok(file) => {
                    let dialect = Agent::of_file(&entry.path);
                    let (policy, warnings) = ManagedPolicy::read(dialect, &file.bytes, &entry.path);
                    self.discovered.warnings.extend(warnings);
                    self.discovered.policy.merge(policy);
                    read.push((given, entry, file));
                }
                Err(error) => {
                    self.discovered.warnings.push(format!(
                        "the managed policy file {given} is refused, so neither its rules nor its hooks apply: {error}"
                    ));
                    self.discovered.loaded.errors.push(LoadFailure {
                        path: given,
                        error: LoadError::from(error),
                    });
                }
            }
        }
        for (given, entry, file) in read {
            if let Some(reason) = self.discovered.policy.forbids(&entry) {
                self.discovered.forbidden.push((entry, reason));
            } else if !rules_only.contains(&entry.source) && settings_with_hooks(&entry, &file) {
                self.accepted.push((given, entry, file));
            }
        }
    }

    /// Moves the configured paths the managed policy forbids out of the accepted ones.
    fn forbid_configured(&mut self) {
        let policy = &self.discovered.policy;
        if policy.is_empty() {
            return;
        }
        let mut kept = Vec::new();
        for (given, entry, file) in std::mem::take(&mut self.accepted) {
            match policy.forbids(&entry) {
                Some(reason) => self.discovered.forbidden.push((entry, reason)),
                None => kept.push((given, entry, file)),
            }
        }
        self.accepted = kept;
    }

    /// Reads a discovered `entry` once, checked, and accepts it unless it is refused, or
    /// comes from the project and trust does not cover it (the file as read, and the scripts
    /// its commands run): then it is listed as untrusted.
    fn admit(
        &mut self,
        entry: HookEntry,
        trust: &Result<TrustStore, TrustError>,
        project: &Path,
        trust_project: bool,
    ) {
        let given = entry.path.to_string_lossy().into_owned();
        let Some(file) = self.read(&given, &entry) else {
            return;
        };
        if entry.level == Level::Project
            && !trust_project
            && !self.trusted_by_its_agent(&entry, &file, project)
        {
            let hash = file.hash();
            let scripts = match entry.kind {
                EntryKind::HooksFile => self.scripts_of(&entry.path, &file, project),
                EntryKind::Plugin => self.configs_of(&entry.path),
                EntryKind::Script(_) => Vec::new(),
            };
            let verdict = match trust {
                Ok(store) => store.check(&entry.path, &hash).and_then(|()| {
                    if entry.kind == EntryKind::Plugin {
                        store.check_configs(&scripts)
                    } else {
                        store.check_scripts(&scripts)
                    }
                }),
                Err(error) => Err(Untrust::StoreUnreadable(error.to_string())),
            };
            if let Err(reason) = verdict {
                self.discovered.untrusted.push(UntrustedHook {
                    entry,
                    reason,
                    hash,
                    scripts,
                });
                return;
            }
        }
        self.accepted.push((given, entry, file));
    }

    /// Whether the agent whose file `entry` is trusts every hook of it as it is now (its
    /// own review of the hooks, which its user made in the agent).
    fn trusted_by_its_agent(&self, entry: &HookEntry, file: &CheckedFile, project: &Path) -> bool {
        entry.kind == EntryKind::HooksFile
            && self.reviews.trust_all(&file.bytes, &entry.path, project)
    }

    /// Reads `entry` once, checked; a refusal is an error entry for `given`.
    fn read(&mut self, given: &str, entry: &HookEntry) -> Option<CheckedFile> {
        let limit = match entry.kind {
            EntryKind::HooksFile => Limit::HooksFile,
            EntryKind::Plugin | EntryKind::Script(_) => Limit::Library,
        };
        match read_checked(&entry.path, limit, &mut self.modes) {
            Ok(file) => Some(file),
            Err(error) => {
                self.discovered.loaded.errors.push(LoadFailure {
                    path: given.to_owned(),
                    error: LoadError::from(error),
                });
                None
            }
        }
    }

    /// The scripts inside `project` that the commands of the hooks file `path` (read as
    /// `file`) run, each read once with the checks of every hook file and hashed; what
    /// cannot be covered is recorded in `uncovered`.
    fn scripts_of(
        &mut self,
        path: &Path,
        file: &CheckedFile,
        project: &Path,
    ) -> Vec<(PathBuf, String)> {
        let (hooks, _) = crate::agents::parse_hooks_bytes(&file.bytes, path);
        let mut scripts: Vec<(PathBuf, String)> = Vec::new();
        for hook in hooks {
            let code = scripts::locate(&hook, project);
            let mut uncovered = code.uncovered;
            for script in code.scripts {
                if scripts.iter().any(|(known, _)| *known == script) {
                    continue;
                }
                match read_checked(&script, Limit::Library, &mut self.modes) {
                    Ok(read) => scripts.push((script, read.hash())),
                    Err(error) => {
                        uncovered.get_or_insert_with(|| {
                            format!("it runs a script that cannot be hashed: {error}")
                        });
                    }
                }
            }
            if let Some(reason) = uncovered {
                self.discovered.uncovered.push(UncoveredCode {
                    file: path.to_path_buf(),
                    command: hook.kind.label().into_owned(),
                    reason,
                });
            }
        }
        scripts
    }

    /// The configuration files a project plugin at `library` may read (`lib<name>.toml`
    /// and `.json` beside it), each with the SHA-256 of its content, or [`ABSENT`] when there
    /// is none (so that one that appears after `trust` is a change too), or [`UNREADABLE`].
    fn configs_of(&mut self, library: &Path) -> Vec<(PathBuf, String)> {
        let library = std::fs::canonicalize(library).unwrap_or_else(|_| library.to_path_buf());
        crate::plugin_config::siblings(&library)
            .into_iter()
            .map(|config| {
                let hash = match read_checked(&config, Limit::HooksFile, &mut self.modes) {
                    Ok(read) => read.hash(),
                    Err(crate::file::FileError::NotFound { .. }) => ABSENT.to_owned(),
                    Err(_) => UNREADABLE.to_owned(),
                };
                (config, hash)
            })
            .collect()
    }

    /// Adds a configured path: a folder of hooks, a hooks file, or a plugin. Its files get
    /// the same checks as discovered ones; trust is not asked (the user named them).
    fn configured(&mut self, given: &str, ctx: &DiscoveryContext) {
        let resolved = match resolve_path(given, &ctx.cwd) {
            Ok(resolved) => resolved,
            Err(error) => {
                self.discovered.loaded.errors.push(LoadFailure {
                    path: given.to_owned(),
                    error,
                });
                return;
            }
        };
        let level = if resolved.starts_with(&ctx.cwd) {
            Level::Project
        } else {
            Level::User
        };
        // An agent's plugin folder: its hooks file.
        let plugin_hooks = resolved
            .is_dir()
            .then(|| {
                Agent::ALL
                    .iter()
                    .flat_map(|agent| agent.profile().own_files)
                    .filter_map(|files| files.folder_hooks)
                    .find_map(|hooks| hooks(&resolved))
            })
            .flatten();
        let resolved = plugin_hooks.unwrap_or(resolved);
        if resolved.is_dir() {
            let found = scan_hooks_folder(&resolved, level, "configured");
            let hint = found
                .entries
                .is_empty()
                .then(|| crate_folder::crate_hint(&resolved))
                .flatten();
            if let Some(hint) = hint {
                self.discovered.warnings.push(hint);
                return;
            }
            self.discovered.warnings.extend(found.warnings);
            if found.entries.is_empty() {
                self.discovered.warnings.push(format!(
                    "{} (given with --hook) is a folder that holds no hooks: nothing loaded from it. A hooks folder holds plugin libraries (.{}) and hooks files (.json) at the top, and scripts in pre/ and post/ named <tool>.<ext>",
                    resolved.display(),
                    std::env::consts::DLL_EXTENSION
                ));
            }
            for entry in found.entries {
                let given = entry.path.to_string_lossy().into_owned();
                if let Some(file) = self.read(&given, &entry) {
                    self.accepted.push((given, entry, file));
                }
            }
            return;
        }
        let is_json = resolved.extension().is_some_and(|e| e == "json");
        let entry = HookEntry {
            name: resolved
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            path: resolved,
            kind: if is_json {
                EntryKind::HooksFile
            } else {
                EntryKind::Plugin
            },
            tool: None,
            level,
            source: "configured".into(),
        };
        if let Some(file) = self.read(given, &entry) {
            self.accepted.push((given.to_owned(), entry, file));
        }
    }

    /// Loads the accepted entries, in order, from the bytes that were checked: plugins
    /// through the plugin loader (which skips two paths to one file), hooks files and
    /// scripts into the command hooks.
    fn load(mut self, cwd: &Path, options: &LoadOptions) -> Discovered {
        let mut seen_files: HashSet<(u64, u64)> = HashSet::new();
        let mut plugins = PluginLoader::new(cwd, options);
        for (given, entry, file) in self.accepted {
            if entry.kind != EntryKind::Plugin && !seen_files.insert((file.device, file.inode)) {
                continue;
            }
            match entry.kind {
                EntryKind::Plugin => plugins.add(&given, &entry.path, || Ok(file)),
                EntryKind::HooksFile => {
                    // What the agent's user turned off or did not trust as it is in the agent
                    // does not run; a managed file is beyond the user's reach.
                    let withheld = (entry.level != Level::Managed)
                        .then(|| self.reviews.withheld(&file.bytes, &entry.path))
                        .flatten();
                    match withheld {
                        Some((read, withheld)) => {
                            self.discovered
                                .commands
                                .load_value(read, &entry.path, withheld);
                        }
                        None => {
                            self.discovered
                                .commands
                                .load_bytes(&file.bytes, &entry.path);
                        }
                    }
                }
                EntryKind::Script(event) => {
                    self.discovered.commands.add_script(&entry.path, event);
                }
            }
            self.discovered.entries.push(entry);
        }
        let loaded = plugins.finish();
        self.discovered.loaded.hooks = loaded.hooks;
        self.discovered.loaded.errors.extend(loaded.errors);
        self.discovered.loaded.duplicates = loaded.duplicates;
        self.discovered
    }
}
