//! The tool wrapper's four steps and its two extensions, with real plugins.

use std::sync::{
    atomic::{AtomicUsize, Ordering},
    Arc,
};

use agent_hooks::{
    abi::prelude::*, HookRunner, HookToolWrapper, Tool, ToolCallError, ToolError, ToolOutput,
    DEFAULT_BLOCK_REASON,
};
use agent_hooks_tests::{scripted_runner, temp_dir};

/// Echoes its input; counts its runs.
#[derive(Default)]
struct Echo {
    runs: AtomicUsize,
}

impl Tool for Echo {
    fn name(&self) -> &str {
        "exec"
    }

    async fn execute(&self, _id: &str, input: Value) -> Result<ToolOutput, ToolError> {
        self.runs.fetch_add(1, Ordering::SeqCst);
        Ok(ToolOutput {
            content: vec![ContentBlock::text(
                input["command"].as_str().unwrap_or_default(),
            )],
            details: json!({"exit": 0}),
        })
    }
}

/// Always fails.
struct DiskFull;

impl Tool for DiskFull {
    fn name(&self) -> &str {
        "write"
    }

    async fn execute(&self, _id: &str, _input: Value) -> Result<ToolOutput, ToolError> {
        Err("disk full".into())
    }
}

fn events_seen(agent: &agent_hooks_tests::ScriptedAgent) -> Vec<String> {
    let log = agent.log.lock().unwrap();
    let mut events: Vec<String> = log.iter().map(|(_, e, _)| e.clone()).collect();
    events.dedup();
    events
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_hooks_the_tool_just_runs() {
    let dir = temp_dir();
    let runner = Arc::new(HookRunner::new(Vec::new(), dir.path()));
    let tool = HookToolWrapper::new(Echo::default(), runner);
    let output = tool.execute("1", json!({"command": "ls"})).await.unwrap();
    assert_eq!(output.content, [ContentBlock::text("ls")]);
    assert_eq!(tool.tool().runs.load(Ordering::SeqCst), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_block_stops_the_call_with_its_reason_and_no_tool_result() {
    let (runner, agent) = scripted_runner(vec![(
        "scripted-b#1",
        json!({"return": {"block": true, "reason": "not today"}}),
    )]);
    let tool = HookToolWrapper::new(Echo::default(), Arc::new(runner));
    let error = tool
        .execute("1", json!({"command": "ls"}))
        .await
        .unwrap_err();
    assert_eq!(error.to_string(), "not today");
    assert!(matches!(
        error,
        ToolCallError::Blocked {
            hook_error: None,
            ..
        }
    ));
    assert_eq!(tool.tool().runs.load(Ordering::SeqCst), 0);
    assert_eq!(events_seen(&agent), ["tool_call"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_block_without_reason_uses_the_default_text() {
    let (runner, _agent) = scripted_runner(vec![("inproc#2", json!({"return": {"block": true}}))]);
    let tool = HookToolWrapper::new(Echo::default(), Arc::new(runner));
    let error = tool.execute("1", json!({})).await.unwrap_err();
    assert_eq!(error.to_string(), "Tool execution was blocked by a hook");
    assert_eq!(DEFAULT_BLOCK_REASON, "Tool execution was blocked by a hook");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_error_or_panic_in_tool_call_blocks_fail_safe() {
    for action in [
        json!({"error": "cannot read policy"}),
        json!({"panic": "policy exploded"}),
    ] {
        let (runner, agent) = scripted_runner(vec![("scripted-a#2", action)]);
        let tool = HookToolWrapper::new(Echo::default(), Arc::new(runner));
        let error = tool.execute("1", json!({})).await.unwrap_err();
        let ToolCallError::Blocked {
            reason,
            hook_error: Some(hook_error),
        } = &error
        else {
            panic!("expected a block, got {error:?}");
        };
        assert!(
            reason.starts_with("Tool execution was blocked by a hook (hook "),
            "{reason}"
        );
        assert!(reason.contains(&hook_error.message));
        assert_eq!(tool.tool().runs.load(Ordering::SeqCst), 0);
        assert_eq!(events_seen(&agent), ["tool_call"]);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn success_goes_through_tool_result_and_replacements_apply_where_given() {
    let (runner, agent) = scripted_runner(vec![(
        "scripted-b#2",
        json!({"return": {"content": [{"type": "text", "text": "[redacted]"}]}}),
    )]);
    let tool = HookToolWrapper::new(Echo::default(), Arc::new(runner));
    let output = tool
        .execute("7", json!({"command": "cat .env"}))
        .await
        .unwrap();
    assert_eq!(
        output,
        ToolOutput {
            content: vec![ContentBlock::text("[redacted]")],
            details: json!({"exit": 0}),
        }
    );
    assert_eq!(events_seen(&agent), ["tool_call", "tool_result"]);
    let seen = agent.payload_seen_by("scripted-a#1");
    assert_eq!(seen["is_error"], false);
    assert_eq!(seen["tool_call_id"], "7");
    assert_eq!(seen["content"][0]["text"], "cat .env");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failure_goes_through_tool_result_and_the_original_error_is_returned() {
    let (runner, agent) = scripted_runner(vec![]);
    let tool = HookToolWrapper::new(DiskFull, Arc::new(runner));
    let error = tool.execute("1", json!({"path": "a"})).await.unwrap_err();
    assert!(matches!(error, ToolCallError::Tool(_)));
    assert_eq!(error.to_string(), "disk full");
    let seen = agent.payload_seen_by("inproc#2");
    assert_eq!(seen["is_error"], true);
    assert_eq!(
        seen["content"],
        json!([{"type": "text", "text": "disk full"}])
    );
    assert_eq!(seen["tool_name"], "write");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn beyond_a_tool_call_handler_may_rewrite_the_input() {
    let (runner, _agent) = scripted_runner(vec![
        (
            "scripted-a#1",
            json!({"return": {"input": {"command": "rtk git status"}}}),
        ),
        (
            "inproc#1",
            json!({"return": {"input": {"command": "rtk git status --short"}}}),
        ),
    ]);
    let tool = HookToolWrapper::new(Echo::default(), Arc::new(runner));
    let output = tool
        .execute("1", json!({"command": "git status"}))
        .await
        .unwrap();
    assert_eq!(
        output.content,
        [ContentBlock::text("rtk git status --short")]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn beyond_a_tool_result_handler_may_change_the_error_status() {
    let (runner, _agent) = scripted_runner(vec![(
        "scripted-b#1",
        json!({"return": {"is_error": true, "content": [{"type": "text", "text": "output too large"}]}}),
    )]);
    let tool = HookToolWrapper::new(Echo::default(), Arc::new(runner));
    let error = tool
        .execute("1", json!({"command": "ls"}))
        .await
        .unwrap_err();
    assert!(matches!(error, ToolCallError::MarkedFailed { .. }));
    assert_eq!(error.to_string(), "output too large");

    let (runner, _agent) = scripted_runner(vec![(
        "inproc#1",
        json!({"return": {"is_error": false, "content": [{"type": "text", "text": "retried: ok"}]}}),
    )]);
    let tool = HookToolWrapper::new(DiskFull, Arc::new(runner));
    let output = tool.execute("1", json!({})).await.unwrap();
    assert_eq!(output.content, [ContentBlock::text("retried: ok")]);
}
