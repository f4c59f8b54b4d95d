//! Loading plugin libraries: [`load_hooks_with`] with its [`LoadOptions`] (a plugin
//! process each by default, or the agent's process), [`load_hooks`] and
//! [`load_hooks_in_process`] for the two defaults. Each path is resolved, duplicates skipped
//! ([`DuplicatePath`]), the file checked, opened through abi_stable and its factory run; a bad
//! path is an error entry ([`LoadFailure`]) and loading goes on. [`PluginConfig`] is a
//! plugin's configuration given by the host.

mod elf;
mod identity;
mod layout_report;
mod library;
mod options;
mod policy;
mod resolve;
mod sniff;

use std::{
    path::{Path, PathBuf},
    sync::Arc,
};

use agent_hooks_abi::ffi::PanicStrategy;

pub(crate) use crate::error::LoadError;
pub use crate::plugin_config::PluginConfig;
pub use options::LoadOptions;
pub(crate) use resolve::resolve_path;

use crate::{
    file::{read_checked, CheckedFile, Limit, SealedCopy, StrictModes},
    hook::{Hook, HookOrigin},
    host::{Forward, Outbox, PluginApi, Site},
    remote::{plugin_host_program, Isolation, PluginProcess, PluginSettings},
};
use identity::SeenPaths;
use library::Image;
use sniff::FileKind;

/// What [`load_hooks`] loaded, what failed, and what was skipped as a duplicate.
#[derive(Debug, Default)]
pub struct LoadHooksResult {
    /// The hooks that loaded, in the order their paths were given.
    pub hooks: Vec<Hook>,
    /// One entry per path that failed, in the order given.
    pub errors: Vec<LoadFailure>,
    /// Paths skipped because an earlier path names the same library.
    pub duplicates: Vec<DuplicatePath>,
}

/// A path that did not load, and why.
#[derive(Debug)]
pub struct LoadFailure {
    /// The path as the caller gave it.
    pub path: String,
    /// Why it did not load.
    pub error: LoadError,
}

/// A path skipped because it names a library already given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DuplicatePath {
    /// The path as the caller gave it.
    pub path: String,
    /// The earlier path, as given, that names the same library.
    pub same_as: String,
}

/// Loads the plugin libraries at `paths`, in order, each in a plugin process of its own
/// (see [`crate::isolation`]): a segfault, an abort, a hang or a leak in a plugin stays in
/// its process, which is restarted on the next event. The agent's `main` should call
/// [`serve_if_plugin_process`](crate::isolation::serve_if_plugin_process) first, so that its
/// own program runs those processes; without that call the `agent-hooks` command beside the
/// agent (or `$AGENT_HOOKS_PLUGIN_HOST`) runs them, and where there is none each plugin fails
/// to load with an error that names the line to add. To load plugins the user trusts into
/// the agent's own process, for speed, say so: [`load_hooks_in_process`].
///
/// Each path may be absolute, relative to `cwd`, start with `~` or `~/`, or contain `$VAR` /
/// `${VAR}`. Paths that name a library already given (the same absolute or canonical path,
/// or the same file through a hard link) are skipped and listed in `duplicates`. Every path
/// that fails becomes an entry in `errors`, and loading goes on with the next.
///
/// Each file is opened once without blocking and checked on the open descriptor (a regular
/// file, at most 512 MiB, not changeable by other users: see docs/discovery-and-trust.md,
/// "Reading hook files") before it is read; the library is then loaded from a sealed
/// private copy of the bytes that were checked, so that changing the file on disk cannot crash the agent.
pub fn load_hooks<I, P>(paths: I, cwd: impl AsRef<Path>) -> LoadHooksResult
where
    I: IntoIterator<Item = P>,
    P: AsRef<str>,
{
    load_hooks_with(paths, cwd, &LoadOptions::isolated())
}

/// [`load_hooks`], but into the agent's own process: the explicit choice for plugins the user
/// trusts, about 6x faster to start and 3x faster per call (BENCHMARKS.md, the `isolation`
/// rows), where a panic is caught inside the plugin and a handler past its deadline is
/// abandoned, but a segfault, an abort or a leak is the agent's.
///
/// Libraries are never unloaded. Loading one library twice in a process (through two calls)
/// runs its factory again over the same statics.
pub fn load_hooks_in_process<I, P>(paths: I, cwd: impl AsRef<Path>) -> LoadHooksResult
where
    I: IntoIterator<Item = P>,
    P: AsRef<str>,
{
    load_hooks_with(paths, cwd, &LoadOptions::in_process())
}

