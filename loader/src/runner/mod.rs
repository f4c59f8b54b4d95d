//! The runner: every handler of every hook for an event, in order, combined by the rules of
//! spec 01; errors reported to listeners; commands and renderers looked up.

mod combine;
mod commands;
mod errors;

use std::{
    any::Any,
    borrow::Cow,
    ops::ControlFlow,
    path::{Path, PathBuf},
    sync::{
        atomic::{AtomicU32, AtomicU64, Ordering},
        Arc, RwLock,
    },
};

use abi_stable::{sabi_trait::TD_Opaque, std_types::RString};
use agent_hooks_abi::{
    events::{CustomMessage, Event, EventKind, StopEvent},
    ffi::{CallError, HostContext_TO},
    HandlerResult, HookApi, RenderOptions,
};

pub use combine::{
    Combine, CommandInput, ContextOutcome, Fold, PermissionOutcome, PromptOutcome,
    SessionStartOutcome, StopOutcome, ToolCallOutcome, ToolResultOutcome,
};
pub use errors::{ErrorSubscription, HookError, Subscription};

use crate::{
    command::{CommandHookReport, CommandHooks},
    hook::{Command, Hook, HookOrigin, Renderer},
    host::{AgentHost, CallContext, DetachedAgent, Outbox, PluginApi},
    load::{LoadError, LoadHooksResult},
};
use errors::Listeners;

// Many tasks emit at once: the runner must stay shareable across threads.
const _: fn() = || {
    fn shareable<T: Send + Sync>() {}
    shareable::<HookRunner>();
};

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
/// [`HookRunner::emit_blocking`] is the same for hosts that are not async.
pub struct HookRunner {
    hooks: Vec<Hook>,
    /// Handlers per event across all hooks, command hooks included, so that `has_handlers`
    /// is one load.
    listening: Box<[usize]>,
    /// Native (and in-process) handlers per event.
    native: Box<[usize]>,
    agent: RwLock<Arc<dyn AgentHost>>,
    cwd: PathBuf,
    in_process_outbox: Arc<Outbox>,
    listeners: Arc<Listeners<HookError>>,
    commands: CommandHooks,
    command_reports: Arc<Listeners<CommandHookReport>>,
    session_id: String,
    prompt_id: RwLock<Option<String>>,
    stop_streak: AtomicU32,
    max_stop_blocks: u32,
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
}

impl HookRunner {
    /// A runner over `hooks` (e.g. [`LoadHooksResult::hooks`]), whose handlers see `cwd`
    /// as the agent's working folder.
    pub fn new(hooks: Vec<Hook>, cwd: impl Into<PathBuf>) -> Self {
        let mut runner = Self {
            hooks: Vec::new(),
            listening: vec![0; EventKind::COUNT].into_boxed_slice(),
            native: vec![0; EventKind::COUNT].into_boxed_slice(),
            agent: RwLock::new(Arc::new(DetachedAgent)),
            cwd: cwd.into(),
            in_process_outbox: Arc::new(Outbox::default()),
            listeners: Arc::default(),
            commands: CommandHooks::new(),
            command_reports: Arc::default(),
            session_id: commands::fresh_id("session"),
            prompt_id: RwLock::new(None),
            stop_streak: AtomicU32::new(0),
            max_stop_blocks: DEFAULT_MAX_STOP_BLOCKS,
            timings: Arc::default(),
            timing: std::sync::atomic::AtomicBool::new(false),
        };
        for hook in hooks {
            runner.push(hook);
        }
        runner
    }

    /// A runner over the hooks of `loaded`. Its load errors are the caller's to report.
    pub fn from_loaded(loaded: LoadHooksResult, cwd: impl Into<PathBuf>) -> Self {
        Self::new(loaded.hooks, cwd)
    }

    fn push(&mut self, hook: Hook) {
        for kind in EventKind::ALL {
            self.listening[kind.index()] += hook.handler_count(*kind);
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
        let api = PluginApi::new(outbox.clone(), self.cwd.clone());
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
        );
        self.push(hook);
        Ok(())
    }

