//! Copilot CLI's own hooks format (`.github/hooks/*.json`, camelCase events, top-level
//! answers), through the real Copilot CLI and through agent-hooks with the same file: a
//! hook that denies, one that rewrites the command, one that errors, one past its timeout,
//! one that replaces the tool's result and adds context, a stop hook that keeps the agent
//! going once, progress lines before a deny. What happened is read from the agent's own
//! result (the tool's side effect, what the model was told, which hooks ran), and agent-hooks
//! must give the same; for the case without answers, also the names of every stdin field
//! each event got. A few cases, so that the run stays short (CI runs them all).

use std::{
    collections::BTreeMap,
    path::Path,
    sync::{Arc, Mutex},
};

use agent_hooks::{abi::prelude::*, command_hook::CommandHooks, HookRunner};
use agent_hooks_tests::RecordingAgent;
use serde_json::{json, Value};

use crate::{
    agents::{self, Agent, Run},
    model::FakeModel,
};

/// The command of the model's one tool call.
const COMMAND: &str = "echo ran >> side-effect.txt";

/// The events a one-tool session of Copilot CLI reaches that agent-hooks' runner has.
const EVENTS: &[&str] = &[
    "sessionStart",
    "userPromptSubmitted",
    "preToolUse",
    "postToolUse",
    "agentStop",
    "sessionEnd",
];

/// One case: extra hooks (event, tag, timeoutSec) besides the probe on every event, and the
/// answers of each tag's successive runs.
struct Case {
    name: &'static str,
    hooks: &'static [(&'static str, &'static str, Option<u64>)],
    answers: fn() -> Vec<(&'static str, Value)>,
}

fn out(value: Value) -> Value {
    json!({"stdout": value.to_string()})
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "no answers",
            hooks: &[],
            answers: Vec::new,
        },
        Case {
            name: "permissionDecision deny",
            hooks: &[],
            answers: || {
                vec![(
                    "preToolUse",
                    json!([out(
                        json!({"permissionDecision": "deny", "permissionDecisionReason": "M-deny"})
                    )]),
                )]
            },
        },
        Case {
            name: "modifiedArgs",
            hooks: &[],
            answers: || {
                vec![(
                    "preToolUse",
                    json!([out(
                        json!({"modifiedArgs": {"command": "echo rewritten >> side-effect.txt"}})
                    )]),
                )]
            },
        },
        Case {
            name: "exit 1 denies",
            hooks: &[],
            answers: || vec![("preToolUse", json!([{"code": 1, "stderr": "M-exit1"}]))],
        },
        Case {
            name: "a timeout lets the tool run",
            // 5 s: under load the probe (Python) needs a second or two to start and log.
            hooks: &[("preToolUse", "slow", Some(5))],
            answers: || {
                vec![(
                    "slow",
                    json!([{"sleep": 12, "code": 2, "stderr": "M-late"}]),
                )]
            },
        },
        Case {
            name: "modifiedResult and additionalContext",
            hooks: &[],
            answers: || {
                vec![(
                    "postToolUse",
                    json!([out(
                        json!({"modifiedResult": {"resultType": "success", "textResultForLlm": "M-replaced"}, "additionalContext": "M-post-context"})
                    )]),
                )]
            },
        },
        Case {
            name: "agentStop blocks once",
            hooks: &[],
            answers: || {
                vec![(
                    "agentStop",
                    json!([out(json!({"decision": "block", "reason": "M-again"}))]),
                )]
            },
        },
        Case {
            name: "progress lines, then a deny",
            hooks: &[],
            answers: || {
                let stdout = format!(
                    "{}\n{}",
                    json!({"type": "progress", "message": "M-progress"}),
                    json!({"permissionDecision": "deny", "permissionDecisionReason": "M-after-progress"})
                );
                vec![("preToolUse", json!([{"stdout": stdout}]))]
            },
        },
    ]
}

/// Stdin fields only Copilot CLI sends (its own state: the session's first prompt), by
/// camelCase event.
const AGENT_ONLY: &[(&str, &str)] = &[("sessionStart", "initialPrompt")];

