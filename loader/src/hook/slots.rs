//! A hook's handlers, commands and renderers, wherever their code runs: called the same way
//! by the runner, in process through the ABI or in a plugin process through its pipe.

use std::{sync::Arc, time::Duration};

use abi_stable::{sabi_trait::TD_Opaque, std_types::RString};
use agent_hooks_abi::{
    events::EventKind,
    ffi::{CommandHandlerBox, EventHandlerBox, HostContext_TO, MessageRendererBox},
};

use crate::{
    error::HookErrorKind,
    host::CallContext,
    protocol::frames::Target,
    remote::{CallFailure, PluginProcess},
    supervisor::workers::{call_with_deadline, CallClock},
};

/// An event handler.
pub(crate) enum HandlerSlot {
    /// In this process, called on the emitting thread.
    Native(EventHandlerBox),
    /// In this process, called on a thread of its own with a deadline.
    Guarded(Arc<EventHandlerBox>),
    /// The `index`-th handler of `event` in a plugin process.
    Remote {
        process: Arc<PluginProcess>,
        event: EventKind,
        index: usize,
    },
}

/// A command's handler.
pub(crate) enum CommandSlot {
    Native(CommandHandlerBox),
    Remote {
        process: Arc<PluginProcess>,
        index: usize,
    },
}

/// A message renderer.
pub(crate) enum RendererSlot {
    Native(MessageRendererBox),
    Remote {
        process: Arc<PluginProcess>,
        index: usize,
    },
}

fn native_failure(error: agent_hooks_abi::ffi::CallError) -> CallFailure {
    let kind = if error.panicked {
        HookErrorKind::Panicked
    } else {
        HookErrorKind::Failed
    };
    CallFailure::Failed(kind, error.message.into_string())
}

impl HandlerSlot {
    /// Handles the event `payload` (JSON, with its `serial`).
    pub(crate) fn call(
        &self,
        payload: &str,
        serial: u64,
        context: &CallContext<'_>,
        timeout: Duration,
    ) -> Result<Option<String>, CallFailure> {
        match self {
            HandlerSlot::Native(handler) => handler
                .handle(
                    payload.into(),
                    serial,
                    HostContext_TO::from_ptr(context, TD_Opaque),
                )
                .into_result()
                .map(|output| output.into_option().map(RString::into_string))
                .map_err(native_failure),
            HandlerSlot::Guarded(handler) => {
                let handler = handler.clone();
                let payload = payload.to_owned();
                let clock = Arc::new(CallClock::default());
                let detached = context.detach(clock.clone());
                call_with_deadline(timeout, clock, move || {
                    let context = detached.context();
                    handler
                        .handle(
                            payload.as_str().into(),
                            serial,
                            HostContext_TO::from_ptr(&context, TD_Opaque),
                        )
                        .into_result()
                        .map(|output| output.into_option().map(RString::into_string))
                        .map_err(native_failure)
                })
                .unwrap_or_else(|| {
                    Err(CallFailure::Failed(
                        HookErrorKind::TimedOut(timeout),
                        format!("the handler did not return within {timeout:?}; the agent stopped waiting for it (in process, its thread cannot be stopped and is abandoned)"),
                    ))
                })
            }
            HandlerSlot::Remote {
                process,
                event,
                index,
            } => process.call(
                Target::Handler {
                    event: event.name().to_owned(),
                    index: *index,
                    serial,
                },
                payload,
                context,
                timeout,
                event.name(),
            ),
        }
    }
}

impl CommandSlot {
    /// Runs the command with `args`.
    pub(crate) fn call(
        &self,
        args: &str,
        context: &CallContext<'_>,
        timeout: Duration,
        name: &str,
    ) -> Result<(), CallFailure> {
        match self {
            CommandSlot::Native(handler) => handler
                .run(args.into(), HostContext_TO::from_ptr(context, TD_Opaque))
                .into_result()
                .map_err(native_failure),
            CommandSlot::Remote { process, index } => process
                .call(
                    Target::Command { index: *index },
                    args,
                    context,
                    timeout,
                    &format!("/{name}"),
                )
                .map(drop),
        }
    }

    /// The handler, when it runs in this process.
    pub(crate) fn native(&self) -> Option<&CommandHandlerBox> {
        match self {
            CommandSlot::Native(handler) => Some(handler),
            CommandSlot::Remote { .. } => None,
        }
    }
}

impl RendererSlot {
    /// Renders `message` (JSON) with `options` (JSON).
    pub(crate) fn call(
        &self,
        message: &str,
        options: &str,
        context: &CallContext<'_>,
        timeout: Duration,
        custom_type: &str,
    ) -> Result<Option<String>, CallFailure> {
        match self {
            RendererSlot::Native(renderer) => renderer
                .render(
                    message.into(),
                    options.into(),
                    HostContext_TO::from_ptr(context, TD_Opaque),
                )
                .into_result()
                .map(|output| output.into_option().map(RString::into_string))
                .map_err(native_failure),
            RendererSlot::Remote { process, index } => process.call(
                Target::Renderer {
                    index: *index,
                    options: options.to_owned(),
                },
                message,
                context,
                timeout,
                &format!("renderer:{custom_type}"),
            ),
        }
    }

    /// The renderer, when it runs in this process.
    pub(crate) fn native(&self) -> Option<&MessageRendererBox> {
        match self {
            RendererSlot::Native(renderer) => Some(renderer),
            RendererSlot::Remote { .. } => None,
        }
    }
}
