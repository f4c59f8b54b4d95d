//! How the results of an event's handlers combine: the conflict table of
//! docs/embedding.md ("Running hooks"), one impl per event.

use std::borrow::Cow;

use agent_hooks_abi::events::*;
use serde_json::{json, Map, Value};

use crate::{
    agents::Decision,
    command_hook::{strength, CommandEvent, CommandOutcome},
};

/// What command hooks get for an event: which command event it is, and the event's fields
/// of the stdin payload (their matchers look at the field the registry names).
pub struct CommandInput {
    /// The command event.
    pub event: CommandEvent,
    /// The payload's fields for this event (the runner adds the common ones: `session_id`,
    /// `transcript_path`, `cwd`, `permission_mode`, `hook_event_name`, `prompt_id`).
    pub fields: Map<String, Value>,
}

fn input(event: CommandEvent, value: Value) -> Option<CommandInput> {
    Some(CommandInput {
        event,
        fields: fields(value),
    })
}

/// [`input`] from its fields, each moved in (`json!` would serialise each value again).
fn input_of<const N: usize>(
    event: CommandEvent,
    fields: [(&str, Value); N],
) -> Option<CommandInput> {
    Some(CommandInput {
        event,
        fields: fields
            .into_iter()
            .map(|(key, value)| (key.to_owned(), value))
            .collect(),
    })
}

fn fields(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

fn push_reason(reason: &mut Option<String>, more: &str) {
    match reason {
        Some(reason) => {
            reason.push('\n');
            reason.push_str(more);
        }
        None => *reason = Some(more.to_owned()),
    }
}

/// What the runner does after folding in one handler's result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fold {
    /// Go on with the next handler.
    Continue,
    /// Go on; the event changed (the next handler gets the new one, serialised again).
    Chained,
    /// Stop: later handlers do not run.
    Stop,
}

/// An event the runner can emit: how its handlers' results combine into its outcome.
pub trait Combine: Event {
    /// What an emit of this event returns.
    type Outcome: Default + std::fmt::Debug + Send + serde::Serialize;
    /// Whether a handler's error stops the emit and reaches the caller (fail safe), as for
    /// `tool_call`. Otherwise the error is reported and the next handler runs.
    const STRICT: bool = false;
    /// Folds one handler's result into `outcome`; may change `event` for later handlers
    /// (it is cloned only then) and must then return [`Fold::Chained`].
    fn fold(event: &mut Cow<'_, Self>, outcome: &mut Self::Outcome, output: Self::Output) -> Fold;

    /// Names a value in `output` that this host does not know (e.g. a decision added by a
    /// newer interface), which is reported and ignored; `None` when there is none.
    fn unknown_value(output: &Self::Output) -> Option<&'static str> {
        let _ = output;
        None
    }

    /// For events that command hooks also handle: what they get.
    fn command_input(&self) -> Option<CommandInput> {
        None
    }

    /// Folds the combined answer of the command hooks into `outcome`, after the native
    /// handlers.
    fn fold_command(
        event: &mut Cow<'_, Self>,
        outcome: &mut Self::Outcome,
        answers: &CommandOutcome,
    ) {
        let _ = (event, outcome, answers);
    }

    /// The outcome as a person (or a script) reads it (`agent-hooks emit` prints it).
    fn shown(&self, outcome: &Self::Outcome) -> Value {
        serde_json::to_value(outcome).unwrap_or(Value::Null)
    }

    /// What the outcome decides, in the neutral terms an agent's answer is written from;
    /// `said`: what the event's command hooks said.
    fn decision(&self, outcome: &Self::Outcome, said: Option<&CommandOutcome>) -> Decision {
        let _ = (outcome, said);
        Decision::default()
    }
}

/// The texts that are not empty.
fn nonempty(texts: &[String]) -> Vec<String> {
    texts.iter().filter(|t| !t.is_empty()).cloned().collect()
}

/// `reason` when it says something, else `otherwise`.
fn reason_or(reason: Option<&String>, otherwise: &str) -> String {
    reason
        .filter(|r| !r.is_empty())
        .cloned()
        .unwrap_or_else(|| otherwise.into())
}

