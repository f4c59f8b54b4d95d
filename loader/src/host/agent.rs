use agent_hooks_abi::{
    events::{CustomMessage, SendMessageOptions},
    ExecOutput, ModelInfo, NavigateTreeOptions, NewSessionOptions, NotifyLevel,
    SessionActionOutcome, SessionInfo, Theme,
};
use serde_json::Value;

use super::{
    requests::{HostCallError, HostCallKind, McpToolCall, ModelRequest},
    tool_names::ToolNames,
};

/// What the agent offers its hooks. Every method has a default, so a host that implements
/// nothing works: messages and entries go nowhere, the agent is idle, there is no model and
/// no UI, and session actions fail with a message that says the host does not support them.
///
/// Methods are called from the threads that run hook handlers, possibly several at once.
pub trait AgentHost: Send + Sync {
    /// A hook sent a persistent custom message.
    fn send_message(&self, message: CustomMessage, options: SendMessageOptions) {
        let _ = (message, options);
    }

    /// A hook appended a non-LLM entry to the session.
    fn append_entry(&self, custom_type: &str, data: Value) {
        let _ = (custom_type, data);
    }

    /// The current session.
    fn session(&self) -> SessionInfo {
        SessionInfo::default()
    }

    /// The current model.
    fn model(&self) -> Option<ModelInfo> {
        None
    }

    /// Whether the agent is idle.
    fn is_idle(&self) -> bool {
        true
    }

    /// A hook asked to abort the current operation.
    fn abort(&self) {}

    /// Whether messages are queued for the agent.
    fn has_queued_messages(&self) -> bool {
        false
    }

    /// Waits until the agent is idle (command handlers).
    fn wait_for_idle(&self) -> Result<(), String> {
        Ok(())
    }

    /// Starts a new session (command handlers).
    fn new_session(&self, options: NewSessionOptions) -> Result<SessionActionOutcome, String> {
        let _ = options;
        Err(unsupported("new_session"))
    }

    /// Branches at `entry_id` (command handlers).
    fn branch(&self, entry_id: &str) -> Result<SessionActionOutcome, String> {
        let _ = entry_id;
        Err(unsupported("branch"))
    }

    /// Moves to `target_id` in the session tree (command handlers).
    fn navigate_tree(
        &self,
        target_id: &str,
        options: NavigateTreeOptions,
    ) -> Result<SessionActionOutcome, String> {
        let _ = (target_id, options);
        Err(unsupported("navigate_tree"))
    }

    /// A command hook asked the agent to stop (`"continue": false`), with this reason.
    fn stop_requested(&self, reason: &str) {
        let _ = reason;
    }

    /// The UI hooks' calls go to, if there is one.
    fn ui(&self) -> Option<&dyn HostUi> {
        None
    }

    /// Whether a user is there to answer (what hooks' `has_ui` says). Default: whether
    /// [`ui`](Self::ui) gives one. A host without a user may still give a `ui` that records
    /// hooks' calls and answers as no UI does (`confirm` false, `select` nothing), and say
    /// `false` here.
    fn has_ui(&self) -> bool {
        self.ui().is_some()
    }

    /// A hook ran a program with `exec` (in process or in a plugin process): what it ran
    /// and what came of it (the output, or why it could not run). Told after the program
    /// ended; the default does nothing.
    fn program_ran(&self, run: &ProgramRun<'_>) {
        let _ = run;
    }

    /// The session's transcript file, for command hooks' `transcript_path` (none: the
    /// field is left out).
    fn transcript_path(&self) -> Option<String> {
        None
    }

    /// The permission mode, for command hooks' `permission_mode`: `default`, `plan`,
    /// `acceptEdits`, `dontAsk` or `bypassPermissions`.
    fn permission_mode(&self) -> String {
        "default".into()
    }

    /// The agent's tools in each hooks dialect (name and input fields), so that hooks written
    /// for other agents match and read them unchanged. Asked once, when the agent
    /// is attached to a runner. Default: agent-hooks' own tool names ([`ToolNames::default`]).
    fn tool_names(&self) -> ToolNames {
        ToolNames::default()
    }

