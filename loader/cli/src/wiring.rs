//! agent-hooks' own wiring entries, which `install` writes into an agent's file: they hand
//! the event to agent-hooks, so agent-hooks never runs, lists or trusts them as hooks.

use agent_hooks::command_hook::{CommandHook, HookKind};

/// The header of agent-hooks' own HTTP entries (`install --http`): a hook that carries it
/// posts to the resident process, and is never run from another agent's file.
pub const AGENT_HOOKS_SECRET_HEADER: &str = "x-agent-hooks-secret";

/// Whether a hook is one of agent-hooks' own wiring entries, which `install` writes into an
/// agent's file: a command that runs `agent-hooks hook` (or the relay `agent-hooks-hook`),
/// or an HTTP hook that carries [`AGENT_HOOKS_SECRET_HEADER`]. Such an entry hands the event
/// to agent-hooks itself, so it is never run by agent-hooks, listed as a hook, or trusted.
pub fn is_wiring(hook: &CommandHook) -> bool {
    is_agent_hooks_entry(&hook.kind.label())
        || is_own_event_file(hook)
        || match &hook.kind {
            HookKind::Http(target) => target
                .headers
                .iter()
                .any(|(name, _)| name.eq_ignore_ascii_case(AGENT_HOOKS_SECRET_HEADER)),
            HookKind::Command { .. } | HookKind::HostCall(_) | HookKind::LongRunning { .. } => {
                false
            }
        }
}

/// Whether a hook is one of the hook files named after events that `install` writes for an
/// agent that reads such files (its command runs the file, whose text names agent-hooks'
/// command).
fn is_own_event_file(hook: &CommandHook) -> bool {
    hook.dialect.profile().event_file_names().is_some()
        && std::fs::read_to_string(&hook.source)
            .ok()
            .and_then(|text| hook.dialect.entry_file_command(&text))
            .is_some()
}

/// Whether a command hook's command is an `agent-hooks hook` entry.
pub fn is_agent_hooks_entry(command: &str) -> bool {
    let words: Vec<&str> = command
        .split(|c: char| c.is_whitespace())
        .filter(|w| !w.is_empty())
        .map(|w| w.trim_matches(|c| c == '\'' || c == '"'))
        .collect();
    words.windows(2).any(|pair| {
        let program = pair[0].rsplit('/').next().unwrap_or(pair[0]);
        (program == "agent-hooks" && pair[1] == "hook")
            || (program == "agent-hooks-hook" && pair[1] == "--agent")
    })
}