/// Notifications: results are ignored.
macro_rules! notifications {
    ($($ty:ty),* $(,)?) => {
        $(impl Combine for $ty {
            type Outcome = ();
            fn fold(_: &mut Cow<'_, Self>, _: &mut (), _: ()) -> Fold {
                Fold::Continue
            }
        })*
    };
}

notifications!(
    SessionSwitchEvent,
    SessionBranchEvent,
    SessionTreeEvent,
    AgentStartEvent,
    AgentEndEvent,
    TurnStartEvent,
    TurnEndEvent,
    AutoCompactionStartEvent,
    AutoCompactionEndEvent,
    AutoRetryStartEvent,
    AutoRetryEndEvent,
    TtsrTriggeredEvent,
    TodoReminderEvent,
);

/// Notifications that command hooks also hear.
macro_rules! command_notifications {
    ($($ty:ty => $event:ident { $($key:literal: $field:ident),* }),* $(,)?) => {
        $(impl Combine for $ty {
            type Outcome = ();
            fn fold(_: &mut Cow<'_, Self>, _: &mut (), _: ()) -> Fold {
                Fold::Continue
            }
            fn command_input(&self) -> Option<CommandInput> {
                input(CommandEvent::$event, json!({ $($key: self.$field),* }))
            }
        })*
    };
}

// PostCompact: the summary under both names agents give it.
command_notifications!(
    SessionCompactEvent => PostCompact { "compact_summary": summary, "summary": summary },
    SessionShutdownEvent => SessionEnd { "reason": reason },
);

/// The combined outcome of `session_start`.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct SessionStartOutcome {
    /// Text hooks add to the agent's context: native handlers' first (in load order), then
    /// command hooks' (in configuration order).
    pub context: Vec<String>,
}

/// `session_start`: every hook, native or command, may add context; all of it is kept.
impl Combine for SessionStartEvent {
    type Outcome = SessionStartOutcome;

    fn fold(
        _: &mut Cow<'_, Self>,
        outcome: &mut SessionStartOutcome,
        output: SessionStartResult,
    ) -> Fold {
        outcome.context.extend(output.context);
        Fold::Continue
    }

    fn command_input(&self) -> Option<CommandInput> {
        input(CommandEvent::SessionStart, json!({ "source": self.source }))
    }

    fn fold_command(
        _: &mut Cow<'_, Self>,
        outcome: &mut SessionStartOutcome,
        answers: &CommandOutcome,
    ) {
        outcome.context.extend(answers.context.iter().cloned());
    }

    fn decision(&self, outcome: &SessionStartOutcome, _: Option<&CommandOutcome>) -> Decision {
        Decision {
            context: nonempty(&outcome.context),
            ..Decision::default()
        }
    }
}

/// The question of an ask that gave no reason.
const ASK_REASON: &str = "a hook asks you to confirm this tool call";

/// The combined outcome of `tool_call`.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct ToolCallOutcome {
    /// A handler blocked the call.
    pub block: bool,
    /// The blocking handler's reason (with command hooks: every blocking hook's reason, in
    /// configuration order, one per line).
    pub reason: Option<String>,
    /// The input to run the tool with, when a handler replaced it (the last replacement).
    pub input: Option<Value>,
    /// A hook asked that the user confirm the call (a native [`ToolCallResult::ask`], a
    /// command hook's `permissionDecision: ask`), with these reasons, one per line;
    /// [`HookToolWrapper`](crate::HookToolWrapper) asks through the UI and blocks when the
    /// user says no or there is no UI.
    pub ask: Option<String>,
    /// Command hooks approved the call (`permissionDecision: allow`, legacy `decision:
    /// approve`) and none asked or denied: the host skips its own permission prompt.
    pub approved: bool,
    /// Text command hooks add to the agent's context (`additionalContext`).
    pub context: Vec<String>,
}

