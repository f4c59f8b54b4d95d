//! Codex's and Gemini CLI's own files under the real agents, and the same files through
//! agent-hooks: Codex's `config.toml` hooks and its review of them by hash (asked of the
//! real Codex through `codex app-server`, which lists each hook's key, hash and trust),
//! and a Gemini CLI extension's `sequential` group in a real Gemini CLI session.

use std::{
    io::{BufRead, BufReader, Write},
    path::Path,
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use serde_json::{json, Value};

use super::{
    agent_hooks,
    agents::{self, Agent, Run},
    model,
};

/// The skillsaw project's `.codex/config.toml` (tests/fixtures/dialects).
fn skillsaw_config() -> String {
    std::fs::read_to_string(
        agent_hooks_tests::workspace_root()
            .join("tests/fixtures/dialects/codex-config-hooks-clean/.codex/config.toml"),
    )
    .expect("fixture")
}

/// What `codex app-server` lists for `cwd`: each hook's key, current hash and trust status.
fn codex_lists(install: &Path, run: &Run) -> Vec<(String, String, String)> {
    let mut child = Command::new(install.join("node_modules/.bin/codex"))
        .arg("app-server")
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", run.home())
        .env("TMPDIR", run.path("tmp"))
        .current_dir(run.project())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("codex app-server starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let project = run.project().display().to_string();
    for message in [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"clientInfo": {"name": "agent-hooks-tests", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "hooks/list", "params": {"cwds": [project]}}),
    ] {
        writeln!(stdin, "{message}").expect("write to codex app-server");
    }
    // Bounded: the reader thread ends with the process, killed below at the latest.
    let stdout = child.stdout.take().expect("stdout");
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Ok(value) = serde_json::from_str::<Value>(&line) {
                if value["id"] == 2 {
                    let _ = send.send(value);
                    return;
                }
            }
        }
    });
    let started = Instant::now();
    let answer = receive.recv_timeout(Duration::from_secs(30));
    let _ = child.kill();
    let _ = child.wait();
    let answer = answer.unwrap_or_else(|_| {
        panic!(
            "codex app-server gave no hooks/list answer in {:?}",
            started.elapsed()
        )
    });
    answer["result"]["data"][0]["hooks"]
        .as_array()
        .unwrap_or_else(|| panic!("no hooks in {answer}"))
        .iter()
        .map(|h| {
            let text = |key: &str| h[key].as_str().unwrap_or_default().to_owned();
            (text("key"), text("currentHash"), text("trustStatus"))
        })
        .collect()
}

/// The hashes agent-hooks gives the skillsaw file's two hooks, as Codex keys them.
fn agent_hooks_hashes(run: &Run) -> Vec<(String, String)> {
    let file = run.project().join(".codex/config.toml");
    let file = file.display();
    vec![
        (
            format!("{file}:pre_tool_use:0:0"),
            agent_hooks::discover::codex_hook_hash(
                "pre_tool_use",
                Some("shell"),
                &json!({"type": "command", "command": "./scripts/audit-shell.sh", "timeout": 15}),
            )
            .expect("a hash"),
        ),
        (
            format!("{file}:session_start:0:0"),
            agent_hooks::discover::codex_hook_hash(
                "session_start",
                None,
                &json!({"type": "command", "command": "./scripts/warm-fixtures.sh", "timeout": 20, "statusMessage": "Warming reconciliation fixtures"}),
            )
            .expect("a hash"),
        ),
    ]
}

