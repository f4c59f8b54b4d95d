//! The memory limit of long-running hooks: `RLIMIT_DATA` set in the hook's process before it
//! runs (inherited by what it starts), [`DEFAULT_HOOK_MEMORY_MIB`] unless
//! [`HOOK_MEMORY_ENV`] says otherwise; and the words that say so when such a process ends.

use std::{
    collections::HashMap,
    sync::{Mutex, OnceLock},
};

use crate::sync::LockUnpoisoned;

/// The memory limit of a long-running hook, in MiB, unless [`HOOK_MEMORY_ENV`] gives one.
pub const DEFAULT_HOOK_MEMORY_MIB: u64 = 2048;

/// Sets the memory limit of long-running hooks, in MiB (`0`: none), read once.
pub const HOOK_MEMORY_ENV: &str = "AGENT_HOOKS_HOOK_MEMORY_MB";

/// The limit of a long-running hook's process, in bytes; 0: none.
pub(crate) fn hook_limit() -> u64 {
    static LIMIT: OnceLock<u64> = OnceLock::new();
    *LIMIT.get_or_init(|| {
        let mib = std::env::var(HOOK_MEMORY_ENV)
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok())
            .unwrap_or(DEFAULT_HOOK_MEMORY_MIB);
        mib.saturating_mul(1 << 20)
    })
}

fn limits() -> &'static Mutex<HashMap<i32, u64>> {
    static LIMITS: OnceLock<Mutex<HashMap<i32, u64>>> = OnceLock::new();
    LIMITS.get_or_init(Mutex::default)
}

/// Notes that process `pid` runs with a limit of `bytes`.
pub(crate) fn record(pid: i32, bytes: u64) {
    if bytes > 0 {
        limits().lock_unpoisoned().insert(pid, bytes);
    }
}

/// What to say of ended process `pid`'s memory: its peak, and its limit if it had one (then
/// forgotten), with what raises it when the peak came near.
pub(crate) fn describe(pid: i32, peak_kib: u64) -> String {
    let peak_mib = peak_kib / 1024;
    match limits().lock_unpoisoned().remove(&pid) {
        None => format!("peak memory {peak_mib} MiB"),
        Some(limit) => {
            let limit_mib = limit >> 20;
            if peak_kib.saturating_mul(1024) >= limit / 4 * 3 {
                format!(
                    "peak memory {peak_mib} MiB: it reached its memory limit of {limit_mib} MiB, which {HOOK_MEMORY_ENV} sets"
                )
            } else {
                format!("peak memory {peak_mib} MiB, limit {limit_mib} MiB")
            }
        }
    }
}
