//! The runner's conflict table (docs/embedding.md), order, errors and lookups, each with two real
//! plugins (`scripted-a`, `scripted-b`) and one in-process hook (`inproc`) whose handlers
//! record the order in which they ran.

use std::sync::{Arc, Mutex};

use agent_hooks::{
    abi::{prelude::*, EventKind, ExecOptions, ModelInfo, SessionActionOutcome, Theme},
    load_hooks_in_process, ContextOutcome, HookError, HookErrorKind, HookRunner, PermissionOutcome,
    StopOutcome, ToolCallOutcome,
};
use agent_hooks_tests::{
    plugin, s, scripted, scripted_runner as runner_and_agent, temp_dir, ScriptedAgent,
};

const A1: &str = "scripted-a#1";
const A2: &str = "scripted-a#2";
const B1: &str = "scripted-b#1";
const B2: &str = "scripted-b#2";
const I1: &str = "inproc#1";
const I2: &str = "inproc#2";
const ALL: [&str; 6] = [A1, A2, B1, B2, I1, I2];

fn errors_heard(runner: &HookRunner) -> Arc<Mutex<Vec<HookError>>> {
    let heard = Arc::new(Mutex::new(Vec::new()));
    let sink = heard.clone();
    runner.on_error(move |e| sink.lock().unwrap().push(e.clone()));
    heard
}

