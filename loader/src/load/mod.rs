//! Loading plugin libraries: resolve each path, skip duplicates, check the file, open it
//! through abi_stable, run its factory. A bad path is an error entry; loading goes on.

mod elf;
mod error;
mod identity;
mod layout_report;
mod library;
mod resolve;
mod sealed;
mod sniff;

use std::{path::Path, sync::Arc};

use agent_hooks_abi::ffi::PanicStrategy;

pub use error::LoadError;
pub(crate) use resolve::resolve_path;

use crate::{
    file::{read_checked, CheckedFile, Limit, StrictModes},
    hook::{Hook, HookOrigin},
    host::{Outbox, PluginApi},
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

/// Loads the plugin libraries at `paths`, in order.
///
/// Each path may be absolute, relative to `cwd`, start with `~` or `~/`, or contain `$VAR` /
/// `${VAR}`. Paths that name a library already given (the same absolute or canonical path,
/// or the same file through a hard link) are skipped and listed in `duplicates`. Every path
/// that fails becomes an entry in `errors`, and loading goes on with the next.
///
/// Each file is opened once without blocking and checked on the open descriptor (a regular
/// file, at most 512 MiB, not changeable by other users: see the README's permission
/// section) before it is read; the library is then loaded from a sealed private copy of the
/// bytes that were checked, so that changing the file on disk cannot crash the agent.
///
/// Libraries are never unloaded. Loading one library twice in a process (through two calls)
/// runs its factory again over the same statics.
pub fn load_hooks<I, P>(paths: I, cwd: impl AsRef<Path>) -> LoadHooksResult
where
    I: IntoIterator<Item = P>,
    P: AsRef<str>,
{
    let cwd = cwd.as_ref();
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    let mut modes = StrictModes::new(home.as_deref());
    let mut loader = PluginLoader::new(cwd);
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

/// Loads plugins one by one into a [`LoadHooksResult`], skipping duplicates before reading.
pub(crate) struct PluginLoader<'a> {
    cwd: &'a Path,
    outbox: Arc<Outbox>,
    seen: SeenPaths,
    result: LoadHooksResult,
}

impl<'a> PluginLoader<'a> {
    /// A loader whose plugins run with `cwd` as their working folder.
    pub(crate) fn new(cwd: &'a Path) -> Self {
        Self {
            cwd,
            outbox: Arc::new(Outbox::default()),
            seen: SeenPaths::default(),
            result: LoadHooksResult::default(),
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
            self.result.duplicates.push(DuplicatePath {
                path: given.to_owned(),
                same_as,
            });
            return;
        }
        match read().and_then(|file| load_plugin(given, resolved, &file, self.cwd, &self.outbox)) {
            Ok(hook) => self.result.hooks.push(hook),
            Err(error) => self.fail(given, error),
        }
    }

    /// Records that `given` failed.
    pub(crate) fn fail(&mut self, given: &str, error: LoadError) {
        self.result.errors.push(LoadFailure {
            path: given.to_owned(),
            error,
        });
    }

    /// What was loaded, failed and skipped.
    pub(crate) fn finish(self) -> LoadHooksResult {
        self.result
    }
}

fn load_plugin(
    given: &str,
    resolved: &Path,
    file: &CheckedFile,
    cwd: &Path,
    outbox: &Arc<Outbox>,
) -> Result<Hook, LoadError> {
    check_image(resolved, &file.bytes)?;
    let module = library::open_plugin(resolved, &file.bytes)?;
    if module.panic_strategy() != PanicStrategy::Unwind {
        return Err(LoadError::PanicAbort {
            resolved: resolved.to_path_buf(),
        });
    }
    let api = PluginApi::new(outbox.clone(), cwd.to_path_buf(), given);
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
    let origin = HookOrigin::Plugin {
        name: module.plugin_name().to_string(),
        version: module.plugin_version().to_string(),
    };
    Ok(Hook::new(
        given.to_owned(),
        resolved.to_path_buf(),
        origin,
        api,
        outbox.clone(),
    ))
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
