//! Interface 1.1: native plugins can do what command hooks do. `ToolCallResult::ask` has
//! the runner's ask semantics (confirmed through the UI after every hook ran, blocked with
//! the reason on "no" or without a UI, combined with command hooks' asks), and a
//! `session_start` handler adds context, kept with command hooks' context. The `boundary`
//! fixture, in process and in a plugin process, with real command hooks.

use std::sync::{
    atomic::{AtomicUsize, Ordering},
    Arc,
};

use agent_hooks::{
    abi::prelude::*, command_hook::CommandHooks, load_hooks_with, HookRunner, HookToolWrapper,
    LoadOptions, PluginConfig, Tool, ToolCallError, ToolError, ToolOutput,
};
use agent_hooks_tests::{commands::Project, isolated, plugin, s, RecordingAgent};

const QUESTION: &str = "boundary asks: run `deploy`?";

/// Counts its runs.
#[derive(Default)]
struct Exec {
    runs: AtomicUsize,
}

impl Tool for Exec {
    fn name(&self) -> &str {
        "exec"
    }

    async fn execute(&self, _id: &str, _input: Value) -> Result<ToolOutput, ToolError> {
        self.runs.fetch_add(1, Ordering::SeqCst);
        Ok(ToolOutput {
            content: vec![ContentBlock::text("deployed")],
            details: Value::Null,
        })
    }
}

/// The fixture configured to ask about `deploy` and to greet at session start, with the
/// command hooks of `hooks` (a hooks file's JSON), attached to `agent`.
/// The project is returned so that it lives as long as the runner.
fn runner(
    options: &LoadOptions,
    hooks: Option<Value>,
    agent: Arc<RecordingAgent>,
) -> (HookRunner, Project) {
    let project = Project::new("parity");
    let mut options = options.clone();
    options.configs.insert(
        "libboundary.so".into(),
        PluginConfig {
            value: json!({"ask": ["deploy"], "greeting": "from the plugin"}),
            source: "test".into(),
        },
    );
    let loaded = load_hooks_with([s(&plugin("boundary"))], &project.root, &options);
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    let mut runner = HookRunner::new(loaded.hooks, &project.root);
    if let Some(hooks) = hooks {
        let file = project.write("hooks.json", &hooks.to_string());
        let mut commands = CommandHooks::new();
        commands.load_file(&file);
        assert!(commands.issues().is_empty(), "{:?}", commands.issues());
        runner.add_command_hooks(commands);
    }
    runner.attach(agent);
    (runner, project)
}

fn modes() -> [LoadOptions; 2] {
    [LoadOptions::in_process(), isolated()]
}

async fn deploy(
    (runner, _project): (HookRunner, Project),
) -> (Result<ToolOutput, ToolCallError>, usize) {
    let tool = HookToolWrapper::new(Exec::default(), Arc::new(runner));
    let result = tool.execute("call-1", json!({"command": "deploy"})).await;
    (result, tool.tool().runs.load(Ordering::SeqCst))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ask_runs_the_tool_when_the_user_confirms() {
    for options in modes() {
        let agent = Arc::new(RecordingAgent::with_ui(true));
        let (result, runs) = deploy(runner(&options, None, agent.clone())).await;
        assert_eq!(result.unwrap().content, [ContentBlock::text("deployed")]);
        assert_eq!(runs, 1);
        assert_eq!(
            agent.ui_calls(),
            [format!("confirm Allow exec?: {QUESTION}")]
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ask_blocks_with_its_reason_when_the_user_says_no_or_there_is_no_ui() {
    for options in modes() {
        for agent in [RecordingAgent::with_ui(false), RecordingAgent::default()] {
            let agent = Arc::new(agent);
            let (result, runs) = deploy(runner(&options, None, agent.clone())).await;
            let error = result.unwrap_err();
            assert_eq!(
                error.to_string(),
                format!("Not confirmed by the user: {QUESTION}")
            );
            assert!(matches!(
                error,
                ToolCallError::Blocked {
                    hook_error: None,
                    ..
                }
            ));
            assert_eq!(runs, 0);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn native_and_command_hook_asks_are_asked_together_native_first() {
    let hooks = json!({"PreToolUse": [{"matcher": "exec", "hooks": [{"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"ask\", \"permissionDecisionReason\": \"the command hook asks\"}}'"}]}]});
    for options in modes() {
        let agent = Arc::new(RecordingAgent::with_ui(false));
        let (runner, _project) = runner(&options, Some(hooks.clone()), agent.clone());
        let outcome = runner
            .emit(&ToolCallEvent::new(
                "exec",
                "call-1",
                json!({"command": "deploy"}),
            ))
            .await
            .unwrap();
        assert!(!outcome.block);
        assert_eq!(
            outcome.ask.as_deref(),
            Some(format!("{QUESTION}\nthe command hook asks").as_str())
        );
        // A call the plugin does not ask about: only the command hook's question.
        let outcome = runner
            .emit(&ToolCallEvent::new(
                "exec",
                "call-2",
                json!({"command": "ls"}),
            ))
            .await
            .unwrap();
        assert_eq!(outcome.ask.as_deref(), Some("the command hook asks"));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_start_context_comes_from_plugins_then_command_hooks() {
    let hooks = json!({"SessionStart": [{"hooks": [{"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"SessionStart\", \"additionalContext\": \"from the command hook\"}}'"}]}]});
    for options in modes() {
        let agent = Arc::new(RecordingAgent::default());
        let (runner, _project) = runner(&options, Some(hooks.clone()), agent);
        let outcome = runner
            .emit(&SessionStartEvent::default().source("startup"))
            .await
            .unwrap();
        assert_eq!(
            outcome.context,
            ["from the plugin", "from the command hook"]
        );
    }
}

/// `agent-hooks emit` says that the call asks, instead of "allowed".
#[test]
fn emit_shows_an_ask() {
    let dir = agent_hooks_tests::temp_dir();
    let library = agent_hooks_tests::copy_to(&plugin("boundary"), dir.path(), "libboundary.so");
    std::fs::write(dir.path().join("libboundary.toml"), "ask = [\"deploy\"]\n").unwrap();
    let home = agent_hooks_tests::temp_dir();
    let output = agent_hooks_tests::cli::run(
        dir.path(),
        home.path(),
        &[
            "emit",
            "tool_call",
            "--input",
            r#"{"tool_name": "exec", "input": {"command": "deploy"}}"#,
            "--no-discover",
            "--hook",
            &s(&library),
        ],
        None,
    );
    let text = agent_hooks_tests::cli::stdout(&output);
    assert_eq!(
        text.lines().next(),
        Some(
            format!(
                "tool_call asks the user: {QUESTION} (the agent confirms; blocked without a UI)"
            )
            .as_str()
        ),
        "{text}"
    );
}
