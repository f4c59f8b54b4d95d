//! The answer `agent-hooks hook` gives the agent that ran it: what the hooks decided, in
//! neutral terms ([`Decision`]), written once in the form that agent reads. A block is exit code 2 with the reason on stderr, which every one of
//! these agents reads the same way; the rest is the JSON on stdout its hooks reference
//! documents; problems of hooks are the user's, in the agent's channel for its user, never
//! in what its model reads.

use serde_json::{json, Value};

use super::{
    claude_form, cline, copilot_cli,
    decision::{AgentEvent, Decision, ToAgent},
    droid, pi, qwen_code, Agent,
};

impl Agent {
    /// The answer to `event` that `decision` makes, with `problems` (each a line for the
    /// user) where the agent shows its user what it is told, and on stderr after whatever
    /// else is there.
    #[doc(hidden)]
    pub fn answer(self, event: &AgentEvent, decision: &Decision, problems: &[String]) -> ToAgent {
        let mut answer = if self == Agent::Cline {
            cline::answer(event, decision, problems)
        } else if event.own_form {
            copilot_cli::answer(event, decision, problems)
        } else {
            self.claude_form_answer(event, decision, problems)
        };
        if matches!(self, Agent::Pi | Agent::OpenCode | Agent::Kilo) {
            pi::with_content(&mut answer, decision);
        }
        if self == Agent::Qwen {
            qwen_code::in_its_terms(&mut answer, event, decision, problems);
        }
        answer.notes.extend(problems.iter().cloned());
        if self == Agent::Droid {
            droid::in_droid_terms(&mut answer, event, problems);
        }
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
