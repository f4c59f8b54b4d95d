use serde::{de, Deserialize};

/// The names of a struct's fields as they cross the boundary (its serde names, e.g.
/// `ContentBlock.kind` is `type`), read from its `Deserialize`. `None` for a type that is
/// not a plain struct (an enum, or a struct that keeps unknown fields with `flatten`).
///
/// ```
/// use agent_hooks_abi::events::{field_names, ToolCallEvent};
/// assert_eq!(
///     field_names::<ToolCallEvent>(),
///     Some(&["tool_name", "tool_call_id", "input"][..])
/// );
/// ```
pub fn field_names<T: for<'de> Deserialize<'de>>() -> Option<&'static [&'static str]> {
    let mut listener = FieldListener(None);
    let _ = T::deserialize(&mut listener);
    listener.0
}

/// A deserializer that only listens for the field list a derived struct asks for.
struct FieldListener(Option<&'static [&'static str]>);

impl<'de> de::Deserializer<'de> for &mut FieldListener {
    type Error = de::value::Error;

    fn deserialize_any<V: de::Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom("not a struct"))
    }

    fn deserialize_struct<V: de::Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Self::Error> {
        self.0 = Some(fields);
        Err(de::Error::custom("fields read"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}
