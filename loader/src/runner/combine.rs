//! How the results of an event's handlers combine: the conflict table of spec 01, one impl
//! per event.

use std::borrow::Cow;

use agent_hooks_abi::events::*;
use serde_json::{json, Map, Value};

use crate::command::{Answer, CommandEvent};

/// What command hooks get for an event: which command event it is, the tool name their
/// matchers look at, and the event's fields of the stdin payload.
pub struct CommandInput<'a> {
    /// The command event.
    pub event: CommandEvent,
    /// The tool name, for the tool events.
    pub tool_name: Option<&'a str>,
    /// The payload's fields for this event (the runner adds `session_id`, `prompt_id`,
    /// `hook_event_name` and `cwd`).
    pub fields: Map<String, Value>,
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
    type Outcome: Default + std::fmt::Debug + Send;
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
    fn command_input(&self) -> Option<CommandInput<'_>> {
        None
    }

    /// Folds one command hook's answer into `outcome`, in configuration order, after the
    /// native handlers.
    fn fold_command(event: &mut Cow<'_, Self>, outcome: &mut Self::Outcome, answer: &Answer) {
        let _ = (event, outcome, answer);
    }
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
    ($($ty:ty => $event:ident { $($field:ident),* }),* $(,)?) => {
        $(impl Combine for $ty {
            type Outcome = ();
            fn fold(_: &mut Cow<'_, Self>, _: &mut (), _: ()) -> Fold {
                Fold::Continue
            }
            fn command_input(&self) -> Option<CommandInput<'_>> {
                Some(CommandInput {
                    event: CommandEvent::$event,
                    tool_name: None,
                    fields: fields(json!({ $(stringify!($field): self.$field),* })),
                })
            }
        })*
    };
}

command_notifications!(
    SessionCompactEvent => PostCompaction { summary },
    SessionShutdownEvent => SessionEnd { reason },
);

/// The combined outcome of `session_start`.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct SessionStartOutcome {
    /// Text command hooks add to the agent's context, in configuration order.
    pub context: Vec<String>,
}

/// `session_start`: a notification for native handlers; command hooks may add context.
impl Combine for SessionStartEvent {
    type Outcome = SessionStartOutcome;

    fn fold(_: &mut Cow<'_, Self>, _: &mut SessionStartOutcome, _: ()) -> Fold {
        Fold::Continue
    }

    fn command_input(&self) -> Option<CommandInput<'_>> {
        Some(CommandInput {
            event: CommandEvent::SessionStart,
            tool_name: None,
            fields: fields(json!({ "source": self.source })),
        })
    }

    fn fold_command(_: &mut Cow<'_, Self>, outcome: &mut SessionStartOutcome, answer: &Answer) {
        outcome.context.extend(answer.context.iter().cloned());
    }
}

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
    /// A command hook asked that the user confirm the call (`permissionDecision: ask`),
    /// with these reasons; [`HookToolWrapper`](crate::HookToolWrapper) asks through the UI
    /// and blocks when the user says no or there is no UI.
    pub ask: Option<String>,
}

