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

#[cfg(test)]
mod tests {
    use agent_hooks_abi::prelude::*;
    use agent_hooks_abi::testing::{Call, TestHost};
    use agent_hooks_abi::SessionInfo;

    #[test]
    fn it_waits_then_starts_a_session_that_continues_from_this_one() {
        let plugin = TestHost::new()
            .session(SessionInfo::default().id("s-1").file("sessions/s-1.jsonl"))
            .load(super::plugin)
            .unwrap();
        assert_eq!(
            plugin.commands(),
            vec![(
                "handoff".to_owned(),
                "Continue in a new session from this one's summary".to_owned()
            )]
        );
        assert_eq!(plugin.run_command("handoff", ""), Ok(()));
        let first = AgentMessage {
            role: "user".into(),
            content: Content::Blocks(vec![ContentBlock::text(
                "Continue from prior session summary.",
            )]),
            ..Default::default()
        };
        assert_eq!(
            plugin.calls(),
            vec![
                Call::WaitForIdle,
                Call::NewSession(
                    NewSessionOptions::default()
                        .messages(vec![first])
                        .parent_session("sessions/s-1.jsonl")
                ),
            ]
        );
        assert_eq!(plugin.notifications(), vec![]);
    }

    #[test]
    fn a_cancelled_handoff_is_reported() {
        let plugin = TestHost::new().load(super::plugin).unwrap();
        plugin.cancel_session_actions(true);
        assert_eq!(plugin.run_command("handoff", ""), Ok(()));
        assert_eq!(
            plugin.notifications(),
            vec![("Handoff cancelled".to_owned(), NotifyLevel::Info)]
        );
    }
}
