//! A panic in plugin code is caught inside the plugin and comes back as an error; the host
//! lives on and every other hook keeps working.

use std::sync::Arc;

use agent_hooks::{abi::prelude::*, load_hooks_in_process, HookErrorKind, HookRunner};
use agent_hooks_tests::{outcomes, plugin, s, temp_dir, RecordingAgent};

fn runner() -> HookRunner {
    let dir = temp_dir();
    let result = load_hooks_in_process(
        [
            s(&plugin("panicking-handler")),
            s(&plugin("block-dangerous")),
        ],
        dir.path(),
    );
    assert!(result.errors.is_empty(), "{:?}", result.errors);
    HookRunner::new(result.hooks, dir.path())
}

#[test]
fn a_panicking_handler_is_an_error_and_the_next_handler_runs() {
    let runner = runner();
    let explode = ToolCallEvent::default().tool_name("explode");
    for _ in 0..3 {
        let seen = outcomes(&runner, &explode);
        assert_eq!(seen.len(), 2, "both plugins' handlers ran");
        let error = seen[0].1.as_ref().expect_err("the panic is an error");
        assert_eq!(error.kind, HookErrorKind::Panicked);
        assert!(
            error.message.contains("handler exploded on purpose"),
            "{}",
            error.message
        );
        assert!(
            error.message.contains("src/lib.rs"),
            "location: {}",
            error.message
        );
        assert!(seen[0].0.ends_with("libpanicking_handler.so"));
        assert_eq!(seen[1].1, Ok(None));
    }

    let rm = ToolCallEvent::default()
        .tool_name("exec")
        .input(json!({"command": "rm -rf /"}));
    let seen = outcomes(&runner, &rm);
    assert_eq!(seen[0].1, Ok(None));
    assert!(seen[1].1.as_ref().unwrap().as_ref().unwrap().block);
}

#[test]
fn the_panicking_plugin_keeps_working_after_its_panics() {
    let runner = runner();
    let agent = Arc::new(RecordingAgent::default());
    runner.attach(agent.clone());
    let explode = ToolResultEvent::default().tool_name("explode");
    let seen = outcomes(&runner, &explode);
    assert_eq!(
        seen[0].1.as_ref().unwrap_err().kind,
        HookErrorKind::Panicked
    );

    let seen = outcomes(&runner, &SessionStartEvent::default().source("startup"));
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].1, Ok(None));
    assert_eq!(
        agent.entries.lock().unwrap().clone(),
        [(
            "panicking-handler".to_owned(),
            json!({"session_start": "startup"})
        )]
    );
}

#[test]
fn a_panicking_command_and_renderer_are_errors() {
    let runner = runner();
    let heard = Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = heard.clone();
    runner.on_error(move |e| sink.lock().unwrap().push(e.clone()));

    let error = runner.run_command("boom", "").unwrap().unwrap_err();
    assert_eq!(error.kind, HookErrorKind::Panicked);
    assert!(error.message.contains("command exploded"));
    assert_eq!(error.event, "/boom");
    let message = CustomMessage::new("boom", "text");
    assert_eq!(
        runner.render_message(&message, &RenderOptions::default()),
        None
    );
    assert_eq!(agent_hooks::default_rendering(&message), "[boom] text");
    assert!(runner.run_command("nope", "").is_none());

    let heard = heard.lock().unwrap();
    assert_eq!(heard.len(), 2);
    assert_eq!(heard[0], error);
    assert_eq!(heard[1].event, "renderer:boom");
    assert_eq!(heard[1].kind, HookErrorKind::Panicked);
    assert!(heard[1].message.contains("renderer exploded"));
}
