use serde::{Deserialize, Serialize};
use serde_json::Value;

/// `session_start`: a session started.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SessionStartEvent {
    /// How it started: `startup`, `resume`, `clear`, `compact`, ...
    pub source: String,
}

/// `session_before_switch`: a switch to another session is about to happen.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SessionBeforeSwitchEvent {
    /// `new` or `resume`.
    pub reason: String,
    /// The session file switched to, when resuming.
    pub target_session_file: Option<String>,
}

/// What a `session_before_switch` handler may return.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SessionBeforeSwitchResult {
    /// Cancel the switch (later handlers do not run).
    pub cancel: bool,
}

/// `session_switch`: the agent switched sessions.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SessionSwitchEvent {
    /// `new` or `resume`.
    pub reason: String,
    /// The session file left.
    pub previous_session_file: Option<String>,
}

/// `session_before_branch`: a branch is about to be made at `entry_id`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SessionBeforeBranchEvent {
    /// The entry branched from.
    pub entry_id: String,
}

/// What a `session_before_branch` handler may return.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SessionBeforeBranchResult {
    /// Cancel the branch (later handlers do not run).
    pub cancel: bool,
    /// Branch without restoring the conversation into the editor.
    pub skip_conversation_restore: bool,
}

/// `session_branch`: a branch was made.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SessionBranchEvent {
    /// The entry branched from.
    pub entry_id: String,
    /// The session file left.
    pub previous_session_file: Option<String>,
}

/// `session_before_compact`: a compaction is about to run.
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

/// A compaction a hook provides instead of the agent's own.
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

/// What a `session_before_compact` handler may return.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SessionBeforeCompactResult {
    /// Cancel the compaction (later handlers do not run).
    pub cancel: bool,
    /// Use this compaction instead of the agent's.
    pub compaction: Option<Compaction>,
}

/// `session.compacting`: a compaction is being prepared.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SessionCompactingEvent {
    /// Instructions the user gave for this compaction.
    pub custom_instructions: Option<String>,
}

/// What a `session.compacting` handler may return (the last one wins).
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

/// `session_compact`: a compaction finished.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SessionCompactEvent {
    /// The summary produced, if any.
    pub summary: Option<String>,
    /// Whether a hook provided the compaction.
    pub from_hook: bool,
}

/// `session_before_tree`: a move in the session tree is about to happen.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SessionBeforeTreeEvent {
    /// The entry moved to.
    pub target_id: String,
    /// The current leaf.
    pub old_leaf_id: Option<String>,
}

/// A summary of the branch left behind.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct BranchSummary {
    /// The summary text.
    pub summary: String,
    /// Data kept with it.
    pub details: Value,
}

/// What a `session_before_tree` handler may return.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SessionBeforeTreeResult {
    /// Cancel the move (later handlers do not run).
    pub cancel: bool,
    /// A summary of the branch left behind.
    pub summary: Option<BranchSummary>,
}

/// `session_tree`: a move in the session tree happened.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SessionTreeEvent {
    /// The new leaf.
    pub new_leaf_id: Option<String>,
    /// The leaf left.
    pub old_leaf_id: Option<String>,
}

/// `session_shutdown`: the session is ending.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SessionShutdownEvent {
    /// Why: `exit`, `clear`, `logout`, ...
    pub reason: String,
}
