//! The runner: [`HookRunner`] runs every handler of every hook for an event, in order,
//! combined by the rules of each event ([`Combine`], docs/embedding.md, "Running hooks"), and
//! gives the outcome of each event ([`ToolCallOutcome`], [`ContextOutcome`], ...); errors go to
//! listeners, command hooks run beside plugins, and commands and renderers are looked up.

mod agent_env;
mod combine;
mod commands;
mod dispatch;
mod host_calls;
mod join;
mod long_running;
mod lookups;
mod payload;
mod sequential;

use std::{
    path::{Path, PathBuf},
    sync::{
        atomic::{AtomicU32, Ordering},
        Arc, RwLock,
    },
};

use agent_hooks_abi::{events::EventKind, HandlerResult, HookApi};

pub(crate) use crate::error::Listeners;
pub(crate) use crate::error::{
    ErrorSubscription, HookError, HookErrorKind, Subscription, Termination,
};
pub use combine::{
    Combine, CommandInput, ContextOutcome, Fold, PermissionOutcome, PromptOutcome,
    SessionStartOutcome, StopOutcome, ToolCallOutcome, ToolResultOutcome,
};
pub(crate) use commands::hook_env;
pub use lookups::default_rendering;

use crate::sync::RwLockUnpoisoned;
use crate::{
    command_hook::{CommandHookReport, CommandHooks, HookKind, Persistence, ToolNames},
    error::LoadError,
    hook::{Hook, HookOrigin},
    host::{AgentHost, DetachedAgent, Outbox, PluginApi, Site},
};

// Many tasks emit at once: the runner must stay shareable across threads.
const _: fn() = || {
    fn shareable<T: Send + Sync>() {}
    shareable::<HookRunner>();
};

/// How many command hooks run at once, across every emit, unless set otherwise.
pub const DEFAULT_MAX_CONCURRENT_COMMAND_HOOKS: usize = 32;

/// How many times in a row stop hooks may keep the agent going before the runner lets it
/// stop (and reports it).
pub const DEFAULT_MAX_STOP_BLOCKS: u32 = 8;

/// Runs the handlers of loaded and in-process hooks.
///
/// Hooks run in the order they were added (load order first), and each hook's handlers in
/// the order it registered them. `Send + Sync`: many tasks may emit at once; an emit takes
/// no lock but a read lock on the attached agent, so emits do not serialise one another.
///
/// # Native handlers on tokio
///
/// A native handler is a synchronous call into a plugin, of nanoseconds to microseconds:
/// [`HookRunner::emit`] runs the handlers inline, on the emitting task. What can make a
/// handler wait is the host: a UI prompt (`select`, `confirm`, `input`, `editor`, `custom`),
/// a session action, or a program run with `exec`. Those calls go through
/// [`tokio::task::block_in_place`] when they run on a multi-threaded runtime's worker, so
/// the worker hands its other tasks to another thread for as long as the user takes. The
/// hand-off costs some microseconds (a lock and a thread wake-up), paid only by a call that
/// waits anyway; an emit that waits for nothing pays nothing. (A first version put every
/// emit in `block_in_place`: that cost 11 to 15 µs per emit and capped concurrent emits at
/// about 80,000 per second; see BENCHMARKS.md.) Command hooks are awaited. On a
/// current-thread runtime a waiting call blocks the runtime's one thread.
/// [`HookRunner::emit_blocking`] is the same for hosts that are not async; it waits for the
/// command hooks on the calling thread itself (with a current-thread runtime of that
/// thread's own, kept between calls), as `std::process` waits for a program, where `emit`
/// awaited on a multi-threaded runtime is woken through one of the runtime's workers.
pub struct HookRunner {
    hooks: Vec<Hook>,
    /// Native (and in-process) handlers per event, so that `has_handlers` is two loads.
    native: Box<[usize]>,
    /// Command hooks per (runner) event.
    command: Box<[usize]>,
    agent: RwLock<Arc<dyn AgentHost>>,
    /// The attached agent's tools in each dialect, asked once when it is attached.
    tool_names: RwLock<Arc<ToolNames>>,
    cwd: PathBuf,
    in_process_outbox: Arc<Outbox>,
    listeners: Arc<Listeners<HookError>>,
    commands: CommandHooks,
    /// The processes of long-running command hooks; dropped (and killed) with the runner.
    long_running: Arc<long_running::LongRunningHooks>,
    command_reports: Arc<Listeners<CommandHookReport>>,
    session_id: String,
    prompt_id: RwLock<Option<String>>,
    stop_streak: AtomicU32,
    /// The `once` hooks that ran (by address).
    ran_once: std::sync::Mutex<Vec<usize>>,
    max_stop_blocks: u32,
    /// Bounds how many command hooks run at once, across every emit.
    command_slots: Arc<tokio::sync::Semaphore>,
    timings: Arc<Listeners<HandlerTiming>>,
    timing: std::sync::atomic::AtomicBool,
}

