//! Hooks written for Claude Code, Codex, Gemini CLI and Devin, run unchanged:
//! a conformance test per event of the registry (payload fields, matcher subject, blocking,
//! answers) with real python3 and sh scripts that read stdin as real hooks do, each answer
//! field and combination rule, the hook fields `if`/`async`/`once`/`statusMessage`, the
//! environment (`CLAUDE_PLUGIN_ROOT`, `CLAUDE_ENV_FILE`, `GEMINI_PROJECT_DIR`), a Claude
//! Code plugin folder, one hooks file per other dialect, and tool names and inputs mapped
//! both ways.

use std::{
    path::{Path, PathBuf},
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use agent_hooks::{
    abi::prelude::*,
    agents::Agent,
    command_hook::{
        shell_quote, CommandEvent, CommandHookReport, CommandHooks, HookKind, ToolAlias, ToolNames,
        EVENTS,
    },
    discover_and_load_hooks_with, DiscoveryOptions, HookError, HookRunner,
};
use agent_hooks_tests::{commands::Project, temp_dir, RecordingAgent};

/// The recording hook: logs its stdin and a few environment variables as one JSON line,
/// then answers with `answers/<tag>.json` on stdout, `answers/<tag>.err` on stderr and the
/// exit code in `answers/<tag>.code`.
const RECORDER: &str = r#"import json, os, sys
tag = sys.argv[1]
payload = json.load(sys.stdin)
here = os.path.dirname(os.path.abspath(__file__))
names = ["CLAUDE_PROJECT_DIR", "CLAUDE_PLUGIN_ROOT", "CLAUDE_ENV_FILE", "GEMINI_PROJECT_DIR", "DEVIN_PROJECT_DIR"]
env = {k: os.environ.get(k) for k in names}
with open(os.path.join(here, "log.jsonl"), "a") as log:
    log.write(json.dumps({"tag": tag, "payload": payload, "env": env}) + "\n")
answer = os.path.join(here, "answers", tag)
if os.path.exists(answer + ".json"):
    sys.stdout.write(open(answer + ".json").read())
if os.path.exists(answer + ".err"):
    sys.stderr.write(open(answer + ".err").read())
sys.exit(int(open(answer + ".code").read()) if os.path.exists(answer + ".code") else 0)
"#;

/// A project with the recorder in `hooks/record.py`.
struct Lab {
    project: Project,
}

impl Lab {
    fn new() -> Self {
        let project = Project::new("my project");
        project.write("hooks/record.py", RECORDER);
        Self { project }
    }

    fn root(&self) -> &Path {
        &self.project.root
    }

    /// The command of a recording hook tagged `tag`.
    fn hook(&self, tag: &str) -> String {
        let script = self.project.root.join("hooks/record.py");
        format!("python3 {} {tag}", shell_quote(&script.to_string_lossy()))
    }

    /// `tag` answers with `json` on stdout.
    fn answer(&self, tag: &str, json: Value) {
        self.project
            .write(&format!("hooks/answers/{tag}.json"), &json.to_string());
    }

    /// `tag` exits with `code`, saying `stderr`.
    fn exit(&self, tag: &str, code: i32, stderr: &str) {
        self.project
            .write(&format!("hooks/answers/{tag}.code"), &code.to_string());
        self.project
            .write(&format!("hooks/answers/{tag}.err"), stderr);
    }

    /// Every logged run, in order.
    fn log(&self) -> Vec<Value> {
        self.project
            .read("hooks/log.jsonl")
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// The payloads `tag` got.
    fn seen(&self, tag: &str) -> Vec<Value> {
        self.log()
            .into_iter()
            .filter(|l| l["tag"] == tag)
            .map(|l| l["payload"].clone())
            .collect()
    }

    /// The tags that ran, in log order.
    fn tags(&self) -> Vec<String> {
        let mut tags: Vec<String> = self
            .log()
            .iter()
            .map(|l| l["tag"].as_str().unwrap().to_owned())
            .collect();
        tags.sort();
        tags
    }
}

/// A runner over `hooks`, with an agent that records (and a UI when `ui`).
struct Rig {
    runner: Arc<HookRunner>,
    agent: Arc<RecordingAgent>,
    reports: Arc<Mutex<Vec<CommandHookReport>>>,
    errors: Arc<Mutex<Vec<HookError>>>,
}

impl Rig {
    fn new(root: &Path, hooks: CommandHooks, ui: bool) -> Self {
        assert!(hooks.issues().is_empty(), "{:?}", hooks.issues());
        let mut runner = HookRunner::new(Vec::new(), root);
        runner.add_command_hooks(hooks);
        Self::around(runner, ui)
    }

    fn around(runner: HookRunner, ui: bool) -> Self {
        let agent = Arc::new(if ui {
            RecordingAgent::with_ui(true)
        } else {
            RecordingAgent::default()
        });
        runner.attach(agent.clone());
        let reports = Arc::new(Mutex::new(Vec::new()));
        let sink = reports.clone();
        runner.on_command_hook(move |r| sink.lock().unwrap().push(r.clone()));
        let errors = Arc::new(Mutex::new(Vec::new()));
        let sink = errors.clone();
        runner.on_error(move |e| sink.lock().unwrap().push(e.clone()));
        Self {
            runner: Arc::new(runner),
            agent,
            reports,
            errors,
        }
    }

    /// One Claude Code settings file (`.claude/settings.json`) with `hooks`.
    fn claude(lab: &Lab, hooks: Value, ui: bool) -> Self {
        let file = lab.project.write(
            ".claude/settings.json",
            &json!({ "hooks": hooks }).to_string(),
        );
        let mut loaded = CommandHooks::new();
        loaded.load_file(&file);
        Self::new(lab.root(), loaded, ui)
    }

    fn errors(&self) -> Vec<String> {
        self.errors
            .lock()
            .unwrap()
            .iter()
            .map(|e| e.to_string())
            .collect()
    }

    fn ui_calls(&self) -> Vec<String> {
        self.agent.ui_calls()
    }
}

fn group(matcher: &str, commands: &[String]) -> Value {
    json!({
        "matcher": matcher,
        "hooks": commands.iter().map(|c| json!({"type": "command", "command": c})).collect::<Vec<_>>(),
    })
}

fn call(tool: &str, input: Value) -> ToolCallEvent {
    ToolCallEvent::new(tool, "call-1", input)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_event_of_the_registry_runs_its_hooks_with_the_documented_payload_and_subject() {
    let lab = Lab::new();
    let mut hooks = serde_json::Map::new();
    for spec in &EVENTS {
        let groups = match spec.subject {
            Some(_) => json!([
                group("yes", &[lab.hook(&format!("{}-yes", spec.name))]),
                group("no", &[lab.hook(&format!("{}-no", spec.name))]),
            ]),
            None => json!([group("", &[lab.hook(&format!("{}-all", spec.name))])]),
        };
        hooks.insert(spec.name.to_owned(), groups);
    }
    let rig = Rig::claude(&lab, Value::Object(hooks), false);
    for spec in &EVENTS {
        let mut fields = serde_json::Map::new();
        for field in spec.fields {
            fields.insert((*field).to_owned(), json!(format!("{field}-value")));
        }
        if let Some(subject) = spec.subject {
            fields.insert(subject.to_owned(), json!("yes"));
        }
        let outcome = rig.runner.emit_command(spec.event, fields).await;
        assert_eq!(outcome.ran, 1, "{}", spec.name);
        let tag = if spec.subject.is_some() { "yes" } else { "all" };
        let seen = lab.seen(&format!("{}-{tag}", spec.name));
        assert_eq!(seen.len(), 1, "{}", spec.name);
        let payload = &seen[0];
        assert_eq!(payload["hook_event_name"], spec.name);
        assert_eq!(payload["session_id"], "session-1");
        assert_eq!(payload["transcript_path"], "/sessions/one.jsonl");
        assert_eq!(payload["cwd"], lab.root().to_string_lossy().as_ref());
        // As Claude Code sends it: none at SessionStart and SessionEnd (tests/real-agents).
        let mode = if matches!(spec.name, "SessionStart" | "SessionEnd") {
            Value::Null
        } else {
            json!("default")
        };
        assert_eq!(payload["permission_mode"], mode, "{}", spec.name);
        for field in spec.fields {
            let expected = if Some(*field) == spec.subject {
                json!("yes")
            } else {
                json!(format!("{field}-value"))
            };
            assert_eq!(payload[*field], expected, "{}.{field}", spec.name);
        }
        assert!(
            lab.seen(&format!("{}-no", spec.name)).is_empty(),
            "{}",
            spec.name
        );
    }
    assert_eq!(rig.errors(), Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_start_matcher_limits_the_sources_it_runs_on() {
    let lab = Lab::new();
    let rig = Rig::claude(
        &lab,
        json!({"SessionStart": [group("startup|clear|compact", &[lab.hook("ctx")])]}),
        false,
    );
    lab.answer(
        "ctx",
        json!({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "branch main"}}),
    );
    let resumed = rig
        .runner
        .emit(&SessionStartEvent::default().source("resume"))
        .await
        .unwrap();
    assert!(resumed.context.is_empty());
    assert!(lab.seen("ctx").is_empty(), "a resume does not run it");
    let compacted = rig
        .runner
        .emit(&SessionStartEvent::default().source("compact"))
        .await
        .unwrap();
    assert_eq!(compacted.context, ["branch main"]);
    assert_eq!(lab.seen("ctx")[0]["source"], "compact");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runner_moments_emit_the_claude_events_at_the_same_time() {
    let lab = Lab::new();
    let rig = Rig::claude(
        &lab,
        json!({
            "PostToolUse": [group("Bash", &[lab.hook("post")])],
            "PostToolUseFailure": [group("Bash", &[lab.hook("failure")])],
            "PreCompact": [group("", &[lab.hook("pre-compact")])],
            "PostCompact": [group("", &[lab.hook("post-compact")])],
            "SessionEnd": [group("", &[lab.hook("end")])],
        }),
        false,
    );
    let failed = ToolResultEvent::new("exec", "call-9", json!({"command": "npm test"}))
        .content(vec![ContentBlock::text("exit status 1")])
        .details(Value::Null)
        .is_error(true);
    rig.runner.emit(&failed).await.unwrap();
    assert!(lab.seen("post").is_empty());
    let seen = &lab.seen("failure")[0];
    assert_eq!(seen["tool_name"], "Bash");
    assert_eq!(seen["error"], "exit status 1");
    assert_eq!(seen["tool_use_id"], "call-9");
    assert_eq!(seen["tool_input"]["command"], "npm test");

    // PreCompact can block the compaction: it is cancelled.
    lab.exit("pre-compact", 2, "keep the context for now");
    let before = rig
        .runner
        .emit(
            &SessionBeforeCompactEvent::default()
                .custom_instructions("keep the plan")
                .entries_to_compact(10)
                .tokens_before(1000),
        )
        .await
        .unwrap();
    assert_eq!(before.map(|r| r.cancel), Some(true));
    assert_eq!(
        lab.seen("pre-compact")[0]["custom_instructions"],
        "keep the plan"
    );

    rig.runner
        .emit(
            &SessionCompactEvent::default()
                .summary("we fixed the parser")
                .from_hook(false),
        )
        .await
        .unwrap();
    assert_eq!(
        lab.seen("post-compact")[0]["compact_summary"],
        "we fixed the parser"
    );
    rig.runner
        .emit(&SessionShutdownEvent::default().reason("exit"))
        .await
        .unwrap();
    assert_eq!(lab.seen("end")[0]["reason"], "exit");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pre_tool_use_answers_allow_ask_deny_and_context_combine_in_any_order() {
    let lab = Lab::new();
    let rig = Rig::claude(
        &lab,
        json!({"PreToolUse": [group("Bash", &[lab.hook("a"), lab.hook("b"), lab.hook("c")])]}),
        false,
    );
    let decision = |d: &str, why: &str| json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": d, "permissionDecisionReason": why}});
    // Allow alone: approved, so the host skips its prompt; context reaches the model.
    lab.answer(
        "a",
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "additionalContext": "ls is safe"}}),
    );
    lab.answer("b", json!({"decision": "approve"}));
    let outcome = rig
        .runner
        .emit(&call("exec", json!({"command": "ls"})))
        .await
        .unwrap();
    assert!(outcome.approved && !outcome.block && outcome.ask.is_none());
    assert_eq!(outcome.context, ["ls is safe"]);

    // deny > ask > allow, whichever hook says which.
    for (a, b, c) in [
        ("allow", "ask", "deny"),
        ("deny", "allow", "ask"),
        ("ask", "deny", "allow"),
    ] {
        lab.answer("a", decision(a, &format!("a says {a}")));
        lab.answer("b", decision(b, &format!("b says {b}")));
        lab.answer("c", decision(c, &format!("c says {c}")));
        let outcome = rig
            .runner
            .emit(&call("exec", json!({"command": "rm x"})))
            .await
            .unwrap();
        let denier = [("a", a), ("b", b), ("c", c)]
            .iter()
            .find(|(_, d)| *d == "deny")
            .unwrap()
            .0;
        assert!(outcome.block && !outcome.approved);
        assert_eq!(outcome.reason, Some(format!("{denier} says deny")));
    }
    lab.answer("a", decision("allow", "fine"));
    lab.answer("b", decision("ask", "are you sure?"));
    lab.answer("c", json!({}));
    let outcome = rig
        .runner
        .emit(&call("exec", json!({"command": "rm x"})))
        .await
        .unwrap();
    assert!(!outcome.block && !outcome.approved);
    assert_eq!(outcome.ask.as_deref(), Some("fine\nare you sure?"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn continue_false_wins_over_everything_and_system_messages_reach_the_user() {
    let lab = Lab::new();
    let rig = Rig::claude(
        &lab,
        json!({
            "Stop": [group("", &[lab.hook("keep-going"), lab.hook("halt")])],
            "PreToolUse": [group("", &[lab.hook("allow"), lab.hook("halt")])],
        }),
        true,
    );
    lab.answer(
        "keep-going",
        json!({"decision": "block", "reason": "run the tests"}),
    );
    lab.answer(
        "halt",
        json!({"continue": false, "stopReason": "budget exhausted", "systemMessage": "Hooks stopped the agent"}),
    );
    lab.answer("allow", json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}));
    let stop = rig.runner.emit(&StopEvent::default()).await.unwrap();
    assert!(!stop.block, "continue: false lets the agent stop");
    assert_eq!(stop.stopped.as_deref(), Some("budget exhausted"));
    let tool = rig
        .runner
        .emit(&call("exec", json!({"command": "ls"})))
        .await
        .unwrap();
    assert!(tool.block && !tool.approved);
    assert_eq!(tool.reason.as_deref(), Some("budget exhausted"));
    assert!(rig
        .agent
        .calls()
        .contains(&"stop_requested budget exhausted".to_owned()));
    assert_eq!(
        rig.ui_calls(),
        [
            "notify info: Hooks stopped the agent",
            "notify info: Hooks stopped the agent"
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn permission_request_reads_the_decision_object() {
    let lab = Lab::new();
    let rig = Rig::claude(
        &lab,
        json!({"PermissionRequest": [group("Bash", &[lab.hook("perm")])]}),
        false,
    );
    let request = PermissionRequestEvent::new("exec", "call-1", json!({"command": "git status"}));
    lab.answer(
        "perm",
        json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow", "updatedInput": {"command": "git status --short"}}}}),
    );
    let outcome = rig.runner.emit(&request).await.unwrap();
    assert_eq!(outcome.decision, Some(PermissionDecision::Approve));
    assert_eq!(
        outcome.input,
        Some(json!({"command": "git status --short"}))
    );
    lab.answer(
        "perm",
        json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "not on main", "interrupt": true}}}),
    );
    let outcome = rig.runner.emit(&request).await.unwrap();
    assert_eq!(outcome.decision, Some(PermissionDecision::Deny));
    assert_eq!(outcome.reasons, ["not on main"]);
    assert!(outcome.interrupt && outcome.input.is_none());
    assert_eq!(rig.errors(), Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn post_tool_use_feeds_back_blocks_ignores_a_permission_decision_and_replaces_mcp_output() {
    let lab = Lab::new();
    let rig = Rig::claude(
        &lab,
        json!({"PostToolUse": [group(".*", &[lab.hook("post")])]}),
        false,
    );
    let result = |tool: &str| {
        ToolResultEvent::new(tool, "call-1", json!({"path": "/p/a.rs", "content": "x"}))
            .content(vec![ContentBlock::text("written")])
            .details(json!({"filePath": "/p/a.rs"}))
            .is_error(false)
    };
    lab.answer(
        "post",
        json!({"decision": "block", "reason": "lint failed: a.rs:1", "hookSpecificOutput": {"hookEventName": "PostToolUse", "permissionDecision": "deny"}}),
    );
    let outcome = rig.runner.emit(&result("write")).await.unwrap();
    assert_eq!(
        outcome.content,
        Some(vec![
            ContentBlock::text("written"),
            ContentBlock::text("lint failed: a.rs:1")
        ])
    );
    let seen = &lab.seen("post")[0];
    assert_eq!(seen["tool_name"], "Write");
    assert_eq!(
        seen["tool_response"]["filePath"], "/p/a.rs",
        "as the tool returned it"
    );
    assert_eq!(seen["tool_input"]["file_path"], "/p/a.rs");
    let errors = rig.errors();
    assert_eq!(errors.len(), 1);
    assert!(
        errors[0].ends_with("printed hookSpecificOutput.permissionDecision, which PostToolUse does not read (only PreToolUse, PreSkillShellCommand, PreModelSwitch); ignored"),
        "{errors:?}"
    );

    lab.answer(
        "post",
        json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedMCPToolOutput": "[redacted]"}}),
    );
    let outcome = rig.runner.emit(&result("mcp__db__query")).await.unwrap();
    assert_eq!(
        outcome.content,
        Some(vec![ContentBlock::text("[redacted]")])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn if_rules_select_tool_calls_before_the_hook_starts() {
    let lab = Lab::new();
    let rig = Rig::claude(
        &lab,
        json!({"PreToolUse": [{"matcher": "Bash|Edit", "hooks": [
            {"type": "command", "command": lab.hook("push"), "if": "Bash(git push:*)"},
            {"type": "command", "command": lab.hook("py"), "if": "Edit(*.py)"},
        ]}]}),
        false,
    );
    lab.exit("push", 2, "no pushes from the agent");
    let ls = rig
        .runner
        .emit(&call("exec", json!({"command": "ls"})))
        .await
        .unwrap();
    assert!(
        !ls.block,
        "an `if: Bash(git push:*)` hook does not block ls"
    );
    let push = rig
        .runner
        .emit(&call("exec", json!({"command": "git push origin main"})))
        .await
        .unwrap();
    assert_eq!(push.reason.as_deref(), Some("no pushes from the agent"));
    rig.runner
        .emit(&call("edit", json!({"path": "/p/src/a.py"})))
        .await
        .unwrap();
    rig.runner
        .emit(&call("edit", json!({"path": "/p/src/a.rs"})))
        .await
        .unwrap();
    assert_eq!(lab.tags(), ["push", "py"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn async_hooks_do_not_block_once_hooks_run_once_and_status_messages_show_while_running() {
    let lab = Lab::new();
    // The async hooks wait until the test releases them (bounded: 60 s), so that the emit's
    // return while they still run shows it did not wait for them, on a machine of any speed.
    let release = lab.root().join("release");
    let held = |tag: &str| {
        format!(
            "i=0; while [ ! -e {} ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done; {}",
            shell_quote(&release.to_string_lossy()),
            lab.hook(tag)
        )
    };
    // This project's own format: Claude Code honours `once` only in skills and agents
    // (tests/all/claude_code.rs).
    let mut hooks = CommandHooks::new();
    hooks.parse(
        &json!({
            "PreToolUse": [{"hooks": [
                {"type": "command", "command": held("background"), "async": true},
                {"type": "command", "command": held("deciding"), "async": true},
                {"type": "command", "command": lab.hook("once"), "once": true, "statusMessage": "Checking the command"},
            ]}],
        })
        .to_string(),
        &lab.root().join("hooks.json"),
    );
    let rig = Rig::new(lab.root(), hooks, true);
    lab.exit("background", 2, "would block if waited for");
    lab.answer(
        "deciding",
        json!({"decision": "block", "reason": "too late", "systemMessage": "background check done"}),
    );
    // Bounded: an emit that waited for the held hooks would end only with their 60 s wait.
    let outcome = tokio::time::timeout(
        Duration::from_secs(30),
        rig.runner.emit(&call("exec", json!({"command": "ls"}))),
    )
    .await
    .expect("the emit waited for its async hooks")
    .unwrap();
    assert!(!outcome.block, "an async hook's exit 2 does not block");
    // Not waited for: the async hooks are still held, none has run its recorder.
    assert_eq!(
        lab.tags(),
        ["once"],
        "the async hooks ran before the release"
    );
    assert!(
        rig.reports.lock().unwrap().iter().all(|r| !r.background),
        "no async hook has ended yet"
    );
    std::fs::write(&release, "").unwrap();
    rig.runner
        .emit(&call("exec", json!({"command": "ls"})))
        .await
        .unwrap();
    assert_eq!(lab.seen("once").len(), 1, "once: one run per session");
    let deadline = Instant::now() + Duration::from_secs(60);
    while rig
        .reports
        .lock()
        .unwrap()
        .iter()
        .filter(|r| r.background)
        .count()
        < 4
    {
        assert!(
            Instant::now() < deadline,
            "the background runs never reported"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let status = "set_status hook:PreToolUse:0";
    let calls = rig.ui_calls();
    assert_eq!(
        calls
            .iter()
            .filter(|c| c.starts_with(status))
            .cloned()
            .collect::<Vec<_>>(),
        [
            format!("{status}: Checking the command"),
            format!("{status}: <cleared>")
        ]
    );
    assert!(calls.contains(&"notify info: background check done".to_owned()));
    assert!(rig
        .errors()
        .iter()
        .any(|e| e.contains("runs with `async`, so its decision (block, permission, updatedInput, continue) was ignored")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_start_hooks_get_claude_env_file_and_the_host_gets_its_lines() {
    let lab = Lab::new();
    let writer = "printf 'export NODE_ENV=production\\n' >> \"$CLAUDE_ENV_FILE\"";
    let rig = Rig::claude(
        &lab,
        json!({
            "SessionStart": [group("", &[writer.to_owned(), lab.hook("start")])],
            "PreToolUse": [group("", &[lab.hook("tool")])],
        }),
        false,
    );
    rig.runner
        .emit(&SessionStartEvent::default().source("startup"))
        .await
        .unwrap();
    rig.runner
        .emit(&call("exec", json!({"command": "ls"})))
        .await
        .unwrap();
    assert!(rig
        .agent
        .calls()
        .contains(&"environment_file export NODE_ENV=production".to_owned()));
    let log = lab.log();
    let env = |tag: &str| log.iter().find(|l| l["tag"] == tag).unwrap()["env"].clone();
    assert!(env("start")["CLAUDE_ENV_FILE"].is_string());
    assert!(
        env("tool")["CLAUDE_ENV_FILE"].is_null(),
        "only the events that document it"
    );
    let project = lab.root().to_string_lossy().into_owned();
    assert_eq!(env("tool")["CLAUDE_PROJECT_DIR"], project.as_str());
    assert!(
        env("tool")["GEMINI_PROJECT_DIR"].is_null(),
        "Claude Code gives its hooks no GEMINI_PROJECT_DIR (tests/real-agents)"
    );
}

/// A Claude Code plugin folder whose hooks call `${CLAUDE_PLUGIN_ROOT}/scripts/...`.
fn claude_plugin(dir: &Path) -> PathBuf {
    let root = dir.join("guard plugin");
    std::fs::create_dir_all(root.join(".claude-plugin")).unwrap();
    std::fs::create_dir_all(root.join("hooks")).unwrap();
    std::fs::create_dir_all(root.join("scripts")).unwrap();
    std::fs::write(
        root.join(".claude-plugin/plugin.json"),
        r#"{"name": "guard", "version": "1.0.0"}"#,
    )
    .unwrap();
    std::fs::write(
        root.join("hooks/hooks.json"),
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "\"${CLAUDE_PLUGIN_ROOT}/scripts/no-push.sh\""}]}]}}"#,
    )
    .unwrap();
    let script = root.join("scripts/no-push.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\ninput=$(cat)\ncase \"$input\" in\n  *'\"command\":\"git push'*) echo \"pushes are reviewed ($CLAUDE_PLUGIN_ROOT)\" >&2; exit 2;;\nesac\nexit 0\n",
    )
    .unwrap();
    agent_hooks_tests::set_mode(&script, 0o755);
    root
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claude_code_plugin_runs_with_claude_plugin_root_given_or_installed() {
    let home = temp_dir();
    let project = Project::new("p");
    let plugin = claude_plugin(home.path());
    // Given with --hook (the plugin folder).
    let mut options = DiscoveryOptions::new(&project.root);
    options.home = Some(home.path().to_path_buf());
    let found = discover_and_load_hooks_with(&[plugin.to_string_lossy()], options);
    let rig = Rig::around(found.into_runner(&project.root), false);
    let hooks: Vec<_> = rig.runner.command_hooks().hooks().cloned().collect();
    assert_eq!(hooks.len(), 1);
    assert_eq!(hooks[0].dialect, Agent::ClaudeCode);
    assert_eq!(hooks[0].plugin_root.as_deref(), Some(plugin.as_path()));
    let push = rig
        .runner
        .emit(&call("exec", json!({"command": "git push"})))
        .await
        .unwrap();
    assert_eq!(
        push.reason,
        Some(format!("pushes are reviewed ({})", plugin.display()))
    );
    assert!(
        !rig.runner
            .emit(&call("exec", json!({"command": "ls"})))
            .await
            .unwrap()
            .block
    );

    // Installed: found in ~/.claude/plugins through installed_plugins.json.
    std::fs::create_dir_all(home.path().join(".claude/plugins")).unwrap();
    std::fs::write(
        home.path().join(".claude/plugins/installed_plugins.json"),
        json!({"version": 2, "plugins": {"guard@tools": [{"scope": "user", "installPath": plugin}]}}).to_string(),
    )
    .unwrap();
    let mut options = DiscoveryOptions::new(&project.root);
    options.home = Some(home.path().to_path_buf());
    let found = discover_and_load_hooks_with::<&str>(&[], options);
    let entry = found
        .entries
        .iter()
        .find(|e| e.source == "claude plugins")
        .unwrap();
    assert_eq!(entry.name, "guard@tools/hooks/hooks.json");
    let rig = Rig::around(found.into_runner(&project.root), false);
    assert!(
        rig.runner
            .emit(&call("exec", json!({"command": "git push"})))
            .await
            .unwrap()
            .block
    );

    // Disabled in enabledPlugins: not loaded.
    std::fs::write(
        home.path().join(".claude/settings.json"),
        r#"{"enabledPlugins": {"guard@tools": false}}"#,
    )
    .unwrap();
    let mut options = DiscoveryOptions::new(&project.root);
    options.home = Some(home.path().to_path_buf());
    let found = discover_and_load_hooks_with::<&str>(&[], options);
    assert!(found.commands.hooks().next().is_none());
}

#[test]
fn a_claude_code_plugin_registry_that_cannot_be_read_is_said_and_the_cache_is_read_instead() {
    let home = temp_dir();
    let project = Project::new("p");
    let plugin = claude_plugin(home.path());
    // The plugin is in the cache, as Claude Code keeps it.
    let cached = home.path().join(".claude/plugins/cache/tools/guard/1.0.0");
    std::fs::create_dir_all(cached.parent().unwrap()).unwrap();
    std::fs::rename(&plugin, &cached).unwrap();
    let registry = home.path().join(".claude/plugins/installed_plugins.json");
    let discover = || {
        let mut options = DiscoveryOptions::new(&project.root);
        options.home = Some(home.path().to_path_buf());
        discover_and_load_hooks_with::<&str>(&[], options)
    };
    let cache = home.path().join(".claude/plugins/cache");
    for (content, why) in [
        (
            "{\"plugins\": ".to_owned(),
            format!("{} is not valid JSON: EOF while parsing", registry.display()),
        ),
        (
            format!("{{\"pad\": \"{}\"}}", "x".repeat(4 << 20)),
            format!(
                "{} is {} bytes, more than the 4194304 bytes a hooks file may have, so it is not read",
                registry.display(),
                (4 << 20) + 11
            ),
        ),
    ] {
        std::fs::write(&registry, content).unwrap();
        let found = discover();
        let said = format!(
            "; the Claude Code plugins' hooks are looked for in {} instead",
            cache.display()
        );
        assert!(
            found
                .warnings
                .iter()
                .any(|w| w.starts_with(&why) && w.ends_with(&said)),
            "{why}: {:?}",
            found.warnings
        );
        let entry = found
            .entries
            .iter()
            .find(|e| e.source == "claude plugins")
            .expect("found in the cache");
        assert_eq!(entry.name, "guard@tools/hooks/hooks.json");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_gemini_and_devin_files_are_discovered_and_see_their_own_names() {
    let lab = Lab::new();
    let home = temp_dir();
    lab.project.write(
        ".codex/hooks.json",
        &json!({"hooks": {"PreToolUse": [group("Bash", &[lab.hook("codex")])]}}).to_string(),
    );
    lab.project.write(
        ".gemini/settings.json",
        &json!({"model": {"name": "gemini-2.5-pro"}, "hooks": {"BeforeTool": [{"matcher": "run_shell_command", "hooks": [{"name": "guard", "type": "command", "command": lab.hook("gemini"), "timeout": 5000}]}]}}).to_string(),
    );
    lab.project.write(
        ".devin/hooks.v1.json",
        &json!({"PreToolUse": [group("^exec$", &[lab.hook("devin")])], "PostCompaction": [group("", &[lab.hook("devin-compaction")])]}).to_string(),
    );
    let mut options = DiscoveryOptions::new(lab.root());
    options.home = Some(home.path().to_path_buf());
    options.config_dir = Some(home.path().join("config"));
    let untrusted = discover_and_load_hooks_with::<&str>(&[], options);
    let sources: Vec<&str> = untrusted
        .untrusted
        .iter()
        .map(|u| u.entry.source.as_str())
        .collect();
    assert_eq!(
        sources,
        ["codex (project)", "gemini (project)", "devin (project)"]
    );

    let mut options = DiscoveryOptions::new(lab.root());
    options.home = Some(home.path().to_path_buf());
    options.trust_project = true;
    let found = discover_and_load_hooks_with::<&str>(&[], options);
    let dialects: Vec<Agent> = found.commands.hooks().map(|h| h.dialect).collect();
    assert_eq!(
        dialects,
        [Agent::Codex, Agent::Gemini, Agent::Devin, Agent::Devin]
    );
    let gemini_timeout = found.commands.hooks().nth(1).unwrap().timeout;
    assert_eq!(
        gemini_timeout,
        Duration::from_secs(5),
        "Gemini gives milliseconds"
    );
    let rig = Rig::around(found.into_runner(lab.root()), false);
    rig.runner
        .emit(&call("exec", json!({"command": "ls"})))
        .await
        .unwrap();
    assert_eq!(lab.seen("codex")[0]["tool_name"], "Bash");
    let gemini = &lab.seen("gemini")[0];
    assert_eq!(gemini["tool_name"], "run_shell_command");
    assert_eq!(gemini["hook_event_name"], "BeforeTool");
    assert!(gemini["timestamp"].as_str().unwrap().ends_with('Z'));
    assert_eq!(lab.seen("devin")[0]["tool_name"], "exec");
    let env = &lab
        .log()
        .into_iter()
        .find(|l| l["tag"] == "gemini")
        .unwrap()["env"];
    assert_eq!(
        env["GEMINI_PROJECT_DIR"],
        lab.root().to_string_lossy().as_ref()
    );

    rig.runner
        .emit(
            &SessionCompactEvent::default()
                .summary("short")
                .from_hook(false),
        )
        .await
        .unwrap();
    let devin = &lab.seen("devin-compaction")[0];
    assert_eq!(devin["hook_event_name"], "PostCompaction");
    assert_eq!(devin["summary"], "short");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_names_and_inputs_map_to_each_dialect_and_updated_input_maps_back() {
    let lab = Lab::new();
    let rig = Rig::claude(
        &lab,
        json!({"PreToolUse": [group("Read", &[lab.hook("read")])]}),
        false,
    );
    lab.answer(
        "read",
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"file_path": "/p/README.md", "limit": 10}}}),
    );
    let outcome = rig
        .runner
        .emit(&call("read", json!({"path": "/p/.env", "limit": 10})))
        .await
        .unwrap();
    let seen = &lab.seen("read")[0];
    assert_eq!(seen["tool_name"], "Read");
    assert_eq!(
        seen["tool_input"],
        json!({"file_path": "/p/.env", "limit": 10})
    );
    assert_eq!(
        outcome.input,
        Some(json!({"path": "/p/README.md", "limit": 10})),
        "back in the tool's own field"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn events_without_a_runner_moment_run_when_the_host_emits_them() {
    let lab = Lab::new();
    let rig = Rig::claude(
        &lab,
        json!({
            "Notification": [group("permission_prompt", &[lab.hook("notify")])],
            "SubagentStop": [group("reviewer", &[lab.hook("review")])],
        }),
        false,
    );
    let fields = |v: Value| v.as_object().unwrap().clone();
    let idle = rig
        .runner
        .emit_command(
            CommandEvent::Notification,
            fields(json!({"notification_type": "idle_prompt", "message": "waiting"})),
        )
        .await;
    assert_eq!(idle.ran, 0);
    rig.runner
        .emit_command(
            CommandEvent::Notification,
            fields(json!({"notification_type": "permission_prompt", "message": "Claude needs your permission to use Bash"})),
        )
        .await;
    assert_eq!(
        lab.seen("notify")[0]["message"],
        "Claude needs your permission to use Bash"
    );
    lab.exit("review", 2, "the review missed the tests");
    let stop = rig
        .runner
        .emit_command(
            CommandEvent::SubagentStop,
            fields(json!({"agent_type": "reviewer", "stop_hook_active": false})),
        )
        .await;
    assert!(stop.block);
    assert_eq!(stop.reasons, ["the review missed the tests"]);
}

/// A local HTTP server that answers each request with the next `(status, body)` and keeps
/// what it got (head and body).
fn http_server(
    answers: Vec<(u16, &'static str)>,
) -> (String, std::thread::JoinHandle<Vec<(String, String)>>) {
    use std::io::{BufRead, BufReader, Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    let server = std::thread::spawn(move || {
        let mut got = Vec::new();
        for (status, body) in answers {
            let (mut stream, _) = listener.accept().unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut head = String::new();
            loop {
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                if line == "\r\n" || line.is_empty() {
                    break;
                }
                head.push_str(&line);
            }
            let length: usize = head
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("content-length:")
                        .map(|v| v.trim().parse().unwrap())
                })
                .unwrap_or(0);
            let mut request = vec![0; length];
            reader.read_exact(&mut request).unwrap();
            got.push((head, String::from_utf8(request).unwrap()));
            write!(
                stream,
                "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            )
            .unwrap();
        }
        got
    });
    (url, server)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_hooks_post_the_payload_with_their_headers_and_read_the_answer() {
    let lab = Lab::new();
    let (url, server) = http_server(vec![
        (200, r#"{"decision": "block", "reason": "policy says no"}"#),
        (500, "boom"),
    ]);
    let rig = Rig::claude(
        &lab,
        json!({"PreToolUse": [{"matcher": "Bash", "hooks": [{
            "type": "http", "url": url, "timeout": 5,
            "headers": {"X-Path": "$PATH", "X-Home": "${HOME}", "Authorization": "Bearer fixed"},
            "allowedEnvVars": ["PATH"],
        }]}]}),
        false,
    );
    let blocked = rig
        .runner
        .emit(&call("exec", json!({"command": "rm -rf /"})))
        .await
        .unwrap();
    assert!(blocked.block);
    assert_eq!(blocked.reason.as_deref(), Some("policy says no"));
    let failed = rig
        .runner
        .emit(&call("exec", json!({"command": "ls"})))
        .await
        .unwrap();
    assert!(!failed.block, "a failing server blocks nothing");
    let got = server.join().unwrap();
    let (head, body) = &got[0];
    assert!(head.starts_with("POST /hook HTTP/1.1"), "{head}");
    let header = |name: &str| {
        head.lines()
            .find_map(|l| l.strip_prefix(&format!("{name}: ")).map(str::to_owned))
    };
    assert_eq!(
        header("content-type").or(header("Content-Type")).as_deref(),
        Some("application/json")
    );
    let path = std::env::var("PATH").unwrap_or_default();
    assert_eq!(header("x-path").or(header("X-Path")), Some(path));
    assert_eq!(
        header("x-home").or(header("X-Home")).as_deref(),
        Some(""),
        "not allowed: left out"
    );
    let payload: Value = serde_json::from_str(body).unwrap();
    assert_eq!(payload["tool_name"], "Bash");
    assert_eq!(payload["tool_input"]["command"], "rm -rf /");
    assert_eq!(payload["hook_event_name"], "PreToolUse");
    let errors = rig.errors();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].ends_with(&format!("`{url}` POST {url} answered HTTP 500: boom")),
        "{errors:?}"
    );
}

#[test]
fn other_hook_types_are_reported_not_skipped_silently() {
    let lab = Lab::new();
    let file = lab.project.write(
        ".claude/settings.json",
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "http", "url": "https://policy.example/hook"}, {"type": "prompt", "prompt": "Is this safe?"}, {"type": "agent", "prompt": "Review"}]}]}}"#,
    );
    let mut hooks = CommandHooks::new();
    hooks.load_file(&file);
    // The prompt and agent hooks load (the agent answers them: tests/all/host_calls.rs).
    let kinds: Vec<&str> = hooks
        .hooks()
        .filter_map(|h| match &h.kind {
            HookKind::HostCall(call) => Some(call.kind().name()),
            _ => None,
        })
        .collect();
    assert_eq!(kinds, ["prompt", "agent"]);
    // The https hook loads too (its certificate checked when it runs: http_hooks.rs).
    let urls: Vec<&str> = hooks
        .hooks()
        .filter_map(|h| match &h.kind {
            HookKind::Http(target) => Some(target.url.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(urls, ["https://policy.example/hook"]);
    assert!(hooks.issues().is_empty(), "{:?}", hooks.issues());
    let mut hooks = CommandHooks::new();
    hooks.parse(
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "prompt"}, {"type": "mcp_tool", "server": "s"}, {"type": "mcp_tool", "server": "s", "tool": "t", "input": "x"}, {"type": "tool"}]}]}}"#,
        &file,
    );
    assert_eq!(hooks.hooks().count(), 0);
    let issues: Vec<String> = hooks.issues().iter().map(|i| i.message.clone()).collect();
    assert_eq!(
        issues,
        [
            "a `prompt` hook needs `prompt` (what to ask the model; `$ARGUMENTS` stands for the event's JSON); skipped",
            "a `mcp_tool` hook needs `tool` (the name of the server's tool); skipped",
            "`input` must be an object of the tool's arguments, not \"x\"; skipped",
            "unknown hook type `tool` (known: `command`, `http`, `mcp_tool`, `prompt`, `agent`); skipped",
        ]
    );
}

/// A host whose shell tool is `shell` with its command in `cmd`.
struct ShellHost;

impl agent_hooks::AgentHost for ShellHost {
    fn tool_names(&self) -> ToolNames {
        let mut names = ToolNames::none();
        names.declare(ToolAlias {
            tool: "shell".into(),
            names: vec![(Agent::ClaudeCode, "Bash".into())],
            fields: vec![(Agent::ClaudeCode, "cmd".into(), "command".into())],
        });
        names
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_declares_its_own_tools_for_each_dialect() {
    let lab = Lab::new();
    let file = lab.project.write(
        ".claude/settings.json",
        &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": lab.hook("push"), "if": "Bash(git push:*)"}
        ]}]}})
        .to_string(),
    );
    let mut hooks = CommandHooks::new();
    hooks.load_file(&file);
    let mut runner = HookRunner::new(Vec::new(), lab.root());
    runner.add_command_hooks(hooks);
    runner.attach(Arc::new(ShellHost));
    lab.exit("push", 2, "no pushes");
    let outcome = runner
        .emit(&call("shell", json!({"cmd": "git push origin"})))
        .await
        .unwrap();
    assert_eq!(outcome.reason.as_deref(), Some("no pushes"));
    let seen = &lab.seen("push")[0];
    assert_eq!(seen["tool_name"], "Bash");
    assert_eq!(seen["tool_input"], json!({"command": "git push origin"}));
    let ls = runner
        .emit(&call("shell", json!({"cmd": "ls"})))
        .await
        .unwrap();
    assert!(!ls.block);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gemini_after_tool_deny_replaces_the_result_and_before_tool_rewrites_the_input() {
    let lab = Lab::new();
    let file = lab.project.write(
        ".gemini/settings.json",
        &json!({"hooks": {
            "AfterTool": [{"matcher": "read_file", "hooks": [{"type": "command", "command": lab.hook("after"), "timeout": 5000}]}],
            "BeforeTool": [{"matcher": "run_shell_command", "hooks": [{"type": "command", "command": lab.hook("before"), "timeout": 5000}]}],
        }})
        .to_string(),
    );
    let mut hooks = CommandHooks::new();
    hooks.load_file(&file);
    let rig = Rig::new(lab.root(), hooks, false);
    lab.answer(
        "after",
        json!({"decision": "deny", "reason": "[secret file hidden]"}),
    );
    let result = ToolResultEvent::new("read", "call-1", json!({"path": "/p/.env"}))
        .content(vec![ContentBlock::text("API_KEY=1234")])
        .details(Value::Null)
        .is_error(false);
    let outcome = rig.runner.emit(&result).await.unwrap();
    assert_eq!(
        outcome.content,
        Some(vec![ContentBlock::text("[secret file hidden]")]),
        "Gemini replaces the result where Claude Code appends"
    );
    let seen = &lab.seen("after")[0];
    assert_eq!(seen["hook_event_name"], "AfterTool");
    assert_eq!(seen["tool_response"]["llmContent"], "API_KEY=1234");
    assert_eq!(seen["tool_input"]["file_path"], "/p/.env");

    lab.answer(
        "before",
        json!({"hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": {"command": "ls -la"}}}),
    );
    let call = rig
        .runner
        .emit(&call("exec", json!({"command": "ls"})))
        .await
        .unwrap();
    assert_eq!(rig.errors(), Vec::<String>::new());
    assert_eq!(call.input, Some(json!({"command": "ls -la"})));
    assert_eq!(rig.errors(), Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claude_env_file_replaced_by_a_fifo_is_reported_not_waited_for() {
    let lab = Lab::new();
    let fifo = "rm -f \"$CLAUDE_ENV_FILE\"; mkfifo \"$CLAUDE_ENV_FILE\"";
    let rig = Rig::claude(
        &lab,
        json!({"SessionStart": [group("", &[fifo.to_owned()])]}),
        false,
    );
    let started = std::time::Instant::now();
    rig.runner
        .emit(&SessionStartEvent::default().source("startup"))
        .await
        .unwrap();
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    assert!(
        rig.errors().iter().any(
            |e| e.starts_with("hook CLAUDE_ENV_FILE failed on SessionStart: ")
                && e.contains("is a FIFO (named pipe)")
                && e.ends_with("; its lines are not applied")
        ),
        "{:?}",
        rig.errors()
    );
    assert!(!rig
        .agent
        .calls()
        .iter()
        .any(|c| c.starts_with("environment_file")));
}
