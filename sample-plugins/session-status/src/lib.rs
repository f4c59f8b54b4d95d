//! Shows the current turn and the number of tool calls in the status line.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use agent_hooks_abi::prelude::*;

fn plugin(api: &mut HookApi) -> HandlerResult<()> {
    api.on(|event: &TurnStartEvent, ctx| {
        let text = format!("turn {}", event.turn_index + 1);
        ctx.ui().set_status("turn", Some(&text));
        Ok(None)
    });
    let calls = Arc::new(AtomicUsize::new(0));
    let counter = calls.clone();
    api.on(move |_: &ToolCallEvent, ctx| {
        let n = counter.fetch_add(1, Ordering::Relaxed) + 1;
        let text = format!("⚙ {n} tool{}", if n == 1 { "" } else { "s" });
        ctx.ui().set_status("tools", Some(&text));
        Ok(None)
    });
    api.on(move |_: &AgentEndEvent, ctx| {
        calls.store(0, Ordering::Relaxed);
        ctx.ui().set_status("turn", None);
        ctx.ui().set_status("tools", None);
        Ok(None)
    });
    Ok(())
}

agent_hooks_abi::export_plugin!(plugin);

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use agent_hooks_abi::prelude::*;
    use agent_hooks_abi::testing::TestHost;

    fn status(entries: &[(&str, &str)]) -> BTreeMap<String, String> {
        entries
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn the_status_line_counts_turns_and_tools_and_is_cleared_at_the_end() {
        let plugin = TestHost::new().load(super::plugin).unwrap();
        let call = ToolCallEvent::new("read", "call-1", json!({}));
        plugin
            .emit(&TurnStartEvent::default().turn_index(0))
            .unwrap();
        plugin.emit(&call).unwrap();
        assert_eq!(
            plugin.status(),
            status(&[("tools", "⚙ 1 tool"), ("turn", "turn 1")])
        );
        plugin
            .emit(&TurnStartEvent::default().turn_index(1))
            .unwrap();
        plugin.emit(&call).unwrap();
        assert_eq!(
            plugin.status(),
            status(&[("tools", "⚙ 2 tools"), ("turn", "turn 2")])
        );

        plugin.emit(&AgentEndEvent::default()).unwrap();
        assert_eq!(plugin.status(), status(&[]));
        // The count starts again with the next prompt.
        plugin.emit(&call).unwrap();
        assert_eq!(plugin.status(), status(&[("tools", "⚙ 1 tool")]));
    }
}
