//! The user's settings for plugins: `<config>/settings.json`, `{"plugins": {NAME: {...}}}`,
//! where NAME is a library's file name (`libguard.so`) or a path as given. Only the user's
//! own configuration folder is read: a project cannot move a plugin into the agent's
//! process or lift its limits. An entry's `config` object is the plugin's own
//! configuration (`HookApi::config`).

use std::{collections::BTreeMap, path::Path, time::Duration};

use serde::Deserialize;
use serde_json::Value;

use crate::{
    file::{read_checked, FileError, Limit, StrictModes},
    plugin_config::PluginConfig,
    remote::{Isolation, PluginSettings},
};

/// One plugin's entry; what it leaves out keeps its default.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    isolation: Option<Isolation>,
    /// Seconds.
    factory_timeout: Option<f64>,
    handler_timeout: Option<f64>,
    command_timeout: Option<f64>,
    renderer_timeout: Option<f64>,
    /// MiB of address space for its process.
    max_memory_mb: Option<u64>,
    max_open_files: Option<u64>,
    in_process_deadline: Option<bool>,
    /// Its answers are recorded, not applied (docs/decisions.md).
    observe: Option<bool>,
    /// The plugin's own configuration: a JSON object handed to it as is.
    config: Option<Value>,
}

#[derive(Debug, Default, Deserialize)]
struct File {
    #[serde(default)]
    plugins: BTreeMap<String, Entry>,
}

/// What the settings file says of each plugin, by name.
#[derive(Default)]
pub(crate) struct Read {
    /// Isolation, timeouts and limits.
    pub(crate) settings: BTreeMap<String, PluginSettings>,
    /// The plugins' own configuration objects.
    pub(crate) configs: BTreeMap<String, PluginConfig>,
    /// The plugins set to observe: their answers recorded, not applied.
    pub(crate) observed: Vec<String>,
    /// Problems, each naming the file.
    pub(crate) warnings: Vec<String>,
}

/// Reads `path` (absent: no settings). Problems come back as warnings that name the file.
/// The file is read once with the checks of every hook file (a regular file others cannot
/// change: a writable settings file could move a plugin into the agent's process).
pub(crate) fn read(path: &Path, defaults: PluginSettings, home: Option<&Path>) -> Read {
    let bytes = match read_checked(path, Limit::HooksFile, &mut StrictModes::new(home)) {
        Ok(file) => file.bytes,
        Err(FileError::NotFound { .. }) => return Read::default(),
        Err(e) => {
            return Read {
                warnings: vec![format!("{e}; plugin settings are ignored")],
                ..Read::default()
            }
        }
    };
    let file: File = match serde_json::from_slice(&bytes) {
        Ok(file) => file,
        Err(e) => {
            return Read {
                warnings: vec![format!(
                    "{}: {e}; plugin settings are ignored (expected {{\"plugins\": {{\"libguard.so\": {{\"isolation\": \"in_process\", \"handler_timeout\": 2, \"config\": {{...}}}}}}}})",
                    path.display()
                )],
                ..Read::default()
            }
        }
    };
    let mut warnings = Vec::new();
    let mut configs = BTreeMap::new();
    let mut observed = Vec::new();
    let settings = file
        .plugins
        .into_iter()
        .map(|(name, entry)| {
            match entry.config {
                Some(value @ Value::Object(_)) => {
                    let source = format!("plugins.\"{name}\".config in {}", path.display());
                    configs.insert(name.clone(), PluginConfig { value, source });
                }
                Some(_) => warnings.push(format!(
                    "{}: plugins.{name}.config must be an object; it is ignored",
                    path.display()
                )),
                None => {}
            }
            let mut settings = defaults;
            let mut seconds = |value: Option<f64>, field: &str, slot: &mut Duration| {
                if let Some(value) = value {
                    match Duration::try_from_secs_f64(value) {
                        Ok(d) if !d.is_zero() => *slot = d,
                        _ => warnings.push(format!(
                            "{}: plugins.{name}.{field} must be a positive number of seconds; the default is used",
                            path.display()
                        )),
                    }
                }
            };
            seconds(entry.factory_timeout, "factory_timeout", &mut settings.factory_timeout);
            seconds(entry.handler_timeout, "handler_timeout", &mut settings.handler_timeout);
            seconds(entry.command_timeout, "command_timeout", &mut settings.command_timeout);
            seconds(entry.renderer_timeout, "renderer_timeout", &mut settings.renderer_timeout);
            if let Some(isolation) = entry.isolation {
                settings.isolation = isolation;
            }
            if let Some(mb) = entry.max_memory_mb {
                settings.limits.address_space = Some(mb.saturating_mul(1 << 20));
            }
            if let Some(files) = entry.max_open_files {
                settings.limits.open_files = Some(files);
            }
            if let Some(deadline) = entry.in_process_deadline {
                settings.in_process_deadline = deadline;
            }
            if entry.observe == Some(true) {
                observed.push(name.clone());
            }
            (name, settings)
        })
        .collect();
    Read {
        settings,
        configs,
        warnings,
        observed,
    }
}
