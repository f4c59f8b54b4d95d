//! The deliberate differences: where agent-hooks does not do what the real agent does, on
//! purpose (docs/real-agents.md, "Deliberate differences", says why). Each is asserted as
//! it is: both sides' values are written here, so a change on either side fails the suite
//! until this table (and the doc) is brought up to date.

use serde_json::Value;

use crate::agents::Agent::{self, Claude, Codex, Gemini, Qwen};

/// One deliberate difference, as both sides show it.
pub struct Expected {
    pub agent: Value,
    pub agent_hooks: Value,
    pub why: &'static str,
}

/// The agent fails open against the hook's evident intent; agent-hooks stays stricter.
const STRICTER: &str =
    "the agent fails open against the hook's evident intent; agent-hooks stays stricter";
/// A field only the agent can know (its own state); agent-hooks' runner has no source for it.
const AGENT_STATE: &str =
    "a field of the agent's own state, which agent-hooks' runner has no source for";
/// A field of another dialect that means the same is read (be liberal in what is read),
/// where the agent does not know it.
const LIBERAL: &str = "agent-hooks reads the other dialects' fields that mean the same; the agent does not know this one and runs the tool";
/// Codex applies `updatedInput` only with `permissionDecision: allow`.
const REWRITE: &str = "Codex runs the original input when updatedInput comes without permissionDecision allow; agent-hooks runs the rewrite the hook asked for";
/// Two rewriting hooks: the agent keeps the one that finished last, a race.
const ORDER: &str =
    "agent-hooks keeps the last rewrite in configuration order, not the last to finish (a race)";
/// Gemini CLI starts a new agent turn after AfterAgent blocks; agent-hooks' runner continues
/// the same one.
const CONTINUATION: &str = "after a stop hook blocks, Gemini CLI starts a new agent turn (BeforeAgent again); agent-hooks' runner continues the same turn";

/// (agent, case, fact, the agent's value, agent-hooks' value, why).
type Row = (
    Agent,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
);

