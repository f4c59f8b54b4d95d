//! Loading plugin libraries: resolve each path, skip duplicates, check the file, open it
//! through abi_stable, run its factory. A bad path is an error entry; loading goes on.

mod elf;
mod error;
mod identity;
mod layout_report;
mod library;
mod resolve;
mod sniff;

use std::{
    io::{ErrorKind, Read},
    path::Path,
    sync::Arc,
};

use agent_hooks_abi::ffi::PanicStrategy;

pub use error::LoadError;
pub(crate) use resolve::resolve_path;

use crate::{
    hook::{Hook, HookOrigin},
    host::{Forward, Outbox, PluginApi},
    isolation::{plugin_host_program, Isolation, LoadOptions, PluginProcess, PluginSettings},
};
use identity::SeenPaths;
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

/// Loads the plugin libraries at `paths`, in order, in the agent's process.
///
/// Each path may be absolute, relative to `cwd`, start with `~` or `~/`, or contain `$VAR` /
/// `${VAR}`. Paths that name a library already given (the same absolute or canonical path,
/// or the same file through a hard link) are skipped and listed in `duplicates`. Every path
/// that fails becomes an entry in `errors`, and loading goes on with the next.
///
/// Libraries are never unloaded. Loading one library twice in a process (through two calls)
/// runs its factory again over the same statics. To run plugins in processes of their own,
/// use [`load_hooks_with`].
pub fn load_hooks<I, P>(paths: I, cwd: impl AsRef<Path>) -> LoadHooksResult
where
    I: IntoIterator<Item = P>,
    P: AsRef<str>,
{
    load_hooks_with(paths, cwd, &LoadOptions::in_process())
}

/// [`load_hooks`], with each plugin run where `options` says: by default in a plugin process
/// of its own (see [`crate::isolation`]). Plugin processes start in parallel.
pub fn load_hooks_with<I, P>(
    paths: I,
    cwd: impl AsRef<Path>,
    options: &LoadOptions,
) -> LoadHooksResult
where
    I: IntoIterator<Item = P>,
    P: AsRef<str>,
{
    enum Slot {
        Done(Result<Hook, LoadFailure>),
        Duplicate(DuplicatePath),
        Starting(
            String,
            std::path::PathBuf,
            Arc<PluginProcess>,
            PluginApi,
            crate::isolation::PluginSettings,
            Result<crate::isolation::Starting, LoadError>,
        ),
    }
    let cwd = cwd.as_ref();
    let outbox = Arc::new(Outbox::default());
    let mut seen = SeenPaths::default();
    let mut slots = Vec::new();
    for given in paths {
        let given = given.as_ref();
        let failed = |error| {
            Slot::Done(Err(LoadFailure {
                path: given.to_owned(),
                error,
            }))
        };
        let resolved = match resolve_path(given, cwd) {
            Ok(resolved) => resolved,
            Err(error) => {
                slots.push(failed(error));
                continue;
            }
        };
        if let Some(same_as) = seen.first_seen_as(given, &resolved) {
            slots.push(Slot::Duplicate(DuplicatePath {
                path: given.to_owned(),
                same_as,
            }));
            continue;
        }
        let settings = options.settings_for(given, &resolved);
        if settings.isolation == Isolation::InProcess {
            slots.push(
                match load_plugin(given, &resolved, cwd, &outbox, settings) {
                    Ok(hook) => Slot::Done(Ok(hook)),
                    Err(error) => failed(error),
                },
            );
            continue;
        }
        let program = match plugin_host_program(options.plugin_host.as_deref()) {
            Ok(program) => program,
            Err(detail) => {
                slots.push(failed(LoadError::PluginHost { detail }));
                continue;
            }
        };
        let api = PluginApi::new(outbox.clone(), cwd.to_path_buf(), given);
        let process = Arc::new(PluginProcess::new(
            given,
            &resolved,
            cwd,
            program,
            settings,
            api.clone(),
        ));
        let starting = process.begin();
        slots.push(Slot::Starting(
            given.to_owned(),
            resolved,
            process,
            api,
            settings,
            starting,
        ));
    }
    let mut result = LoadHooksResult::default();
    for slot in slots {
        let loaded = match slot {
            Slot::Done(loaded) => loaded,
            Slot::Duplicate(duplicate) => {
                result.duplicates.push(duplicate);
                continue;
            }
            Slot::Starting(given, resolved, process, api, settings, starting) => starting
                .and_then(|starting| process.finish(starting))
                .map(|registered| {
                    Hook::remote(
                        given.clone(),
                        resolved,
                        process,
                        registered,
                        api,
                        outbox.clone(),
                        settings,
                    )
                })
                .map_err(|error| LoadFailure { path: given, error }),
        };
        match loaded {
            Ok(hook) => result.hooks.push(hook),
            Err(failure) => result.errors.push(failure),
        }
    }
    result
}

