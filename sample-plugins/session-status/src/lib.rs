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
