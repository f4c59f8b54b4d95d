//! Locks that a panic does not poison for good: the program's listeners and its recording
//! agent go on with the data a panicking holder left.

use std::sync::{Mutex, MutexGuard};

/// Locks a mutex, also after a panic elsewhere.
pub fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}
