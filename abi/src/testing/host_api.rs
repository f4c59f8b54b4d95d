//! The kit's side of the boundary's [`HostApi`]: registrations, messages, entries, programs.

use abi_stable::std_types::{RErr, ROk, RResult, RSlice, RStr, RString};

use super::{
    exec,
    record::{Call, Ran},
    services,
    state::{lock, Command, Shared},
};
use crate::{
    events::{EventKind, SendMessageOptions},
    ffi::{CommandHandlerBox, EventHandlerBox, HostApi, MessageRendererBox},
    sdk::ExecOptions,
};

/// The host API object the plugin's factory gets.
#[derive(Clone)]
pub(crate) struct KitHostApi {
    pub(crate) shared: Shared,
}

const AFTER_FACTORY: &str = "registrations are only accepted while the factory runs";

fn parse<T: serde::de::DeserializeOwned>(what: &str, json: RStr<'_>) -> Result<T, RString> {
    serde_json::from_str(json.as_str()).map_err(|e| RString::from(format!("invalid {what}: {e}")))
}

impl KitHostApi {
    fn register(&self, f: impl FnOnce(&mut super::state::Registry)) -> RResult<(), RString> {
        match lock(&self.shared).registry.as_mut() {
            Some(registry) => {
                f(registry);
                ROk(())
            }
            None => RErr(AFTER_FACTORY.into()),
        }
    }

    fn record(&self, call: Call) {
        lock(&self.shared).calls.push(call);
    }
}

impl HostApi for KitHostApi {
    fn on(&self, event: RStr<'_>, handler: EventHandlerBox) -> RResult<(), RString> {
        let Ok(kind) = event.as_str().parse::<EventKind>() else {
            return RErr(format!("unknown event `{event}`").into());
        };
        self.register(|r| r.handlers.push((kind, handler)))
    }

    fn register_command(
        &self,
        name: RStr<'_>,
        description: RStr<'_>,
        handler: CommandHandlerBox,
    ) -> RResult<(), RString> {
        self.register(|r| {
            r.commands.push(Command {
                // As the agent does: `/todo` and `todo` name the same command.
                name: name.as_str().trim_start_matches('/').to_owned(),
                description: description.as_str().to_owned(),
                handler,
            })
        })
    }

    fn register_message_renderer(
        &self,
        custom_type: RStr<'_>,
        renderer: MessageRendererBox,
    ) -> RResult<(), RString> {
        self.register(|r| {
            r.renderers
                .push((custom_type.as_str().to_owned(), renderer))
        })
    }

    fn send_message(&self, message: RStr<'_>, options: RStr<'_>) -> RResult<(), RString> {
        let sent = parse("message", message).and_then(|message| {
            let options: SendMessageOptions = parse("message options", options)?;
            Ok(Call::SendMessage { message, options })
        });
        sent.map(|call| self.record(call)).into()
    }

    fn append_entry(&self, custom_type: RStr<'_>, data: RStr<'_>) -> RResult<(), RString> {
        parse("entry data", data)
            .map(|data| {
                self.record(Call::AppendEntry {
                    custom_type: custom_type.as_str().to_owned(),
                    data,
                })
            })
            .into()
    }

    fn exec(
        &self,
        command: RStr<'_>,
        args: RSlice<'_, RString>,
        options: RStr<'_>,
    ) -> RResult<RString, RString> {
        let options: ExecOptions = match parse("exec options", options) {
            Ok(options) => options,
            Err(e) => return RErr(e),
        };
        let command = command.as_str().to_owned();
        let args: Vec<String> = args.iter().map(|a| a.as_str().to_owned()).collect();
        let (stubs, default_cwd) = {
            let state = lock(&self.shared);
            (state.stubs.clone(), state.world.cwd.clone())
        };
        let cwd = options.cwd.clone().unwrap_or(default_cwd);
        // Neither a stub nor the program runs under the lock: a stub may call the kit.
        let (output, stubbed) = match exec::stubbed(&stubs, &command, &args, &options) {
            Some(output) => (output, true),
            None => (exec::run(&command, &args, &options, &cwd), false),
        };
        let answer = output.clone().and_then(|output| {
            serde_json::to_string(&output).map_err(|e| format!("cannot write the output: {e}"))
        });
        self.record(Call::Exec(Ran {
            command,
            args,
            options,
            cwd,
            output,
            stubbed,
        }));
        answer.map(RString::from).map_err(RString::from).into()
    }

    fn call(&self, service: RStr<'_>, request: RStr<'_>) -> RResult<RString, RString> {
        services::call(&self.shared, service.as_str(), request.as_str())
    }
}
