//! One case, both sides: the real agent's session with the probe on every event, then
//! agent-hooks over the same hooks file, driven through the same session (the prompt and
//! the tool call the agent's payloads carry), and the facts both give, compared.

use std::{
    collections::BTreeMap,
    fmt::Write as _,
    path::Path,
    sync::{Arc, Mutex},
};

use agent_hooks::{
    abi::prelude::*,
    command_hook::{CommandHookReport, CommandHooks},
    HookRunner,
};
use agent_hooks_tests::RecordingAgent;
use serde_json::{json, Map, Value};

use crate::{
    agents::{self, Agent, Run},
    cases::{Case, Hook},
    model::FakeModel,
};

/// The command the model's one tool call runs: it leaves a side effect in the project.
pub const TOOL_COMMAND: &str = "echo ran >> side-effect.txt";

/// The events of each agent a one-tool session reaches, each with the probe.
pub fn events(agent: Agent) -> &'static [&'static str] {
    match agent {
        Agent::Claude | Agent::Copilot => &[
            "SessionStart",
            "UserPromptSubmit",
            "PreToolUse",
            "PermissionRequest",
            "PostToolUse",
            "Stop",
            "SessionEnd",
        ],
        Agent::Codex => &[
            "SessionStart",
            "UserPromptSubmit",
            "PreToolUse",
            "PermissionRequest",
            "PostToolUse",
            "Stop",
        ],
        Agent::Gemini => &[
            "SessionStart",
            "BeforeAgent",
            "BeforeModel",
            "BeforeToolSelection",
            "BeforeTool",
            "AfterTool",
            "AfterModel",
            "AfterAgent",
            "SessionEnd",
        ],
        // Headless, Qwen Code 0.24.4 fires no SessionEnd.
        Agent::Qwen => &[
            "SessionStart",
            "UserPromptSubmit",
            "PreToolUse",
            "PostToolUse",
            "Stop",
        ],
    }
}

/// The events an agent has that agent-hooks has no moment for (Gemini CLI's model events):
/// agent-hooks reports them as not supported; their runs are not compared.
fn no_moment(event: &str) -> bool {
    matches!(event, "BeforeModel" | "AfterModel" | "BeforeToolSelection")
}

/// The agent's name of each of agent-hooks' moments in a one-tool session.
struct Names {
    session_start: &'static str,
    prompt: &'static str,
    pre: &'static str,
}

fn names(agent: Agent) -> Names {
    match agent {
        Agent::Gemini => Names {
            session_start: "SessionStart",
            prompt: "BeforeAgent",
            pre: "BeforeTool",
        },
        _ => Names {
            session_start: "SessionStart",
            prompt: "UserPromptSubmit",
            pre: "PreToolUse",
        },
    }
}

/// One run of the probe: its tag, the how-many-th run of that tag, its stdin, the hook
/// variables of its environment.
#[derive(Debug, Clone)]
pub struct ProbeRun {
    pub tag: String,
    pub payload: Value,
    pub env: BTreeMap<String, String>,
    /// The name of every variable of its environment.
    pub env_names: Vec<String>,
}

fn probe_log(path: &Path) -> Vec<ProbeRun> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .map(|line| ProbeRun {
            tag: line["tag"].as_str().unwrap_or_default().to_owned(),
            payload: line["payload"].clone(),
            env: line["env"]
                .as_object()
                .into_iter()
                .flatten()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned()))
                .collect(),
            env_names: line["env_names"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|name| name.as_str().map(str::to_owned))
                .collect(),
        })
        .collect()
}

/// What one side did, as facts with names; both sides give the same names.
pub type Facts = BTreeMap<String, Value>;

/// The facts of a session and the probe runs behind them.
pub struct Side {
    pub facts: Facts,
    pub probes: Vec<ProbeRun>,
    pub detail: String,
}

