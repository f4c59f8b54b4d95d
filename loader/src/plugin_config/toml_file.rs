//! A TOML configuration file: its value as JSON, and where each value starts.

use std::{cell::Cell, collections::BTreeMap};

use agent_hooks_abi::services::Position;
use serde::Deserialize;
use serde_json::Value;
use toml::de::{DeTable, DeValue};

/// Where each value of a file starts, by its path as the plugin's SDK names it.
pub(super) type Positions = BTreeMap<String, Position>;

/// A syntax error: where (when the parser says), and the parser's message.
pub(super) type SyntaxError = (Option<Position>, String);

/// Parses `text`: its value, and the position of each value by its path
/// (`limits.max_calls`, `rules[0].name`).
pub(super) fn parse(text: &str) -> Result<(Value, Positions), SyntaxError> {
    let failed = |e: toml::de::Error| {
        let position = e.span().map(|span| position(text, span.start));
        (position, e.message().trim_end().to_owned())
    };
    // Parsed once: the positions are read from the parsed document, which then gives the
    // value.
    let table = DeTable::parse(text).map_err(failed)?;
    let mut positions = BTreeMap::new();
    walk_table(&Locator::new(text), table.get_ref(), "", &mut positions);
    let value = Value::deserialize(toml::de::Deserializer::from(table)).map_err(failed)?;
    Ok((value, positions))
}

fn walk_table(text: &Locator<'_>, table: &DeTable<'_>, prefix: &str, positions: &mut Positions) {
    for (key, value) in table {
        let path = if prefix.is_empty() {
            key.get_ref().to_string()
        } else {
            format!("{prefix}.{}", key.get_ref())
        };
        // A table starts where its key is written (`[limits]`); other values where they do.
        let start = match value.get_ref() {
            DeValue::Table(_) => key.span().start,
            _ => value.span().start,
        };
        positions.insert(path.clone(), text.position(start));
        walk_value(text, value.get_ref(), &path, positions);
    }
}

fn walk_value(text: &Locator<'_>, value: &DeValue<'_>, path: &str, positions: &mut Positions) {
    match value {
        DeValue::Table(table) => walk_table(text, table, path, positions),
        DeValue::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                let path = format!("{path}[{index}]");
                positions.insert(path.clone(), text.position(item.span().start));
                walk_value(text, item.get_ref(), &path, positions);
            }
        }
        _ => {}
    }
}

/// The line and column (in characters, from 1) of byte `offset` of `text`.
fn position(text: &str, offset: usize) -> Position {
    Locator::new(text).position(offset)
}

/// Positions in one text, found in time linear in the text when asked in order: a 4 MiB
/// file of one line holds about two million values.
struct Locator<'a> {
    text: &'a str,
    /// The byte offset where each line starts.
    line_starts: Vec<usize>,
    /// The last position found: its line, byte offset and column in characters.
    last: Cell<(usize, usize, usize)>,
}

impl<'a> Locator<'a> {
    fn new(text: &'a str) -> Self {
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        Self {
            text,
            line_starts,
            last: Cell::new((0, 0, 0)),
        }
    }

    fn position(&self, offset: usize) -> Position {
        let mut end = offset.min(self.text.len());
        while !self.text.is_char_boundary(end) {
            end -= 1;
        }
        let line = self.line_starts.partition_point(|&start| start <= end) - 1;
        let (last_line, last_end, last_chars) = self.last.get();
        let (from, counted) = if last_line == line && last_end <= end {
            (last_end, last_chars)
        } else {
            (self.line_starts[line], 0)
        };
        let chars = counted + self.text[from..end].chars().count();
        self.last.set((line, end, chars));
        Position {
            line: line + 1,
            column: chars + 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn at(line: usize, column: usize) -> Position {
        Position { line, column }
    }

    #[test]
    fn values_tables_and_array_items_are_located() {
        let text =
            "name = \"guard\"\n[limits]\nmax_calls = 10\n[[rules]]\ndeny = [\"rm\", \"dd\"]\n";
        let (value, positions) = parse(text).unwrap();
        assert_eq!(
            value,
            json!({"name": "guard", "limits": {"max_calls": 10}, "rules": [{"deny": ["rm", "dd"]}]})
        );
        assert_eq!(positions["name"], at(1, 8));
        assert_eq!(positions["limits"], at(2, 2));
        assert_eq!(positions["limits.max_calls"], at(3, 13));
        assert_eq!(positions["rules[0].deny"], at(5, 8));
        assert_eq!(positions["rules[0].deny[1]"], at(5, 15));
    }

    #[test]
    fn columns_count_characters_and_an_offset_inside_one_is_safe() {
        assert_eq!(position("é = 1\nb", 8), at(2, 2));
        assert_eq!(position("é", 1), at(1, 1));
    }

    #[test]
    fn a_long_line_of_values_is_located_in_linear_time() {
        let text = format!("a = [{}0]", "0,".repeat(100_000));
        let (_, positions) = parse(&text).unwrap();
        assert_eq!(positions.len(), 100_002);
        assert_eq!(positions["a[100000]"], at(1, 200_006));
    }

    #[test]
    fn a_syntax_error_has_its_position() {
        let (position, message) = parse("a = 1\nb = \n").unwrap_err();
        assert_eq!(position, Some(at(2, 5)));
        assert_eq!(
            message,
            "string values must be quoted, expected literal string"
        );
    }
}
