//! Claude Code's own meaning, checked against Claude Code 2.1.332 where the
//! real-agents suite can run it: the events `UserPromptExpansion`, `PostToolBatch`,
//! `DirectoryAdded` and `MessageDisplay`; the handler fields `args`, `shell`, `async`,
//! `asyncRewake`, `once`, `onFailure` and `continueOnBlock`; and `replay` giving every hook
//! of a recorded session that session's id.

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use agent_hooks::{
    abi::prelude::*,
    command_hook::{CommandEvent, CommandHooks},
    HookRunner,
};
use agent_hooks_tests::{
    cli::{run, stdout},
    commands::Project,
    temp_dir, RecordingAgent,
};
use serde_json::{json, Map, Value};

/// A safety hook that records by session id, as real ones do: a prompt that says "commit"
/// grants git commits for the session (a file named by the session id); a `git commit`
/// without the grant is blocked, asking again. Every run logs the id it got.
const GRANTS: &str = r#"#!/usr/bin/env python3
import json, os, sys
payload = json.load(sys.stdin)
sid, event = payload["session_id"], payload["hook_event_name"]
grants = os.path.join(os.environ["CLAUDE_PROJECT_DIR"], "grants")
os.makedirs(grants, exist_ok=True)
with open(os.path.join(grants, "log"), "a") as log:
    log.write(f"{event} {sid} {payload.get('transcript_path', '-')}\n")
text = json.dumps(payload)
if event == "UserPromptSubmit" and "commit" in text:
    open(os.path.join(grants, sid), "w").close()
if event == "PreToolUse" and "git commit" in text and not os.path.exists(os.path.join(grants, sid)):
    print(f"git commit needs the user's word in this session ({sid})", file=sys.stderr)
    sys.exit(2)
"#;

fn settings(hooks: Value) -> String {
    json!({ "hooks": hooks }).to_string()
}

fn lines(values: &[Value]) -> String {
    values.iter().map(|v| format!("{v}\n")).collect()
}

#[test]
fn replay_gives_a_tool_call_the_session_id_and_transcript_of_its_line() {
    let project = Project::new("grants");
    project.script(".claude/hooks/grants.sh", GRANTS);
    let command = json!([{"hooks": [{"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/grants.sh"}]}]);
    project.write(
        ".claude/settings.json",
        &settings(json!({"UserPromptSubmit": command, "PreToolUse": command})),
    );
    let home = temp_dir();
    let session = json!({"session_id": "3f2c-recorded", "transcript_path": "/t/3f2c.jsonl"});
    let line = |mut fields: Value| {
        for (k, v) in session.as_object().unwrap() {
            fields[k] = v.clone();
        }
        fields
    };
    let replay = lines(&[
        line(json!({"event": "UserPromptSubmit", "prompt": "commit the fix"})),
        line(
            json!({"event": "tool_call", "tool_name": "Bash", "tool_input": {"command": "git commit -m fix"}}),
        ),
        // A line without the session's fields is still that session's.
        json!({"event": "tool_call", "tool_name": "Bash", "tool_input": {"command": "git commit --amend"}}),
    ]);
    let out = run(
        &project.root,
        home.path(),
        &["replay", "-", "--trust-project", "--json"],
        Some(&replay),
    );
    let records: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|record| record.get("event").is_some())
        .collect();
    assert_eq!(records.len(), 3, "{}", stdout(&out));
    for record in &records[1..] {
        assert_ne!(
            record["outcome"]["block"], true,
            "the grant of the session holds: {record}"
        );
    }
    assert_eq!(
        project.read("grants/log"),
        "UserPromptSubmit 3f2c-recorded /t/3f2c.jsonl\n\
         PreToolUse 3f2c-recorded /t/3f2c.jsonl\n\
         PreToolUse 3f2c-recorded /t/3f2c.jsonl\n"
    );
    // Another session's call asks again.
    let other = lines(&[
        json!({"event": "tool_call", "session_id": "other", "tool_name": "Bash", "tool_input": {"command": "git commit"}}),
    ]);
    let out = run(
        &project.root,
        home.path(),
        &["replay", "-", "--trust-project", "--json"],
        Some(&other),
    );
    let record: Value = serde_json::from_str(stdout(&out).lines().next().unwrap()).unwrap();
    assert_eq!(record["outcome"]["block"], true, "{record}");
    assert!(
        record["outcome"]["reason"]
            .as_str()
            .unwrap()
            .contains("this session (other)"),
        "{record}"
    );
}

