//! Wrapping a tool: [`HookToolWrapper`] wraps any [`Tool`] so that hooks can block it,
//! rewrite its input, and redact or re-judge its result (docs/embedding.md, "Running hooks");
//! a call hooks did not let run is a [`ToolCallError`].

use std::{future::Future, sync::Arc};

use agent_hooks_abi::events::{text_of, ContentBlock, EventKind, ToolCallEvent, ToolResultEvent};
use serde_json::Value;

use crate::{
    error::HookError,
    runner::{HookRunner, ToolCallOutcome},
};

/// The error text of a call blocked without a reason.
pub const DEFAULT_BLOCK_REASON: &str = "Tool execution was blocked by a hook";

/// The error a tool returns.
pub type ToolError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// What a tool returns on success.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolOutput {
    /// What the model reads.
    pub content: Vec<ContentBlock>,
    /// Tool-specific data.
    pub details: Value,
}

/// A tool of the agent.
pub trait Tool: Send + Sync {
    /// The tool's name, as hooks see it (`exec`, `read`, ...).
    fn name(&self) -> &str;

    /// Runs the tool.
    fn execute(
        &self,
        tool_call_id: &str,
        input: Value,
    ) -> impl Future<Output = Result<ToolOutput, ToolError>> + Send;
}

/// Why a wrapped tool call did not succeed.
#[derive(Debug, thiserror::Error)]
pub enum ToolCallError {
    /// A `tool_call` handler blocked the call, or failed (which blocks: hooks fail safe).
    /// The tool did not run and no `tool_result` was emitted.
    #[error("{reason}")]
    Blocked {
        /// The block's reason, or [`DEFAULT_BLOCK_REASON`].
        reason: String,
        /// The handler's error, when a failure blocked the call.
        hook_error: Option<HookError>,
    },
    /// The tool failed; this is its own error, after `tool_result` handlers saw it.
    #[error(transparent)]
    Tool(ToolError),
    /// The tool succeeded but a `tool_result` handler marked the result as an error.
    #[error("{message}")]
    MarkedFailed {
        /// The text of the (possibly replaced) content.
        message: String,
        /// The result as the handlers left it.
        output: ToolOutput,
    },
}

/// A tool whose calls go through the runner's `tool_call` and `tool_result` hooks.
///
/// 1. If a hook listens to `tool_call`, it is emitted: a block, an error or a panic stops the
///    call with [`ToolCallError::Blocked`]. **Beyond a block:** a handler may return a new
///    input; the tool runs with the last one. A command hook that asks for confirmation
///    (`permissionDecision: ask`) gets it through the UI's `confirm`; no UI means no.
/// 2. The tool runs.
/// 3. On success, if a hook listens to `tool_result`, it is emitted with `is_error: false`;
///    returned `content` and `details` replace the tool's. **Beyond:** a returned
///    `is_error: true` turns the success into [`ToolCallError::MarkedFailed`].
/// 4. On failure, `tool_result` is emitted with `is_error: true` and the error's text as
///    content, and the original error is returned. **Beyond:** a returned `is_error: false`
///    turns the failure into a success with the returned content.
///
/// With no hook listening, the wrapper adds no allocation and no serialisation.
pub struct HookToolWrapper<T> {
    tool: T,
    runner: Arc<HookRunner>,
    /// Fields command hooks get in their payloads over the runner's (see
    /// [`with_payload_fields`](Self::with_payload_fields)).
    given: serde_json::Map<String, Value>,
}

impl<T: Tool> HookToolWrapper<T> {
    /// Wraps `tool`.
    pub fn new(tool: T, runner: Arc<HookRunner>) -> Self {
        Self {
            tool,
            runner,
            given: serde_json::Map::new(),
        }
    }

    /// Gives the command hooks of this tool's calls (and results) these payload fields over
    /// the ones the runner derives, as [`HookRunner::emit_with`] does: a recorded session's
    /// `session_id` and `transcript_path`, so that every hook of the session sees one id.
    pub fn with_payload_fields(mut self, fields: serde_json::Map<String, Value>) -> Self {
        self.given = fields;
        self
    }

