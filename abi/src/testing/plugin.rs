//! [`TestPlugin`]: a loaded plugin; emit events, run commands, render messages.

use std::ops::Deref;

use abi_stable::{
    sabi_trait::TD_Opaque,
    std_types::{RArc, RResult},
};

use super::{
    context::KitContext,
    host::TestHost,
    host_api::KitHostApi,
    record::HandlerError,
    state::{lock, Registry},
};
use crate::{
    events::{CustomMessage, Event, EventKind},
    ffi::{CallError, EventHandlerBox, HostApiBox, HostApi_TO, HostContext_TO},
    sdk::{guard, log::with_test_host, HandlerResult, HookApi, Host, RenderOptions},
};

// Loading lives here, beside what it makes, so that the host knows nothing of the plugin
// and the plugin imports the host, not the other way round as well.
impl TestHost {
    /// Runs `factory` (the function given to `export_plugin!`) as a host loading the plugin
    /// would, and returns the loaded plugin; the factory's error or panic comes back as a
    /// [`HandlerError`].
    ///
    /// # Panics
    ///
    /// When the test made a mistake the plugin ran into (a prompt with no scripted answer),
    /// with a message that says what to change.
    pub fn load<F>(&self, factory: F) -> Result<TestPlugin, HandlerError>
    where
        F: FnOnce(&mut HookApi) -> HandlerResult<()>,
    {
        // The hook a plugin library installs: a handler's panic is reported with its place.
        guard::install_plugin_panic_hook();
        crate::sdk::log::install_bridge();
        lock(&self.shared).registry = Some(Registry::default());
        let api: HostApiBox = HostApi_TO::from_ptr(
            RArc::new(KitHostApi {
                shared: self.shared.clone(),
            }),
            TD_Opaque,
        );
        let host = HookApi::new(api.clone()).host();
        let outcome = with_test_host(&host, || crate::host::run_factory(api, factory));
        let registry = lock(&self.shared).registry.take().unwrap_or_default();
        self.check_problems();
        outcome.map_err(HandlerError::from)?;
        Ok(TestPlugin::new(self.clone(), host, registry))
    }
}

/// A plugin whose factory ran in the test: emit events to its handlers, run its commands,
/// render its messages. Derefs to its [`TestHost`], to script answers and read back what
/// it did.
pub struct TestPlugin {
    host: TestHost,
    /// The plugin's host object, which its log goes to during the kit's calls.
    sdk_host: Host,
    registry: Registry,
}

impl Deref for TestPlugin {
    type Target = TestHost;

    fn deref(&self) -> &TestHost {
        &self.host
    }
}

/// What the factory registered: the events handled, the commands and the renderers, by
/// name (`{:?}` of a plugin in a test's assertion message).
impl std::fmt::Debug for TestPlugin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let handlers: Vec<&str> = self
            .registry
            .handlers
            .iter()
            .map(|(k, _)| k.name())
            .collect();
        let commands: Vec<&str> = self
            .registry
            .commands
            .iter()
            .map(|c| c.name.as_str())
            .collect();
        let renderers: Vec<&str> = self
            .registry
            .renderers
            .iter()
            .map(|(t, _)| t.as_str())
            .collect();
        f.debug_struct("TestPlugin")
            .field("handlers", &handlers)
            .field("commands", &commands)
            .field("renderers", &renderers)
            .finish_non_exhaustive()
    }
}

impl TestPlugin {
    pub(crate) fn new(host: TestHost, sdk_host: Host, registry: Registry) -> Self {
        Self {
            host,
            sdk_host,
            registry,
        }
    }

    /// Calls plugin code with a fresh context, then reports the test's mistakes.
    fn with_context<T>(&self, is_command: bool, f: impl FnOnce(&KitContext) -> T) -> T {
        let context = KitContext {
            shared: self.host.shared.clone(),
            is_command,
        };
        let outcome = with_test_host(&self.sdk_host, || f(&context));
        self.host.check_problems();
        outcome
    }

    fn handlers_of(&self, kind: EventKind) -> impl Iterator<Item = &EventHandlerBox> {
        self.registry
            .handlers
            .iter()
            .filter(move |(k, _)| *k == kind)
            .map(|(_, handler)| handler)
    }

