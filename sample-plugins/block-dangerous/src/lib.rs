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
