//! The kit's side of the boundary's [`HostContext`]: the UI with scripted answers, the
//! session, and session control in commands.

use abi_stable::std_types::{RErr, ROk, ROption, RResult, RSlice, RStr, RString};
use serde::Serialize;

use super::{
    answers::{Answer, Prompt},
    record::Call,
    services,
    state::{lock, Shared},
};
use crate::{
    ffi::HostContext,
    sdk::{NavigateTreeOptions, NewSessionOptions, NotifyLevel, SessionActionOutcome},
};

/// The context of one call into the plugin.
pub(crate) struct KitContext {
    pub(crate) shared: Shared,
    /// Whether the call runs a command (session control is allowed).
    pub(crate) is_command: bool,
}

fn json(value: &impl Serialize) -> RString {
    serde_json::to_string(value).unwrap_or_default().into()
}

fn to_roption(value: Option<String>) -> ROption<RString> {
    value.map(RString::from).into()
}

impl KitContext {
    fn record(&self, call: Call) {
        lock(&self.shared).calls.push(call);
    }

    /// The scripted answer to a prompt; nothing without a UI (as a host without one), or
    /// when the test scripted no fitting answer (recorded as a problem of the test).
    fn answer(&self, prompt: Prompt<'_>, title: &str) -> Option<Answer> {
        let mut state = lock(&self.shared);
        if !state.world.has_ui {
            return None;
        }
        match state.answers.answer(prompt, title) {
            Ok(answer) => Some(answer),
            Err(problem) => {
                state.problems.push(problem);
                None
            }
        }
    }

    fn text_answer(&self, prompt: Prompt<'_>, title: &str) -> Option<String> {
        match self.answer(prompt, title)? {
            Answer::Text(text) | Answer::Choose(text) => Some(text),
            _ => None,
        }
    }

    fn session_action(&self, name: &str, call: Call) -> RResult<RString, RString> {
        if !self.is_command {
            return RErr(format!("{name} is only available to command handlers").into());
        }
        let cancelled = {
            let mut state = lock(&self.shared);
            state.calls.push(call);
            state.world.cancel_session_actions
        };
        ROk(json(&SessionActionOutcome::default().cancelled(cancelled)))
    }
}

impl HostContext for KitContext {
    fn has_ui(&self) -> bool {
        lock(&self.shared).world.has_ui
    }

    fn cwd(&self) -> RString {
        lock(&self.shared)
            .world
            .cwd
            .to_string_lossy()
            .as_ref()
            .into()
    }

    fn session(&self) -> RString {
        json(&lock(&self.shared).world.session)
    }

    fn model(&self) -> RString {
        json(&lock(&self.shared).world.model)
    }

    fn is_idle(&self) -> bool {
        lock(&self.shared).world.idle
    }

    fn abort(&self) {
        self.record(Call::Abort);
    }

    fn has_queued_messages(&self) -> bool {
        lock(&self.shared).world.queued_messages
    }

    fn ui_select(&self, title: RStr<'_>, options: RSlice<'_, RString>) -> ROption<RString> {
        let options: Vec<String> = options.iter().map(|o| o.as_str().to_owned()).collect();
        let answer = self.text_answer(Prompt::Select(&options), title.as_str());
        self.record(Call::Select {
            title: title.as_str().to_owned(),
            options,
            answer: answer.clone(),
        });
        to_roption(answer)
    }

    fn ui_confirm(&self, title: RStr<'_>, message: RStr<'_>) -> bool {
        let answer = self.answer(Prompt::Confirm, title.as_str()) == Some(Answer::Yes);
        self.record(Call::Confirm {
            title: title.as_str().to_owned(),
            message: message.as_str().to_owned(),
            answer,
        });
        answer
    }

    fn ui_input(&self, title: RStr<'_>, placeholder: RStr<'_>) -> ROption<RString> {
        let answer = self.text_answer(Prompt::Input, title.as_str());
        self.record(Call::Input {
            title: title.as_str().to_owned(),
            placeholder: placeholder.as_str().to_owned(),
            answer: answer.clone(),
        });
        to_roption(answer)
    }

    fn ui_editor(&self, title: RStr<'_>, prefill: RStr<'_>) -> ROption<RString> {
        let answer = self.text_answer(Prompt::Editor, title.as_str());
        self.record(Call::Editor {
            title: title.as_str().to_owned(),
            prefill: prefill.as_str().to_owned(),
            answer: answer.clone(),
        });
        to_roption(answer)
    }

    fn ui_notify(&self, message: RStr<'_>, level: RStr<'_>) {
        self.record(Call::Notify {
            message: message.as_str().to_owned(),
            level: NotifyLevel::from_name(level.as_str()),
        });
    }

    fn ui_set_status(&self, key: RStr<'_>, text: ROption<RStr<'_>>) {
        self.record(Call::SetStatus {
            key: key.as_str().to_owned(),
            text: text.into_option().map(|t| t.as_str().to_owned()),
        });
    }

    fn ui_custom(&self, kind: RStr<'_>, data: RStr<'_>) -> ROption<RString> {
        let answer = match self.answer(Prompt::Custom, kind.as_str()) {
            Some(Answer::Value(value)) => Some(value),
            _ => None,
        };
        self.record(Call::Custom {
            kind: kind.as_str().to_owned(),
            data: serde_json::from_str(data.as_str()).unwrap_or_default(),
            answer: answer.clone(),
        });
        to_roption(answer.map(|value| value.to_string()))
    }

    fn ui_set_editor_text(&self, text: RStr<'_>) {
        let mut state = lock(&self.shared);
        state.world.editor_text = text.as_str().to_owned();
        state.calls.push(Call::SetEditorText {
            text: text.as_str().to_owned(),
        });
    }

    fn ui_get_editor_text(&self) -> RString {
        lock(&self.shared).world.editor_text.as_str().into()
    }

    fn ui_theme(&self) -> RString {
        json(&lock(&self.shared).world.theme)
    }

    fn wait_for_idle(&self) -> RResult<(), RString> {
        if !self.is_command {
            return RErr("wait_for_idle is only available to command handlers".into());
        }
        self.record(Call::WaitForIdle);
        ROk(())
    }

    fn new_session(&self, options: RStr<'_>) -> RResult<RString, RString> {
        let options: NewSessionOptions = match serde_json::from_str(options.as_str()) {
            Ok(options) => options,
            Err(e) => return RErr(format!("invalid new_session options: {e}").into()),
        };
        self.session_action("new_session", Call::NewSession(options))
    }

    fn branch(&self, entry_id: RStr<'_>) -> RResult<RString, RString> {
        self.session_action("branch", Call::Branch(entry_id.as_str().to_owned()))
    }

    fn navigate_tree(&self, target_id: RStr<'_>, options: RStr<'_>) -> RResult<RString, RString> {
        let options: NavigateTreeOptions = match serde_json::from_str(options.as_str()) {
            Ok(options) => options,
            Err(e) => return RErr(format!("invalid navigate_tree options: {e}").into()),
        };
        let call = Call::NavigateTree(target_id.as_str().to_owned(), options);
        self.session_action("navigate_tree", call)
    }

    fn call(&self, service: RStr<'_>, request: RStr<'_>) -> RResult<RString, RString> {
        services::call(&self.shared, service.as_str(), request.as_str())
    }
}
