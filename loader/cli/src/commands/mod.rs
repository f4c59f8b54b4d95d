//! The subcommands, a module each, named after the command (`install` also holds
//! `uninstall`, `trust` also `untrust`). What several of them share is beside this folder.

pub mod command;
pub mod demo;
pub mod doctor;
pub mod emit;
pub mod events;
pub mod hook;
pub mod install;
pub mod list;
pub mod log;
pub mod new;
pub mod replay;
pub mod serve;
pub mod stats;
pub mod status;
pub mod trust;
