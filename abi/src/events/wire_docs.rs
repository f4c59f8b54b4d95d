//! The JSON each event, result and message type documents ("On the wire:") is checked here,
//! so that the docs cannot drift from what crosses: it reads into the type and writes back
//! the same, and it names every field the type has.

use std::collections::{BTreeMap, BTreeSet};

use serde::{de::DeserializeOwned, Serialize};
use serde_json::Value;

use super::*;

const SOURCES: &[&str] = &[
    include_str!("agent.rs"),
    include_str!("message.rs"),
    include_str!("session.rs"),
    include_str!("tool.rs"),
];

/// The documented JSON of every type, by type name: the ```json block of its doc comment.
fn documented() -> BTreeMap<String, Value> {
    let mut found = BTreeMap::new();
    for source in SOURCES {
        let mut block: Option<String> = None;
        let mut last: Option<String> = None;
        for line in source.lines() {
            let doc = line.trim_start().strip_prefix("///");
            match (doc.map(str::trim), &mut block) {
                (Some("```json"), None) => block = Some(String::new()),
                (Some("```"), Some(text)) => {
                    last = Some(std::mem::take(text));
                    block = None;
                }
                (Some(_), Some(text)) => {
                    text.push_str(doc.unwrap_or_default());
                    text.push('\n');
                }
                _ => {}
            }
            let declared = line
                .strip_prefix("pub struct ")
                .or_else(|| line.strip_prefix("pub enum "));
            if let Some(rest) = declared {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if let Some(json) = last.take() {
                    let value = serde_json::from_str(&json)
                        .unwrap_or_else(|e| panic!("{name}: the documented JSON is not JSON: {e}"));
                    found.insert(name, value);
                }
            }
        }
    }
    found
}

/// Checks the documented JSON of `T`: present, read and written back unchanged, and (for a
/// plain struct) naming each of its fields.
fn check<T: Serialize + DeserializeOwned>(docs: &BTreeMap<String, Value>) {
    let name = std::any::type_name::<T>()
        .rsplit("::")
        .next()
        .unwrap_or_default();
    let Some(wire) = docs.get(name) else {
        panic!("{name} documents no JSON (add an \"On the wire:\" ```json block)");
    };
    let read: T = serde_json::from_value(wire.clone())
        .unwrap_or_else(|e| panic!("{name}: its documented JSON does not read: {e}"));
    assert_eq!(
        &serde_json::to_value(&read).unwrap(),
        wire,
        "{name}: its documented JSON does not come back as written"
    );
    if let Some(fields) = field_names::<T>() {
        let shown: BTreeSet<&str> = wire
            .as_object()
            .into_iter()
            .flat_map(|o| o.keys().map(String::as_str))
            .collect();
        // An alias (`customType` for `custom_type`) is read, not written: it is not shown.
        let fold = |f: &str| f.replace('_', "").to_lowercase();
        let alias = |f: &str| shown.iter().any(|s| *s != f && fold(s) == fold(f));
        let fields: BTreeSet<&str> = fields.iter().copied().filter(|f| !alias(f)).collect();
        assert_eq!(
            shown, fields,
            "{name}: its documented JSON must show every field"
        );
    }
}

#[test]
fn every_event_result_and_message_type_documents_its_json_as_it_crosses() {
    let docs = documented();
    macro_rules! events {
        ($($ty:ty => $kind:ident, $out:ty;)*) => { $(check::<$ty>(&docs);)* };
    }
    crate::for_each_event!(events);
    check::<SessionStartResult>(&docs);
    check::<ContextResult>(&docs);
    check::<BeforeAgentStartResult>(&docs);
    check::<SessionBeforeSwitchResult>(&docs);
    check::<SessionBeforeBranchResult>(&docs);
    check::<Compaction>(&docs);
    check::<SessionBeforeCompactResult>(&docs);
    check::<SessionCompactingResult>(&docs);
    check::<BranchSummary>(&docs);
    check::<SessionBeforeTreeResult>(&docs);
    check::<ToolCallResult>(&docs);
    check::<ToolResultPatch>(&docs);
    check::<PermissionResult>(&docs);
    check::<StopResult>(&docs);
    check::<ContentBlock>(&docs);
    check::<AgentMessage>(&docs);
    check::<CustomMessage>(&docs);
    check::<SendMessageOptions>(&docs);
    check::<ImageContent>(&docs);
}

#[test]
fn a_content_block_s_kind_crosses_as_type() {
    let docs = documented();
    assert_eq!(docs["ContentBlock"]["type"], "text");
}
