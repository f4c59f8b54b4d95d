//! What a plugin did, as the kit records it, and how a handler failed.

use std::path::PathBuf;

use serde_json::Value;

use crate::{
    events::{CustomMessage, SendMessageOptions},
    ffi::CallError,
    sdk::{ExecOptions, ExecOutput, NavigateTreeOptions, NewSessionOptions, NotifyLevel},
    services::LogRecord,
};

/// One thing the plugin asked of the host, in the order it asked.
///
/// Prompts carry the answer the plugin got. More kinds may come with later versions of the
/// interface: match with a wildcard.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Call {
    /// `ui().notify(message, level)`.
    Notify {
        /// The text shown.
        message: String,
        /// How loud.
        level: NotifyLevel,
    },
    /// `ui().confirm(title, message)`.
    Confirm {
        /// The question's title.
        title: String,
        /// The question.
        message: String,
        /// What the plugin got.
        answer: bool,
    },
    /// `ui().select(title, options)`.
    Select {
        /// The prompt's title.
        title: String,
        /// The options offered.
        options: Vec<String>,
        /// What the plugin got.
        answer: Option<String>,
    },
    /// `ui().input(title, placeholder)`.
    Input {
        /// The prompt's title.
        title: String,
        /// The placeholder shown.
        placeholder: String,
        /// What the plugin got.
        answer: Option<String>,
    },
    /// `ui().editor(title, prefill)`.
    Editor {
        /// The editor's title.
        title: String,
        /// The text it opened with.
        prefill: String,
        /// What the plugin got.
        answer: Option<String>,
    },
    /// `ui().custom(kind, data)`: a host-defined component (a widget).
    Custom {
        /// The component's kind.
        kind: String,
        /// Its data.
        data: Value,
        /// What the plugin got.
        answer: Option<Value>,
    },
    /// `ui().set_status(key, text)`; `None` clears.
    SetStatus {
        /// The status entry's key.
        key: String,
        /// Its new text.
        text: Option<String>,
    },
    /// `ui().set_editor_text(text)`.
    SetEditorText {
        /// The new text of the input editor.
        text: String,
    },
    /// `send_message(message, options)`.
    SendMessage {
        /// The message.
        message: CustomMessage,
        /// How it was sent.
        options: SendMessageOptions,
    },
    /// `append_entry(custom_type, data)`.
    AppendEntry {
        /// The entry's type.
        custom_type: String,
        /// Its data.
        data: Value,
    },
    /// `exec(command, args, options)`.
    Exec(Ran),
    /// `abort()`.
    Abort,
    /// `wait_for_idle()` (commands).
    WaitForIdle,
    /// `new_session(options)` (commands).
    NewSession(NewSessionOptions),
    /// `branch(entry_id)` (commands).
    Branch(String),
    /// `navigate_tree(target_id, options)` (commands).
    NavigateTree(String, NavigateTreeOptions),
    /// A record of the plugin's log (`Host::log`, `HookContext::log`, or `log::info!` and
    /// friends with the `log` feature).
    Log(LogRecord),
}

/// A program the plugin ran with `exec`, and what came of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Ran {
    /// The program.
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// The options the plugin gave.
    pub options: ExecOptions,
    /// Where it ran (the options' `cwd`, or the test host's).
    pub cwd: PathBuf,
    /// Its output, or why it could not run.
    pub output: Result<ExecOutput, String>,
    /// Whether a stub answered instead of a real program.
    pub stubbed: bool,
}

/// Why a handler, command, renderer or factory did not return a value: what the host would
/// report for it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HandlerError {
    /// It returned an error (`Err(...)`, or `?`); the text is the error's.
    #[error("{0}")]
    Failed(String),
    /// It panicked; the text is the panic's message and where it happened
    /// (`boom (at src/lib.rs:12)`).
    #[error("panicked: {0}")]
    Panicked(String),
}

impl From<CallError> for HandlerError {
    fn from(error: CallError) -> Self {
        let message = error.message.into_string();
        if error.panicked {
            HandlerError::Panicked(message)
        } else {
            HandlerError::Failed(message)
        }
    }
}