/// `tool_call`: the first block wins and stops; an ask is kept (with every asking handler's
/// reason) and the next handler runs; each returned input replaces the previous one and the
/// next handler sees it. Strict: an error or panic blocks.
impl Combine for ToolCallEvent {
    type Outcome = ToolCallOutcome;
    const STRICT: bool = true;

    fn fold(
        event: &mut Cow<'_, Self>,
        outcome: &mut ToolCallOutcome,
        output: ToolCallResult,
    ) -> Fold {
        if output.block {
            outcome.block = true;
            outcome.reason = output.reason;
            return Fold::Stop;
        }
        if output.ask {
            let reason = output
                .reason
                .filter(|r| !r.trim().is_empty())
                .unwrap_or_else(|| ASK_REASON.to_owned());
            push_reason(&mut outcome.ask, &reason);
        }
        match output.input {
            Some(input) => {
                event.to_mut().input = input.clone();
                outcome.input = Some(input);
                Fold::Chained
            }
            None => Fold::Continue,
        }
    }

    fn command_input(&self) -> Option<CommandInput> {
        input_of(
            CommandEvent::PreToolUse,
            [
                ("tool_name", Value::String(self.tool_name.clone())),
                ("tool_input", self.input.clone()),
                ("tool_use_id", Value::String(self.tool_call_id.clone())),
            ],
        )
    }

    /// `continue: false` and any block win, with every blocking hook's reason; otherwise
    /// deny > ask > allow, and the last `updatedInput` in configuration order is the tool's
    /// input.
    fn fold_command(
        event: &mut Cow<'_, Self>,
        outcome: &mut ToolCallOutcome,
        answers: &CommandOutcome,
    ) {
        outcome.context.extend(answers.context.iter().cloned());
        if let Some(reason) = &answers.stop {
            outcome.block = true;
            push_reason(&mut outcome.reason, reason);
            return;
        }
        if answers.block {
            outcome.block = true;
            for reason in &answers.reasons {
                push_reason(&mut outcome.reason, reason);
            }
            return;
        }
        if answers.permission == Some(PermissionDecision::Ask) {
            let reason = if answers.permission_reasons.is_empty() {
                ASK_REASON.to_owned()
            } else {
                answers.permission_reasons.join("\n")
            };
            push_reason(&mut outcome.ask, &reason);
        }
        outcome.approved = answers.approved();
        if let Some(input) = &answers.updated_input {
            event.to_mut().input = input.clone();
            outcome.input = Some(input.clone());
        }
    }

    fn shown(&self, outcome: &ToolCallOutcome) -> Value {
        outcome.shown(&self.input)
    }

    fn decision(&self, outcome: &ToolCallOutcome, _: Option<&CommandOutcome>) -> Decision {
        Decision {
            block: outcome
                .block
                .then(|| reason_or(outcome.reason.as_ref(), "blocked by a hook")),
            input: outcome.input.clone(),
            approve: outcome.approved,
            ask: outcome.ask.clone().filter(|a| !a.is_empty()),
            context: nonempty(&outcome.context),
            ..Decision::default()
        }
    }
}

impl ToolCallOutcome {
    /// The outcome as a person reads it, `input` being the call's input as given: whether
    /// it is blocked and why, the input it runs with and whether a hook rewrote it, a
    /// question for the user, an approval, context.
    pub fn shown(&self, input: &Value) -> Value {
        json!({
            "block": self.block,
            "reason": self.reason,
            "input": self.input.as_ref().unwrap_or(input),
            "rewritten": self.input.is_some(),
            "ask": self.ask,
            "approved": self.approved,
            "context": self.context,
        })
    }
}

/// The combined outcome of `tool_result`: each field that some handler replaced.
pub type ToolResultOutcome = ToolResultPatch;

/// `tool_result`: no short-circuit; each field a handler returns replaces the current one
/// and the next handler sees the result, so the last replacement of each field wins and two
/// redactions compose instead of one undoing the other.
impl Combine for ToolResultEvent {
    type Outcome = ToolResultPatch;

