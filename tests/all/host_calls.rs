//! Hooks the agent answers itself: Claude Code's `mcp_tool`, `prompt` and `agent` types run
//! through `AgentHost` (`call_mcp_tool`, `prompt_model`, `run_subagent`). A host that
//! implements them is asked, with the payload filled in; one that does not gives a report
//! that says "not supported by this agent", never a silent skip; a required hook that gets
//! no answer blocks. The program answers them from `--host-script FILE`.

use std::{
    path::Path,
    sync::{Arc, Mutex},
    time::Duration,
};

use agent_hooks::{
    command_hook::{CommandEvent, CommandHooks},
    AgentHost, HookRunner, HostCallError, McpToolCall, ModelRequest,
};
use agent_hooks_tests::{
    cli::{json_of, run, stdout},
    commands::Project,
};
use serde_json::{json, Map, Value};

const SETTINGS: &str = r#"{"hooks": {
  "PreToolUse": [{"matcher": "Bash", "hooks": [
    {"type": "mcp_tool", "server": "scanner", "tool": "scan", "input": {"command": "${tool_input.command}", "cwd": "${cwd}"}},
    {"type": "prompt", "prompt": "Is this safe? $ARGUMENTS", "model": "fast"}
  ]}],
  "Stop": [{"hooks": [{"type": "agent", "prompt": "Are the tests green?", "timeout": 5}]}]
}}"#;

/// A host whose MCP server and model answer from a script, recording what they were asked.
#[derive(Default)]
struct ModelHost {
    asked: Mutex<Vec<String>>,
    tool_answer: Option<String>,
    model_answer: Option<String>,
    slow: bool,
}

impl AgentHost for ModelHost {
    fn call_mcp_tool(&self, call: &McpToolCall) -> Result<String, HostCallError> {
        self.asked
            .lock()
            .unwrap()
            .push(format!("mcp {}/{} {}", call.server, call.tool, call.input));
        self.tool_answer
            .clone()
            .ok_or_else(|| HostCallError::Failed("scanner is not connected".into()))
    }

