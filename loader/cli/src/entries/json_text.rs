//! Just enough of a JSON reader to edit a file as text: where an object's members and an
//! array's elements are, comments (`//`, `/* */`, which an agent's settings allow where its
//! profile says `lenient_json`) and formatting kept as they are. `install` inserts text right
//! after an opening bracket, and `uninstall` removes exactly that text, so every other byte of
//! the file stays as it was.

/// Why a file could not be read as JSON text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not valid JSON at byte {at}: {what}")]
pub struct JsonTextError {
    /// The byte offset.
    pub at: usize,
    /// What was expected.
    pub what: &'static str,
}

fn fail<T>(at: usize, what: &'static str) -> Result<T, JsonTextError> {
    Err(JsonTextError { at, what })
}

/// One member of an object: its key, and where its value starts and ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// The key, unescaped only for plain keys (escaped keys are kept as written).
    pub key: String,
    /// The first byte of the value.
    pub value_start: usize,
    /// One past its last byte.
    pub value_end: usize,
}

/// Skips whitespace and comments from `i`.
pub fn skip_space(text: &[u8], mut i: usize) -> Result<usize, JsonTextError> {
    loop {
        match text.get(i) {
            Some(b' ' | b'\t' | b'\n' | b'\r') => i += 1,
            Some(b'/') if text.get(i + 1) == Some(&b'/') => {
                while i < text.len() && text[i] != b'\n' {
                    i += 1;
                }
            }
            Some(b'/') if text.get(i + 1) == Some(&b'*') => {
                let start = i;
                i += 2;
                loop {
                    if i + 1 >= text.len() {
                        return fail(start, "a comment that ends");
                    }
                    if text[i] == b'*' && text[i + 1] == b'/' {
                        i += 2;
                        break;
                    }
                    i += 1;
                }
            }
            _ => return Ok(i),
        }
    }
}

fn skip_string(text: &[u8], start: usize) -> Result<usize, JsonTextError> {
    let mut i = start + 1;
    while i < text.len() {
        match text[i] {
            b'\\' => i += 2,
            b'"' => return Ok(i + 1),
            _ => i += 1,
        }
    }
    fail(start, "a string that ends")
}

/// One past the end of the value that starts at `i` (after space).
pub fn skip_value(text: &[u8], i: usize) -> Result<usize, JsonTextError> {
    match text.get(i) {
        Some(b'"') => skip_string(text, i),
        Some(b'{') => Ok(object_members(text, i)?.1),
        Some(b'[') => Ok(array_elements(text, i)?.1),
        Some(c) if c.is_ascii_alphanumeric() || *c == b'-' => {
            let mut end = i;
            while end < text.len()
                && (text[end].is_ascii_alphanumeric() || b"+-.".contains(&text[end]))
            {
                end += 1;
            }
            Ok(end)
        }
        _ => fail(i, "a value"),
    }
}

/// The members of the object whose `{` is at `open`, and one past its `}`.
pub fn object_members(text: &[u8], open: usize) -> Result<(Vec<Member>, usize), JsonTextError> {
    let mut members = Vec::new();
    let mut i = skip_space(text, open + 1)?;
    if text.get(i) == Some(&b'}') {
        return Ok((members, i + 1));
    }
    loop {
        if text.get(i) != Some(&b'"') {
            return fail(i, "a key");
        }
        let key_end = skip_string(text, i)?;
        let key = String::from_utf8_lossy(&text[i + 1..key_end - 1]).into_owned();
        i = skip_space(text, key_end)?;
        if text.get(i) != Some(&b':') {
            return fail(i, "`:`");
        }
        let value_start = skip_space(text, i + 1)?;
        let value_end = skip_value(text, value_start)?;
        members.push(Member {
            key,
            value_start,
            value_end,
        });
        i = skip_space(text, value_end)?;
        match text.get(i) {
            Some(b',') => {
                i = skip_space(text, i + 1)?;
                // A trailing comma (allowed by the readers of commented JSON).
                if text.get(i) == Some(&b'}') {
                    return Ok((members, i + 1));
                }
            }
            Some(b'}') => return Ok((members, i + 1)),
            _ => return fail(i, "`,` or `}`"),
        }
    }
}

/// The number of elements of the array whose `[` is at `open`, and one past its `]`.
pub fn array_elements(text: &[u8], open: usize) -> Result<(usize, usize), JsonTextError> {
    let mut count = 0;
    let mut i = skip_space(text, open + 1)?;
    if text.get(i) == Some(&b']') {
        return Ok((0, i + 1));
    }
    loop {
        i = skip_space(text, skip_value(text, i)?)?;
        count += 1;
        match text.get(i) {
            Some(b',') => {
                i = skip_space(text, i + 1)?;
                if text.get(i) == Some(&b']') {
                    return Ok((count, i + 1));
                }
            }
            Some(b']') => return Ok((count, i + 1)),
            _ => return fail(i, "`,` or `]`"),
        }
    }
}

/// The top-level object's `{`.
pub fn top_object(text: &[u8]) -> Result<usize, JsonTextError> {
    let i = skip_space(text, 0)?;
    if text.get(i) != Some(&b'{') {
        return fail(i, "an object at the top");
    }
    Ok(i)
}

/// The text from `start` to `end` as strict JSON: comments and trailing commas taken out,
/// everything else (strings, spacing) as it is.
pub fn strict(text: &[u8], start: usize, end: usize) -> Result<String, JsonTextError> {
    let mut out = Vec::with_capacity(end.saturating_sub(start));
    let mut i = start;
    while i < end {
        match text[i] {
            b'"' => {
                let close = skip_string(text, i)?;
                out.extend_from_slice(&text[i..close]);
                i = close;
            }
            b'/' => i = skip_space(text, i)?,
            b',' => {
                let next = skip_space(text, i + 1)?;
                if !matches!(text.get(next), Some(b'}' | b']')) {
                    out.push(b',');
                }
                i += 1;
            }
            byte => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8(out).map_err(|_| JsonTextError {
        at: start,
        what: "UTF-8 text",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_and_elements_with_comments_and_odd_spacing() {
        let text = br#" // settings
{ "a" :1, /* c */ "hooks":{"E":[ {"x":"]}\""} , 2 ,] },}"#;
        let top = top_object(text).unwrap_or(usize::MAX);
        let (members, end) = object_members(text, top).unwrap_or_default();
        assert_eq!(end, text.len());
        assert_eq!(members.len(), 2);
        assert_eq!(members[1].key, "hooks");
        let (hooks, _) = object_members(text, members[1].value_start).unwrap_or_default();
        assert_eq!(hooks[0].key, "E");
        assert_eq!(
            array_elements(text, hooks[0].value_start).map(|r| r.0),
            Ok(2)
        );
    }

    #[test]
    fn strict_text_has_no_comments_nor_trailing_commas() {
        let text = br#"{"a": [1, /* two */ 2,], // end
 "b": "x // y, ]"}"#;
        let strict = strict(text, 0, text.len()).unwrap_or_default();
        let value: Result<serde_json::Value, _> = serde_json::from_str(&strict);
        assert_eq!(
            value.ok(),
            Some(serde_json::json!({"a": [1, 2], "b": "x // y, ]"}))
        );
    }

    #[test]
    fn broken_text_is_an_error_with_its_place() {
        assert_eq!(
            top_object(b"[1]").map_err(|e| e.what),
            Err("an object at the top")
        );
        let text = br#"{"a": }"#;
        assert_eq!(object_members(text, 0).map_err(|e| e.at), Err(6));
    }
}
