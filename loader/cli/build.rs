//! How the two programs (`agent-hooks` and the `agent-hooks-hook` relay) are linked on Linux.
//! An agent starts one of them for every event, so what their start costs is paid per event
//! (docs/performance.md, "What bounds each path"):
//!
//! - **Position-dependent**: a position-independent program spends most of its start
//!   applying its relocations (about 21,000 for `agent-hooks`, each page of pointers written,
//!   so copied, at every start). The code is still compiled position-independent, so the
//!   plugins and libraries built from the same crates are unchanged, and shared libraries the
//!   programs load (plugins) keep their random addresses; the programs' own code sits at a
//!   fixed address. `AGENT_HOOKS_PIE=1` at build time keeps the default.
//! - **Only `libc` loaded** (glibc targets): the unwinder is linked in (`libgcc_eh`, as
//!   Rust's own static builds link it) instead of loading `libgcc_s`, and `agent-hooks` has
//!   its own `pow` (src/pow.rs) instead of loading `libm`; a version script keeps that
//!   symbol inside the program, so the libraries it loads keep `libm`'s. Each library loaded
//!   costs about 100 µs of every start here. Plugins (their own shared libraries) still load
//!   `libgcc_s` and unwind with it; a panic never crosses between a plugin and the program.

fn main() {
    println!("cargo:rerun-if-env-changed=AGENT_HOOKS_PIE");
    let linux = std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux");
    if linux && std::env::var_os("AGENT_HOOKS_PIE").is_none() {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
    if linux && std::env::var("CARGO_CFG_TARGET_ENV").as_deref() == Ok("gnu") {
        // The package's folder as cargo gives it to this run, not as it was when this
        // script was compiled: a build folder reused for the package unpacked elsewhere
        // (`cargo install` from a `.crate`) keeps the compiled script.
        let dir = std::env::var_os("CARGO_MANIFEST_DIR")
            .unwrap_or_else(|| env!("CARGO_MANIFEST_DIR").into());
        let exports = std::path::Path::new(&dir).join("exports.map");
        println!("cargo:rerun-if-changed={}", exports.display());
        println!(
            "cargo:rustc-link-arg-bin=agent-hooks=-Wl,--version-script={}",
            exports.display()
        );
        // Whole: linked before the standard library that needs it, an archive would give
        // nothing, and `libgcc_s` would be loaded after all.
        println!("cargo:rustc-link-lib=static:+whole-archive=gcc_eh");
    }
}