#[test]
#[ignore = "needs the real agents: tests/real-agents/run"]
fn codex_trusts_a_config_toml_hook_by_the_hash_agent_hooks_gives_it_and_so_does_agent_hooks() {
    let install = agents::install_dir();
    let run = Run::new();
    let config = skillsaw_config();
    run.write("project/.codex/config.toml", &config);
    let hashes = agent_hooks_hashes(&run);
    let mut user = format!(
        "check_for_update_on_startup = false\n\n[analytics]\nenabled = false\n\n[projects.\"{}\"]\ntrust_level = \"trusted\"\n",
        run.project().display()
    );
    for (key, hash) in &hashes {
        user.push_str(&format!(
            "\n[hooks.state.\"{key}\"]\ntrusted_hash = \"{hash}\"\n"
        ));
    }
    run.write("home/.codex/config.toml", &user);

    // Codex: both hooks trusted, with the hashes agent-hooks computed.
    let mut listed = codex_lists(&install, &run);
    listed.sort();
    let mut expected: Vec<(String, String, String)> = hashes
        .iter()
        .map(|(k, h)| (k.clone(), h.clone(), "trusted".to_owned()))
        .collect();
    expected.sort();
    assert_eq!(listed, expected, "codex app-server listed these hooks");
    // agent-hooks: the project file runs without `agent-hooks trust`.
    let report: Value =
        serde_json::from_slice(&agent_hooks(&run, &["list", "--json"]).stdout).expect("JSON");
    assert_eq!(
        report["hooks"].as_array().map(Vec::len),
        Some(2),
        "{report}"
    );
    assert_eq!(report["untrusted"], json!([]), "{report}");

    // Changed: Codex says modified, agent-hooks no longer trusts the file.
    run.write(
        "project/.codex/config.toml",
        &config.replace("audit-shell.sh\"", "audit-shell.sh --all\""),
    );
    let statuses: Vec<String> = codex_lists(&install, &run)
        .into_iter()
        .map(|(key, _, status)| format!("{}={status}", key.rsplit(':').nth(2).unwrap_or("")))
        .collect();
    assert!(
        statuses.contains(&"pre_tool_use=modified".to_owned()),
        "{statuses:?}"
    );
    let report: Value =
        serde_json::from_slice(&agent_hooks(&run, &["list", "--json"]).stdout).expect("JSON");
    assert_eq!(report["hooks"], json!([]), "{report}");
    assert_eq!(
        report["untrusted"].as_array().map(Vec::len),
        Some(1),
        "{report}"
    );
}

#[test]
#[ignore = "needs the real agents: tests/real-agents/run"]
fn codex_runs_a_config_toml_hook_and_agent_hooks_runs_it_alike() {
    let install = agents::install_dir();
    let model = model::FakeModel::start("echo ran > side-effect.txt");
    let run = Run::new();
    agents::configure(Agent::Codex, &run, model.port(), &json!({}));
    let marker = run.project().join("hook-stdin.jsonl");
    let config = std::fs::read_to_string(run.home().join(".codex/config.toml")).expect("config");
    // The hook blocks the shell call with a reason on stderr, and records its stdin.
    let hook = format!(
        "\n[[hooks.PreToolUse]]\nmatcher = \"Bash\"\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"cat >> '{}'; echo 'blocked by config.toml' >&2; exit 2\"\ntimeout = 20\n",
        marker.display()
    );
    run.write("home/.codex/config.toml", &format!("{config}{hook}"));
    let outcome = agents::launch(Agent::Codex, &install, &run, model.port());
    let told: String = model
        .requests()
        .iter()
        .map(|r| r.body.to_string())
        .collect();
    let recorded = std::fs::read_to_string(&marker).unwrap_or_default();
    assert_eq!(
        recorded.lines().count(),
        1,
        "Codex ran the config.toml hook once\n{}",
        outcome.describe()
    );
    assert!(
        !run.project().join("side-effect.txt").exists(),
        "Codex blocked the call"
    );
    assert!(
        told.contains("blocked by config.toml"),
        "the model was told why"
    );
    let payload: Value = serde_json::from_str(recorded.trim()).expect("the hook's stdin");
    assert_eq!(payload["tool_name"], "Bash");

    // The same file through agent-hooks: listed as Codex's, and it blocks the same call.
    std::fs::remove_file(&marker).expect("remove");
    let emitted = Command::new(agent_hooks_tests::agent_hooks_bin())
        .args([
            "emit",
            "PreToolUse",
            "--input",
            r#"{"tool_name": "exec", "tool_input": {"command": "echo ran > side-effect.txt"}}"#,
            "--json",
        ])
        .current_dir(run.project())
        .env("HOME", run.home())
        .env_remove("XDG_CONFIG_HOME")
        .output()
        .expect("agent-hooks runs");
    let emitted: Value = serde_json::from_slice(&emitted.stdout).expect("JSON");
    assert_eq!(emitted["block"], true, "{emitted}");
    assert!(
        emitted["reason"]
            .as_str()
            .unwrap_or_default()
            .contains("blocked by config.toml"),
        "{emitted}"
    );
    let payload: Value =
        serde_json::from_str(std::fs::read_to_string(&marker).unwrap_or_default().trim())
            .expect("the hook's stdin under agent-hooks");
    assert_eq!(payload["tool_name"], "Bash");
}

