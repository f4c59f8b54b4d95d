//! The sample plugins do what docs/writing-plugins.md says of them, loaded as real
//! libraries.

use std::sync::Arc;

use agent_hooks::{abi::prelude::*, load_hooks_in_process, HookRunner};
use agent_hooks_tests::{outcomes, plugin, s, temp_dir, RecordingAgent};

fn runner_with(package: &str) -> HookRunner {
    let dir = temp_dir();
    let result = load_hooks_in_process([s(&plugin(package))], dir.path());
    assert!(result.errors.is_empty(), "{:?}", result.errors);
    HookRunner::new(result.hooks, dir.path())
}

fn exec_call(command: &str) -> ToolCallEvent {
    ToolCallEvent::new("exec", "call-1", json!({ "command": command }))
}

fn only_output<E: Event>(runner: &HookRunner, event: &E) -> Option<E::Output> {
    let mut all = outcomes(runner, event);
    assert_eq!(all.len(), 1);
    all.remove(0).1.expect("the handler succeeds")
}

#[test]
fn block_dangerous_blocks_rm_rf_without_a_ui() {
    let runner = runner_with("block-dangerous");
    assert_eq!(
        only_output(&runner, &exec_call("rm -rf /tmp/build")),
        Some(ToolCallResult::block(
            "Dangerous command blocked: `rm -rf` needs a user to confirm it, and there is no UI"
        ))
    );
    assert_eq!(only_output(&runner, &exec_call("ls -la")), None);
    let read = ToolCallEvent::default()
        .tool_name("read")
        .input(json!({"command": "rm -rf /"}));
    assert_eq!(only_output(&runner, &read), None);
}

#[test]
fn block_dangerous_asks_the_user_when_there_is_a_ui() {
    let runner = runner_with("block-dangerous");
    let denying = Arc::new(RecordingAgent::with_ui(false));
    runner.attach(denying.clone());
    assert_eq!(
        only_output(&runner, &exec_call("rm -rf build")),
        Some(ToolCallResult::block("Blocked by user"))
    );
    let asked = denying.ui.as_ref().unwrap().calls.lock().unwrap().clone();
    assert_eq!(asked, ["confirm Dangerous command: Allow `rm -rf build`?"]);

    runner.attach(Arc::new(RecordingAgent::with_ui(true)));
    assert_eq!(only_output(&runner, &exec_call("rm -rf build")), None);
}

#[test]
fn redact_secrets_redacts_read_output_only() {
    let runner = runner_with("redact-secrets");
    let image = ContentBlock::image("aGVsbG8=", "image/png");
    let result = ToolResultEvent::new("read", "call-2", json!({"path": ".env"}))
        .content(vec![
            ContentBlock::text("HOST=x\nAPI_KEY=sk-live-123 # prod\n"),
            image.clone(),
        ])
        .details(json!({"lines": 2}))
        .is_error(false);
    assert_eq!(
        only_output(&runner, &result),
        Some(ToolResultPatch::default().content(vec![
            ContentBlock::text("HOST=x\nAPI_KEY=[REDACTED] # prod\n"),
            image
        ]))
    );
    let failed = result.clone().is_error(true);
    assert_eq!(only_output(&runner, &failed), None);
    let other_tool = result.tool_name("exec");
    assert_eq!(only_output(&runner, &other_tool), None);
}

#[test]
fn filter_context_drops_debug_only_messages_and_keeps_every_field_of_the_rest() {
    let runner = runner_with("filter-context");
    let message = |value: Value| -> AgentMessage { serde_json::from_value(value).unwrap() };
    let user = message(json!({"role": "user", "content": "hi", "timestamp": 17}));
    let kept = message(
        json!({"role": "custom", "custom_type": "note", "content": "keep", "display": true}),
    );
    let debug = message(json!({"role": "custom", "custom_type": "debug-only", "content": "x"}));
    let event = ContextEvent::default().messages(vec![user.clone(), debug, kept.clone()]);
    let output = only_output(&runner, &event).expect("messages were removed");
    assert_eq!(output.messages, [user, kept]);
    assert_eq!(
        serde_json::to_value(&output.messages[0]).unwrap(),
        json!({"role": "user", "content": "hi", "timestamp": 17})
    );

    let clean =
        ContextEvent::default().messages(vec![message(json!({"role": "user", "content": "hi"}))]);
    assert_eq!(only_output(&runner, &clean), None);
}

