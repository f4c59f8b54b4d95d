//! Opening a plugin library with the platform loader, and finding abi_stable's root-module
//! header in it.

use std::path::Path;

use abi_stable::library::{AbiHeaderRef, ROOT_MODULE_LOADER_NAME_WITH_NUL};

/// Opens the library at `copy` (the sealed copy of checked bytes). Opening runs the library's
/// initialisers: only call it on a file the user named as a hook plugin, after checking that
/// it is a shared object.
#[cfg(unix)]
pub(crate) fn open(copy: &Path) -> Result<libloading::Library, libloading::Error> {
    use libloading::os::unix::{Library, RTLD_LOCAL, RTLD_NOW};
    // SAFETY: opening a library runs its initialisers. We only open files the user named as
    // hook plugins, after checking they are shared objects; `RTLD_NOW` resolves every symbol
    // up front (a missing one fails here, not mid-call) and `RTLD_LOCAL` keeps one plugin's
    // symbols from satisfying another's. Thread-safe: glibc serialises dlopen internally.
    unsafe { Library::open(Some(copy), RTLD_NOW | RTLD_LOCAL) }.map(libloading::Library::from)
}

/// Opens the library at `copy`; see the Unix version.
#[cfg(not(unix))]
pub(crate) fn open(copy: &Path) -> Result<libloading::Library, libloading::Error> {
    // SAFETY: as on Unix; the platform loader's defaults are used.
    unsafe { libloading::Library::new(copy) }
}

/// abi_stable's root-module header of `library`, which stays loaded for the life of the
/// process: its handle is leaked here, also when the symbol is missing (Rust thread-locals
/// make unloading a cdylib unsound on Linux, and it is a no-op on macOS).
pub(crate) fn leak_root_module_header(
    library: libloading::Library,
) -> Result<AbiHeaderRef, libloading::Error> {
    // SAFETY: the symbol is abi_stable's root-module loader static, whose address abi_stable
    // reads as an `AbiHeaderRef` (a pointer to the header at the start of a `LibHeader`).
    // A library that exports the name with another type is caught by `upgrade`, which checks
    // the header's magic before anything else is read. The reference stays valid because
    // the library is never unloaded (below).
    let header = unsafe {
        library
            .get::<AbiHeaderRef>(ROOT_MODULE_LOADER_NAME_WITH_NUL.as_bytes())
            .map(|symbol| *symbol)
    };
    std::mem::forget(library);
    header
}
