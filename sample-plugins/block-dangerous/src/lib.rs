//! Blocks shell commands that contain `rm -rf`: with a UI, only if the user says no;
//! without one, always.

use agent_hooks_abi::prelude::*;

/// The shell tools this plugin watches: `exec` is this agent's, `bash` the original's.
const SHELL_TOOLS: &[&str] = &["exec", "bash"];

fn plugin(api: &mut HookApi) -> HandlerResult<()> {
    api.on(|event: &ToolCallEvent, ctx| {
        if !SHELL_TOOLS.contains(&event.tool_name.as_str()) {
            return Ok(None);
        }
        let command = event.input["command"].as_str().unwrap_or_default();
        if !command.contains("rm -rf") {
            return Ok(None);
        }
        if !ctx.has_ui() {
            return Ok(Some(ToolCallResult::block(
                "Dangerous command blocked: `rm -rf` needs a user to confirm it, and there is no UI",
            )));
        }
        let allowed = ctx
            .ui()
            .confirm("Dangerous command", &format!("Allow `{command}`?"));
        Ok((!allowed).then(|| ToolCallResult::block("Blocked by user")))
    });
    Ok(())
}

agent_hooks_abi::export_plugin!(plugin);

#[cfg(test)]
mod tests {
    use agent_hooks_abi::prelude::*;
    use agent_hooks_abi::testing::{Answer, Call, TestHost};

    fn shell(tool: &str, command: &str) -> ToolCallEvent {
        ToolCallEvent::new(tool, "call-1", json!({ "command": command }))
    }

    #[test]
    fn other_tools_and_harmless_commands_pass_without_a_question() {
        let plugin = TestHost::new().load(super::plugin).unwrap();
        assert_eq!(plugin.emit(&shell("exec", "ls -la")), Ok(None));
        assert_eq!(plugin.emit(&shell("write", "rm -rf /")), Ok(None));
        assert_eq!(plugin.calls(), vec![]);
    }

    #[test]
    fn the_user_decides_with_a_ui() {
        let plugin = TestHost::new().load(super::plugin).unwrap();
        plugin.answer(Answer::Yes).answer(Answer::No);
        assert_eq!(plugin.emit(&shell("bash", "rm -rf build")), Ok(None));
        assert_eq!(
            plugin.emit(&shell("exec", "rm -rf /")),
            Ok(Some(ToolCallResult::block("Blocked by user")))
        );
        let confirm = |command: &str, answer| Call::Confirm {
            title: "Dangerous command".into(),
            message: format!("Allow `{command}`?"),
            answer,
        };
        assert_eq!(
            plugin.calls(),
            vec![confirm("rm -rf build", true), confirm("rm -rf /", false)]
        );
    }

    #[test]
    fn without_a_ui_it_always_blocks() {
        let plugin = TestHost::new().without_ui().load(super::plugin).unwrap();
        assert_eq!(
            plugin.emit(&shell("exec", "rm -rf build")),
            Ok(Some(ToolCallResult::block(
                "Dangerous command blocked: `rm -rf` needs a user to confirm it, and there is no UI"
            )))
        );
        assert_eq!(plugin.calls(), vec![]);
    }
}
