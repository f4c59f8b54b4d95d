//! The rig of the tests that run the `agent-hooks` program as an agent would (`hook`,
//! `install`, `uninstall`, `serve`): a private home and project folder in one temporary
//! folder, and the program run in the project with that home. Two ways to call `hook`, each
//! a trait: [`AgentHook`] (the program answering by itself, as [`cli::run`] runs it) and
//! [`Resident`] (through the resident process, with the environment that lets it start).

use std::{
    path::{Path, PathBuf},
    process::{Command, Output},
};

use crate::{agent_hooks_bin, cli::run, temp_dir};

/// A home (`home/`) and a project (`project/`) in a temporary folder, removed with it. When
/// dropped it also removes the socket of any resident process started with this home, so
/// that the process ends.
pub struct Rig {
    dir: tempfile::TempDir,
}

impl Rig {
    /// A home with an empty agent-hooks hooks folder (`~/.config/agent-hooks/hooks`), and an
    /// empty project. The program is built first (once per test binary), so that what a test
    /// times from then on is the program's run, not the wait for its build.
    pub fn new() -> Rig {
        agent_hooks_bin();
        let dir = temp_dir();
        for sub in ["home/.config/agent-hooks/hooks", "project"] {
            std::fs::create_dir_all(dir.path().join(sub)).expect("create a rig folder");
        }
        Rig { dir }
    }

    /// The temporary folder that holds `home/` and `project/`.
    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// The home folder.
    pub fn home(&self) -> PathBuf {
        self.root().join("home")
    }

    /// The project folder, where the program runs.
    pub fn project(&self) -> PathBuf {
        self.root().join("project")
    }

    /// The user's agent-hooks hooks folder (`~/.config/agent-hooks/hooks`), made if missing.
    pub fn user_hooks(&self) -> PathBuf {
        let dir = self.home().join(".config/agent-hooks/hooks");
        std::fs::create_dir_all(&dir).expect("create the user's hooks folder");
        dir
    }

    /// A hooks file of the user's (`every-event.json`) with a hook that answers nothing
    /// (`true`) on every event `install --agent agent` can wire (by Claude Code's names, or
    /// another agent's where agent-hooks takes them as aliases), so
    /// that `install` wires them all (it wires only the events some hook uses, and
    /// `SessionStart`). Gives the file.
    pub fn hooks_on_every_event(&self, agent: &str) -> PathBuf {
        let agent: agent_hooks::agents::Agent = agent.parse().expect("an agent's name");
        let hooks: serde_json::Map<String, serde_json::Value> = agent
            .profile()
            .installed_events
            .iter()
            .map(|event| agent.claude_event_name(event))
            .filter(|event| {
                event
                    .parse::<agent_hooks::command_hook::CommandEvent>()
                    .is_ok()
            })
            .map(|event| {
                (
                    event.to_owned(),
                    serde_json::json!([{"hooks": [{"type": "command", "command": "true"}]}]),
                )
            })
            .collect();
        let path = self.user_hooks().join("every-event.json");
        std::fs::write(&path, serde_json::json!({ "hooks": hooks }).to_string())
            .expect("write a file");
        path
    }

    /// Writes `text` to `relative` (below [`root`](Self::root)), making its folders.
    pub fn write(&self, relative: &str, text: &str) -> PathBuf {
        let path = self.root().join(relative);
        std::fs::create_dir_all(path.parent().expect("a file has a folder"))
            .expect("create a folder");
        std::fs::write(&path, text).expect("write a file");
        path
    }

    /// The resident process's folder (its socket and `serve.log`) for this home, once a
    /// `hook` call made it (`XDG_RUNTIME_DIR` unset: under the home's cache).
    pub fn resident_folder(&self) -> PathBuf {
        let run = self.home().join(".cache/agent-hooks/run");
        std::fs::read_dir(&run)
            .expect("the resident process's folders")
            .next()
            .expect("a folder for the user")
            .expect("its entry")
            .path()
    }

    /// The program with `args`, as [`cli::run`] runs it (no stdin).
    pub fn run(&self, args: &[&str]) -> Output {
        run(&self.project(), &self.home(), args, None)
    }

    /// The program with `args` and `stdin`, as [`cli::run`] runs it.
    pub fn run_with(&self, args: &[&str], stdin: &str) -> Output {
        run(&self.project(), &self.home(), args, Some(stdin))
    }
}

impl Default for Rig {
    fn default() -> Rig {
        Rig::new()
    }
}

impl Drop for Rig {
    fn drop(&mut self) {
        // The resident process ends when its socket is removed.
        if let Ok(run) = std::fs::read_dir(self.home().join(".cache/agent-hooks/run")) {
            for entry in run.flatten() {
                let _ = std::fs::remove_file(entry.path().join("serve.sock"));
            }
        }
    }
}

/// `hook` as an agent runs it, the program answering by itself unless it finds a resident
/// process ([`cli::run`]: `NO_COLOR`, no panic reaches the user).
pub trait AgentHook {
    /// `agent-hooks hook --agent AGENT EXTRA...` with `payload` on stdin.
    fn hook(&self, agent: &str, extra: &[&str], payload: &str) -> Output;
}

impl AgentHook for Rig {
    fn hook(&self, agent: &str, extra: &[&str], payload: &str) -> Output {
        let mut args = vec!["hook", "--agent", agent];
        args.extend_from_slice(extra);
        self.run_with(&args, payload)
    }
}

/// The program as the resident process's tests run it: the home's folders only
/// (`XDG_CONFIG_HOME` and `XDG_RUNTIME_DIR` unset), the resident process allowed
/// (`AGENT_HOOKS_NO_SERVE` unset) and kept 60 s when idle.
pub trait Resident {
    /// The program with `args`, not started.
    fn command(&self, args: &[&str]) -> Command;
    /// `hook --agent claude` with `payload` on stdin.
    fn hook(&self, payload: &str) -> Output;
    /// The relay program `agent-hooks-hook --agent claude` as an agent runs it, in the same
    /// environment as [`command`](Self::command), not started.
    fn relay(&self) -> Command;
}

impl Resident for Rig {
    fn command(&self, args: &[&str]) -> Command {
        resident_env(Command::new(agent_hooks_bin()), self, args)
    }

    fn relay(&self) -> Command {
        resident_env(
            Command::new(crate::relay_bin()),
            self,
            &["--agent", "claude"],
        )
    }

    fn hook(&self, payload: &str) -> Output {
        crate::cli::output_with(&mut self.command(&["hook", "--agent", "claude"]), payload)
    }
}

/// `command` with `args`, in the rig's project, as the resident process's tests run the
/// program: the home's folders only (`XDG_CONFIG_HOME` and `XDG_RUNTIME_DIR` unset), the
/// resident process allowed (`AGENT_HOOKS_NO_SERVE` unset) and kept 60 s when idle.
fn resident_env(mut command: Command, rig: &Rig, args: &[&str]) -> Command {
    command
        .args(args)
        .current_dir(rig.project())
        .env("HOME", rig.home())
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_STATE_HOME")
        .env_remove("XDG_RUNTIME_DIR")
        .env_remove("AGENT_HOOKS_NO_SERVE")
        .env("AGENT_HOOKS_SERVE_IDLE", "60");
    command
}
