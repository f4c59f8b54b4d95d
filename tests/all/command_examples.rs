//! Ten examples of command hooks (docs/command-hooks.md), written as a user would write
//! them, working as written.
//! One test, in a process of its own, because examples 4 and 8 write under `~` and so `HOME`
//! is pointed at a temporary folder first.

use agent_hooks::{abi::prelude::*, HookToolWrapper, Tool, ToolError, ToolOutput};
use agent_hooks_tests::{
    commands::{CommandRig, Project},
    temp_dir,
};

/// The agent's shell tool, standing in: echoes the command it was given.
struct Exec;

impl Tool for Exec {
    fn name(&self) -> &str {
        "exec"
    }

    async fn execute(&self, _id: &str, input: Value) -> Result<ToolOutput, ToolError> {
        let command = input["command"].as_str().unwrap_or_default().to_owned();
        Ok(ToolOutput {
            content: vec![ContentBlock::text(format!("ran: {command}"))],
            details: json!({}),
        })
    }
}

const HOOKS: &str = r#"{
  "PreToolUse": [
    { "matcher": "exec",
      "hooks": [ { "type": "command", "command": "python3 -c \"import json,sys; c=json.load(sys.stdin)['tool_input'].get('command',''); sys.exit(0) if 'rm -rf' not in c else (print('Destructive command blocked: ' + c, file=sys.stderr), sys.exit(2))\"" } ] },
    { "matcher": "edit",
      "hooks": [ { "type": "command", "command": "./scripts/check-edit-path.sh", "timeout": 5 } ] },
    { "matcher": "^exec$",
      "hooks": [ { "type": "command", "command": "./scripts/rewrite.sh" } ] }
  ],
  "PostToolUse": [
    { "matcher": "exec",
      "hooks": [ { "type": "command", "command": "sh -c 'cat >> ~/.agent-hooks-command-log'" } ] }
  ],
  "PermissionRequest": [
    { "matcher": "exec",
      "hooks": [ { "type": "command", "command": "python3 -c \"import json,sys; c=json.load(sys.stdin)['tool_input'].get('command',''); print(json.dumps({'decision': 'approve'}) if c.startswith('git ') else '')\"" } ] }
  ],
  "UserPromptSubmit": [
    { "hooks": [ { "type": "command", "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"UserPromptSubmit\", \"additionalContext\": \"Deploys require an approved change ticket.\"}}'" } ] }
  ],
  "Stop": [
    { "hooks": [ { "type": "command", "command": "echo '{\"decision\":\"block\",\"reason\":\"Please run the test suite before stopping.\"}'" } ] }
  ],
  "PostCompaction": [
    { "hooks": [ { "type": "command", "command": "sh -c 'cat >> ~/.agent-hooks-compaction-log'" } ] }
  ],
  "SessionStart": [
    { "hooks": [ { "type": "command", "command": "./scripts/setup.sh", "timeout": 10 } ] }
  ]
}"#;

