//! abi_stable's layout-mismatch report runs to hundreds of lines of nested type layouts;
//! a person needs the few lines that say what differs. Each of its errors reads
//! `Error:<what>`, then `Expected:` and `Found:`, each followed by an indented value.

/// The decisive part of a layout report: what differs, expected and found, for the first
/// few errors, joined with "; ".
pub(crate) fn summarize(full: &str) -> String {
    let lines: Vec<&str> = full.lines().collect();
    let mut errors: Vec<String> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(what) = line.trim().strip_prefix("Error:") else {
            continue;
        };
        let expected = value_after(&lines[i + 1..], "Expected:");
        let found = value_after(&lines[i + 1..], "Found:");
        let error = match (expected, found) {
            (Some(expected), Some(found)) => {
                format!("{what}: expected {expected}, found {found}")
            }
            _ => what.to_owned(),
        };
        if !errors.contains(&error) {
            errors.push(error);
        }
    }
    if errors.is_empty() {
        return full
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("the layout check failed")
            .trim()
            .to_owned();
    }
    errors.truncate(3);
    errors.join("; ")
}

/// The value below `label` within the current error: its first line, or a field's name and
/// type.
fn value_after(lines: &[&str], label: &str) -> Option<String> {
    let at = lines
        .iter()
        .take_while(|l| !l.trim().starts_with("Error:"))
        .position(|l| l.trim() == label)?;
    let mut values = lines[at + 1..]
        .iter()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty());
    let first = values.next()?;
    match first.strip_prefix("field_name:") {
        Some(name) => {
            let ty = values
                .next()
                .and_then(|l| l.strip_prefix("type:"))
                .unwrap_or("?");
            Some(format!("field `{}: {ty}`", name.trim_end_matches(',')))
        }
        None => Some(first.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_are_reduced_to_what_differs() {
        let report = "header\n    lots of layout\n\nError:mismatched type\nExpected:\n    PanicStrategy\nFound:\n    u32\n2 error(s)inside:\n\nError:too many fields\nExpected:\n    2\nFound:\n    1\n\nError:unexpected field\nExpected:\n    field_name:host,\n    type:HostApi_TO<'lt>\nFound:\n    field_name:__returns\n    type:()\n";
        assert_eq!(
            summarize(report),
            "mismatched type: expected PanicStrategy, found u32; too many fields: expected 2, found 1; unexpected field: expected field `host: HostApi_TO<'lt>`, found field `__returns: ()`"
        );
    }
}
