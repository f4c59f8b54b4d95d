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

#[cfg(test)]
mod tests {
    use agent_hooks_abi::prelude::*;
    use agent_hooks_abi::testing::TestHost;

    fn message(role: &str, custom_type: Option<&str>, text: &str) -> AgentMessage {
        AgentMessage {
            role: role.into(),
            content: Content::Text(text.into()),
            custom_type: custom_type.map(Into::into),
            ..Default::default()
        }
    }

    #[test]
    fn debug_only_messages_are_dropped_and_the_rest_kept_in_order() {
        let plugin = TestHost::new().load(super::plugin).unwrap();
        let user = message("user", None, "hi");
        let debug = message("custom", Some("debug-only"), "trace");
        let note = message("custom", Some("note"), "kept");
        let event = ContextEvent::default().messages(vec![user.clone(), debug, note.clone()]);
        assert_eq!(
            plugin.emit(&event),
            Ok(Some(ContextResult::default().messages(vec![user, note])))
        );
    }

    #[test]
    fn without_debug_messages_the_context_is_left_alone() {
        let plugin = TestHost::new().load(super::plugin).unwrap();
        let event = ContextEvent::default().messages(vec![message("user", None, "hi")]);
        assert_eq!(plugin.emit(&event), Ok(None));
    }
}
