//! The rule for growth, enforced: the checked types of `ffi` that are frozen for the major
//! version keep exactly the layout recorded in `tests/frozen-layouts.txt` (as abi_stable
//! describes it: every field, method signature, size and alignment reachable from each,
//! without package versions or source lines), and the one type that may grow,
//! `PluginModule` (a prefix type), keeps its recorded fields first. See
//! docs/compatibility.md, "The rule for growth".
//!
//! A difference here is a change that plugins or hosts of another 1.y would refuse (or
//! misread): undo it, or make it in the next major, with a new snapshot.

use std::{collections::HashSet, fmt::Write};

use abi_stable::{
    type_layout::{TLData, TLFields, TypeLayout},
    StableAbi,
};
use agent_hooks_abi::ffi::{
    CallError, CommandHandlerBox, EventHandlerBox, HostApiBox, HostContextRef, MessageRendererBox,
    PanicStrategy,
};

fn describe(
    layout: &'static TypeLayout,
    depth: usize,
    seen: &mut HashSet<String>,
    out: &mut String,
) {
    let indent = "  ".repeat(depth);
    let name = layout.full_type().to_string();
    let _ = writeln!(
        out,
        "{indent}{name}: size {} align {}",
        layout.size(),
        layout.alignment()
    );
    if !seen.insert(format!("{name} {:?}", layout.get_utypeid())) {
        return;
    }
    let fields = |fields: TLFields, out: &mut String, seen: &mut HashSet<String>| {
        for field in fields.iter() {
            let _ = writeln!(out, "{indent}  .{}: {}", field.name(), field.full_type());
            for function in field.function_range().iter() {
                let _ = writeln!(out, "{indent}    fn {function}");
            }
            describe(field.layout(), depth + 2, seen, out);
        }
    };
    // A prefix reference (a vtable, a root module) has no fields of its own: what it points
    // to is among its type parameters' layouts.
    if name.starts_with("PrefixRef<") {
        for pointee in layout.shared_vars().type_layouts() {
            let _ = writeln!(out, "{indent}  ->");
            describe(pointee(), depth + 2, seen, out);
        }
    }
    match layout.data() {
        TLData::Primitive(primitive) => {
            let _ = writeln!(out, "{indent}  primitive {primitive:?}");
        }
        TLData::Opaque => {
            let _ = writeln!(out, "{indent}  opaque");
        }
        TLData::Struct { fields: f } => fields(f, out, seen),
        TLData::Union { fields: f } => {
            let _ = writeln!(out, "{indent}  union");
            fields(f, out, seen)
        }
        TLData::Enum(e) => {
            let variants: Vec<&str> = e.variant_names_iter().collect();
            let _ = writeln!(out, "{indent}  enum {variants:?} {:?}", e.field_count);
            fields(e.fields, out, seen)
        }
        TLData::PrefixType(prefix) => {
            let _ = writeln!(
                out,
                "{indent}  prefix, first suffix field {}",
                prefix.first_suffix_field
            );
            fields(prefix.fields, out, seen)
        }
    }
}

fn layout_of(name: &str, layout: &'static TypeLayout) -> String {
    let mut out = format!("== {name}\n");
    describe(layout, 0, &mut HashSet::new(), &mut out);
    out
}

/// Today's description of every frozen type, in the snapshot's order.
fn frozen_today() -> String {
    [
        layout_of("HostApi", <HostApiBox as StableAbi>::LAYOUT),
        layout_of(
            "HostContext",
            <HostContextRef<'static> as StableAbi>::LAYOUT,
        ),
        layout_of("EventHandler", <EventHandlerBox as StableAbi>::LAYOUT),
        layout_of("CommandHandler", <CommandHandlerBox as StableAbi>::LAYOUT),
        layout_of("MessageRenderer", <MessageRendererBox as StableAbi>::LAYOUT),
        layout_of("CallError", <CallError as StableAbi>::LAYOUT),
        layout_of("PanicStrategy", <PanicStrategy as StableAbi>::LAYOUT),
    ]
    .concat()
}

/// `PluginModule`'s fields, one per line: name and type.
fn plugin_module_fields() -> Vec<String> {
    let layout = <agent_hooks_abi::ffi::PluginModuleRef as StableAbi>::LAYOUT;
    let mut fields = Vec::new();
    collect_prefix_fields(layout, &mut fields, &mut HashSet::new());
    fields
}

fn collect_prefix_fields(
    layout: &'static TypeLayout,
    out: &mut Vec<String>,
    seen: &mut HashSet<String>,
) {
    if !seen.insert(layout.full_type().to_string()) {
        return;
    }
    let children = match layout.data() {
        TLData::PrefixType(prefix) => {
            for field in prefix.fields.iter() {
                out.push(format!("{}: {}", field.name(), field.full_type()));
            }
            return;
        }
        TLData::Struct { fields } => fields,
        _ => return,
    };
    for pointee in layout.shared_vars().type_layouts() {
        collect_prefix_fields(pointee(), out, seen);
    }
    for field in children.iter() {
        collect_prefix_fields(field.layout(), out, seen);
    }
}

const SNAPSHOT: &str = "tests/frozen-layouts.txt";

fn snapshot() -> (String, Vec<String>) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(SNAPSHOT);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (frozen, module) = text
        .split_once("== PluginModule (may grow at the end)\n")
        .expect("the snapshot has a PluginModule section");
    (
        frozen.to_owned(),
        module.lines().map(str::to_owned).collect(),
    )
}

#[test]
fn the_frozen_ffi_types_keep_their_recorded_layout() {
    if std::env::var_os("AGENT_HOOKS_WRITE_LAYOUTS").is_some() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(SNAPSHOT);
        let module = plugin_module_fields().join("\n");
        std::fs::write(
            path,
            format!(
                "{}== PluginModule (may grow at the end)\n{module}\n",
                frozen_today()
            ),
        )
        .unwrap();
        return;
    }
    let (recorded, _) = snapshot();
    let today = frozen_today();
    if let Some((n, (was, is))) = recorded
        .lines()
        .zip(today.lines())
        .enumerate()
        .find(|(_, (a, b))| a != b)
    {
        panic!(
            "a frozen ffi type changed ({SNAPSHOT}, line {}):\n  recorded: {was}\n  today:    {is}\nfrozen types change only in a new major (docs/compatibility.md)",
            n + 1
        );
    }
    assert_eq!(
        recorded.lines().count(),
        today.lines().count(),
        "a frozen ffi type gained or lost parts ({SNAPSHOT}): frozen types change only in a new major"
    );
}

#[test]
fn the_plugin_module_keeps_its_recorded_fields_first() {
    let (_, recorded) = snapshot();
    let today = plugin_module_fields();
    assert!(!recorded.is_empty());
    assert!(
        today.len() >= recorded.len() && today[..recorded.len()] == recorded[..],
        "PluginModule may only grow at the end: recorded {recorded:?}, today {today:?}"
    );
}