    /// Adds command hooks after those already added. In each emit they run after the native
    /// handlers (all matching ones at once), and their answers are combined in
    /// configuration order.
    pub fn add_command_hooks(&mut self, hooks: CommandHooks) {
        for hook in hooks.hooks() {
            self.listening[hook.event.runner_event().index()] += 1;
        }
        let mut all = std::mem::take(&mut self.commands);
        all.append(hooks);
        self.commands = all;
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
        *self.agent.write().unwrap_or_else(|p| p.into_inner()) = agent.clone();
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
        self.listening[kind.index()] > 0
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
        self.agent.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Emits `event`: native handlers first (hooks in load order), then the matching
    /// command hooks, all at once; their results are combined by [`Combine`].
    ///
    /// A handler's error or panic is reported to the error listeners and the next handler
    /// runs; for a strict event (`tool_call`) it also stops the emit and is returned. A
    /// native block (or cancel) short-circuits: command hooks do not run.
    /// See [the type's docs](HookRunner#native-handlers-on-tokio) for how native handlers
    /// run on tokio.
    pub async fn emit<E: Combine>(&self, event: &E) -> Result<E::Outcome, HookError> {
        let event = self.prepare(event);
        let native = self.native[E::KIND.index()] > 0;
        let (mut outcome, mut current, stopped) = if native {
            self.native_phase(event)?
        } else {
            (E::Outcome::default(), event, false)
        };
        if !stopped {
            self.command_phase(&mut current, &mut outcome).await;
        }
        Ok(self.finish::<E>(outcome))
    }

    /// [`emit`](Self::emit), on the calling thread. Command hooks, if any match, run on the
    /// current multi-threaded tokio runtime, or on a runtime made for the call outside one;
    /// inside a current-thread runtime use `emit`.
    pub fn emit_blocking<E: Combine>(&self, event: &E) -> Result<E::Outcome, HookError> {
        let event = self.prepare(event);
        let (mut outcome, mut current, stopped) = self.native_phase(event)?;
        if !stopped && self.listening[E::KIND.index()] > self.native[E::KIND.index()] {
            let commands = self.command_phase(&mut current, &mut outcome);
            match tokio::runtime::Handle::try_current() {
                Ok(handle) if multi_threaded() => {
                    tokio::task::block_in_place(|| handle.block_on(commands))
                }
                Ok(_) => self.listeners.report(&HookError {
                    hook_path: String::new(),
                    event: E::KIND.name().to_owned(),
                    panicked: false,
                    message: "command hooks cannot run from emit_blocking inside a current-thread tokio runtime; use emit".into(),
                }),
                Err(_) => match tokio::runtime::Builder::new_current_thread().enable_all().build() {
                    Ok(runtime) => runtime.block_on(commands),
                    Err(e) => self.listeners.report(&HookError {
                        hook_path: String::new(),
                        event: E::KIND.name().to_owned(),
                        panicked: false,
                        message: format!("cannot start a runtime for command hooks: {e}"),
                    }),
                },
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
            *self.prompt_id.write().unwrap_or_else(|p| p.into_inner()) =
                Some(commands::fresh_id("prompt"));
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
                Ok(Some(output)) => E::fold(current, &mut outcome, output),
                Ok(None) => Fold::Continue,
                Err(error) => {
                    let error = HookError::from_call(hook.path(), E::KIND.name(), error);
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
                let error = HookError {
                    hook_path: String::new(),
                    event: E::KIND.name().to_owned(),
                    panicked: false,
                    message: format!("the event cannot be serialised: {error}"),
                };
                self.listeners.report(&error);
                return Err(error);
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
                self.listeners.report(&HookError {
                    hook_path: String::new(),
                    event: EventKind::Stop.name().to_owned(),
                    panicked: false,
                    message: format!(
                        "stop hooks kept the agent going {} times in a row; letting it stop (the bound is set with set_max_stop_blocks)",
                        self.max_stop_blocks
                    ),
                });
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
        mut visit: impl FnMut(&Hook, Result<Option<E::Output>, CallError>) -> ControlFlow<()>,
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
        mut step: impl FnMut(&Hook, Result<Option<E::Output>, CallError>, &mut Cow<'e, E>) -> Fold,
    ) -> Result<Cow<'e, E>, serde_json::Error> {
        if self.native[E::KIND.index()] == 0 {
            return Ok(event);
        }
        let mut current = event;
        let mut payload = serde_json::to_string(current.as_ref())?;
        let mut serial = next_serial();
        let agent = self.agent();
        let context = CallContext::event(agent.as_ref(), &self.cwd);
        let timed = self.timing.load(Ordering::Relaxed);
        for hook in &self.hooks {
            for handler in hook.handlers(E::KIND) {
                let ctx = HostContext_TO::from_ptr(&context, TD_Opaque);
                let started = timed.then(std::time::Instant::now);
                let result = handler
                    .handle(payload.as_str().into(), serial, ctx)
                    .into_result()
                    .and_then(|output| parse_output::<E>(output.into_option()));
                if let Some(started) = started {
                    self.timings.report(&HandlerTiming {
                        hook_path: hook.path().to_owned(),
                        event: E::KIND,
                        duration: started.elapsed(),
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

    /// The command `name` (without `/`) of the first hook that registered it.
    pub fn get_command(&self, name: &str) -> Option<&Command> {
        let name = name.trim_start_matches('/');
        self.registered_commands().find(|c| c.name == name)
    }

    /// Every command of every hook, in hook order, duplicates included.
    pub fn registered_commands(&self) -> impl Iterator<Item = &Command> + '_ {
        self.hooks.iter().flat_map(|hook| hook.commands())
    }

    /// The renderer of the first hook that registered one for `custom_type`.
    pub fn get_message_renderer(&self, custom_type: &str) -> Option<&Renderer> {
        self.hooks
            .iter()
            .flat_map(|hook| hook.renderers())
            .find(|r| r.custom_type == custom_type)
    }

    /// Runs the command `name` (without `/`) of the first hook that registered it, with the
    /// command context, passing `args` (the text after the name). `None` when no hook
    /// registered it. An error or panic is returned and reported to the error listeners.
    pub fn run_command(&self, name: &str, args: &str) -> Option<Result<(), HookError>> {
        let command = self.get_command(name)?;
        let agent = self.agent();
        let context = CallContext::command(agent.as_ref(), &self.cwd);
        let ctx = HostContext_TO::from_ptr(&context, TD_Opaque);
        let result = command.handler.run(args.into(), ctx).into_result();
        Some(result.map_err(|error| {
            let error =
                HookError::from_call(&command.hook_path, format!("/{}", command.name), error);
            self.listeners.report(&error);
            error
        }))
    }

    /// Renders `message` with the renderer of the first hook that registered one for its
    /// `custom_type`. `None` means "use the default rendering" (a `[custom_type]` label and
    /// the content): there is no renderer, it declined, or it failed; a failure is also
    /// reported to the error listeners.
    pub fn render_message(
        &self,
        message: &CustomMessage,
        options: &RenderOptions,
    ) -> Option<String> {
        let renderer = self.get_message_renderer(&message.custom_type)?;
        let failed = |message: String| {
            self.listeners.report(&HookError {
                hook_path: renderer.hook_path.clone(),
                event: format!("renderer:{}", renderer.custom_type),
                panicked: false,
                message,
            });
            None
        };
        let (Ok(json), Ok(options)) = (
            serde_json::to_string(message),
            serde_json::to_string(options),
        ) else {
            return failed("the message cannot be serialised".into());
        };
        let agent = self.agent();
        let context = CallContext::event(agent.as_ref(), &self.cwd);
        let ctx = HostContext_TO::from_ptr(&context, TD_Opaque);
        match renderer
            .renderer
            .render(json.as_str().into(), options.as_str().into(), ctx)
            .into_result()
        {
            Ok(rendered) => rendered.into_option().map(RString::into_string),
            Err(error) => {
                let error = HookError::from_call(
                    &renderer.hook_path,
                    format!("renderer:{}", renderer.custom_type),
                    error,
                );
                self.listeners.report(&error);
                None
            }
        }
    }
}

/// A number for each serialised payload, unique in the process (never 0), so that a plugin
/// may parse a payload once for all its handlers (see `EventHandler::handle`).
fn next_serial() -> u64 {
    static SERIAL: AtomicU64 = AtomicU64::new(1);
    SERIAL.fetch_add(1, Ordering::Relaxed)
}

impl Drop for HookRunner {
    /// Messages and entries hooks sent while no agent was ever attached are not lost in
    /// silence: the error listeners hear how many there were.
    fn drop(&mut self) {
        let pending = self.pending_messages();
        if pending > 0 {
            self.listeners.report(&HookError {
                hook_path: String::new(),
                event: "send_message".into(),
                panicked: false,
                message: format!(
                    "{pending} message(s) or entries sent by hooks were never delivered: no agent was attached to the runner"
                ),
            });
        }
    }
}

fn multi_threaded() -> bool {
    tokio::runtime::Handle::try_current()
        .is_ok_and(|h| h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread)
}

fn parse_output<E: Event>(output: Option<RString>) -> Result<Option<E::Output>, CallError> {
    output
        .map(|json| {
            serde_json::from_str(&json).map_err(|e| {
                CallError::error(format!("returned an invalid {} result: {e}", E::KIND))
            })
        })
        .transpose()
}

/// The default rendering of a custom message: its type as a label, then its text.
pub fn default_rendering(message: &CustomMessage) -> String {
    use agent_hooks_abi::events::Content;
    let text = match &message.content {
        Content::Text(text) => text.clone(),
        Content::Blocks(blocks) => blocks
            .iter()
            .filter_map(|b| b.as_text())
            .collect::<Vec<_>>()
            .join("\n"),
    };
    format!("[{}] {text}", message.custom_type)
}