    /// Emits `event` to the plugin's one handler of it, as the host would (the event crosses
    /// as JSON), and returns what the handler returned: `Ok(None)` when it let things be,
    /// or when the plugin has no handler of the event.
    ///
    /// # Panics
    ///
    /// When the plugin has several handlers of the event (use [`TestPlugin::emit_each`]),
    /// or the test made a mistake the handler ran into (a prompt with no scripted answer),
    /// with a message that says what to change.
    pub fn emit<E: Event>(&self, event: &E) -> Result<Option<E::Output>, HandlerError> {
        let count = self.handlers_of(E::KIND).count();
        assert!(
            count <= 1,
            "agent-hooks test kit: the plugin has {count} handlers of `{}`; \
             `emit_each` returns the result of each",
            E::KIND
        );
        self.emit_each(event).pop().unwrap_or(Ok(None))
    }

    /// Emits `event` to each of the plugin's handlers of it, in the order they were
    /// registered, and returns each one's result. Each gets the same event: how the results
    /// combine (the first block wins, rewrites chain, ...) is the host's part.
    pub fn emit_each<E: Event>(&self, event: &E) -> Vec<Result<Option<E::Output>, HandlerError>> {
        let json = match serde_json::to_string(event) {
            Ok(json) => json,
            Err(e) => {
                let error =
                    HandlerError::Failed(format!("cannot write the {} event: {e}", E::KIND));
                return vec![Err(error)];
            }
        };
        self.handlers_of(E::KIND)
            .map(|handler| {
                let returned = self.with_context(false, |context| {
                    handler.handle(
                        json.as_str().into(),
                        0,
                        HostContext_TO::from_ptr(context, TD_Opaque),
                    )
                });
                let output = into_result(returned)?;
                output
                    .into_option()
                    .map(|text| {
                        serde_json::from_str(&text).map_err(|e| {
                            HandlerError::Failed(format!("cannot read the handler's result: {e}"))
                        })
                    })
                    .transpose()
            })
            .collect()
    }

    /// Runs the command `/name` (`name` with or without the `/`) with `args` (the text after
    /// its name), as the host would.
    ///
    /// # Panics
    ///
    /// When the plugin registered no command `name` (the message lists those it did), or
    /// the test made a mistake the command ran into.
    pub fn run_command(&self, name: &str, args: &str) -> Result<(), HandlerError> {
        let name = name.trim_start_matches('/');
        let Some(command) = self.registry.commands.iter().find(|c| c.name == name) else {
            let names: Vec<&str> = self
                .registry
                .commands
                .iter()
                .map(|c| c.name.as_str())
                .collect();
            panic!("agent-hooks test kit: the plugin registered no command `{name}`; it registered {names:?}");
        };
        let returned = self.with_context(true, |context| {
            command
                .handler
                .run(args.into(), HostContext_TO::from_ptr(context, TD_Opaque))
        });
        into_result(returned)
    }

    /// Renders `message` with the plugin's renderer of its `custom_type`, as the host would;
    /// `Ok(None)` when the renderer leaves the default rendering or the plugin has none.
    pub fn render(
        &self,
        message: &CustomMessage,
        options: &RenderOptions,
    ) -> Result<Option<String>, HandlerError> {
        let Some((_, renderer)) = self
            .registry
            .renderers
            .iter()
            .find(|(custom_type, _)| *custom_type == message.custom_type)
        else {
            return Ok(None);
        };
        let message = serde_json::to_string(message)
            .map_err(|e| HandlerError::Failed(format!("cannot write the message: {e}")))?;
        let options = serde_json::to_string(options)
            .map_err(|e| HandlerError::Failed(format!("cannot write the options: {e}")))?;
        let returned = self.with_context(false, |context| {
            renderer.render(
                message.as_str().into(),
                options.as_str().into(),
                HostContext_TO::from_ptr(context, TD_Opaque),
            )
        });
        Ok(into_result(returned)?
            .into_option()
            .map(|text| text.into_string()))
    }

    /// The events the plugin handles, one entry per handler, in the order it registered them.
    pub fn events(&self) -> Vec<EventKind> {
        self.registry
            .handlers
            .iter()
            .map(|(kind, _)| *kind)
            .collect()
    }

    /// The commands the plugin registered: name and description, in order.
    pub fn commands(&self) -> Vec<(String, String)> {
        self.registry
            .commands
            .iter()
            .map(|c| (c.name.clone(), c.description.clone()))
            .collect()
    }

    /// The custom message types the plugin renders, in order.
    pub fn renderers(&self) -> Vec<String> {
        self.registry
            .renderers
            .iter()
            .map(|(t, _)| t.clone())
            .collect()
    }
}

fn into_result<T>(returned: RResult<T, CallError>) -> Result<T, HandlerError> {
    returned.into_result().map_err(HandlerError::from)
}
