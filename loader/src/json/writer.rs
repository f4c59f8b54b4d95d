//! A `serde` serializer that writes compact JSON into a `String`: the bytes
//! `serde_json::to_string` writes (its tests hold the two to the same text), with strings
//! escaped by [`write_str`](super::escape::write_str). Numbers that are not integers, and
//! map keys that are neither strings nor integers, are written by `serde_json` itself.

use serde::ser::{self, Error as _, Serialize};

use super::escape::write_str;

/// What `serde_json`'s `RawValue` calls itself when it is serialized: its text is written
/// as it is.
const RAW_VALUE: &str = "$serde_json::private::RawValue";

/// What [`to_string`]'s text starts with: an event's JSON or a hook's payload (a tool's
/// input, a file) is written without growing it (and copying it) as it fills.
const CAPACITY: usize = 4096;

/// The JSON text of `value`, as `serde_json::to_string` writes it.
pub(crate) fn to_string<T: ?Sized + Serialize>(value: &T) -> serde_json::Result<String> {
    let mut out = String::with_capacity(CAPACITY);
    append(&mut out, value)?;
    Ok(out)
}

/// Writes `value` as JSON at the end of `out`.
pub(crate) fn append<T: ?Sized + Serialize>(out: &mut String, value: &T) -> serde_json::Result<()> {
    let mut json = Json {
        out: std::mem::take(out),
        mode: Mode::Value,
    };
    let written = value.serialize(&mut json);
    *out = json.out;
    written
}

/// The text written so far, and how the next scalar is written.
struct Json {
    out: String,
    mode: Mode,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Value,
    /// A map's key: a string, or a scalar written in quotes.
    Key,
    /// A `RawValue`'s text: written as it is.
    Raw,
}

impl Json {
    /// An integer: quoted when it is a map's key.
    fn integer(&mut self, digits: &str) {
        if self.mode == Mode::Key {
            self.out.push('"');
            self.out.push_str(digits);
            self.out.push('"');
        } else {
            self.out.push_str(digits);
        }
    }

    /// A scalar `serde_json` writes itself (a float; a bool as a key).
    fn by_serde_json<T: Serialize>(&mut self, value: T) -> serde_json::Result<()> {
        let text = match self.mode {
            Mode::Key => {
                // serde_json's own rules for a key that is not a string: its text, quoted.
                let map = serde_json::to_string(&OneKey(value))?;
                map.strip_prefix('{')
                    .and_then(|m| m.strip_suffix(":null}"))
                    .map(str::to_owned)
                    .ok_or_else(|| serde_json::Error::custom("key must be a string"))?
            }
            Mode::Value | Mode::Raw => serde_json::to_string(&value)?,
        };
        self.out.push_str(&text);
        Ok(())
    }

    /// `{"variant":`, less its colon: what a variant with content opens with.
    fn open_variant(&mut self, variant: &str) -> serde_json::Result<()> {
        self.not_a_key()?;
        self.out.push('{');
        write_str(&mut self.out, variant);
        Ok(())
    }

    fn not_a_key(&self) -> serde_json::Result<()> {
        match self.mode {
            Mode::Key => Err(serde_json::Error::custom("key must be a string")),
            Mode::Value | Mode::Raw => Ok(()),
        }
    }
}

/// A map of one entry, `{key: null}`, for serde_json to write a key that is not a string.
struct OneKey<T>(T);

impl<T: Serialize> Serialize for OneKey<T> {
    fn serialize<S: ser::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(1))?;
        map.serialize_entry(&self.0, &())?;
        map.end()
    }
}

macro_rules! integers {
    ($($method:ident: $type:ty),*) => {$(
        fn $method(self, value: $type) -> serde_json::Result<()> {
            self.integer(itoa::Buffer::new().format(value));
            Ok(())
        }
    )*};
}

