//! Which program runs plugin processes, and the keeper: the agent's own program when it
//! serves them, else the `agent-hooks` command.

use std::{
    path::{Path, PathBuf},
    sync::atomic::{AtomicBool, Ordering},
};

/// Names the plugin-host program, overriding the default lookup.
pub const PLUGIN_HOST_ENV: &str = "AGENT_HOOKS_PLUGIN_HOST";

/// The program's file name next to the agent: the `agent-hooks` command.
const PROGRAM: &str = "agent-hooks";

/// Whether this program serves plugin processes itself (it called
/// `serve_if_plugin_process` at start).
pub(crate) static SELF_SERVES: AtomicBool = AtomicBool::new(false);

/// The program that runs plugin processes: `explicit`, else `$AGENT_HOOKS_PLUGIN_HOST`, else
/// this program if it serves them, else `agent-hooks` next to this program (or one folder
/// up, for test binaries in cargo's `deps/`).
pub(crate) fn plugin_host_program(explicit: Option<&Path>) -> Result<PathBuf, String> {
    if let Some(path) = explicit {
        return Ok(path.to_path_buf());
    }
    if let Some(path) = std::env::var_os(PLUGIN_HOST_ENV).filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(path));
    }
    let exe =
        std::env::current_exe().map_err(|e| format!("cannot tell which program this is ({e})"))?;
    if SELF_SERVES.load(Ordering::Relaxed) {
        return Ok(exe);
    }
    beside(&exe)
}

/// `agent-hooks` next to `exe` (or one folder up), or the error that says what to do.
fn beside(exe: &Path) -> Result<PathBuf, String> {
    let name = format!("{PROGRAM}{}", std::env::consts::EXE_SUFFIX);
    let folder = exe.parent();
    folder
        .into_iter()
        .chain(folder.and_then(Path::parent))
        .map(|f| f.join(&name))
        .find(|candidate| candidate.is_file())
        .ok_or_else(|| {
            format!(
                "no program to run plugin processes: add `agent_hooks::isolation::serve_if_plugin_process();` as the first line of the agent's main (or install the agent-hooks command beside {}, set {PLUGIN_HOST_ENV}, or load plugins you trust with load_hooks_in_process)",
                exe.display()
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A host that never called `serve_if_plugin_process` works with the command beside it,
    /// and without it is told the one line to add.
    #[test]
    fn without_a_program_the_error_names_the_line_to_add() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let exe = dir.path().join("deps/my-agent");
        std::fs::create_dir_all(exe.parent().unwrap()).unwrap();
        let error = beside(&exe).unwrap_err();
        assert!(
            error.starts_with("no program to run plugin processes: add `agent_hooks::isolation::serve_if_plugin_process();` as the first line of the agent's main"),
            "{error}"
        );
        let program = dir.path().join("agent-hooks");
        std::fs::write(&program, "").unwrap();
        assert_eq!(beside(&exe), Ok(program));
    }
}
