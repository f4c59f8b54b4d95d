//! Builder-style setters for the `#[non_exhaustive]` structs of the interface, which a plugin
//! cannot build with a struct expression: `ExecOptions::default().timeout(d)`.

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
