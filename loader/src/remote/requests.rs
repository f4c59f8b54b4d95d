//! Serving what a plugin process asks: outside any call (messages, entries, `exec`, host
//! services) through the hook's host API, and during a call with that call's context.

use std::{
    sync::{atomic::Ordering, Arc},
    thread,
};

use abi_stable::std_types::{RResult, RSlice, RString};
use agent_hooks_abi::{
    ffi::{HostApi, HostContext},
    ExecOptions,
};
use serde_json::Value;

use super::connection::Connection;
use crate::{
    host::{CallContext, PluginApi},
    protocol::frames::{Answer, HostRequest, ToPlugin},
};

/// How many programs one plugin process may have running through `exec` at once; more are
/// refused with an error (each holds a thread and a process group of the agent's).
pub const MAX_EXECS: usize = 8;

/// Serves what a plugin asks outside any call: messages and entries go to the agent through
/// the hook's host API (with its checks), programs run under the agent's supervisor.
pub(super) fn serve_outside_calls(
    connection: &Arc<Connection>,
    api: &PluginApi,
    id: u64,
    request: HostRequest,
) {
    match request {
        HostRequest::SendMessage { message, options } => reply(
            connection,
            id,
            api.send_message(message.as_str().into(), options.as_str().into())
                .map(|()| RString::new()),
        ),
        HostRequest::AppendEntry { custom_type, data } => reply(
            connection,
            id,
            api.append_entry(custom_type.as_str().into(), data.as_str().into())
                .map(|()| RString::new()),
        ),
        HostRequest::Exec {
            command,
            args,
            options,
        } => {
            if connection.execs.fetch_add(1, Ordering::AcqRel) >= MAX_EXECS {
                connection.execs.fetch_sub(1, Ordering::AcqRel);
                let refused = format!(
                    "{MAX_EXECS} programs already run for this plugin; wait for one to end"
                );
                return reply(connection, id, abi_stable::std_types::RErr(refused.into()));
            }
            let connection = connection.clone();
            let api = api.clone();
            thread::spawn(move || {
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                let cwd = api.cwd();
                // The program ends with the plugin process that asked for it.
                let ran = serde_json::from_str::<ExecOptions>(&options)
                    .map_err(|e| format!("invalid exec options: {e}"))
                    .and_then(|options| {
                        crate::host::exec_until(&command, &args, &options, cwd, connection.ended())
                            .map_err(|e| e.to_string())
                    });
                api.program_ran(&command, &args, &ran);
                let result = ran
                    .and_then(|output| serde_json::to_string(&output).map_err(|e| e.to_string()));
                let result = match result {
                    Ok(json) => abi_stable::std_types::ROk(RString::from(json)),
                    Err(e) => abi_stable::std_types::RErr(RString::from(e)),
                };
                connection.execs.fetch_sub(1, Ordering::AcqRel);
                reply(&connection, id, result);
            });
        }
        HostRequest::Service { service, request } => reply(
            connection,
            id,
            api.call(service.as_str().into(), request.as_str().into()),
        ),
        other => reply(
            connection,
            id,
            abi_stable::std_types::RErr(
                format!("{} is only available during a call", method_name(&other)).into(),
            ),
        ),
    }
}

fn reply(connection: &Connection, id: u64, result: RResult<RString, RString>) {
    let result = match result.into_result() {
        Ok(value) => Answer::Ok {
            value: Value::String(value.into_string()),
        },
        Err(message) => Answer::Err {
            message: message.into_string(),
        },
    };
    connection.send(&ToPlugin::Reply { id, result });
}

fn method_name(request: &HostRequest) -> String {
    serde_json::to_value(request)
        .ok()
        .and_then(|v| v["method"].as_str().map(str::to_owned))
        .unwrap_or_else(|| "this method".into())
}