impl<'a> ser::Serializer for &'a mut Json {
    type Ok = ();
    type Error = serde_json::Error;
    type SerializeSeq = Compound<'a>;
    type SerializeTuple = Compound<'a>;
    type SerializeTupleStruct = Compound<'a>;
    type SerializeTupleVariant = Compound<'a>;
    type SerializeMap = Compound<'a>;
    type SerializeStruct = Compound<'a>;
    type SerializeStructVariant = Compound<'a>;

    integers!(
        serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
        serialize_i128: i128, serialize_u8: u8, serialize_u16: u16, serialize_u32: u32,
        serialize_u64: u64, serialize_u128: u128
    );

    fn serialize_bool(self, value: bool) -> serde_json::Result<()> {
        match self.mode {
            Mode::Key => self.by_serde_json(value),
            Mode::Value | Mode::Raw => {
                self.out.push_str(if value { "true" } else { "false" });
                Ok(())
            }
        }
    }

    fn serialize_f32(self, value: f32) -> serde_json::Result<()> {
        self.by_serde_json(value)
    }

    fn serialize_f64(self, value: f64) -> serde_json::Result<()> {
        self.by_serde_json(value)
    }

    fn serialize_char(self, value: char) -> serde_json::Result<()> {
        self.serialize_str(value.encode_utf8(&mut [0; 4]))
    }

    fn serialize_str(self, value: &str) -> serde_json::Result<()> {
        match self.mode {
            Mode::Raw => self.out.push_str(value),
            Mode::Value | Mode::Key => write_str(&mut self.out, value),
        }
        Ok(())
    }

    fn serialize_bytes(self, value: &[u8]) -> serde_json::Result<()> {
        use ser::SerializeSeq;
        let mut seq = self.serialize_seq(Some(value.len()))?;
        for byte in value {
            seq.serialize_element(byte)?;
        }
        seq.end()
    }

    fn serialize_none(self) -> serde_json::Result<()> {
        self.serialize_unit()
    }

    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> serde_json::Result<()> {
        value.serialize(self)
    }

    fn serialize_unit(self) -> serde_json::Result<()> {
        self.not_a_key()?;
        self.out.push_str("null");
        Ok(())
    }

    fn serialize_unit_struct(self, _name: &'static str) -> serde_json::Result<()> {
        self.serialize_unit()
    }

    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> serde_json::Result<()> {
        self.serialize_str(variant)
    }

    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        value: &T,
    ) -> serde_json::Result<()> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> serde_json::Result<()> {
        self.open_variant(variant)?;
        self.out.push(':');
        value.serialize(&mut *self)?;
        self.out.push('}');
        Ok(())
    }

    fn serialize_seq(self, _len: Option<usize>) -> serde_json::Result<Compound<'a>> {
        self.not_a_key()?;
        Ok(Compound::open(self, "[", "]"))
    }

    fn serialize_tuple(self, len: usize) -> serde_json::Result<Compound<'a>> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        len: usize,
    ) -> serde_json::Result<Compound<'a>> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> serde_json::Result<Compound<'a>> {
        self.open_variant(variant)?;
        Ok(Compound::open(self, ":[", "]}"))
    }

    fn serialize_map(self, _len: Option<usize>) -> serde_json::Result<Compound<'a>> {
        self.not_a_key()?;
        Ok(Compound::open(self, "{", "}"))
    }

    fn serialize_struct(self, name: &'static str, len: usize) -> serde_json::Result<Compound<'a>> {
        if name == RAW_VALUE {
            self.not_a_key()?;
            return Ok(Compound {
                json: self,
                first: true,
                close: "",
                raw: true,
            });
        }
        self.serialize_map(Some(len))
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> serde_json::Result<Compound<'a>> {
        self.open_variant(variant)?;
        Ok(Compound::open(self, ":{", "}}"))
    }
}

/// An array, an object or a `RawValue` being written.
struct Compound<'a> {
    json: &'a mut Json,
    first: bool,
    /// What ends it.
    close: &'static str,
    /// A `RawValue`: its one field is its text.
    raw: bool,
}