#[test]
fn handoff_waits_for_idle_then_starts_a_session_with_the_summary_prompt() {
    let runner = runner_with("handoff");
    let agent = Arc::new(RecordingAgent::default());
    runner.attach(agent.clone());
    let command = &runner.hooks()[0].commands()[0];
    assert_eq!(
        (command.name.as_str(), command.description.as_str()),
        (
            "handoff",
            "Continue in a new session from this one's summary"
        )
    );

    runner
        .run_command("handoff", "")
        .expect("the command exists")
        .expect("it succeeds");

    assert_eq!(agent.calls(), ["wait_for_idle", "new_session"]);
    let sessions = agent.sessions.lock().unwrap();
    assert_eq!(
        sessions[0].parent_session.as_deref(),
        Some("/sessions/one.jsonl")
    );
    assert_eq!(
        serde_json::to_value(&sessions[0].messages).unwrap(),
        json!([{"role": "user", "content": [{"type": "text", "text": "Continue from prior session summary."}]}])
    );
}

#[test]
fn each_sample_reports_its_crate_name_and_version() {
    let dir = temp_dir();
    let packages = [
        "block-dangerous",
        "redact-secrets",
        "filter-context",
        "handoff",
    ];
    let result = load_hooks_in_process(packages.map(|p| s(&plugin(p))), dir.path());
    let origins: Vec<_> = result.hooks.iter().map(|h| h.origin().clone()).collect();
    let expected: Vec<_> = packages
        .iter()
        .map(|p| agent_hooks::HookOrigin::Plugin {
            name: (*p).to_owned(),
            version: "0.1.0".to_owned(),
        })
        .collect();
    assert_eq!(origins, expected);
}

/// A UI whose status line is this crate's `StatusLine`, as a terminal host would have.
struct StatusUi(agent_hooks::StatusLine);

impl agent_hooks::HostUi for StatusUi {
    fn set_status(&self, key: &str, text: Option<&str>) {
        self.0.set(key, text);
    }
}

struct StatusAgent(StatusUi);

impl agent_hooks::AgentHost for StatusAgent {
    fn ui(&self) -> Option<&dyn agent_hooks::HostUi> {
        Some(&self.0)
    }
}

#[test]
fn session_status_shows_the_turn_and_tool_calls_in_the_status_line() {
    let runner = runner_with("session-status");
    let agent = Arc::new(StatusAgent(StatusUi(agent_hooks::StatusLine::new())));
    runner.attach(agent.clone());
    runner
        .emit_blocking(&TurnStartEvent::default().turn_index(0).timestamp(0))
        .unwrap();
    runner.emit_blocking(&exec_call("ls")).unwrap();
    runner.emit_blocking(&exec_call("pwd")).unwrap();
    assert_eq!(agent.0 .0.render(80), "⚙ 2 tools turn 1");
    assert_eq!(agent.0 .0.render(8), "⚙ 2 too…");
    runner.emit_blocking(&AgentEndEvent::default()).unwrap();
    assert_eq!(agent.0 .0.render(80), "");
}

#[test]
fn todo_renderer_renders_its_messages_and_declines_others() {
    let runner = runner_with("todo-renderer");
    let agent = Arc::new(RecordingAgent::default());
    runner.attach(agent.clone());
    runner
        .run_command("todo", " write the docs ")
        .unwrap()
        .unwrap();
    let message = agent.messages.lock().unwrap()[0].clone();
    assert_eq!(message.content, Content::from("Todo: write the docs"));
    assert_eq!(
        runner
            .render_message(&message, &RenderOptions::default())
            .as_deref(),
        Some("☐ write the docs")
    );
    let expanded = RenderOptions::default().expanded(true);
    assert_eq!(
        runner.render_message(&message, &expanded).as_deref(),
        Some("Todo\n☐ write the docs")
    );
    let bare = CustomMessage::new("todo", "no items");
    assert_eq!(
        runner.render_message(&bare, &RenderOptions::default()),
        None
    );
    assert_eq!(agent_hooks::default_rendering(&bare), "[todo] no items");
    let error = runner.run_command("todo", "").unwrap().unwrap_err();
    assert_eq!(error.message, "usage: /todo <text>");
}
