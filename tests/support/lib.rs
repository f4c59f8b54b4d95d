//! Support for the loader test suite: build the plugin libraries a test needs (once per test
//! binary) and lay out files in temporary folders.
//!
//! `cargo test` does not produce the `.so` of a `cdylib` member, nor the programs of a package
//! without integration tests, so the tests build them with the cargo that runs them (cargo has
//! released its build lock by the time tests run), in the same profile, and find the artifacts
//! in cargo's JSON messages. The workspace's plugins and programs come from one build of the
//! whole workspace with its tests (see [`workspace_build`]), which reuses every dependency
//! `cargo test --workspace` built.

use std::{
    collections::HashMap,
    path::{Path, PathBuf},
    process::Command,
    sync::{Arc, Mutex, OnceLock},
};

/// The workspace's root folder.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests package lives in the workspace root")
        .to_path_buf()
}

/// The workspace's target folder (`CARGO_TARGET_DIR` honoured).
pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target"))
}

/// A plugin (sample or fixture) of the main workspace, built once per test binary.
///
/// The `agent-hooks` program, which runs plugin processes, is built with it: discovery loads
/// plugins in processes of their own, and finds the program next to the test binaries.
pub fn plugin(package: &str) -> PathBuf {
    let crate_name = package.replace('-', "_");
    workspace_build()
        .libraries
        .get(&crate_name)
        .cloned()
        .unwrap_or_else(|| panic!("the workspace has no plugin {package}"))
}

/// The `agent-hooks` program, built once per test binary.
pub fn agent_hooks_bin() -> PathBuf {
    workspace_program("agent-hooks")
}

/// The relay `agent-hooks-hook`, built once per test binary next to `agent-hooks` (where
/// `install` finds it and writes it into an agent's entry, as after `cargo install`).
pub fn relay_bin() -> PathBuf {
    workspace_program("agent-hooks-hook")
}

fn workspace_program(name: &str) -> PathBuf {
    workspace_build()
        .programs
        .get(name)
        .cloned()
        .unwrap_or_else(|| panic!("the workspace has no program {name}"))
}

/// What one build of the main workspace made: each plugin's shared library by crate name,
/// each program by name.
struct WorkspaceBuild {
    libraries: HashMap<String, PathBuf>,
    programs: HashMap<String, PathBuf>,
}

/// Every library and program of the main workspace, built once per test binary in one cargo
/// run, with the unit tests of the packages that have dev-dependencies: cargo then resolves
/// the dependencies' features as `cargo test --workspace` did (dev-dependencies included), so
/// every dependency that built is reused and, after it, this build only checks. A build of one
/// package resolves its own features and builds the dependencies again. The tests' own
/// package is left out: its test binaries are what runs this, and it has no dev-dependencies.
/// So is `panic-abort`: its library is built with `panic = "abort"` into the same file (see
/// [`panic_abort_plugin`]), which this build would otherwise build over.
fn workspace_build() -> &'static WorkspaceBuild {
    static BUILT: OnceLock<WorkspaceBuild> = OnceLock::new();
    BUILT.get_or_init(|| {
        let mut command = cargo("build", &workspace_root().join("Cargo.toml"));
        command.args(["--workspace", "--exclude", "agent-hooks-tests"]);
        command.args(["--exclude", "panic-abort"]);
        command.args(["--lib", "--bins", "--tests"]);
        let mut built = WorkspaceBuild {
            libraries: HashMap::new(),
            programs: HashMap::new(),
        };
        for message in cargo_messages(command, "the workspace") {
            if message["reason"] != "compiler-artifact" {
                continue;
            }
            let target = &message["target"];
            let kinds = target["kind"].as_array().cloned().unwrap_or_default();
            let name = target["name"].as_str().unwrap_or_default().to_owned();
            if kinds.iter().any(|k| k == "bin") && message["profile"]["test"] == false {
                if let Some(program) = message["executable"].as_str() {
                    built.programs.insert(name, PathBuf::from(program));
                }
            } else if kinds.iter().any(|k| k == "cdylib") {
                if let Some(library) = shared_library(&message) {
                    built.libraries.insert(name.replace('-', "_"), library);
                }
            }
        }
        built
    })
}

