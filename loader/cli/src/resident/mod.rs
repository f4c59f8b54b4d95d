//! The resident process (`serve`) as the other commands reach it: the HTTP hooks'
//! configuration that `install --http` writes and `serve` listens by, how it stands for
//! `list` and `doctor`, and stopping it.

pub mod http_config;
pub mod status;
pub mod stop;
