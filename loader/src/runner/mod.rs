//! Calling hooks: every handler of every hook for an event, in order.

use std::{
    ops::ControlFlow,
    path::{Path, PathBuf},
    sync::{
        atomic::{AtomicU64, Ordering},
        Arc, RwLock,
    },
};

use abi_stable::sabi_trait::TD_Opaque;
use agent_hooks_abi::{
    events::{CustomMessage, Event, EventKind},
    ffi::{CallError, HostContext_TO},
    HandlerResult, HookApi, RenderOptions,
};

use crate::{
    hook::{Hook, HookOrigin},
    host::{AgentHost, CallContext, DetachedAgent, Outbox, PluginApi},
    load::LoadError,
};

/// Runs the handlers of loaded and in-process hooks.
///
/// Hooks run in the order they were added (load order first), and each hook's handlers in
/// the order it registered them.
pub struct HookRunner {
    hooks: Vec<Hook>,
    /// Handlers per event across all hooks, so that `has_handlers` is one load.
    listeners: Box<[usize]>,
    agent: RwLock<Arc<dyn AgentHost>>,
    cwd: PathBuf,
    serial: AtomicU64,
    in_process_outbox: Arc<Outbox>,
}

impl HookRunner {
    /// A runner over `hooks` (e.g. [`LoadHooksResult::hooks`](crate::LoadHooksResult)), whose
    /// handlers see `cwd` as the agent's working folder.
    pub fn new(hooks: Vec<Hook>, cwd: impl Into<PathBuf>) -> Self {
        let mut runner = Self {
            hooks: Vec::new(),
            listeners: vec![0; EventKind::COUNT].into_boxed_slice(),
            agent: RwLock::new(Arc::new(DetachedAgent)),
            cwd: cwd.into(),
            serial: AtomicU64::new(0),
            in_process_outbox: Arc::new(Outbox::default()),
        };
        for hook in hooks {
            runner.push(hook);
        }
        runner
    }

    fn push(&mut self, hook: Hook) {
        for kind in EventKind::ALL {
            self.listeners[kind.index()] += hook.handler_count(*kind);
        }
        self.hooks.push(hook);
    }

    /// Adds a hook that lives in the host's own binary, after those already added.
    ///
    /// `factory` receives the same [`HookApi`] as a plugin's factory, and its handlers go
    /// through the same dispatch as a plugin's. An error or a panic in `factory` is returned
    /// and the hook is not added.
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

    /// Attaches the agent: hooks' calls reach it from now on, and the messages and entries
    /// they sent before (from their factories) are delivered to it, in order.
    pub fn attach(&self, agent: Arc<dyn AgentHost>) {
        *self
            .agent
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = agent.clone();
        let mut attached: Vec<*const Outbox> = Vec::new();
        let outboxes = self
            .hooks
            .iter()
            .map(Hook::outbox)
            .chain(std::iter::once(&self.in_process_outbox));
        for outbox in outboxes {
            if !attached.contains(&Arc::as_ptr(outbox)) {
                attached.push(Arc::as_ptr(outbox));
                outbox.attach(agent.clone());
            }
        }
    }

    /// Messages and entries that hooks sent and that wait for an agent to be attached.
    pub fn pending_messages(&self) -> usize {
        let mut seen: Vec<*const Outbox> = Vec::new();
        self.hooks
            .iter()
            .map(Hook::outbox)
            .chain(std::iter::once(&self.in_process_outbox))
            .filter(|outbox| {
                let fresh = !seen.contains(&Arc::as_ptr(outbox));
                seen.push(Arc::as_ptr(outbox));
                fresh
            })
            .map(|outbox| outbox.pending_count())
            .sum()
    }

    /// The hooks, in order.
    pub fn hooks(&self) -> &[Hook] {
        &self.hooks
    }

    /// The agent's working folder, as hooks see it.
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// Whether any hook handles `kind`. Cheap: no allocation, no lock.
    pub fn has_handlers(&self, kind: EventKind) -> bool {
        self.listeners[kind.index()] > 0
    }

    fn agent(&self) -> Arc<dyn AgentHost> {
        self.agent
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    /// Calls every handler of `event`, in order, and gives `visit` each one's outcome; stops
    /// early when `visit` breaks. The event is serialised once, before the first handler.
    ///
    /// Returns an error only when the event itself cannot be serialised.
    pub fn for_each_handler<E: Event>(
        &self,
        event: &E,
        mut visit: impl FnMut(&Hook, Result<Option<E::Output>, CallError>) -> ControlFlow<()>,
    ) -> Result<(), serde_json::Error> {
        if !self.has_handlers(E::KIND) {
            return Ok(());
        }
        let payload = serde_json::to_string(event)?;
        let serial = self.serial.fetch_add(1, Ordering::Relaxed);
        let agent = self.agent();
        let context = CallContext::event(agent.as_ref(), &self.cwd);
        for hook in &self.hooks {
            for handler in hook.handlers(E::KIND) {
                let ctx = HostContext_TO::from_ptr(&context, TD_Opaque);
                let outcome = handler
                    .handle(payload.as_str().into(), serial, ctx)
                    .into_result()
                    .and_then(|output| parse_output::<E>(output.into_option()));
                if visit(hook, outcome).is_break() {
                    return Ok(());
                }
            }
        }
        Ok(())
    }

    /// Runs the command `name` (without `/`) of the first hook that registered it, with the
    /// command context. `None` when no hook registered it.
    pub fn run_command(&self, name: &str, args: &str) -> Option<Result<(), CallError>> {
        let name = name.trim_start_matches('/');
        let command = self
            .hooks
            .iter()
            .flat_map(|hook| hook.commands())
            .find(|command| command.name == name)?;
        let agent = self.agent();
        let context = CallContext::command(agent.as_ref(), &self.cwd);
        let ctx = HostContext_TO::from_ptr(&context, TD_Opaque);
        Some(command.handler.run(args.into(), ctx).into_result())
    }
}

impl HookRunner {
    /// Renders `message` with the renderer of the first hook that registered one for its
    /// `custom_type`. `Ok(None)` means "use the default rendering": no renderer, or the
    /// renderer declined. An error or panic in the renderer is returned; the host then also
    /// uses the default rendering.
    pub fn render_message(
        &self,
        message: &CustomMessage,
        options: &RenderOptions,
    ) -> Result<Option<String>, CallError> {
        let Some(renderer) = self
            .hooks
            .iter()
            .flat_map(|hook| hook.renderers())
            .find(|r| r.custom_type == message.custom_type)
        else {
            return Ok(None);
        };
        let message = serde_json::to_string(message)
            .map_err(|e| CallError::error(format!("cannot serialise the message: {e}")))?;
        let options = serde_json::to_string(options)
            .map_err(|e| CallError::error(format!("cannot serialise the options: {e}")))?;
        let agent = self.agent();
        let context = CallContext::event(agent.as_ref(), &self.cwd);
        let ctx = HostContext_TO::from_ptr(&context, TD_Opaque);
        renderer
            .renderer
            .render(message.as_str().into(), options.as_str().into(), ctx)
            .into_result()
            .map(|rendered| rendered.into_option().map(|r| r.into_string()))
    }
}

fn parse_output<E: Event>(
    output: Option<abi_stable::std_types::RString>,
) -> Result<Option<E::Output>, CallError> {
    output
        .map(|json| {
            serde_json::from_str(&json).map_err(|e| {
                CallError::error(format!("returned an invalid {} result: {e}", E::KIND))
            })
        })
        .transpose()
}
