//! Emitting: native handlers in order, then command hooks, combined by each event's rule.

use std::{
    any::Any,
    borrow::Cow,
    ops::ControlFlow,
    sync::atomic::{AtomicU64, Ordering},
};

use agent_hooks_abi::events::{Event, EventKind, StopEvent};

use super::{Combine, Fold, HandlerTiming, HookError, HookErrorKind, HookRunner, StopOutcome};
use crate::sync::RwLockUnpoisoned;
use crate::{hook::Hook, host::CallContext, remote::CallFailure};

impl HookRunner {
    /// Emits `event`: native handlers first (hooks in load order), then the matching
    /// command hooks, all at once; their results are combined by [`Combine`].
    ///
    /// A handler's error or panic is reported to the error listeners and the next handler
    /// runs; for a strict event (`tool_call`) it also stops the emit and is returned. A
    /// native block (or cancel) short-circuits agent-hooks' own command hooks; those of an
    /// agent's files still run, as the agent runs them, and can only add to the block.
    /// See [the type's docs](HookRunner#native-handlers-on-tokio) for how native handlers
    /// run on tokio.
    pub async fn emit<E: Combine>(&self, event: &E) -> Result<E::Outcome, HookError> {
        self.emit_with(event, &serde_json::Map::new()).await
    }

