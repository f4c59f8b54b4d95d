//! A hook whose handlers ask the host what to do, through `ui.custom("script", ...)`.
//!
//! Every event gets two handlers, tagged `<name>#1` and `<name>#2`. Each sends the host its
//! tag, the event's name and the payload it received, so the host records the order in which
//! handlers ran and what each one saw; the host answers with an action: `{"return": result}`,
//! `{"error": message}`, `{"panic": message}`, or nothing. The factory sends one message
//! (`hello` from `<name>`), and registers the command `/whoami` and a renderer for `scripted`.
//!
//! Compiled into the `scripted-a` and `scripted-b` fixture plugins and, in process, into the
//! test support crate, so that plugins and in-process hooks run the same code.

use agent_hooks_abi::prelude::*;
use agent_hooks_abi::serde_json;

/// Registers everything, tagging handlers with `name`.
pub fn register_all(api: &mut HookApi, name: &'static str) -> HandlerResult<()> {
    macro_rules! register_each {
        ($($event:ty => $kind:ident, $out:ty;)*) => { $( register::<$event>(api, name); )* };
    }
    agent_hooks_abi::for_each_event!(register_each);
    api.register_command("whoami", name, move |_args, ctx| {
        ctx.ui().notify(name, NotifyLevel::Info);
        Ok(())
    });
    api.register_message_renderer("scripted", move |message, _options, _ctx| {
        Ok(Some(format!("{name} renders {:?}", message.content)))
    });
    api.send_message(
        &CustomMessage::new("hello", name),
        &SendMessageOptions::default(),
    )?;
    Ok(())
}

fn register<E: Event>(api: &mut HookApi, name: &'static str) {
    for n in 1..=2 {
        let tag = format!("{name}#{n}");
        api.on(move |event: &E, ctx| {
            let question = json!({"tag": tag, "event": E::KIND.name(), "payload": event});
            match ctx.ui().custom("script", &question) {
                Some(action) => act::<E>(action),
                None => Ok(None),
            }
        });
    }
}

fn act<E: Event>(action: Value) -> HandlerResult<Option<E::Output>> {
    if let Some(message) = action.get("panic").and_then(Value::as_str) {
        panic!("{message}");
    }
    if let Some(message) = action.get("error").and_then(Value::as_str) {
        return Err(message.into());
    }
    match action.get("return") {
        Some(result) => Ok(Some(serde_json::from_value(result.clone())?)),
        None => Ok(None),
    }
}
