//! `"sequential": true` groups: when a hook of such a group runs, every hook
//! of the event runs one after the other, in configuration order, and each `BeforeTool`
//! hook gets the `tool_input` the hooks before it rewrote (their `tool_input` laid over the
//! one they got, key by key), and each `BeforeAgent` hook the prompt with the context the
//! hooks before it added, as the agent that has such groups does (`agents::gemini_cli`). Every hook still runs when one blocks,
//! and the answers are combined as for hooks run together.

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::commands::{Finished, HookJob};
use super::HookRunner;
use crate::command_hook::{CommandEvent, ToolNames};
use crate::host::AgentHost;

impl HookRunner {
    /// Runs `jobs` one after the other; `fields` is the event's payload, whose
    /// `tool_input` each rewrite changes for the hooks after it.
    pub(super) async fn run_in_order(
        &self,
        jobs: Vec<HookJob>,
        event: CommandEvent,
        fields: &Map<String, Value>,
        tools: &ToolNames,
        agent: &dyn AgentHost,
        session_id: &str,
    ) -> Vec<Finished> {
        let mut fields = Cow::Borrowed(fields);
        let mut rewritten = false;
        let mut finished = Vec::with_capacity(jobs.len());
        for mut job in jobs {
            let hook = job.hook.clone();
            if rewritten {
                job.payload = self
                    .payload(agent, session_id, tools, &hook, &fields)
                    .into();
            }
            let done = job.run().await;
            if hook.observe {
                // Recorded, not applied: the hooks after it see what it was given.
                finished.push(done);
                continue;
            }
            let mut answer = done.answer(&hook);
            crate::command_hook::adapt(hook.dialect.profile(), event, &done.run, &mut answer);
            if event == CommandEvent::UserPromptSubmit && !answer.context.is_empty() {
                // Before the prompt: the next hook's prompt has the context added.
                let prompt = fields
                    .get("prompt")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                if let Some(prompt) = prompt {
                    let added = format!("{prompt}\n\n{}", answer.context.join("\n\n"));
                    fields
                        .to_mut()
                        .insert("prompt".into(), Value::String(added));
                    rewritten = true;
                }
            }
            if event == CommandEvent::PreToolUse {
                let tool = fields
                    .get("tool_name")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                if let (Some(updated), Some(tool)) = (&answer.updated_input, tool) {
                    let original = fields.get("tool_input").cloned().unwrap_or(Value::Null);
                    let own = tools.input_back(hook.dialect, &tool, updated, &original);
                    let merged = lay_over(original, own);
                    fields.to_mut().insert("tool_input".into(), merged);
                    rewritten = true;
                }
            }
            finished.push(done);
        }
        finished
    }
}

/// `update`'s keys laid over `base`'s (an object that is not one is replaced).
fn lay_over(base: Value, update: Value) -> Value {
    match (base, update) {
        (Value::Object(mut base), Value::Object(update)) => {
            base.extend(update);
            Value::Object(base)
        }
        (_, update) => update,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rewrite_is_laid_over_the_input_key_by_key() {
        let merged = lay_over(
            serde_json::json!({"command": "ls", "description": "list"}),
            serde_json::json!({"command": "ls -a"}),
        );
        assert_eq!(
            merged,
            serde_json::json!({"command": "ls -a", "description": "list"})
        );
    }
}