    /// [`emit`](Self::emit), where command hooks get every field of `given` in their payload,
    /// over the fields the runner derives from `event` (`emit --input` and `replay` pass a
    /// recorded payload through this way: its `session_id`, `tool_use_id`, ...).
    pub async fn emit_with<E: Combine>(
        &self,
        event: &E,
        given: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<E::Outcome, HookError> {
        let event = self.prepare(event);
        let (mut outcome, mut current, stopped) = self.native_phase(event)?;
        if self.command[E::KIND.index()] > 0 {
            // Boxed: the command hooks' future is most of the emit's size (1.4 of 1.8 KB),
            // which an emit with no command hook would otherwise carry, and copy each time
            // the future moves (into the runtime's `block_on`, into a task).
            Box::pin(self.command_phase(&mut current, &mut outcome, given, stopped)).await;
        }
        Ok(self.finish::<E>(outcome))
    }

    /// [`emit`](Self::emit), on the calling thread, which also waits for the command hooks
    /// itself, as `std::process` waits for a program: their processes' ends and outputs wake
    /// it directly (awaited on a multi-threaded runtime, they come through one of its workers,
    /// a wake-up more). On a multi-threaded runtime's worker, the worker's other tasks move to
    /// another thread meanwhile ([`tokio::task::block_in_place`]); inside a current-thread
    /// runtime use `emit`.
    pub fn emit_blocking<E: Combine>(&self, event: &E) -> Result<E::Outcome, HookError> {
        let event = self.prepare(event);
        let (mut outcome, mut current, stopped) = self.native_phase(event)?;
        if self.command[E::KIND.index()] > 0 {
            let given = serde_json::Map::new();
            let commands = self.command_phase(&mut current, &mut outcome, &given, stopped);
            if crate::supervisor::in_current_thread_runtime() {
                self.runner_error(
                    E::KIND.name(),
                    "command hooks cannot run from emit_blocking inside a current-thread tokio runtime; use emit".into(),
                );
            } else if let Err(e) =
                crate::supervisor::may_block(|| crate::supervisor::on_this_thread(commands))
            {
                self.runner_error(
                    E::KIND.name(),
                    format!("cannot start a runtime for command hooks: {e}"),
                );
            }
        }
        Ok(self.finish::<E>(outcome))
    }

    /// What the runner adds to an event: `stop_hook_active` while a stop hook keeps the
    /// agent going; a new `prompt_id` for each prompt.
    fn prepare<'e, E: Combine>(&self, event: &'e E) -> Cow<'e, E> {
        let mut event = Cow::Borrowed(event);
        if E::KIND == EventKind::Stop && self.stop_streak.load(Ordering::Relaxed) > 0 {
            if let Some(stop) = (event.to_mut() as &mut dyn Any).downcast_mut::<StopEvent>() {
                stop.stop_hook_active = true;
            }
        }
        if E::KIND == EventKind::BeforeAgentStart {
            *self.prompt_id.write_unpoisoned() = Some(super::commands::fresh_id("prompt"));
        }
        event
    }

    /// The native handlers: the outcome, the event as the last handler left it, and
    /// whether a handler stopped the emit.
    fn native_phase<'e, E: Combine>(
        &self,
        event: Cow<'e, E>,
    ) -> Result<(E::Outcome, Cow<'e, E>, bool), HookError> {
        let mut outcome = E::Outcome::default();
        let mut failure = None;
        let mut stopped = false;
        let run = self.run_handlers(event, |hook, result, current| {
            let fold = match result {
                Ok(Some(output)) => {
                    if let Some(what) = E::unknown_value(&output) {
                        self.listeners.report(&HookError::new(
                            HookErrorKind::Protocol,
                            hook.path(),
                            E::KIND.name(),
                            format!("returned {what} that this host does not know (the plugin may be built against a newer interface); it is ignored"),
                        ));
                    }
                    E::fold(current, &mut outcome, output)
                }
                Ok(None) => Fold::Continue,
                Err(error) => {
                    self.listeners.report(&error);
                    if E::STRICT {
                        failure = Some(error);
                        Fold::Stop
                    } else {
                        Fold::Continue
                    }
                }
            };
            stopped |= fold == Fold::Stop;
            fold
        });
        let current = match run {
            Ok(current) => current,
            Err(error) => {
                return Err(self.runner_error(
                    E::KIND.name(),
                    format!("the event cannot be serialised: {error}"),
                ));
            }
        };
        match failure {
            Some(error) => Err(error),
            None => Ok((outcome, current, stopped)),
        }
    }

    /// Bounds stop loops: after too many blocks in a row, the agent may stop.
    fn finish<E: Combine>(&self, mut outcome: E::Outcome) -> E::Outcome {
        if let Some(stop) = (&mut outcome as &mut dyn Any).downcast_mut::<StopOutcome>() {
            if !stop.block {
                self.stop_streak.store(0, Ordering::Relaxed);
            } else if self.stop_streak.fetch_add(1, Ordering::Relaxed) + 1 > self.max_stop_blocks {
                self.stop_streak.store(0, Ordering::Relaxed);
                stop.block = false;
                stop.loop_bound_reached = true;
                self.runner_error(
                    EventKind::Stop.name(),
                    format!(
                        "stop hooks kept the agent going {} times in a row; letting it stop (the bound is set with set_max_stop_blocks)",
                        self.max_stop_blocks
                    ),
                );
            }
        }
        outcome
    }

    /// Calls every handler of `event`, in order, and gives `visit` each one's raw result;
    /// stops early when `visit` breaks. Results are not combined and errors are not
    /// reported: this is for tools that show what each hook did.
    pub fn for_each_handler<E: Event>(
        &self,
        event: &E,
        mut visit: impl FnMut(&Hook, Result<Option<E::Output>, HookError>) -> ControlFlow<()>,
    ) -> Result<(), serde_json::Error> {
        self.run_handlers(Cow::Borrowed(event), |hook, result, _| {
            match visit(hook, result) {
                ControlFlow::Continue(()) => Fold::Continue,
                ControlFlow::Break(()) => Fold::Stop,
            }
        })
        .map(drop)
    }

    /// The dispatch loop. The event is serialised once, and again only after a handler
    /// changed it ([`Fold::Chained`]); it is cloned only then.
    fn run_handlers<'e, E: Event>(
        &self,
        event: Cow<'e, E>,
        mut step: impl FnMut(&Hook, Result<Option<E::Output>, HookError>, &mut Cow<'e, E>) -> Fold,
    ) -> Result<Cow<'e, E>, serde_json::Error> {
        if self.native[E::KIND.index()] == 0 {
            return Ok(event);
        }
        let mut current = event;
        let mut payload = serde_json::to_string(current.as_ref())?;
        let mut serial = next_serial();
        let agent = self.agent();
        let context = CallContext::event(&agent, &self.cwd);
        let timed = self.timing.load(Ordering::Relaxed);
        for hook in &self.hooks {
            let timeout = hook.settings().handler_timeout;
            for handler in hook.handlers(E::KIND) {
                hook.outbox().begin_call();
                let started = timed.then(std::time::Instant::now);
                let mut call = handler.call(&payload, serial, &context, timeout);
                // What it answered, as it wrote it, for the hosts that record each hook's
                // answer (only when they listen: it is a copy).
                let answer = match (&started, &call) {
                    (Some(_), Ok(output)) => output.clone(),
                    _ => None,
                };
                let observing = hook.is_observing();
                if observing {
                    // Recorded (above), not applied: as if it answered nothing.
                    if let Ok(output) = &mut call {
                        *output = None;
                    }
                }
                let result = match call {
                    Ok(output) => parse_output::<E>(hook, output),
                    // A required plugin that is disabled fails a tool call (it is blocked)
                    // on every call, not only on the crashes that disabled it.
                    Err(CallFailure::Disabled)
                        if hook.is_required() && E::KIND == EventKind::ToolCall =>
                    {
                        Err(HookError::new(
                            HookErrorKind::Failed,
                            hook.path(),
                            E::KIND.name(),
                            required_disabled(hook),
                        ))
                    }
                    // A disabled plugin was reported when it was disabled; it is skipped.
                    Err(CallFailure::Disabled) => Ok(None),
                    Err(CallFailure::Failed(kind, message))
                        if hook.is_required() && E::KIND == EventKind::ToolCall =>
                    {
                        Err(HookError::new(
                            kind,
                            hook.path(),
                            E::KIND.name(),
                            format!("{message}; {REQUIRED_BLOCKS}"),
                        ))
                    }
                    Err(CallFailure::Failed(kind, message)) => {
                        Err(HookError::new(kind, hook.path(), E::KIND.name(), message))
                    }
                };
                if let Some(started) = started {
                    self.timings.report(&HandlerTiming {
                        hook_path: hook.path().to_owned(),
                        event: E::KIND,
                        duration: started.elapsed(),
                        answer,
                        observed: observing,
                    });
                }
                match step(hook, result, &mut current) {
                    Fold::Continue => {}
                    Fold::Chained => {
                        payload = serde_json::to_string(current.as_ref())?;
                        serial = next_serial();
                    }
                    Fold::Stop => return Ok(current),
                }
            }
        }
        Ok(current)
    }
}

