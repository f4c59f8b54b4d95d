//! agent-hooks' status line in a real, interactive Claude Code session: `install
//! --status-line` wires it, Claude Code draws it below the prompt (read from its screen in
//! a terminal multiplexer), and after a guard blocks the model's command the line shows the
//! block; nothing of the line reaches the model.

use std::{
    process::Command,
    time::{Duration, Instant},
};

use serde_json::json;

use super::{
    agents::{self, agent_hooks, Agent, Run},
    model,
};

/// The model's key, approved in Claude Code's state so that it does not ask.
const KEY: &str = "sk-ant-fake";

/// A private tmux server for one run.
struct Screen {
    socket: String,
}

impl Screen {
    /// Starts `command` (a shell command line) in a detached session 200 columns wide.
    fn start(run: &Run, command: &str) -> Screen {
        let socket = run.path("tmux.sock").to_string_lossy().into_owned();
        let status = Command::new("tmux")
            .args([
                "-S",
                &socket,
                "new-session",
                "-d",
                "-s",
                "agent",
                "-x",
                "200",
                "-y",
                "50",
            ])
            .arg(command)
            .status()
            .expect("tmux runs (it draws Claude Code's interactive screen for this test)");
        assert!(status.success(), "tmux could not start the session");
        Screen { socket }
    }

    /// What the screen shows now.
    fn text(&self) -> String {
        let output = Command::new("tmux")
            .args(["-S", &self.socket, "capture-pane", "-p", "-t", "agent"])
            .output()
            .expect("tmux runs");
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// Waits up to `limit` for the screen to show what `seen` accepts, and gives it.
    fn wait_for(&self, limit: Duration, what: &str, seen: impl Fn(&str) -> bool) -> String {
        let started = Instant::now();
        loop {
            let text = self.text();
            if seen(&text) {
                return text;
            }
            assert!(
                started.elapsed() < limit,
                "the screen never showed {what}; it shows:\n{text}"
            );
            std::thread::sleep(Duration::from_millis(250));
        }
    }

    fn keys(&self, keys: &[&str]) {
        let status = Command::new("tmux")
            .args(["-S", &self.socket, "send-keys", "-t", "agent"])
            .args(keys)
            .status()
            .expect("tmux runs");
        assert!(status.success());
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-S", &self.socket, "kill-server"])
            .status();
    }
}

/// The status line as the screen shows it.
fn status_line(text: &str) -> Option<&str> {
    text.lines()
        .map(str::trim)
        .find(|l| l.starts_with("agent-hooks: "))
}

#[test]
#[ignore = "runs the real Claude Code: tests/real-agents/run"]
fn claude_code_shows_agent_hooks_status_line_and_the_last_block_in_it() {
    agent_hooks_tests::relay_bin();
    let install = agents::install_dir();
    let model =
        model::FakeModel::start("git push --force origin main; echo ran >> side-effect.txt");
    let run = Run::new();
    agents::configure(Agent::Claude, &run, model.port(), &json!({}));
    let settings = run.home().join(".claude/settings.json");
    let installed = agent_hooks(&run, &["install", "--agent", "claude", "--status-line"]);
    let said = String::from_utf8_lossy(&installed.stdout);
    assert!(
        said.contains("Claude Code shows agent-hooks' status line"),
        "{said}"
    );
    run.write(
        "home/.config/agent-hooks/hooks/guard.json",
        r#"{"hooks": {"PreToolUse": [{"matcher": "exec", "hooks": [{"type": "command",
            "command": "grep -q 'push --force' && { echo 'no force pushes' >&2; exit 2; }; exit 0"}]}]}}"#,
    );
    // Installing again wires the guard's event (install wires the events hooks use).
    agent_hooks(&run, &["install", "--agent", "claude", "--status-line"]);
    // Claude Code's state: onboarding done, the key approved, the project trusted.
    let project = run.project().to_string_lossy().into_owned();
    run.write(
        "home/.claude.json",
        &json!({"hasCompletedOnboarding": true, "theme": "dark",
            "customApiKeyResponses": {"approved": [KEY], "rejected": []},
            "projects": {project.clone(): {"hasTrustDialogAccepted": true,
                "hasCompletedProjectOnboarding": true}}})
        .to_string(),
    );
    let claude = install.join("node_modules/.bin/claude");
    let command = format!(
        "cd '{project}' && exec env -i PATH=/usr/bin:/bin HOME='{home}' TMPDIR='{tmp}' TERM=xterm-256color \
         ANTHROPIC_BASE_URL=http://127.0.0.1:{port} ANTHROPIC_API_KEY={KEY} IS_SANDBOX=1 \
         CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 DISABLE_TELEMETRY=1 \
         DISABLE_ERROR_REPORTING=1 '{claude}' --permission-mode default",
        home = run.home().display(),
        tmp = run.path("tmp").display(),
        port = model.port(),
        claude = claude.display(),
    );
    let screen = Screen::start(&run, &command);
    // The line is drawn once the session has started (its SessionStart started the
    // resident process, which serves the session's one hook).
    screen.wait_for(Duration::from_secs(60), "the prompt", |t| t.contains('❯'));
    screen.keys(&["run the command", "Enter"]);
    let text = screen.wait_for(
        Duration::from_secs(90),
        "the block in agent-hooks' status line",
        |t| status_line(t).is_some_and(|l| l.contains("Bash: no force pushes")),
    );
    let line = status_line(&text).unwrap_or_default();
    assert!(
        line.starts_with("agent-hooks: 1 hook · last block "),
        "{line}\n{text}"
    );
    // The guard blocked the command: it did not run, and the model was told why.
    assert!(!run.project().join("side-effect.txt").exists());
    let told: Vec<String> = model
        .requests()
        .iter()
        .map(|r| r.body.to_string())
        .collect();
    assert!(
        told.iter().any(|t| t.contains("no force pushes")),
        "{told:?}"
    );
    // The status line is the user's alone.
    assert!(
        !told.iter().any(|t| t.contains("agent-hooks: ")),
        "{told:?}"
    );
    drop(screen);
    agent_hooks(&run, &["uninstall", "--agent", "claude"]);
    let after = std::fs::read_to_string(&settings).unwrap_or_default();
    assert!(!after.contains("statusLine"), "{after}");
}