fn exec(command: &str) -> ToolCallEvent {
    ToolCallEvent::new("exec", "call-1", json!({ "command": command }))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_call_chains_input_and_the_last_replacement_wins() {
    let (runner, agent) = runner_and_agent(vec![
        (A2, json!({"return": {"input": {"command": "ls -a"}}})),
        (B2, json!({"return": {"input": {"command": "ls -l"}}})),
        (I1, json!({"return": {}})),
    ]);
    let outcome = runner.emit(&exec("ls")).await.unwrap();
    assert_eq!(
        outcome,
        ToolCallOutcome {
            block: false,
            reason: None,
            input: Some(json!({"command": "ls -l"})),
            ask: None,
            approved: false,
            context: Vec::new(),
        }
    );
    assert_eq!(agent.ran(), ALL);
    assert_eq!(agent.payload_seen_by(A1)["input"]["command"], "ls");
    assert_eq!(agent.payload_seen_by(B1)["input"]["command"], "ls -a");
    assert_eq!(agent.payload_seen_by(I2)["input"]["command"], "ls -l");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_call_the_first_block_wins_and_later_handlers_do_not_run() {
    let (runner, agent) = runner_and_agent(vec![
        (
            A2,
            json!({"return": {"input": {"command": "rm -rf /tmp/x"}}}),
        ),
        (
            B1,
            json!({"return": {"block": true, "reason": "b says no"}}),
        ),
        (
            B2,
            json!({"return": {"block": true, "reason": "b2 says no"}}),
        ),
    ]);
    let outcome = runner.emit(&exec("rm -rf /")).await.unwrap();
    assert!(outcome.block);
    assert_eq!(outcome.reason.as_deref(), Some("b says no"));
    assert_eq!(agent.ran(), [A1, A2, B1]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_call_is_strict_an_error_or_panic_reaches_the_caller_and_the_listeners() {
    for (action, kind) in [
        (json!({"error": "no config"}), HookErrorKind::Failed),
        (json!({"panic": "boom"}), HookErrorKind::Panicked),
    ] {
        let panicked = kind == HookErrorKind::Panicked;
        let (runner, agent) = runner_and_agent(vec![(B1, action)]);
        let heard = errors_heard(&runner);
        let error = runner.emit(&exec("ls")).await.unwrap_err();
        assert!(
            error.hook_path.ends_with("libscripted_b.so"),
            "{}",
            error.hook_path
        );
        assert_eq!(error.event, "tool_call");
        assert_eq!(error.kind, kind);
        assert!(error
            .message
            .contains(if panicked { "boom" } else { "no config" }));
        assert_eq!(agent.ran(), [A1, A2, B1]);
        assert_eq!(*heard.lock().unwrap(), [error]);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_result_the_last_replacement_wins_without_short_circuit() {
    let (runner, agent) = runner_and_agent(vec![
        (
            A1,
            json!({"return": {"content": [{"type": "text", "text": "from a"}]}}),
        ),
        (
            B2,
            json!({"return": {"content": [{"type": "text", "text": "from b"}], "is_error": true}}),
        ),
        (I1, json!({"return": {"details": {"by": "inproc"}}})),
    ]);
    let event = ToolResultEvent::default()
        .tool_name("read")
        .content(vec![ContentBlock::text("original")]);
    let patch = runner.emit(&event).await.unwrap();
    assert_eq!(
        patch,
        ToolResultPatch::default()
            .content(vec![ContentBlock::text("from b")])
            .details(json!({"by": "inproc"}))
            .is_error(true)
    );
    assert_eq!(agent.ran(), ALL);
    assert_eq!(agent.payload_seen_by(B1)["content"][0]["text"], "from a");
    assert_eq!(agent.payload_seen_by(I2)["is_error"], true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn context_is_chained_through_every_handler() {
    let msg = |text: &str| json!({"role": "user", "content": text});
    let (runner, agent) = runner_and_agent(vec![
        (A1, json!({"return": {"messages": [msg("one"), msg("a")]}})),
        (
            B1,
            json!({"return": {"messages": [msg("one"), msg("a"), msg("b")]}}),
        ),
        (I2, json!({"return": {"messages": [msg("i")]}})),
    ]);
    let event = ContextEvent::default().messages(vec![serde_json::from_value(msg("one")).unwrap()]);
    let ContextOutcome { messages } = runner.emit(&event).await.unwrap();
    assert_eq!(
        serde_json::to_value(messages.unwrap()).unwrap(),
        json!([msg("i")])
    );
    assert_eq!(agent.ran(), ALL);
    assert_eq!(
        agent.payload_seen_by(A2)["messages"],
        json!([msg("one"), msg("a")])
    );
    assert_eq!(
        agent.payload_seen_by(I1)["messages"],
        json!([msg("one"), msg("a"), msg("b")])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn before_agent_start_keeps_the_first_message_and_runs_every_handler() {
    let message =
        |t: &str| json!({"return": {"message": {"custom_type": t, "content": t, "display": true}}});
    let (runner, agent) = runner_and_agent(vec![
        (A2, message("first")),
        (B1, message("second")),
        (I2, message("third")),
    ]);
    let outcome = runner
        .emit(&BeforeAgentStartEvent::default().prompt("hi").images(vec![]))
        .await
        .unwrap();
    assert_eq!(outcome.message.unwrap().custom_type, "first");
    assert_eq!(agent.ran(), ALL);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_before_events_keep_the_last_result_and_cancel_stops_at_once() {
    // Without a cancel: every handler runs and the last result is kept.
    let (runner, agent) = runner_and_agent(vec![
        (A1, json!({"return": {"skip_conversation_restore": true}})),
        (B2, json!({"return": {"skip_conversation_restore": false}})),
    ]);
    let kept = runner
        .emit(&SessionBeforeBranchEvent::default())
        .await
        .unwrap();
    assert_eq!(
        kept,
        Some(
            SessionBeforeBranchResult::default()
                .cancel(false)
                .skip_conversation_restore(false)
        )
    );
    assert_eq!(agent.ran(), ALL);

    // A cancel stops the others, in each of the four events.
    let (runner, agent) = runner_and_agent(vec![
        (A2, json!({"return": {"cancel": false}})),
        (B1, json!({"return": {"cancel": true}})),
        (I1, json!({"return": {"cancel": false}})),
    ]);
    let switch = runner
        .emit(&SessionBeforeSwitchEvent::default())
        .await
        .unwrap();
    assert_eq!(
        switch,
        Some(SessionBeforeSwitchResult::default().cancel(true))
    );
    let branch = runner
        .emit(&SessionBeforeBranchEvent::default())
        .await
        .unwrap();
    assert!(branch.unwrap().cancel);
    let compact = runner
        .emit(&SessionBeforeCompactEvent::default())
        .await
        .unwrap();
    assert!(compact.unwrap().cancel);
    let tree = runner
        .emit(&SessionBeforeTreeEvent::default())
        .await
        .unwrap();
    assert!(tree.unwrap().cancel);
    assert_eq!(agent.ran(), [[A1, A2, B1]; 4].concat());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_compacting_the_last_result_wins() {
    let (runner, agent) = runner_and_agent(vec![
        (
            A1,
            json!({"return": {"context": ["from a"], "prompt": "a prompt"}}),
        ),
        (I1, json!({"return": {"context": ["from inproc"]}})),
    ]);
    let outcome = runner
        .emit(&SessionCompactingEvent::default())
        .await
        .unwrap();
    assert_eq!(
        outcome,
        Some(SessionCompactingResult::default().context(vec!["from inproc".into()]))
    );
    assert_eq!(agent.ran(), ALL);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notifications_run_every_handler_and_ignore_results() {
    let (runner, agent) = runner_and_agent(vec![
        (A1, json!({"return": null})),
        (B1, json!({"error": "b failed"})),
    ]);
    let heard = errors_heard(&runner);
    runner
        .emit(&TurnStartEvent::default().turn_index(3).timestamp(9))
        .await
        .unwrap();
    runner
        .emit(&SessionShutdownEvent::default().reason("exit"))
        .await
        .unwrap();
    assert_eq!(agent.ran(), [ALL, ALL].concat());
    let heard = heard.lock().unwrap();
    assert_eq!(
        heard.len(),
        2,
        "one error per emit, and the next handler ran"
    );
    assert_eq!(heard[0].event, "turn_start");
    assert_eq!(heard[0].message, "b failed");
    assert_eq!(heard[0].kind, HookErrorKind::Failed);
    assert_eq!(heard[1].event, "session_shutdown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ordinary_event_absorbs_a_panic_and_the_next_handler_runs() {
    let (runner, agent) = runner_and_agent(vec![
        (A2, json!({"panic": "a2 exploded"})),
        (
            B1,
            json!({"return": {"content": [{"type": "text", "text": "b"}]}}),
        ),
    ]);
    let heard = errors_heard(&runner);
    let patch = runner.emit(&ToolResultEvent::default()).await.unwrap();
    assert_eq!(patch.content, Some(vec![ContentBlock::text("b")]));
    assert_eq!(agent.ran(), ALL);
    let heard = heard.lock().unwrap();
    assert_eq!(heard.len(), 1);
    assert_eq!(heard[0].kind, HookErrorKind::Panicked);
    assert!(heard[0].message.contains("a2 exploded"));
    assert!(heard[0].to_string().starts_with("hook "));
    assert!(heard[0].to_string().contains(" panicked on tool_result: "));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn permission_request_deny_beats_ask_beats_approve() {
    let (runner, agent) = runner_and_agent(vec![
        (
            A1,
            json!({"return": {"decision": "approve", "reason": "git is fine"}}),
        ),
        (
            B1,
            json!({"return": {"decision": "deny", "reason": "not on main"}}),
        ),
        (I2, json!({"return": {"decision": "ask"}})),
    ]);
    let outcome = runner
        .emit(&PermissionRequestEvent::default())
        .await
        .unwrap();
    assert_eq!(
        outcome,
        PermissionOutcome {
            decision: Some(PermissionDecision::Deny),
            reasons: vec!["git is fine".into(), "not on main".into()],
            input: None,
            interrupt: false,
        }
    );
    assert_eq!(agent.ran(), ALL);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stop_any_block_keeps_the_agent_going_with_every_reason() {
    let (runner, agent) = runner_and_agent(vec![
        (
            A2,
            json!({"return": {"block": true, "reason": "run the tests"}}),
        ),
        (
            I1,
            json!({"return": {"block": true, "reason": "update the changelog"}}),
        ),
        (B1, json!({"return": {"block": false, "reason": "ignored"}})),
    ]);
    let outcome = runner.emit(&StopEvent::default()).await.unwrap();
    assert_eq!(
        outcome,
        StopOutcome {
            block: true,
            reasons: vec!["run the tests".into(), "update the changelog".into()],
            loop_bound_reached: false,
            stopped: None,
        }
    );
    assert_eq!(agent.ran(), ALL);
}

#[test]
fn has_handlers_knows_which_events_are_listened_to() {
    let dir = temp_dir();
    let loaded = load_hooks_in_process([s(&plugin("redact-secrets"))], dir.path());
    let mut runner = HookRunner::new(loaded.hooks, dir.path());
    assert!(runner.has_handlers(EventKind::ToolResult));
    assert!(!runner.has_handlers(EventKind::ToolCall));
    runner
        .add_in_process("guard", |api| {
            api.on(|_: &ToolCallEvent, _| Ok(None));
            Ok(())
        })
        .unwrap();
    assert!(runner.has_handlers(EventKind::ToolCall));
    assert!(!runner.has_handlers(EventKind::Stop));
}

#[test]
fn a_listener_that_panics_does_not_break_the_emit_and_unsubscribe_works() {
    let (runner, agent) = runner_and_agent(vec![(A1, json!({"error": "a failed"}))]);
    runner.on_error(|_| panic!("listener exploded"));
    let heard = errors_heard(&runner);
    let second = Arc::new(Mutex::new(0));
    let count = second.clone();
    let subscription = runner.on_error(move |_| *count.lock().unwrap() += 1);

    runner.emit_blocking(&AgentStartEvent::default()).unwrap();
    assert_eq!(agent.ran(), ALL);
    assert_eq!(heard.lock().unwrap().len(), 1);
    assert_eq!(*second.lock().unwrap(), 1);

    subscription.unsubscribe();
    runner.emit_blocking(&AgentStartEvent::default()).unwrap();
    assert_eq!(heard.lock().unwrap().len(), 2);
    assert_eq!(*second.lock().unwrap(), 1, "unsubscribed");
}

#[test]
fn commands_and_renderers_first_loaded_wins_and_all_are_listed() {
    let (runner, agent) = runner_and_agent(vec![]);
    let all: Vec<(&str, &str)> = runner
        .registered_commands()
        .map(|c| (c.name.as_str(), c.description.as_str()))
        .collect();
    assert_eq!(
        all,
        [
            ("whoami", "scripted-a"),
            ("whoami", "scripted-b"),
            ("whoami", "inproc")
        ]
    );
    assert_eq!(
        runner.get_command("/whoami").unwrap().description,
        "scripted-a"
    );
    runner.run_command("whoami", "").unwrap().unwrap();
    assert_eq!(*agent.notified.lock().unwrap(), ["scripted-a"]);

    let renderer = runner.get_message_renderer("scripted").unwrap();
    assert!(renderer.hook_path.ends_with("libscripted_a.so"));
    let rendered = runner.render_message(
        &CustomMessage::new("scripted", "x"),
        &RenderOptions::default(),
    );
    assert_eq!(rendered.as_deref(), Some("scripted-a renders Text(\"x\")"));
    assert!(runner.get_message_renderer("other").is_none());
    assert!(runner.get_command("nope").is_none());
}

#[test]
fn messages_sent_from_factories_wait_for_the_agent_and_arrive_in_order() {
    let dir = temp_dir();
    let loaded = load_hooks_in_process(
        [s(&plugin("scripted-a")), s(&plugin("scripted-b"))],
        dir.path(),
    );
    let mut runner = HookRunner::new(loaded.hooks, dir.path());
    runner
        .add_in_process("inproc", |api| scripted::register_all(api, "inproc"))
        .unwrap();
    assert_eq!(runner.pending_messages(), 3);
    let agent = Arc::new(ScriptedAgent::default());
    runner.attach(agent.clone());
    assert_eq!(runner.pending_messages(), 0);
    let got: Vec<(String, Content)> = agent
        .messages
        .lock()
        .unwrap()
        .iter()
        .map(|m| (m.custom_type.clone(), m.content.clone()))
        .collect();
    assert_eq!(
        got,
        [
            ("hello".to_owned(), Content::from("scripted-a")),
            ("hello".to_owned(), Content::from("scripted-b")),
            ("hello".to_owned(), Content::from("inproc")),
        ]
    );
}

#[test]
fn without_a_ui_hooks_get_the_spec_defaults() {
    let dir = temp_dir();
    let mut runner = HookRunner::new(Vec::new(), dir.path());
    runner
        .add_in_process("probe", |api| {
            api.on(|_: &ToolCallEvent, ctx| {
                let ui = ctx.ui();
                ui.notify("nobody hears this", NotifyLevel::Info);
                ui.set_status("k", Some("v"));
                ui.set_editor_text("x");
                let seen = json!({
                    "has_ui": ctx.has_ui(),
                    "select": ui.select("pick", &["a", "b"]),
                    "confirm": ui.confirm("sure?", "really"),
                    "input": ui.input("name", ""),
                    "editor": ui.editor("edit", "text"),
                    "editor_text": ui.get_editor_text(),
                    "custom": ui.custom("x", &json!(1)),
                    "idle": ctx.is_idle(),
                    "model": ctx.model().is_some(),
                });
                Ok(Some(ToolCallResult::block(seen.to_string())))
            });
            Ok(())
        })
        .unwrap();
    let outcome = runner.emit_blocking(&ToolCallEvent::default()).unwrap();
    let seen: Value = serde_json::from_str(&outcome.reason.unwrap()).unwrap();
    assert_eq!(
        seen,
        json!({
            "has_ui": false, "select": null, "confirm": false, "input": null,
            "editor": null, "editor_text": "", "custom": null, "idle": true, "model": false
        })
    );
}

#[test]
fn session_actions_are_for_commands_only_and_unsupported_by_default() {
    let dir = temp_dir();
    let mut runner = HookRunner::new(Vec::new(), dir.path());
    runner
        .add_in_process("probe", |api| {
            api.register_command("fresh", "", |_, ctx| {
                ctx.new_session(&NewSessionOptions::default())?;
                Ok(())
            });
            Ok(())
        })
        .unwrap();
    let error = runner.run_command("fresh", "").unwrap().unwrap_err();
    assert_eq!(
        error.to_string(),
        "hook probe failed on /fresh: this agent does not support `new_session` from hooks"
    );
}

#[test]
fn messages_never_delivered_are_reported_when_the_runner_goes() {
    let dir = temp_dir();
    let mut runner = HookRunner::new(Vec::new(), dir.path());
    runner
        .add_in_process("greeter", |api| {
            api.send_message(
                &CustomMessage::new("hello", "hi"),
                &SendMessageOptions::default(),
            )?;
            api.append_entry("state", &json!({"n": 1}))?;
            Ok(())
        })
        .unwrap();
    let heard = errors_heard(&runner);
    drop(runner);
    let heard = heard.lock().unwrap();
    assert_eq!(heard.len(), 1);
    assert_eq!(
        heard[0].message,
        "2 message(s) or entries sent by hooks were never delivered: no agent was attached to the runner"
    );
}

#[test]
fn hooks_run_programs_with_exec_and_a_timeout_kills_them() {
    let dir = temp_dir();
    let mut runner = HookRunner::new(Vec::new(), dir.path());
    runner
        .add_in_process("runner-of-programs", |api| {
            let host = api.host();
            api.on(move |_: &ToolCallEvent, _ctx| {
                let echo = host.exec("sh", &["-c", "echo out; echo err >&2; pwd; exit 3"], &ExecOptions::default())?;
                let slow = host.exec(
                    "sh",
                    &["-c", "sleep 5"],
                    &ExecOptions::default().timeout(std::time::Duration::from_millis(200)),
                )?;
                let missing = host.exec("/no/such/program", &[], &ExecOptions::default());
                let seen = json!({
                    "stdout": echo.stdout, "stderr": echo.stderr, "code": echo.code, "killed": echo.killed,
                    "slow_killed": slow.killed, "slow_code": slow.code,
                    "missing": missing.is_err(),
                });
                Ok(Some(ToolCallResult::block(seen.to_string())))
            });
            Ok(())
        })
        .unwrap();
    let started = std::time::Instant::now();
    let outcome = runner.emit_blocking(&ToolCallEvent::default()).unwrap();
    assert!(started.elapsed() < std::time::Duration::from_secs(3));
    let seen: Value = serde_json::from_str(&outcome.reason.unwrap()).unwrap();
    let cwd = std::fs::canonicalize(dir.path()).unwrap();
    assert_eq!(
        seen,
        json!({
            "stdout": format!("out\n{}\n", cwd.display()), "stderr": "err\n", "code": 3,
            "killed": false, "slow_killed": true, "slow_code": null, "missing": true,
        })
    );
}

/// A UI that answers every call and records it, to check what crosses the boundary.
#[derive(Default)]
struct EveryUi {
    calls: Mutex<Vec<String>>,
}

impl agent_hooks::HostUi for EveryUi {
    fn select(&self, title: &str, options: &[String]) -> Option<String> {
        self.calls
            .lock()
            .unwrap()
            .push(format!("select {title} {options:?}"));
        options.last().cloned()
    }
    fn input(&self, title: &str, placeholder: &str) -> Option<String> {
        self.calls
            .lock()
            .unwrap()
            .push(format!("input {title} {placeholder}"));
        Some("typed".into())
    }
    fn editor(&self, title: &str, prefill: &str) -> Option<String> {
        self.calls
            .lock()
            .unwrap()
            .push(format!("editor {title} {prefill}"));
        Some(format!("{prefill}, edited"))
    }
    fn custom(&self, kind: &str, data: Value) -> Option<Value> {
        Some(json!({"kind": kind, "echo": data}))
    }
    fn set_editor_text(&self, text: &str) {
        self.calls
            .lock()
            .unwrap()
            .push(format!("set_editor_text {text}"));
    }
    fn get_editor_text(&self) -> String {
        "draft".into()
    }
    fn theme(&self) -> Theme {
        Theme::default().name("dark")
    }
}

struct UiAgent(EveryUi);

impl agent_hooks::AgentHost for UiAgent {
    fn ui(&self) -> Option<&dyn agent_hooks::HostUi> {
        Some(&self.0)
    }
    fn model(&self) -> Option<ModelInfo> {
        Some(ModelInfo::default().provider("acme").id("m-1"))
    }
}

#[test]
fn every_ui_call_crosses_the_boundary_both_ways() {
    let dir = temp_dir();
    let mut runner = HookRunner::new(Vec::new(), dir.path());
    runner
        .add_in_process("ui-probe", |api| {
            api.on(|_: &ToolCallEvent, ctx| {
                let ui = ctx.ui();
                ui.set_editor_text("hello");
                let seen = json!({
                    "has_ui": ctx.has_ui(),
                    "select": ui.select("Pick", &["a", "b"]),
                    "input": ui.input("Name", "your name"),
                    "editor": ui.editor("Edit", "text"),
                    "custom": ui.custom("picker", &json!([1, 2])),
                    "editor_text": ui.get_editor_text(),
                    "theme": ui.theme().name,
                    "model": ctx.model().map(|m| format!("{}/{}", m.provider, m.id)),
                    "cwd": ctx.cwd(),
                });
                Ok(Some(ToolCallResult::block(seen.to_string())))
            });
            Ok(())
        })
        .unwrap();
    let agent = Arc::new(UiAgent(EveryUi::default()));
    runner.attach(agent.clone());
    let outcome = runner.emit_blocking(&ToolCallEvent::default()).unwrap();
    let seen: Value = serde_json::from_str(&outcome.reason.unwrap()).unwrap();
    assert_eq!(
        seen,
        json!({
            "has_ui": true, "select": "b", "input": "typed", "editor": "text, edited",
            "custom": {"kind": "picker", "echo": [1, 2]}, "editor_text": "draft", "theme": "dark",
            "model": "acme/m-1", "cwd": dir.path(),
        })
    );
    assert_eq!(
        *agent.0.calls.lock().unwrap(),
        [
            "set_editor_text hello",
            "select Pick [\"a\", \"b\"]",
            "input Name your name",
            "editor Edit text",
        ]
    );
}

/// An agent that records session actions.
#[derive(Default)]
struct SessionAgent {
    actions: Mutex<Vec<String>>,
}

impl agent_hooks::AgentHost for SessionAgent {
    fn branch(&self, entry_id: &str) -> Result<SessionActionOutcome, String> {
        self.actions
            .lock()
            .unwrap()
            .push(format!("branch {entry_id}"));
        Ok(SessionActionOutcome::default().cancelled(true))
    }
    fn navigate_tree(
        &self,
        target_id: &str,
        options: NavigateTreeOptions,
    ) -> Result<SessionActionOutcome, String> {
        self.actions.lock().unwrap().push(format!(
            "navigate_tree {target_id} summarize={}",
            options.summarize
        ));
        Ok(SessionActionOutcome::default())
    }
}

#[test]
fn commands_branch_and_navigate_the_session_tree() {
    let dir = temp_dir();
    let mut runner = HookRunner::new(Vec::new(), dir.path());
    runner
        .add_in_process("tree", |api| {
            api.register_command("fork", "", |args, ctx| {
                let outcome = ctx.branch(args)?;
                assert!(outcome.cancelled);
                ctx.navigate_tree("t2", &NavigateTreeOptions::default().summarize(true))?;
                Ok(())
            });
            Ok(())
        })
        .unwrap();
    let agent = Arc::new(SessionAgent::default());
    runner.attach(agent.clone());
    runner.run_command("fork", "e1").unwrap().unwrap();
    assert_eq!(
        *agent.actions.lock().unwrap(),
        ["branch e1", "navigate_tree t2 summarize=true"]
    );
}

/// An agent whose `send_message` emits an event (as an agent that starts a turn on a new
/// message would), recording the messages in the order it got them.
#[derive(Default)]
struct EmittingAgent {
    runner: std::sync::OnceLock<std::sync::Weak<HookRunner>>,
    received: Mutex<Vec<String>>,
}

impl agent_hooks::AgentHost for EmittingAgent {
    fn send_message(&self, message: CustomMessage, _options: SendMessageOptions) {
        self.received
            .lock()
            .unwrap()
            .push(message.custom_type.clone());
        if message.custom_type == "first" {
            if let Some(runner) = self.runner.get().and_then(std::sync::Weak::upgrade) {
                runner.emit_blocking(&TurnEndEvent::default()).unwrap();
            }
        }
    }
}

#[test]
fn attach_delivers_without_holding_a_lock_and_keeps_the_order() {
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let dir = temp_dir();
        let mut runner = HookRunner::new(Vec::new(), dir.path());
        runner
            .add_in_process("sender", |api| {
                let host = api.host();
                api.on(move |_: &TurnEndEvent, _ctx| {
                    host.send_message(
                        &CustomMessage::new("from-handler", "sent while the queue is delivered"),
                        &SendMessageOptions::default(),
                    )?;
                    Ok(None)
                });
                let options = SendMessageOptions::default();
                api.send_message(&CustomMessage::new("first", "1"), &options)?;
                api.send_message(&CustomMessage::new("second", "2"), &options)
            })
            .unwrap();
        let runner = Arc::new(runner);
        let agent = Arc::new(EmittingAgent::default());
        let _ = agent.runner.set(Arc::downgrade(&runner));
        runner.attach(agent.clone());
        let received = agent.received.lock().unwrap().clone();
        let _ = done.send(received);
    });
    let received = finished
        .recv_timeout(std::time::Duration::from_secs(10))
        .expect("attach deadlocked: an agent's send_message emitted and a handler sent again");
    assert_eq!(
        received,
        ["first", "second", "from-handler"],
        "the message sent during delivery does not overtake the queue"
    );
}