/// The hooks map of a case: the probe on every event, then the case's own hooks.
fn hooks_of(agent: Agent, case: &Case, probe: &Path) -> Value {
    let command = |tag: &str| format!("python3 '{}' {tag}", probe.display());
    let hook = |tag: &str, timeout: Option<f64>| {
        let mut hook = json!({"type": "command", "command": command(tag)});
        if agent == Agent::Gemini {
            hook["name"] = json!(tag);
        }
        if let Some(seconds) = timeout {
            // Gemini CLI gives milliseconds, the others seconds.
            hook["timeout"] = if agent == Agent::Gemini {
                json!((seconds * 1000.0) as u64)
            } else if seconds.fract() == 0.0 {
                // Codex refuses a whole hooks file whose timeout is not an integer.
                json!(seconds as u64)
            } else {
                json!(seconds)
            };
        }
        hook
    };
    let mut map = Map::new();
    for event in events(agent) {
        if case.probe_events {
            map.insert((*event).into(), json!([{"hooks": [hook(event, None)]}]));
        }
    }
    for Hook {
        event,
        matcher,
        tag,
        timeout,
    } in &case.hooks
    {
        let event = case.event_name(agent, event);
        let mut group = json!({"hooks": [hook(tag, *timeout)]});
        if let Some(matcher) = matcher {
            group["matcher"] = json!(matcher);
        }
        let groups = map.entry(event).or_insert_with(|| json!([]));
        groups.as_array_mut().expect("a list").push(group);
    }
    Value::Object(map)
}

fn write_answers(run: &Run, case: &Case, agent: Agent) {
    let _ = std::fs::remove_dir_all(run.path("answers"));
    let _ = std::fs::remove_dir_all(run.path("counts"));
    for (tag, answers) in case.answers(agent) {
        run.write(&format!("answers/{tag}.json"), &answers.to_string());
    }
}

/// The markers of a case found in `text`.
fn markers_in(case: &Case, texts: &[String]) -> Value {
    let found: Vec<String> = case
        .markers()
        .into_iter()
        .filter(|m| texts.iter().any(|t| t.contains(m)))
        .collect();
    json!(found)
}

/// Which probe tags ran, with how many runs each (the model events left out).
fn tags_ran(probes: &[ProbeRun]) -> Value {
    let mut counts: BTreeMap<&str, u64> = BTreeMap::new();
    for p in probes.iter().filter(|p| !no_moment(&p.tag)) {
        *counts.entry(p.tag.as_str()).or_default() += 1;
    }
    json!(counts)
}

fn side_effect(project: &Path) -> Value {
    match std::fs::read_to_string(project.join("side-effect.txt")) {
        Ok(text) => json!(text.trim()),
        Err(_) => Value::Null,
    }
}

/// The real agent's session.
pub fn agent_side(agent: Agent, install: &Path, run: &Run, case: &Case) -> Side {
    let hooks = hooks_of(agent, case, &run.path("probe.py"));
    agent_side_with(agent, install, run, case, &hooks, None)
}

/// [`agent_side`] with the hooks map `hooks` instead of the case's, and `prompt` instead of
/// the suite's own.
pub fn agent_side_with(
    agent: Agent,
    install: &Path,
    run: &Run,
    case: &Case,
    hooks: &Value,
    prompt: Option<&str>,
) -> Side {
    let model = FakeModel::start(TOOL_COMMAND);
    agents::configure(agent, run, model.port(), hooks);
    write_answers(run, case, agent);
    observe(agent, install, run, case, model, prompt)
}

