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
    // Whether a hook observes: it `asked` (or every hook does), and it is neither required
    // nor managed unless the policy allows those; one that asked and may not is said.
    let mut observes = |asked: bool,
                        required: bool,
                        is_managed: bool,
                        what: &dyn Fn() -> String| {
        if !(everywhere || asked) {
            return false;
        }
        if may_observe_required || !(required || is_managed) {
            return true;
        }
        if asked {
            let why = if is_managed { "managed" } else { "required" };
            refused.push(format!(
                "{} is set to observe, but it is {why}, so its answers are applied: the managed policy's `decisions.observeRequired` would allow it",
                what()
            ));
        }
        false
    };
    for hook in &mut discovered.loaded.hooks {
        let path = hook.path().to_owned();
        let named = plugins.iter().any(|name| {
            *name == path
                || Path::new(&path)
                    .file_name()
                    .is_some_and(|f| f == name.as_str())
        });
        let is_managed = managed.iter().any(|m| *m == Path::new(&path));
        let observe = observes(named, hook.is_required(), is_managed, &|| {
            format!("plugin {path}")
        });
        hook.set_observing(observe);
    }
    discovered.commands.observe_where(|hook| {
        observes(
            hook.observe,
            hook.required,
            managed.contains(&hook.source),
            &|| format!("hook `{}` ({})", hook.kind.label(), hook.source.display()),
        )
    });
    discovered.warnings.extend(refused);
}
