//! The UI exchange of one call carried over its connection (the frames are [`super::ui`]'s):
//! a question written to the client and its answer line read back, bounded in time, size
//! and number. Whatever goes wrong (the client gone, no answer in time, an answer that does
//! not fit) gives the no-UI answer and a line in the resident process's log.

use std::{
    io::{BufRead, BufReader, ErrorKind, Read, Write},
    os::unix::net::UnixStream,
    sync::Mutex,
    time::{Duration, Instant},
};

use serde_json::Value;

use super::ui::{
    read_answer, Question, UiFrame, UiOffer, ANSWER_GRACE, ANSWER_LIMIT, FRAME_LIMIT, MAX_NOTICES,
    MAX_QUESTIONS, MAX_QUESTION_TIME,
};
use crate::{recorder::LiveUi, sync::lock};

/// One call's connection to a client with a UI.
pub struct Channel {
    inner: Mutex<Inner>,
    /// How long a question waits for the person.
    question_time: Duration,
}

struct Inner {
    writer: UnixStream,
    reader: BufReader<UnixStream>,
    /// Bytes of an answer line read so far.
    partial: Vec<u8>,
    next_id: u64,
    questions: usize,
    notices: usize,
    /// The client is gone (or broke the exchange): the rest of the call gets no-UI answers.
    gone: bool,
}

impl Channel {
    /// The exchange over `stream` (the call's connection, its request read) with a client
    /// that offered `offer`.
    pub fn new(stream: &UnixStream, offer: UiOffer) -> std::io::Result<Channel> {
        Ok(Channel {
            inner: Mutex::new(Inner {
                writer: stream.try_clone()?,
                reader: BufReader::new(stream.try_clone()?),
                partial: Vec::new(),
                next_id: 1,
                questions: 0,
                notices: 0,
                gone: false,
            }),
            question_time: Duration::from_millis(offer.question_ms).min(MAX_QUESTION_TIME),
        })
    }
}

/// A line in the resident process's log (its stderr).
fn log(text: &str) {
    eprintln!("agent-hooks serve: UI: {text}");
}

impl Inner {
    fn write(&mut self, line: &[u8]) -> bool {
        match self.writer.write_all(line) {
            Ok(()) => true,
            Err(error) => {
                self.gone = true;
                log(&format!(
                    "the client is gone ({error}); no-UI answers for the rest of the call"
                ));
                false
            }
        }
    }

    /// The next line from the client, until `deadline`; `None` when there is none (also
    /// logged: timed out, gone, too long).
    fn line(&mut self, deadline: Instant, what: &str) -> Option<Vec<u8>> {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                log(&format!(
                    "no answer to the {what} within its time; the no-UI answer stands"
                ));
                return None;
            }
            if self.reader.get_ref().set_read_timeout(Some(left)).is_err() {
                self.gone = true;
                return None;
            }
            let room = (ANSWER_LIMIT + 1).saturating_sub(self.partial.len()) as u64;
            let read = (&mut self.reader)
                .take(room)
                .read_until(b'\n', &mut self.partial);
            match read {
                Ok(0) if room > 0 => {
                    self.gone = true;
                    log(&format!(
                        "the client closed the connection before it answered the {what}; no-UI answers for the rest of the call"
                    ));
                    return None;
                }
                Ok(_) if self.partial.ends_with(b"\n") => {
                    return Some(std::mem::take(&mut self.partial));
                }
                Ok(_) if self.partial.len() > ANSWER_LIMIT => {
                    self.gone = true;
                    log(&format!(
                        "the client's answer to the {what} is longer than {ANSWER_LIMIT} bytes; no-UI answers for the rest of the call"
                    ));
                    return None;
                }
                Ok(_) => {}
                Err(e)
                    if matches!(
                        e.kind(),
                        ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted
                    ) => {}
                Err(error) => {
                    self.gone = true;
                    log(&format!("reading the answer to the {what}: {error}"));
                    return None;
                }
            }
        }
    }
}

impl LiveUi for Channel {
    fn ask(&self, frame: UiFrame, question: Question<'_>) -> Option<Value> {
        let mut inner = lock(&self.inner);
        if inner.gone {
            return None;
        }
        inner.questions += 1;
        let what = format!("{} question", question.name());
        if inner.questions > MAX_QUESTIONS {
            if inner.questions == MAX_QUESTIONS + 1 {
                log(&format!(
                    "more than {MAX_QUESTIONS} questions in one call; the rest get the no-UI answer"
                ));
            }
            return None;
        }
        let id = inner.next_id;
        inner.next_id += 1;
        let ms = u64::try_from(self.question_time.as_millis()).unwrap_or(u64::MAX);
        let frame = match frame.with_id(id) {
            UiFrame::Confirm {
                id, title, message, ..
            } => UiFrame::Confirm {
                id,
                title,
                message,
                timeout_ms: ms,
            },
            UiFrame::Select {
                id, title, options, ..
            } => UiFrame::Select {
                id,
                title,
                options,
                timeout_ms: ms,
            },
            UiFrame::Input {
                id,
                title,
                placeholder,
                ..
            } => UiFrame::Input {
                id,
                title,
                placeholder,
                timeout_ms: ms,
            },
            notice => notice,
        };
        let line = frame.line();
        if line.len() > FRAME_LIMIT {
            log(&format!(
                "a {what} of {} bytes is past {FRAME_LIMIT}; not asked, the no-UI answer stands",
                line.len()
            ));
            return None;
        }
        if !inner.write(&line) {
            return None;
        }
        let deadline = Instant::now() + self.question_time + ANSWER_GRACE;
        loop {
            let line = inner.line(deadline, &what)?;
            match read_answer(&line, id, question) {
                Ok(Some(answer)) => return Some(answer),
                // The late answer to an earlier question: passed over.
                Ok(None) => {}
                Err(error) => {
                    log(&format!("the client's answer to the {what} is unreadable: {error}; the no-UI answer stands"));
                    return None;
                }
            }
        }
    }

