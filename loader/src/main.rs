//! `agent-hooks`: see the hook system work. `agent-hooks demo` (the default) loads the
//! sample plugins built next to this program and drives a few events through them.

use std::{path::PathBuf, process::ExitCode, sync::Arc, time::Instant};

use agent_hooks::{
    abi::{prelude::*, NewSessionOptions, SessionActionOutcome},
    load_hooks, AgentHost, HookRunner,
};

const SAMPLES: &[&str] = &[
    "block_dangerous",
    "redact_secrets",
    "filter_context",
    "handoff",
];

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        [] | ["demo"] => match demo() {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("agent-hooks demo: {e}");
                ExitCode::FAILURE
            }
        },
        _ => {
            eprintln!("usage: agent-hooks [demo]\n\nRuns the sample plugins (build them first: cargo build --workspace).");
            ExitCode::from(2)
        }
    }
}

/// The agent of the demo: prints what hooks ask of it.
struct DemoAgent;

impl AgentHost for DemoAgent {
    fn new_session(&self, options: NewSessionOptions) -> Result<SessionActionOutcome, String> {
        let first = options
            .messages
            .first()
            .and_then(|m| match &m.content {
                Content::Blocks(blocks) => blocks.first().and_then(|b| b.as_text()),
                Content::Text(text) => Some(text.as_str()),
            })
            .unwrap_or_default()
            .to_owned();
        println!("    agent: new session, first message {first:?}");
        Ok(SessionActionOutcome::default())
    }
}

fn demo() -> Result<(), Box<dyn std::error::Error>> {
    let exe = std::env::current_exe()?;
    let folder = exe.parent().ok_or("cannot find this program's folder")?;
    let cwd = std::env::current_dir()?;
    let script = std::env::temp_dir().join(format!("agent-hooks-demo-{}.sh", std::process::id()));
    std::fs::write(&script, "#!/bin/sh\necho 'I am a shell hook'\n")?;

    let mut paths: Vec<String> = SAMPLES
        .iter()
        .map(|name| {
            let file = format!(
                "{}{name}{}",
                std::env::consts::DLL_PREFIX,
                std::env::consts::DLL_SUFFIX
            );
            folder.join(file).display().to_string()
        })
        .collect();
    paths.push(script.display().to_string());

    let started = Instant::now();
    let loaded = load_hooks(&paths, &cwd);
    let elapsed = started.elapsed();
    let _ = std::fs::remove_file(&script);
    println!(
        "Loaded {} hooks in {:.2} ms; {} path(s) refused:",
        loaded.hooks.len(),
        elapsed.as_secs_f64() * 1000.0,
        loaded.errors.len()
    );
    for hook in &loaded.hooks {
        let events: Vec<&str> = hook.events().map(|e| e.name()).collect();
        let commands: Vec<String> = hook
            .commands()
            .iter()
            .map(|c| format!("/{}", c.name))
            .collect();
        println!(
            "  ok   {}  [{}]",
            short(hook.resolved_path()),
            [events.join(", "), commands.join(", ")].join(" ").trim()
        );
    }
    for failure in &loaded.errors {
        println!("  FAIL {}: {}", failure.path, failure.error);
    }
    if loaded.hooks.len() < SAMPLES.len() {
        println!("\nSome sample plugins are missing: build them with `cargo build --workspace`.");
    }

    let runner = HookRunner::new(loaded.hooks, &cwd);
    runner.attach(Arc::new(DemoAgent));
    println!();

    for command in ["rm -rf build", "ls -la"] {
        let call = ToolCallEvent {
            tool_name: "exec".into(),
            tool_call_id: "call-1".into(),
            input: json!({ "command": command }),
        };
        let mut verdict = "allowed".to_owned();
        runner.for_each_handler(&call, |_, outcome| {
            if let Ok(Some(ToolCallResult {
                block: true,
                reason,
                ..
            })) = outcome
            {
                verdict = format!("BLOCKED: {}", reason.unwrap_or_default());
                return std::ops::ControlFlow::Break(());
            }
            std::ops::ControlFlow::Continue(())
        })?;
        println!("tool_call exec `{command}` -> {verdict}");
    }

    let read = ToolResultEvent {
        tool_name: "read".into(),
        tool_call_id: "call-2".into(),
        input: json!({"path": ".env"}),
        content: vec![ContentBlock::text("API_KEY=sk-live-123")],
        ..Default::default()
    };
    let mut shown = "API_KEY=sk-live-123".to_owned();
    runner.for_each_handler(&read, |_, outcome| {
        if let Ok(Some(ToolResultPatch {
            content: Some(content),
            ..
        })) = outcome
        {
            shown = content.iter().filter_map(|b| b.as_text()).collect();
        }
        std::ops::ControlFlow::Continue(())
    })?;
    println!("tool_result read .env: \"API_KEY=sk-live-123\" -> {shown:?}");

    let message = |custom_type: Option<&str>, text: &str| AgentMessage {
        role: if custom_type.is_some() {
            "custom"
        } else {
            "user"
        }
        .into(),
        custom_type: custom_type.map(str::to_owned),
        content: text.into(),
        ..Default::default()
    };
    let context = ContextEvent {
        messages: vec![
            message(None, "hi"),
            message(Some("debug-only"), "trace"),
            message(Some("note"), "kept"),
        ],
    };
    let mut kept = context.messages.len();
    runner.for_each_handler(&context, |_, outcome| {
        if let Ok(Some(result)) = outcome {
            kept = result.messages.len();
        }
        std::ops::ControlFlow::Continue(())
    })?;
    println!("context with 3 messages (one debug-only) -> {kept} messages sent to the model");

    println!("/handoff:");
    match runner.run_command("handoff", "") {
        Some(Ok(())) => {}
        Some(Err(e)) => println!("    failed: {e}"),
        None => println!("    no hook registers /handoff"),
    }
    Ok(())
}

fn short(path: &std::path::Path) -> String {
    let cwd = std::env::current_dir().unwrap_or_default();
    path.strip_prefix(&cwd)
        .map(PathBuf::from)
        .unwrap_or_else(|_| path.to_path_buf())
        .display()
        .to_string()
}