/// The shared library among the files of a `compiler-artifact` message.
fn shared_library(message: &serde_json::Value) -> Option<PathBuf> {
    message["filenames"]
        .as_array()?
        .iter()
        .filter_map(|f| f.as_str().map(PathBuf::from))
        .find(|f| {
            f.extension()
                .is_some_and(|e| e == std::env::consts::DLL_EXTENSION)
        })
}

/// The variables cargo sets for the test binary it runs (the tests package's name, version,
/// folders), which a plain `cargo` invocation does not have.
const PACKAGE_VARIABLES: &[&str] = &[
    "CARGO_MANIFEST_DIR",
    "CARGO_MANIFEST_PATH",
    "CARGO_MANIFEST_LINKS",
    "CARGO_CRATE_NAME",
    "CARGO_BIN_NAME",
    "CARGO_PRIMARY_PACKAGE",
    "CARGO_TARGET_TMPDIR",
    "OUT_DIR",
];

/// The cargo that runs the tests, as a plain invocation has it ([`as_plain_invocation`]).
///
/// It builds with the dev profile of the workspace's manifest (no debug information, unless
/// `CARGO_PROFILE_DEV_DEBUG` says otherwise; dependencies in one unit each) also where the
/// manifest is not the workspace's: the separate workspaces, the 1.0.0 release, a crate
/// `agent-hooks new` writes. Those then share the dependencies the workspace built, and
/// build their own as cheaply. The subcommand comes after.
pub fn cargo_command() -> Command {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    as_plain_invocation(&mut command);
    if std::env::var_os(DEBUG_SETTING).is_none() {
        command.env(DEBUG_SETTING, "false");
    }
    command.args(["--config", DEPENDENCIES_IN_ONE_UNIT]);
    command
}

/// The variable that sets the debug information of the dev profile, which the workspace's
/// manifest sets to none.
const DEBUG_SETTING: &str = "CARGO_PROFILE_DEV_DEBUG";

/// The workspace manifest's setting for its dependencies' code generation.
const DEPENDENCIES_IN_ONE_UNIT: &str = "profile.dev.package.\"*\".codegen-units=1";

/// `command` (cargo, or a script that runs it) without the variables cargo sets for the test
/// binary ([`PACKAGE_VARIABLES`] and `CARGO_PKG_*`). Build scripts that rerun when one of
/// them changes (`ring`'s reads `CARGO_PKG_NAME`, `OUT_DIR`, ...) would otherwise be run
/// again, and every crate above them rebuilt, at each build from a test, and again at the
/// next `cargo` run outside the tests.
pub fn as_plain_invocation(command: &mut Command) -> &mut Command {
    for (name, _) in std::env::vars_os() {
        let package = name
            .to_str()
            .is_some_and(|n| n.starts_with("CARGO_PKG_") || PACKAGE_VARIABLES.contains(&n));
        if package {
            command.env_remove(name);
        }
    }
    command
}

/// `cargo <subcommand>` on `manifest`, into the tests' target folder, with JSON messages, in
/// the profile of the tests.
fn cargo(subcommand: &str, manifest: &Path) -> Command {
    let mut command = cargo_command();
    command
        .arg(subcommand)
        .arg("--manifest-path")
        .arg(manifest)
        .arg("--target-dir")
        .arg(target_dir())
        .arg("--message-format=json-render-diagnostics");
    if !cfg!(debug_assertions) {
        command.arg("--release");
    }
    if manifest != workspace_root().join("Cargo.toml") {
        without_incremental_caches(&mut command);
    }
    command
}

/// `command` (a cargo build of a workspace that is not this one: a separate workspace of the
/// tests, the 1.0.0 release) without incremental caches: nobody edits those crates, and the
/// caches would only be written.
fn without_incremental_caches(command: &mut Command) -> &mut Command {
    command.env("CARGO_INCREMENTAL", "0")
}