    fn prompt_model(&self, request: &ModelRequest) -> Result<String, HostCallError> {
        if self.slow {
            std::thread::sleep(Duration::from_secs(3));
        }
        self.asked
            .lock()
            .unwrap()
            .push(format!("prompt {:?} {}", request.model, request.prompt));
        Ok(self
            .model_answer
            .clone()
            .unwrap_or_else(|| r#"{"ok": true}"#.into()))
    }

    fn run_subagent(&self, request: &ModelRequest) -> Result<String, HostCallError> {
        self.asked.lock().unwrap().push(format!(
            "agent {}",
            request.prompt.lines().next().unwrap_or_default()
        ));
        Ok(r#"{"ok": false, "reason": "two tests fail"}"#.into())
    }
}

fn rig(
    project: &Path,
    settings: &str,
    host: Arc<ModelHost>,
) -> (HookRunner, Arc<Mutex<Vec<String>>>) {
    let mut hooks = CommandHooks::new();
    hooks.parse(settings, &project.join(".claude/settings.json"));
    assert!(hooks.issues().is_empty(), "{:?}", hooks.issues());
    let mut runner = HookRunner::new(Vec::new(), project);
    runner.add_command_hooks(hooks);
    runner.attach(host);
    let errors = Arc::new(Mutex::new(Vec::new()));
    let sink = errors.clone();
    runner.on_error(move |e| sink.lock().unwrap().push(e.message.clone()));
    (runner, errors)
}

fn bash(command: &str) -> Map<String, Value> {
    json!({"tool_name": "Bash", "tool_input": {"command": command}})
        .as_object()
        .unwrap()
        .clone()
}

#[tokio::test]
async fn a_host_that_implements_them_is_asked_with_the_payload_and_its_answers_decide() {
    let project = Project::new("p");
    let host = Arc::new(ModelHost {
        tool_answer: Some(
            r#"{"decision": "block", "reason": "the scanner found a secret"}"#.into(),
        ),
        model_answer: Some(r#"{"ok": false, "reason": "it deletes the home folder"}"#.into()),
        ..ModelHost::default()
    });
    let (runner, errors) = rig(&project.root, SETTINGS, host.clone());
    let outcome = runner
        .emit_command(CommandEvent::PreToolUse, bash("rm -rf ~"))
        .await;
    assert!(outcome.block, "{outcome:?}");
    assert_eq!(
        outcome.reasons,
        ["the scanner found a secret", "it deletes the home folder"]
    );
    assert!(
        errors.lock().unwrap().is_empty(),
        "{:?}",
        errors.lock().unwrap()
    );
    let asked = host.asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 2, "{asked:?}");
    let root = project.root.to_string_lossy().into_owned();
    assert!(
        asked.contains(&format!(
            "mcp scanner/scan {}",
            json!({"command": "rm -rf ~", "cwd": root})
        )),
        "{asked:?}"
    );
    let prompt = asked.iter().find(|a| a.starts_with("prompt")).unwrap();
    assert!(
        prompt.starts_with(r#"prompt Some("fast") Is this safe? {"#)
            && prompt.contains(r#""tool_name":"Bash""#)
            && prompt.contains(r#""hook_event_name":"PreToolUse""#),
        "{prompt}"
    );

    // An agent hook's `ok: false` on Stop keeps the agent going, with the reason.
    let outcome = runner.emit_command(CommandEvent::Stop, Map::new()).await;
    assert!(outcome.block, "{outcome:?}");
    assert_eq!(outcome.reasons, ["two tests fail"]);
    assert!(host
        .asked
        .lock()
        .unwrap()
        .contains(&"agent Are the tests green?".to_owned()));

    // `ok: true` and a failed tool call decide nothing; the failure is reported.
    let host = Arc::new(ModelHost::default());
    let (runner, errors) = rig(&project.root, SETTINGS, host);
    let outcome = runner
        .emit_command(CommandEvent::PreToolUse, bash("ls"))
        .await;
    assert!(!outcome.block, "{outcome:?}");
    assert_eq!(
        errors.lock().unwrap().clone(),
        ["`mcp_tool scanner/scan` scanner is not connected"]
    );
}

#[tokio::test]
async fn a_host_that_does_not_implement_them_says_so_and_a_required_one_blocks() {
    let project = Project::new("p");
    let settings = r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "prompt", "prompt": "Safe?"},
        {"type": "mcp_tool", "server": "s", "tool": "t", "required": true}
    ]}]}}"#;
    let mut hooks = CommandHooks::new();
    hooks.parse(settings, &project.root.join(".claude/settings.json"));
    let mut runner = HookRunner::new(Vec::new(), &project.root);
    runner.add_command_hooks(hooks);
    let errors = Arc::new(Mutex::new(Vec::new()));
    let sink = errors.clone();
    runner.on_error(move |e| sink.lock().unwrap().push(e.message.clone()));
    let outcome = runner
        .emit_command(CommandEvent::PreToolUse, bash("ls"))
        .await;
    assert_eq!(
        errors.lock().unwrap().clone(),
        [
            "`prompt: Safe?` this agent does not support `prompt` hooks (AgentHost::prompt_model is not implemented); the hook did not run",
            "`mcp_tool s/t` this agent does not support `mcp_tool` hooks (AgentHost::call_mcp_tool is not implemented); the hook did not run",
        ]
    );
    // The required one fails closed.
    assert!(outcome.block, "{outcome:?}");
}

#[tokio::test]
async fn a_host_that_does_not_answer_in_time_is_cut_at_the_timeout() {
    let project = Project::new("p");
    let settings = r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "prompt", "prompt": "Safe?", "timeout": 0.5}]}]}}"#;
    let host = Arc::new(ModelHost {
        slow: true,
        ..ModelHost::default()
    });
    let (runner, errors) = rig(&project.root, settings, host);
    let started = std::time::Instant::now();
    let outcome = runner
        .emit_command(CommandEvent::PreToolUse, bash("ls"))
        .await;
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert!(!outcome.block);
    assert_eq!(
        errors.lock().unwrap().clone(),
        ["`prompt: Safe?` the agent did not answer this `prompt` hook within its timeout of 0.5 s (AgentHost::prompt_model was still running)"]
    );
}

