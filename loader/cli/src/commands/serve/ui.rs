//! The UI exchange of one call, as the resident process and a client with a UI (an extension
//! of agent-hooks' inside an agent that can ask its user) say it to each other: the frames of
//! each direction, their bounds, and how an answer is read. No I/O here
//! ([`super::ui_channel`] carries the frames).
//!
//! A client that has a UI says so in its header (`ui`) and gives its payload's `length`, so
//! that it can keep its side of the connection open after the payload. While the event runs,
//! the resident process may then write [`ToClient`] lines before the answer line: a question
//! ([`Question`]: `confirm`, `select`, `input`), which the client answers with one
//! [`FromClient`] line, or a notice (`notify`, `set_status`), which it does not answer. The
//! answer line ([`crate::relay::Reply`]) ends the call. A question that gets no readable
//! answer within its time is given the no-UI answer, as when no client has a UI.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use crate::relay::UiOffer;

/// The longest a client may give its person for a question ([`UiOffer::question_ms`] past it
/// is cut to it): the dialog is given the client's time, and the resident process waits
/// [`ANSWER_GRACE`] longer for the answer line.
pub const MAX_QUESTION_TIME: Duration = Duration::from_secs(600);

/// How much longer than a question's time the resident process waits for its answer line
/// (the client's own timeout answers first).
pub const ANSWER_GRACE: Duration = Duration::from_secs(2);

/// The most questions of one call that reach the client; later ones get the no-UI answer.
pub const MAX_QUESTIONS: usize = 16;

/// The most notices (`notify`, `set_status`) of one call that reach the client; later ones
/// are recorded only.
pub const MAX_NOTICES: usize = 64;

/// The largest frame written to the client; a larger question gets the no-UI answer, a
/// larger notice is not sent.
pub const FRAME_LIMIT: usize = 256 << 10;

/// The largest answer line read from the client; past it the client is taken as gone.
pub const ANSWER_LIMIT: usize = 64 << 10;

/// Resident process → client: one line, `{"ui": {...}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToClient {
    /// What the client is to show.
    pub ui: UiFrame,
}

/// What the client is to show: a question, answered, or a notice, not answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "call", rename_all = "snake_case")]
pub enum UiFrame {
    /// A yes/no question; the answer is `true` or `false`.
    Confirm {
        /// Names the answer.
        id: u64,
        /// The dialog's title.
        title: String,
        /// The question.
        message: String,
        /// How long the dialog waits, in milliseconds.
        timeout_ms: u64,
    },
    /// One of `options`; the answer is one of them, or `null` (dismissed).
    Select {
        /// Names the answer.
        id: u64,
        /// The dialog's title.
        title: String,
        /// What may be picked.
        options: Vec<String>,
        /// How long the dialog waits, in milliseconds.
        timeout_ms: u64,
    },
    /// A line of text; the answer is a string, or `null` (dismissed).
    Input {
        /// Names the answer.
        id: u64,
        /// The dialog's title.
        title: String,
        /// The text shown in the empty field.
        placeholder: String,
        /// How long the dialog waits, in milliseconds.
        timeout_ms: u64,
    },
    /// A notification (`info`, `warning` or `error`).
    Notify {
        /// Its text.
        message: String,
        /// `info`, `warning` or `error`.
        level: String,
    },
    /// The status text under `key`, or none (`null`).
    SetStatus {
        /// Whose status it is.
        key: String,
        /// The text, or `None` to clear it.
        text: Option<String>,
    },
}

impl UiFrame {
    /// The same question with id `id` (a notice is left as it is).
    pub fn with_id(mut self, new: u64) -> Self {
        match &mut self {
            UiFrame::Confirm { id, .. }
            | UiFrame::Select { id, .. }
            | UiFrame::Input { id, .. } => *id = new,
            UiFrame::Notify { .. } | UiFrame::SetStatus { .. } => {}
        }
        self
    }

    /// The frame as the line written to the client (with its newline).
    pub fn line(&self) -> Vec<u8> {
        let mut line =
            serde_json::to_vec(&ToClient { ui: self.clone() }).unwrap_or_else(|_| b"{}".to_vec());
        line.push(b'\n');
        line
    }
}

/// A question's id, kind and the options a `select` answer must be one of.
#[derive(Debug, Clone, Copy)]
pub enum Question<'a> {
    /// Yes or no.
    Confirm,
    /// One of these.
    Select(&'a [String]),
    /// A line of text.
    Input,
}

/// Client → resident process: one line, the answer to question `id`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FromClient {
    /// The question's id.
    pub id: u64,
    /// Its answer (`null`: dismissed, or timed out in the client).
    pub answer: Value,
}