    fn fold(
        event: &mut Cow<'_, Self>,
        outcome: &mut ToolResultPatch,
        output: ToolResultPatch,
    ) -> Fold {
        let mut changed = false;
        if let Some(content) = output.content {
            event.to_mut().content = content.clone();
            outcome.content = Some(content);
            changed = true;
        }
        if let Some(details) = output.details {
            event.to_mut().details = details.clone();
            outcome.details = Some(details);
            changed = true;
        }
        if let Some(is_error) = output.is_error {
            event.to_mut().is_error = is_error;
            outcome.is_error = Some(is_error);
            changed = true;
        }
        if changed {
            Fold::Chained
        } else {
            Fold::Continue
        }
    }

    /// A failed call is PostToolUseFailure with its `error`; a successful one PostToolUse
    /// with `tool_response` as the tool returned it: its `details` object (e.g. a Write's
    /// `filePath`, a shell's `stdout`), with agent-hooks' own `success`, `output` and `error`
    /// (docs/command-hooks.md) added where the tool gave no such field.
    fn command_input(&self) -> Option<CommandInput> {
        let output = text_of(&self.content);
        if self.is_error {
            return input_of(
                CommandEvent::PostToolUseFailure,
                [
                    ("tool_name", Value::String(self.tool_name.clone())),
                    ("tool_input", self.input.clone()),
                    ("tool_use_id", Value::String(self.tool_call_id.clone())),
                    ("error", Value::String(output)),
                    ("is_interrupt", Value::Bool(false)),
                ],
            );
        }
        let mut response = match &self.details {
            Value::Object(details) => details.clone(),
            _ => Map::new(),
        };
        for (key, value) in [
            ("success", Value::Bool(true)),
            ("output", Value::String(output)),
            ("error", Value::Null),
        ] {
            response.entry(key).or_insert(value);
        }
        input_of(
            CommandEvent::PostToolUse,
            [
                ("tool_name", Value::String(self.tool_name.clone())),
                ("tool_input", self.input.clone()),
                ("tool_response", Value::Object(response)),
                ("tool_use_id", Value::String(self.tool_call_id.clone())),
            ],
        )
    }

    /// Feedback (a block's reason, exit 2's stderr) and added context reach the model as
    /// text after the tool's output; `updatedMCPToolOutput` replaces an MCP tool's output.
    fn fold_command(
        event: &mut Cow<'_, Self>,
        outcome: &mut ToolResultPatch,
        answers: &CommandOutcome,
    ) {
        let mut changed = false;
        if let Some(replacement) = &answers.replacement {
            event.to_mut().content = vec![ContentBlock::text(replacement.clone())];
            changed = true;
        }
        if let Some(replacement) = &answers.updated_tool_output {
            if event.tool_name.starts_with("mcp__") {
                let text = match replacement {
                    Value::String(text) => text.clone(),
                    other => other.to_string(),
                };
                event.to_mut().content = vec![ContentBlock::text(text)];
                changed = true;
            }
        }
        for note in answers.feedback.iter().chain(&answers.context) {
            event
                .to_mut()
                .content
                .push(ContentBlock::text(note.clone()));
            changed = true;
        }
        if changed {
            outcome.content = Some(event.content.clone());
        }
    }

    fn shown(&self, outcome: &ToolResultPatch) -> Value {
        json!({
            "content": outcome.content.as_ref().unwrap_or(&self.content),
            "details": outcome.details.as_ref().unwrap_or(&self.details),
            "is_error": outcome.is_error.unwrap_or(self.is_error),
        })
    }

    /// What the command hooks said of the result: their reasons and feedback, context, a
    /// replacement of the result; and the result's content as every handler left it, where
    /// one changed it.
    fn decision(&self, outcome: &ToolResultPatch, said: Option<&CommandOutcome>) -> Decision {
        let content = outcome
            .content
            .as_ref()
            .and_then(|content| serde_json::to_value(content).ok());
        let Some(said) = said else {
            return Decision {
                content,
                ..Decision::default()
            };
        };
        let mut feedback = said.reasons.clone();
        feedback.extend(said.feedback.iter().cloned());
        Decision {
            feedback,
            context: said.context.clone(),
            replacement: said.replacement.clone(),
            content,
            ..Decision::default()
        }
    }
}

