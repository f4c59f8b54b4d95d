//! The command-hook phase of an emit: every matching hook at once, answers combined in
//! configuration order, so the outcome never depends on which hook finished first.

use std::{
    borrow::Cow,
    sync::{
        atomic::{AtomicU64, Ordering},
        Arc,
    },
    time::{SystemTime, UNIX_EPOCH},
};

use agent_hooks_abi::NotifyLevel;
use serde_json::Value;
use tokio::task::JoinSet;

use super::{Combine, HookError, HookErrorKind, HookRunner, Termination};
use crate::command::{
    did_not_answer, interpret, run, Answer, CommandEvent, CommandHook, CommandHookReport, Exit,
    Run, RunSpec,
};
use crate::host::AgentHost;

/// A fresh id such as `prompt-1732912345123-7`: unique within the process, ordered.
pub(crate) fn fresh_id(kind: &str) -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let millis = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or_default();
    format!("{kind}-{millis}-{}", NEXT.fetch_add(1, Ordering::Relaxed))
}

impl HookRunner {
    pub(super) async fn command_phase<E: Combine>(
        &self,
        event: &mut Cow<'_, E>,
        outcome: &mut E::Outcome,
    ) {
        if self.command[E::KIND.index()] == 0 {
            return;
        }
        let Some(input) = event.command_input() else {
            return;
        };
        let hooks = self.commands.matching(input.event, input.tool_name);
        if hooks.is_empty() {
            return;
        }
        let command_event = input.event;
        let agent = self.agent();
        let payload: Arc<[u8]> = self.payload(agent.as_ref(), input).into();
        let mut running = JoinSet::new();
        for (index, hook) in hooks.iter().enumerate() {
            let hook = hook.clone();
            let payload = payload.clone();
            let cwd = self.cwd.clone();
            let slots = self.command_slots.clone();
            running.spawn(async move {
                // Closed only when the runner is gone: then the hook runs unbounded.
                let _slot = slots.acquire_owned().await.ok();
                let project = cwd.to_string_lossy().into_owned();
                let env = [
                    ("AGENT_HOOKS_PROJECT_DIR", project.clone()),
                    ("CLAUDE_PROJECT_DIR", project),
                ];
                let spec = RunSpec {
                    command: &hook.command,
                    cwd: &cwd,
                    env: &env,
                    stdin: payload,
                    timeout: hook.timeout,
                };
                (index, run(spec).await)
            });
        }
        let mut runs: Vec<Option<Run>> = vec![None; hooks.len()];
        while let Some(joined) = running.join_next().await {
            if let Ok((index, run)) = joined {
                runs[index] = Some(run);
            }
        }
        for (hook, run) in hooks.iter().zip(runs) {
            let run = run.unwrap_or_else(|| lost_run(hook));
            let mut answer = interpret(command_event, &run);
            if hook.required && command_event == CommandEvent::PreToolUse {
                fail_closed(hook, &run, &mut answer);
            }
            E::fold_command(event, outcome, &answer);
            if let Some(reason) = &answer.stop_agent {
                crate::host::shielded((), || agent.stop_requested(reason));
            }
            if let Some(message) = &answer.system_message {
                crate::host::shielded((), || {
                    if let Some(ui) = agent.ui() {
                        ui.notify(message, NotifyLevel::Info);
                    }
                });
            }
            if !answer.problems.is_empty() {
                self.listeners.report(&HookError::new(
                    error_kind(&run.exit, hook.timeout),
                    hook.source.to_string_lossy(),
                    command_event.name(),
                    format!("`{}` {}", hook.command, answer.problems.join("; ")),
                ));
            }
            self.command_reports.report(&CommandHookReport {
                event: command_event,
                command: hook.command.clone(),
                source: hook.source.clone(),
                exit: run.exit,
                duration: run.duration,
                stdout_truncated: run.stdout_truncated,
                stderr_truncated: run.stderr_truncated,
                answer,
            });
        }
    }

    /// The stdin payload: `session_id`, `prompt_id` (once there is one), `hook_event_name`,
    /// `cwd`, then the event's fields.
    fn payload(&self, agent: &dyn AgentHost, input: super::CommandInput<'_>) -> Vec<u8> {
        let mut payload = serde_json::Map::new();
        let agent_session = agent.session().id;
        let session_id = if agent_session.is_empty() {
            self.session_id.clone()
        } else {
            agent_session
        };
        payload.insert("session_id".into(), Value::String(session_id));
        if let Some(prompt_id) = self
            .prompt_id
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
        {
            payload.insert("prompt_id".into(), Value::String(prompt_id));
        }
        payload.insert(
            "hook_event_name".into(),
            Value::String(input.event.name().to_owned()),
        );
        payload.insert(
            "cwd".into(),
            Value::String(self.cwd.to_string_lossy().into_owned()),
        );
        payload.extend(input.fields);
        serde_json::to_vec(&payload).unwrap_or_default()
    }
}

/// A required hook that did not answer (or whose answer was taken after its timeout only
/// when complete) blocks the call, naming itself and the failure.
fn fail_closed(hook: &CommandHook, run: &Run, answer: &mut Answer) {
    if answer.block.is_none() && answer.failed && did_not_answer(&run.exit) {
        answer.block = Some(format!(
            "required hook `{}` ({}) {}, so the call is blocked",
            hook.command,
            hook.source.display(),
            answer.problems.first().map_or("failed", String::as_str)
        ));
    }
}

/// What kind of failure a command hook's problems are, by how its process ended: exit 0
/// or 2 with problems means its answer was not understood.
fn error_kind(exit: &Exit, timeout: std::time::Duration) -> HookErrorKind {
    match *exit {
        Exit::TimedOut => HookErrorKind::TimedOut(timeout),
        Exit::Signal(signal) => HookErrorKind::Crashed(Termination::Signal(signal)),
        Exit::Code(0 | 2) => HookErrorKind::Protocol,
        Exit::Code(_) | Exit::SpawnFailed(_) => HookErrorKind::Failed,
    }
}

/// The run of a hook whose task did not come back (it panicked inside the runner).
fn lost_run(hook: &CommandHook) -> Run {
    Run {
        exit: Exit::SpawnFailed(format!("the task running `{}` failed", hook.command)),
        stdout: Vec::new(),
        stderr: Vec::new(),
        stdout_truncated: false,
        stderr_truncated: false,
        duration: std::time::Duration::ZERO,
    }
}
