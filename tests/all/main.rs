//! The loader's integration tests, in one binary: each file of this folder is a module
//! (`cargo test -p agent-hooks-tests --test all MODULE::` runs one of them). The helpers they
//! share are the `agent_hooks_tests` library (`tests/support/`).
//!
//! The tests run in parallel threads of one process, so a test must not change what is
//! process-wide (the environment, the working folder, resource limits, signal dispositions):
//! one that needs to runs itself in a process of its own with
//! [`agent_hooks_tests::alone_in_process`].

mod agent_hook;
mod background_soak;
mod bounds;
mod claude_code;
mod cli;
mod cli_layout;
mod cli_recording;
mod cline;
mod command_examples;
mod command_hooks;
mod compatibility;
mod compatibility_matrix;
mod concurrency;
mod copilot_cursor;
mod copilot_open;
mod decision_export;
mod decision_log;
mod dedup;
mod dialect_files;
mod discovery;
mod docs;
mod droid;
mod factory_context;
mod fail_closed;
mod file_checks;
mod first_hour;
mod home;
mod host_calls;
mod host_observers;
mod host_payloads;
mod http_hooks;
mod https_hooks;
mod interop;
mod isolation;
mod keeper;
mod lean_wiring;
mod load_errors;
mod long_running;
mod managed_policy;
mod opencode;
mod outside_plugin;
mod panics;
mod parity;
mod permissions;
mod pi;
mod plugin_log;
mod processes;
mod qwen;
mod required;
mod resident;
mod runner;
mod samples;
mod services;
mod status_line;
mod take_over;
mod template;
mod trust_config;
mod trust_store;
mod wrapper;
