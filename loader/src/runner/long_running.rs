//! Long-running command hooks (`"persistent": true`): one supervised process per command,
//! started on the first event it matches, sent one message per event. Its answer becomes
//! the [`Run`] a one-shot hook's process would have given, so that the same rules read it,
//! combine it and apply `required`.
//!
//! A hook marked `"persistent": "user"` has one process for every runner of the program (the
//! resident process's sessions) by command and folder, kept when a runner ends: its events
//! are taken one at a time, and what it sends during one goes to that event's agent.

use std::{
    collections::HashMap,
    path::{Path, PathBuf},
    sync::{Arc, LazyLock, Mutex},
    time::Instant,
};

use serde_json::Value;

use crate::sync::LockUnpoisoned;
use crate::{
    command_hook::{CommandHook, Exit, Persistence, Run},
    error::{HookError, HookErrorKind, Listeners, LoadError, Termination},
    hook::Hook,
    host::{AgentHost, CallContext, Outbox, PluginApi, Site},
    protocol::frames::Target,
    remote::{CallFailure, LineEvent, PluginProcess, PluginSettings, Starting, CRASH_LIMIT},
};

/// The long-running hooks of a runner, by command. Dropping it kills their process groups
/// (not those of hooks shared by every session, [`SHARED`]).
pub(crate) struct LongRunningHooks {
    processes: Mutex<HashMap<String, Arc<PluginProcess>>>,
    /// Where their messages and entries go (the runner's in-process outbox).
    outbox: Arc<Outbox>,
    /// The runner's error listeners, for what a shared hook reports during its events.
    listeners: Arc<Listeners<HookError>>,
}

/// The processes of `"persistent": "user"` hooks, by command and folder, for the life of the
/// program: every runner's sessions share them.
static SHARED: LazyLock<Mutex<HashMap<SharedKey, Arc<Shared>>>> = LazyLock::new(Mutex::default);

/// A shared process's command and folder.
type SharedKey = (String, PathBuf);

/// A process shared by every session, its outbox (pointed at each event's agent in turn),
/// and the turn its events take.
struct Shared {
    process: Arc<PluginProcess>,
    outbox: Arc<Outbox>,
    turn: tokio::sync::Mutex<()>,
}

/// What one event through a long-running hook came to: the run its answer stands for, and
/// the failure, if it gave no answer.
pub(crate) struct EventRun {
    pub(crate) run: Run,
    pub(crate) failure: Option<String>,
    /// It wrote more than [`STDERR_LOG`](crate::isolation::STDERR_LOG) to stderr since
    /// the previous event: the rest was dropped (said in its report, not as a problem of
    /// its answer).
    pub(crate) stderr_dropped: bool,
}

/// A startup hook whose process was started and has not said hello yet.
pub(crate) struct StartingHook {
    hook: CommandHook,
    command: String,
    process: Arc<PluginProcess>,
    starting: Starting,
}

impl LongRunningHooks {
    pub(crate) fn new(outbox: Arc<Outbox>, listeners: Arc<Listeners<HookError>>) -> Self {
        Self {
            processes: Mutex::default(),
            outbox,
            listeners,
        }
    }

    /// The shared process of a `"persistent": "user"` hook, made on first use.
    fn shared(
        &self,
        hook: &CommandHook,
        command: &str,
        env: impl FnOnce() -> Vec<(String, String)>,
        cwd: &Path,
    ) -> Arc<Shared> {
        let mut shared = SHARED.lock_unpoisoned();
        shared
            .entry((command.to_owned(), cwd.to_path_buf()))
            .or_insert_with(|| {
                let outbox = Arc::new(Outbox::default());
                let api =
                    PluginApi::new(outbox.clone(), cwd.to_path_buf(), command, Site::default());
                let process = Arc::new(PluginProcess::script(
                    command,
                    env(),
                    false,
                    cwd,
                    settings_of(hook),
                    api,
                ));
                Arc::new(Shared {
                    process,
                    outbox,
                    turn: tokio::sync::Mutex::new(()),
                })
            })
            .clone()
    }

    /// Starts `hook`'s process now (`"persistent": "startup"`) and returns without waiting
    /// for its hello: [`finish_start`](Self::finish_start) waits, so that the startup hooks
    /// of a runner all start at once and a hook that never says hello holds the runner's
    /// start for its own timeout only, not for every such hook's in turn.
    pub(crate) fn begin_start(
        &self,
        hook: &CommandHook,
        command: &str,
        env: &[(String, String)],
        cwd: &Path,
    ) -> Result<StartingHook, LoadError> {
        let process = self.process(hook, command, Persistence::Startup, || env.to_vec(), cwd);
        let starting = process.begin()?;
        Ok(StartingHook {
            hook: hook.clone(),
            command: command.to_owned(),
            process,
            starting,
        })
    }

