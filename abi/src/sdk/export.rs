//! What [`export_plugin!`](crate::export_plugin) expands to, apart from the exported static.

use abi_stable::{
    library::{RootModule, RootModuleResult},
    prefix_type::{PrefixRefTrait, PrefixTypeTrait},
    std_types::RResult,
};

use super::{guard, HandlerResult, HookApi};
use crate::ffi::{CallError, HostApiBox, PanicStrategy, PluginModule, PluginModuleRef};

/// A plugin as the export macro describes it. Not implemented by hand.
pub trait PluginEntry: 'static {
    /// The plugin crate's package name.
    const NAME: &'static str;
    /// The plugin crate's version.
    const VERSION: &'static str;
    /// The plugin crate's panic strategy.
    const PANIC_STRATEGY: PanicStrategy;
    /// The author's factory.
    fn factory(api: &mut HookApi) -> HandlerResult<()>;
}

extern "C" fn plugin_factory<P: PluginEntry>(host: HostApiBox) -> RResult<(), CallError> {
    guard::install_plugin_panic_hook();
    guard::guarded(|| {
        let mut api = HookApi::new(host);
        super::log::install(&api);
        P::factory(&mut api).map_err(|e| CallError::error(e.to_string()))
    })
    .into()
}

fn root_module<P: PluginEntry>() -> PluginModuleRef {
    PluginModule {
        panic_strategy: P::PANIC_STRATEGY,
        plugin_name: P::NAME.into(),
        plugin_version: P::VERSION.into(),
        factory: plugin_factory::<P>,
    }
    .leak_into_prefix()
}

pub(crate) extern "C" fn root_module_constructor<P: PluginEntry>() -> RootModuleResult {
    abi_stable::library::__call_root_module_loader(root_module::<P>)
}

// Keeps the names the macro relies on checked by the compiler.
const _: fn() = || {
    fn is_root_module<M: RootModule + PrefixRefTrait>() {}
    is_root_module::<PluginModuleRef>();
};

/// Exports a plugin from a `cdylib` crate: `export_plugin!(factory);` where
/// `fn factory(api: &mut HookApi) -> HandlerResult<()>` registers the plugin's handlers.
///
/// Use it once, at the root of the plugin crate. It exports the one symbol hosts look for,
/// records the crate's name, version and panic strategy, and runs `factory` inside a panic
/// guard when the host loads the plugin.
#[macro_export]
macro_rules! export_plugin {
    ($factory:path) => {
        #[doc(hidden)]
        pub struct __AgentHooksPlugin;

        impl $crate::__private::PluginEntry for __AgentHooksPlugin {
            const NAME: &'static str = ::core::env!("CARGO_PKG_NAME");
            const VERSION: &'static str = ::core::env!("CARGO_PKG_VERSION");
            const PANIC_STRATEGY: $crate::ffi::PanicStrategy = if ::core::cfg!(panic = "unwind") {
                $crate::ffi::PanicStrategy::Unwind
            } else {
                $crate::ffi::PanicStrategy::Abort
            };

            fn factory(api: &mut $crate::HookApi) -> $crate::HandlerResult<()> {
                $factory(api)
            }
        }

        /// The plugin's entry point, read by hosts (abi_stable's root-module loader symbol).
        #[doc(hidden)]
        #[unsafe(export_name = "_1as_0lib_1header_0root_bmodule_bloader")]
        pub static __AGENT_HOOKS_LIB_HEADER: $crate::__private::LibHeader =
            $crate::__private::lib_header::<__AgentHooksPlugin>();
    };
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_exported_symbol_is_the_one_abi_stable_looks_for() {
        assert_eq!(
            abi_stable::library::ROOT_MODULE_LOADER_NAME,
            "_1as_0lib_1header_0root_bmodule_bloader"
        );
    }
}
