//! `emit --input` fields an event does not have (a misspelt `toolName`): named, with the
//! closest known field, instead of silently ignored.

use agent_hooks::abi::events::field_names;
use agent_hooks::{abi::EventKind, Combine};
use serde::Deserialize;
use serde_json::Value;

use crate::event_io::Emitted;

/// Fields every command-hook payload has, and the command-hook names of the tool events'
/// fields that `emit` also reads (`tool_input` for `input`, ...). Accepted with any event.
const DIALECT_FIELDS: &[&str] = &[
    "session_id",
    "transcript_path",
    "cwd",
    "permission_mode",
    "hook_event_name",
    "prompt_id",
    "tool_input",
    "tool_response",
    "tool_use_id",
    "error",
    "is_interrupt",
];

/// A warning for each field of `input` that `emitted` does not have, in the input's order.
/// An event named by its command-hook name (`PreCompact`) passes every field to command
/// hooks as given, whatever that agent documents: only near misses of a known field are
/// named there. None for a command event the runner has no moment for.
pub fn unknown_fields(emitted: Emitted, input: &Value) -> Vec<String> {
    let (Some(kind), Some(given)) = (emitted.kind(), input.as_object()) else {
        return Vec::new();
    };
    let Some(known) = known_fields(kind) else {
        return Vec::new();
    };
    let dialect = matches!(emitted, Emitted::Runner(_, Some(_)));
    given
        .keys()
        .filter(|field| !known.all.contains(field))
        .filter_map(|field| {
            let hint = match closest(field, &known.all) {
                Some(close) => format!("did you mean `{close}`?"),
                None if dialect => return None,
                None => format!("its fields: {}", known.native.join(", ")),
            };
            Some(format!(
                "--input: `{field}` is not a field of {kind} ({hint}); native hooks do not see it"
            ))
        })
        .collect()
}

/// The event's own fields (first), then the command-hook names accepted for it.
fn known_fields(kind: EventKind) -> Option<Known> {
    macro_rules! fields {
        ($($ty:ty => $kind:ident, $out:ty;)*) => {
            match kind {
                $(EventKind::$kind => with_dialect::<$ty>(),)*
                _ => None,
            }
        };
    }
    agent_hooks::abi::for_each_event!(fields)
}

fn with_dialect<E: Combine + Default + for<'de> Deserialize<'de>>() -> Option<Known> {
    let native: Vec<String> = field_names::<E>()?.iter().map(|f| f.to_string()).collect();
    let mut all = native.clone();
    all.extend(DIALECT_FIELDS.iter().map(|f| f.to_string()));
    // The fields the event's command hooks get (`prompt`, `source`, `stop_hook_active`...).
    if let Some(input) = E::default().command_input() {
        all.extend(input.fields.keys().cloned());
    }
    Some(Known { native, all })
}

/// An event's field names: its own, and all that are accepted for it.
struct Known {
    native: Vec<String>,
    all: Vec<String>,
}

/// The known field closest to `field`: the same but for case and `_`/`-` (`toolName` for
/// `tool_name`), else one at most two edits away.
fn closest<'a>(field: &str, known: &'a [String]) -> Option<&'a str> {
    let folded = fold(field);
    if let Some(same) = known.iter().find(|k| fold(k) == folded) {
        return Some(same);
    }
    known
        .iter()
        .map(|k| (crate::output::edit_distance(&folded, &fold(k)), k.as_str()))
        .filter(|(distance, _)| *distance <= 2)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, k)| k)
}

fn fold(name: &str) -> String {
    name.chars()
        .filter(|c| *c != '_' && *c != '-')
        .flat_map(char::to_lowercase)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_closest_field_folds_case_and_underscores_then_allows_two_edits() {
        let known = ["tool_name", "tool_call_id", "input"].map(String::from);
        assert_eq!(closest("toolName", &known), Some("tool_name"));
        assert_eq!(closest("inptu", &known), Some("input"));
        assert_eq!(closest("payload", &known), None);
    }
}
