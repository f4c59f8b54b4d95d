use abi_stable::{
    declare_root_module_statics,
    library::RootModule,
    package_version_strings,
    sabi_types::VersionStrings,
    std_types::{RResult, RStr},
    StableAbi,
};

use super::{CallError, HostApiBox};

/// The plugin's factory as it crosses the boundary: it receives the host API and
/// registers the plugin's handlers through it.
pub type PluginFactory = extern "C" fn(host: HostApiBox) -> RResult<(), CallError>;

/// How the plugin library was compiled to handle panics.
///
/// Only `Unwind` lets the SDK turn a panic into an error value; a plugin built with
/// `panic = "abort"` would take the whole agent down on its first panic, so hosts refuse it.
#[repr(u8)]
#[derive(StableAbi, Debug, Clone, Copy, PartialEq, Eq)]
pub enum PanicStrategy {
    /// `panic = "unwind"`, the default.
    Unwind,
    /// `panic = "abort"`.
    Abort,
}

/// The root module every plugin library exports (through [`export_plugin!`](crate::export_plugin)).
///
/// A prefix type: fields may be added after the last one in a later version of this crate,
/// and a host reads only the fields it knows.
#[repr(C)]
#[derive(StableAbi)]
#[sabi(kind(Prefix(prefix_ref = PluginModuleRef)))]
#[sabi(missing_field(option))]
pub struct PluginModule {
    /// The panic strategy of the crate that exported this module (the plugin crate).
    pub panic_strategy: PanicStrategy,
    /// The plugin crate's package name (`CARGO_PKG_NAME`).
    pub plugin_name: RStr<'static>,
    /// The plugin crate's version (`CARGO_PKG_VERSION`).
    pub plugin_version: RStr<'static>,
    /// Registers the plugin's handlers. Never unwinds: the SDK catches panics inside.
    #[sabi(last_prefix_field)]
    pub factory: extern "C" fn(host: HostApiBox) -> RResult<(), CallError>,
}

impl RootModule for PluginModuleRef {
    declare_root_module_statics! {PluginModuleRef}
    const BASE_NAME: &'static str = "agent_hooks_plugin";
    const NAME: &'static str = "agent-hooks plugin";
    const VERSION_STRINGS: VersionStrings = package_version_strings!();
}