/// `tool_call`: the first block wins and stops; otherwise each returned input replaces the
/// previous one and the next handler sees it. Strict: an error or panic blocks.
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
        match output.input {
            Some(input) => {
                event.to_mut().input = input.clone();
                outcome.input = Some(input);
                Fold::Chained
            }
            None => Fold::Continue,
        }
    }

    fn command_input(&self) -> Option<CommandInput<'_>> {
        Some(CommandInput {
            event: CommandEvent::PreToolUse,
            tool_name: Some(&self.tool_name),
            fields: fields(json!({
                "tool_name": self.tool_name,
                "tool_use_id": self.tool_call_id,
                "tool_input": self.input,
            })),
        })
    }

    /// Any block wins, with every blocking hook's reason; otherwise the last `updatedInput`
    /// in configuration order is the tool's input.
    fn fold_command(event: &mut Cow<'_, Self>, outcome: &mut ToolCallOutcome, answer: &Answer) {
        if let Some(reason) = &answer.block {
            outcome.block = true;
            push_reason(&mut outcome.reason, reason);
            return;
        }
        if answer.permission == Some(PermissionDecision::Ask) {
            let reason = answer
                .permission_reason
                .as_deref()
                .unwrap_or("a hook asks you to confirm this tool call");
            push_reason(&mut outcome.ask, reason);
        }
        if let Some(input) = &answer.updated_input {
            event.to_mut().input = input.clone();
            outcome.input = Some(input.clone());
        }
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

    fn command_input(&self) -> Option<CommandInput<'_>> {
        let output = text_of(&self.content);
        Some(CommandInput {
            event: CommandEvent::PostToolUse,
            tool_name: Some(&self.tool_name),
            fields: fields(json!({
                "tool_name": self.tool_name,
                "tool_use_id": self.tool_call_id,
                "tool_input": self.input,
                "tool_response": {
                    "success": !self.is_error,
                    "output": if self.is_error { String::new() } else { output.clone() },
                    "error": if self.is_error { Some(output) } else { None },
                },
            })),
        })
    }

    /// A block's reason and added context reach the model as text after the tool's output.
    fn fold_command(event: &mut Cow<'_, Self>, outcome: &mut ToolResultPatch, answer: &Answer) {
        let notes = answer.block.iter().chain(&answer.context);
        let mut added = false;
        for note in notes {
            event
                .to_mut()
                .content
                .push(ContentBlock::text(note.clone()));
            added = true;
        }
        if added {
            outcome.content = Some(event.content.clone());
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

    fn command_input(&self) -> Option<CommandInput<'_>> {
        Some(CommandInput {
            event: CommandEvent::UserPromptSubmit,
            tool_name: None,
            fields: fields(json!({ "prompt": self.prompt })),
        })
    }

    fn fold_command(_: &mut Cow<'_, Self>, outcome: &mut PromptOutcome, answer: &Answer) {
        if let Some(reason) = &answer.block {
            outcome.block = true;
            push_reason(&mut outcome.reason, reason);
        }
        outcome.context.extend(answer.context.iter().cloned());
    }
}

/// `session_before_*`: the last result is kept; `cancel: true` stops at once.
macro_rules! cancellable {
    ($($event:ty => $result:ty),* $(,)?) => {
        $(impl Combine for $event {
            type Outcome = Option<$result>;

            fn fold(_: &mut Cow<'_, Self>, outcome: &mut Option<$result>, output: $result) -> Fold {
                let cancel = output.cancel;
                *outcome = Some(output);
                if cancel { Fold::Stop } else { Fold::Continue }
            }
        })*
    };
}

cancellable!(
    SessionBeforeSwitchEvent => SessionBeforeSwitchResult,
    SessionBeforeBranchEvent => SessionBeforeBranchResult,
    SessionBeforeCompactEvent => SessionBeforeCompactResult,
    SessionBeforeTreeEvent => SessionBeforeTreeResult,
);

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
}

fn strength(decision: PermissionDecision) -> u8 {
    match decision {
        PermissionDecision::Approve => 1,
        PermissionDecision::Ask => 2,
        PermissionDecision::Deny => 3,
        _ => 0,
    }
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

    fn command_input(&self) -> Option<CommandInput<'_>> {
        Some(CommandInput {
            event: CommandEvent::PermissionRequest,
            tool_name: Some(&self.tool_name),
            fields: fields(json!({
                "tool_name": self.tool_name,
                "tool_use_id": self.tool_call_id,
                "tool_input": self.input,
            })),
        })
    }

    fn fold_command(_: &mut Cow<'_, Self>, outcome: &mut PermissionOutcome, answer: &Answer) {
        let decision = if answer.block.is_some() {
            Some(PermissionDecision::Deny)
        } else {
            answer.permission
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
            answer
                .block
                .iter()
                .chain(&answer.permission_reason)
                .cloned(),
        );
    }
}

/// The combined outcome of `stop`.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct StopOutcome {
    /// Some handler keeps the agent going.
    pub block: bool,
    /// Hooks blocked the stop so many times in a row that the runner let the agent stop
    /// anyway (see [`HookRunner::set_max_stop_blocks`](crate::HookRunner::set_max_stop_blocks)).
    pub loop_bound_reached: bool,
    /// The blocking handlers' reasons, in handler order: the agent's next instruction.
    pub reasons: Vec<String>,
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

    fn command_input(&self) -> Option<CommandInput<'_>> {
        Some(CommandInput {
            event: CommandEvent::Stop,
            tool_name: None,
            fields: fields(json!({ "stop_hook_active": self.stop_hook_active })),
        })
    }

    fn fold_command(_: &mut Cow<'_, Self>, outcome: &mut StopOutcome, answer: &Answer) {
        if let Some(reason) = &answer.block {
            outcome.block = true;
            outcome.reasons.push(reason.clone());
        }
    }
}