const MARKERS: &[&str] = &[
    "M-deny",
    "M-exit1",
    "M-late",
    "M-replaced",
    "M-post-context",
    "M-again",
    "M-progress",
    "M-after-progress",
];

/// The Copilot CLI hooks file of a case.
fn hooks_file(case: &Case, probe: &Path) -> Value {
    let hook = |tag: &str, timeout: Option<u64>| {
        let mut hook =
            json!({"type": "command", "bash": format!("python3 '{}' {tag}", probe.display())});
        if let Some(seconds) = timeout {
            hook["timeoutSec"] = json!(seconds);
        }
        hook
    };
    let mut hooks = serde_json::Map::new();
    for event in EVENTS {
        hooks.insert((*event).into(), json!([hook(event, None)]));
    }
    for (event, tag, timeout) in case.hooks {
        if let Some(Value::Array(list)) = hooks.get_mut(*event) {
            list.push(hook(tag, *timeout));
        }
    }
    json!({"version": 1, "hooks": hooks})
}

/// What one side did.
#[derive(Debug, Clone, Default, PartialEq)]
struct Facts {
    side_effect: Option<String>,
    told: Vec<&'static str>,
    ran: BTreeMap<String, usize>,
    fields: BTreeMap<String, Vec<String>>,
}

fn probe_runs(run: &Run) -> Vec<Value> {
    std::fs::read_to_string(run.path("probe.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

fn facts_of(run: &Run, told: &[String]) -> Facts {
    let mut facts = Facts {
        side_effect: std::fs::read_to_string(run.project().join("side-effect.txt"))
            .ok()
            .map(|s| s.trim().to_owned()),
        told: MARKERS
            .iter()
            .copied()
            .filter(|m| told.iter().any(|t| t.contains(m)))
            .collect(),
        ..Facts::default()
    };
    for probe in probe_runs(run) {
        let tag = probe["tag"].as_str().unwrap_or_default().to_owned();
        *facts.ran.entry(tag.clone()).or_default() += 1;
        let mut keys: Vec<String> = probe["payload"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(k, _)| k.clone())
            .collect();
        keys.sort();
        facts.fields.entry(tag).or_insert(keys);
    }
    facts
}

fn write_answers(run: &Run, case: &Case) {
    let _ = std::fs::remove_dir_all(run.path("answers"));
    let _ = std::fs::remove_dir_all(run.path("counts"));
    for (tag, answers) in (case.answers)() {
        run.write(&format!("answers/{tag}.json"), &answers.to_string());
    }
}

/// The real Copilot CLI with the case's `.github/hooks` file.
fn copilot_side(install: &Path, run: &Run, case: &Case) -> (Facts, String) {
    let file = hooks_file(case, &run.path("probe.py"));
    run.write("project/.github/hooks/case.json", &file.to_string());
    copilot_session(install, run, case)
}

/// One Copilot CLI session in `run`, as its hooks folders are.
fn copilot_session(install: &Path, run: &Run, case: &Case) -> (Facts, String) {
    let model = FakeModel::start(COMMAND);
    let claude = agents::configure(Agent::Copilot, run, model.port(), &json!({}));
    let _ = std::fs::remove_file(claude);
    write_answers(run, case);
    let outcome = agents::launch(Agent::Copilot, install, run, model.port());
    let told: Vec<String> = model
        .requests()
        .iter()
        .filter(|r| r.body["tools"].as_array().is_some_and(|t| !t.is_empty()))
        .map(|r| r.body.to_string())
        .collect();
    // Progress is for the user: it shows in the agent's output.
    let mut shown = told.clone();
    shown.push(outcome.stdout.clone());
    (facts_of(run, &shown), outcome.describe())
}

/// The real Copilot CLI with the same file taken over by agent-hooks (`install --agent
/// copilot --project --take-over`, then `trust`): agent-hooks runs it under the agent.
fn bridged_side(install: &Path, run: &Run, case: &Case) -> (Facts, String) {
    agent_hooks_tests::relay_bin();
    let _ = std::fs::remove_file(run.project().join("side-effect.txt"));
    let _ = std::fs::rename(run.path("probe.jsonl"), run.path("emit-probe.jsonl"));
    let file = hooks_file(case, &run.path("probe.py"));
    run.write("project/.github/hooks/case.json", &file.to_string());
    agents::agent_hooks(
        run,
        &["install", "--agent", "copilot", "--project", "--take-over"],
    );
    agents::agent_hooks(run, &["trust"]);
    copilot_session(install, run, case)
}

/// agent-hooks with the same file, through the session the agent's payloads show.
fn agent_hooks_side(run: &Run, case: &Case, input: Value) -> (Facts, String) {
    let _ = std::fs::remove_file(run.project().join("side-effect.txt"));
    let _ = std::fs::rename(run.path("probe.jsonl"), run.path("copilot-probe.jsonl"));
    write_answers(run, case);
    let mut hooks = CommandHooks::new();
    hooks.load_file(&run.path("project/.github/hooks/case.json"));
    let issues: Vec<String> = hooks.issues().iter().map(ToString::to_string).collect();
    let project = run.project();
    let mut runner = HookRunner::new(Vec::new(), &project);
    runner.add_command_hooks(hooks);
    let recording = Arc::new(RecordingAgent::default());
    runner.attach(recording.clone());
    let shown = Arc::new(Mutex::new(Vec::<String>::new()));
    let mut told: Vec<String> = Vec::new();
    let mut detail = format!("issues: {issues:?}\n");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let sink = shown.clone();
    runner.on_command_hook(move |report| {
        if let Some(message) = &report.answer.system_message {
            sink.lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(message.clone());
        }
    });
    runtime.block_on(async {
        let start = runner
            .emit(&SessionStartEvent::default().source("new".to_owned()))
            .await;
        detail.push_str(&format!("start: {start:?}\n"));
        let prompt = runner
            .emit(&BeforeAgentStartEvent::default().prompt(agents::PROMPT.to_owned()))
            .await;
        if let Ok(p) = &prompt {
            told.extend(p.context.iter().cloned());
        }
        let call = runner
            .emit(&ToolCallEvent::new("exec", "call-1", input.clone()))
            .await;
        detail.push_str(&format!("tool_call: {call:?}\n"));
        let (blocked, ran_input) = match &call {
            Ok(call) => {
                told.extend(call.reason.iter().cloned());
                (call.block, call.input.clone().unwrap_or(input.clone()))
            }
            Err(e) => (true, Value::String(e.to_string())),
        };
        if !blocked {
            let command = ran_input["command"].as_str().unwrap_or_default().to_owned();
            let output = std::process::Command::new("sh")
                .arg("-c")
                .arg(&command)
                .current_dir(&project)
                .output()
                .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
                .unwrap_or_default();
            let result = ToolResultEvent::new("exec", "call-1", ran_input)
                .content(vec![ContentBlock::text(output)])
                .details(Value::Null)
                .is_error(false);
            let patched = runner.emit(&result).await;
            detail.push_str(&format!("tool_result: {patched:?}\n"));
            if let Ok(Some(content)) = patched.as_ref().map(|p| p.content.clone()) {
                told.push(serde_json::to_string(&content).unwrap_or_default());
            }
        }
        let mut active = false;
        for _ in 0..3 {
            let stop = runner
                .emit(&StopEvent::default().stop_hook_active(active))
                .await;
            detail.push_str(&format!("stop: {stop:?}\n"));
            match stop {
                Ok(stop) if stop.block => {
                    told.extend(stop.reasons.iter().cloned());
                    active = true;
                }
                _ => break,
            }
        }
        let _ = runner
            .emit(&SessionShutdownEvent::default().reason("complete".to_owned()))
            .await;
    });
    drop(runtime);
    told.extend(
        shown
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .cloned(),
    );
    (facts_of(run, &told), detail)
}

fn run_case(install: &Path, case: &Case) -> Option<String> {
    let run = Run::new();
    run.write("probe.py", include_str!("probe.py"));
    let started = std::time::Instant::now();
    let (theirs, their_detail) = copilot_side(install, &run, case);
    let input = probe_runs(&run)
        .iter()
        .find(|p| p["tag"] == "preToolUse")
        .map(|p| p["payload"]["toolArgs"].clone())
        .filter(Value::is_object)
        .unwrap_or_else(|| json!({"command": COMMAND}));
    let (mut ours, our_detail) = agent_hooks_side(&run, case, input);
    let bridged = crate::bridged_enabled().then(|| bridged_side(install, &run, case));
    // Through agent-hooks, Copilot CLI runs the same hooks: every fact the same, the stdin
    // fields of the agent's own state included.
    let bridged_failure = bridged.and_then(|(mut bridged, bridged_detail)| {
        let mut reference = theirs.clone();
        if case.name != "no answers" {
            reference.fields = BTreeMap::new();
            bridged.fields = BTreeMap::new();
        }
        eprintln!(
            "Copilot CLI (own format, through agent-hooks): {} ({:.1?}): {}",
            case.name,
            started.elapsed(),
            if reference == bridged { "same" } else { "differs" }
        );
        (reference != bridged).then(|| {
            format!(
                "case `{}` (through agent-hooks):\n  Copilot CLI: {reference:?}\n  through agent-hooks: {bridged:?}\n  --- Copilot CLI run\n{their_detail}\n  --- through agent-hooks\n{bridged_detail}",
                case.name
            )
        })
    });
    let mut theirs = theirs;
    let mut known = Vec::new();
    if case.name == "no answers" {
        // Fields of the agent's own state, which agent-hooks' runner has no source for
        // (docs/real-agents.md).
        for (event, field) in AGENT_ONLY {
            if let Some(fields) = theirs.fields.get_mut(*event) {
                let before = fields.len();
                fields.retain(|f| f != field);
                if fields.len() < before {
                    known.push(format!("{event}.{field}"));
                }
            }
        }
    } else {
        ours.fields = BTreeMap::new();
        theirs.fields = BTreeMap::new();
    }
    // Copilot CLI sends a blocking agentStop's reason as the next prompt, so
    // userPromptSubmitted runs again; agent-hooks' runner goes on with the same turn (as
    // for Gemini CLI's AfterAgent, docs/real-agents.md).
    if case.name == "agentStop blocks once" {
        let prompts = |f: &Facts| f.ran.get("userPromptSubmitted").copied();
        if prompts(&theirs) == Some(2) && prompts(&ours) == Some(1) {
            ours.ran.insert("userPromptSubmitted".into(), 2);
            known.push("userPromptSubmitted runs again".into());
        }
    }
    if !known.is_empty() {
        eprintln!(
            "Copilot CLI (own format): {}: deliberate: {}",
            case.name,
            known.join(", ")
        );
    }
    eprintln!(
        "Copilot CLI (own format): {} ({:.1?}): {}",
        case.name,
        started.elapsed(),
        if theirs == ours { "same" } else { "differs" }
    );
    let direct_failure = (theirs != ours).then(|| {
        format!(
            "case `{}`:\n  Copilot CLI: {theirs:?}\n  agent-hooks: {ours:?}\n  --- Copilot CLI run\n{their_detail}\n  --- agent-hooks run\n{our_detail}",
            case.name
        )
    });
    match (direct_failure, bridged_failure) {
        (Some(a), Some(b)) => Some(format!("{a}\n\n{b}")),
        (a, b) => a.or(b),
    }
}

/// Every case, two sessions at a time; panics with every difference.
pub fn suite() {
    let install = agents::install_dir();
    let only = std::env::var("REAL_AGENTS_CASE").ok();
    let cases: Vec<Case> = cases()
        .into_iter()
        .filter(|c| {
            only.as_deref()
                .is_none_or(|o| o.split('|').any(|o| c.name.contains(o)))
        })
        .collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures: Vec<String> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..2)
            .map(|_| {
                scope.spawn(|| {
                    let mut failed = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        let Some(case) = cases.get(i) else { break };
                        failed.extend(run_case(&install, case));
                    }
                    failed
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("a case worker panicked"))
            .collect()
    });
    assert!(
        failures.is_empty(),
        "Copilot CLI and agent-hooks differ on Copilot CLI's own format:\n{}",
        failures.join("\n\n")
    );
}
