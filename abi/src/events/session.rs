use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::setters;

/// `session_start`: a session started.
///
/// On the wire:
///
/// ```json
/// {
///     "source": "startup"
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SessionStartEvent {
    /// How it started: `startup`, `resume`, `clear`, `compact`, ...
    pub source: String,
}

setters!(SessionStartEvent {
    source: set<String>,
});

/// Added in 1.1: what a `session_start` handler may return: text for the agent's context,
/// combined with command hooks' `additionalContext` (native handlers first, in load order,
/// then command hooks in configuration order).
///
/// ```
/// # use agent_hooks_abi::prelude::*;
/// # fn register(api: &mut HookApi) {
/// api.on(|_: &SessionStartEvent, _ctx| {
///     Ok(Some(SessionStartResult::default().context("The build runs with `make ci`.")))
/// });
/// # }
/// ```
///
/// A host of interface 1.0 takes no result here: the SDK does not send it, and reports the
/// first as this handler's error ("session_start context is not supported by this agent
/// (interface 1.0; it needs 1.1): the context was not added").
///
/// On the wire:
///
/// ```json
/// {
///     "context": "The build runs with `make ci`."
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct SessionStartResult {
    /// Text added to the agent's context.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
}

setters!(SessionStartResult {
    context: some<String>,
});

/// `session_before_switch`: a switch to another session is about to happen.
///
/// On the wire:
///
/// ```json
/// {
///     "reason": "resume",
///     "target_session_file": "/home/me/.agent/sessions/2026-11-30.jsonl"
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SessionBeforeSwitchEvent {
    /// `new` or `resume`.
    pub reason: String,
    /// The session file switched to, when resuming.
    pub target_session_file: Option<String>,
}

setters!(SessionBeforeSwitchEvent {
    reason: set<String>,
    target_session_file: some<String>,
});

/// What a `session_before_switch` handler may return.
///
/// On the wire:
///
/// ```json
/// {
///     "cancel": true
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SessionBeforeSwitchResult {
    /// Cancel the switch (later handlers do not run).
    pub cancel: bool,
}

setters!(SessionBeforeSwitchResult {
    cancel: val<bool>,
});

/// `session_switch`: the agent switched sessions.
///
/// On the wire:
///
/// ```json
/// {
///     "reason": "new",
///     "previous_session_file": "/home/me/.agent/sessions/2026-11-29.jsonl"
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SessionSwitchEvent {
    /// `new` or `resume`.
    pub reason: String,
    /// The session file left.
    pub previous_session_file: Option<String>,
}

setters!(SessionSwitchEvent {
    reason: set<String>,
    previous_session_file: some<String>,
});

/// `session_before_branch`: a branch is about to be made at `entry_id`.
///
/// On the wire:
///
/// ```json
/// {
///     "entry_id": "e-42"
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SessionBeforeBranchEvent {
    /// The entry branched from.
    pub entry_id: String,
}

setters!(SessionBeforeBranchEvent {
    entry_id: set<String>,
});

/// What a `session_before_branch` handler may return.
///
/// On the wire:
///
/// ```json
/// {
///     "cancel": false,
///     "skip_conversation_restore": true
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SessionBeforeBranchResult {
    /// Cancel the branch (later handlers do not run).
    pub cancel: bool,
    /// Branch without restoring the conversation into the editor.
    pub skip_conversation_restore: bool,
}

setters!(SessionBeforeBranchResult {
    cancel: val<bool>,
    skip_conversation_restore: val<bool>,
});

/// `session_branch`: a branch was made.
///
/// On the wire:
///
/// ```json
/// {
///     "entry_id": "e-42",
///     "previous_session_file": null
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SessionBranchEvent {
    /// The entry branched from.
    pub entry_id: String,
    /// The session file left.
    pub previous_session_file: Option<String>,
}

setters!(SessionBranchEvent {
    entry_id: set<String>,
    previous_session_file: some<String>,
});

/// `session_before_compact`: a compaction is about to run.
///
/// On the wire:
///
/// ```json
/// {
///     "custom_instructions": "keep the test plan",
///     "entries_to_compact": 120,
///     "tokens_before": 182000
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SessionBeforeCompactEvent {
    /// Instructions the user gave for this compaction.
    pub custom_instructions: Option<String>,
    /// How many entries would be summarised.
    pub entries_to_compact: u64,
    /// Tokens in the context before compaction.
    pub tokens_before: u64,
}

setters!(SessionBeforeCompactEvent {
    custom_instructions: some<String>,
    entries_to_compact: val<u64>,
    tokens_before: val<u64>,
});