/// The agent's session in `run`, configured, with the model `model`: its facts, read from
/// the agent's side (the side effect, the model's requests, the probe's log).
fn observe(
    agent: Agent,
    install: &Path,
    run: &Run,
    case: &Case,
    model: FakeModel,
    prompt: Option<&str>,
) -> Side {
    let outcome = match prompt {
        Some(prompt) => agents::launch_with_prompt(agent, install, run, model.port(), prompt),
        None => agents::launch(agent, install, run, model.port()),
    };
    let requests = model.requests();
    drop(model);
    let probes = probe_log(&run.path("probe.jsonl"));
    // The main loop's requests are the ones that offer tools.
    let main: Vec<&crate::model::Request> = requests
        .iter()
        .filter(|r| {
            let tools = &r.body["tools"];
            tools.as_array().is_some_and(|t| !t.is_empty())
        })
        .collect();
    let texts: Vec<String> = main.iter().map(|r| r.body.to_string()).collect();
    let mut facts = Facts::new();
    facts.insert(
        "tool ran, with what input".into(),
        side_effect(&run.project()),
    );
    facts.insert("model requests".into(), json!(main.len()));
    facts.insert("model was told".into(), markers_in(case, &texts));
    facts.insert("hooks that ran".into(), tags_ran(&probes));
    let mut detail = outcome.describe();
    for r in &requests {
        let _ = write!(
            detail,
            "\n--- request {}: {} bytes",
            r.path,
            r.body.to_string().len()
        );
    }
    Side {
        facts,
        probes,
        detail,
    }
}

/// The level `install --agent` edits the agent's hooks file at: the project's file of Claude
/// Code and Gemini CLI, the user's of Codex CLI.
fn install_level(agent: Agent) -> &'static str {
    match agent {
        Agent::Codex => "--user",
        _ => "--project",
    }
}

/// The same agent over the same hooks file, wired to agent-hooks as a user would: `agent-hooks
/// install --agent NAME --take-over` moves the file's hooks under agent-hooks (and `agent-hooks
/// trust` trusts them where the file is the project's), so that the agent runs the relay and
/// agent-hooks runs the hooks. The facts are read from the agent's side, as for
/// [`agent_side`].
pub fn bridged_side(agent: Agent, install: &Path, run: &Run, case: &Case) -> Side {
    agent_hooks_tests::relay_bin();
    let _ = std::fs::remove_file(run.project().join("side-effect.txt"));
    let _ = std::fs::rename(run.path("probe.jsonl"), run.path("emit-probe.jsonl"));
    let hooks = hooks_of(agent, case, &run.path("probe.py"));
    let model = FakeModel::start(TOOL_COMMAND);
    agents::configure(agent, run, model.port(), &hooks);
    write_answers(run, case, agent);
    let level = install_level(agent);
    agents::agent_hooks(
        run,
        &[
            "install",
            "--agent",
            agent.short_name(),
            level,
            "--take-over",
        ],
    );
    if level == "--project" {
        agents::agent_hooks(run, &["trust"]);
    }
    observe(agent, install, run, case, model, None)
}