/// [`load_hooks`], with each plugin run where `options` says: by default in a plugin process
/// of its own (see [`crate::isolation`]). Plugin processes start in parallel. Either way the
/// code that runs is a sealed copy of the bytes that were checked.
pub fn load_hooks_with<I, P>(
    paths: I,
    cwd: impl AsRef<Path>,
    options: &LoadOptions,
) -> LoadHooksResult
where
    I: IntoIterator<Item = P>,
    P: AsRef<str>,
{
    let cwd = cwd.as_ref();
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let mut modes = StrictModes::new(home.as_deref());
    let mut loader = PluginLoader::new(cwd, options);
    for given in paths {
        let given = given.as_ref();
        match resolve_path(given, cwd) {
            Ok(resolved) => loader.add(given, &resolved, || {
                read_checked(&resolved, Limit::Library, &mut modes).map_err(LoadError::from)
            }),
            Err(error) => loader.fail(given, error),
        }
    }
    loader.finish()
}

/// One path's load, in the order given.
enum Slot {
    Loaded(Box<Hook>),
    Failed(LoadFailure),
    Duplicate(DuplicatePath),
    Pending(Box<PendingProcess>),
}

/// A plugin process started, its answer not yet read.
struct PendingProcess {
    given: String,
    resolved: PathBuf,
    process: Arc<PluginProcess>,
    api: PluginApi,
    settings: crate::remote::PluginSettings,
    starting: Result<crate::remote::Starting, LoadError>,
}

/// Loads plugins one by one into a [`LoadHooksResult`], skipping duplicates before reading;
/// plugin processes are started at once and their answers read in [`finish`](Self::finish).
pub(crate) struct PluginLoader<'a> {
    cwd: &'a Path,
    options: &'a LoadOptions,
    outbox: Arc<Outbox>,
    seen: SeenPaths,
    slots: Vec<Slot>,
}

impl<'a> PluginLoader<'a> {
    /// A loader whose plugins run with `cwd` as their working folder, where `options` says.
    pub(crate) fn new(cwd: &'a Path, options: &'a LoadOptions) -> Self {
        Self {
            cwd,
            options,
            outbox: Arc::new(Outbox::default()),
            seen: SeenPaths::default(),
            slots: Vec::new(),
        }
    }

    /// Loads the library `given` (resolved to `resolved`), whose checked bytes `read` gives,
    /// unless an earlier path named the same file.
    pub(crate) fn add(
        &mut self,
        given: &str,
        resolved: &Path,
        read: impl FnOnce() -> Result<CheckedFile, LoadError>,
    ) {
        if let Some(same_as) = self.seen.first_seen_as(given, resolved) {
            self.slots.push(Slot::Duplicate(DuplicatePath {
                path: given.to_owned(),
                same_as,
            }));
            return;
        }
        let file = match read().and_then(|file| check_image(resolved, &file.bytes).map(|()| file)) {
            Ok(file) => file,
            Err(error) => return self.fail(given, error),
        };
        let settings = self.options.settings_for(given, resolved);
        let site = Site {
            library: resolved.to_path_buf(),
            has_ui: self.options.has_ui,
            config: self.options.config_for(given, resolved).cloned(),
        };
        if settings.isolation == Isolation::InProcess {
            match load_plugin(
                given,
                resolved,
                &file.bytes,
                self.cwd,
                &self.outbox,
                settings,
                site,
            ) {
                Ok(hook) => self.slots.push(Slot::Loaded(Box::new(hook))),
                Err(error) => self.fail(given, error),
            }
            return;
        }
        let program = match plugin_host_program(self.options.plugin_host.as_deref()) {
            Ok(program) => program,
            Err(detail) => return self.fail(given, LoadError::PluginHost { detail }),
        };
        // The plugin process loads this copy, through the agent's descriptor: the bytes
        // checked here, also when it is started again.
        let image = match SealedCopy::new(&file.bytes) {
            Ok(image) => Arc::new(image),
            Err(e) => {
                return self.fail(
                    given,
                    LoadError::Open {
                        resolved: resolved.to_path_buf(),
                        detail: format!("cannot make a private copy of it to load: {e}"),
                    },
                )
            }
        };
        let api = PluginApi::new(self.outbox.clone(), self.cwd.to_path_buf(), given, site);
        let process = Arc::new(PluginProcess::new(
            given,
            resolved,
            image,
            self.cwd,
            program,
            settings,
            api.clone(),
        ));
        let starting = process.begin();
        self.slots.push(Slot::Pending(Box::new(PendingProcess {
            given: given.to_owned(),
            resolved: resolved.to_path_buf(),
            process,
            api,
            settings,
            starting,
        })));
    }

    /// Records that `given` failed.
    pub(crate) fn fail(&mut self, given: &str, error: LoadError) {
        self.slots.push(Slot::Failed(LoadFailure {
            path: given.to_owned(),
            error,
        }));
    }

