//! The program's own `pow`, so that it does not load `libm` at every start.
//!
//! Nothing in the program computes a power but tokio's multi-threaded scheduler (a weighted
//! average of its tasks' poll times), and that one reference would make the dynamic linker
//! load `libm` into every `agent-hooks` process, each event's included, before `main`: about
//! 110 µs of a start of 1.3 ms here (a C program that links `libm` against one that does
//! not). Defined here, the reference is resolved inside the program and `libm` is not linked
//! at all. The symbol is not exported (an executable's
//! symbols are not, unless asked), so libraries the program loads (plugins) keep `libm`'s.

/// `pow(3)`, as the `libm` crate computes it (a port of musl's, within an ulp).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[no_mangle]
pub extern "C" fn pow(base: f64, exponent: f64) -> f64 {
    libm::pow(base, exponent)
}