/// A compaction a hook provides instead of the agent's own.
///
/// On the wire:
///
/// ```json
/// {
///     "summary": "We fixed the parser.",
///     "first_kept_entry_id": "e-97",
///     "details": {
///         "files": [
///             "src/parse.rs"
///         ]
///     }
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Compaction {
    /// The summary that replaces the compacted entries.
    pub summary: String,
    /// The first entry kept after the summary.
    pub first_kept_entry_id: Option<String>,
    /// Data kept with the compaction.
    pub details: Value,
}

setters!(Compaction {
    summary: set<String>,
    first_kept_entry_id: some<String>,
    details: set<Value>,
});

/// What a `session_before_compact` handler may return.
///
/// On the wire:
///
/// ```json
/// {
///     "cancel": false,
///     "compaction": {
///         "summary": "We fixed the parser.",
///         "first_kept_entry_id": null,
///         "details": null
///     }
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SessionBeforeCompactResult {
    /// Cancel the compaction (later handlers do not run).
    pub cancel: bool,
    /// Use this compaction instead of the agent's.
    pub compaction: Option<Compaction>,
}

setters!(SessionBeforeCompactResult {
    cancel: val<bool>,
    compaction: some<Compaction>,
});

/// `session.compacting`: a compaction is being prepared.
///
/// On the wire:
///
/// ```json
/// {
///     "custom_instructions": null
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SessionCompactingEvent {
    /// Instructions the user gave for this compaction.
    pub custom_instructions: Option<String>,
}

setters!(SessionCompactingEvent {
    custom_instructions: some<String>,
});

/// What a `session.compacting` handler may return (the last one wins).
///
/// On the wire:
///
/// ```json
/// {
///     "context": [
///         "The user prefers small commits."
///     ],
///     "prompt": null,
///     "preserve_data": {
///         "todo": 3
///     }
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SessionCompactingResult {
    /// Extra lines of context for the summariser.
    pub context: Vec<String>,
    /// A replacement summarisation prompt.
    pub prompt: Option<String>,
    /// Data to keep across the compaction.
    pub preserve_data: Option<Value>,
}

setters!(SessionCompactingResult {
    context: val<Vec<String>>,
    prompt: some<String>,
    preserve_data: some<Value>,
});

/// `session_compact`: a compaction finished.
///
/// On the wire:
///
/// ```json
/// {
///     "summary": "We fixed the parser.",
///     "from_hook": false
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SessionCompactEvent {
    /// The summary produced, if any.
    pub summary: Option<String>,
    /// Whether a hook provided the compaction.
    pub from_hook: bool,
}

setters!(SessionCompactEvent {
    summary: some<String>,
    from_hook: val<bool>,
});

/// `session_before_tree`: a move in the session tree is about to happen.
///
/// On the wire:
///
/// ```json
/// {
///     "target_id": "e-12",
///     "old_leaf_id": "e-40"
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SessionBeforeTreeEvent {
    /// The entry moved to.
    pub target_id: String,
    /// The current leaf.
    pub old_leaf_id: Option<String>,
}

setters!(SessionBeforeTreeEvent {
    target_id: set<String>,
    old_leaf_id: some<String>,
});

/// A summary of the branch left behind.
///
/// On the wire:
///
/// ```json
/// {
///     "summary": "Tried a regex parser; too slow.",
///     "details": null
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct BranchSummary {
    /// The summary text.
    pub summary: String,
    /// Data kept with it.
    pub details: Value,
}

setters!(BranchSummary {
    summary: set<String>,
    details: set<Value>,
});

/// What a `session_before_tree` handler may return.
///
/// On the wire:
///
/// ```json
/// {
///     "cancel": false,
///     "summary": {
///         "summary": "Tried a regex parser; too slow.",
///         "details": null
///     }
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SessionBeforeTreeResult {
    /// Cancel the move (later handlers do not run).
    pub cancel: bool,
    /// A summary of the branch left behind.
    pub summary: Option<BranchSummary>,
}

setters!(SessionBeforeTreeResult {
    cancel: val<bool>,
    summary: some<BranchSummary>,
});

/// `session_tree`: a move in the session tree happened.
///
/// On the wire:
///
/// ```json
/// {
///     "new_leaf_id": "e-12",
///     "old_leaf_id": "e-40"
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SessionTreeEvent {
    /// The new leaf.
    pub new_leaf_id: Option<String>,
    /// The leaf left.
    pub old_leaf_id: Option<String>,
}

setters!(SessionTreeEvent {
    new_leaf_id: some<String>,
    old_leaf_id: some<String>,
});

/// `session_shutdown`: the session is ending.
///
/// On the wire:
///
/// ```json
/// {
///     "reason": "exit"
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SessionShutdownEvent {
    /// Why: `exit`, `clear`, `logout`, ...
    pub reason: String,
}

setters!(SessionShutdownEvent {
    reason: set<String>,
});
