//! How the results of an event's handlers combine: the conflict table of spec 01, one impl
//! per event.

use std::borrow::Cow;

use agent_hooks_abi::events::*;
use serde_json::Value;

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
    SessionStartEvent,
    SessionSwitchEvent,
    SessionBranchEvent,
    SessionCompactEvent,
    SessionTreeEvent,
    SessionShutdownEvent,
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

/// The combined outcome of `tool_call`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolCallOutcome {
    /// A handler blocked the call.
    pub block: bool,
    /// The blocking handler's reason.
    pub reason: Option<String>,
    /// The input to run the tool with, when a handler replaced it (the last replacement).
    pub input: Option<Value>,
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
}

/// The combined outcome of `context`: the messages after the last replacement, if any.
#[derive(Debug, Clone, Default, PartialEq)]
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

/// `before_agent_start`: the first message returned is kept; all handlers still run.
impl Combine for BeforeAgentStartEvent {
    type Outcome = BeforeAgentStartResult;

    fn fold(
        _: &mut Cow<'_, Self>,
        outcome: &mut BeforeAgentStartResult,
        output: BeforeAgentStartResult,
    ) -> Fold {
        if outcome.message.is_none() {
            outcome.message = output.message;
        }
        Fold::Continue
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
#[derive(Debug, Clone, Default, PartialEq)]
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
        if let Some(decision) = output.decision {
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
}

/// The combined outcome of `stop`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StopOutcome {
    /// Some handler keeps the agent going.
    pub block: bool,
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
}
