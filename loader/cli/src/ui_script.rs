//! `--ui yes|no|FILE`: who answers hooks' prompts (confirm, select, input, editor, custom)
//! when the CLI runs them.
//!
//! - `no` (the default): nobody, as in an agent without a UI. `has_ui` is false, `confirm`
//!   answers false, the others nothing.
//! - `yes`: a user who accepts everything. `has_ui` is true, `confirm` answers true, `select`
//!   the first option, `input` an empty line, `editor` the text it was given, `custom`
//!   nothing.
//! - `FILE`: a JSON file of answers. `has_ui` is true. Either an array, answered in order
//!   (`[true, "tools", "a reason"]`), or an object keyed by the prompt's title, each used
//!   every time that title is asked (`{"Deploy": false}`). `confirm` takes `true`, `false`;
//!   `select` one of its options; `input` and `editor` a string; `custom` any JSON value;
//!   `null` is "dismissed" everywhere. A prompt the file has no (fitting) answer for is
//!   answered as without a UI, with a warning that names the file and the answer.

use std::{collections::VecDeque, fmt};

use serde_json::{Map, Value};

/// An error in `--ui`.
#[derive(Debug, thiserror::Error)]
pub enum UiScriptError {
    /// The file cannot be read, is too large or is not text: the message says which.
    #[error("{message} (give `yes`, `no` or a JSON file of answers)")]
    Bounded {
        /// What happened, naming the file.
        message: String,
    },
    /// The file is not JSON.
    #[error("--ui {file}: not JSON: {source}")]
    Json {
        /// The file as given.
        file: String,
        /// Where and why.
        source: serde_json::Error,
    },
    /// The file holds JSON of another shape.
    #[error("--ui {file}: must hold a JSON array of answers in order, or an object of answers keyed by the prompt's title; found {found}")]
    Shape {
        /// The file as given.
        file: String,
        /// What it holds.
        found: &'static str,
    },
}

/// Who answers the prompts.
pub enum UiMode {
    /// Nobody: no UI.
    No,
    /// A user who accepts everything.
    Yes,
    /// The answers of a file.
    Script(Script),
}

/// The answers of a `--ui` file.
pub struct Script {
    file: String,
    answers: Answers,
}

enum Answers {
    /// In order; `used` counts those taken, for positions in warnings.
    InOrder {
        left: VecDeque<Value>,
        used: usize,
    },
    ByTitle(Map<String, Value>),
}

/// A prompt that waits for an answer.
#[derive(Clone, Copy)]
pub enum Prompt<'a> {
    /// Yes or no.
    Confirm,
    /// One of these options.
    Select(&'a [String]),
    /// A line of text.
    Input,
    /// A text to edit; the text given.
    Editor(&'a str),
    /// A host-defined component.
    Custom,
}

impl Prompt<'_> {
    fn name(self) -> &'static str {
        match self {
            Prompt::Confirm => "confirm",
            Prompt::Select(_) => "select",
            Prompt::Input => "input",
            Prompt::Editor(_) => "editor",
            Prompt::Custom => "custom",
        }
    }

    fn expects(self) -> &'static str {
        match self {
            Prompt::Confirm => "true, false or null",
            Prompt::Select(_) => "one of the options, or null",
            Prompt::Input | Prompt::Editor(_) => "a string or null",
            Prompt::Custom => "any JSON value",
        }
    }

    /// Whether `answer` fits this prompt.
    fn fits(self, answer: &Value) -> bool {
        match (self, answer) {
            (_, Value::Null) | (Prompt::Custom, _) => true,
            (Prompt::Confirm, Value::Bool(_)) => true,
            (Prompt::Select(options), Value::String(s)) => options.contains(s),
            (Prompt::Input | Prompt::Editor(_), Value::String(_)) => true,
            _ => false,
        }
    }
}

/// An answer: the value (`null` for none) and, when it was not the one wanted, why.
pub struct Answered {
    /// What the prompt gets: a boolean, a string, any value, or `null`.
    pub value: Value,
    /// A problem with the script, for the warnings.
    pub warning: Option<String>,
}

impl UiMode {
    /// Reads `--ui`: `yes`, `no`, or a file of answers (relative to the current folder).
    pub fn parse(given: &str) -> Result<Self, UiScriptError> {
        match given {
            "no" => Ok(UiMode::No),
            "yes" => Ok(UiMode::Yes),
            file => Script::read(file).map(UiMode::Script),
        }
    }

    /// What hooks' `has_ui` says.
    pub fn has_ui(&self) -> bool {
        !matches!(self, UiMode::No)
    }

    /// The answer to a prompt titled `title`.
    pub fn answer(&mut self, prompt: Prompt<'_>, title: &str) -> Answered {
        match self {
            UiMode::No => Answered::none(),
            UiMode::Yes => Answered::plain(match prompt {
                Prompt::Confirm => Value::Bool(true),
                Prompt::Select(options) => options.first().cloned().into(),
                Prompt::Input => Value::String(String::new()),
                Prompt::Editor(prefill) => Value::String(prefill.to_owned()),
                Prompt::Custom => Value::Null,
            }),
            UiMode::Script(script) => script.answer(prompt, title),
        }
    }
}

impl Answered {
    fn plain(value: Value) -> Self {
        Self {
            value,
            warning: None,
        }
    }

    fn none() -> Self {
        Self::plain(Value::Null)
    }

    fn warned(warning: String) -> Self {
        Self {
            value: Value::Null,
            warning: Some(warning),
        }
    }
}

impl Script {
    fn read(file: &str) -> Result<Self, UiScriptError> {
        let text =
            crate::bounded::read_file(file, crate::bounded::MAX_UI_FILE, &format!("--ui {file}"))
                .map_err(|message| UiScriptError::Bounded { message })?;
        let value: Value = serde_json::from_str(&text).map_err(|source| UiScriptError::Json {
            file: file.to_owned(),
            source,
        })?;
        let answers = match value {
            Value::Array(items) => Answers::InOrder {
                left: items.into(),
                used: 0,
            },
            Value::Object(by_title) => Answers::ByTitle(by_title),
            other => {
                return Err(UiScriptError::Shape {
                    file: file.to_owned(),
                    found: kind_of(&other),
                })
            }
        };
        Ok(Self {
            file: file.to_owned(),
            answers,
        })
    }

    fn answer(&mut self, prompt: Prompt<'_>, title: &str) -> Answered {
        let asked = Asked { prompt, title };
        let (answer, position) = match &mut self.answers {
            Answers::InOrder { left, used } => match left.pop_front() {
                Some(answer) => {
                    *used += 1;
                    (answer, format!("answer {used}"))
                }
                None => {
                    return Answered::warned(format!(
                        "--ui {}: no answer left for {asked} (all {used} were used); answered as without a UI",
                        self.file
                    ))
                }
            },
            Answers::ByTitle(by_title) => match by_title.get(title) {
                Some(answer) => (answer.clone(), format!("answer {:?}", title)),
                None => {
                    return Answered::warned(format!(
                        "--ui {}: no answer for {asked}; answered as without a UI",
                        self.file
                    ))
                }
            },
        };
        if prompt.fits(&answer) {
            Answered::plain(answer)
        } else {
            Answered::warned(format!(
                "--ui {}: {position} ({answer}) does not fit {asked}, which takes {}; answered as without a UI",
                self.file,
                prompt.expects()
            ))
        }
    }
}

/// A prompt and its title, as warnings name it.
struct Asked<'a> {
    prompt: Prompt<'a>,
    title: &'a str,
}

impl fmt::Display for Asked<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {:?}", self.prompt.name(), self.title)
    }
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
