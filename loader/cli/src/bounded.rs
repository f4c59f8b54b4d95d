//! Reading what the user hands the program (`--input`, `--ui` files, replayed sessions)
//! within bounds: a file or line past its bound is refused with a message that says what,
//! how big, the bound and what to do, after reading at most the bound (plus one byte), never
//! the whole of it.

use std::io::{BufRead, Read};

/// The most `--input` may hold (a file, stdin or the text itself): 64 MiB. A payload is an
/// event's JSON: recorded payloads are a few kilobytes.
pub const MAX_INPUT: u64 = 64 << 20;

/// The most a `--ui` file of answers may hold: 16 MiB.
pub const MAX_UI_FILE: u64 = 16 << 20;

/// The most one line of a replayed session may hold: 64 MiB (one event's payload).
pub const MAX_REPLAY_LINE: usize = 64 << 20;

/// `limit` in words: "64 MiB".
pub fn size_words(limit: u64) -> String {
    format!("{} MiB", limit >> 20)
}

/// Reads `reader` as UTF-8 text of at most `limit` bytes; `what` names it in the error
/// (`--input @payload.json`).
pub fn read_text(reader: impl Read, limit: u64, what: &str) -> Result<String, String> {
    let bytes = read_at_most(reader, limit)
        .map_err(|e| format!("{what}: cannot read it: {e}"))?
        .map_err(|_| too_large(what, None, limit))?;
    String::from_utf8(bytes).map_err(|e| format!("{what}: not UTF-8 text ({e})"))
}

/// Reads `reader` to its end or to `limit` bytes and one more, to tell: `Ok` with the bytes
/// within the bound, `Err` with what was read (`limit + 1` bytes) past it, for a caller that
/// hands it on (the relay passes a payload past its bound to `agent-hooks hook`).
pub fn read_at_most(reader: impl Read, limit: u64) -> std::io::Result<Result<Vec<u8>, Vec<u8>>> {
    let mut bytes = Vec::new();
    reader.take(limit + 1).read_to_end(&mut bytes)?;
    Ok(if bytes.len() as u64 > limit {
        Err(bytes)
    } else {
        Ok(bytes)
    })
}

/// Reads the file `path` as text of at most `limit` bytes: a regular file larger than that
/// is refused from its size, before any byte is read.
pub fn read_file(path: &str, limit: u64, what: &str) -> Result<String, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("{what}: cannot read it: {e}"))?;
    if let Ok(meta) = file.metadata() {
        if meta.is_file() && meta.len() > limit {
            return Err(too_large(what, Some(meta.len()), limit));
        }
    }
    read_text(file, limit, what)
}

fn too_large(what: &str, size: Option<u64>, limit: u64) -> String {
    let size = size.map_or_else(String::new, |size| format!(" {size} bytes,"));
    format!(
        "{what} is{size} over the most it may hold ({}): it was not used; give a smaller one",
        size_words(limit)
    )
}

/// One line of a session, or why it was skipped.
pub type Line = Result<String, String>;

/// The lines of `reader`, each of at most `max` bytes: a longer one is read past (never
/// held) and stands as an error that says so; a line that is not UTF-8 likewise.
pub fn lines(mut reader: impl BufRead, max: usize) -> std::io::Result<Vec<Line>> {
    let mut lines = Vec::new();
    loop {
        let mut line = Vec::new();
        let mut length = 0usize;
        let mut ended = false;
        loop {
            let buffer = reader.fill_buf()?;
            if buffer.is_empty() {
                break;
            }
            let (chunk, newline) = match buffer.iter().position(|&b| b == b'\n') {
                Some(at) => (&buffer[..at], true),
                None => (buffer, false),
            };
            length += chunk.len();
            if length <= max {
                line.extend_from_slice(chunk);
            } else {
                line = Vec::new();
            }
            let used = chunk.len() + usize::from(newline);
            reader.consume(used);
            ended = true;
            if newline {
                break;
            }
        }
        if !ended {
            return Ok(lines);
        }
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        lines.push(if length > max {
            Err(format!(
                "the line is {length} bytes, over the most a line may hold ({}): it was skipped",
                size_words(max as u64)
            ))
        } else {
            String::from_utf8(line).map_err(|_| "the line is not UTF-8 text: it was skipped".into())
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_line_is_an_error_between_good_ones() {
        let text = b"{\"a\":1}\nxxxxxxxxxxxx\n\n{\"b\":2}";
        let lines = lines(&text[..], 8).unwrap();
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[0].as_deref(), Ok("{\"a\":1}"));
        assert!(lines[1]
            .as_ref()
            .unwrap_err()
            .starts_with("the line is 12 bytes"));
        assert_eq!(lines[2].as_deref(), Ok(""));
        assert_eq!(lines[3].as_deref(), Ok("{\"b\":2}"));
    }

    #[test]
    fn text_past_its_bound_is_refused() {
        assert_eq!(read_text(&b"12345"[..], 5, "x").as_deref(), Ok("12345"));
        assert_eq!(
            read_text(&b"123456"[..], 5, "--input").unwrap_err(),
            "--input is over the most it may hold (0 MiB): it was not used; give a smaller one"
        );
    }
}
