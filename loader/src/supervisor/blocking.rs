//! Waiting from synchronous code without stalling tokio: a future run to its end
//! ([`block_on`]), or on the calling thread itself ([`on_this_thread`]), or a closure that
//! may block ([`may_block`]).

use std::{cell::Cell, future::Future};

use tokio::runtime::{Builder, Handle, Runtime, RuntimeFlavor};

/// Runs `future` to its end from synchronous code, wherever that code runs: on the calling
/// thread ([`on_this_thread`]; a multi-threaded runtime's worker first hands its other tasks
/// to another thread, [`may_block`]), or, inside a current-thread runtime (whose one thread
/// this is, and which no runtime may run inside), on a thread of its own.
pub(crate) fn block_on<F>(future: F) -> std::io::Result<F::Output>
where
    F: Future + Send,
    F::Output: Send,
{
    if in_current_thread_runtime() {
        return std::thread::scope(|scope| {
            scope
                .spawn(|| on_this_thread(future))
                .join()
                .unwrap_or_else(|_| Err(std::io::Error::other("the supervising thread panicked")))
        });
    }
    may_block(|| on_this_thread(future))
}

/// Whether the calling thread runs a current-thread runtime: it must not wait for a future
/// itself (the runtime's other tasks would stall, and tokio refuses a runtime inside it).
pub(crate) fn in_current_thread_runtime() -> bool {
    Handle::try_current().is_ok_and(|handle| handle.runtime_flavor() != RuntimeFlavor::MultiThread)
}

/// Runs `f`, which may wait (a UI prompt, a session action, a program), on a thread that may
/// be a tokio worker: on a multi-threaded runtime the worker first hands its other tasks to
/// another thread ([`tokio::task::block_in_place`]), so that a hook waiting for the user does
/// not stall them. Elsewhere `f` just runs.
pub(crate) fn may_block<T>(f: impl FnOnce() -> T) -> T {
    match Handle::try_current() {
        Ok(handle) if handle.runtime_flavor() == RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(f)
        }
        _ => f(),
    }
}

/// Runs `future` to its end on the calling thread, on a current-thread runtime of the
/// thread's own (made at its first use, kept until the thread ends). The thread waits for
/// what the future waits for itself, in its own `epoll_wait`, as `std::process` waits in
/// `waitpid`: a process's end wakes it, and nothing else (a multi-threaded runtime's
/// readiness reaches a waiting thread through one of its workers, a wake-up more). The
/// caller must not be inside a runtime: on a multi-threaded runtime's thread, call it
/// within [`may_block`].
pub(crate) fn on_this_thread<F: Future>(future: F) -> std::io::Result<F::Output> {
    // Taken out while in use and put back after: the cell is not borrowed across the call.
    let mut own = OWN.take().unwrap_or_default();
    let runtime = match own.0.take() {
        Some(runtime) => runtime,
        None => Builder::new_current_thread().enable_all().build()?,
    };
    let output = {
        let _inside = Inside::enter();
        own.0.insert(runtime).block_on(future)
    };
    OWN.set(Some(own));
    Ok(output)
}

/// Whether the calling thread runs a future of [`on_this_thread`] now: that runtime runs
/// only while a thread waits on it, so a task spawned on it to go on after the future ended
/// would wait for the thread's next call.
#[cfg_attr(not(all(target_os = "linux", target_env = "gnu")), allow(dead_code))]
pub(crate) fn in_own_runtime() -> bool {
    INSIDE.get()
}

thread_local! {
    /// The runtime [`on_this_thread`] keeps, while no call uses it.
    static OWN: Cell<Option<OwnRuntime>> = const { Cell::new(None) };
    static INSIDE: Cell<bool> = const { Cell::new(false) };
}

/// A runtime that may be dropped anywhere, an async context included (where dropping a
/// `Runtime`, which waits for its blocking threads, panics): it is shut down without
/// waiting.
#[derive(Default)]
struct OwnRuntime(Option<Runtime>);

impl Drop for OwnRuntime {
    fn drop(&mut self) {
        if let Some(runtime) = self.0.take() {
            runtime.shutdown_background();
        }
    }
}

/// [`INSIDE`] while it lives, then as it was (also when the future panics).
struct Inside(bool);

impl Inside {
    fn enter() -> Self {
        Self(INSIDE.replace(true))
    }
}

impl Drop for Inside {
    fn drop(&mut self) {
        INSIDE.set(self.0);
    }
}
