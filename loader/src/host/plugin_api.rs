use std::{
    path::PathBuf,
    sync::{Arc, Mutex},
};

use abi_stable::{
    sabi_trait::TD_Opaque,
    std_types::{RArc, RErr, ROk, RResult, RSlice, RStr, RString},
};
use agent_hooks_abi::{
    events::{CustomMessage, DeliverAs, EventKind, SendMessageOptions},
    ffi::{
        CommandHandlerBox, EventHandlerBox, HostApi, HostApiBox, HostApi_TO, MessageRendererBox,
    },
    services::{LogRecord, PluginInfo, ServiceError, CONFIG, LOG, PLUGIN, REQUIRE},
    ExecOptions, ExecOutput,
};

use crate::sync::LockUnpoisoned;
use crate::{
    error::{HookError, HookErrorKind},
    plugin_config::{self, PluginConfig},
    protocol::frames::{Answer, HostRequest},
};

use super::{
    exec, may_block,
    outbox::{Outbox, Pending},
    plugin_log::{kept_level, PluginLog},
    services::{self, Requirement},
    shielded, ProgramRun,
};

/// Where a plugin runs, as the services of interface 1.1 tell it (`plugin`, `config`).
#[derive(Debug, Clone, Default)]
pub(crate) struct Site {
    /// The library's file, resolved (empty for a hook in the host's binary).
    pub(crate) library: PathBuf,
    /// Whether the agent has an interactive UI.
    pub(crate) has_ui: bool,
    /// The configuration object the settings give it, if any.
    pub(crate) config: Option<PluginConfig>,
}

/// Where a plugin process sends what its plugin asks of the host outside calls
/// (`send_message`, `append_entry`, `exec`): to the agent, over the protocol.
pub(crate) trait Forward: Send + Sync {
    /// Asks the agent and waits for its answer.
    fn forward(&self, request: HostRequest) -> Answer;
}

fn forwarded(answer: Answer) -> RResult<RString, RString> {
    match answer {
        Answer::Ok { value } => ROk(value.as_str().unwrap_or_default().into()),
        Answer::Err { message } => RErr(message.into()),
    }
}

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
    /// The hook's path as given, or an in-process hook's name, for reports.
    label: String,
    /// In a plugin process: the agent, which handles messages, entries and programs.
    forward: Option<Arc<dyn Forward>>,
    /// A service the hook declared as required and this agent does not offer.
    unmet: Mutex<Option<Requirement>>,
    site: Site,
    log: PluginLog,
}

impl PluginApi {
    pub(crate) fn new(outbox: Arc<Outbox>, cwd: PathBuf, label: &str, site: Site) -> Self {
        Self {
            shared: Arc::new(Shared {
                registry: Mutex::new(Some(Registry::default())),
                outbox,
                cwd,
                label: label.to_owned(),
                forward: None,
                unmet: Mutex::new(None),
                site,
                log: PluginLog::new(label),
            }),
        }
    }

    /// An API for a plugin process: registrations are kept here, and what the plugin sends
    /// or runs goes to the agent through `forward`.
    pub(crate) fn forwarding(cwd: PathBuf, label: &str, forward: Arc<dyn Forward>) -> Self {
        Self {
            shared: Arc::new(Shared {
                registry: Mutex::new(Some(Registry::default())),
                outbox: Arc::default(),
                cwd,
                label: label.to_owned(),
                forward: Some(forward),
                unmet: Mutex::new(None),
                // The agent answers what the plugin asks of where it runs.
                site: Site::default(),
                log: PluginLog::new(label),
            }),
        }
    }

    /// The folder programs run in unless they say otherwise.
    pub(crate) fn cwd(&self) -> &std::path::Path {
        &self.shared.cwd
    }

    /// Reports a problem of this hook to the runner's error listeners.
    pub(crate) fn report(&self, error: HookError) {
        self.shared.outbox.report(error);
    }

    /// Reports a value this host does not know in what the hook sent through `call`.
    fn report_unknown(&self, call: &str, what: &str) {
        self.shared.outbox.report(HookError::new(
            HookErrorKind::Protocol,
            &self.shared.label,
            call,
            format!("sent {what} that this host does not know (the plugin may be built against a newer interface); it is ignored"),
        ));
    }

    /// Tells the agent of a program the hook ran with `exec`.
    pub(crate) fn program_ran(
        &self,
        command: &str,
        args: &[&str],
        result: &Result<ExecOutput, String>,
    ) {
        self.shared.outbox.program_ran(&ProgramRun {
            command,
            args,
            result: result.as_ref().map_err(String::as_str),
        });
    }

    /// The boundary object handed to the hook's factory; it shares this API's state.
    pub(crate) fn to_object(&self) -> HostApiBox {
        HostApi_TO::from_ptr(RArc::new(self.clone()), TD_Opaque)
    }

    /// The first service the hook declared as required (from its factory) that this agent
    /// does not offer.
    pub(crate) fn unmet_requirement(&self) -> Option<Requirement> {
        self.shared.unmet.lock_unpoisoned().take()
    }

    /// Ends registration and returns what was registered.
    pub(crate) fn take_registry(&self) -> Registry {
        self.with_registry(|r| r.take()).unwrap_or_default()
    }