#[test]
#[ignore = "needs the real agents: tests/real-agents/run"]
fn gemini_cli_runs_an_extension_s_sequential_group_in_order_and_so_does_agent_hooks() {
    let install = agents::install_dir();
    let model = model::FakeModel::start("echo original > side-effect.txt");
    let run = Run::new();
    agents::configure(Agent::Gemini, &run, model.port(), &json!({}));
    let extension = run.home().join(".gemini/extensions/ordered");
    let log = run.project().join("order.log");
    let second = run.project().join("second.json");
    run.write(
        "home/.gemini/extensions/ordered/gemini-extension.json",
        r#"{"name": "ordered", "version": "1.0.0"}"#,
    );
    let first = format!(
        "#!/bin/sh\ncat > /dev/null\nsleep 0.3\necho first >> '{}'\necho '{{\"hookSpecificOutput\": {{\"hookEventName\": \"BeforeTool\", \"tool_input\": {{\"command\": \"echo rewritten > side-effect.txt\"}}}}}}'\n",
        log.display()
    );
    let last = format!(
        "#!/bin/sh\ncat > '{}'\necho second >> '{}'\n",
        second.display(),
        log.display()
    );
    for (name, text) in [("first.sh", first), ("second.sh", last)] {
        let path = run.write(&format!("home/.gemini/extensions/ordered/{name}"), &text);
        agent_hooks_tests::set_mode(&path, 0o755);
    }
    run.write(
        "home/.gemini/extensions/ordered/hooks/hooks.json",
        r#"{"hooks": {"BeforeTool": [{"matcher": "run_shell_command", "sequential": true, "hooks": [
            {"name": "first", "type": "command", "command": "${extensionPath}${/}first.sh"},
            {"name": "second", "type": "command", "command": "${extensionPath}${/}second.sh"}
        ]}]}}"#,
    );
    let outcome = agents::launch(Agent::Gemini, &install, &run, model.port());
    let side_effect = std::fs::read_to_string(run.project().join("side-effect.txt"));
    assert_eq!(
        std::fs::read_to_string(&log).unwrap_or_default(),
        "first\nsecond\n",
        "Gemini CLI ran the extension's hooks one after the other\n{}",
        outcome.describe()
    );
    let seen: Value =
        serde_json::from_str(&std::fs::read_to_string(&second).unwrap_or_default()).expect("stdin");
    assert_eq!(
        seen["tool_input"]["command"], "echo rewritten > side-effect.txt",
        "the second hook got the first one's rewrite"
    );
    assert_eq!(side_effect.ok().as_deref(), Some("rewritten\n"));

    // The same extension through agent-hooks.
    std::fs::remove_file(&log).expect("remove");
    std::fs::remove_file(&second).expect("remove");
    let report: Value =
        serde_json::from_slice(&agent_hooks(&run, &["list", "--json"]).stdout).expect("JSON");
    let sources: Vec<&str> = report["hooks"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|h| h["source"].as_str())
        .collect();
    assert_eq!(
        sources,
        [
            "gemini-cli extension ordered",
            "gemini-cli extension ordered"
        ],
        "{report}"
    );
    assert!(report["hooks"][0]["command"]
        .as_str()
        .unwrap_or_default()
        .starts_with(&extension.display().to_string()));
    agent_hooks(
        &run,
        &[
            "emit",
            "PreToolUse",
            "--input",
            r#"{"tool_name": "exec", "tool_input": {"command": "echo original > side-effect.txt"}}"#,
            "--json",
        ],
    );
    assert_eq!(
        std::fs::read_to_string(&log).unwrap_or_default(),
        "first\nsecond\n"
    );
    let seen: Value =
        serde_json::from_str(&std::fs::read_to_string(&second).unwrap_or_default()).expect("stdin");
    assert_eq!(
        seen["tool_input"]["command"],
        "echo rewritten > side-effect.txt"
    );
}