/// The combined outcome of `context`: the messages after the last replacement, if any.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct ContextOutcome {
    /// The replacement messages, when a handler replaced them.
    pub messages: Option<Vec<AgentMessage>>,
}

/// `context`: chained; each handler gets the messages the previous one returned.
impl Combine for ContextEvent {
    type Outcome = ContextOutcome;

    fn fold(
        event: &mut Cow<'_, Self>,
        outcome: &mut ContextOutcome,
        output: ContextResult,
    ) -> Fold {
        event.to_mut().messages = output.messages.clone();
        outcome.messages = Some(output.messages);
        Fold::Chained
    }

    fn shown(&self, outcome: &ContextOutcome) -> Value {
        json!({
            "messages": outcome.messages.as_ref().unwrap_or(&self.messages),
            "changed": outcome.messages.is_some(),
        })
    }
}

/// The combined outcome of `before_agent_start`.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct PromptOutcome {
    /// The message to inject: the first one a native handler returned.
    pub message: Option<CustomMessage>,
    /// A command hook rejected the prompt.
    pub block: bool,
    /// Every rejecting hook's reason, one per line.
    pub reason: Option<String>,
    /// Text command hooks add to the agent's context, in configuration order.
    pub context: Vec<String>,
}

/// `before_agent_start`: the first message returned is kept; all handlers still run.
/// Command hooks (`UserPromptSubmit`) may reject the prompt or add context.
impl Combine for BeforeAgentStartEvent {
    type Outcome = PromptOutcome;

    fn fold(
        _: &mut Cow<'_, Self>,
        outcome: &mut PromptOutcome,
        output: BeforeAgentStartResult,
    ) -> Fold {
        if outcome.message.is_none() {
            outcome.message = output.message;
        }
        Fold::Continue
    }

    fn command_input(&self) -> Option<CommandInput> {
        input(
            CommandEvent::UserPromptSubmit,
            json!({ "prompt": self.prompt }),
        )
    }

    /// `continue: false` rejects the prompt too (the agent stops).
    fn fold_command(_: &mut Cow<'_, Self>, outcome: &mut PromptOutcome, answers: &CommandOutcome) {
        for reason in answers.stop.iter().chain(&answers.reasons) {
            outcome.block = true;
            push_reason(&mut outcome.reason, reason);
        }
        outcome.context.extend(answers.context.iter().cloned());
    }

    fn decision(&self, outcome: &PromptOutcome, _: Option<&CommandOutcome>) -> Decision {
        let mut context = Vec::new();
        if let Some(message) = &outcome.message {
            let text = match &message.content {
                Content::Text(text) => text.clone(),
                Content::Blocks(blocks) => text_of(blocks),
            };
            if !text.is_empty() {
                context.push(text);
            }
        }
        context.extend(nonempty(&outcome.context));
        Decision {
            block: outcome
                .block
                .then(|| reason_or(outcome.reason.as_ref(), "rejected by a hook")),
            context,
            ..Decision::default()
        }
    }
}

/// `session_before_*`: the last result is kept; `cancel: true` stops at once.
/// `session_before_*`: the last result is kept; `cancel` stops at once.
fn keep_until_cancel<R>(outcome: &mut Option<R>, output: R, cancel: bool) -> Fold {
    *outcome = Some(output);
    if cancel {
        Fold::Stop
    } else {
        Fold::Continue
    }
}

macro_rules! cancellable {
    ($($event:ty => $result:ty),* $(,)?) => {
        $(impl Combine for $event {
            type Outcome = Option<$result>;

            fn fold(_: &mut Cow<'_, Self>, outcome: &mut Option<$result>, output: $result) -> Fold {
                let cancel = output.cancel;
                keep_until_cancel(outcome, output, cancel)
            }
        })*
    };
}

cancellable!(
    SessionBeforeSwitchEvent => SessionBeforeSwitchResult,
    SessionBeforeBranchEvent => SessionBeforeBranchResult,
    SessionBeforeTreeEvent => SessionBeforeTreeResult,
);