#[test]
fn the_new_claude_code_events_run_their_hooks_with_their_matchers_and_answers() {
    let project = Project::new("events");
    let log = |tag: &str| format!("cat > \"$CLAUDE_PROJECT_DIR\"/{tag}.json");
    project.write(
        ".claude/settings.json",
        &settings(json!({
            "UserPromptExpansion": [
                {"matcher": "deploy", "hooks": [{"type": "command", "command": format!("{}; echo 'deploys are frozen' >&2; exit 2", log("expansion"))}]},
                {"matcher": "review", "hooks": [{"type": "command", "command": r#"printf '{"hookSpecificOutput": {"hookEventName": "UserPromptExpansion", "additionalContext": "review the tests too"}}'"#}]}
            ],
            "PostToolBatch": [{"hooks": [{"type": "command", "command": format!("{}; echo 'tests fail: fix them first' >&2; exit 2", log("batch"))}]}],
            "DirectoryAdded": [{"matcher": "slash_command", "hooks": [{"type": "command", "command": log("added")}]}],
            "MessageDisplay": [{"hooks": [{"type": "command", "command": r#"printf '{"hookSpecificOutput": {"hookEventName": "MessageDisplay", "displayContent": "[redacted]"}}'"#}]}]
        })),
    );
    let expansion = json!({"expansion_type": "slash_command", "command_name": "deploy", "command_args": "prod", "prompt": "/deploy prod"});
    let outcome = project.emit("UserPromptExpansion", expansion.clone());
    assert_eq!(outcome["block"], true, "{outcome}");
    assert_eq!(
        outcome["reasons"],
        json!(["deploys are frozen"]),
        "{outcome}"
    );
    let got: Value = serde_json::from_str(&project.read("expansion.json")).unwrap();
    assert_eq!(got["hook_event_name"], "UserPromptExpansion");
    assert_eq!(got["command_name"], "deploy");
    assert_eq!(got["command_args"], "prod");
    let review = json!({"expansion_type": "slash_command", "command_name": "review", "command_args": "", "prompt": "/review"});
    let outcome = project.emit("UserPromptExpansion", review);
    assert_eq!(outcome["block"], false, "{outcome}");
    assert_eq!(outcome["context"], json!(["review the tests too"]));

    let batch = json!({"tool_calls": [
        {"tool_name": "Bash", "tool_input": {"command": "cargo test"}, "tool_use_id": "t1", "tool_response": "2 failed"},
        {"tool_name": "Read", "tool_input": {"file_path": "a.rs"}, "tool_use_id": "t2", "tool_response": "fn a() {}"}
    ]});
    let outcome = project.emit("PostToolBatch", batch.clone());
    assert_eq!(outcome["block"], true, "{outcome}");
    let got: Value = serde_json::from_str(&project.read("batch.json")).unwrap();
    assert_eq!(got["tool_calls"], batch["tool_calls"]);

    let outcome = project.emit(
        "DirectoryAdded",
        json!({"directory": "/src/lib", "source": "register_repo_root"}),
    );
    assert_eq!(outcome["ran"], 0, "the matcher is on `source`: {outcome}");
    project.emit(
        "DirectoryAdded",
        json!({"directory": "/src/lib", "source": "slash_command"}),
    );
    let got: Value = serde_json::from_str(&project.read("added.json")).unwrap();
    assert_eq!(got["directory"], "/src/lib");

    let outcome = project.emit(
        "MessageDisplay",
        json!({"turn_id": "t", "message_id": "m", "index": 0, "final": true, "delta": "the key is sk-123\n"}),
    );
    assert_eq!(
        outcome["extra"]["displayContent"], "[redacted]",
        "{outcome}"
    );
}

#[test]
fn hook_agent_claude_answers_the_new_events_in_claude_code_s_form() {
    let project = Project::new("relay");
    let home = temp_dir();
    let hooks = home.path().join(".config/agent-hooks/hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    std::fs::write(
        hooks.join("display.json"),
        json!({
            "MessageDisplay": [{"hooks": [{"type": "command", "command": r#"printf '{"hookSpecificOutput": {"hookEventName": "MessageDisplay", "displayContent": "[redacted]"}}'"#}]}],
            "UserPromptExpansion": [{"matcher": "deploy", "hooks": [{"type": "command", "command": "echo 'deploys are frozen' >&2; exit 2"}]}]
        })
        .to_string(),
    )
    .unwrap();
    let common = json!({"session_id": "s", "transcript_path": "/t/s.jsonl", "cwd": project.root});
    let payload = |fields: Value| {
        let mut payload = common.clone();
        for (k, v) in fields.as_object().unwrap() {
            payload[k] = v.clone();
        }
        payload.to_string()
    };
    let display = payload(
        json!({"hook_event_name": "MessageDisplay", "turn_id": "t", "message_id": "m", "index": 0, "final": true, "delta": "sk-123\n"}),
    );
    let out = run(
        &project.root,
        home.path(),
        &["hook", "--agent", "claude"],
        Some(&display),
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let answer: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        answer["hookSpecificOutput"],
        json!({"hookEventName": "MessageDisplay", "displayContent": "[redacted]"})
    );
    let expansion = payload(
        json!({"hook_event_name": "UserPromptExpansion", "expansion_type": "slash_command", "command_name": "deploy", "command_args": "", "prompt": "/deploy"}),
    );
    let out = run(
        &project.root,
        home.path(),
        &["hook", "--agent", "claude"],
        Some(&expansion),
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("deploys are frozen"));
}

/// `PreModelSwitch`, `PostModelSwitch` and `PreSkillShellCommand` as Claude Code 2.1.332 has
/// them: the model events' matcher on `to_model`, a deny cancelling the switch, context
/// after it; a skill's shell command refused by a deny, an `ask` or a rewrite, run on `allow`.
#[test]
fn the_model_switch_and_skill_shell_command_events_read_as_claude_code_reads_them() {
    let project = Project::new("switch");
    let log = |tag: &str| format!("cat > \"$CLAUDE_PROJECT_DIR\"/{tag}.json");
    let answer = |event: &str, fields: &str| {
        format!(r#"printf '{{"hookSpecificOutput": {{"hookEventName": "{event}", {fields}}}}}'"#)
    };
    project.write(
        ".claude/settings.json",
        &settings(json!({
            "PreModelSwitch": [
                {"matcher": "claude-opus.*", "hooks": [{"type": "command", "command": format!("{}; {}", log("pre-switch"), answer("PreModelSwitch", r#""permissionDecision": "deny", "permissionDecisionReason": "opus costs too much here""#))}]}
            ],
            "PostModelSwitch": [{"hooks": [{"type": "command", "command": answer("PostModelSwitch", r#""additionalContext": "you are now the smaller model""#)}]}],
            "PreSkillShellCommand": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": format!("{log}; case \"$(cat \"$CLAUDE_PROJECT_DIR\"/skill.json)\" in *'\"rm '*) {deny};; *'\"curl '*) {ask};; *'\"sed '*) {rewrite};; *) {allow};; esac",
                    log = log("skill"),
                    deny = answer("PreSkillShellCommand", r#""permissionDecision": "deny", "permissionDecisionReason": "no deletions from skills""#),
                    ask = answer("PreSkillShellCommand", r#""permissionDecision": "ask", "permissionDecisionReason": "network""#),
                    rewrite = answer("PreSkillShellCommand", r#""updatedInput": {"command": "true"}"#),
                    allow = answer("PreSkillShellCommand", r#""permissionDecision": "allow""#))}]}
            ]
        })),
    );
    let switch = |to: &str| {
        json!({"from_model": "claude-sonnet-4-6", "to_model": to, "requested_model": "opus", "source": "command",
               "context_tokens": 1200, "prompt_cache_warm": true, "cache_ttl": "5m", "estimated_cache_write_usd": 0.02, "pricing": "catalog"})
    };
    let outcome = project.emit("PreModelSwitch", switch("claude-opus-4-6"));
    assert_eq!(outcome["block"], true, "{outcome}");
    assert_eq!(
        outcome["reasons"],
        json!(["opus costs too much here"]),
        "{outcome}"
    );
    let got: Value = serde_json::from_str(&project.read("pre-switch.json")).unwrap();
    assert_eq!(got["hook_event_name"], "PreModelSwitch");
    assert_eq!(got["to_model"], "claude-opus-4-6");
    assert_eq!(got["estimated_cache_write_usd"], 0.02);
    let outcome = project.emit("PreModelSwitch", switch("claude-haiku-4-5"));
    assert_eq!(outcome["ran"], 0, "the matcher is on `to_model`: {outcome}");
    assert_eq!(outcome["block"], false, "{outcome}");
    let outcome = project.emit("PostModelSwitch", switch("claude-haiku-4-5"));
    assert_eq!(outcome["block"], false, "{outcome}");
    assert_eq!(
        outcome["context"],
        json!(["you are now the smaller model"]),
        "{outcome}"
    );

    let skill = |command: &str| {
        json!({"tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": "skill-1",
               "command_name": "cleanup", "command_source": "projectSettings", "invoked_by": "user"})
    };
    let outcome = project.emit("PreSkillShellCommand", skill("rm -rf build"));
    assert_eq!(outcome["block"], true, "{outcome}");
    assert_eq!(
        outcome["reasons"],
        json!(["no deletions from skills"]),
        "{outcome}"
    );
    let got: Value = serde_json::from_str(&project.read("skill.json")).unwrap();
    assert_eq!(got["hook_event_name"], "PreSkillShellCommand");
    assert_eq!(got["command_name"], "cleanup");
    assert_eq!(got["invoked_by"], "user");
    assert_eq!(got["tool_input"], json!({"command": "rm -rf build"}));
    let outcome = project.emit("PreSkillShellCommand", skill("curl example.org"));
    assert_eq!(outcome["block"], true, "{outcome}");
    assert_eq!(
        outcome["reasons"],
        json!([
            "network; the hook asked for approval, which a skill's shell command cannot wait for"
        ]),
        "{outcome}"
    );
    let outcome = project.emit("PreSkillShellCommand", skill("sed -i s/a/b/ x"));
    assert_eq!(outcome["block"], true, "{outcome}");
    assert_eq!(
        outcome["reasons"],
        json!(["the hook changed the command, which is not applied to a skill's shell command"]),
        "{outcome}"
    );
    let outcome = project.emit("PreSkillShellCommand", skill("ls"));
    assert_eq!(outcome["block"], false, "{outcome}");
    assert_eq!(outcome["ran"], 1, "{outcome}");
    let mut powershell = skill("ls");
    powershell["tool_name"] = json!("PowerShell");
    let outcome = project.emit("PreSkillShellCommand", powershell);
    assert_eq!(
        outcome["ran"], 0,
        "the matcher is on `tool_name`: {outcome}"
    );
}

/// A runner over the project's `.claude/settings.json` holding `hooks`, with a recording
/// agent; also the file's issues.
fn runner(project: &Project, hooks: Value) -> (Arc<HookRunner>, Arc<RecordingAgent>, Vec<String>) {
    let file = project.write(".claude/settings.json", &settings(hooks));
    let mut loaded = CommandHooks::new();
    loaded.load_file(&file);
    let issues = loaded.issues().iter().map(|i| i.to_string()).collect();
    let mut runner = HookRunner::new(Vec::new(), &project.root);
    runner.add_command_hooks(loaded);
    let agent = Arc::new(RecordingAgent::default());
    runner.attach(agent.clone());
    (Arc::new(runner), agent, issues)
}

fn command(command: &str, extra: Value) -> Value {
    let mut hook = json!({"type": "command", "command": command});
    for (k, v) in extra.as_object().unwrap() {
        hook[k] = v.clone();
    }
    hook
}

fn bash_call(command: &str) -> ToolCallEvent {
    ToolCallEvent::new("exec", "call-1", json!({"command": command}))
}

const ARGV: &str = "import json, os, sys\nopen(os.path.join(os.environ['CLAUDE_PROJECT_DIR'], 'argv.json'), 'w').write(json.dumps(sys.argv[1:]))\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn args_runs_the_program_without_a_shell_and_fills_in_the_project_as_plain_text() {
    // A project folder whose name a shell would take apart.
    let project = Project::new("it's $HOME `x`");
    project.write("hooks/argv.py", ARGV);
    let (runner, _, issues) = runner(
        &project,
        json!({"PreToolUse": [{"hooks": [command("python3", json!({
            "args": ["${CLAUDE_PROJECT_DIR}/hooks/argv.py", "${CLAUDE_PROJECT_DIR}", "$HOME; echo hi"]
        }))]}]}),
    );
    assert!(issues.is_empty(), "{issues:?}");
    runner.emit(&bash_call("ls")).await.unwrap();
    let argv: Vec<String> = serde_json::from_str(&project.read("argv.json")).unwrap();
    let root = project.root.to_string_lossy().into_owned();
    assert_eq!(argv, [root.clone(), "$HOME; echo hi".to_owned()]);
    assert!(root.contains("it's $HOME `x`"), "{root}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shell_bash_runs_the_command_as_claude_code_does_and_an_unknown_shell_is_refused() {
    let project = Project::new("shells");
    let (runner, _, issues) = runner(
        &project,
        json!({"PreToolUse": [{"hooks": [
            // Claude Code 2.1.332 runs it with /bin/sh, whatever its reference says.
            command(r#"echo "${BASH_VERSION:-sh}" > "$CLAUDE_PROJECT_DIR/shell.txt""#, json!({"shell": "bash"})),
            command("echo fish > fish.txt", json!({"shell": "fish"}))
        ]}]}),
    );
    assert_eq!(
        issues,
        [format!(
            "{} (hooks.PreToolUse[0].hooks[1].shell): `shell` must be \"bash\" or \"powershell\", not \"fish\"; this hook does not run",
            project.root.join(".claude/settings.json").display()
        )]
    );
    runner.emit(&bash_call("ls")).await.unwrap();
    let sh_is_bash = std::fs::canonicalize("/bin/sh").is_ok_and(|p| p.ends_with("bash"));
    if !sh_is_bash {
        assert_eq!(project.read("shell.txt"), "sh\n");
    }
    assert!(!project.root.join("fish.txt").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_failure_block_makes_a_failure_count_as_exit_2_on_its_event() {
    let project = Project::new("fail closed");
    let fails = |cmd: &str| command(cmd, json!({"onFailure": "block"}));
    let (runner, _, issues) = runner(
        &project,
        json!({
            "PreToolUse": [{"hooks": [fails("echo 'linter crashed' >&2; exit 1")]}],
            "UserPromptSubmit": [{"hooks": [fails("echo '{not json'")]}],
            "PostToolUse": [{"hooks": [fails("exit 3")]}],
            "Stop": [{"hooks": [fails("exit 1")]}]
        }),
    );
    assert_eq!(issues.len(), 1, "{issues:?}");
    assert!(
        issues[0].contains("`onFailure` is ignored on Stop"),
        "{issues:?}"
    );
    let call = runner.emit(&bash_call("ls")).await.unwrap();
    assert!(call.block, "{call:?}");
    let reason = call.reason.unwrap_or_default();
    assert!(
        reason.contains("exited with code 1: linter crashed")
            && reason.contains("its onFailure is \"block\", so this failure counts as a block"),
        "{reason}"
    );
    let prompt = runner
        .emit(&BeforeAgentStartEvent::default().prompt("hi".to_owned()))
        .await
        .unwrap();
    assert!(prompt.block, "invalid JSON blocks the prompt: {prompt:?}");
    let post = runner
        .emit_command(CommandEvent::PostToolUse, {
            let mut fields = Map::new();
            fields.insert("tool_name".into(), json!("Bash"));
            fields.insert("tool_input".into(), json!({"command": "ls"}));
            fields.insert("tool_response".into(), json!({"output": "a"}));
            fields
        })
        .await;
    assert!(
        post.feedback
            .iter()
            .any(|f| f.contains("exited with code 3")),
        "fed back after the fact: {post:?}"
    );
    let stop = runner.emit(&StopEvent::default()).await.unwrap();
    assert!(!stop.block, "ignored on Stop: {stop:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn async_rewake_runs_in_the_background_and_its_exit_2_wakes_the_agent() {
    let project = Project::new("rewake");
    let (runner, agent, issues) = runner(
        &project,
        json!({"PostToolUse": [{"hooks": [
            command("sleep 1; echo 'the tests broke' >&2; exit 2", json!({"asyncRewake": true})),
            command("sleep 1; echo 'fine' >&2; exit 0", json!({"asyncRewake": true})),
            command("echo x", json!({"continueOnBlock": true}))
        ]}]}),
    );
    assert_eq!(issues.len(), 1, "{issues:?}");
    assert!(issues[0].contains("`continueOnBlock` applies to prompt and agent hooks"));
    let started = Instant::now();
    let mut fields = Map::new();
    fields.insert("tool_name".into(), json!("Bash"));
    fields.insert("tool_input".into(), json!({"command": "cargo test"}));
    fields.insert("tool_response".into(), json!({"output": "ok"}));
    let outcome = runner.emit_command(CommandEvent::PostToolUse, fields).await;
    assert!(
        started.elapsed() < Duration::from_millis(900),
        "not waited for"
    );
    assert!(outcome.feedback.is_empty(), "{outcome:?}");
    let deadline = Instant::now() + Duration::from_secs(20);
    while agent.messages.lock().unwrap().is_empty() {
        assert!(Instant::now() < deadline, "never woke the agent");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let messages = agent.messages.lock().unwrap().clone();
    assert_eq!(messages.len(), 1, "only the exit 2 wakes: {messages:?}");
    assert_eq!(messages[0].custom_type, "hook-rewake");
    assert_eq!(messages[0].content, Content::Text("the tests broke".into()));
    assert!(agent.message_options.lock().unwrap()[0].trigger_turn);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn once_in_a_claude_code_settings_file_runs_every_time_as_under_claude_code() {
    let project = Project::new("once");
    let (runner, _, issues) = runner(
        &project,
        json!({"PreToolUse": [{"hooks": [command("echo run >> runs.txt", json!({"once": true}))]}]}),
    );
    assert_eq!(issues.len(), 1, "{issues:?}");
    assert!(issues[0].contains("Claude Code honours `once` only in skill and agent hooks"));
    runner.emit(&bash_call("ls")).await.unwrap();
    runner.emit(&bash_call("ls")).await.unwrap();
    assert_eq!(project.read("runs.txt"), "run\nrun\n");
}

#[test]
fn doctor_reads_the_exec_form_and_names_a_missing_script() {
    let project = Project::new("doctor");
    project.write(
        ".claude/settings.json",
        &settings(json!({"PreToolUse": [{"hooks": [
            command("python3", json!({"args": ["${CLAUDE_PROJECT_DIR}/hooks/missing guard.py", "--strict"]}))
        ]}]})),
    );
    let home = temp_dir();
    let out = run(
        &project.root,
        home.path(),
        &["doctor", "--trust-project"],
        None,
    );
    let text = format!("{}{}", stdout(&out), String::from_utf8_lossy(&out.stderr));
    // One argument, spaces and all: no shell splits it.
    assert!(
        text.contains("`python3` runs hooks/missing guard.py, which does not exist"),
        "{text}"
    );
}