/// How long one native handler took, for hosts that show where time goes.
#[derive(Debug, Clone)]
pub struct HandlerTiming {
    /// The hook's path as given.
    pub hook_path: String,
    /// The event.
    pub event: EventKind,
    /// The call's duration.
    pub duration: std::time::Duration,
    /// Its answer as the handler wrote it (JSON); `None` when it answered nothing or failed
    /// (a failure is reported to [`on_error`](HookRunner::on_error)).
    pub answer: Option<String>,
    /// The hook observes: its answer was recorded, not applied.
    pub observed: bool,
}

impl HookRunner {
    /// A runner over `hooks` (e.g. [`LoadHooksResult::hooks`](crate::load::LoadHooksResult)), whose handlers see `cwd`
    /// as the agent's working folder.
    pub fn new(hooks: Vec<Hook>, cwd: impl Into<PathBuf>) -> Self {
        let in_process_outbox = Arc::new(Outbox::default());
        let listeners: Arc<Listeners<HookError>> = Arc::default();
        let mut runner = Self {
            hooks: Vec::new(),
            native: vec![0; EventKind::COUNT].into_boxed_slice(),
            command: vec![0; EventKind::COUNT].into_boxed_slice(),
            agent: RwLock::new(Arc::new(DetachedAgent)),
            tool_names: RwLock::new(Arc::new(ToolNames::default())),
            cwd: cwd.into(),
            long_running: Arc::new(long_running::LongRunningHooks::new(
                in_process_outbox.clone(),
                listeners.clone(),
            )),
            in_process_outbox,
            listeners,
            commands: CommandHooks::new(),
            command_reports: Arc::default(),
            session_id: commands::fresh_id("session"),
            prompt_id: RwLock::new(None),
            stop_streak: AtomicU32::new(0),
            ran_once: std::sync::Mutex::new(Vec::new()),
            max_stop_blocks: DEFAULT_MAX_STOP_BLOCKS,
            command_slots: Arc::new(tokio::sync::Semaphore::new(
                DEFAULT_MAX_CONCURRENT_COMMAND_HOOKS,
            )),
            timings: Arc::default(),
            timing: std::sync::atomic::AtomicBool::new(false),
        };
        runner.in_process_outbox.report_to(runner.listeners.clone());
        for hook in hooks {
            runner.push(hook);
        }
        runner
    }

    fn push(&mut self, hook: Hook) {
        hook.outbox().report_to(self.listeners.clone());
        for kind in EventKind::ALL {
            self.native[kind.index()] += hook.handler_count(*kind);
        }
        self.hooks.push(hook);
    }

    /// Adds a hook that lives in the host's own binary, after those already added.
    ///
    /// `factory` receives the same [`HookApi`] as a plugin's factory, and its handlers go
    /// through the same dispatch as a plugin's (the same boundary types, the same JSON). An
    /// error or a panic in `factory` is returned and the hook is not added.
    pub fn add_in_process<F>(&mut self, name: &str, factory: F) -> Result<(), LoadError>
    where
        F: FnOnce(&mut HookApi) -> HandlerResult<()>,
    {
        let outbox = self.in_process_outbox.clone();
        let api = PluginApi::new(outbox.clone(), self.cwd.clone(), name, Site::default());
        if let Err(error) = agent_hooks_abi::host::run_factory(api.to_object(), factory) {
            let message = error.message.into_string();
            return Err(if error.panicked {
                LoadError::FactoryPanicked { message }
            } else {
                LoadError::FactoryFailed { message }
            });
        }
        let hook = Hook::new(
            name.to_owned(),
            PathBuf::new(),
            HookOrigin::InProcess,
            api,
            outbox,
            // The host's own code: called on the emitting thread.
            crate::remote::PluginSettings::inline(),
        );
        self.push(hook);
        Ok(())
    }

