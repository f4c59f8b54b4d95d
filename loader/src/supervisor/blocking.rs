//! Waiting from synchronous code without stalling tokio: a future run to its end
//! ([`block_on`]), or a closure that may block ([`may_block`]).

use std::future::Future;

use tokio::runtime::{Builder, Handle, RuntimeFlavor};

/// Runs `future` to its end from synchronous code, wherever that code runs: on a
/// multi-threaded runtime's worker (which hands its other tasks to another thread while it
/// waits), inside a current-thread runtime (on a thread of its own, with a runtime of its
/// own), or outside any runtime (with a runtime made for the call).
pub(crate) fn block_on<F>(future: F) -> std::io::Result<F::Output>
where
    F: Future + Send,
    F::Output: Send,
{
    match Handle::try_current() {
        Ok(handle) if handle.runtime_flavor() == RuntimeFlavor::MultiThread => {
            Ok(tokio::task::block_in_place(|| handle.block_on(future)))
        }
        Ok(_) => std::thread::scope(|scope| {
            scope
                .spawn(|| own_runtime(future))
                .join()
                .unwrap_or_else(|_| Err(std::io::Error::other("the supervising thread panicked")))
        }),
        Err(_) => own_runtime(future),
    }
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

fn own_runtime<F: Future>(future: F) -> std::io::Result<F::Output> {
    Ok(Builder::new_current_thread()
        .enable_all()
        .build()?
        .block_on(future))
}
