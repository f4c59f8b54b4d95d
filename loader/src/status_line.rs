//! The status line: short texts that hooks set under keys (`ui.set_status`), shown as one
//! line, safe to print whatever a hook put in it.
//!
//! ```
//! use agent_hooks::StatusLine;
//!
//! let line = StatusLine::new();
//! line.set("b-tests", Some("tests: \x1b[32mgreen\x1b[0m"));
//! line.set("a-branch", Some("main\n"));
//! assert_eq!(line.render(80), "main tests: green");
//! assert_eq!(line.render(8), "main te…");
//! ```

use std::{collections::BTreeMap, sync::Mutex};

use unicode_width::UnicodeWidthStr;

use crate::sync::LockUnpoisoned;

const ESC: char = '\u{1b}';
const ELLIPSIS: char = '…';

/// Texts per key. A host's UI stores what hooks set here and renders it to its width.
#[derive(Debug, Default)]
pub struct StatusLine {
    entries: Mutex<BTreeMap<String, String>>,
}

impl StatusLine {
    /// An empty status line.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the text under `key`; `None` clears it.
    pub fn set(&self, key: &str, text: Option<&str>) {
        let mut entries = self.entries.lock_unpoisoned();
        match text {
            Some(text) => entries.insert(key.to_owned(), text.to_owned()),
            None => entries.remove(key),
        };
    }

    /// The line, at most `width` terminal columns: the texts sorted by key, each sanitised
    /// (see [`sanitize`]), joined with single spaces, cut with "…" when too wide.
    pub fn render(&self, width: usize) -> String {
        let entries = self.entries.lock_unpoisoned();
        let line = entries
            .values()
            .map(|text| sanitize(text))
            .filter(|text| !text.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        truncate_to_width(&line, width)
    }
}

/// Makes a hook's text fit for one line: ANSI escape sequences are removed whole, control
/// characters (`\r`, `\n`, `\t`, ...) become spaces, runs of spaces fold into one, and the
/// ends are trimmed.
pub fn sanitize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let c = match c {
            ESC => {
                skip_escape(&mut chars);
                continue;
            }
            '\u{9b}' => {
                skip_csi(&mut chars);
                continue;
            }
            c if c.is_control() => ' ',
            c => c,
        };
        if c == ' ' && (out.is_empty() || out.ends_with(' ')) {
            continue;
        }
        out.push(c);
    }
    while out.ends_with(' ') {
        out.pop();
    }
    out
}

/// Skips the rest of an escape sequence whose ESC was just read.
fn skip_escape(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    match chars.next() {
        Some('[') => skip_csi(chars),
        // OSC, DCS, SOS, PM, APC: a string ended by BEL or ST (ESC \).
        Some(']' | 'P' | 'X' | '^' | '_') => {
            while let Some(c) = chars.next() {
                if c == '\u{7}' {
                    break;
                }
                if c == ESC {
                    if chars.peek() == Some(&'\\') {
                        chars.next();
                    }
                    break;
                }
            }
        }
        // nF sequences: intermediates, then one final character.
        Some(c) if (' '..='/').contains(&c) => {
            while chars.next_if(|c| (' '..='/').contains(c)).is_some() {}
            chars.next();
        }
        // Two-character sequences (ESC 7, ESC c, ...): already consumed.
        _ => {}
    }
}

/// Skips a control sequence after its introducer: parameters and intermediates, then the
/// final byte (`@` to `~`).
fn skip_csi(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    for c in chars.by_ref() {
        if ('@'..='~').contains(&c) {
            break;
        }
    }
}

/// Cuts `text` to at most `width` terminal columns, ending with "…" when it was cut. Wide
/// characters count two columns and combining marks none; a wide character that would
/// straddle the edge is left out.
pub(crate) fn truncate_to_width(text: &str, width: usize) -> String {
    if text.width() <= width {
        return text.to_owned();
    }
    if width == 0 {
        return String::new();
    }
    let budget = width - 1;
    let mut end = 0;
    for (at, c) in text.char_indices() {
        let next = at + c.len_utf8();
        if text[..next].width() > budget {
            break;
        }
        end = next;
    }
    let mut out = text[..end].trim_end().to_owned();
    out.push(ELLIPSIS);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ansi_sequences_are_removed_whole() {
        assert_eq!(sanitize("\u{1b}[32mgreen\u{1b}[0m ok"), "green ok");
        assert_eq!(sanitize("\u{1b}[1;38;5;196mred\u{1b}[m"), "red");
        assert_eq!(
            sanitize("\u{1b}]8;;https://x.dev\u{7}link\u{1b}]8;;\u{1b}\\ end"),
            "link end"
        );
        assert_eq!(sanitize("a\u{1b}(Bb\u{1b}7c"), "abc");
        assert_eq!(sanitize("\u{9b}31mc1\u{9b}0m"), "c1");
    }

    #[test]
    fn control_characters_become_single_spaces_and_ends_are_trimmed() {
        assert_eq!(sanitize("\t a\r\nb \t\tc \u{7f}"), "a b c");
        assert_eq!(sanitize(" \n\t "), "");
    }

    #[test]
    fn truncation_counts_terminal_columns() {
        assert_eq!(truncate_to_width("hello world", 11), "hello world");
        assert_eq!(truncate_to_width("hello world", 8), "hello w…");
        // CJK characters are two columns wide; one that would straddle the edge is left out.
        assert_eq!(truncate_to_width("日本語テキスト", 6), "日本…");
        assert_eq!(truncate_to_width("日本語テキスト", 7), "日本語…");
        // Emoji are two columns.
        assert_eq!(truncate_to_width("ok 👍👍👍", 6), "ok 👍…");
        // A combining mark stays with its letter and takes no column.
        assert_eq!(
            truncate_to_width("e\u{301}e\u{301}e\u{301}e\u{301}", 3),
            "e\u{301}e\u{301}…"
        );
        assert_eq!(truncate_to_width("abc", 0), "");
        assert_eq!(truncate_to_width("abc", 1), "…");
    }

    #[test]
    fn entries_are_sorted_by_key_joined_and_cleared() {
        let line = StatusLine::new();
        line.set("b-git", Some("\u{1b}[33mmain\u{1b}[0m\t+2"));
        line.set("a-model", Some("sonnet\n"));
        line.set("c-empty", Some("\u{1b}[0m"));
        line.set("d-tools", Some("3 tools"));
        assert_eq!(line.render(80), "sonnet main +2 3 tools");
        line.set("a-model", None);
        assert_eq!(line.render(80), "main +2 3 tools");
        assert_eq!(line.render(9), "main +2…");
    }
}