/// What `command` (a cargo build with JSON messages) printed, once it succeeded.
fn cargo_messages(mut command: Command, package: &str) -> Vec<serde_json::Value> {
    let output = command.output().expect("cargo runs");
    assert!(
        output.status.success(),
        "building {package} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .collect()
}

/// The program `command` (a `cargo build` with JSON messages) builds.
fn executable(command: Command, package: &str) -> PathBuf {
    cargo_messages(command, package)
        .into_iter()
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .unwrap_or_else(|| panic!("cargo built no program for {package}"))
}

/// `tests/fixtures/abi-history/host-1.0.0`: reads handler results the way a host of
/// interface 1.0.0 does (one `{"event", "result"}` line in, what the host makes of it out).
pub fn host_1_0_0() -> PathBuf {
    cached("host-1.0.0 (bin)", || {
        let manifest = workspace_root().join("tests/fixtures/abi-history/host-1.0.0/Cargo.toml");
        executable(cargo("build", &manifest), "host-1-0-0")
    })
}

/// Every plugin in a plugin process of its own, run by the `agent-hooks` program built for
/// the tests.
pub fn isolated() -> agent_hooks::LoadOptions {
    let mut options = agent_hooks::LoadOptions::isolated();
    options.plugin_host = Some(agent_hooks_bin());
    options
}

/// The `panic-abort` fixture, built with `-C panic=abort` for its own crate.
pub fn panic_abort_plugin() -> PathBuf {
    cached("panic-abort (abort)", || {
        build(
            &[
                "rustc",
                "-p",
                "panic-abort",
                "--lib",
                "--crate-type",
                "cdylib",
                "--",
                "-C",
                "panic=abort",
            ],
            &workspace_root().join("Cargo.toml"),
            "panic-abort",
        )
    })
}

/// A plugin of the `tests/fixtures/foreign` workspace (built against a stand-in interface).
pub fn foreign_plugin(package: &str) -> PathBuf {
    separate_workspace_plugin("tests/fixtures/foreign", package)
}

/// The matrix plugin built against the interface version of `row` of the compatibility
/// matrix (`tests/fixtures/abi-history/<row>`, package `matrix-<row>` with `-` for `.`).
pub fn matrix_plugin(row: &str) -> PathBuf {
    separate_workspace_plugin(
        &format!("tests/fixtures/abi-history/{row}"),
        &format!("matrix-{}", row.replace('.', "-")),
    )
}

/// `package` of the workspace in `folder` (a workspace of its own, sharing the main target
/// folder so that abi_stable and the other dependencies build once).
fn separate_workspace_plugin(folder: &str, package: &str) -> PathBuf {
    cached(&format!("{folder} {package}"), || {
        build(
            &["build", "-p", package],
            &workspace_root().join(folder).join("Cargo.toml"),
            package,
        )
    })
}

/// What `build` makes for `key`, made once per test binary. Each key has its own cell, so a
/// test whose build is done does not wait behind another's (the 1.0.0 host takes minutes);
/// cargo's own lock on a target folder orders the builds that share one.
fn cached(key: &str, build: impl FnOnce() -> PathBuf) -> PathBuf {
    type Cell = Arc<OnceLock<PathBuf>>;
    static BUILT: OnceLock<Mutex<HashMap<String, Cell>>> = OnceLock::new();
    let cell = BUILT
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .entry(key.to_owned())
        .or_default()
        .clone();
    cell.get_or_init(build).clone()
}

fn build(args: &[&str], manifest: &Path, package: &str) -> PathBuf {
    let mut command = cargo(args[0], manifest);
    // After the profile flag: `cargo rustc` passes what follows `--` to rustc.
    command.args(&args[1..]);
    let messages = cargo_messages(command, package);
    let crate_name = package.replace('-', "_");
    messages
        .iter()
        .filter(|m| {
            m["reason"] == "compiler-artifact" && m["target"]["name"] == crate_name.as_str()
        })
        .find_map(shared_library)
        .unwrap_or_else(|| panic!("cargo built no library for {package}"))
}

/// Whether a process is alive: it exists and is not a zombie waiting to be reaped.
pub fn pid_alive(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{}/stat", pid.trim())).is_ok_and(|stat| {
        stat.rsplit_once(") ")
            .is_some_and(|(_, rest)| !rest.starts_with('Z'))
    })
}