/// `session_before_compact`: as the other `session_before_*`; command hooks (PreCompact) may
/// block the compaction, which cancels it.
impl Combine for SessionBeforeCompactEvent {
    type Outcome = Option<SessionBeforeCompactResult>;

    fn fold(
        _: &mut Cow<'_, Self>,
        outcome: &mut Option<SessionBeforeCompactResult>,
        output: SessionBeforeCompactResult,
    ) -> Fold {
        let cancel = output.cancel;
        keep_until_cancel(outcome, output, cancel)
    }

    fn command_input(&self) -> Option<CommandInput> {
        input(
            CommandEvent::PreCompact,
            json!({ "custom_instructions": self.custom_instructions.clone().unwrap_or_default() }),
        )
    }

    fn fold_command(
        _: &mut Cow<'_, Self>,
        outcome: &mut Option<SessionBeforeCompactResult>,
        answers: &CommandOutcome,
    ) {
        if answers.block || answers.stop.is_some() {
            outcome.get_or_insert_with(Default::default).cancel = true;
        }
    }
}

/// `session.compacting`: the last result wins.
impl Combine for SessionCompactingEvent {
    type Outcome = Option<SessionCompactingResult>;

    fn fold(
        _: &mut Cow<'_, Self>,
        outcome: &mut Option<SessionCompactingResult>,
        output: SessionCompactingResult,
    ) -> Fold {
        *outcome = Some(output);
        Fold::Continue
    }
}

/// The combined outcome of `permission_request`.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct PermissionOutcome {
    /// The strongest decision given: deny over ask over approve; `None` when nobody decided.
    pub decision: Option<PermissionDecision>,
    /// Every reason given, in handler order.
    pub reasons: Vec<String>,
    /// The input to run the tool with, when an approving command hook rewrote it
    /// (`decision.updatedInput`).
    pub input: Option<Value>,
    /// A command hook denied with `decision.interrupt: true`: the agent stops too.
    pub interrupt: bool,
}

/// `permission_request`: deny wins over ask, ask over approve, whatever the order; all
/// handlers run.
impl Combine for PermissionRequestEvent {
    type Outcome = PermissionOutcome;

    fn fold(
        _: &mut Cow<'_, Self>,
        outcome: &mut PermissionOutcome,
        output: PermissionResult,
    ) -> Fold {
        if let Some(decision) = output.decision.filter(|d| strength(*d) > 0) {
            if outcome
                .decision
                .is_none_or(|d| strength(decision) > strength(d))
            {
                outcome.decision = Some(decision);
            }
        }
        outcome.reasons.extend(output.reason);
        Fold::Continue
    }

    fn unknown_value(output: &PermissionResult) -> Option<&'static str> {
        (output.decision == Some(PermissionDecision::Unknown)).then_some("a `decision`")
    }

    fn command_input(&self) -> Option<CommandInput> {
        input(
            CommandEvent::PermissionRequest,
            // No `tool_use_id`: the agents send none with this event.
            json!({
                "tool_name": self.tool_name,
                "tool_input": self.input,
            }),
        )
    }

    fn fold_command(
        _: &mut Cow<'_, Self>,
        outcome: &mut PermissionOutcome,
        answers: &CommandOutcome,
    ) {
        let decision = if answers.stop.is_some() {
            Some(PermissionDecision::Deny)
        } else {
            answers.permission
        };
        if let Some(decision) = decision {
            if outcome
                .decision
                .is_none_or(|d| strength(decision) > strength(d))
            {
                outcome.decision = Some(decision);
            }
        }
        outcome.reasons.extend(
            answers
                .stop
                .iter()
                .chain(&answers.reasons)
                .chain(&answers.permission_reasons)
                .cloned(),
        );
        if outcome.decision == Some(PermissionDecision::Approve) {
            outcome.input = answers.updated_input.clone();
        }
        outcome.interrupt |= answers.interrupt;
    }

    fn decision(&self, outcome: &PermissionOutcome, _: Option<&CommandOutcome>) -> Decision {
        let reasons = nonempty(&outcome.reasons);
        let reason = (!reasons.is_empty()).then(|| reasons.join("\n"));
        Decision {
            permission: match outcome.decision {
                Some(PermissionDecision::Approve) => Some(("allow", reason)),
                Some(PermissionDecision::Deny) => Some(("deny", reason)),
                _ => None,
            },
            input: outcome.input.clone(),
            ..Decision::default()
        }
    }
}

