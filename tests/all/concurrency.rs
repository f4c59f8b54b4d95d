//! Many tasks emit at once through real plugins: every handler call happens exactly once.

use std::{collections::HashMap, sync::Arc};

use agent_hooks::abi::prelude::*;
use agent_hooks_tests::scripted_runner;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn eight_tasks_emit_tool_call_with_no_lost_or_duplicated_handler_call() {
    const TASKS: usize = 8;
    const EMITS: usize = 50;
    let (runner, agent) = scripted_runner(vec![]);
    let runner = Arc::new(runner);
    let tasks: Vec<_> = (0..TASKS)
        .map(|task| {
            let runner = runner.clone();
            tokio::spawn(async move {
                for emit in 0..EMITS {
                    let event = ToolCallEvent::new(
                        "exec",
                        format!("{task}-{emit}"),
                        json!({"command": "true"}),
                    );
                    let outcome = runner.emit(&event).await.expect("no handler fails");
                    assert!(!outcome.block);
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }

    let log = agent.log.lock().unwrap();
    let mut calls: HashMap<(String, String), usize> = HashMap::new();
    for (tag, _, payload) in log.iter() {
        let id = payload["tool_call_id"].as_str().unwrap().to_owned();
        *calls.entry((tag.clone(), id)).or_default() += 1;
    }
    assert_eq!(log.len(), TASKS * EMITS * 6);
    assert_eq!(calls.len(), TASKS * EMITS * 6, "no call lost");
    assert!(calls.values().all(|n| *n == 1), "no call duplicated");
    // Within each emit, the handlers ran in order.
    let mut order: HashMap<String, Vec<String>> = HashMap::new();
    for (tag, _, payload) in log.iter() {
        let id = payload["tool_call_id"].as_str().unwrap().to_owned();
        order.entry(id).or_default().push(tag.clone());
    }
    let expected = [
        "scripted-a#1",
        "scripted-a#2",
        "scripted-b#1",
        "scripted-b#2",
        "inproc#1",
        "inproc#2",
    ];
    assert!(order.values().all(|tags| tags == &expected));
}
