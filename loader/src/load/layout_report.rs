//! abi_stable's layout-mismatch report runs to hundreds of lines of nested type layouts;
//! a person needs the few lines that say what differs. Each of its errors reads
//! `Error:<what>`, then `Expected:` and `Found:`, each followed by an indented value.

/// The decisive part of a layout report: for the first few errors, where (the user's type
/// and its field or method, not abi_stable's wrappers) and what differs, the agent's side and
/// the plugin's, joined with "; ". The deepest places come first (that is where a change
/// was made; the errors above it follow from it, as a function returning a bigger type), and
/// at one place a field's error before the size it changes.
pub(crate) fn summarize(full: &str) -> String {
    let lines: Vec<&str> = full.lines().collect();
    let mut errors: Vec<(usize, String)> = Vec::new();
    let mut place: Option<(usize, String)> = None;
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
        let (depth, error) = match &place {
            Some((depth, place)) => {
                let place = match (
                    what.starts_with("too many fields"),
                    added_fields(&lines[..i]),
                ) {
                    (true, Some(added)) if !place.contains('.') => format!("{place}.{added}"),
                    _ => place.clone(),
                };
                (*depth, format!("{place}: {what}"))
            }
            None => (0, what),
        };
        if !errors.iter().any(|(_, e)| *e == error) {
            errors.push((depth, error));
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
    // A size differs because of a field: the field's error first.
    errors.sort_by_key(|(depth, error)| {
        (
            std::cmp::Reverse(*depth),
            error.contains(": incompatible type size:"),
        )
    });
    errors.truncate(3);
    let errors: Vec<String> = errors.into_iter().map(|(_, e)| e).collect();
    errors.join("; ")
}

/// abi_stable's own types on the way to the user's: never the place to name.
const WRAPPERS: &[&str] = &[
    "AFunctionPointer",
    "RResult",
    "ROption",
    "RString",
    "RStr",
    "RVec",
    "RSlice",
    "RBox",
    "RArc",
    "RRef",
    "RObject",
    "PrefixRef",
    "VTable",
    "ManuallyDrop",
    "NonNull",
    "PhantomData",
    "UnsafeIgnoredType",
    "WithMetadata_",
];

/// The user's name for `ty`: a trait object `HostApi_TO<'lt>` is the trait `HostApi`; a
/// wrapper or a primitive has none.
fn user_type(ty: &str) -> Option<(&str, bool)> {
    let base = ty.split('<').next().unwrap_or(ty).trim();
    if let Some(name) = base.strip_suffix("_TO") {
        return Some((name, true));
    }
    let is_named = base.starts_with(|c: char| c.is_ascii_uppercase());
    (is_named && !WRAPPERS.contains(&base)).then_some((base, false))
}

/// Where the errors below an "N error(s)inside:" line are: the path of fields from the root
/// module down, each `field_name:` then `type:`. Named as the innermost of the user's types
/// on the path and its member there (a field, or a trait's method):
/// `PluginModule.panic_strategy`, `EventHandler.handle`, `CallError`; with the path's depth.
fn location(lines: &[&str]) -> Option<(usize, String)> {
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
    // The owner (a type of the user's) and its member, once seen: for a struct the next
    // field, for a trait object the method after its vtable.
    let mut owner: Option<(&str, Option<&str>)> = None;
    let mut member_next = false;
    let mut vtable_next = false;
    for (name, ty) in &path {
        if member_next {
            if let Some((_, member)) = owner.as_mut() {
                *member = Some(name);
            }
            member_next = false;
        }
        let base = ty.split('<').next().unwrap_or(ty).trim();
        if vtable_next && base == "VTable" {
            vtable_next = false;
            member_next = true;
            continue;
        }
        if let Some((user, is_trait)) = user_type(ty) {
            owner = Some((user, None));
            member_next = !is_trait;
            vtable_next = is_trait;
        }
    }
    let depth = path.len();
    match owner {
        Some((owner, Some(member))) => Some((depth, format!("{owner}.{member}"))),
        Some((owner, None)) => Some((depth, owner.to_owned())),
        None => path.last().map(|(_, ty)| (depth, (*ty).to_owned())),
    }
}

/// For a type with more fields on the plugin's side: the names of those fields (`code`), read
/// from the "Layout of expected type" and "Layout of found type" blocks above the error.
fn added_fields(before: &[&str]) -> Option<String> {
    let expected_at = before
        .iter()
        .rposition(|l| l.trim().starts_with("Layout of expected type"))?;
    let found_at = before
        .iter()
        .rposition(|l| l.trim().starts_with("Layout of found type"))?;
    if found_at < expected_at {
        return None;
    }
    let names = |block: &[&str]| -> Vec<String> {
        block
            .iter()
            .filter_map(|l| l.trim().strip_prefix("field_name:"))
            .map(|n| n.trim_end_matches(',').to_owned())
            .collect()
    };
    let expected = names(&before[expected_at..found_at]);
    let added: Vec<String> = names(&before[found_at..])
        .into_iter()
        .filter(|n| !expected.contains(n))
        .collect();
    (!added.is_empty()).then(|| added.join(", "))
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

    #[test]
    fn a_trait_method_and_a_type_below_wrappers_are_named_as_the_user_knows_them() {
        let path = "1 error(s)inside:\n    field_name:0\n    type:PluginModule\n    field_name:factory\n    type:AFunctionPointer\n    field_name:host,\n    type:HostApi_TO<'lt>\n    field_name:obj\n    type:RObject<'lt>\n    field_name:vtable\n    type:PrefixRef<'a, VTable>\n    field_name:0\n    type:VTable\n    field_name:exec\n    type:AFunctionPointer\n";
        let sized =
            format!("{path}\nError:incompatible type size\nExpected:\n    16\nFound:\n    24\n");
        assert_eq!(
            summarize(&sized),
            "HostApi.exec: incompatible type size: the agent has 16, the plugin 24"
        );
        let deeper = format!("{path}    field_name:__returns\n    type:RResult\n    field_name:field_0\n    type:CallError\nLayout of expected type:\n    field_name:panicked\n    type:bool\nLayout of found type:\n    field_name:panicked\n    type:bool\n    field_name:code\n    type:u32\n\nError:too many fields\nExpected:\n    1\nFound:\n    2\n");
        assert_eq!(
            summarize(&format!("{sized}{deeper}")),
            "CallError.code: too many fields: the agent has 1, the plugin 2; HostApi.exec: incompatible type size: the agent has 16, the plugin 24"
        );
    }
}