    /// The lines of the session's `CLAUDE_ENV_FILE` after hooks of an event that documents
    /// it (SessionStart, Setup, CwdChanged, FileChanged) ran: `export NAME=value` lines that
    /// the host applies to the environment of later shell tools. Called with every line so
    /// far, each time.
    fn environment_file(&self, lines: &[String]) {
        let _ = lines;
    }

    /// An `mcp_tool` hook calls a tool of one of the agent's MCP servers: the tool's text
    /// output (read as a command hook's stdout), or why there is none. Called on a thread
    /// of its own; the runner stops waiting at the hook's timeout, so bound the call too.
    /// Default: not supported (the hook's report says so; it never passes silently).
    fn call_mcp_tool(&self, call: &McpToolCall) -> Result<String, HostCallError> {
        let _ = call;
        Err(HostCallError::not_supported(HostCallKind::McpTool))
    }

    /// A `prompt` hook asks the agent's model for one answer: the model's text, which
    /// should be `{"ok": true}` or `{"ok": false, "reason": "..."}` (a host tells its model
    /// so). Called and bounded as [`call_mcp_tool`](Self::call_mcp_tool). Default: not
    /// supported.
    fn prompt_model(&self, request: &ModelRequest) -> Result<String, HostCallError> {
        let _ = request;
        Err(HostCallError::not_supported(HostCallKind::Prompt))
    }

    /// An `agent` hook asks the agent to run a subagent (with the agent's tools) on the
    /// request: its final answer, read as a `prompt` hook's. Called and bounded as
    /// [`call_mcp_tool`](Self::call_mcp_tool). Default: not supported.
    fn run_subagent(&self, request: &ModelRequest) -> Result<String, HostCallError> {
        let _ = request;
        Err(HostCallError::not_supported(HostCallKind::Agent))
    }
}

/// A program a hook ran with `exec`, as [`AgentHost::program_ran`] is told of it.
#[derive(Debug, Clone, Copy)]
pub struct ProgramRun<'a> {
    /// The program, as the hook named it.
    pub command: &'a str,
    /// Its arguments.
    pub args: &'a [&'a str],
    /// What came of it: its output, or why it could not run.
    pub result: Result<&'a ExecOutput, &'a str>,
}

fn unsupported(action: &str) -> String {
    format!("this agent does not support `{action}` from hooks")
}

/// An interactive UI. The defaults are what hooks get without one: `select`, `input` and
/// `editor` return nothing, `confirm` false, `get_editor_text` "", the rest do nothing.
pub trait HostUi: Send + Sync {
    /// Lets the user pick one of `options`.
    fn select(&self, title: &str, options: &[String]) -> Option<String> {
        let _ = (title, options);
        None
    }

    /// Asks a yes/no question.
    fn confirm(&self, title: &str, message: &str) -> bool {
        let _ = (title, message);
        false
    }

    /// Asks for one line of text.
    fn input(&self, title: &str, placeholder: &str) -> Option<String> {
        let _ = (title, placeholder);
        None
    }

    /// Opens an editor on `prefill`.
    fn editor(&self, title: &str, prefill: &str) -> Option<String> {
        let _ = (title, prefill);
        None
    }

    /// Shows a notification.
    fn notify(&self, message: &str, level: NotifyLevel) {
        let _ = (message, level);
    }

    /// Sets or clears the status text under `key`.
    fn set_status(&self, key: &str, text: Option<&str>) {
        let _ = (key, text);
    }

    /// Shows a host-defined component.
    fn custom(&self, kind: &str, data: Value) -> Option<Value> {
        let _ = (kind, data);
        None
    }

    /// Replaces the input editor's text.
    fn set_editor_text(&self, text: &str) {
        let _ = text;
    }

    /// The input editor's text.
    fn get_editor_text(&self) -> String {
        String::new()
    }

    /// The theme.
    fn theme(&self) -> Theme {
        Theme::default()
    }
}

/// The agent before one is attached, and for hosts that attach none: every default.
#[derive(Debug, Default, Clone, Copy)]
pub struct DetachedAgent;

impl AgentHost for DetachedAgent {}
