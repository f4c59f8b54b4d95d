//! Real Claude Code sessions under the lean wiring: `install` with no hook wires
//! `SessionStart` alone, and Claude Code reads its hooks when a session starts. A hook added
//! after `install` may not run in the next session: that session's start wires its event
//! and tells the user (Claude Code's `systemMessage`, never the model), and the session
//! after runs it. Claude Code 2.1.332 also watches its settings files and rereads them
//! about a second after a change has settled, so a tool call made later in that first
//! session can already run the hook: the tests accept both. A required hook in that place
//! is told the same way, and the answer asks Claude Code to stop (`continue: false`);
//! Claude Code 2.1.332 does not stop a session at its `SessionStart` (measured here), so the
//! session's next event that reaches agent-hooks, its prompt (always wired), is blocked: no
//! tool runs without the guard, and the next session runs it.

use serde_json::json;

use super::{agent_hooks, agents, model, user_hooks, Agent, Run};

/// The text the user is told about a hook that may not run in this session.
const NOT_THIS_SESSION: &str = "may not run in this session";

/// How many times the logger wrote its line.
fn logged(log: &std::path::Path) -> usize {
    std::fs::read_to_string(log)
        .map(|t| t.lines().filter(|l| *l == "logged").count())
        .unwrap_or(0)
}

/// Every request body the model got, as text.
fn told(model: &model::FakeModel) -> Vec<String> {
    model
        .requests()
        .iter()
        .map(|r| r.body.to_string())
        .collect()
}

#[test]
#[ignore = "needs the real agents: tests/real-agents/run"]
fn a_hook_added_after_install_is_told_to_the_user_wired_at_the_next_start_and_runs_in_the_session_after(
) {
    agent_hooks_tests::relay_bin();
    let install = agents::install_dir();
    let run = Run::new();
    let first_model = model::FakeModel::start("echo first >> side-effect.txt");
    agents::configure(Agent::Claude, &run, first_model.port(), &json!({}));
    agent_hooks(&run, &["install", "--agent", "claude", "--project"]);
    let settings = run.project().join(".claude/settings.json");
    let wired = std::fs::read_to_string(&settings).expect("installed");
    assert!(
        wired.contains("SessionStart") && !wired.contains("PostToolUse"),
        "{wired}"
    );
    // A logger of every tool call, added after install.
    let log = run.path("post.log");
    std::fs::write(
        user_hooks(&run).join("logger.json"),
        json!({"PostToolUse": [{"hooks": [{"type": "command",
            "command": format!("cat > /dev/null; echo logged >> '{}'", log.display())}]}]})
        .to_string(),
    )
    .expect("write");

    let first = agents::launch(Agent::Claude, &install, &run, first_model.port());
    assert_eq!(first.code, Some(0), "{}", first.describe());
    let side_effect = std::fs::read_to_string(run.project().join("side-effect.txt"));
    assert_eq!(
        side_effect.ok().as_deref(),
        Some("first\n"),
        "{}",
        first.describe()
    );
    // Claude Code read its hooks before PostToolUse was wired; it may have reread them
    // before its one tool call (its settings watcher), and then the logger ran once.
    let after_first = logged(&log);
    assert!(
        after_first <= 1,
        "the logger ran at most once in a session of one tool call\n{}",
        first.describe()
    );
    // The user is told, the model is not.
    assert!(
        first.stdout.contains(NOT_THIS_SESSION) && first.stdout.contains("logger.json"),
        "Claude Code showed the user which hook does not run\n{}",
        first.describe()
    );
    let requests = told(&first_model);
    assert!(!requests.is_empty(), "{}", first.describe());
    assert!(
        requests.iter().all(|r| !r.contains(NOT_THIS_SESSION)),
        "the model was told: {requests:?}"
    );
    let wired = std::fs::read_to_string(&settings).expect("settings");
    assert!(wired.contains("PostToolUse"), "the start wired it: {wired}");

    // The next session runs it, and nothing is said.
    let second_model = model::FakeModel::start("echo second >> side-effect.txt");
    let second = agents::launch(Agent::Claude, &install, &run, second_model.port());
    assert_eq!(second.code, Some(0), "{}", second.describe());
    assert_eq!(
        logged(&log),
        after_first + 1,
        "the logger ran on the second session's tool call\n{}",
        second.describe()
    );
    assert!(
        !second.stdout.contains(NOT_THIS_SESSION),
        "{}",
        second.describe()
    );
    agent_hooks(&run, &["uninstall", "--agent", "claude", "--project"]);
}

#[test]
#[ignore = "needs the real agents: tests/real-agents/run"]
fn a_required_guard_added_after_install_stops_the_session_that_cannot_run_it_and_the_next_runs_it()
{
    agent_hooks_tests::relay_bin();
    let install = agents::install_dir();
    let run = Run::new();
    let model = model::FakeModel::start("echo ran >> side-effect.txt");
    agents::configure(Agent::Claude, &run, model.port(), &json!({}));
    agent_hooks(&run, &["install", "--agent", "claude", "--project"]);
    let guard_log = run.path("guard.log");
    std::fs::write(
        user_hooks(&run).join("guard.json"),
        json!({"PreToolUse": [{"hooks": [{"type": "command",
            "command": format!("cat > /dev/null; echo guarded >> '{}'", guard_log.display()),
            "required": true}]}]})
        .to_string(),
    )
    .expect("write");
    let first = agents::launch(Agent::Claude, &install, &run, model.port());
    let shown = format!("{}{}", first.stdout, first.stderr);
    assert!(
        shown.contains("the required hook")
            && shown.contains(NOT_THIS_SESSION)
            && shown.contains("a required hook cannot run in this session"),
        "the user is told, with the stop's reason\n{}",
        first.describe()
    );
    assert!(
        told(&model).iter().all(|r| !r.contains(NOT_THIS_SESSION)),
        "the model was told"
    );
    // Claude Code goes on after `continue: false` at SessionStart; its prompt is then
    // blocked, so no tool runs without the guard.
    assert!(
        !run.project().join("side-effect.txt").exists() && !guard_log.exists(),
        "the session stopped before any tool ran\n{}",
        first.describe()
    );
    // The next session runs the guard.
    let model = model::FakeModel::start("echo again >> side-effect.txt");
    let second = agents::launch(Agent::Claude, &install, &run, model.port());
    assert_eq!(
        std::fs::read_to_string(&guard_log).ok().as_deref(),
        Some("guarded\n"),
        "{}",
        second.describe()
    );
    assert_eq!(
        std::fs::read_to_string(run.project().join("side-effect.txt"))
            .ok()
            .as_deref(),
        Some("again\n"),
        "{}",
        second.describe()
    );
}