    /// Runs `future` (emits of a runner, say) with `environment` as the agent's variables
    /// for its events: every command hook they start gets them, over the runner's own
    /// variables of the same name (but `AGENT_HOOKS_*`, which stay agent-hooks'), and so
    /// does a long-running hook's process that one of them starts. For a host that runs
    /// hooks on an agent's behalf in a process the agent did not start (the resident
    /// process that serves an agent's relay), so that a hook gets what the agent gave that
    /// event, as the agent's own hooks do.
    pub async fn with_agent_environment<F: std::future::Future>(
        environment: Vec<(String, String)>,
        future: F,
    ) -> F::Output {
        agent_env::with_agent_environment(environment, future).await
    }

    /// Adds command hooks after those already added. In each emit they run after the native
    /// handlers (all matching ones at once), and their answers are combined in
    /// configuration order.
    ///
    /// A long-running hook marked `"persistent": "startup"` is started here (once per
    /// command); the runner events and commands its hello registers join the hooks, after
    /// those already added. One that does not start is an issue of
    /// [`command_hooks`](Self::command_hooks) and starts again on its first event.
    pub fn add_command_hooks(&mut self, mut hooks: CommandHooks) {
        let mut started: Vec<String> = Vec::new();
        let mut starting = Vec::new();
        for hook in hooks.hooks() {
            if let Some(kind) = hook.event.runner_event() {
                self.command[kind.index()] += 1;
            }
            let HookKind::LongRunning {
                command,
                persistence: Persistence::Startup,
            } = &hook.kind
            else {
                continue;
            };
            if started.contains(command) {
                continue;
            }
            started.push(command.clone());
            let own = commands::hook_env(hook, &self.cwd, None, &self.session_id);
            let env = agent_env::current().beneath(own.iter().map(|(k, v)| (*k, v.as_str())));
            let begun = self
                .long_running
                .begin_start(hook, command, &env, &self.cwd);
            starting.push((hook, begun));
        }
        // Every startup hook was started before any hello is waited for.
        let mut joined = Vec::new();
        for (hook, begun) in starting {
            let finished = begun.and_then(|begun| self.long_running.finish_start(begun));
            match finished {
                Ok(Some(mut registered)) => {
                    // What its hello registered is as required as the hook.
                    registered.set_required(hook.required);
                    joined.push(Ok(registered));
                }
                Ok(None) => {}
                Err(error) => joined.push(Err(crate::command_hook::ConfigIssue {
                    file: hook.source.clone(),
                    location: None,
                    message: format!(
                        "`{}` did not start: {}; it starts again on its first event, without the runner events and commands of its hello",
                        hook.kind.label(),
                        crate::remote::script_failure(&error)
                    ),
                    severity: crate::command_hook::Severity::Error,
                })),
            }
        }
        for result in joined {
            match result {
                Ok(hook) => self.push(hook),
                Err(issue) => hooks.push_issue(issue),
            }
        }
        self.commands.append(hooks);
    }

    /// The command hooks, in configuration order.
    pub fn command_hooks(&self) -> &CommandHooks {
        &self.commands
    }

    /// Sets how many times in a row stop hooks may keep the agent going
    /// (default [`DEFAULT_MAX_STOP_BLOCKS`]); past it the runner lets the agent stop.
    pub fn set_max_stop_blocks(&mut self, max: u32) {
        self.max_stop_blocks = max;
    }

    /// Sets how many command hooks may run at once, across every emit (default
    /// [`DEFAULT_MAX_CONCURRENT_COMMAND_HOOKS`]; at least 1). The others wait their turn, so
    /// that hundreds of matching hooks queue instead of exhausting file descriptors; every
    /// answer is still combined in configuration order.
    pub fn set_max_concurrent_command_hooks(&mut self, max: usize) {
        self.command_slots = Arc::new(tokio::sync::Semaphore::new(max.max(1)));
    }

