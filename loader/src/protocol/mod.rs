//! The two wire protocols between the agent and a hook in a process of its own, as types
//! and framing only: no processes, no threads, no pipes. [`frames`] is the plugin host's
//! (length-prefixed JSON frames, both ends the agent's own binary); [`lines`] is the same
//! conversation as a long-running hook speaks it (one JSON object per line, for scripts in
//! any language). Each message has a golden test of its bytes next to its type.

pub mod frames;
pub mod lines;

#[cfg(test)]
mod fuzz;
