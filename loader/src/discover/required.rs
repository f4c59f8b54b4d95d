//! Required hooks: hooks the user says must run. When one is not running (it failed to
//! load, was refused, is untrusted, disabled, shadowed, or was not found), every
//! `tool_call` (and so every `PreToolUse`) is blocked with a message that names it and why,
//! instead of the agent going on without its guard.

use std::path::Path;

use agent_hooks_abi::events::{ToolCallEvent, ToolCallResult};

use super::{Discovered, HookEntry};
use crate::{command_hook::Severity, runner::HookRunner};

/// A required hook that is not running, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequiredFailure {
    /// The id the user gave (a `type:tool:name` key, a file name or a path).
    pub id: String,
    /// Why it is not running.
    pub reason: String,
}

impl RequiredFailure {
    /// The reason every tool call is blocked.
    pub fn block_reason(&self) -> String {
        format!(
            "required hook {} is not running ({}), so every tool call is blocked until it is fixed",
            self.id, self.reason
        )
    }
}

fn names(entry: &HookEntry, id: &str) -> bool {
    entry.key() == id || entry.name == id || entry.path == Path::new(id)
}

/// Whether the failed `path` is the hook `id` (its path, its file name, or a key whose
/// name part is its file name).
fn path_names(path: &str, id: &str) -> bool {
    let name = id.rsplit(':').next().unwrap_or(id);
    path == id || Path::new(path).file_name().is_some_and(|n| n == name)
}

/// The required ids of `discovered` that are not running, in the order given.
pub(crate) fn failures(discovered: &Discovered, required: &[String]) -> Vec<RequiredFailure> {
    required
        .iter()
        .filter_map(|id| {
            reason(discovered, id).map(|reason| RequiredFailure {
                id: id.clone(),
                reason,
            })
        })
        .collect()
}

fn reason(found: &Discovered, id: &str) -> Option<String> {
    if let Some(failure) = found.loaded.errors.iter().find(|f| path_names(&f.path, id)) {
        return Some(format!("it did not load: {}", failure.error));
    }
    if let Some(entry) = found.entries.iter().find(|e| names(e, id)) {
        let given = entry.path.to_string_lossy();
        if let Some(failure) = found.loaded.errors.iter().find(|f| f.path == given) {
            return Some(format!("it did not load: {}", failure.error));
        }
        let issue = found
            .commands
            .issues()
            .iter()
            .find(|i| i.file == entry.path && i.severity == Severity::Error);
        return issue.map(|i| format!("its file has an error: {i}"));
    }
    if let Some(hook) = found.untrusted.iter().find(|u| names(&u.entry, id)) {
        return Some(format!("it is untrusted: {}", hook.reason));
    }
    if found.disabled.iter().any(|e| names(e, id)) {
        return Some("it is disabled".into());
    }
    if found.shadowed.iter().any(|e| names(e, id)) {
        return Some("an earlier hook with the same key shadows it".into());
    }
    Some("no such hook was found".into())
}

/// Adds to `runner` a hook that blocks every tool call for `failure`.
pub(crate) fn add_blocker(runner: &mut HookRunner, failure: &RequiredFailure) {
    let reason = failure.block_reason();
    // The factory neither fails nor panics.
    let _ = runner.add_in_process(&format!("required:{}", failure.id), move |api| {
        api.on(move |_: &ToolCallEvent, _| Ok(Some(ToolCallResult::block(reason.clone()))));
        Ok(())
    });
}