    fn tell(&self, frame: UiFrame) {
        let mut inner = lock(&self.inner);
        if inner.gone {
            return;
        }
        inner.notices += 1;
        if inner.notices > MAX_NOTICES {
            if inner.notices == MAX_NOTICES + 1 {
                log(&format!(
                    "more than {MAX_NOTICES} notices in one call; the rest are not shown"
                ));
            }
            return;
        }
        let line = frame.line();
        if line.len() > FRAME_LIMIT {
            log(&format!(
                "a notice of {} bytes is past {FRAME_LIMIT}; not shown",
                line.len()
            ));
            return;
        }
        inner.write(&line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::io::BufRead;

    /// A channel to a scripted client (the other end of a socket pair), which answers each
    /// question with `answer(frame)` (no line for `None`) and gives back every frame read.
    fn scripted(
        question_ms: u64,
        answer: impl Fn(&Value) -> Option<String> + Send + 'static,
    ) -> (Channel, std::thread::JoinHandle<Vec<Value>>) {
        let (ours, theirs) = UnixStream::pair().unwrap();
        let channel = Channel::new(&ours, UiOffer { question_ms }).unwrap();
        let client = std::thread::spawn(move || {
            let mut writer = theirs.try_clone().unwrap();
            let mut frames = Vec::new();
            for line in BufReader::new(theirs).lines() {
                let Ok(line) = line else { break };
                let frame: Value = serde_json::from_str(&line).unwrap();
                if let Some(reply) = answer(&frame["ui"]) {
                    // The channel may be gone already; what it read is what counts.
                    let _ = writer.write_all(reply.as_bytes());
                }
                frames.push(frame);
            }
            frames
        });
        (channel, client)
    }

    fn select() -> (UiFrame, Vec<String>) {
        let options = vec!["tools".to_owned(), "messages".to_owned()];
        let frame = UiFrame::Select {
            id: 0,
            title: "Audit scope".into(),
            options: options.clone(),
            timeout_ms: 0,
        };
        (frame, options)
    }

    #[test]
    fn select_and_input_are_asked_and_answered() {
        let (channel, client) = scripted(1000, |frame| {
            let answer = match frame["call"].as_str() {
                Some("select") => json!("messages"),
                Some("input") => json!("because"),
                _ => return None,
            };
            Some(format!(
                "{}\n",
                json!({"id": frame["id"], "answer": answer})
            ))
        });
        let (frame, options) = select();
        assert_eq!(
            channel.ask(frame, Question::Select(&options)),
            Some(json!("messages"))
        );
        let input = UiFrame::Input {
            id: 0,
            title: "Reason".into(),
            placeholder: "why audit now?".into(),
            timeout_ms: 0,
        };
        assert_eq!(channel.ask(input, Question::Input), Some(json!("because")));
        channel.tell(UiFrame::SetStatus {
            key: "audit".into(),
            text: Some("on".into()),
        });
        drop(channel);
        assert_eq!(
            client.join().unwrap(),
            vec![
                json!({"ui": {"call": "select", "id": 1, "title": "Audit scope", "options": ["tools", "messages"], "timeout_ms": 1000}}),
                json!({"ui": {"call": "input", "id": 2, "title": "Reason", "placeholder": "why audit now?", "timeout_ms": 1000}}),
                json!({"ui": {"call": "set_status", "key": "audit", "text": "on"}}),
            ]
        );
    }

    #[test]
    fn a_pick_that_is_not_an_option_and_the_questions_past_the_bound_get_no_answer() {
        let (channel, client) = scripted(1000, |frame| {
            let id = frame["id"].as_u64()?;
            Some(format!("{}\n", json!({"id": id, "answer": "everything"})))
        });
        for _ in 0..MAX_QUESTIONS + 3 {
            let (frame, options) = select();
            assert_eq!(channel.ask(frame, Question::Select(&options)), None);
        }
        for _ in 0..MAX_NOTICES + 3 {
            channel.tell(UiFrame::Notify {
                message: "hi".into(),
                level: "info".into(),
            });
        }
        drop(channel);
        let frames = client.join().unwrap();
        let asked = frames
            .iter()
            .filter(|f| f["ui"]["call"] == "select")
            .count();
        let told = frames
            .iter()
            .filter(|f| f["ui"]["call"] == "notify")
            .count();
        assert_eq!((asked, told), (MAX_QUESTIONS, MAX_NOTICES));
    }

    #[test]
    fn a_late_answer_to_an_earlier_question_is_passed_over() {
        let (channel, client) = scripted(1000, |frame| {
            let id = frame["id"].as_u64()?;
            Some(format!(
                "{}\n{}\n",
                json!({"id": id + 100, "answer": true}),
                json!({"id": id, "answer": false})
            ))
        });
        let confirm = UiFrame::Confirm {
            id: 0,
            title: "Deploy".into(),
            message: "Run it?".into(),
            timeout_ms: 0,
        };
        assert_eq!(channel.ask(confirm, Question::Confirm), Some(json!(false)));
        drop(channel);
        assert_eq!(client.join().unwrap().len(), 1);
    }
}
