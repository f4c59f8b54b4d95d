//! A loaded hook ([`Hook`]): what it registered ([`SlashCommand`], [`Renderer`]), and where
//! it came from ([`HookOrigin`]).

mod slots;

use std::{path::PathBuf, sync::Arc};

use agent_hooks_abi::events::EventKind;

pub(crate) use slots::{CommandSlot, HandlerSlot, RendererSlot};

use crate::{
    host::{Outbox, PluginApi, Registry},
    remote::{Isolation, PluginProcess, PluginSettings, ProcessState},
};

/// Where a hook's code lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookOrigin {
    /// A plugin library, with the name and version its crate declared.
    Plugin {
        /// The plugin crate's package name.
        name: String,
        /// The plugin crate's version.
        version: String,
    },
    /// Registered by the host in its own process.
    InProcess,
}

/// A slash command a hook registered (`/name args`), not to be confused with a command
/// hook ([`command_hook`](crate::command_hook)), which is a shell command run on an event.
pub struct SlashCommand {
    /// The path of the hook that registered it.
    pub hook_path: String,
    /// The name, without the leading `/`.
    pub name: String,
    /// What it does.
    pub description: String,
    pub(crate) handler: CommandSlot,
}

/// A renderer a hook registered for one custom message type.
pub struct Renderer {
    /// The path of the hook that registered it.
    pub hook_path: String,
    /// The custom message type it renders.
    pub custom_type: String,
    pub(crate) renderer: RendererSlot,
}

/// One loaded hook: its handlers per event (in registration order), commands and renderers.
pub struct Hook {
    path: String,
    resolved_path: PathBuf,
    origin: HookOrigin,
    handlers: Box<[Vec<HandlerSlot>]>,
    commands: Vec<SlashCommand>,
    renderers: Vec<Renderer>,
    warnings: Vec<String>,
    outbox: Arc<Outbox>,
    settings: PluginSettings,
    process: Option<Arc<PluginProcess>>,
    /// Whether the user requires it: a `tool_call` it cannot answer (disabled, crashed,
    /// timed out) is blocked, naming it.
    required: bool,
    /// Its answers are recorded, not applied (observe mode).
    observing: bool,
    /// Kept so that the plugin's host object outlives its handlers.
    _api: PluginApi,
}

impl Hook {
    /// A hook whose code runs in this process; its handlers run on handler threads with
    /// their deadline when `settings.in_process_deadline` says so.
    pub(crate) fn new(
        path: String,
        resolved_path: PathBuf,
        origin: HookOrigin,
        api: PluginApi,
        outbox: Arc<Outbox>,
        settings: PluginSettings,
    ) -> Self {
        let Registry {
            handlers: registered,
            commands,
            renderers,
            warnings,
        } = api.take_registry();
        let mut handlers = empty_handlers();
        for (kind, handler) in registered {
            handlers[kind.index()].push(if settings.in_process_deadline {
                HandlerSlot::Guarded(Arc::new(handler))
            } else {
                HandlerSlot::Native(handler)
            });
        }
        let commands = commands
            .into_iter()
            .map(|(name, description, handler)| SlashCommand {
                hook_path: path.clone(),
                name,
                description,
                handler: CommandSlot::Native(handler),
            })
            .collect();
        let renderers = renderers
            .into_iter()
            .map(|(custom_type, renderer)| Renderer {
                hook_path: path.clone(),
                custom_type,
                renderer: RendererSlot::Native(renderer),
            })
            .collect();
        let settings = PluginSettings {
            isolation: Isolation::InProcess,
            ..settings
        };
        Self {
            path,
            resolved_path,
            origin,
            handlers,
            commands,
            renderers,
            warnings,
            outbox,
            settings,
            process: None,
            required: false,
            observing: false,
            _api: api,
        }
    }