/// The combined outcome of `stop`.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct StopOutcome {
    /// Some handler keeps the agent going.
    pub block: bool,
    /// Hooks blocked the stop so many times in a row that the runner let the agent stop
    /// anyway (see [`HookRunner::set_max_stop_blocks`](super::HookRunner::set_max_stop_blocks)).
    pub loop_bound_reached: bool,
    /// The blocking handlers' reasons, in handler order: the agent's next instruction.
    pub reasons: Vec<String>,
    /// A command hook said `continue: false`: the agent stops, whatever blocked, with this
    /// reason (`stopReason`).
    pub stopped: Option<String>,
}

/// `stop`: any block keeps the agent going; every blocking reason is kept; all handlers run.
impl Combine for StopEvent {
    type Outcome = StopOutcome;

    fn fold(_: &mut Cow<'_, Self>, outcome: &mut StopOutcome, output: StopResult) -> Fold {
        if output.block {
            outcome.block = true;
            outcome.reasons.extend(output.reason);
        }
        Fold::Continue
    }

    fn command_input(&self) -> Option<CommandInput> {
        input(
            CommandEvent::Stop,
            json!({ "stop_hook_active": self.stop_hook_active }),
        )
    }

    /// `continue: false` wins over every block: the agent stops.
    fn fold_command(_: &mut Cow<'_, Self>, outcome: &mut StopOutcome, answers: &CommandOutcome) {
        if let Some(reason) = &answers.stop {
            outcome.block = false;
            outcome.stopped = Some(reason.clone());
            return;
        }
        if answers.block {
            outcome.block = true;
            outcome.reasons.extend(answers.reasons.iter().cloned());
        }
    }

    fn shown(&self, outcome: &StopOutcome) -> Value {
        json!({
            "block": outcome.block,
            "reason": (!outcome.reasons.is_empty()).then(|| outcome.reasons.join("\n")),
            "loop_bound_reached": outcome.loop_bound_reached,
            "stopped": outcome.stopped,
        })
    }

    fn decision(&self, outcome: &StopOutcome, _: Option<&CommandOutcome>) -> Decision {
        let reason = (!outcome.reasons.is_empty()).then(|| outcome.reasons.join("\n"));
        Decision {
            block: outcome
                .block
                .then(|| reason_or(reason.as_ref(), "a hook keeps the agent going")),
            stop: outcome.stopped.clone().filter(|s| !s.is_empty()),
            ..Decision::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fold_all(results: Vec<ToolCallResult>) -> (ToolCallOutcome, Vec<Fold>) {
        let event = ToolCallEvent::new("exec", "call-1", json!({"command": "deploy"}));
        let mut current = Cow::Borrowed(&event);
        let mut outcome = ToolCallOutcome::default();
        let folds = results
            .into_iter()
            .map(|r| ToolCallEvent::fold(&mut current, &mut outcome, r))
            .collect();
        (outcome, folds)
    }

    #[test]
    fn native_asks_gather_their_reasons_and_a_later_block_wins() {
        let (outcome, folds) = fold_all(vec![
            ToolCallResult::ask("first?"),
            ToolCallResult::ask(""),
            ToolCallResult::block("no"),
        ]);
        assert_eq!(folds, [Fold::Continue, Fold::Continue, Fold::Stop]);
        assert!(outcome.block);
        assert_eq!(outcome.reason.as_deref(), Some("no"));
        assert_eq!(
            outcome.ask.as_deref(),
            Some("first?\na hook asks you to confirm this tool call")
        );
    }
}
