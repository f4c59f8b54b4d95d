//! Discovery: find every hook a user has, in a stable order, with nothing silently ignored,
//! and run project hooks only once the user trusts them.
//!
//! Providers run by priority. The built-in ones, highest first:
//!
//! | priority | provider | where | level |
//! |---|---|---|---|
//! | 100 | `agent (user)` | `<config_dir>/hooks/` (`~/.config/<app>/hooks/`) | user |
//! | 90 | `agent (project)` | `<cwd>/.<app>/hooks/` | project |
//! | 80 | `claude (user)` | `~/.claude/settings.json`, `~/.claude/hooks/{pre,post}/` | user |
//! | 75 | `claude plugins` | `hooks/hooks.json` of installed Claude Code plugins (`~/.claude/plugins/`) | user |
//! | 70 | `claude (project)` | `<cwd>/.claude/settings.json`, `settings.local.json`, `.claude/hooks/{pre,post}/` | project |
//! | 60, 55 | `codex (user)`, `codex (project)` | `~/.codex/hooks.json`, `<cwd>/.codex/hooks.json` | user, project |
//! | 50, 45 | `gemini (user)`, `gemini (project)` | `~/.gemini/settings.json`, `<cwd>/.gemini/settings.json` | user, project |
//! | 40, 35 | `devin (user)`, `devin (project)` | `~/.config/devin/config.json`, `<cwd>/.devin/hooks.v1.json`, `.devin/config*.json` | user, project |
//!
//! A hooks folder holds plugin libraries and hooks files (`*.json`) at the top, and scripts
//! in `pre/` and `post/` named `<tool>.<ext>`. User folders come first, so that a cloned
//! repository cannot shadow a user's hook with one of its own.

mod dialects;
mod entry;
mod plugin_settings;
mod providers;
mod safety;
mod scan;
mod trust;

use std::path::{Path, PathBuf};

pub use dialects::{plugin_folder_hooks, AgentFiles, ClaudePluginHooks};
pub use entry::{EntryKind, HookEntry, Level};
pub use providers::{
    builtin_providers, AgentProjectHooks, AgentUserHooks, ClaudeProjectHooks, ClaudeUserHooks,
    DiscoveryContext, DiscoveryProvider,
};
pub use scan::{scan_hooks_folder, Found};
pub use trust::{TrustStore, Untrust};