fn load_plugin(
    given: &str,
    resolved: &Path,
    cwd: &Path,
    outbox: &Arc<Outbox>,
    settings: PluginSettings,
) -> Result<Hook, LoadError> {
    let api = PluginApi::new(outbox.clone(), cwd.to_path_buf(), given);
    let origin = run_factory(resolved, &api)?;
    Ok(Hook::new(
        given.to_owned(),
        resolved.to_path_buf(),
        origin,
        api,
        outbox.clone(),
        settings,
        settings.in_process_deadline,
    ))
}

/// Loads a plugin in a plugin process: as in the agent, but what the plugin sends or runs
/// goes to the agent through `forward`.
pub(crate) fn load_plugin_forwarding(
    given: &str,
    resolved: &Path,
    cwd: &Path,
    forward: Arc<dyn Forward>,
) -> Result<Hook, LoadError> {
    let api = PluginApi::forwarding(cwd.to_path_buf(), given, forward);
    let origin = run_factory(resolved, &api)?;
    // The agent holds the deadline of each call: handlers run as they come.
    Ok(Hook::new(
        given.to_owned(),
        resolved.to_path_buf(),
        origin,
        api,
        Arc::default(),
        PluginSettings::default(),
        false,
    ))
}

/// Checks and opens the library, and runs its factory with `api`.
fn run_factory(resolved: &Path, api: &PluginApi) -> Result<HookOrigin, LoadError> {
    check_file(resolved)?;
    let module = library::open_plugin(resolved)?;
    if module.panic_strategy() != PanicStrategy::Unwind {
        return Err(LoadError::PanicAbort {
            resolved: resolved.to_path_buf(),
        });
    }
    let outcome = (module.factory())(api.to_object()).into_result();
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
fn check_file(resolved: &Path) -> Result<(), LoadError> {
    let resolved_buf = || resolved.to_path_buf();
    let io_error = |e: std::io::Error| match e.kind() {
        ErrorKind::NotFound => LoadError::NotFound {
            resolved: resolved_buf(),
        },
        ErrorKind::PermissionDenied => LoadError::PermissionDenied {
            resolved: resolved_buf(),
        },
        ErrorKind::IsADirectory => LoadError::IsDirectory {
            resolved: resolved_buf(),
        },
        _ => LoadError::Open {
            resolved: resolved_buf(),
            detail: e.to_string(),
        },
    };
    // One open, one read of the head: the kind of file and, for ELF, its headers.
    let mut file = std::fs::File::open(resolved).map_err(io_error)?;
    let metadata = file.metadata().map_err(io_error)?;
    if metadata.is_dir() {
        return Err(LoadError::IsDirectory {
            resolved: resolved_buf(),
        });
    }
    let mut head = Vec::new();
    (&mut file)
        .take(sniff::HEAD_LEN)
        .read_to_end(&mut head)
        .map_err(io_error)?;
    match sniff::classify(&head) {
        FileKind::ElfShared => {
            match elf::check_segments(&mut file, &head, metadata.len()).map_err(io_error)? {
                Ok(()) => Ok(()),
                Err(detail) => Err(LoadError::Truncated {
                    resolved: resolved_buf(),
                    detail,
                }),
            }
        }
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
