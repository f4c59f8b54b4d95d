//! A loaded hook: what it registered, and where it came from.

use std::{path::PathBuf, sync::Arc};

use agent_hooks_abi::{
    events::EventKind,
    ffi::{CommandHandlerBox, EventHandlerBox, MessageRendererBox},
};

use crate::host::{Outbox, PluginApi, Registry};

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

/// A slash command a hook registered.
pub struct Command {
    /// The path of the hook that registered it.
    pub hook_path: String,
    /// The name, without the leading `/`.
    pub name: String,
    /// What it does.
    pub description: String,
    pub(crate) handler: CommandHandlerBox,
}

/// A renderer a hook registered for one custom message type.
pub struct Renderer {
    /// The path of the hook that registered it.
    pub hook_path: String,
    /// The custom message type it renders.
    pub custom_type: String,
    pub(crate) renderer: MessageRendererBox,
}

/// One loaded hook: its handlers per event (in registration order), commands and renderers.
pub struct Hook {
    path: String,
    resolved_path: PathBuf,
    origin: HookOrigin,
    handlers: Box<[Vec<EventHandlerBox>]>,
    commands: Vec<Command>,
    renderers: Vec<Renderer>,
    warnings: Vec<String>,
    outbox: Arc<Outbox>,
    /// Kept so that the plugin's host object outlives its handlers.
    _api: PluginApi,
}

impl Hook {
    pub(crate) fn new(
        path: String,
        resolved_path: PathBuf,
        origin: HookOrigin,
        api: PluginApi,
        outbox: Arc<Outbox>,
    ) -> Self {
        let Registry {
            handlers: registered,
            commands,
            renderers,
            warnings,
        } = api.take_registry();
        let mut handlers: Box<[Vec<EventHandlerBox>]> =
            (0..EventKind::COUNT).map(|_| Vec::new()).collect();
        for (kind, handler) in registered {
            handlers[kind.index()].push(handler);
        }
        let commands = commands
            .into_iter()
            .map(|(name, description, handler)| Command {
                hook_path: path.clone(),
                name,
                description,
                handler,
            })
            .collect();
        let renderers = renderers
            .into_iter()
            .map(|(custom_type, renderer)| Renderer {
                hook_path: path.clone(),
                custom_type,
                renderer,
            })
            .collect();
        Self {
            path,
            resolved_path,
            origin,
            handlers,
            commands,
            renderers,
            warnings,
            outbox,
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
    pub fn commands(&self) -> &[Command] {
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

    pub(crate) fn handlers(&self, kind: EventKind) -> &[EventHandlerBox] {
        &self.handlers[kind.index()]
    }

    pub(crate) fn outbox(&self) -> &Arc<Outbox> {
        &self.outbox
    }
}

impl std::fmt::Debug for Hook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hook")
            .field("path", &self.path)
            .field("resolved_path", &self.resolved_path)
            .field("origin", &self.origin)
            .field("events", &self.events().collect::<Vec<_>>())
            .field(
                "commands",
                &self.commands.iter().map(|c| &c.name).collect::<Vec<_>>(),
            )
            .finish()
    }
}