/// Why a line from the client is not an answer to the question asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unreadable {
    /// Not a [`FromClient`] line.
    #[error("not an answer line ({0})")]
    NotAnAnswer(String),
    /// The answer does not fit the question.
    #[error("answer {answer} does not fit a {question} question")]
    DoesNotFit {
        /// The question's kind.
        question: &'static str,
        /// The answer given, cut short.
        answer: String,
    },
}

impl Question<'_> {
    /// Its name in frames.
    pub fn name(self) -> &'static str {
        match self {
            Question::Confirm => "confirm",
            Question::Select(_) => "select",
            Question::Input => "input",
        }
    }
}

/// Whether `line` is a client's answer line (to some question), not a request: what a
/// client with a UI may send as its call is answered, seen before its next request on a
/// kept-open connection.
pub fn is_answer_line(line: &[u8]) -> bool {
    serde_json::from_slice::<FromClient>(line).is_ok()
}

/// Reads `line` as an answer: `Ok(None)` for the answer to another (earlier) question, which
/// is passed over; `Ok(Some(value))` for the answer to question `id` that fits it.
pub fn read_answer(
    line: &[u8],
    id: u64,
    question: Question<'_>,
) -> Result<Option<Value>, Unreadable> {
    let answer: FromClient =
        serde_json::from_slice(line).map_err(|e| Unreadable::NotAnAnswer(e.to_string()))?;
    if answer.id != id {
        return Ok(None);
    }
    let fits = match (&question, &answer.answer) {
        (_, Value::Null) => true,
        (Question::Confirm, Value::Bool(_)) => true,
        (Question::Select(options), Value::String(picked)) => options.contains(picked),
        (Question::Input, Value::String(_)) => true,
        _ => false,
    };
    if !fits {
        let mut shown = answer.answer.to_string();
        if shown.len() > 80 {
            let cut = (0..=80)
                .rev()
                .find(|i| shown.is_char_boundary(*i))
                .unwrap_or(0);
            shown.truncate(cut);
            shown.push_str("...");
        }
        return Err(Unreadable::DoesNotFit {
            question: question.name(),
            answer: shown,
        });
    }
    Ok(Some(answer.answer))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_answer_line_is_told_apart_from_a_request_s_header() {
        assert!(is_answer_line(b"{\"id\": 1, \"answer\": true}\n"));
        assert!(is_answer_line(b"{\"id\": 2, \"answer\": null}\n"));
        assert!(!is_answer_line(b"{\"v\": 1, \"agent\": \"NAME\"}\n"));
        assert!(!is_answer_line(b"{\"id\": 1}\n"));
        assert!(!is_answer_line(b"not json\n"));
    }

    #[test]
    fn frames_are_one_line_each_named_by_call() {
        let frame = UiFrame::Select {
            id: 3,
            title: "Pick".into(),
            options: vec!["a".into(), "b".into()],
            timeout_ms: 1000,
        };
        let line = frame.line();
        assert_eq!(line.iter().filter(|b| **b == b'\n').count(), 1);
        assert_eq!(
            serde_json::from_slice::<Value>(&line).ok(),
            Some(
                json!({"ui": {"call": "select", "id": 3, "title": "Pick", "options": ["a", "b"], "timeout_ms": 1000}})
            )
        );
        let notice = UiFrame::SetStatus {
            key: "k".into(),
            text: None,
        };
        assert_eq!(
            serde_json::from_slice::<Value>(&notice.line()).ok(),
            Some(json!({"ui": {"call": "set_status", "key": "k", "text": null}}))
        );
    }

    #[test]
    fn an_answer_must_fit_its_question() {
        let options = vec!["a".to_owned(), "b".to_owned()];
        let select = Question::Select(&options);
        assert_eq!(
            read_answer(br#"{"id": 2, "answer": "b"}"#, 2, select),
            Ok(Some(json!("b")))
        );
        assert_eq!(
            read_answer(br#"{"id": 2, "answer": null}"#, 2, select),
            Ok(Some(Value::Null))
        );
        assert_eq!(
            read_answer(br#"{"id": 1, "answer": "zz"}"#, 2, select),
            Ok(None)
        );
        assert_eq!(
            read_answer(br#"{"id": 2, "answer": "c"}"#, 2, select),
            Err(Unreadable::DoesNotFit {
                question: "select",
                answer: "\"c\"".into()
            })
        );
        assert_eq!(
            read_answer(br#"{"id": 2, "answer": "yes"}"#, 2, Question::Confirm),
            Err(Unreadable::DoesNotFit {
                question: "confirm",
                answer: "\"yes\"".into()
            })
        );
        assert_eq!(
            read_answer(br#"{"id": 2, "answer": true}"#, 2, Question::Confirm),
            Ok(Some(json!(true)))
        );
        assert!(matches!(
            read_answer(b"hello", 2, Question::Input),
            Err(Unreadable::NotAnAnswer(_))
        ));
    }
}