    /// The wrapped tool.
    pub fn tool(&self) -> &T {
        &self.tool
    }

    /// Runs the tool through the hooks (see the type's docs).
    pub async fn execute(
        &self,
        tool_call_id: &str,
        input: Value,
    ) -> Result<ToolOutput, ToolCallError> {
        self.execute_with_outcome(tool_call_id, input).await.1
    }

    /// [`execute`](Self::execute), also giving what the `tool_call` hooks decided (a block,
    /// an ask, an approval, a new input, context): `None` when no hook listens to
    /// `tool_call`, or when one failed (then the call is blocked with its error).
    pub async fn execute_with_outcome(
        &self,
        tool_call_id: &str,
        input: Value,
    ) -> (Option<ToolCallOutcome>, Result<ToolOutput, ToolCallError>) {
        let (outcome, input) = self.before(tool_call_id, input).await;
        let input = match input {
            Ok(input) => input,
            Err(blocked) => return (outcome, Err(blocked)),
        };
        if !self.runner.has_handlers(EventKind::ToolResult) {
            let result = self.tool.execute(tool_call_id, input).await;
            return (outcome, result.map_err(ToolCallError::Tool));
        }
        let result = self.tool.execute(tool_call_id, input.clone()).await;
        (outcome, self.after(tool_call_id, input, result).await)
    }

    async fn before(
        &self,
        tool_call_id: &str,
        input: Value,
    ) -> (Option<ToolCallOutcome>, Result<Value, ToolCallError>) {
        if !self.runner.has_handlers(EventKind::ToolCall) {
            return (None, Ok(input));
        }
        let event = ToolCallEvent::new(self.tool.name(), tool_call_id, input);
        let outcome = match self.runner.emit_with(&event, &self.given).await {
            Err(hook_error) => {
                let blocked = ToolCallError::Blocked {
                    reason: format!("{DEFAULT_BLOCK_REASON} ({hook_error})"),
                    hook_error: Some(hook_error),
                };
                return (None, Err(blocked));
            }
            Ok(outcome) => outcome,
        };
        if outcome.block {
            let reason = outcome
                .reason
                .clone()
                .filter(|r| !r.trim().is_empty())
                .unwrap_or_else(|| DEFAULT_BLOCK_REASON.to_owned());
            let blocked = ToolCallError::Blocked {
                reason,
                hook_error: None,
            };
            return (Some(outcome), Err(blocked));
        }
        if let Some(question) = &outcome.ask {
            let title = format!("Allow {}?", self.tool.name());
            if !self.runner.confirm(&title, question) {
                let blocked = ToolCallError::Blocked {
                    reason: format!("Not confirmed by the user: {question}"),
                    hook_error: None,
                };
                return (Some(outcome), Err(blocked));
            }
        }
        let input = outcome.input.clone().unwrap_or(event.input);
        (Some(outcome), Ok(input))
    }

    async fn after(
        &self,
        tool_call_id: &str,
        input: Value,
        result: Result<ToolOutput, ToolError>,
    ) -> Result<ToolOutput, ToolCallError> {
        let (content, details, error) = match result {
            Ok(output) => (output.content, output.details, None),
            Err(error) => (
                vec![ContentBlock::text(error.to_string())],
                Value::Null,
                Some(error),
            ),
        };
        let event = ToolResultEvent::new(self.tool.name(), tool_call_id, input)
            .content(content)
            .details(details)
            .is_error(error.is_some());
        // Not strict: a handler's error was reported and the others' results still apply.
        let patch = self
            .runner
            .emit_with(&event, &self.given)
            .await
            .unwrap_or_default();
        let output = ToolOutput {
            content: patch.content.unwrap_or(event.content),
            details: patch.details.unwrap_or(event.details),
        };
        match (error, patch.is_error) {
            (Some(_), Some(false)) => Ok(output),
            (Some(error), _) => Err(ToolCallError::Tool(error)),
            (None, Some(true)) => Err(ToolCallError::MarkedFailed {
                message: text_of(&output.content),
                output,
            }),
            (None, _) => Ok(output),
        }
    }
}
