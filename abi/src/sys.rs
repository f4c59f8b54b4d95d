//! The crate's one `unsafe` code: the library header a plugin exports. Everything else in
//! the crate is safe Rust (`#![deny(unsafe_code)]` at the root; only this module allows
//! it). The `#[unsafe(export_name)]` of [`export_plugin!`](crate::export_plugin) expands in
//! the plugin's crate, not here.

use abi_stable::library::{CheckTypeLayout, LibHeader};

use crate::{
    ffi::PluginModuleRef,
    sdk::export::{root_module_constructor, PluginEntry},
};

/// The library header that abi_stable's loader reads from a plugin.
pub const fn lib_header<P: PluginEntry>() -> LibHeader {
    // SAFETY: `from_constructor` needs a constructor whose module was erased from a
    // `PluginModuleRef`; `root_module_constructor` builds exactly that, through abi_stable's
    // own wrapper (which also catches a panic in it).
    unsafe {
        LibHeader::from_constructor::<PluginModuleRef>(
            root_module_constructor::<P>,
            CheckTypeLayout::Yes,
        )
    }
}
