//! Commands and message renderers: the first hook that registered one wins.

use abi_stable::{sabi_trait::TD_Opaque, std_types::RString};
use agent_hooks_abi::{events::CustomMessage, ffi::HostContext_TO, RenderOptions};

use super::{HookError, HookErrorKind, HookRunner};
use crate::{
    hook::{Command, Renderer},
    host::CallContext,
};

impl HookRunner {
    /// The command `name` (without `/`) of the first hook that registered it.
    pub fn get_command(&self, name: &str) -> Option<&Command> {
        let name = name.trim_start_matches('/');
        self.registered_commands().find(|c| c.name == name)
    }

    /// Every command of every hook, in hook order, duplicates included.
    pub fn registered_commands(&self) -> impl Iterator<Item = &Command> + '_ {
        self.hooks.iter().flat_map(|hook| hook.commands())
    }

    /// The renderer of the first hook that registered one for `custom_type`.
    pub fn get_message_renderer(&self, custom_type: &str) -> Option<&Renderer> {
        self.hooks
            .iter()
            .flat_map(|hook| hook.renderers())
            .find(|r| r.custom_type == custom_type)
    }

    /// Runs the command `name` (without `/`) of the first hook that registered it, with the
    /// command context, passing `args` (the text after the name). `None` when no hook
    /// registered it. An error or panic is returned and reported to the error listeners.
    pub fn run_command(&self, name: &str, args: &str) -> Option<Result<(), HookError>> {
        let command = self.get_command(name)?;
        let agent = self.agent();
        let context = CallContext::command(agent.as_ref(), &self.cwd);
        let ctx = HostContext_TO::from_ptr(&context, TD_Opaque);
        let result = command.handler.run(args.into(), ctx).into_result();
        Some(result.map_err(|error| {
            let error =
                HookError::from_call(&command.hook_path, format!("/{}", command.name), error);
            self.listeners.report(&error);
            error
        }))
    }

    /// Renders `message` with the renderer of the first hook that registered one for its
    /// `custom_type`. `None` means "use the default rendering" (a `[custom_type]` label and
    /// the content): there is no renderer, it declined, or it failed; a failure is also
    /// reported to the error listeners.
    pub fn render_message(
        &self,
        message: &CustomMessage,
        options: &RenderOptions,
    ) -> Option<String> {
        let renderer = self.get_message_renderer(&message.custom_type)?;
        let failed = |message: String| {
            self.listeners.report(&HookError::new(
                HookErrorKind::Runner,
                &renderer.hook_path,
                format!("renderer:{}", renderer.custom_type),
                message,
            ));
            None
        };
        let (Ok(json), Ok(options)) = (
            serde_json::to_string(message),
            serde_json::to_string(options),
        ) else {
            return failed("the message cannot be serialised".into());
        };
        let agent = self.agent();
        let context = CallContext::event(agent.as_ref(), &self.cwd);
        let ctx = HostContext_TO::from_ptr(&context, TD_Opaque);
        match renderer
            .renderer
            .render(json.as_str().into(), options.as_str().into(), ctx)
            .into_result()
        {
            Ok(rendered) => rendered.into_option().map(RString::into_string),
            Err(error) => {
                let error = HookError::from_call(
                    &renderer.hook_path,
                    format!("renderer:{}", renderer.custom_type),
                    error,
                );
                self.listeners.report(&error);
                None
            }
        }
    }
}

/// The default rendering of a custom message: its type as a label, then its text.
pub fn default_rendering(message: &CustomMessage) -> String {
    use agent_hooks_abi::events::Content;
    let text = match &message.content {
        Content::Text(text) => text.clone(),
        Content::Blocks(blocks) => blocks
            .iter()
            .filter_map(|b| b.as_text())
            .collect::<Vec<_>>()
            .join("\n"),
    };
    format!("[{}] {text}", message.custom_type)
}
