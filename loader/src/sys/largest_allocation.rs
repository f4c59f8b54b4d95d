//! For the fuzzing tests only: the largest single allocation a thread asks for while a
//! closure runs, through a global allocator that forwards to the system's and notes, per
//! thread, the largest size asked.

use std::{
    alloc::{GlobalAlloc, Layout, System},
    cell::Cell,
};

thread_local! {
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

/// The system allocator, noting the largest request of each thread.
pub(crate) struct Noting;

fn note(size: usize) {
    let _ = LARGEST.try_with(|largest| largest.set(largest.get().max(size)));
}

// SAFETY: every call is forwarded to `System` with the same arguments, so the contract of
// each method holds as `System`'s does; `note` only touches a thread-local `Cell` whose
// initialisation is constant (it allocates nothing and registers no destructor).
unsafe impl GlobalAlloc for Noting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: the caller's layout, as given (see the impl's comment).
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by `System` with `layout` (every allocation is).
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: the caller's layout, as given.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size);
        // SAFETY: `ptr` was allocated by `System` with `layout`; the caller's new size.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// Runs `f` and gives what it returned and the largest allocation this thread asked for
/// meanwhile, in bytes.
pub(crate) fn largest_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = LARGEST.with(|largest| largest.replace(0));
    let out = f();
    let during = LARGEST.with(|largest| largest.replace(before));
    (out, during)
}
