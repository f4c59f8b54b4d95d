//! Locks that a panic does not poison for good. A panic while a lock is held (a hook's
//! listener, a plugin's callback caught at the boundary) leaves the data as the panicking
//! code left it; every lock in the crate goes on with that data rather than spreading the
//! panic to every later caller, so they all take the guard through these methods.

use std::sync::{Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// [`Mutex::lock`], taking the guard of a poisoned lock too.
pub(crate) trait LockUnpoisoned<T: ?Sized> {
    /// Locks, whether or not a holder panicked.
    fn lock_unpoisoned(&self) -> MutexGuard<'_, T>;
}

impl<T: ?Sized> LockUnpoisoned<T> for Mutex<T> {
    fn lock_unpoisoned(&self) -> MutexGuard<'_, T> {
        self.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// [`RwLock::read`] and [`RwLock::write`], taking the guard of a poisoned lock too.
pub(crate) trait RwLockUnpoisoned<T: ?Sized> {
    /// Locks for reading, whether or not a holder panicked.
    fn read_unpoisoned(&self) -> RwLockReadGuard<'_, T>;
    /// Locks for writing, whether or not a holder panicked.
    fn write_unpoisoned(&self) -> RwLockWriteGuard<'_, T>;
}

impl<T: ?Sized> RwLockUnpoisoned<T> for RwLock<T> {
    fn read_unpoisoned(&self) -> RwLockReadGuard<'_, T> {
        self.read().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn write_unpoisoned(&self) -> RwLockWriteGuard<'_, T> {
        self.write()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Mutex, RwLock};

    use super::{LockUnpoisoned, RwLockUnpoisoned};

    #[test]
    fn a_lock_poisoned_by_a_panic_still_gives_its_data() {
        let mutex = Mutex::new(1);
        let rw = RwLock::new(2);
        let _ = std::panic::catch_unwind(|| {
            let _held = mutex.lock();
            let _written = rw.write();
            panic!("while holding both");
        });
        assert!(mutex.is_poisoned() && rw.is_poisoned());
        *mutex.lock_unpoisoned() += 1;
        *rw.write_unpoisoned() += 1;
        assert_eq!((*mutex.lock_unpoisoned(), *rw.read_unpoisoned()), (2, 3));
    }
}
