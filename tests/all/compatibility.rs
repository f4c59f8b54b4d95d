//! What a host does with values from a plugin built against a newer interface: an event,
//! a permission decision or a delivery it does not know is reported and ignored, and the
//! rest of what the plugin said still counts.

use std::sync::{Arc, Mutex};

use agent_hooks::{abi::events::*, AgentHost, HookError, HookErrorKind, HookRunner};
use agent_hooks_tests::{scripted_runner, temp_dir};
use serde_json::json;

fn errors_heard(runner: &HookRunner) -> Arc<Mutex<Vec<HookError>>> {
    let heard = Arc::new(Mutex::new(Vec::new()));
    let sink = heard.clone();
    runner.on_error(move |e| sink.lock().unwrap().push(e.clone()));
    heard
}

#[test]
fn unknown_enum_values_on_the_wire_parse_as_unknown_and_keep_the_other_fields() {
    let result: PermissionResult =
        serde_json::from_str(r#"{"decision": "defer", "reason": "later", "extra": 1}"#).unwrap();
    assert_eq!(result.decision, Some(PermissionDecision::Unknown));
    assert_eq!(result.reason.as_deref(), Some("later"));

    let options: SendMessageOptions =
        serde_json::from_str(r#"{"deliver_as": "next_week", "trigger_turn": true}"#).unwrap();
    assert_eq!(options.deliver_as, Some(DeliverAs::Unknown));
    assert!(options.trigger_turn);

    assert_eq!(
        "future_event".parse::<EventKind>(),
        Err(UnknownEvent("future_event".into()))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_permission_decision_the_host_does_not_know_is_reported_and_counts_as_none() {
    let (runner, _agent) = scripted_runner(vec![
        ("scripted-a#1", json!({"return": {"decision": "approve"}})),
        (
            "scripted-b#1",
            json!({"return": {"decision": "defer", "reason": "b defers"}}),
        ),
    ]);
    let heard = errors_heard(&runner);
    let outcome = runner
        .emit(&PermissionRequestEvent::default().tool_name("exec"))
        .await
        .unwrap();
    assert_eq!(outcome.decision, Some(PermissionDecision::Approve));
    assert_eq!(outcome.reasons, ["b defers"]);
    let heard = heard.lock().unwrap();
    assert_eq!(heard.len(), 1, "{heard:?}");
    assert_eq!(heard[0].kind, HookErrorKind::Protocol);
    assert_eq!(heard[0].event, "permission_request");
    assert!(
        heard[0].hook_path.ends_with("libscripted_b.so"),
        "{:?}",
        heard[0]
    );
    assert_eq!(
        heard[0].message,
        "returned a `decision` that this host does not know (the plugin may be built against a newer interface); it is ignored"
    );
}

/// Keeps the options of every message it gets.
#[derive(Default)]
struct OptionsAgent {
    received: Mutex<Vec<(String, SendMessageOptions)>>,
}

impl AgentHost for OptionsAgent {
    fn send_message(&self, message: CustomMessage, options: SendMessageOptions) {
        self.received
            .lock()
            .unwrap()
            .push((message.custom_type, options));
    }
}

#[test]
fn a_delivery_the_host_does_not_know_is_reported_and_the_message_delivered_the_default_way() {
    let dir = temp_dir();
    let mut runner = HookRunner::new(Vec::new(), dir.path());
    let heard = errors_heard(&runner);
    runner
        .add_in_process("newer", |api| {
            let options = SendMessageOptions::default()
                .trigger_turn(true)
                .deliver_as(DeliverAs::Unknown);
            api.send_message(&CustomMessage::new("note", "hi"), &options)
        })
        .unwrap();
    let agent = Arc::new(OptionsAgent::default());
    runner.attach(agent.clone());
    let received = agent.received.lock().unwrap().clone();
    assert_eq!(
        received,
        [(
            "note".to_owned(),
            SendMessageOptions::default().trigger_turn(true)
        )]
    );
    let heard = heard.lock().unwrap();
    assert_eq!(heard.len(), 1, "{heard:?}");
    assert_eq!(heard[0].kind, HookErrorKind::Protocol);
    assert_eq!(
        (heard[0].hook_path.as_str(), heard[0].event.as_str()),
        ("newer", "send_message")
    );
    assert!(heard[0]
        .message
        .starts_with("sent a `deliver_as` that this host does not know"));
}