    fn with_registry<T>(&self, f: impl FnOnce(&mut Option<Registry>) -> T) -> T {
        let mut guard = self.shared.registry.lock_unpoisoned();
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

impl PluginApi {
    /// Answers a service of the hook's API in the agent.
    fn answer_service(&self, service: &str, request: &str) -> Result<String, ServiceError> {
        let site = &self.shared.site;
        let json = |value: Result<String, serde_json::Error>| {
            value.map_err(|e| ServiceError::failed(service, e.to_string()))
        };
        match service {
            PLUGIN => {
                let mut info = PluginInfo::default();
                info.path = site.library.clone();
                info.project_dir = self.shared.cwd.clone();
                info.has_ui = site.has_ui;
                info.log_level = kept_level();
                json(serde_json::to_string(&info))
            }
            CONFIG => {
                let answer = plugin_config::find(site.config.as_ref(), &site.library)
                    .map_err(|message| ServiceError::failed(service, message))?;
                json(serde_json::to_string(&answer))
            }
            LOG => {
                let record: LogRecord = serde_json::from_str(request)
                    .map_err(|e| ServiceError::failed(service, format!("invalid record: {e}")))?;
                self.shared.log.record(&record);
                Ok("null".to_owned())
            }
            _ => services::answer_service(service, request, services::API_SERVICES),
        }
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
        if let Some(forward) = &self.shared.forward {
            return forwarded(forward.forward(HostRequest::SendMessage {
                message: message.to_string(),
                options: options.to_string(),
            }))
            .map(drop);
        }
        let message: CustomMessage = match serde_json::from_str(message.as_str()) {
            Ok(message) => message,
            Err(e) => return RErr(format!("invalid message: {e}").into()),
        };
        let mut options: SendMessageOptions = match serde_json::from_str(options.as_str()) {
            Ok(options) => options,
            Err(e) => return RErr(format!("invalid message options: {e}").into()),
        };
        if options.deliver_as == Some(DeliverAs::Unknown) {
            self.report_unknown("send_message", "a `deliver_as`");
            options.deliver_as = None;
        }
        self.shared.outbox.send(Pending::Message(message, options));
        ROk(())
    }

    fn append_entry(&self, custom_type: RStr<'_>, data: RStr<'_>) -> RResult<(), RString> {
        if let Some(forward) = &self.shared.forward {
            return forwarded(forward.forward(HostRequest::AppendEntry {
                custom_type: custom_type.to_string(),
                data: data.to_string(),
            }))
            .map(drop);
        }
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
        if let Some(forward) = &self.shared.forward {
            return forwarded(forward.forward(HostRequest::Exec {
                command: command.to_string(),
                args: args.iter().map(|a| a.to_string()).collect(),
                options: options.to_string(),
            }));
        }
        let options: ExecOptions = match serde_json::from_str(options.as_str()) {
            Ok(options) => options,
            Err(e) => return RErr(format!("invalid exec options: {e}").into()),
        };
        let args: Vec<&str> = args.iter().map(RString::as_str).collect();
        let ran = may_block(|| {
            shielded(Err("exec failed unexpectedly".to_owned()), || {
                exec(command.as_str(), &args, &options, &self.shared.cwd).map_err(|e| e.to_string())
            })
        });
        self.program_ran(command.as_str(), &args, &ran);
        let outcome =
            ran.and_then(|output| serde_json::to_string(&output).map_err(|e| e.to_string()));
        match outcome {
            Ok(json) => ROk(json.into()),
            Err(e) => RErr(e.into()),
        }
    }

    fn call(&self, service: RStr<'_>, request: RStr<'_>) -> RResult<RString, RString> {
        let answer = match &self.shared.forward {
            Some(forward) => forwarded(forward.forward(HostRequest::Service {
                service: service.to_string(),
                request: request.to_string(),
            })),
            None => services::to_abi(self.answer_service(service.as_str(), request.as_str())),
        };
        if service.as_str() == REQUIRE && answer.is_err() {
            if let Ok(requirement) = serde_json::from_str::<Requirement>(request.as_str()) {
                let mut unmet = self.shared.unmet.lock_unpoisoned();
                unmet.get_or_insert(requirement);
            }
        }
        answer
    }
}

#[cfg(test)]
mod tests {
    use abi_stable::std_types::{RNone, ROption, RResult, RStr, RString};
    use agent_hooks_abi::ffi::{CallError, EventHandler, EventHandler_TO, HostContextRef};

    use super::*;

    struct Silent;

    impl EventHandler for Silent {
        fn handle(
            &self,
            _event: RStr<'_>,
            _serial: u64,
            _ctx: HostContextRef<'_>,
        ) -> RResult<ROption<RString>, CallError> {
            ROk(RNone)
        }
    }

    #[test]
    fn a_handler_for_an_event_the_host_does_not_know_is_refused_with_a_warning() {
        let api = PluginApi::new(Arc::default(), PathBuf::new(), "newer.so", Site::default());
        let unknown = api.on(
            "future_event".into(),
            EventHandler_TO::from_value(Silent, TD_Opaque),
        );
        let known = api.on(
            "turn_end".into(),
            EventHandler_TO::from_value(Silent, TD_Opaque),
        );
        let warning = "registers a handler for unknown event `future_event`, which this host does not emit (the plugin may be newer than the host); the handler is ignored";
        assert_eq!(unknown, RErr(warning.into()));
        assert_eq!(known, ROk(()));
        let registry = api.take_registry();
        assert_eq!(registry.warnings, [warning]);
        let kinds: Vec<EventKind> = registry.handlers.iter().map(|(k, _)| *k).collect();
        assert_eq!(kinds, [EventKind::TurnEnd]);
    }
}
