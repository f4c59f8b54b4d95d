//! Links the two programs (`agent-hooks` and the `agent-hooks-hook` relay) as
//! position-dependent executables on Linux: an agent starts one of them for every event, and
//! a position-independent one spends most of its start applying its relocations (about
//! 21,000 for `agent-hooks`, each page of pointers written, so copied, at every start). The
//! code is still compiled position-independent, so the plugins and libraries built from the
//! same crates are unchanged, and shared libraries the programs load (plugins) keep their
//! random addresses; the programs' own code sits at a fixed address. `AGENT_HOOKS_PIE=1` at
//! build time keeps the default. Measured in docs/performance.md, section 19.

fn main() {
    println!("cargo:rerun-if-env-changed=AGENT_HOOKS_PIE");
    let linux = std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux");
    if linux && std::env::var_os("AGENT_HOOKS_PIE").is_none() {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
    if linux && std::env::var("CARGO_CFG_TARGET_ENV").as_deref() == Ok("gnu") {
        // The program's own `pow` (src/pow.rs) stays its own: nothing is exported.
        let exports = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("exports.map");
        println!("cargo:rerun-if-changed={}", exports.display());
        println!(
            "cargo:rustc-link-arg-bin=agent-hooks=-Wl,--version-script={}",
            exports.display()
        );
    }
}
