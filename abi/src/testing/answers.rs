//! The UI's scripted answers: in order, or by the prompt's title.

use std::collections::VecDeque;

use serde_json::Value;

/// What the scripted user answers to one prompt.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Answer {
    /// Says yes to a `confirm`.
    Yes,
    /// Says no to a `confirm`.
    No,
    /// Picks this option of a `select` (it must be one of the options offered).
    Choose(String),
    /// Types this text into an `input`, or leaves an `editor` with it.
    Text(String),
    /// Returns this value from a `custom` component.
    Value(Value),
    /// Dismisses any prompt: `confirm` gets false, the others nothing.
    Dismiss,
}

impl Answer {
    /// [`Answer::Choose`] with `option`.
    pub fn choose(option: impl Into<String>) -> Self {
        Answer::Choose(option.into())
    }

    /// [`Answer::Text`] with `text`.
    pub fn text(text: impl Into<String>) -> Self {
        Answer::Text(text.into())
    }
}

/// A prompt the plugin showed, as the answers see it.
pub(crate) enum Prompt<'a> {
    Confirm,
    Select(&'a [String]),
    Input,
    Editor,
    Custom,
}

impl Prompt<'_> {
    fn name(&self) -> &'static str {
        match self {
            Prompt::Confirm => "confirm",
            Prompt::Select(_) => "select",
            Prompt::Input => "input",
            Prompt::Editor => "editor",
            Prompt::Custom => "custom",
        }
    }

    /// Whether `answer` answers this prompt; a mismatch says why not.
    fn check(&self, answer: &Answer) -> Result<(), String> {
        let fits = match (self, answer) {
            (_, Answer::Dismiss) => true,
            (Prompt::Confirm, Answer::Yes | Answer::No) => true,
            (Prompt::Select(options), Answer::Choose(option)) => {
                if !options.contains(option) {
                    return Err(format!(
                        "the scripted answer {answer:?} is not one of the options offered: {options:?}"
                    ));
                }
                true
            }
            (Prompt::Input | Prompt::Editor, Answer::Text(_)) => true,
            (Prompt::Custom, Answer::Value(_)) => true,
            _ => false,
        };
        if fits {
            Ok(())
        } else {
            Err(format!(
                "the scripted answer {answer:?} does not answer a `{}` prompt",
                self.name()
            ))
        }
    }
}

/// The answers a test scripted.
#[derive(Default)]
pub(crate) struct Answers {
    /// Answers to prompts with this title, used every time.
    by_title: Vec<(String, Answer)>,
    /// Answers to the next prompts, in order.
    queue: VecDeque<Answer>,
}

impl Answers {
    pub(crate) fn push(&mut self, answer: Answer) {
        self.queue.push_back(answer);
    }

    pub(crate) fn set_for_title(&mut self, title: String, answer: Answer) {
        self.by_title.retain(|(t, _)| *t != title);
        self.by_title.push((title, answer));
    }

    pub(crate) fn unused(&self) -> Vec<Answer> {
        self.queue.iter().cloned().collect()
    }

    /// The answer to `prompt` titled `title`: the title's answer, else the next in order.
    /// An error says what the test must change.
    pub(crate) fn answer(&mut self, prompt: Prompt<'_>, title: &str) -> Result<Answer, String> {
        let described = format!(
            "the plugin showed a `{}` prompt titled {title:?}",
            prompt.name()
        );
        let answer = match self.by_title.iter().find(|(t, _)| t == title) {
            Some((_, answer)) => answer.clone(),
            None => self.queue.pop_front().ok_or_else(|| {
                format!(
                    "{described} and no answer was scripted: add one with \
                     `answer(Answer::...)` or `answer_to({title:?}, Answer::...)`"
                )
            })?,
        };
        prompt
            .check(&answer)
            .map_err(|why| format!("{described}, and {why}"))?;
        Ok(answer)
    }
}
