//! Support for command-hook tests: a project folder with hooks files and scripts, and a
//! runner that records every report and error.

use std::{
    path::{Path, PathBuf},
    sync::{Arc, Mutex},
};

use agent_hooks::{
    command_hook::{CommandHookReport, CommandHooks},
    HookError, HookErrorKind, HookRunner,
};

use crate::{set_mode, temp_dir, RecordingAgent};

/// A temporary project folder; its path contains a space when asked.
pub struct Project {
    _dir: tempfile::TempDir,
    /// The project's root.
    pub root: PathBuf,
}

impl Project {
    /// A fresh project; `name` is its folder's name (e.g. `"my project"`).
    pub fn new(name: &str) -> Self {
        let dir = temp_dir();
        let root = dir.path().join(name);
        std::fs::create_dir_all(&root).expect("create the project");
        Self { _dir: dir, root }
    }

    /// `agent-hooks emit EVENT --trust-project --json --input INPUT` in the project, with a
    /// home of its own: the outcome, as JSON.
    pub fn emit(&self, event: &str, input: serde_json::Value) -> serde_json::Value {
        let home = temp_dir();
        let out = crate::cli::run(
            &self.root,
            home.path(),
            &[
                "emit",
                event,
                "--trust-project",
                "--json",
                "--input",
                &input.to_string(),
            ],
            None,
        );
        crate::cli::json_of(&out)
    }

    /// Writes `text` to `relative` in the project (folders made as needed).
    pub fn write(&self, relative: &str, text: &str) -> PathBuf {
        let path = self.root.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create the folder");
        }
        std::fs::write(&path, text).expect("write the file");
        path
    }

    /// Writes an executable script.
    pub fn script(&self, relative: &str, text: &str) -> PathBuf {
        let path = self.write(relative, text);
        set_mode(&path, 0o755);
        path
    }

    /// Reads a file of the project, or "" when it does not exist.
    pub fn read(&self, relative: &str) -> String {
        std::fs::read_to_string(self.root.join(relative)).unwrap_or_default()
    }
}

/// A runner over the command hooks of `files`, with what it reported.
pub struct CommandRig {
    /// The runner.
    pub runner: Arc<HookRunner>,
    /// The agent attached to it.
    pub agent: Arc<RecordingAgent>,
    /// Every command-hook report, in order.
    pub reports: Arc<Mutex<Vec<CommandHookReport>>>,
    /// Every hook error.
    pub errors: Arc<Mutex<Vec<HookError>>>,
}

impl CommandRig {
    /// Loads `files` (hooks files) for a project at `root`; asserts they have no problems.
    pub fn new(root: &Path, files: &[PathBuf]) -> Self {
        let mut hooks = CommandHooks::new();
        for file in files {
            hooks.load_file(file);
        }
        assert!(hooks.issues().is_empty(), "{:?}", hooks.issues());
        Self::with_hooks(root, hooks, HookRunner::new(Vec::new(), root))
    }

    /// Adds `hooks` to `runner` and attaches a recording agent.
    pub fn with_hooks(_root: &Path, hooks: CommandHooks, mut runner: HookRunner) -> Self {
        runner.add_command_hooks(hooks);
        let agent = Arc::new(RecordingAgent::default());
        runner.attach(agent.clone());
        let reports = Arc::new(Mutex::new(Vec::new()));
        let sink = reports.clone();
        runner.on_command_hook(move |r| sink.lock().unwrap().push(r.clone()));
        let errors = Arc::new(Mutex::new(Vec::new()));
        let sink = errors.clone();
        runner.on_error(move |e| sink.lock().unwrap().push(e.clone()));
        Self {
            runner: Arc::new(runner),
            agent,
            reports,
            errors,
        }
    }

    /// The kinds of the errors so far.
    pub fn error_kinds(&self) -> Vec<HookErrorKind> {
        self.errors
            .lock()
            .unwrap()
            .iter()
            .map(|e| e.kind.clone())
            .collect()
    }

    /// The messages of the errors so far.
    pub fn error_messages(&self) -> Vec<String> {
        self.errors
            .lock()
            .unwrap()
            .iter()
            .map(|e| e.message.clone())
            .collect()
    }
}