impl<'a> Compound<'a> {
    fn open(json: &'a mut Json, open: &str, close: &'static str) -> Self {
        json.out.push_str(open);
        Compound {
            json,
            first: true,
            close,
            raw: false,
        }
    }

    fn comma(&mut self) {
        if !std::mem::replace(&mut self.first, false) {
            self.json.out.push(',');
        }
    }

    fn element<T: ?Sized + Serialize>(&mut self, value: &T) -> serde_json::Result<()> {
        self.comma();
        value.serialize(&mut *self.json)
    }

    fn key<T: ?Sized + Serialize>(&mut self, key: &T) -> serde_json::Result<()> {
        self.comma();
        self.json.mode = Mode::Key;
        let written = key.serialize(&mut *self.json);
        self.json.mode = Mode::Value;
        written?;
        self.json.out.push(':');
        Ok(())
    }

    fn field<T: ?Sized + Serialize>(&mut self, name: &str, value: &T) -> serde_json::Result<()> {
        if self.raw {
            self.json.mode = Mode::Raw;
            let written = value.serialize(&mut *self.json);
            self.json.mode = Mode::Value;
            return written;
        }
        self.comma();
        write_str(&mut self.json.out, name);
        self.json.out.push(':');
        value.serialize(&mut *self.json)
    }

    fn close(self) -> serde_json::Result<()> {
        self.json.out.push_str(self.close);
        Ok(())
    }
}

/// The four kinds of sequence: elements, then the end.
macro_rules! sequences {
    ($($kind:ident::$element:ident),*) => {$(
        impl ser::$kind for Compound<'_> {
            type Ok = ();
            type Error = serde_json::Error;
            fn $element<T: ?Sized + Serialize>(&mut self, value: &T) -> serde_json::Result<()> {
                self.element(value)
            }
            fn end(self) -> serde_json::Result<()> {
                self.close()
            }
        }
    )*};
}

sequences!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

/// The two kinds of struct: named fields, then the end.
macro_rules! structs {
    ($($kind:ident),*) => {$(
        impl ser::$kind for Compound<'_> {
            type Ok = ();
            type Error = serde_json::Error;
            fn serialize_field<T: ?Sized + Serialize>(
                &mut self,
                name: &'static str,
                value: &T,
            ) -> serde_json::Result<()> {
                self.field(name, value)
            }
            fn end(self) -> serde_json::Result<()> {
                self.close()
            }
        }
    )*};
}

structs!(SerializeStruct, SerializeStructVariant);