use crate::{
    command::CommandHooks,
    isolation::LoadOptions,
    load::{load_hooks_with, resolve_path, LoadError, LoadFailure, LoadHooksResult},
    HookRunner,
};

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
    /// How plugins load: by default each in a process of its own.
    pub load: LoadOptions,
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
            load: LoadOptions::isolated(),
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
/// hooks JSON file, or a hooks folder), resolved like [`load_hooks`](crate::load_hooks)'s; shadows by key, leaves
/// out disabled ids, untrusted project hooks and files others can write to; loads the rest
/// in that order. Configured paths are the user's explicit choice: trusted, never shadowed.
pub fn discover_and_load_hooks_with<P: AsRef<str>>(
    configured_paths: &[P],
    options: DiscoveryOptions,
) -> Discovered {
    let ctx = DiscoveryContext {
        app_name: options.app_name.clone(),
        cwd: options.cwd.clone(),
        home: options.home.clone(),
        config_dir: options.config_dir(),
    };
    let mut providers = if options.builtin_providers {
        builtin_providers()
    } else {
        Vec::new()
    };
    providers.extend(options.extra_providers);
    // A stable sort: equal priorities keep registration order.
    providers.sort_by_key(|p| std::cmp::Reverse(p.priority()));

    let trust = TrustStore::open(&ctx.config_dir);
    let mut discovered = Discovered::default();
    let mut load_options = options.load.clone();
    let (settings, problems) =
        plugin_settings::read(&ctx.config_dir.join("settings.json"), load_options.defaults);
    discovered.warnings.extend(problems);
    for (name, settings) in settings {
        load_options.per_plugin.entry(name).or_insert(settings);
    }
    let mut keys: Vec<String> = Vec::new();
    let mut accepted: Vec<(String, HookEntry)> = Vec::new();
    for provider in &providers {
        let found = match provider.discover(&ctx) {
            Ok(found) => found,
            Err(error) => {
                discovered.warnings.push(format!(
                    "hook provider `{}` failed: {error}",
                    provider.name()
                ));
                continue;
            }
        };
        discovered.warnings.extend(found.warnings);
        for entry in found.entries {
            let key = entry.key();
            if keys.contains(&key) {
                discovered.shadowed.push(entry);
                continue;
            }
            keys.push(key.clone());
            if options
                .disabled
                .iter()
                .any(|d| *d == key || *d == entry.name)
            {
                discovered.disabled.push(entry);
                continue;
            }
            if let Some(reason) = safety::writable_by_others(&entry.path) {
                discovered.loaded.errors.push(LoadFailure {
                    path: entry.path.to_string_lossy().into_owned(),
                    error: LoadError::UnsafePermissions { reason },
                });
                continue;
            }
            if entry.level == Level::Project && !options.trust_project {
                if let Err(reason) = trust.check(&entry.path) {
                    discovered.untrusted.push(UntrustedHook { entry, reason });
                    continue;
                }
            }
            accepted.push((entry.path.to_string_lossy().into_owned(), entry));
        }
    }
    for given in configured_paths {
        configured(given.as_ref(), &ctx, &mut accepted, &mut discovered);
    }
    load(accepted, &ctx.cwd, &load_options, &mut discovered);
    discovered
}

/// Adds a configured path: a folder of hooks, a hooks file, or a plugin.
fn configured(
    given: &str,
    ctx: &DiscoveryContext,
    accepted: &mut Vec<(String, HookEntry)>,
    discovered: &mut Discovered,
) {
    let resolved = match resolve_path(given, &ctx.cwd) {
        Ok(resolved) => resolved,
        Err(error) => {
            discovered.loaded.errors.push(LoadFailure {
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
    let plugin_hooks = resolved
        .is_dir()
        .then(|| plugin_folder_hooks(&resolved))
        .flatten();
    let resolved = plugin_hooks.unwrap_or(resolved);
    if resolved.is_dir() {
        let found = scan_hooks_folder(&resolved, level, "configured");
        discovered.warnings.extend(found.warnings);
        accepted.extend(
            found
                .entries
                .into_iter()
                .map(|e| (e.path.to_string_lossy().into_owned(), e)),
        );
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
    accepted.push((given.to_owned(), entry));
}

/// Loads the accepted entries, in order: plugins through `load_hooks_with` (which skips two
/// paths to one file), hooks files and scripts into the command hooks.
fn load(
    accepted: Vec<(String, HookEntry)>,
    cwd: &Path,
    load_options: &LoadOptions,
    discovered: &mut Discovered,
) {
    let mut seen_files: Vec<PathBuf> = Vec::new();
    let mut plugins: Vec<String> = Vec::new();
    for (given, entry) in accepted {
        if entry.kind != EntryKind::Plugin {
            let canonical =
                std::fs::canonicalize(&entry.path).unwrap_or_else(|_| entry.path.clone());
            if seen_files.contains(&canonical) {
                continue;
            }
            seen_files.push(canonical);
        }
        match entry.kind {
            EntryKind::Plugin => plugins.push(given),
            EntryKind::HooksFile => {
                discovered.commands.load_file(&entry.path);
            }
            EntryKind::Script(event) => {
                discovered.commands.add_script(&entry.path, event);
            }
        }
        discovered.entries.push(entry);
    }
    let loaded = load_hooks_with(&plugins, cwd, load_options);
    discovered.loaded.hooks = loaded.hooks;
    discovered.loaded.errors.extend(loaded.errors);
    discovered.loaded.duplicates = loaded.duplicates;
}