#[rustfmt::skip]
const TABLE: &[Row] = &[
    // Claude Code 2.1.332.
    (Claude, "no answers", "stdin fields of PostToolUse",
        r#"["cwd","duration_ms","effort","hook_event_name","permission_mode","prompt_id","session_id","tool_input","tool_name","tool_response","tool_use_id","transcript_path"]"#,
        r#"["cwd","hook_event_name","permission_mode","prompt_id","session_id","tool_input","tool_name","tool_response","tool_use_id","transcript_path"]"#, AGENT_STATE),
    (Claude, "no answers", "stdin fields of PreToolUse",
        r#"["cwd","effort","hook_event_name","permission_mode","prompt_id","session_id","tool_input","tool_name","tool_use_id","transcript_path"]"#,
        r#"["cwd","hook_event_name","permission_mode","prompt_id","session_id","tool_input","tool_name","tool_use_id","transcript_path"]"#, AGENT_STATE),
    (Claude, "no answers", "stdin fields of Stop",
        r#"["background_tasks","cwd","effort","hook_event_name","last_assistant_message","permission_mode","prompt_id","session_crons","session_id","stop_hook_active","transcript_path"]"#,
        r#"["cwd","hook_event_name","permission_mode","prompt_id","session_id","stop_hook_active","transcript_path"]"#, AGENT_STATE),
    (Claude, "pre: decision deny", "hooks that ran",
        RAN_ON,
        RAN_OFF, STRICTER),
    (Claude, "pre: decision deny", "model was told",
        "[]",
        r#"["M-decision-deny"]"#, STRICTER),
    (Claude, "pre: decision deny", "tool ran, with what input",
        r#""ran""#,
        "null", STRICTER),
    (Claude, "pre: continue false", "hooks that ran",
        r#"{"PostToolUse":1,"PreToolUse":1,"SessionEnd":1,"SessionStart":1,"UserPromptSubmit":1}"#,
        r#"{"PreToolUse":1,"SessionEnd":1,"SessionStart":1,"UserPromptSubmit":1}"#, STRICTER),
    (Claude, "pre: continue false", "tool ran, with what input",
        r#""ran""#,
        "null", STRICTER),
    (Claude, "pre: two hooks rewrite, the first in the file finishes last", "tool ran, with what input",
        r#""rewritten-a""#,
        r#""rewritten-b""#, ORDER),
    // Codex CLI 0.171.0.
    (Codex, "no answers", "stdin fields of PostToolUse",
        r#"["cwd","hook_event_name","model","permission_mode","session_id","tool_input","tool_name","tool_response","tool_use_id","transcript_path","turn_id"]"#,
        r#"["cwd","hook_event_name","permission_mode","session_id","tool_input","tool_name","tool_response","tool_use_id","transcript_path","turn_id"]"#, AGENT_STATE),
    (Codex, "no answers", "stdin fields of PreToolUse",
        r#"["cwd","hook_event_name","model","permission_mode","session_id","tool_input","tool_name","tool_use_id","transcript_path","turn_id"]"#,
        r#"["cwd","hook_event_name","permission_mode","session_id","tool_input","tool_name","tool_use_id","transcript_path","turn_id"]"#, AGENT_STATE),
    (Codex, "no answers", "stdin fields of SessionStart",
        r#"["cwd","hook_event_name","model","permission_mode","session_id","source","transcript_path"]"#,
        r#"["cwd","hook_event_name","permission_mode","session_id","source","transcript_path"]"#, AGENT_STATE),
    (Codex, "no answers", "stdin fields of Stop",
        r#"["cwd","hook_event_name","last_assistant_message","model","permission_mode","session_id","stop_hook_active","transcript_path","turn_id"]"#,
        r#"["cwd","hook_event_name","permission_mode","session_id","stop_hook_active","transcript_path","turn_id"]"#, AGENT_STATE),
    (Codex, "no answers", "stdin fields of UserPromptSubmit",
        r#"["cwd","hook_event_name","model","permission_mode","prompt","session_id","transcript_path","turn_id"]"#,
        r#"["cwd","hook_event_name","permission_mode","prompt","session_id","transcript_path","turn_id"]"#, AGENT_STATE),
    (Codex, "pre: exit 2, nothing on stderr", "hooks that ran",
        CODEX_RAN_ON,
        CODEX_RAN_OFF, STRICTER),
    (Codex, "pre: exit 2, nothing on stderr", "tool ran, with what input",
        r#""ran""#,
        "null", STRICTER),
    (Codex, "pre: decision deny", "hooks that ran",
        CODEX_RAN_ON,
        CODEX_RAN_OFF, STRICTER),
    (Codex, "pre: decision deny", "model was told",
        "[]",
        r#"["M-decision-deny"]"#, STRICTER),
    (Codex, "pre: decision deny", "tool ran, with what input",
        r#""ran""#,
        "null", STRICTER),
    (Codex, "pre: permissionDecision deny without a reason", "hooks that ran",
        CODEX_RAN_ON,
        CODEX_RAN_OFF, STRICTER),
    (Codex, "pre: permissionDecision deny without a reason", "tool ran, with what input",
        r#""ran""#,
        "null", STRICTER),
    (Codex, "pre: continue false", "hooks that ran",
        CODEX_RAN_ON,
        r#"{"PreToolUse":1,"SessionStart":1,"UserPromptSubmit":1}"#, STRICTER),
    (Codex, "pre: continue false", "model requests",
        "2",
        "1", STRICTER),
    (Codex, "pre: continue false", "tool ran, with what input",
        r#""ran""#,
        "null", STRICTER),
    (Codex, "pre: two hooks rewrite, the first in the file finishes last", "tool ran, with what input",
        r#""rewritten-a""#,
        r#""rewritten-b""#, ORDER),
    (Codex, "pre: permissionDecision ask", "hooks that ran",
        CODEX_RAN_ON,
        CODEX_RAN_OFF, STRICTER),
    (Codex, "pre: permissionDecision ask", "model was told",
        "[]",
        r#"["M-ask"]"#, STRICTER),
    (Codex, "pre: permissionDecision ask", "tool ran, with what input",
        r#""ran""#,
        "null", STRICTER),
    (Codex, "pre: updatedInput alone", "tool ran, with what input",
        r#""ran""#,
        r#""rewritten""#, REWRITE),
    (Codex, "post: continue false", "hooks that ran",
        CODEX_RAN_ON,
        r#"{"PostToolUse":1,"PreToolUse":1,"SessionStart":1,"UserPromptSubmit":1}"#, STRICTER),
    (Codex, "post: continue false", "model requests",
        "2",
        "1", STRICTER),
    (Codex, "post: continue false", "model was told",
        r#"["M-post-stop"]"#,
        "[]", STRICTER),
    // Gemini CLI 0.61.0.
    (Gemini, "no answers", "stdin fields of AfterAgent",
        r#"["cwd","hook_event_name","prompt","prompt_response","session_id","stop_hook_active","timestamp","transcript_path"]"#,
        r#"["cwd","hook_event_name","session_id","stop_hook_active","timestamp","transcript_path"]"#, AGENT_STATE),
    (Gemini, "no answers", "stdin values of AfterAgent",
        r#"{"hook_event_name":"AfterAgent","prompt":"Run the scripted command, then say you are done.","stop_hook_active":false,"cwd":"<run>/project"}"#,
        r#"{"hook_event_name":"AfterAgent","stop_hook_active":false,"cwd":"<run>/project"}"#, AGENT_STATE),
    (Gemini, "pre: exit 2, nothing on stderr", "hooks that ran",
        GEMINI_RAN_ON,
        GEMINI_RAN_OFF, STRICTER),
    (Gemini, "pre: exit 2, nothing on stderr", "tool ran, with what input",
        r#""ran""#,
        "null", STRICTER),
    (Gemini, "pre: permissionDecision deny", "hooks that ran",
        GEMINI_RAN_ON,
        GEMINI_RAN_OFF, LIBERAL),
    (Gemini, "pre: permissionDecision deny", "model was told",
        "[]",
        r#"["M-permission-deny"]"#, LIBERAL),
    (Gemini, "pre: permissionDecision deny", "tool ran, with what input",
        r#""ran""#,
        "null", LIBERAL),
    (Gemini, "pre: permissionDecision deny without a reason", "hooks that ran",
        GEMINI_RAN_ON,
        GEMINI_RAN_OFF, LIBERAL),
    (Gemini, "pre: permissionDecision deny without a reason", "tool ran, with what input",
        r#""ran""#,
        "null", LIBERAL),
    (Gemini, "pre: permissionDecision ask", "hooks that ran",
        GEMINI_RAN_ON,
        GEMINI_RAN_OFF, LIBERAL),
    (Gemini, "pre: permissionDecision ask", "model was told",
        "[]",
        r#"["M-ask"]"#, LIBERAL),
    (Gemini, "pre: permissionDecision ask", "tool ran, with what input",
        r#""ran""#,
        "null", LIBERAL),
    (Gemini, "pre: decision ask", "model requests",
        "1",
        "2", ASK_HOST),
    (Gemini, "pre: decision ask", "model was told",
        "[]",
        r#"["M-decision-ask"]"#, ASK_HOST),
    (Gemini, "stop: decision block, once", "hooks that ran",
        GEMINI_AGAIN,
        GEMINI_SAME_TURN, CONTINUATION),
    (Gemini, "stop: exit 2, once", "hooks that ran",
        GEMINI_AGAIN,
        GEMINI_SAME_TURN, CONTINUATION),
    // Qwen Code 0.24.4.
    (Qwen, "no answers", "hooks that ran", QWEN_RAN_ON, QWEN_REPLAY_ON, QWEN_PROMPT_AGAIN),
    (Qwen, "no answers", "stdin fields of PostToolUse",
        r#"["cwd","duration_ms","hook_event_name","permission_mode","prompt_id","session_id","timestamp","tool_call_id","tool_input","tool_name","tool_response","tool_use_id","transcript_path"]"#,
        r#"["cwd","hook_event_name","permission_mode","prompt_id","session_id","timestamp","tool_input","tool_name","tool_response","tool_use_id","transcript_path"]"#, AGENT_STATE),
    (Qwen, "no answers", "stdin fields of PreToolUse",
        r#"["cwd","hook_event_name","permission_mode","prompt_id","session_id","timestamp","tool_call_id","tool_input","tool_name","tool_use_id","transcript_path"]"#,
        r#"["cwd","hook_event_name","permission_mode","prompt_id","session_id","timestamp","tool_input","tool_name","tool_use_id","transcript_path"]"#, AGENT_STATE),
    (Qwen, "no answers", "stdin fields of SessionStart",
        r#"["cwd","hook_event_name","model","permission_mode","session_id","source","timestamp","transcript_path"]"#,
        r#"["cwd","hook_event_name","permission_mode","session_id","source","timestamp","transcript_path"]"#, AGENT_STATE),
    (Qwen, "no answers", "stdin fields of Stop",
        r#"["background_tasks","context_limit","context_usage","crons","cwd","hook_event_name","input_tokens","last_assistant_message","permission_mode","prompt_id","session_id","stop_hook_active","timestamp","transcript_path"]"#,
        r#"["cwd","hook_event_name","permission_mode","prompt_id","session_id","stop_hook_active","timestamp","transcript_path"]"#, AGENT_STATE),
    (Qwen, "no answers", "stdin fields of UserPromptSubmit",
        r#"["cwd","hook_event_name","permission_mode","prompt","prompt_id","session_id","submitted_prompt","timestamp","transcript_path"]"#,
        r#"["cwd","hook_event_name","permission_mode","prompt","prompt_id","session_id","timestamp","transcript_path"]"#, AGENT_STATE),
    (Qwen, "pre: exit 2 with a reason on stderr", "hooks that ran", QWEN_RAN_OFF, QWEN_REPLAY_OFF, QWEN_PROMPT_AGAIN),
    (Qwen, "pre: exit 1", "hooks that ran", QWEN_RAN_ON, QWEN_REPLAY_ON, QWEN_PROMPT_AGAIN),
    (Qwen, "pre: decision block", "hooks that ran", QWEN_RAN_OFF, QWEN_REPLAY_OFF, QWEN_PROMPT_AGAIN),
    (Qwen, "pre: permissionDecision deny", "hooks that ran", QWEN_RAN_OFF, QWEN_REPLAY_OFF, QWEN_PROMPT_AGAIN),
    (Qwen, "pre: updatedInput", "hooks that ran", QWEN_RAN_ON, QWEN_REPLAY_ON, QWEN_PROMPT_AGAIN),
    (Qwen, "pre: updatedInput", "tool ran, with what input", r#""ran""#, r#""rewritten""#, QWEN_NO_REWRITE),
    (Qwen, "post: exit 2", "hooks that ran", QWEN_RAN_ON, QWEN_REPLAY_ON, QWEN_PROMPT_AGAIN),
    (Qwen, "post: exit 2", "model was told", "[]", r#"["M-post-exit2"]"#, QWEN_AFTER_A_TOOL),
    (Qwen, "post: additionalContext", "hooks that ran", QWEN_RAN_ON, QWEN_REPLAY_ON, QWEN_PROMPT_AGAIN),
    (Qwen, "stop: decision block, once", "hooks that ran",
        r#"{"PostToolUse":1,"PreToolUse":1,"SessionStart":1,"Stop":2,"UserPromptSubmit":3}"#,
        r#"{"PostToolUse":1,"PreToolUse":1,"SessionStart":1,"Stop":2,"UserPromptSubmit":1}"#, QWEN_PROMPT_AGAIN),
];

/// Gemini CLI's hooks that ran when the tool ran, and when agent-hooks blocked it.
const GEMINI_RAN_ON: &str = r#"{"AfterAgent":1,"AfterTool":1,"BeforeAgent":1,"BeforeTool":1,"SessionEnd":1,"SessionStart":1}"#;
const GEMINI_RAN_OFF: &str =
    r#"{"AfterAgent":1,"BeforeAgent":1,"BeforeTool":1,"SessionEnd":1,"SessionStart":1}"#;
/// Gemini CLI's hooks after AfterAgent blocked once: a new turn; agent-hooks: the same one.
const GEMINI_AGAIN: &str = r#"{"AfterAgent":2,"AfterTool":1,"BeforeAgent":2,"BeforeTool":1,"SessionEnd":1,"SessionStart":1}"#;
const GEMINI_SAME_TURN: &str = r#"{"AfterAgent":2,"AfterTool":1,"BeforeAgent":1,"BeforeTool":1,"SessionEnd":1,"SessionStart":1}"#;

/// Claude Code's hooks that ran when the tool ran, and when agent-hooks blocked it.
const RAN_ON: &str = r#"{"PostToolUse":1,"PreToolUse":1,"SessionEnd":1,"SessionStart":1,"Stop":1,"UserPromptSubmit":1}"#;
const RAN_OFF: &str =
    r#"{"PreToolUse":1,"SessionEnd":1,"SessionStart":1,"Stop":1,"UserPromptSubmit":1}"#;
/// The same for Codex, which has no SessionEnd.
const CODEX_RAN_ON: &str =
    r#"{"PostToolUse":1,"PreToolUse":1,"SessionStart":1,"Stop":1,"UserPromptSubmit":1}"#;
const CODEX_RAN_OFF: &str = r#"{"PreToolUse":1,"SessionStart":1,"Stop":1,"UserPromptSubmit":1}"#;

/// A question nobody can answer: the host decides what follows.
const ASK_HOST: &str = "a question with nobody to answer it: agent-hooks' tool wrapper refuses the call and tells the model the question, and the model is asked again; Gemini CLI headless ends the session (under the agent, through agent-hooks, it does that too)";

/// The deliberate differences of the agent's session through agent-hooks (`install
/// --take-over`): the agent's own value, then what the agent does under agent-hooks.
#[rustfmt::skip]
const BRIDGED: &[Row] = &[
    // Claude Code 2.1.332.
    (Claude, "pre: decision deny", "hooks that ran", RAN_ON, RAN_OFF, STRICTER),
    (Claude, "pre: decision deny", "model was told", "[]", r#"["M-decision-deny"]"#, STRICTER),
    (Claude, "pre: decision deny", "tool ran, with what input", r#""ran""#, "null", STRICTER),
    (Claude, "pre: continue false", "hooks that ran",
        r#"{"PostToolUse":1,"PreToolUse":1,"SessionEnd":1,"SessionStart":1,"UserPromptSubmit":1}"#,
        r#"{"PreToolUse":1,"SessionEnd":1,"SessionStart":1,"UserPromptSubmit":1}"#, STOPS_BEFORE),
    (Claude, "pre: continue false", "tool ran, with what input", r#""ran""#, "null", STOPS_BEFORE),
    (Claude, "pre: two hooks rewrite, the first in the file finishes last", "tool ran, with what input",
        r#""rewritten-a""#, r#""rewritten-b""#, ORDER),
    // Codex CLI 0.171.0.
    (Codex, "pre: exit 2, nothing on stderr", "hooks that ran", CODEX_RAN_ON, CODEX_RAN_OFF, STRICTER),
    (Codex, "pre: exit 2, nothing on stderr", "tool ran, with what input", r#""ran""#, "null", STRICTER),
    (Codex, "pre: decision deny", "hooks that ran", CODEX_RAN_ON, CODEX_RAN_OFF, STRICTER),
    (Codex, "pre: decision deny", "model was told", "[]", r#"["M-decision-deny"]"#, STRICTER),
    (Codex, "pre: decision deny", "tool ran, with what input", r#""ran""#, "null", STRICTER),
    (Codex, "pre: permissionDecision deny without a reason", "hooks that ran", CODEX_RAN_ON, CODEX_RAN_OFF, STRICTER),
    (Codex, "pre: permissionDecision deny without a reason", "tool ran, with what input", r#""ran""#, "null", STRICTER),
    (Codex, "pre: updatedInput alone", "tool ran, with what input", r#""ran""#, r#""rewritten""#, REWRITE),
    (Codex, "pre: two hooks rewrite, the first in the file finishes last", "tool ran, with what input",
        r#""rewritten-a""#, r#""rewritten-b""#, ORDER),
    (Codex, "pre: continue false", "hooks that ran", CODEX_RAN_ON, CODEX_RAN_OFF, CODEX_NO_STOP),
    (Codex, "pre: continue false", "model was told", "[]", r#"["M-stop-reason"]"#, CODEX_NO_STOP),
    (Codex, "pre: continue false", "tool ran, with what input", r#""ran""#, "null", CODEX_NO_STOP),
    // Gemini CLI 0.61.0.
    (Gemini, "pre: exit 2, nothing on stderr", "hooks that ran", GEMINI_RAN_ON, GEMINI_RAN_OFF, STRICTER),
    (Gemini, "pre: exit 2, nothing on stderr", "tool ran, with what input", r#""ran""#, "null", STRICTER),
    (Gemini, "pre: permissionDecision deny", "hooks that ran", GEMINI_RAN_ON, GEMINI_RAN_OFF, LIBERAL),
    (Gemini, "pre: permissionDecision deny", "model was told", "[]", r#"["M-permission-deny"]"#, LIBERAL),
    (Gemini, "pre: permissionDecision deny", "tool ran, with what input", r#""ran""#, "null", LIBERAL),
    (Gemini, "pre: permissionDecision deny without a reason", "hooks that ran", GEMINI_RAN_ON, GEMINI_RAN_OFF, LIBERAL),
    (Gemini, "pre: permissionDecision deny without a reason", "tool ran, with what input", r#""ran""#, "null", LIBERAL),
    // The question reaches Gemini CLI as its own `decision: ask`: headless, it ends there.
    (Gemini, "pre: permissionDecision ask", "hooks that ran", GEMINI_RAN_ON,
        r#"{"BeforeAgent":1,"BeforeTool":1,"SessionStart":1}"#, LIBERAL),
    (Gemini, "pre: permissionDecision ask", "model requests", "2", "1", LIBERAL),
    (Gemini, "pre: permissionDecision ask", "tool ran, with what input", r#""ran""#, "null", LIBERAL),
    // Qwen Code 0.24.4.
    (Qwen, "pre: updatedInput", "hooks that ran", QWEN_RAN_ON, QWEN_RAN_OFF, QWEN_NO_REWRITE),
    (Qwen, "pre: updatedInput", "tool ran, with what input", r#""ran""#, "null", QWEN_NO_REWRITE),
    (Qwen, "post: exit 2", "model was told", "[]", r#"["M-post-exit2"]"#, QWEN_AFTER_A_TOOL),
];

/// Codex CLI reads no `continue` before a tool: agent-hooks blocks the call (exit 2), which
/// is all Codex lets a hook do there, and the agent goes on.
const CODEX_NO_STOP: &str = "Codex CLI ignores continue: false before a tool (and runs the tool when the answer holds it); agent-hooks blocks the call, the most Codex lets a hook do, and Codex goes on";

/// `continue: false` before a tool: agent-hooks keeps the tool from running and stops the
/// agent; Claude Code runs the tool and then stops.
const STOPS_BEFORE: &str = "continue: false before a tool stops the agent before the tool runs under agent-hooks; Claude Code runs the tool, then stops";

/// The deliberate difference of `agent` in `case` on `fact`, if there is one.
pub fn find(agent: Agent, case: &str, fact: &str) -> Option<Expected> {
    find_in(TABLE, agent, case, fact)
}

/// The deliberate difference of the agent's session through agent-hooks, if there is one.
pub fn find_bridged(agent: Agent, case: &str, fact: &str) -> Option<Expected> {
    find_in(BRIDGED, agent, case, fact)
}

/// The (case, fact) of every row of `agent` in [`BRIDGED`].
pub fn bridged_rows(agent: Agent) -> Vec<(&'static str, &'static str)> {
    BRIDGED
        .iter()
        .filter(|row| row.0 == agent)
        .map(|row| (row.1, row.2))
        .collect()
}

fn find_in(table: &[Row], agent: Agent, case: &str, fact: &str) -> Option<Expected> {
    table
        .iter()
        .find(|row| row.0 == agent && row.1 == case && row.2 == fact)
        .map(|row| Expected {
            agent: serde_json::from_str(row.3).expect("a JSON value in the table"),
            agent_hooks: serde_json::from_str(row.4).expect("a JSON value in the table"),
            why: row.5,
        })
}

/// The (case, fact) of every row of `agent`, to find rows no run reached.
pub fn rows(agent: Agent) -> Vec<(&'static str, &'static str)> {
    TABLE
        .iter()
        .filter(|row| row.0 == agent)
        .map(|row| (row.1, row.2))
        .collect()
}

/// Qwen Code's hooks that ran when the tool ran, and when it was blocked: its
/// `UserPromptSubmit` fires again, with an empty prompt, when it sends the tool's result to
/// the model; it fires no `SessionEnd` headless.
const QWEN_RAN_ON: &str =
    r#"{"PostToolUse":1,"PreToolUse":1,"SessionStart":1,"Stop":1,"UserPromptSubmit":2}"#;
const QWEN_RAN_OFF: &str = r#"{"PreToolUse":1,"SessionStart":1,"Stop":1,"UserPromptSubmit":2}"#;
/// The same session replayed through agent-hooks' runner: one prompt.
const QWEN_REPLAY_ON: &str =
    r#"{"PostToolUse":1,"PreToolUse":1,"SessionStart":1,"Stop":1,"UserPromptSubmit":1}"#;
const QWEN_REPLAY_OFF: &str = r#"{"PreToolUse":1,"SessionStart":1,"Stop":1,"UserPromptSubmit":1}"#;

/// Qwen Code fires `UserPromptSubmit` for each request with the tool's results too; the
/// runner's replay of the session has the user's prompt alone.
const QWEN_PROMPT_AGAIN: &str = "Qwen Code fires UserPromptSubmit again (an empty prompt) when it sends a tool's result to the model; agent-hooks' replay of the session has the user's one prompt";

/// Qwen Code 0.24.4 reads no rewritten input before a tool.
const QWEN_NO_REWRITE: &str = "Qwen Code ignores updatedInput and runs the original call; agent-hooks' runner runs the rewrite, and under Qwen Code agent-hooks denies the call and tells the model the rewritten input, so that the original the hook meant to replace never runs";

/// After a tool Qwen Code reads only additionalContext and continue.
const QWEN_AFTER_A_TOOL: &str = "after a tool Qwen Code gives its model neither a block's reason (exit 2) nor decision: block; agent-hooks tells the model as the hook meant, through additionalContext, which Qwen Code reads";
