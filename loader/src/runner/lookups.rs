//! Commands and message renderers: the first hook that registered one wins.

use agent_hooks_abi::{events::CustomMessage, RenderOptions};

use super::{HookError, HookErrorKind, HookRunner};
use crate::{
    hook::{Hook, Renderer, SlashCommand},
    host::CallContext,
    remote::CallFailure,
};

/// A failed call as the error it is for the hook at `hook_path` on `what`.
fn failure(hook_path: &str, what: String, failure: CallFailure) -> HookError {
    match failure {
        CallFailure::Failed(kind, message) => HookError::new(kind, hook_path, what, message),
        CallFailure::Disabled => HookError::new(
            HookErrorKind::Crashed(super::Termination::Exit(0)),
            hook_path,
            what,
            "the plugin was disabled after crashing too often",
        ),
    }
}

impl HookRunner {
    /// The command `name` (without `/`) of the first hook that registered it.
    pub fn get_command(&self, name: &str) -> Option<&SlashCommand> {
        let name = name.trim_start_matches('/');
        self.registered_commands().find(|c| c.name == name)
    }

    /// Every command of every hook, in hook order, duplicates included.
    pub fn registered_commands(&self) -> impl Iterator<Item = &SlashCommand> + '_ {
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
        let name = name.trim_start_matches('/');
        let (hook, command) = self
            .hooks
            .iter()
            .flat_map(|hook| hook.commands().iter().map(move |c| (hook, c)))
            .find(|(_, c)| c.name == name)?;
        let agent = self.agent();
        let context = CallContext::command(&agent, &self.cwd);
        let timeout = hook.settings().command_timeout;
        let result = command.handler.call(args, &context, timeout, &command.name);
        Some(result.map_err(|error| {
            let error = failure(&command.hook_path, format!("/{}", command.name), error);
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
        let (hook, renderer): (&Hook, &Renderer) = self
            .hooks
            .iter()
            .flat_map(|hook| hook.renderers().iter().map(move |r| (hook, r)))
            .find(|(_, r)| r.custom_type == message.custom_type)?;
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
        let context = CallContext::event(&agent, &self.cwd);
        let timeout = hook.settings().renderer_timeout;
        match renderer
            .renderer
            .call(&json, &options, &context, timeout, &renderer.custom_type)
        {
            Ok(rendered) => rendered,
            Err(error) => {
                let error = failure(
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
