//! JSON text written fast: the bytes `serde_json` writes, with strings escaped eight bytes at
//! a time. An event crosses to a hook as JSON text, and its payload is mostly long strings
//! (a command, a file): `serde_json` looks at them a byte at a time, which was an eighth of
//! a plugin process's round trip.

mod escape;
mod writer;

pub(crate) use writer::{append, to_string};
