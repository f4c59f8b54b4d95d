//! Builder-style setters for the structs of the interface (added in 1.1, beside struct
//! expressions): `ExecOptions::default().timeout(d)`.

/// `setters!(Type { field: set<FieldType>, optional: some<InnerType>, })` adds, for each
/// field, a method of the field's name that sets it (to `Some(..)` for `some`) and returns
/// `self`. `set`/`some` take anything `Into` the type (`&str` for a `String`); `val`/`some_val`
/// take the type itself, so that number literals need no suffix.
macro_rules! setters {
    ($ty:ty { $($field:ident : $how:ident < $arg:ty >,)* }) => {
        impl $ty {
            $(setters!(@$how $field $arg);)*
        }
    };
    (@some $field:ident $arg:ty) => {
        #[doc = concat!("Sets `", stringify!($field), "` (builder style).")]
        #[must_use]
        pub fn $field(mut self, $field: impl Into<$arg>) -> Self {
            self.$field = Some($field.into());
            self
        }
    };
    (@val $field:ident $arg:ty) => {
        #[doc = concat!("Sets `", stringify!($field), "` (builder style).")]
        #[must_use]
        pub fn $field(mut self, $field: $arg) -> Self {
            self.$field = $field;
            self
        }
    };
    (@some_val $field:ident $arg:ty) => {
        #[doc = concat!("Sets `", stringify!($field), "` (builder style).")]
        #[must_use]
        pub fn $field(mut self, $field: $arg) -> Self {
            self.$field = Some($field);
            self
        }
    };
    (@set $field:ident $arg:ty) => {
        #[doc = concat!("Sets `", stringify!($field), "` (builder style).")]
        #[must_use]
        pub fn $field(mut self, $field: impl Into<$arg>) -> Self {
            self.$field = $field.into();
            self
        }
    };
}

pub(crate) use setters;

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::events::{PermissionDecision, PermissionResult, ToolCallEvent, ToolResultPatch};

    #[test]
    fn constructors_and_setters_build_what_the_wire_reads() {
        let wire = json!({
            "tool_name": "exec",
            "tool_call_id": "call-1",
            "input": {"command": "ls"},
            "added_in_a_later_minor": true,
        });
        assert_eq!(
            serde_json::from_value::<ToolCallEvent>(wire).unwrap(),
            ToolCallEvent::new("exec", "call-1", json!({"command": "ls"}))
        );
        assert_eq!(
            serde_json::to_value(ToolResultPatch::default().is_error(true)).unwrap(),
            json!({"is_error": true})
        );
        let denied = PermissionResult::default()
            .decision(PermissionDecision::Deny)
            .reason("no");
        assert_eq!(
            (denied.decision, denied.reason.as_deref()),
            (Some(PermissionDecision::Deny), Some("no"))
        );
    }
}