    /// Subscribes `listener` to the report of every command hook run: exit, duration,
    /// decision, truncation, problems.
    pub fn on_command_hook(
        &self,
        listener: impl Fn(&CommandHookReport) + Send + Sync + 'static,
    ) -> Subscription {
        self.command_reports.subscribe(Arc::new(listener))
    }

    /// Subscribes `listener` to the duration of every native handler call. Until a first
    /// listener subscribes, calls are not timed at all.
    pub fn on_handler_timing(
        &self,
        listener: impl Fn(&HandlerTiming) + Send + Sync + 'static,
    ) -> Subscription {
        self.timing.store(true, Ordering::Relaxed);
        self.timings.subscribe(Arc::new(listener))
    }

    /// Attaches the agent: hooks' calls reach it from now on, and the messages and entries
    /// they sent before (from their factories) are delivered to it, in order.
    pub fn attach(&self, agent: Arc<dyn AgentHost>) {
        let names = crate::host::shielded(ToolNames::default(), || agent.tool_names());
        *self.tool_names.write_unpoisoned() = Arc::new(names);
        *self.agent.write_unpoisoned() = agent.clone();
        for outbox in self.outboxes() {
            outbox.attach(agent.clone());
        }
    }

    /// Messages and entries that hooks sent and that wait for an agent to be attached.
    pub fn pending_messages(&self) -> usize {
        self.outboxes().iter().map(|o| o.pending_count()).sum()
    }

    fn outboxes(&self) -> Vec<&Arc<Outbox>> {
        let mut outboxes: Vec<&Arc<Outbox>> = Vec::new();
        let all = self
            .hooks
            .iter()
            .map(Hook::outbox)
            .chain(std::iter::once(&self.in_process_outbox));
        for outbox in all {
            if !outboxes.iter().any(|o| Arc::ptr_eq(o, outbox)) {
                outboxes.push(outbox);
            }
        }
        outboxes
    }

    /// The hooks, in order.
    pub fn hooks(&self) -> &[Hook] {
        &self.hooks
    }

    /// The agent's working folder, as hooks see it.
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// Whether any hook (native or command) handles `kind`. Cheap: no allocation, no lock.
    pub fn has_handlers(&self, kind: EventKind) -> bool {
        self.native[kind.index()] + self.command[kind.index()] > 0
    }

    /// Reports an error of the runner itself (not of a hook) and returns it.
    fn runner_error(&self, event: &str, message: String) -> HookError {
        let error = HookError::new(HookErrorKind::Runner, "", event, message);
        self.listeners.report(&error);
        error
    }

    /// Subscribes `listener` to every [`HookError`]: a handler's error or panic, in any
    /// event, command or renderer. A listener that panics does not disturb the emit.
    pub fn on_error(
        &self,
        listener: impl Fn(&HookError) + Send + Sync + 'static,
    ) -> ErrorSubscription {
        self.listeners.subscribe(Arc::new(listener))
    }

    /// Asks the user through the agent's UI; `false` without a UI.
    pub(crate) fn confirm(&self, title: &str, message: &str) -> bool {
        let agent = self.agent();
        crate::host::shielded(false, || {
            agent.ui().is_some_and(|ui| ui.confirm(title, message))
        })
    }

    fn agent(&self) -> Arc<dyn AgentHost> {
        self.agent.read_unpoisoned().clone()
    }
}

impl Drop for HookRunner {
    /// Messages and entries hooks sent while no agent was ever attached are not lost in
    /// silence: the error listeners hear how many there were. The session's
    /// `CLAUDE_ENV_FILE` is removed.
    fn drop(&mut self) {
        let env_file = std::env::temp_dir().join(format!("agent-hooks-env-{}.sh", self.session_id));
        let _ = std::fs::remove_file(env_file);
        let pending = self.pending_messages();
        if pending > 0 {
            self.runner_error(
                "send_message",
                format!("{pending} message(s) or entries sent by hooks were never delivered: no agent was attached to the runner"),
            );
        }
    }
}
