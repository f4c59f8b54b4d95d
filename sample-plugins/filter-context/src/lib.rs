//! Keeps custom messages of type `debug-only` out of the model's context.

use agent_hooks_abi::prelude::*;

fn plugin(api: &mut HookApi) -> HandlerResult<()> {
    api.on(|event: &ContextEvent, _ctx| {
        let is_debug = |m: &AgentMessage| m.custom_type.as_deref() == Some("debug-only");
        if !event.messages.iter().any(is_debug) {
            return Ok(None);
        }
        let messages = event
            .messages
            .iter()
            .filter(|m| !is_debug(m))
            .cloned()
            .collect();
        Ok(Some(ContextResult::default().messages(messages)))
    });
    Ok(())
}

agent_hooks_abi::export_plugin!(plugin);
