//! How plugins are loaded: the settings of each, the plugin-host program, what the factory
//! is told, and each plugin's configuration.

use std::{collections::BTreeMap, path::PathBuf};

use crate::remote::{Isolation, PluginSettings};

/// How [`load_hooks_with`](crate::load_hooks_with) loads plugins.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// The settings of every plugin without settings of its own.
    pub defaults: PluginSettings,
    /// Settings per plugin, by the path as given or by the library's file name.
    pub per_plugin: BTreeMap<String, PluginSettings>,
    /// The plugin-host program; see [`serve_if_plugin_process`](crate::isolation::serve_if_plugin_process) for the default.
    pub plugin_host: Option<PathBuf>,
    /// Whether the agent has an interactive UI: what a plugin's factory is told
    /// (`HookApi::plugin_info`). False by default (the `agent-hooks` command has none).
    pub has_ui: bool,
    /// Configuration objects per plugin, by the path as given or by the library's file
    /// name (discovery fills it from the settings' `plugins.NAME.config`): what
    /// `HookApi::config` gives the plugin, before a `lib<name>.toml`/`.json` next to it.
    pub configs: BTreeMap<String, crate::plugin_config::PluginConfig>,
}

impl LoadOptions {
    /// Every plugin in a process of its own (the default).
    pub fn isolated() -> Self {
        Self::default()
    }

    /// Every plugin in the agent's process.
    pub fn in_process() -> Self {
        let mut options = Self::default();
        options.defaults.isolation = Isolation::InProcess;
        options
    }

    /// The settings of the plugin given as `given`, resolved to `resolved`.
    pub fn settings_for(&self, given: &str, resolved: &std::path::Path) -> PluginSettings {
        by_name(&self.per_plugin, given, resolved)
            .copied()
            .unwrap_or(self.defaults)
    }

    /// The configuration object of the plugin given as `given`, resolved to `resolved`.
    pub fn config_for(
        &self,
        given: &str,
        resolved: &std::path::Path,
    ) -> Option<&crate::plugin_config::PluginConfig> {
        by_name(&self.configs, given, resolved)
    }
}

/// The entry of `map` for the plugin given as `given` (first), or its library's file name.
fn by_name<'m, T>(
    map: &'m BTreeMap<String, T>,
    given: &str,
    resolved: &std::path::Path,
) -> Option<&'m T> {
    let file_name = resolved
        .file_name()
        .map(|n| n.to_string_lossy().into_owned());
    map.get(given)
        .or_else(|| file_name.and_then(|n| map.get(&n)))
}