/// What a required hook's failure means, and what to do.
const REQUIRED_BLOCKS: &str = "it is required, so the call is blocked: fix the hook, or stop requiring it (--require, \"required\": true)";

/// Why a call is blocked by a required plugin that is disabled.
fn required_disabled(hook: &Hook) -> String {
    let cause = match hook.process_state() {
        Some(crate::remote::ProcessState::Disabled(cause)) => format!(" (last: {cause})"),
        _ => String::new(),
    };
    format!(
        "is disabled for the rest of the session: its process ended {} times within {}s{cause}; it is required, so every tool call is blocked until the agent starts again with the plugin fixed (or without requiring it: --require, \"required\": true)",
        crate::remote::CRASH_LIMIT,
        crate::remote::CRASH_WINDOW.as_secs()
    )
}

/// A number for each serialised payload, unique in the process (never 0), so that a plugin
/// may parse a payload once for all its handlers (see `EventHandler::handle`).
fn next_serial() -> u64 {
    static SERIAL: AtomicU64 = AtomicU64::new(1);
    SERIAL.fetch_add(1, Ordering::Relaxed)
}

fn parse_output<E: Event>(
    hook: &Hook,
    output: Option<String>,
) -> Result<Option<E::Output>, HookError> {
    output
        .map(|json| {
            serde_json::from_str(&json).map_err(|e| {
                HookError::new(
                    HookErrorKind::Protocol,
                    hook.path(),
                    E::KIND.name(),
                    format!("returned an invalid {} result: {e}", E::KIND),
                )
            })
        })
        .transpose()
}