/// Waits up to 2 s for every process in `pids` to be gone; returns those still alive.
pub fn survivors<'a>(pids: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let pids: Vec<&str> = pids.into_iter().collect();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
    loop {
        let alive: Vec<String> = pids
            .iter()
            .filter(|p| pid_alive(p))
            .map(|p| p.trim().to_owned())
            .collect();
        if alive.is_empty() || std::time::Instant::now() > deadline {
            return alive;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// The name the test harness gives the test function `name` of the module `module`
/// (`module_path!()` of a file of the test binary: `all::home` and `tilde` give
/// `home::tilde`), for running it again with `--exact`.
pub fn test_name(module: &str, name: &str) -> String {
    match module.split_once("::") {
        Some((_binary, path)) => format!("{path}::{name}"),
        None => name.to_owned(),
    }
}

/// Set in the process of its own that [`alone_in_process`] starts, to the test's name.
const ALONE: &str = "AGENT_HOOKS_TEST_ALONE";

/// For a test that changes what is process-wide (the environment, resource limits), which
/// other tests of the binary, running in parallel threads, would see: true in the process
/// of its own the test runs in; otherwise runs the test there (this same test binary, only
/// that test, `--exact`), asserts that it passed, and returns false. A test starts with
/// `if !alone_in_process(module_path!(), "its_name") { return; }`.
pub fn alone_in_process(module: &str, name: &str) -> bool {
    let test = test_name(module, name);
    if std::env::var_os(ALONE).is_some_and(|alone| alone == test.as_str()) {
        return true;
    }
    let exe = std::env::current_exe().expect("the test binary's path");
    let output = Command::new(exe)
        .args([test.as_str(), "--exact", "--test-threads=1", "--nocapture"])
        .env(ALONE, &test)
        .output()
        .expect("the test binary runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{test}, in a process of its own, failed ({}):\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("1 passed"),
        "{test} did not run in its process of its own:\n{stdout}"
    );
    false
}

/// Every path under `dir` but those `leave_out` names (given relative to `dir`), relative to
/// it and sorted, with each file's text: what a folder holds, to compare before and after.
pub fn tree(dir: &Path, leave_out: impl Fn(&Path) -> bool) -> Vec<(PathBuf, Option<String>)> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(at) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&at) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let relative = path.strip_prefix(dir).expect("under dir").to_path_buf();
            if leave_out(&relative) {
                continue;
            }
            if path.is_dir() {
                found.push((relative, None));
                stack.push(path);
            } else {
                found.push((relative, std::fs::read_to_string(&path).ok()));
            }
        }
    }
    found.sort();
    found
}

/// A temporary folder that other users may enter (the default is private), so that tests
/// may also run the loader as another user.
pub fn temp_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    set_mode(dir.path(), 0o755);
    dir
}

/// Copies `from` into `dir` as `name` and returns the copy's path.
pub fn copy_to(from: &Path, dir: &Path, name: &str) -> PathBuf {
    let to = dir.join(name);
    std::fs::copy(from, &to).expect("copy the plugin");
    to
}

/// Sets a file's permission bits.
pub fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

/// The path as a string, for `load_hooks_in_process`.
pub fn s(path: &Path) -> String {
    path.to_str().expect("test paths are UTF-8").to_owned()
}

/// The messages of a load result's errors, as `(path, message)`.
pub fn errors(result: &agent_hooks::LoadHooksResult) -> Vec<(String, String)> {
    result
        .errors
        .iter()
        .map(|e| (e.path.clone(), e.error.to_string()))
        .collect()
}

/// The paths of a load result's hooks, in order.
pub fn loaded(result: &agent_hooks::LoadHooksResult) -> Vec<String> {
    result.hooks.iter().map(|h| h.path().to_owned()).collect()
}

/// Every outcome of one emit, as `(hook path, outcome)`, in the order the handlers ran.
#[allow(clippy::type_complexity)]
pub fn outcomes<E: agent_hooks::abi::Event>(
    runner: &agent_hooks::HookRunner,
    event: &E,
) -> Vec<(String, Result<Option<E::Output>, agent_hooks::HookError>)> {
    let mut seen = Vec::new();
    runner
        .for_each_handler(event, |hook, outcome| {
            seen.push((hook.path().to_owned(), outcome));
            std::ops::ControlFlow::Continue(())
        })
        .expect("the event serialises");
    seen
}

mod recording;
pub use recording::{RecordingAgent, ScriptedUi};

pub mod cli;
pub mod commands;
pub mod releases;
pub mod rig;
pub mod scripted;
pub mod tls;
pub use recording::ScriptedAgent;

