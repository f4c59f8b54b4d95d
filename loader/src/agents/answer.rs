//! The answer `agent-hooks hook` gives the agent that ran it: what the hooks decided, in
//! neutral terms ([`Decision`]), written once in the form that agent reads
//! ([`Agent::answer`]). A block is exit code 2 with the reason on stderr, which every one of
//! these agents reads the same way; the rest is the JSON on stdout its hooks reference
//! documents; problems of hooks are the user's, in the agent's channel for its user, never
//! in what its model reads.

use serde_json::{json, Map, Value};

use super::{claude_form, copilot_cli, Agent};

/// What the hooks of one event decided, in neutral terms.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Decision {
    /// The action is blocked, with this reason.
    pub block: Option<String>,
    /// The tool runs with this input instead.
    pub input: Option<Value>,
    /// The tool runs without the agent's permission prompt.
    pub approve: bool,
    /// The agent asks its user, with this reason.
    pub ask: Option<String>,
    /// A permission request's answer: `allow` or `deny`, with the reasons.
    pub permission: Option<(&'static str, Option<String>)>,
    /// Text added to the model's context.
    pub context: Vec<String>,
    /// Text for the model about a tool that already ran.
    pub feedback: Vec<String>,
    /// Text that replaces a tool's result for the model.
    pub replacement: Option<String>,
    /// The agent stops (`continue: false`), with this reason for the user.
    pub stop: Option<String>,
    /// Messages for the user (`systemMessage`).
    pub messages: Vec<String>,
    /// The tool's output is not shown in the transcript.
    pub suppress_output: bool,
    /// The other `hookSpecificOutput` fields of events the runner has no moment for
    /// (MessageDisplay's `displayContent`, ...), passed on as the hooks gave them.
    pub extra: Map<String, Value>,
}

/// The event being answered, as the agent sent it.
#[derive(Debug, Clone, Copy)]
pub struct AgentEvent<'a> {
    /// Its Claude Code name (`PreToolUse`), or another agent's alias (`BeforeTool`).
    pub event: &'a str,
    /// Its name in the agent's payload, given back as `hookEventName`.
    pub agent_event: &'a str,
    /// Whether it came in Copilot CLI's own form (camelCase payload), which is answered in
    /// that form.
    pub copilot_form: bool,
}

impl AgentEvent<'_> {
    /// Whether it is the moment before a tool runs.
    pub(super) fn before_a_tool(&self) -> bool {
        matches!(self.event, "PreToolUse" | "BeforeTool")
    }
}

/// What the agent gets: an exit code, stdout, and lines for stderr.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToAgent {
    /// The exit code.
    pub code: u8,
    /// Standard output: the JSON answer, if any.
    pub stdout: String,
    /// Lines for standard error.
    pub notes: Vec<String>,
}

impl Agent {
    /// The answer to `event` that `decision` makes, with `problems` (each a line for the
    /// user) where the agent shows its user what it is told, and on stderr after whatever
    /// else is there.
    pub fn answer(self, event: &AgentEvent, decision: &Decision, problems: &[String]) -> ToAgent {
        let mut answer = if event.copilot_form {
            copilot_cli::answer(event, decision, problems)
        } else {
            self.claude_form_answer(event, decision, problems)
        };
        answer.notes.extend(problems.iter().cloned());
        answer
    }

    fn claude_form_answer(
        self,
        event: &AgentEvent,
        decision: &Decision,
        problems: &[String],
    ) -> ToAgent {
        let profile = self.profile();
        let mut reply = ToAgent::default();
        if let (Some(reason), Some(stop), true) = (
            &decision.block,
            &decision.stop,
            event.before_a_tool() && profile.reads_continue_before_a_tool,
        ) {
            // `continue: false` before the tool: the tool must not run and the agent must
            // stop. A block alone (exit 2) would let the agent ask its model again.
            let answer = claude_form::stop_before_the_tool(self, event, reason, stop, problems);
            reply.stdout = format!("{answer}\n");
            return reply;
        }
        if let Some(reason) = &decision.block {
            // Where the agent gives a block's stderr to its model, a block with problems to
            // tell is its `decision: "block"` with the problems in `systemMessage`.
            let stderr_to_the_model = matches!(
                event.event,
                "PreToolUse"
                    | "BeforeTool"
                    | "UserPromptSubmit"
                    | "BeforeAgent"
                    | "Stop"
                    | "AfterAgent"
                    | "SubagentStop"
            );
            if !problems.is_empty() && stderr_to_the_model {
                let answer = json!({
                    "decision": "block",
                    "reason": reason,
                    "systemMessage": problems.join("\n"),
                });
                reply.stdout = format!("{answer}\n");
                return reply;
            }
            reply.code = 2;
            reply.notes.push(reason.clone());
            return reply;
        }
        let answer = claude_form::answer(self, event, decision, problems);
        if !answer.is_empty() {
            reply.stdout = format!("{}\n", Value::Object(answer));
        } else if !problems.is_empty() {
            // Problems alone: shown to the user (`systemMessage`), with no decision in the
            // answer, so that the agent does as it would without agent-hooks' hooks.
            let answer = json!({"systemMessage": problems.join("\n")});
            reply.stdout = format!("{answer}\n");
        }
        reply
    }
}