    /// Waits for a started hook's hello: what it registered (runner events, commands)
    /// becomes a hook of the runner, `None` when it registered nothing.
    pub(crate) fn finish_start(&self, started: StartingHook) -> Result<Option<Hook>, LoadError> {
        let StartingHook {
            hook,
            command,
            process,
            starting,
        } = started;
        let registered = process.finish(starting)?;
        if registered.handlers.is_empty() && registered.commands.is_empty() {
            return Ok(None);
        }
        // The process's own API: one registry and one log budget per hook.
        let api = process.api();
        Ok(Some(Hook::remote(
            command,
            hook.source.clone(),
            process,
            registered,
            api,
            self.outbox.clone(),
            settings_of(&hook),
        )))
    }

    /// The process of `hook`'s `command` (one per command, whichever events and files name
    /// it), made on first use with the variables `env` gives; it starts on its first call.
    fn process(
        &self,
        hook: &CommandHook,
        command: &str,
        persistence: Persistence,
        env: impl FnOnce() -> Vec<(String, String)>,
        cwd: &Path,
    ) -> Arc<PluginProcess> {
        let mut processes = self.processes.lock_unpoisoned();
        if let Some(process) = processes.get(command) {
            return process.clone();
        }
        processes
            .entry(command.to_owned())
            .or_insert_with(|| {
                let settings = settings_of(hook);
                let api = PluginApi::new(
                    self.outbox.clone(),
                    cwd.to_path_buf(),
                    command,
                    Site::default(),
                );
                let env = env();
                Arc::new(PluginProcess::script(
                    command,
                    env,
                    persistence == Persistence::Startup,
                    cwd,
                    settings,
                    api,
                ))
            })
            .clone()
    }

    /// Sends `payload` to the process of `hook` (whose kind is long-running, with
    /// `command` and `persistence`) as one event and waits for its answer, within the
    /// hook's timeout (time spent waiting for the user does not count). Its requests are
    /// served with the agent's UI, as a native plugin's are. `alone`: it is the only hook
    /// the emit waits for. `env` gives the variables of its process, should it be made now
    /// (its first event).
    // `command` and `persistence` are borrowed from the hook, which moves to the thread
    // that may wait for the answer.
    #[allow(clippy::too_many_arguments)]
    pub(crate) async fn call(
        &self,
        hook: Arc<CommandHook>,
        command: &str,
        persistence: Persistence,
        payload: Arc<str>,
        env: impl FnOnce() -> Vec<(String, String)>,
        cwd: PathBuf,
        agent: Arc<dyn AgentHost>,
        alone: bool,
    ) -> EventRun {
        // A shared process takes its events one at a time, and what it sends during one goes
        // to that event's agent and listeners.
        let (process, outbox, shared) = match persistence {
            Persistence::User => {
                let shared = self.shared(&hook, command, env, &cwd);
                (shared.process.clone(), shared.outbox.clone(), Some(shared))
            }
            Persistence::Session | Persistence::Startup => (
                self.process(&hook, command, persistence, env, &cwd),
                self.outbox.clone(),
                None,
            ),
        };
        let _turn = match &shared {
            Some(shared) => {
                let turn = shared.turn.lock().await;
                shared.outbox.attach(agent.clone());
                shared.outbox.report_to(self.listeners.clone());
                Some(turn)
            }
            None => None,
        };
        // What it sends during this event is counted afresh (see `Outbox::send`).
        outbox.begin_call();
        let started = Instant::now();
        // Its process runs (every event after the first): the event is awaited here, with
        // no thread hand-off. Else it is started on a thread that may wait for its hello.
        let in_task = match tokio::runtime::Handle::try_current() {
            Ok(_) => {
                process
                    .event_in_task(&LineEvent {
                        name: &hook.event_name,
                        payload: &payload,
                        agent: &agent,
                        cwd: &cwd,
                        timeout: hook.timeout,
                        alone,
                    })
                    .await
            }
            Err(_) => None,
        };
        let in_task = in_task.map(|result| {
            let (stderr, truncated) = process.take_stderr();
            (result, stderr, truncated)
        });
        let call = move || {
            let ctx = CallContext::event(&agent, &cwd);
            let target = Target::Handler {
                event: hook.event_name.clone(),
                index: 0,
                serial: 0,
            };
            let result =
                process.call_answer(target, &payload, &ctx, hook.timeout, &hook.event_name);
            let (stderr, truncated) = process.take_stderr();
            (result, stderr, truncated)
        };
        let (result, stderr, stderr_truncated) =
            match (in_task, tokio::runtime::Handle::try_current()) {
                (Some(done), _) => done,
                (None, Ok(handle)) => match handle.spawn_blocking(call).await {
                    Ok(done) => done,
                    Err(e) => (
                        Err(CallFailure::Failed(
                            HookErrorKind::Runner,
                            format!("the thread that waited for it failed: {e}"),
                        )),
                        Vec::new(),
                        false,
                    ),
                },
                (None, Err(_)) => call(),
            };
        let run = |exit: Exit, stdout: Vec<u8>, stderr: Vec<u8>| Run {
            exit,
            stdout,
            stderr,
            stdout_truncated: false,
            stderr_truncated: false,
            duration: started.elapsed(),
        };
        match result {
            Ok(answer) => {
                let (exit, stdout, reason) = read_answer(answer.as_deref());
                // What exit code 2 says reads the reason where a one-shot hook's is.
                let stderr = reason.map_or(stderr, String::into_bytes);
                EventRun {
                    run: run(exit, stdout, stderr),
                    failure: None,
                    stderr_dropped: stderr_truncated,
                }
            }
            Err(failure) => {
                let (exit, message) = failed_exit(failure);
                // The report names the hook: the message need not say it again.
                let message = message
                    .strip_prefix(&format!("{command} "))
                    .map(str::to_owned)
                    .unwrap_or(message);
                EventRun {
                    run: run(exit, Vec::new(), stderr),
                    failure: Some(message),
                    stderr_dropped: stderr_truncated,
                }
            }
        }
    }
}

