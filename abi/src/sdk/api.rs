use std::{
    collections::BTreeMap,
    path::PathBuf,
    sync::{
        atomic::{AtomicUsize, Ordering},
        Arc,
    },
    time::Duration,
};

use abi_stable::{sabi_trait::TD_Opaque, std_types::RString};
use serde::{de::DeserializeOwned, Deserialize, Serialize};
use serde_json::Value;

use super::{
    adapters::{CommandAdapter, EventAdapter, RendererAdapter},
    CommandContext, Error, HookContext,
};
use crate::events::setters;
use crate::{
    events::{CustomMessage, Event, EventKind, SendMessageOptions},
    ffi::{CommandHandler_TO, EventHandler_TO, HostApiBox, MessageRenderer_TO},
    services::{self, ServiceError},
};

/// What a handler returns: its result, or an error that the host reports.
pub type HandlerResult<T> = Result<T, Error>;

/// Options of [`Host::exec`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ExecOptions {
    /// Kill the program (and everything it started) after this long, and report `killed`;
    /// hosts apply a default when unset (60 s for `agent-hooks`).
    #[serde(
        rename = "timeout_ms",
        with = "millis",
        skip_serializing_if = "Option::is_none"
    )]
    pub timeout: Option<Duration>,
    /// Where to run it; the agent's working folder when unset.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cwd: Option<PathBuf>,
    /// Variables added to (or replacing those of) the agent's environment.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
}

setters!(ExecOptions {
    timeout: some_val<Duration>,
    cwd: some<PathBuf>,
});

impl ExecOptions {
    /// Sets the variable `key` to `value` in the program's environment (builder style).
    #[must_use]
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.insert(key.into(), value.into());
        self
    }
}

/// What a program run by [`Host::exec`] did.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ExecOutput {
    /// Its standard output, as text (invalid UTF-8 replaced).
    pub stdout: String,
    /// Its standard error, as text.
    pub stderr: String,
    /// Its exit code; `None` when a signal ended it.
    pub code: Option<i32>,
    /// Whether it was killed on timeout or abort.
    pub killed: bool,
    /// Whether its stdout or stderr was longer than the host keeps, and was cut.
    pub truncated: bool,
}

setters!(ExecOutput {
    stdout: set<String>,
    stderr: set<String>,
    code: some_val<i32>,
    killed: val<bool>,
    truncated: val<bool>,
});

/// Options given to a message renderer.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct RenderOptions {
    /// Whether the message is shown expanded.
    pub expanded: bool,
    /// The width available, in terminal columns.
    pub width: Option<u16>,
}

setters!(RenderOptions {
    expanded: val<bool>,
    width: some_val<u16>,
});

/// The host's services that a plugin may keep and use at any time: messages, entries,
/// programs. Cheap to clone; handlers capture it.
#[derive(Clone)]
pub struct Host {
    raw: HostApiBox,
}

impl Host {
    /// Sends a persistent custom message into the session. Sent from the factory, before the
    /// agent is ready, it is queued and delivered when the agent is.
    pub fn send_message(
        &self,
        message: &CustomMessage,
        options: &SendMessageOptions,
    ) -> HandlerResult<()> {
        let message = serde_json::to_string(message)?;
        let options = serde_json::to_string(options)?;
        self.raw
            .send_message(message.as_str().into(), options.as_str().into())
            .into_result()
            .map_err(|e| e.into_string().into())
    }

    /// Keeps non-LLM state: appends an entry of `custom_type` with `data` to the session.
    pub fn append_entry(&self, custom_type: &str, data: &impl Serialize) -> HandlerResult<()> {
        let data = serde_json::to_string(data)?;
        self.raw
            .append_entry(custom_type.into(), data.as_str().into())
            .into_result()
            .map_err(|e| e.into_string().into())
    }

    /// Runs `command` with `args`, without a shell, and waits for it.
    pub fn exec(
        &self,
        command: &str,
        args: &[&str],
        options: &ExecOptions,
    ) -> HandlerResult<ExecOutput> {
        let args: Vec<RString> = args.iter().map(|a| RString::from(*a)).collect();
        let options = serde_json::to_string(options)?;
        let output = self
            .raw
            .exec(
                command.into(),
                args.as_slice().into(),
                options.as_str().into(),
            )
            .into_result()
            .map_err(|e| -> Error { e.into_string().into() })?;
        Ok(serde_json::from_str(&output)?)
    }

    /// Calls the host service `service` with `request` and reads its answer as `T`.
    ///
    /// This is how services added in later minor versions of the interface are reached (the
    /// SDK's typed methods use it). A host older than the service answers
    /// [`ServiceError::Unsupported`], naming its interface version and the one this plugin
    /// was built against.
    pub fn call<T: DeserializeOwned>(
        &self,
        service: &str,
        request: &impl Serialize,
    ) -> Result<T, ServiceError> {
        super::service::call(&self.raw, service, request)
    }

