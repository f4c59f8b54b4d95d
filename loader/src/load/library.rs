//! Opening a plugin library and checking it through abi_stable. The calls that open it and
//! read its header are `sys::library`'s.

use std::path::Path;

use abi_stable::library::{LibHeader, LibraryError, RootModuleError};
use agent_hooks_abi::ffi::PluginModuleRef;

use super::LoadError;
use crate::file::SealedCopy;

/// Where the checked bytes of a library are.
pub(crate) enum Image<'a> {
    /// In memory: they are copied into a sealed copy, which is loaded.
    Bytes(&'a [u8]),
    /// In a sealed copy already (the agent's, seen from a plugin process), loaded as is.
    Sealed(&'a Path),
}

/// Opens the library whose checked bytes are `image` (read from `path`) from a sealed copy
/// of them, checks its interface version and layout, and returns its root module. Messages
/// name `path`. The library is never unloaded: Rust thread-locals make unloading a cdylib
/// unsound on Linux (and it is a no-op on macOS), so its handle is leaked on purpose, also
/// when a check fails after the library was opened.
pub(crate) fn open_plugin(path: &Path, image: Image<'_>) -> Result<PluginModuleRef, LoadError> {
    let library = match image {
        Image::Bytes(bytes) => {
            let copy = SealedCopy::new(bytes).map_err(|e| LoadError::Open {
                resolved: path.to_path_buf(),
                detail: format!("cannot make a private copy of it to load: {e}"),
            })?;
            let library = open_library(path, copy.path())?;
            // The copy stays open for the life of the process, as the library stays loaded:
            // glibc knows a loaded library by its path first, so a later copy given the same
            // descriptor number (the same `/proc/self/fd/N`) would be taken for this one.
            copy.keep();
            library
        }
        Image::Sealed(sealed) => {
            std::fs::File::open(sealed).map_err(|e| LoadError::Open {
                resolved: path.to_path_buf(),
                detail: format!(
                    "the plugin process cannot open the agent's checked copy of it ({e})"
                ),
            })?;
            open_library(path, sealed)?
        }
    };
    let header = crate::sys::library::leak_root_module_header(library).map_err(|_| {
        LoadError::NotAPlugin {
            resolved: path.to_path_buf(),
        }
    })?;
    let header: &'static LibHeader = header.upgrade().map_err(|e| library_error(path, e))?;
    super::policy::check(
        path,
        header.version_strings(),
        agent_hooks_abi::INTERFACE_VERSION,
    )?;
    header
        .init_root_module::<PluginModuleRef>()
        .map_err(|e| library_error(path, e))
}

/// Opens the (checked) library at `copy`, naming `path` in errors.
fn open_library(path: &Path, copy: &Path) -> Result<libloading::Library, LoadError> {
    crate::sys::library::open(copy).map_err(|e| open_error(path, copy, e))
}

fn open_error(path: &Path, copy: &Path, error: libloading::Error) -> LoadError {
    // libloading says "dlopen failed"; dlerror()'s text is its source. It names the copy,
    // which the user never gave: name their file instead.
    let mut detail = error.to_string();
    let mut source = std::error::Error::source(&error);
    while let Some(cause) = source {
        detail = format!("{detail}: {cause}");
        source = cause.source();
    }
    let detail = detail.replace(
        copy.to_string_lossy().as_ref(),
        path.to_string_lossy().as_ref(),
    );
    let resolved = path.to_path_buf();
    if detail.contains("position-independent executable") {
        LoadError::Executable { resolved }
    } else if detail.contains("file too short")
        || detail.contains("past end of file")
        || detail.contains("truncated")
    {
        LoadError::Truncated {
            resolved,
            detail: dlerror_tail(&detail),
        }
    } else if detail.contains("invalid ELF header") {
        LoadError::NotALibrary {
            resolved,
            detail: "invalid ELF header".into(),
        }
    } else {
        LoadError::Open {
            resolved,
            detail: dlerror_tail(&detail),
        }
    }
}

/// dlerror() repeats the path before its message; keep the message.
fn dlerror_tail(detail: &str) -> String {
    detail
        .rsplit_once(": ")
        .map_or(detail, |(_, tail)| tail)
        .to_owned()
}

fn library_error(path: &Path, error: LibraryError) -> LoadError {
    let resolved = path.to_path_buf();
    match error {
        // The policy check comes first; abi_stable's own rule is stricter only in `0.y`.
        LibraryError::IncompatibleVersionNumber {
            expected_version,
            actual_version,
            ..
        } => super::policy::refuse(&resolved, actual_version, expected_version).unwrap_or(
            LoadError::ModuleInit {
                resolved,
                detail: format!(
                    "abi_stable refused its interface version {actual_version} (this agent has {expected_version})"
                ),
            },
        ),
        LibraryError::AbiInstability(report) => {
            let full = report.to_string();
            LoadError::LayoutMismatch {
                resolved,
                summary: super::layout_report::summarize(&full),
                full,
            }
        }
        LibraryError::InvalidAbiHeader(header) => LoadError::IncompatibleAbiStable {
            resolved,
            detail: format!("{header:?}"),
        },
        LibraryError::RootModule { err, .. } => LoadError::ModuleInit {
            resolved,
            detail: match err {
                RootModuleError::Unwound => "its module constructor panicked".to_owned(),
                other => other.to_string(),
            },
        },
        other => LoadError::ModuleInit {
            resolved,
            detail: other.to_string(),
        },
    }
}
