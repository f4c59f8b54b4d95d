//! abi_stable's layout-mismatch report runs to hundreds of lines of nested type layouts;
//! a person needs the few lines that say what differs. Each of its errors reads
//! `Error:<what>`, then `Expected:` and `Found:`, each followed by an indented value.

/// The decisive part of a layout report: for the first few errors, where (the type and
/// field) and what differs, the agent's side and the plugin's, joined with "; ".
pub(crate) fn summarize(full: &str) -> String {
    let lines: Vec<&str> = full.lines().collect();
    let mut errors: Vec<String> = Vec::new();
    let mut place: Option<String> = None;
    for (i, line) in lines.iter().enumerate() {
        let line = line.trim();
        if line.ends_with("error(s)inside:") {
            place = location(&lines[i + 1..]);
            continue;
        }
        let Some(what) = line.strip_prefix("Error:") else {
            continue;
        };
        let expected = value_after(&lines[i + 1..], "Expected:");
        let found = value_after(&lines[i + 1..], "Found:");
        let what = match (expected, found) {
            (Some(expected), Some(found)) => {
                format!("{what}: the agent has {expected}, the plugin {found}")
            }
            _ => what.to_owned(),
        };
        let error = match &place {
            Some(place) => format!("{place}: {what}"),
            None => what,
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

/// Where the errors below an "N error(s)inside:" line are: the path of fields from the root
/// module down, each `field_name:` then `type:`. Named as the innermost type that has the
/// differing field, and that field: `PluginModule.panic_strategy`.
fn location(lines: &[&str]) -> Option<String> {
    let mut path: Vec<(&str, &str)> = Vec::new();
    let mut field: Option<&str> = None;
    for line in lines.iter().map(|l| l.trim()) {
        if line.starts_with("Layout of") || line.starts_with("Error:") {
            break;
        }
        if let Some(name) = line.strip_prefix("field_name:") {
            field = Some(name.trim_end_matches(','));
        } else if let (Some(ty), Some(name)) = (line.strip_prefix("type:"), field.take()) {
            path.push((name, ty));
        }
    }
    match path.as_slice() {
        [.., (_, parent), (field, _)] => Some(format!("{parent}.{field}")),
        [(_, ty)] => Some((*ty).to_owned()),
        [] => None,
    }
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
        let report = "header\n    lots of layout\n\n1 error(s)inside:\n    <other>\n\n    field_name:0\n    type:PluginModule\n    size:48 align:8\n\n    field_name:panic_strategy\n    type:u32\n\nLayout of expected type:\n    type:PanicStrategy\n\nError:mismatched type\nExpected:\n    PanicStrategy\nFound:\n    u32\n2 error(s)inside:\n    <other>\n\n    field_name:0\n    type:PluginModule\n\n    field_name:factory\n    type:AFunctionPointer\n\nLayout of expected type:\n\nError:too many fields\nExpected:\n    2\nFound:\n    1\n\nError:unexpected field\nExpected:\n    field_name:host,\n    type:HostApi_TO<'lt>\nFound:\n    field_name:__returns\n    type:()\n";
        assert_eq!(
            summarize(report),
            "PluginModule.panic_strategy: mismatched type: the agent has PanicStrategy, the plugin u32; PluginModule.factory: too many fields: the agent has 2, the plugin 1; PluginModule.factory: unexpected field: the agent has field `host: HostApi_TO<'lt>`, the plugin field `__returns: ()`"
        );
    }
}
