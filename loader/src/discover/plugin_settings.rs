//! The user's settings for plugins: `<config>/settings.json`, `{"plugins": {NAME: {...}}}`,
//! where NAME is a library's file name (`libguard.so`) or a path as given. Only the user's
//! own configuration folder is read: a project cannot move a plugin into the agent's
//! process or lift its limits.

use std::{collections::BTreeMap, path::Path, time::Duration};

use serde::Deserialize;

use crate::{
    file::{read_checked, FileError, Limit, StrictModes},
    isolation::{Isolation, PluginSettings},
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
}

#[derive(Debug, Default, Deserialize)]
struct File {
    #[serde(default)]
    plugins: BTreeMap<String, Entry>,
}

/// Reads `path` (absent: no settings). Problems come back as warnings that name the file.
/// The file is read once with the checks of every hook file (a regular file others cannot
/// change: a writable settings file could move a plugin into the agent's process).
pub(crate) fn read(
    path: &Path,
    defaults: PluginSettings,
    home: Option<&Path>,
) -> (BTreeMap<String, PluginSettings>, Vec<String>) {
    let bytes = match read_checked(path, Limit::HooksFile, &mut StrictModes::new(home)) {
        Ok(file) => file.bytes,
        Err(FileError::NotFound { .. }) => return Default::default(),
        Err(e) => {
            return (
                BTreeMap::new(),
                vec![format!("{e}; plugin settings are ignored")],
            )
        }
    };
    let file: File = match serde_json::from_slice(&bytes) {
        Ok(file) => file,
        Err(e) => {
            return (
                BTreeMap::new(),
                vec![format!(
                    "{}: {e}; plugin settings are ignored (expected {{\"plugins\": {{\"libguard.so\": {{\"isolation\": \"in_process\", \"handler_timeout\": 2}}}}}})",
                    path.display()
                )],
            )
        }
    };
    let mut warnings = Vec::new();
    let settings = file
        .plugins
        .into_iter()
        .map(|(name, entry)| {
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
            (name, settings)
        })
        .collect();
    (settings, warnings)
}
