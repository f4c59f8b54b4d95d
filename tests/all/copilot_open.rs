//! Under Copilot CLI, which denies the tool for any exit but 0 of a `preToolUse` hook, the
//! problems that block nothing elsewhere (exit 1) are exit 0 with the problem on stderr, as
//! Copilot CLI's own hooks fail open: hooks that could not run at all, a payload that could
//! not be read, the relay finding no `agent-hooks` to start. A required hook still fails
//! closed (exit 2). Under Claude Code the same problems stay exit 1.

use std::{
    io::Write,
    path::PathBuf,
    process::{Command, Stdio},
};

use agent_hooks_tests::{
    cli::{run, stderr},
    temp_dir,
};
use serde_json::json;

struct Rig {
    dir: tempfile::TempDir,
}

impl Rig {
    fn new() -> Rig {
        let dir = temp_dir();
        for sub in ["home", "project"] {
            std::fs::create_dir_all(dir.path().join(sub)).unwrap();
        }
        Rig { dir }
    }

    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    fn project(&self) -> PathBuf {
        self.dir.path().join("project")
    }

    /// A guard in the user's hooks folder, `guard.json`.
    fn guard(&self) {
        let dir = self.home().join(".config/agent-hooks/hooks");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("guard.json"),
            r#"{"PreToolUse": [{"hooks": [{"type": "command", "command": "exit 0"}]}]}"#,
        )
        .unwrap();
    }

    /// `agent-hooks hook [OPTIONS...] --agent AGENT --no-serve [AFTER...]` with `payload`.
    fn hook(
        &self,
        options: &[&str],
        agent: &str,
        after: &[&str],
        payload: &str,
    ) -> std::process::Output {
        let mut args: Vec<&str> = vec!["hook"];
        args.extend_from_slice(options);
        args.extend(["--agent", agent, "--no-serve"]);
        args.extend_from_slice(after);
        run(&self.project(), &self.home(), &args, Some(payload))
    }
}

/// A preToolUse payload as Copilot CLI writes it.
fn copilot_pre(rig: &Rig) -> String {
    json!({"timestamp": 1_700_000_000_000_u64, "cwd": rig.project(), "toolName": "bash",
        "toolArgs": {"command": "ls"}})
    .to_string()
}

#[test]
fn an_unreadable_payload_fails_open_under_copilot_cli_unless_a_hook_is_required() {
    let rig = Rig::new();
    let out = rig.hook(&[], "copilot", &["--event", "preToolUse"], "not json");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("hooks did not run"),
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("Copilot CLI goes on without them"),
        "{}",
        stderr(&out)
    );
    // Under Claude Code the same is its non-blocking error.
    let out = rig.hook(&[], "claude", &[], "not json");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    // A required hook fails closed under Copilot CLI too.
    rig.guard();
    let out = rig.hook(
        &["--require", "guard.json"],
        "copilot",
        &["--event", "preToolUse"],
        "not json",
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("required hook guard.json could not run"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn hooks_that_could_not_run_fail_open_under_copilot_cli_unless_one_is_required() {
    let rig = Rig::new();
    let missing = rig.dir.path().join("no-such-folder");
    let missing = missing.to_str().unwrap();
    let out = rig.hook(
        &["--cwd", missing],
        "copilot",
        &["--event", "preToolUse"],
        &copilot_pre(&rig),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("hooks did not run") && stderr(&out).contains("no such folder"),
        "{}",
        stderr(&out)
    );
    let out = rig.hook(&["--cwd", missing], "claude", &[], "{}");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let out = rig.hook(
        &["--cwd", missing, "--require", "guard.json"],
        "copilot",
        &["--event", "preToolUse"],
        &copilot_pre(&rig),
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("Blocked by agent-hooks")
            && stderr(&out).contains("required hook guard.json could not run"),
        "{}",
        stderr(&out)
    );
}

/// The relay `agent-hooks-hook`, built next to `agent-hooks`, copied alone into a folder.
fn lone_relay(rig: &Rig) -> PathBuf {
    let built = agent_hooks_tests::relay_bin();
    let lone = rig.dir.path().join("bin/agent-hooks-hook");
    std::fs::create_dir_all(lone.parent().unwrap()).unwrap();
    std::fs::copy(&built, &lone).unwrap();
    lone
}

/// With exit 0 under Copilot CLI (any other exit denies the tool), Factory Droid (which shows
/// the stderr of an exit 1 to the model) and Cline; with 1 elsewhere.
#[test]
fn the_relay_with_no_agent_hooks_to_start_fails_open_as_each_agent_s_own_hooks_do() {
    let rig = Rig::new();
    let relay = lone_relay(&rig);
    let relay_run = |agent: &str| {
        // `--no-serve` is for agent-hooks: the relay starts it, and there is none, next to
        // it or on the PATH.
        let mut child = Command::new(&relay)
            .args(["--agent", agent, "--no-serve"])
            .current_dir(rig.project())
            .env("HOME", rig.home())
            .env("PATH", rig.dir.path().join("bin"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let _ = child
            .stdin
            .take()
            .unwrap()
            .write_all(copilot_pre(&rig).as_bytes());
        child.wait_with_output().unwrap()
    };
    for (agent, code) in [("copilot", 0), ("droid", 0), ("cline", 0), ("claude", 1)] {
        let out = relay_run(agent);
        assert_eq!(out.status.code(), Some(code), "{agent}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("hooks did not run") && stderr(&out).contains("could not start"),
            "{agent}: {}",
            stderr(&out)
        );
    }
}
