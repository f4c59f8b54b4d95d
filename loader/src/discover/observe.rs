//! Observe mode: a hook whose answers are recorded and not applied, so that a guard can be
//! rolled out without stopping anyone's work. A hook observes when its hooks file says
//! `"observe": true`, its plugin's settings say so, or the user (or the project) observes
//! every hook. A required or managed hook never observes (its being applied is the point),
//! unless the managed policy's `decisions.observeRequired` is true; a hook set to observe
//! that may not is said in a warning.

use std::path::Path;

use super::{Discovered, Level};

/// Marks the hooks of `discovered` that observe: the plugins named in `plugins` (by path or
/// file name), the command hooks marked so, or every hook when `everywhere`.
pub(crate) fn apply(discovered: &mut Discovered, plugins: &[String], everywhere: bool) {
    let may_observe_required = discovered
        .policy
        .decisions
        .as_ref()
        .and_then(|d| d.get("observeRequired"))
        .and_then(serde_json::Value::as_bool)
        .unwrap_or(false);
    let managed: Vec<std::path::PathBuf> = discovered
        .entries
        .iter()
        .filter(|e| e.level == Level::Managed)
        .map(|e| e.path.clone())
        .collect();
    let mut refused = Vec::new();
    let mut refuse = |what: String, why: &str| {
        refused.push(format!(
            "{what} is set to observe, but it is {why}, so its answers are applied: the managed policy's `decisions.observeRequired` would allow it"
        ));
    };
    for hook in &mut discovered.loaded.hooks {
        let path = hook.path().to_owned();
        let named = plugins.iter().any(|name| {
            *name == path
                || Path::new(&path)
                    .file_name()
                    .is_some_and(|f| f == name.as_str())
        });
        if !(everywhere || named) {
            continue;
        }
        let is_managed = managed.iter().any(|m| *m == Path::new(&path));
        if !may_observe_required && (hook.is_required() || is_managed) {
            if named {
                let why = if is_managed { "managed" } else { "required" };
                refuse(format!("plugin {path}"), why);
            }
            continue;
        }
        hook.set_observing(true);
    }
    discovered.commands.observe_where(|hook| {
        if !(everywhere || hook.observe) {
            return false;
        }
        let is_managed = managed.contains(&hook.source);
        if !may_observe_required && (hook.required || is_managed) {
            if hook.observe {
                let why = if is_managed { "managed" } else { "required" };
                refuse(
                    format!("hook `{}` ({})", hook.command, hook.source.display()),
                    why,
                );
            }
            return false;
        }
        true
    });
    discovered.warnings.extend(refused);
}