    /// The interface version of the host (`major.minor.patch`).
    pub fn interface_version(&self) -> Result<String, ServiceError> {
        #[derive(Deserialize)]
        struct Answer {
            version: String,
        }
        let answer: Answer = self.call(services::INTERFACE, &serde_json::json!({}))?;
        Ok(answer.version)
    }
}

/// What a plugin's factory receives: register handlers, commands and renderers, and reach the
/// host's services.
pub struct HookApi {
    host: Host,
    /// How many handlers this hook registered per event, shared with the handlers so that
    /// the last one of an emit can drop the parsed event.
    handler_counts: Vec<(EventKind, Arc<AtomicUsize>)>,
}

impl HookApi {
    /// Wraps the host's API object. Hosts call this (through
    /// [`run_factory`](crate::host::run_factory)) to run an in-process hook.
    pub(crate) fn new(raw: HostApiBox) -> Self {
        Self {
            host: Host { raw },
            handler_counts: Vec::new(),
        }
    }

    /// Handles event `E`. The closure's first parameter names the event:
    ///
    /// ```
    /// # use agent_hooks_abi::prelude::*;
    /// # fn register(api: &mut HookApi) {
    /// api.on(|event: &ToolCallEvent, _ctx| {
    ///     Ok((event.tool_name == "exec").then(|| ToolCallResult::block("no shell here")))
    /// });
    /// # }
    /// ```
    ///
    /// Handlers of one plugin run in the order they were registered. Returning `Ok(None)`
    /// means "no result"; notifications (`Output = ()`) always return `Ok(None)`.
    pub fn on<E, F>(&mut self, handler: F) -> &mut Self
    where
        E: Event,
        F: Fn(&E, &HookContext<'_>) -> HandlerResult<Option<E::Output>> + Send + Sync + 'static,
    {
        let count = match self.handler_counts.iter().find(|(k, _)| *k == E::KIND) {
            Some((_, count)) => count.clone(),
            None => {
                let count = Arc::new(AtomicUsize::new(0));
                self.handler_counts.push((E::KIND, count.clone()));
                count
            }
        };
        count.fetch_add(1, Ordering::Relaxed);
        let unknown = super::compat::result_unknown_to_host(E::KIND, &self.host);
        let handler =
            EventHandler_TO::from_value(EventAdapter::new(handler, count, unknown), TD_Opaque);
        // A host that does not know the event says so and reports it; the plugin goes on.
        let _ = self.host.raw.on(E::KIND.name().into(), handler);
        self
    }

    /// Registers the slash command `/name`. The handler gets the text after the name.
    pub fn register_command<F>(&mut self, name: &str, description: &str, handler: F) -> &mut Self
    where
        F: Fn(&str, &CommandContext<'_>) -> HandlerResult<()> + Send + Sync + 'static,
    {
        let handler = CommandHandler_TO::from_value(CommandAdapter::new(handler), TD_Opaque);
        let _ = self
            .host
            .raw
            .register_command(name.into(), description.into(), handler);
        self
    }

    /// Renders this plugin's custom messages of `custom_type`. Returning `Ok(None)`, an error
    /// or a panic leaves the host's default rendering.
    pub fn register_message_renderer<F>(&mut self, custom_type: &str, renderer: F) -> &mut Self
    where
        F: Fn(&CustomMessage, &RenderOptions, &HookContext<'_>) -> HandlerResult<Option<String>>
            + Send
            + Sync
            + 'static,
    {
        let renderer = MessageRenderer_TO::from_value(RendererAdapter::new(renderer), TD_Opaque);
        let _ = self
            .host
            .raw
            .register_message_renderer(custom_type.into(), renderer);
        self
    }

    /// Declares that this plugin cannot work without the host service `service`: a host that
    /// does not offer it refuses to load the plugin, telling the user to upgrade the agent.
    /// Call it from the factory, and return its error with `?`.
    pub fn require(&self, service: &str) -> Result<(), ServiceError> {
        let request = serde_json::json!({
            "service": service,
            "needs": super::service::built_against(),
        });
        self.host.call::<Value>(services::REQUIRE, &request)?;
        Ok(())
    }

    /// The host's services, to keep in handlers.
    pub fn host(&self) -> Host {
        self.host.clone()
    }

    /// Shorthand for [`Host::send_message`].
    pub fn send_message(
        &self,
        message: &CustomMessage,
        options: &SendMessageOptions,
    ) -> HandlerResult<()> {
        self.host.send_message(message, options)
    }

    /// Shorthand for [`Host::append_entry`].
    pub fn append_entry(&self, custom_type: &str, data: &impl Serialize) -> HandlerResult<()> {
        self.host.append_entry(custom_type, data)
    }

    /// Shorthand for [`Host::exec`].
    pub fn exec(
        &self,
        command: &str,
        args: &[&str],
        options: &ExecOptions,
    ) -> HandlerResult<ExecOutput> {
        self.host.exec(command, args, options)
    }
}

/// `Option<Duration>` as whole milliseconds.
mod millis {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(value: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
        match value {
            Some(d) => s.serialize_u64(u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
        Ok(Option::<u64>::deserialize(d)?.map(Duration::from_millis))
    }
}