const AUDIT: &str = r#"{
  "PreToolUse": [ { "hooks": [ { "type": "command", "command": "./scripts/audit.sh" } ] } ],
  "PostToolUse": [ { "hooks": [ { "type": "command", "command": "./scripts/audit.sh" } ] } ]
}"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ten_examples_of_spec_02() {
    if !agent_hooks_tests::alone_in_process(module_path!(), "the_ten_examples_of_spec_02") {
        return;
    }
    let home = temp_dir();
    std::env::set_var("HOME", home.path());
    let project = Project::new("demo project");
    project.script(
        "scripts/check-edit-path.sh",
        "#!/bin/sh\npath=$(python3 -c 'import json,sys; print(json.load(sys.stdin)[\"tool_input\"][\"path\"])')\ncase \"$path\" in\n  src/*) exit 0 ;;\n  *) printf '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"ask\", \"permissionDecisionReason\": \"%s is outside src/\"}}' \"$path\" ;;\nesac\n",
    );
    project.script(
        "scripts/rewrite.sh",
        "#!/bin/sh\nif grep -q '\"git status\"'; then echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"updatedInput\": {\"command\": \"rtk git status\"}}}'; fi\n",
    );
    project.script(
        "scripts/setup.sh",
        "#!/bin/sh\ntouch .setup-done\necho 'Node 22 and pnpm are installed.'\n",
    );
    project.script("scripts/audit.sh", "#!/bin/sh\npython3 -c 'import json,sys; d=json.load(sys.stdin); print(d[\"hook_event_name\"], d.get(\"tool_name\"))' >> audit.log\n");
    let hooks = project.write(".agent-hooks/hooks.json", HOOKS);
    let audit = project.write(".agent-hooks/audit.json", AUDIT);
    let rig = CommandRig::new(&project.root, &[hooks, audit]);
    let exec = HookToolWrapper::new(Exec, rig.runner.clone());

    // 9. Set-up script on SessionStart, which also adds context.
    let start = rig
        .runner
        .emit(&SessionStartEvent::default().source("startup"))
        .await
        .unwrap();
    assert_eq!(start.context, ["Node 22 and pnpm are installed."]);
    assert!(project.root.join(".setup-done").exists());

    // 6. Context injected on every prompt.
    let prompt = rig
        .runner
        .emit(
            &BeforeAgentStartEvent::default()
                .prompt("deploy it")
                .images(vec![]),
        )
        .await
        .unwrap();
    assert!(!prompt.block);
    assert_eq!(
        prompt.context,
        ["Deploys require an approved change ticket."]
    );

    // 1. Destructive commands blocked (exit 2, stderr as the reason).
    let blocked = exec
        .execute("1", json!({"command": "rm -rf /"}))
        .await
        .unwrap_err();
    assert_eq!(blocked.to_string(), "Destructive command blocked: rm -rf /");

    // 3. Commands rewritten: the tool runs `rtk git status`.
    let rewritten = exec
        .execute("2", json!({"command": "git status"}))
        .await
        .unwrap();
    assert_eq!(
        rewritten.content,
        [ContentBlock::text("ran: rtk git status")]
    );

    // 4. Every shell command logged after it ran (under ~).
    let log = std::fs::read_to_string(home.path().join(".agent-hooks-command-log")).unwrap();
    let logged: Value = serde_json::from_str(log.lines().next().unwrap()).unwrap();
    assert_eq!(logged["hook_event_name"], "PostToolUse");
    assert_eq!(logged["tool_input"]["command"], "rtk git status");
    assert_eq!(logged["tool_response"]["success"], true);
    assert_eq!(logged["tool_response"]["output"], "ran: rtk git status");
    assert!(logged["prompt_id"].as_str().unwrap().starts_with("prompt-"));

    // 2. Writes outside src/ need a confirmation: without a UI, that is a no.
    let edit = rig
        .runner
        .emit(
            &ToolCallEvent::default()
                .tool_name("edit")
                .input(json!({"path": "etc/passwd"})),
        )
        .await
        .unwrap();
    assert_eq!(edit.ask.as_deref(), Some("etc/passwd is outside src/"));
    let inside = rig
        .runner
        .emit(
            &ToolCallEvent::default()
                .tool_name("edit")
                .input(json!({"path": "src/main.rs"})),
        )
        .await
        .unwrap();
    assert_eq!(inside.ask, None);

    // 5. git commands approved without asking; others left to the user.
    let git = PermissionRequestEvent::default()
        .tool_name("exec")
        .input(json!({"command": "git log"}));
    assert_eq!(
        rig.runner.emit(&git).await.unwrap().decision,
        Some(PermissionDecision::Approve)
    );
    let other = PermissionRequestEvent::default()
        .tool_name("exec")
        .input(json!({"command": "make"}));
    assert_eq!(rig.runner.emit(&other).await.unwrap().decision, None);

    // 7. A reminder keeps the agent going, and the loop is bounded.
    let stop = rig.runner.emit(&StopEvent::default()).await.unwrap();
    assert!(stop.block);
    assert_eq!(stop.reasons, ["Please run the test suite before stopping."]);
    let mut stops = 1;
    while rig.runner.emit(&StopEvent::default()).await.unwrap().block {
        stops += 1;
        assert!(stops <= 8);
    }
    assert_eq!(stops, 8);

    // 8. Compactions logged (under ~).
    rig.runner
        .emit(
            &SessionCompactEvent::default()
                .summary("did things")
                .from_hook(false),
        )
        .await
        .unwrap();
    let log = std::fs::read_to_string(home.path().join(".agent-hooks-compaction-log")).unwrap();
    let logged: Value = serde_json::from_str(log.trim()).unwrap();
    assert_eq!(logged["hook_event_name"], "PostCompaction");
    assert_eq!(logged["summary"], "did things");

    // 10. One file runs the same script before and after each tool.
    let audit_log = project.read("audit.log");
    assert_eq!(
        audit_log.lines().collect::<Vec<_>>(),
        [
            "PreToolUse exec",
            "PreToolUse exec",
            "PostToolUse exec",
            "PreToolUse edit",
            "PreToolUse edit",
        ]
    );

    assert!(
        rig.error_messages()
            .iter()
            .all(|m| m.starts_with("stop hooks kept")),
        "{:?}",
        rig.error_messages()
    );
}