    /// What was loaded, failed and skipped, in the order given (waiting for the plugin
    /// processes' answers).
    pub(crate) fn finish(self) -> LoadHooksResult {
        let mut result = LoadHooksResult::default();
        for slot in self.slots {
            let loaded = match slot {
                Slot::Loaded(hook) => Ok(*hook),
                Slot::Failed(failure) => Err(failure),
                Slot::Duplicate(duplicate) => {
                    result.duplicates.push(duplicate);
                    continue;
                }
                Slot::Pending(started) => {
                    let PendingProcess {
                        given,
                        resolved,
                        process,
                        api,
                        settings,
                        starting,
                    } = *started;
                    starting
                        .and_then(|starting| process.finish(starting))
                        .map(|registered| {
                            Hook::remote(
                                given.clone(),
                                resolved,
                                process,
                                registered,
                                api,
                                self.outbox.clone(),
                                settings,
                            )
                        })
                        .map_err(|error| LoadFailure { path: given, error })
                }
            };
            match loaded {
                Ok(hook) => result.hooks.push(hook),
                Err(failure) => result.errors.push(failure),
            }
        }
        result
    }
}

fn load_plugin(
    given: &str,
    resolved: &Path,
    bytes: &[u8],
    cwd: &Path,
    outbox: &Arc<Outbox>,
    settings: PluginSettings,
    site: Site,
) -> Result<Hook, LoadError> {
    let api = PluginApi::new(outbox.clone(), cwd.to_path_buf(), given, site);
    let origin = run_factory(resolved, Image::Bytes(bytes), &api)?;
    Ok(Hook::new(
        given.to_owned(),
        resolved.to_path_buf(),
        origin,
        api,
        outbox.clone(),
        settings,
    ))
}

/// Loads a plugin in a plugin process: as in the agent, but what the plugin sends or runs
/// goes to the agent through `forward`. The library is `image`, the agent's sealed copy of
/// what it checked (messages name `resolved`); without one, `resolved` is read with every
/// check.
pub(crate) fn load_plugin_forwarding(
    given: &str,
    resolved: &Path,
    image: Option<&Path>,
    cwd: &Path,
    forward: Arc<dyn Forward>,
) -> Result<Hook, LoadError> {
    let api = PluginApi::forwarding(cwd.to_path_buf(), given, forward);
    let origin = match image {
        // The agent checked these bytes and sealed them: load them as they are.
        Some(image) => run_factory(resolved, Image::Sealed(image), &api)?,
        None => {
            let home = std::env::var_os("HOME").map(PathBuf::from);
            let mut modes = StrictModes::new(home.as_deref());
            let bytes = read_checked(resolved, Limit::Library, &mut modes)?.bytes;
            check_image(resolved, &bytes)?;
            run_factory(resolved, Image::Bytes(&bytes), &api)?
        }
    };
    Ok(Hook::new(
        given.to_owned(),
        resolved.to_path_buf(),
        origin,
        api,
        Arc::default(),
        // The agent holds the deadline of each call: handlers run as they come.
        PluginSettings::inline(),
    ))
}

/// Opens the library from a sealed copy of its checked bytes, and runs its factory with
/// `api`.
fn run_factory(
    resolved: &Path,
    image: Image<'_>,
    api: &PluginApi,
) -> Result<HookOrigin, LoadError> {
    let module = library::open_plugin(resolved, image)?;
    if module.panic_strategy() != PanicStrategy::Unwind {
        return Err(LoadError::PanicAbort {
            resolved: resolved.to_path_buf(),
        });
    }
    let outcome = (module.factory())(api.to_object()).into_result();
    if let Some(unmet) = api.unmet_requirement() {
        // The factory most likely failed on it (`require(..)?`): this is the cause to report.
        drop(api.take_registry());
        return Err(LoadError::NeedsNewerHost {
            resolved: resolved.to_path_buf(),
            service: unmet.service,
            needs: unmet.needs,
        });
    }
    if let Err(error) = outcome {
        // Whatever it registered before failing is dropped with `api`.
        drop(api.take_registry());
        return Err(if error.panicked {
            LoadError::FactoryPanicked {
                message: error.message.into_string(),
            }
        } else {
            LoadError::FactoryFailed {
                message: error.message.into_string(),
            }
        });
    }
    Ok(HookOrigin::Plugin {
        name: module.plugin_name().to_string(),
        version: module.plugin_version().to_string(),
    })
}

/// Refuses what is not a shared library before the dynamic loader sees it, with advice.
fn check_image(resolved: &Path, bytes: &[u8]) -> Result<(), LoadError> {
    let resolved_buf = || resolved.to_path_buf();
    let head = &bytes[..bytes.len().min(sniff::HEAD_LEN as usize)];
    match sniff::classify(head) {
        FileKind::ElfShared => elf::check_segments(bytes).map_err(|detail| LoadError::Truncated {
            resolved: resolved_buf(),
            detail,
        }),
        FileKind::OtherBinaryFormat => Ok(()),
        FileKind::ElfExecutable => Err(LoadError::Executable {
            resolved: resolved_buf(),
        }),
        FileKind::Text(first_line) => Err(LoadError::Script {
            resolved: resolved_buf(),
            first_line,
        }),
        FileKind::ElfOther => Err(LoadError::NotALibrary {
            resolved: resolved_buf(),
            detail: "an ELF file that is neither a library nor a program".into(),
        }),
        FileKind::Unknown => Err(LoadError::NotALibrary {
            resolved: resolved_buf(),
            detail: "not a known binary format".into(),
        }),
    }
}