/// A runner over the `scripted-a` and `scripted-b` plugins and the in-process `inproc`
/// hook, attached to a [`ScriptedAgent`] that answers with `script`.
pub fn scripted_runner(
    script: Vec<(&str, serde_json::Value)>,
) -> (agent_hooks::HookRunner, std::sync::Arc<ScriptedAgent>) {
    let dir = temp_dir();
    let loaded = agent_hooks::load_hooks_in_process(
        [s(&plugin("scripted-a")), s(&plugin("scripted-b"))],
        dir.path(),
    );
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    let mut runner = agent_hooks::HookRunner::new(loaded.hooks, dir.path());
    runner
        .add_in_process("inproc", |api| scripted::register_all(api, "inproc"))
        .expect("the in-process hook registers");
    let agent = std::sync::Arc::new(ScriptedAgent::new(script));
    runner.attach(agent.clone());
    (runner, agent)
}

/// The Rust blocks of the README and of every page of the book, compiled (and run, unless
/// marked `no_run`) by `cargo test --doc`: the docs cannot drift from the code. Their shell
/// examples are run by the `docs` module of the test binary.
#[cfg(doctest)]
pub mod book {
    #[doc = include_str!("../../README.md")]
    pub struct Readme;
    #[doc = include_str!("../../docs/README.md")]
    pub struct Book;
    #[doc = include_str!("../../docs/cli.md")]
    pub struct Cli;
    #[doc = include_str!("../../docs/writing-plugins.md")]
    pub struct WritingPlugins;
    #[doc = include_str!("../../docs/compatibility.md")]
    pub struct Compatibility;
    #[doc = include_str!("../../docs/embedding.md")]
    pub struct Embedding;
    #[doc = include_str!("../../docs/command-hooks.md")]
    pub struct CommandHooks;
    #[doc = include_str!("../../docs/events-by-agent.md")]
    pub struct EventsByAgent;
    #[doc = include_str!("../../docs/long-running-hooks.md")]
    pub struct LongRunningHooks;
    #[doc = include_str!("../../docs/discovery-and-trust.md")]
    pub struct DiscoveryAndTrust;
    #[doc = include_str!("../../docs/agents.md")]
    pub struct Agents;
    #[doc = include_str!("../../docs/under-claude-code.md")]
    pub struct UnderClaudeCode;
    #[doc = include_str!("../../docs/claude-code-in-five-minutes.md")]
    pub struct ClaudeCodeInFiveMinutes;
    #[doc = include_str!("../../docs/under-codex-cli.md")]
    pub struct UnderCodexCli;
    #[doc = include_str!("../../docs/under-gemini-cli.md")]
    pub struct UnderGeminiCli;
    #[doc = include_str!("../../docs/under-copilot-cli.md")]
    pub struct UnderCopilotCli;
    #[doc = include_str!("../../docs/under-devin.md")]
    pub struct UnderDevin;
    #[doc = include_str!("../../docs/under-pi.md")]
    pub struct UnderPi;
    #[doc = include_str!("../../docs/under-qwen-code.md")]
    pub struct UnderQwenCode;
    #[doc = include_str!("../../docs/under-opencode.md")]
    pub struct UnderOpenCode;
    #[doc = include_str!("../../docs/under-droid.md")]
    pub struct UnderDroid;
    #[doc = include_str!("../../docs/under-cline.md")]
    pub struct UnderCline;
    #[doc = include_str!("../../docs/resident.md")]
    pub struct Resident;
    #[doc = include_str!("../../docs/decisions.md")]
    pub struct Decisions;
    #[doc = include_str!("../../docs/managed-policy.md")]
    pub struct ManagedPolicy;
    #[doc = include_str!("../../docs/fail-closed.md")]
    pub struct FailClosed;
    #[doc = include_str!("../../docs/keeper.md")]
    pub struct Keeper;
    #[doc = include_str!("../../docs/real-agents.md")]
    pub struct RealAgents;
    #[doc = include_str!("../../docs/performance.md")]
    pub struct Performance;
    #[doc = include_str!("../../docs/architecture.md")]
    pub struct Architecture;
    #[doc = include_str!("../../docs/platforms.md")]
    pub struct Platforms;
    #[doc = include_str!("../../BENCHMARKS.md")]
    pub struct Benchmarks;
}