impl ser::SerializeMap for Compound<'_> {
    type Ok = ();
    type Error = serde_json::Error;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> serde_json::Result<()> {
        self.key(key)
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> serde_json::Result<()> {
        value.serialize(&mut *self.json)
    }
    fn end(self) -> serde_json::Result<()> {
        self.close()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use agent_hooks_abi::prelude::*;
    use proptest::prelude::*;
    use serde::Serialize;
    use serde_json::value::RawValue;

    use super::*;

    fn same_as_serde_json<T: Serialize + std::fmt::Debug>(value: &T) {
        let ours = to_string(value).map_err(|e| e.to_string());
        let theirs = serde_json::to_string(value).map_err(|e| e.to_string());
        assert_eq!(ours, theirs, "{value:?}");
    }

    /// Any JSON value: every kind, nested, with any text in keys and strings.
    fn any_value() -> impl Strategy<Value = serde_json::Value> {
        let leaf = prop_oneof![
            Just(serde_json::Value::Null),
            any::<bool>().prop_map(serde_json::Value::from),
            any::<i64>().prop_map(serde_json::Value::from),
            any::<u64>().prop_map(serde_json::Value::from),
            any::<f64>().prop_map(serde_json::Value::from),
            any::<String>().prop_map(serde_json::Value::from),
            "[a-z\"\\\\\n\u{1}é]{0,40}".prop_map(serde_json::Value::from),
        ];
        leaf.prop_recursive(4, 64, 8, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..8).prop_map(serde_json::Value::from),
                proptest::collection::vec((any::<String>(), inner), 0..8).prop_map(|entries| {
                    serde_json::Value::Object(entries.into_iter().collect())
                }),
            ]
        })
    }

    proptest! {
        #[test]
        fn any_value_is_written_as_serde_json_writes_it(value in any_value()) {
            let ours = to_string(&value).map_err(|e| e.to_string());
            prop_assert_eq!(ours, serde_json::to_string(&value).map_err(|e| e.to_string()));
        }

        #[test]
        fn maps_with_keys_of_other_kinds_are_written_as_serde_json_writes_them(
            ints in proptest::collection::btree_map(any::<i32>(), any::<String>(), 0..4),
            bools in proptest::collection::btree_map(any::<bool>(), any::<u8>(), 0..3),
            chars in proptest::collection::btree_map(any::<char>(), any::<f32>(), 0..4),
        ) {
            same_as_serde_json(&ints);
            same_as_serde_json(&bools);
            same_as_serde_json(&chars);
        }
    }

    #[test]
    fn the_events_are_written_as_serde_json_writes_them() {
        let call = ToolCallEvent::new(
            "exec",
            "call-1",
            json!({"command": "ls\t\"a b\"\n", "n": 1.5, "deep": [null, true, {"x": -1}]}),
        );
        same_as_serde_json(&call);
        let mut result = ToolResultEvent::new("exec", "call-1", json!({"a": "out\u{7}"}));
        result.is_error = true;
        same_as_serde_json(&result);
    }

    #[test]
    fn enums_options_and_raw_values_are_written_as_serde_json_writes_them() {
        #[derive(Debug, Serialize)]
        enum Shape {
            Unit,
            Newtype(String),
            Tuple(u8, Option<i8>),
            Struct { name: char, bytes: Vec<u8> },
        }
        #[derive(Debug, Serialize)]
        #[serde(tag = "type", rename_all = "snake_case")]
        enum Tagged {
            Call { id: u64, payload: String },
            Goodbye,
        }
        #[derive(Debug, Serialize)]
        struct Carrier<'a> {
            raw: &'a RawValue,
            unit: (),
            nothing: Option<u8>,
            big: u128,
            small: i128,
            nan: f64,
        }
        for shape in [
            Shape::Unit,
            Shape::Newtype("n\"".into()),
            Shape::Tuple(7, None),
            Shape::Struct {
                name: 'é',
                bytes: vec![0, 255],
            },
        ] {
            same_as_serde_json(&shape);
        }
        same_as_serde_json(&Tagged::Call {
            id: 3,
            payload: "{\"a\":1}".into(),
        });
        same_as_serde_json(&Tagged::Goodbye);
        let raw = RawValue::from_string("{ \"kept\" : [1, 2] }".into())
            .unwrap_or_else(|_| unreachable!());
        same_as_serde_json(&Carrier {
            raw: &raw,
            unit: (),
            nothing: None,
            big: u128::MAX,
            small: i128::MIN,
            nan: f64::NAN,
        });
    }

    #[test]
    fn keys_that_cannot_be_strings_are_refused_as_serde_json_refuses_them() {
        let mut by_list: BTreeMap<Vec<u8>, u8> = BTreeMap::new();
        by_list.insert(vec![1], 1);
        assert!(to_string(&by_list).is_err());
        assert!(serde_json::to_string(&by_list).is_err());
        let mut by_float: BTreeMap<String, u8> = BTreeMap::new();
        by_float.insert("x".into(), 1);
        same_as_serde_json(&by_float);
    }

    #[test]
    fn append_writes_after_what_is_there() {
        let mut out = String::from("{\"payload\":");
        append(&mut out, &json!({"a": "b"})).unwrap_or_else(|_| unreachable!());
        assert_eq!(out, "{\"payload\":{\"a\":\"b\"}");
    }
}