#[test]
fn the_program_answers_them_from_a_host_script() {
    let project = Project::new("p");
    project.write(".claude/settings.json", SETTINGS);
    let home = project.root.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let script = project.write(
        "answers.json",
        &json!({
            "mcp_tool": {"scanner/scan": [{"error": "scanner crashed"}, "all clear"]},
            "prompt": {"ok": false, "reason": "not on Fridays"},
            "agent": [r#"{"ok": true}"#]
        })
        .to_string(),
    );
    let input = r#"{"tool_name": "Bash", "tool_input": {"command": "deploy"}}"#;
    let emit = |args: &[&str]| {
        let mut all = vec![
            "emit",
            "--trust-project",
            "--json",
            "PreToolUse",
            "--input",
            input,
        ];
        all.extend_from_slice(args);
        json_of(&run(&project.root, &home, &all, None))
    };
    let first = emit(&["--host-script", script.to_str().unwrap()]);
    assert_eq!(first["block"], true, "{first:#}");
    assert_eq!(first["reason"], "not on Fridays", "{first:#}");
    // The event's hooks run at once: their calls are recorded in the order they came.
    let activity = first["activity"].as_array().unwrap();
    assert_eq!(activity.len(), 2, "{first:#}");
    let call = |kind: &str| {
        activity
            .iter()
            .find(|a| a["call"] == kind)
            .unwrap_or_else(|| panic!("no {kind} call: {first:#}"))
    };
    assert_eq!(call("mcp_tool")["input"]["command"], "deploy");
    assert_eq!(
        call("mcp_tool")["answer"],
        json!({"error": "scanner crashed"})
    );
    assert!(call("prompt")["prompt"]
        .as_str()
        .unwrap()
        .starts_with("Is this safe? {"));
    assert!(
        first["errors"].to_string().contains("scanner crashed"),
        "{first:#}"
    );

    // Without a script, each says it is not supported and how to answer it.
    let bare = emit(&[]);
    assert_eq!(bare["block"], false, "{bare:#}");
    let errors = bare["errors"].to_string();
    assert!(
        errors.contains("this agent does not support `prompt` hooks (AgentHost::prompt_model is not implemented): the agent-hooks program answers them only from --host-script FILE (docs/cli.md); the hook did not run"),
        "{bare:#}"
    );
    assert!(
        errors.contains("does not support `mcp_tool` hooks"),
        "{bare:#}"
    );

    // A script with no answer for a kind names the file and what is missing.
    let partial = project.write("partial.json", r#"{"prompt": "{\"ok\": true}"}"#);
    let out = emit(&["--host-script", partial.to_str().unwrap()]);
    assert!(
        out["errors"].to_string().contains(&format!(
            "--host-script {} has no answer for `mcp_tool` \\\"scanner/scan\\\"",
            partial.display()
        )),
        "{out:#}"
    );

    // `list` names their type; `doctor` says who answers them.
    let list = json_of(&run(
        &project.root,
        &home,
        &["list", "--trust-project", "--json"],
        None,
    ));
    let types: Vec<&str> = list["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["type"].as_str().unwrap())
        .collect();
    assert_eq!(types, ["mcp_tool", "prompt", "agent"], "{list:#}");
    let doctor = json_of(&run(
        &project.root,
        &home,
        &["doctor", "--trust-project", "--json"],
        None,
    ));
    assert!(
        doctor["notes"].to_string().contains("`prompt: Is this safe? $ARGUMENTS` is a `prompt` hook: the agent answers it (AgentHost::prompt_model); the agent-hooks program answers it only from --host-script FILE"),
        "{doctor:#}"
    );

    // The text output shows the calls with their answers.
    let text = stdout(&run(
        &project.root,
        &home,
        &[
            "emit",
            "--trust-project",
            "--host-script",
            script.to_str().unwrap(),
            "PreToolUse",
            "--input",
            input,
        ],
        None,
    ));
    assert!(
        text.contains(r#"mcp_tool scanner/scan {"command":"deploy","cwd":"#),
        "{text}"
    );
    assert!(text.contains(r#"prompt "Is this safe? {"#), "{text}");
}

#[test]
fn a_bad_host_script_stops_the_command_with_what_to_fix() {
    let project = Project::new("p");
    let home = project.root.join("home");
    std::fs::create_dir_all(&home).unwrap();
    for (text, expected) in [
        (
            "[1, 2]",
            "must hold a JSON object with the keys `mcp_tool`, `prompt` and `agent`",
        ),
        (
            r#"{"prompts": []}"#,
            "unknown key `prompts` (known: `mcp_tool`, `prompt`, `agent`)",
        ),
        (
            r#"{"mcp_tool": {"scan": "x"}}"#,
            "`mcp_tool` key `scan` must name `server/tool`",
        ),
        (
            "{",
            "not JSON: EOF while parsing an object at line 1 column 1",
        ),
    ] {
        let file = project.write("bad.json", text);
        let output = run(
            &project.root,
            &home,
            &[
                "emit",
                "--host-script",
                file.to_str().unwrap(),
                "Stop",
                "--input",
                "{}",
            ],
            None,
        );
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{text}: {stderr}");
        assert!(
            stderr.contains(&format!("--host-script {}: {expected}", file.display())),
            "{text}: {stderr}"
        );
    }
}
