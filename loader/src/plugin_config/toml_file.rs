//! A TOML configuration file: its value as JSON, and where each value starts.

use std::collections::BTreeMap;

use agent_hooks_abi::services::Position;
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
    let value: Value = toml::from_str(text).map_err(failed)?;
    let table = DeTable::parse(text).map_err(failed)?;
    let mut positions = BTreeMap::new();
    walk_table(text, table.get_ref(), "", &mut positions);
    Ok((value, positions))
}

fn walk_table(text: &str, table: &DeTable<'_>, prefix: &str, positions: &mut Positions) {
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
        positions.insert(path.clone(), position(text, start));
        walk_value(text, value.get_ref(), &path, positions);
    }
}

fn walk_value(text: &str, value: &DeValue<'_>, path: &str, positions: &mut Positions) {
    match value {
        DeValue::Table(table) => walk_table(text, table, path, positions),
        DeValue::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                let path = format!("{path}[{index}]");
                positions.insert(path.clone(), position(text, item.span().start));
                walk_value(text, item.get_ref(), &path, positions);
            }
        }
        _ => {}
    }
}

/// The line and column (in characters, from 1) of byte `offset` of `text`.
fn position(text: &str, offset: usize) -> Position {
    let mut end = offset.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let before = &text[..end];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    Position {
        line: before.matches('\n').count() + 1,
        column: before[line_start..].chars().count() + 1,
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
    fn a_syntax_error_has_its_position() {
        let (position, message) = parse("a = 1\nb = \n").unwrap_err();
        assert_eq!(position, Some(at(2, 5)));
        assert_eq!(
            message,
            "string values must be quoted, expected literal string"
        );
    }
}
