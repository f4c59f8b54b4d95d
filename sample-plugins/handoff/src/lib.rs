//! `/handoff`: waits until the agent is idle, then starts a new session that continues from
//! the prior session's summary.

use agent_hooks_abi::prelude::*;

fn plugin(api: &mut HookApi) -> HandlerResult<()> {
    api.register_command(
        "handoff",
        "Continue in a new session from this one's summary",
        |_args, ctx| {
            ctx.wait_for_idle()?;
            let first = AgentMessage {
                role: "user".into(),
                content: Content::Blocks(vec![ContentBlock::text(
                    "Continue from prior session summary.",
                )]),
                ..Default::default()
            };
            let mut options = NewSessionOptions::default().messages(vec![first]);
            options.parent_session = ctx.session().file;
            let outcome = ctx.new_session(&options)?;
            if outcome.cancelled {
                ctx.ui().notify("Handoff cancelled", NotifyLevel::Info);
            }
            Ok(())
        },
    );
    Ok(())
}

agent_hooks_abi::export_plugin!(plugin);