/// A long-running hook's deadlines: its `timeout` for its start, each event and each
/// command.
fn settings_of(hook: &CommandHook) -> PluginSettings {
    PluginSettings {
        factory_timeout: hook.timeout,
        handler_timeout: hook.timeout,
        command_timeout: hook.timeout,
        ..PluginSettings::default()
    }
}

/// An answer's `block` (what exit code 2 says) or `output` (what a one-shot hook prints on
/// stdout: a JSON object, or plain text where the event reads text): the exit code and
/// stdout of the run it stands for, and the reason of a block.
fn read_answer(answer: Option<&str>) -> (Exit, Vec<u8>, Option<String>) {
    let fields = answer
        .and_then(|a| serde_json::from_str::<Value>(a).ok())
        .unwrap_or(Value::Null);
    if let Some(reason) = fields.get("block") {
        let reason = match reason {
            Value::String(reason) => reason.clone(),
            _ => String::new(),
        };
        return (Exit::Code(2), Vec::new(), Some(reason));
    }
    let stdout = match fields.get("output") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(text)) => text.clone().into_bytes(),
        Some(other) => other.to_string().into_bytes(),
    };
    (Exit::Code(0), stdout, None)
}

/// How a call that gave no answer counts for the one-shot rules (`required` blocks on what
/// did not answer), and what to report.
fn failed_exit(failure: CallFailure) -> (Exit, String) {
    match failure {
        CallFailure::Disabled => (
            Exit::SpawnFailed("disabled".into()),
            format!(
                "is disabled for the rest of the session: its process ended {CRASH_LIMIT} times within {}s; fix it and start a new session",
                crate::remote::CRASH_WINDOW.as_secs()
            ),
        ),
        CallFailure::Failed(HookErrorKind::TimedOut(_), message) => (Exit::TimedOut, message),
        CallFailure::Failed(HookErrorKind::Crashed(Termination::Signal(signal)), message) => {
            (Exit::Signal(signal), message)
        }
        CallFailure::Failed(HookErrorKind::Crashed(_), message) => {
            (Exit::SpawnFailed(message.clone()), message)
        }
        // It answered with an error: a failure that did not block, as a non-zero exit.
        CallFailure::Failed(_, message) => (Exit::Code(1), format!("answered an error: {message}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_stand_for_the_runs_of_one_shot_hooks() {
        assert_eq!(
            read_answer(Some(r#"{"block":"no rm -rf"}"#)),
            (Exit::Code(2), Vec::new(), Some("no rm -rf".into()))
        );
        assert_eq!(
            read_answer(Some(r#"{"output":{"decision":"approve"}}"#)),
            (Exit::Code(0), br#"{"decision":"approve"}"#.to_vec(), None)
        );
        assert_eq!(
            read_answer(Some(r#"{"output":"Deploys need a ticket."}"#)),
            (Exit::Code(0), b"Deploys need a ticket.".to_vec(), None)
        );
        assert_eq!(read_answer(Some("{}")), (Exit::Code(0), Vec::new(), None));
        assert_eq!(read_answer(None), (Exit::Code(0), Vec::new(), None));
    }
}