/// Whether serving `request` may wait (for the user, or the agent): what a call awaited in a
/// task serves on a thread that may block. Statuses, notifications and questions the agent
/// answers from what it knows are served at once.
pub(super) fn may_wait(request: &HostRequest) -> bool {
    !matches!(
        request,
        HostRequest::HasUi
            | HostRequest::Cwd
            | HostRequest::Session
            | HostRequest::Model
            | HostRequest::IsIdle
            | HostRequest::HasQueuedMessages
            | HostRequest::UiNotify { .. }
            | HostRequest::UiSetStatus { .. }
            | HostRequest::UiSetEditorText { .. }
            | HostRequest::UiGetEditorText
            | HostRequest::UiTheme
    )
}

/// Serves one request of a call with the call's context.
pub(super) fn serve_in_call(request: HostRequest, ctx: &CallContext<'_>) -> Answer {
    let ok = |value: Value| Answer::Ok { value };
    let text = |value: RString| ok(Value::String(value.into_string()));
    let maybe = |value: abi_stable::std_types::ROption<RString>| {
        ok(value
            .into_option()
            .map_or(Value::Null, |v| Value::String(v.into_string())))
    };
    let action = |result: RResult<RString, RString>| match result.into_result() {
        Ok(value) => text(value),
        Err(message) => Answer::Err {
            message: message.into_string(),
        },
    };
    match request {
        HostRequest::HasUi => ok(ctx.has_ui().into()),
        HostRequest::Cwd => text(HostContext::cwd(ctx)),
        HostRequest::Session => text(ctx.session()),
        HostRequest::Model => text(ctx.model()),
        HostRequest::IsIdle => ok(ctx.is_idle().into()),
        HostRequest::Abort => {
            ctx.abort();
            ok(Value::Null)
        }
        HostRequest::HasQueuedMessages => ok(ctx.has_queued_messages().into()),
        HostRequest::UiSelect { title, options } => {
            let options: Vec<RString> = options.into_iter().map(RString::from).collect();
            maybe(ctx.ui_select(title.as_str().into(), RSlice::from_slice(&options)))
        }
        HostRequest::UiConfirm { title, message } => ok(ctx
            .ui_confirm(title.as_str().into(), message.as_str().into())
            .into()),
        HostRequest::UiInput { title, placeholder } => {
            maybe(ctx.ui_input(title.as_str().into(), placeholder.as_str().into()))
        }
        HostRequest::UiEditor { title, prefill } => {
            maybe(ctx.ui_editor(title.as_str().into(), prefill.as_str().into()))
        }
        HostRequest::UiNotify { message, level } => {
            ctx.ui_notify(message.as_str().into(), level.as_str().into());
            ok(Value::Null)
        }
        HostRequest::UiSetStatus { key, text } => {
            let text = match &text {
                Some(t) => abi_stable::std_types::RSome(t.as_str().into()),
                None => abi_stable::std_types::RNone,
            };
            ctx.ui_set_status(key.as_str().into(), text);
            ok(Value::Null)
        }
        HostRequest::UiCustom { kind, data } => {
            maybe(ctx.ui_custom(kind.as_str().into(), data.as_str().into()))
        }
        HostRequest::UiSetEditorText { text: value } => {
            ctx.ui_set_editor_text(value.as_str().into());
            ok(Value::Null)
        }
        HostRequest::UiGetEditorText => text(ctx.ui_get_editor_text()),
        HostRequest::UiTheme => text(ctx.ui_theme()),
        HostRequest::WaitForIdle => match ctx.wait_for_idle().into_result() {
            Ok(()) => ok(Value::Null),
            Err(message) => Answer::Err {
                message: message.into_string(),
            },
        },
        HostRequest::NewSession { options } => action(ctx.new_session(options.as_str().into())),
        HostRequest::Branch { entry_id } => action(ctx.branch(entry_id.as_str().into())),
        HostRequest::NavigateTree { target_id, options } => {
            action(ctx.navigate_tree(target_id.as_str().into(), options.as_str().into()))
        }
        HostRequest::Service { service, request } => {
            action(ctx.call(service.as_str().into(), request.as_str().into()))
        }
        HostRequest::SendMessage { .. }
        | HostRequest::AppendEntry { .. }
        | HostRequest::Exec { .. } => Answer::Err {
            message: "this request belongs to no call".into(),
        },
        HostRequest::Unsupported => Answer::Err {
            message: "unsupported: this agent does not know the request".into(),
        },
    }
}
