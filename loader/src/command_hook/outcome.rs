//! The answers of every hook of one event, combined in configuration order: the same rules
//! whatever finished first.

use agent_hooks_abi::events::PermissionDecision;
use serde::Serialize;
use serde_json::{Map, Value};

use super::answer::Answer;

/// What the command hooks of one event decided together.
///
/// - `continue: false` wins over every other answer: [`stop`](Self::stop) is set and the
///   runner tells the agent to stop (on `Stop` it lets the agent stop even if another hook
///   blocked).
/// - Any block blocks; every blocking reason is kept, in configuration order.
/// - Permission decisions: deny over ask over allow, whatever the order.
/// - The last `updatedInput` (and `updatedMCPToolOutput`) in configuration order wins.
/// - Context, feedback and messages are kept in configuration order.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CommandOutcome {
    /// How many hooks ran (not counting `async` ones).
    pub ran: usize,
    /// A hook asked the agent to stop (`continue: false`), with this reason (`stopReason`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop: Option<String>,
    /// Some hook blocked.
    pub block: bool,
    /// Every blocking hook's reason, in configuration order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<String>,
    /// The strongest permission decision: deny over ask over approve.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub permission: Option<PermissionDecision>,
    /// The reasons given with permission decisions, in configuration order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub permission_reasons: Vec<String>,
    /// The input to run the tool with (the last `updatedInput`), in the tool's own fields.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updated_input: Option<Value>,
    /// The last `updatedMCPToolOutput`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updated_tool_output: Option<Value>,
    /// The text that replaces a tool's result for the model (the last one given).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replacement: Option<String>,
    /// Text for the model about an action that already happened.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub feedback: Vec<String>,
    /// Text added to the agent's context.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub context: Vec<String>,
    /// Messages shown to the user (`systemMessage`, stderr of a non-blocking exit 2).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub system_messages: Vec<String>,
    /// Some hook asked that its output not be shown in the transcript.
    pub suppress_output: bool,
    /// A PermissionRequest hook denied with `interrupt: true`.
    pub interrupt: bool,
    /// Other documented fields (the last value of each).
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

/// How strong a permission decision is: deny over ask over approve; a value this host does
/// not know counts for nothing.
pub(crate) fn strength(decision: PermissionDecision) -> u8 {
    match decision {
        PermissionDecision::Approve => 1,
        PermissionDecision::Ask => 2,
        PermissionDecision::Deny => 3,
        _ => 0,
    }
}

impl CommandOutcome {
    /// Folds in the next hook's answer, in configuration order.
    pub fn add(&mut self, answer: &Answer) {
        self.ran += 1;
        if self.stop.is_none() {
            self.stop = answer.stop_agent.clone();
        }
        let permission = if answer.block.is_some() {
            Some(PermissionDecision::Deny)
        } else {
            answer.permission
        };
        if let Some(decision) = permission {
            if self
                .permission
                .is_none_or(|d| strength(decision) > strength(d))
            {
                self.permission = Some(decision);
            }
        }
        if let Some(reason) = &answer.block {
            self.block = true;
            self.reasons.push(reason.clone());
        } else if let Some(reason) = &answer.permission_reason {
            self.permission_reasons.push(reason.clone());
        }
        if answer.updated_input.is_some() {
            self.updated_input = answer.updated_input.clone();
        }
        if answer.updated_tool_output.is_some() {
            self.updated_tool_output = answer.updated_tool_output.clone();
        }
        if answer.replacement.is_some() {
            self.replacement = answer.replacement.clone();
        }
        self.feedback.extend(answer.feedback.iter().cloned());
        self.context.extend(answer.context.iter().cloned());
        self.system_messages
            .extend(answer.system_message.iter().cloned());
        self.suppress_output |= answer.suppress_output;
        self.interrupt |= answer.interrupt && answer.block.is_some();
        for (key, value) in &answer.extra {
            self.extra.insert(key.clone(), value.clone());
        }
    }

    /// The answers of hooks in configuration order, combined.
    pub fn combine<'a>(answers: impl IntoIterator<Item = &'a Answer>) -> Self {
        let mut outcome = Self::default();
        for answer in answers {
            outcome.add(answer);
        }
        outcome
    }

    /// Whether the hooks approved (some approved, none asked or denied): the host skips its
    /// own permission prompt.
    pub fn approved(&self) -> bool {
        self.permission == Some(PermissionDecision::Approve) && !self.block
    }

    /// The blocking reasons, one per line.
    pub fn reason(&self) -> Option<String> {
        (!self.reasons.is_empty()).then(|| self.reasons.join("\n"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(f: impl FnOnce(&mut Answer)) -> Answer {
        let mut answer = Answer::default();
        f(&mut answer);
        answer
    }

    #[test]
    fn deny_beats_ask_beats_allow_in_any_order() {
        let allow = answer(|a| a.permission = Some(PermissionDecision::Approve));
        let ask = answer(|a| a.permission = Some(PermissionDecision::Ask));
        let deny = answer(|a| {
            a.permission = Some(PermissionDecision::Deny);
            a.block = Some("no".into());
        });
        for order in [
            [&allow, &ask, &deny],
            [&deny, &ask, &allow],
            [&ask, &deny, &allow],
        ] {
            let outcome = CommandOutcome::combine(order);
            assert_eq!(outcome.permission, Some(PermissionDecision::Deny));
            assert!(outcome.block && !outcome.approved());
        }
        assert!(CommandOutcome::combine([&allow]).approved());
        assert!(!CommandOutcome::combine([&allow, &ask]).approved());
    }

    #[test]
    fn the_first_stop_reason_and_the_last_input_win() {
        let first = answer(|a| {
            a.stop_agent = Some("first".into());
            a.updated_input = Some(serde_json::json!({"n": 1}));
        });
        let second = answer(|a| {
            a.stop_agent = Some("second".into());
            a.updated_input = Some(serde_json::json!({"n": 2}));
        });
        let outcome = CommandOutcome::combine([&first, &second]);
        assert_eq!(outcome.stop.as_deref(), Some("first"));
        assert_eq!(outcome.updated_input, Some(serde_json::json!({"n": 2})));
    }
}
