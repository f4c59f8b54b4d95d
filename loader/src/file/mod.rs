//! Reading a hook file safely: opened once without blocking, checked on the open descriptor
//! (what it is, how big, who could change it) before a byte is read, and then only the bytes
//! that were checked are used (hashed for trust, parsed, loaded: a library is loaded from a
//! sealed copy of those bytes, [`SealedCopy`]).

mod error;
mod read_once;
mod sealed;
mod strict_modes;

pub use error::FileError;
pub(crate) use read_once::{hex_sha256, read_capped, read_checked, CheckedFile, Limit};
pub(crate) use sealed::SealedCopy;
pub(crate) use strict_modes::StrictModes;
