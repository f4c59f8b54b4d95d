//! Every `unsafe` of the loader, and nothing else. The rest of the crate is
//! `#![deny(unsafe_code)]`: it calls the safe functions here, each of which states what it
//! needs of its caller in its docs and why its blocks are sound in `SAFETY` comments (CI runs
//! clippy with `undocumented_unsafe_blocks`).
//!
//! What is here, and who calls it:
//!
//! - [`library`]: opening a plugin library with the platform loader (`dlopen`, which runs its
//!   initialisers) and reading abi_stable's root-module header out of it (`load/library.rs`).
//! - [`process`]: starting a supervised process with `posix_spawn` over the agent's own
//!   `environ`, opening its pidfd and registering it with tokio (`supervisor/direct.rs`, Linux
//!   with glibc); starting a program from the keeper (a command hook, an `exec` program, a
//!   plugin process) with `clone(CLONE_VM | CLONE_VFORK)` and `execve`, resetting only the
//!   keeper's own signals (`supervisor/keeper/serve.rs`); a process the keeper started: its
//!   exit status once reaped, through its pidfd (`supervisor/kept.rs`); reaping a plugin
//!   process with `wait4` for its peak memory (`supervisor/reap.rs`); asking the kernel to
//!   kill a long-running hook when the agent ends (`PR_SET_PDEATHSIG` between fork and exec,
//!   `remote/spawn.rs`); a limit on the memory of a long-running hook (`setrlimit` between
//!   fork and exec, in the keeper, `supervisor/keeper/serve.rs`, or in the agent,
//!   `remote/spawn.rs`); whether a plugin process has ended, or waiting until it has,
//!   without reaping it (`waitid` with `WNOWAIT`, `supervisor/reap.rs`).
//! - [`pipe`]: a pipe whose ends are close-on-exec, for a process the keeper starts
//!   (`supervisor/kept.rs`, `remote/spawn.rs`); how much of a pipe is not read yet
//!   (`FIONREAD`), for whether a long-running hook that ended read its last event
//!   (`remote/line_out.rs`).
//! - [`socket`]: descriptors received over a Unix socket (`SCM_RIGHTS`), which the keeper
//!   takes ownership of (`supervisor/keeper/`).
//! - [`child_ends`]: a descriptor readable when a child ends (a signalfd for SIGCHLD), which
//!   the keeper waits on beside the agent's requests (`supervisor/keeper/serve.rs`).
//!
//! Where a call is Linux's alone (`pipe2`, `signalfd`, `MSG_NOSIGNAL`, `MSG_CMSG_CLOEXEC`,
//! nix's `waitid`), the function here has a fallback for the other Unix systems, under
//! `#[cfg(not(target_os = "linux"))]`, which its docs describe; on Linux the call is the same.
//!
//! - `largest_allocation` (tests only): a global allocator that notes the largest request of
//!   each thread, for the fuzzing tests' bound on memory (`protocol/fuzz.rs`).
//!
//! The interface crate (`agent-hooks-abi`) has its own `unsafe`, at the plugin boundary; the
//! sealed copy of a library (`file/sealed.rs`) and the plugin process's descriptors go
//! through `nix`'s safe calls.

pub(crate) mod child_ends;
#[cfg(test)]
pub(crate) mod largest_allocation;
pub(crate) mod library;
pub(crate) mod pipe;
pub(crate) mod process;
pub(crate) mod socket;
