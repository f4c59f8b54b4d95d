use std::{
    path::PathBuf,
    sync::{Arc, Mutex},
};

use abi_stable::{
    sabi_trait::TD_Opaque,
    std_types::{RArc, RErr, ROk, RResult, RSlice, RStr, RString},
};
use agent_hooks_abi::{
    events::{CustomMessage, EventKind, SendMessageOptions},
    ffi::{
        CommandHandlerBox, EventHandlerBox, HostApi, HostApiBox, HostApi_TO, MessageRendererBox,
    },
    ExecOptions,
};

use super::{
    exec, may_block,
    outbox::{Outbox, Pending},
    shielded,
};

/// What one hook registered from its factory.
#[derive(Default)]
pub(crate) struct Registry {
    pub(crate) handlers: Vec<(EventKind, EventHandlerBox)>,
    pub(crate) commands: Vec<(String, String, CommandHandlerBox)>,
    pub(crate) renderers: Vec<(String, MessageRendererBox)>,
    pub(crate) warnings: Vec<String>,
}

/// The host API object given to one hook's factory and kept by the hook.
#[derive(Clone)]
pub(crate) struct PluginApi {
    shared: Arc<Shared>,
}

struct Shared {
    /// `Some` while the factory runs; registrations after it are refused.
    registry: Mutex<Option<Registry>>,
    outbox: Arc<Outbox>,
    cwd: PathBuf,
}

impl PluginApi {
    pub(crate) fn new(outbox: Arc<Outbox>, cwd: PathBuf) -> Self {
        Self {
            shared: Arc::new(Shared {
                registry: Mutex::new(Some(Registry::default())),
                outbox,
                cwd,
            }),
        }
    }

    /// The boundary object handed to the hook's factory; it shares this API's state.
    pub(crate) fn to_object(&self) -> HostApiBox {
        HostApi_TO::from_ptr(RArc::new(self.clone()), TD_Opaque)
    }

    /// Ends registration and returns what was registered.
    pub(crate) fn take_registry(&self) -> Registry {
        self.with_registry(|r| r.take()).unwrap_or_default()
    }

    fn with_registry<T>(&self, f: impl FnOnce(&mut Option<Registry>) -> T) -> T {
        let mut guard = self
            .shared
            .registry
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        f(&mut guard)
    }

    fn register(&self, what: &str, f: impl FnOnce(&mut Registry)) -> RResult<(), RString> {
        self.with_registry(|registry| match registry {
            Some(registry) => {
                f(registry);
                ROk(())
            }
            None => RErr(format!("{what} must be registered from the plugin's factory").into()),
        })
    }
}

impl HostApi for PluginApi {
    fn on(&self, event: RStr<'_>, handler: EventHandlerBox) -> RResult<(), RString> {
        match event.as_str().parse::<EventKind>() {
            Ok(kind) => self.register("handlers", |r| r.handlers.push((kind, handler))),
            Err(unknown) => {
                let warning = format!(
                    "registers a handler for {unknown}, which this host does not emit (the plugin may be newer than the host); the handler is ignored"
                );
                let _ = self.register("handlers", |r| r.warnings.push(warning.clone()));
                RErr(warning.into())
            }
        }
    }

    fn register_command(
        &self,
        name: RStr<'_>,
        description: RStr<'_>,
        handler: CommandHandlerBox,
    ) -> RResult<(), RString> {
        let name = name.as_str().trim_start_matches('/').to_owned();
        let description = description.to_string();
        self.register("commands", |r| {
            r.commands.push((name, description, handler))
        })
    }

    fn register_message_renderer(
        &self,
        custom_type: RStr<'_>,
        renderer: MessageRendererBox,
    ) -> RResult<(), RString> {
        let custom_type = custom_type.to_string();
        self.register("renderers", |r| r.renderers.push((custom_type, renderer)))
    }

    fn send_message(&self, message: RStr<'_>, options: RStr<'_>) -> RResult<(), RString> {
        let message: CustomMessage = match serde_json::from_str(message.as_str()) {
            Ok(message) => message,
            Err(e) => return RErr(format!("invalid message: {e}").into()),
        };
        let options: SendMessageOptions =
            serde_json::from_str(options.as_str()).unwrap_or_default();
        self.shared.outbox.send(Pending::Message(message, options));
        ROk(())
    }

    fn append_entry(&self, custom_type: RStr<'_>, data: RStr<'_>) -> RResult<(), RString> {
        let data = match serde_json::from_str(data.as_str()) {
            Ok(data) => data,
            Err(e) => return RErr(format!("invalid entry data: {e}").into()),
        };
        self.shared
            .outbox
            .send(Pending::Entry(custom_type.to_string(), data));
        ROk(())
    }

    fn exec(
        &self,
        command: RStr<'_>,
        args: RSlice<'_, RString>,
        options: RStr<'_>,
    ) -> RResult<RString, RString> {
        let options: ExecOptions = serde_json::from_str(options.as_str()).unwrap_or_default();
        let args: Vec<&str> = args.iter().map(RString::as_str).collect();
        let outcome = may_block(|| {
            shielded(Err("exec failed unexpectedly".to_owned()), || {
                exec(command.as_str(), &args, &options, &self.shared.cwd)
                    .map_err(|e| e.to_string())
                    .and_then(|output| serde_json::to_string(&output).map_err(|e| e.to_string()))
            })
        });
        match outcome {
            Ok(json) => ROk(json.into()),
            Err(e) => RErr(e.into()),
        }
    }
}