/// agent-hooks over the same hooks file, through the session the agent's payloads show.
pub fn agent_hooks_side(agent: Agent, run: &Run, case: &Case, seen: &[ProbeRun]) -> Side {
    let _ = std::fs::remove_file(run.project().join("side-effect.txt"));
    let _ = std::fs::rename(run.path("probe.jsonl"), run.path("agent-probe.jsonl"));
    write_answers(run, case, agent);
    let file = run.path(agent.hooks_file());
    let mut hooks = CommandHooks::new();
    hooks.load_file(&file);
    let issues: Vec<String> = hooks.issues().iter().map(|i| i.to_string()).collect();
    let project = run.project();
    let mut runner = HookRunner::new(Vec::new(), &project);
    runner.add_command_hooks(hooks);
    let recording = Arc::new(RecordingAgent::default());
    runner.attach(recording.clone());
    let reports: Arc<Mutex<Vec<CommandHookReport>>> = Arc::default();
    let sink = reports.clone();
    runner.on_command_hook(move |r| {
        sink.lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(r.clone())
    });
    let names = names(agent);
    let first = |event: &str| seen.iter().find(|p| p.tag == event).map(|p| &p.payload);
    let prompt = first(names.prompt)
        .and_then(|p| p["prompt"].as_str().map(str::to_owned))
        .unwrap_or_else(|| agents::PROMPT.to_owned());
    let source = first(names.session_start)
        .and_then(|p| p["source"].as_str().map(str::to_owned))
        .unwrap_or_else(|| "startup".to_owned());
    // The tool call the model made, as the agent's hooks saw it.
    let input = first(names.pre)
        .map(|p| p["tool_input"].clone())
        .filter(|i| i.is_object())
        .unwrap_or_else(|| json!({"command": TOOL_COMMAND}));

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let mut told: Vec<String> = Vec::new();
    let mut requests = 0u64;
    let mut detail = String::new();
    runtime.block_on(async {
        let start = runner
            .emit(&SessionStartEvent::default().source(source))
            .await;
        if let Ok(start) = &start {
            told.extend(start.context.iter().cloned());
        }
        let _ = writeln!(detail, "SessionStart: {start:?}");
        let prompted = runner
            .emit(&BeforeAgentStartEvent::default().prompt(prompt))
            .await;
        let _ = writeln!(detail, "prompt: {prompted:?}");
        // `continue: false` reaches the host as a stop request: the agent stops there.
        let stopped = || {
            recording
                .calls()
                .iter()
                .any(|c| c.starts_with("stop_requested"))
        };
        let prompt_blocked = prompted.as_ref().is_ok_and(|p| p.block) || stopped();
        if let Ok(p) = &prompted {
            told.extend(p.context.iter().cloned());
        }
        if !prompt_blocked {
            requests += 1;
            let told_before_call = told.len();
            let call = runner
                .emit(&ToolCallEvent::new("exec", "call-1", input.clone()))
                .await;
            let _ = writeln!(detail, "tool_call: {call:?}");
            let (blocked, ran_input) = match &call {
                Ok(call) => {
                    told.extend(call.context.iter().cloned());
                    if call.block {
                        told.extend(call.reason.clone());
                    }
                    // A headless session has no user to confirm an ask: agent-hooks' tool
                    // wrapper blocks it then, the question the call's result.
                    let asked = !call.block && call.ask.is_some();
                    if asked {
                        told.extend(call.ask.clone());
                    }
                    (
                        call.block || asked,
                        call.input.clone().unwrap_or(input.clone()),
                    )
                }
                Err(e) => {
                    told.push(e.to_string());
                    (true, input.clone())
                }
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
                let result = ToolResultEvent::new("exec", "call-1", ran_input.clone())
                    .content(vec![ContentBlock::text(output.clone())])
                    .details(Value::Null)
                    .is_error(false);
                let patched = runner.emit(&result).await;
                let _ = writeln!(detail, "tool_result: {patched:?}");
                if let Ok(patch) = &patched {
                    if let Some(content) = &patch.content {
                        told.push(text_of(content));
                    }
                }
            }
            // The model is told the tool's result, unless the agent stopped.
            if !stopped() {
                requests += 1;
            } else {
                told.truncate(told_before_call);
            }
            let mut active = false;
            while !stopped() {
                let stop = runner
                    .emit(&StopEvent::default().stop_hook_active(active))
                    .await;
                let _ = writeln!(detail, "stop: {stop:?}");
                match stop {
                    Ok(stop)
                        if stop.block
                            && stop.stopped.is_none()
                            && !stop.loop_bound_reached
                            && !stopped() =>
                    {
                        told.extend(stop.reasons.iter().cloned());
                        requests += 1;
                        active = true;
                    }
                    _ => break,
                }
                if requests > 6 {
                    break;
                }
            }
        }
        let _ = runner
            .emit(&SessionShutdownEvent::default().reason("other".to_owned()))
            .await;
    });
    drop(runtime);
    for report in reports.lock().unwrap_or_else(|p| p.into_inner()).iter() {
        let _ = writeln!(
            detail,
            "hook {} {:?}: {:?} stderr {:?} answer {:?}",
            report.event, report.command, report.exit, report.stderr, report.answer
        );
    }
    if !issues.is_empty() {
        let _ = writeln!(detail, "issues: {issues:?}");
    }
    let probes = probe_log(&run.path("probe.jsonl"));
    let mut facts = Facts::new();
    facts.insert("tool ran, with what input".into(), side_effect(&project));
    facts.insert("model requests".into(), json!(requests));
    facts.insert("model was told".into(), markers_in(case, &told));
    facts.insert("hooks that ran".into(), tags_ran(&probes));
    Side {
        facts,
        probes,
        detail,
    }
}