    /// A hook whose code runs in `process`, which registered `registered`.
    pub(crate) fn remote(
        path: String,
        resolved_path: PathBuf,
        process: Arc<PluginProcess>,
        registered: crate::protocol::frames::Registered,
        api: PluginApi,
        outbox: Arc<Outbox>,
        settings: PluginSettings,
    ) -> Self {
        let mut handlers = empty_handlers();
        let mut warnings = registered.warnings;
        for event in registered.handlers {
            match event.parse::<EventKind>() {
                Ok(kind) => {
                    let index = handlers[kind.index()].len();
                    handlers[kind.index()].push(HandlerSlot::Remote {
                        process: process.clone(),
                        event: kind,
                        index,
                    });
                }
                Err(unknown) => warnings.push(format!(
                    "registers a handler for {unknown}, which this host does not emit; the handler is ignored"
                )),
            }
        }
        let commands = registered
            .commands
            .into_iter()
            .enumerate()
            .map(|(index, (name, description))| SlashCommand {
                hook_path: path.clone(),
                name,
                description,
                handler: CommandSlot::Remote {
                    process: process.clone(),
                    index,
                },
            })
            .collect();
        let renderers = registered
            .renderers
            .into_iter()
            .enumerate()
            .map(|(index, custom_type)| Renderer {
                hook_path: path.clone(),
                custom_type,
                renderer: RendererSlot::Remote {
                    process: process.clone(),
                    index,
                },
            })
            .collect();
        Self {
            path,
            resolved_path,
            origin: HookOrigin::Plugin {
                name: registered.name,
                version: registered.version,
            },
            handlers,
            commands,
            renderers,
            warnings,
            outbox,
            settings,
            process: Some(process),
            required: false,
            observing: false,
            _api: api,
        }
    }

    /// The path as the caller gave it (or the name of an in-process hook).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The absolute path it was loaded from.
    pub fn resolved_path(&self) -> &std::path::Path {
        &self.resolved_path
    }

    /// Where its code lives.
    pub fn origin(&self) -> &HookOrigin {
        &self.origin
    }

    /// Whether it runs in the agent's process or in a plugin process.
    pub fn isolation(&self) -> Isolation {
        self.settings.isolation
    }

    /// Its deadlines and limits.
    pub fn settings(&self) -> &PluginSettings {
        &self.settings
    }

    /// For a plugin in a process of its own: whether that process runs (and its id), is
    /// stopped, or was disabled, and why.
    pub fn process_state(&self) -> Option<ProcessState> {
        self.process.as_ref().map(|p| p.state())
    }

    /// Whether the user requires it (`--require`, [`DiscoveryOptions::required`](crate::discover::DiscoveryOptions::required)):
    /// a `tool_call` it cannot answer, because it is disabled, crashed or timed out, is
    /// blocked with a reason that names it, instead of going on without it.
    pub fn is_required(&self) -> bool {
        self.required
    }

    /// Makes it required (see [`is_required`](Self::is_required)), or not.
    pub fn set_required(&mut self, required: bool) {
        self.required = required;
    }

    /// Whether it observes: its handlers are called and their answers reported
    /// ([`HandlerTiming::answer`](crate::HandlerTiming)), but not applied.
    pub fn is_observing(&self) -> bool {
        self.observing
    }

    /// Makes it observe (see [`is_observing`](Self::is_observing)), or not.
    pub fn set_observing(&mut self, observing: bool) {
        self.observing = observing;
    }

    /// The events it handles, in event order.
    pub fn events(&self) -> impl Iterator<Item = EventKind> + '_ {
        EventKind::ALL
            .iter()
            .copied()
            .filter(|kind| !self.handlers[kind.index()].is_empty())
    }

    /// How many handlers it registered for `kind`.
    pub fn handler_count(&self, kind: EventKind) -> usize {
        self.handlers[kind.index()].len()
    }

    /// Its commands, in registration order.
    pub fn commands(&self) -> &[SlashCommand] {
        &self.commands
    }

    /// Its message renderers, in registration order.
    pub fn renderers(&self) -> &[Renderer] {
        &self.renderers
    }

    /// What the host noticed while loading it (e.g. a handler for an event it does not know).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    pub(crate) fn handlers(&self, kind: EventKind) -> &[HandlerSlot] {
        &self.handlers[kind.index()]
    }

    /// The `index`-th in-process handler of `kind` (the plugin process serves these).
    pub(crate) fn native_handler(
        &self,
        kind: EventKind,
        index: usize,
    ) -> Option<&agent_hooks_abi::ffi::EventHandlerBox> {
        match self.handlers[kind.index()].get(index)? {
            HandlerSlot::Native(handler) => Some(handler),
            HandlerSlot::Guarded(handler) => Some(handler),
            HandlerSlot::Remote { .. } => None,
        }
    }

    pub(crate) fn outbox(&self) -> &Arc<Outbox> {
        &self.outbox
    }
}

fn empty_handlers() -> Box<[Vec<HandlerSlot>]> {
    (0..EventKind::COUNT).map(|_| Vec::new()).collect()
}

impl std::fmt::Debug for Hook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hook")
            .field("path", &self.path)
            .field("resolved_path", &self.resolved_path)
            .field("origin", &self.origin)
            .field("isolation", &self.settings.isolation)
            .field("events", &self.events().collect::<Vec<_>>())
            .field(
                "commands",
                &self.commands.iter().map(|c| &c.name).collect::<Vec<_>>(),
            )
            .finish()
    }
}
