//! The real agents as the reference: Claude Code, Codex CLI, Gemini CLI and
//! Copilot CLI, at pinned versions, run headless against a scripted model on 127.0.0.1
//! with their own hooks file and a probe hook on each event; then the same hooks file and
//! the session the agent's payloads show run through agent-hooks, and the two are
//! compared: did the tool run and with what input, what the model was told, how many
//! model requests (does the agent stop), which hooks ran, and what the hooks got on stdin
//! and in their environment. A difference fails with both sides shown, unless it is one of
//! the deliberate differences of `deliberate.rs` (docs/real-agents.md), which are asserted
//! as they are.
//!
//! Every test here is ignored in a plain `cargo test`: it needs the agents installed (about
//! 1 GB, from the npm registry) and runs them. `tests/real-agents/run` installs them into
//! the build folder once and runs these tests, inside a network namespace with only
//! loopback where `unshare` is allowed.

// The helpers the sessions through agent-hooks share are not used here.
#[allow(dead_code)]
mod agents;
mod cases;
mod claude_fields;
mod compare;
mod copilot_format;
mod deliberate;
mod model;
mod settings_levels;

use std::{
    collections::BTreeMap,
    sync::atomic::{AtomicUsize, Ordering},
};

use agents::{Agent, Run};
use serde_json::{json, Value};

/// The Copilot CLI cases of a run without `REAL_AGENTS_FULL` (Copilot CLI is recorded, not
/// compared, until its own format is read: CI records a few kinds of answer, not all).
const COPILOT_SUBSET: &[&str] = &[
    "no answers",
    "pre: exit 2 with a reason on stderr",
    "pre: exit 1",
    "pre: decision block",
    "pre: updatedInput",
    "prompt: additionalContext",
    "stop: exit 2, once",
];

/// The Qwen Code cases (its sessions run through agent-hooks too; the rest of its answers are
/// read as Claude Code's, which the other cases compare).
const QWEN_SUBSET: &[&str] = &[
    "no answers",
    "pre: exit 2 with a reason on stderr",
    "pre: exit 1",
    "pre: decision block",
    "pre: permissionDecision deny",
    "pre: updatedInput",
    "post: exit 2",
    "post: additionalContext",
    "prompt: exit 2",
    "stop: decision block, once",
];

/// The Factory Droid cases of a run without `REAL_AGENTS_FULL`: the sessions through
/// agent-hooks are compared and failed on; agent-hooks' runner over droid's file alone is
/// recorded (droid gives its hooks fields and variables of its own that the runner does not).
const DROID_SUBSET: &[&str] = &[
    "no answers",
    "pre: exit 2 with a reason on stderr",
    "pre: exit 1",
    "pre: permissionDecision deny",
    "pre: updatedInput",
    "pre: continue false",
    "post: exit 2",
    "stop: exit 2, once",
];

/// The variables agents give their hooks, compared by name.
const HOOK_VARIABLES: &[&str] = &[
    "CLAUDE_PROJECT_DIR",
    "CLAUDE_ENV_FILE",
    "CLAUDE_PLUGIN_ROOT",
    "GEMINI_PROJECT_DIR",
    "GEMINI_CWD",
    "GEMINI_SESSION_ID",
    "COPILOT_PROJECT_DIR",
    "QWEN_PROJECT_DIR",
    "QWEN_CODE_SESSION_ID",
];

/// Stdin fields whose values both sides must agree on (the rest are compared by name).
const STABLE_FIELDS: &[&str] = &[
    "hook_event_name",
    "tool_name",
    "tool_input",
    "prompt",
    "source",
    "stop_hook_active",
    "cwd",
];

/// What each probe tag got on its first run: stdin field names, stable values, variables;
/// with `whole_environment`, also the name of every variable of its environment but
/// agent-hooks' own (`AGENT_HOOKS_*`): under the agent, whatever the agent gives its hooks
/// must reach them through agent-hooks too.
fn stdin_facts(probes: &[compare::ProbeRun], facts: &mut compare::Facts, whole_environment: bool) {
    let mut first: BTreeMap<&str, &compare::ProbeRun> = BTreeMap::new();
    for p in probes {
        first.entry(p.tag.as_str()).or_insert(p);
    }
    for (tag, p) in first {
        if matches!(tag, "BeforeModel" | "AfterModel" | "BeforeToolSelection") {
            continue;
        }
        // By name, in any order.
        let mut keys: Vec<&String> = p
            .payload
            .as_object()
            .into_iter()
            .flatten()
            .map(|(k, _)| k)
            .collect();
        keys.sort();
        facts.insert(format!("stdin fields of {tag}"), json!(keys));
        let stable: serde_json::Map<String, Value> = STABLE_FIELDS
            .iter()
            .filter_map(|k| p.payload.get(*k).map(|v| ((*k).to_owned(), v.clone())))
            .collect();
        facts.insert(format!("stdin values of {tag}"), Value::Object(stable));
        let vars: Vec<&str> = HOOK_VARIABLES
            .iter()
            .copied()
            .filter(|v| p.env.contains_key(*v))
            .collect();
        facts.insert(format!("environment of {tag}"), json!(vars));
        if whole_environment {
            let names: Vec<&String> = p
                .env_names
                .iter()
                .filter(|name| !name.starts_with("AGENT_HOOKS_"))
                .collect();
            facts.insert(format!("environment names of {tag}"), json!(names));
        }
    }
}

/// `value` with the folder `root` written `<run>` in its strings.
fn relative(value: &mut Value, root: &str) {
    match value {
        Value::String(text) => *text = text.replace(root, "<run>"),
        Value::Array(items) => items.iter_mut().for_each(|v| relative(v, root)),
        Value::Object(fields) => fields.values_mut().for_each(|v| relative(v, root)),
        _ => {}
    }
}

/// How many sessions run at once.
const WORKERS: usize = 2;

/// What one case gave.
#[derive(Default)]
struct CaseResult {
    comparisons: usize,
    deliberate: usize,
    reached: Vec<(&'static str, String)>,
    failure: Option<String>,
    /// The same for the agent's session through agent-hooks (`install --take-over`).
    bridged: Option<Box<CaseResult>>,
}

/// Which of agent-hooks' two ways a comparison is of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Way {
    /// agent-hooks' runner (`emit`) over the agent's hooks file, as a host embedding it would.
    Direct,
    /// The real agent running agent-hooks' relay after `install --take-over`: what a user gets.
    Bridged,
}

impl Way {
    fn name(self) -> &'static str {
        match self {
            Way::Direct => "agent-hooks",
            Way::Bridged => "through agent-hooks",
        }
    }
}

/// Whether the sessions through agent-hooks run too (`REAL_AGENTS_BRIDGED=0` leaves them
/// out, for a quicker look at the direct comparison alone).
pub(crate) fn bridged_enabled() -> bool {
    std::env::var("REAL_AGENTS_BRIDGED").map_or(true, |v| v != "0")
}

/// Compares the agent's facts with one of agent-hooks' ways, against that way's deliberate
/// differences.
fn compare_sides(
    agent: Agent,
    case: &cases::Case,
    way: Way,
    real: &compare::Side,
    ours: &compare::Side,
    started: std::time::Instant,
) -> CaseResult {
    let mut result = CaseResult::default();
    let mut names: Vec<&String> = real.facts.keys().chain(ours.facts.keys()).collect();
    names.sort();
    names.dedup();
    let mut case_failures = Vec::new();
    for name in names {
        result.comparisons += 1;
        let theirs = real.facts.get(name).cloned().unwrap_or(Value::Null);
        let mine = ours.facts.get(name).cloned().unwrap_or(Value::Null);
        let expected = match way {
            Way::Direct => deliberate::find(agent, case.name, name),
            Way::Bridged => deliberate::find_bridged(agent, case.name, name),
        };
        match expected {
            Some(expected) => {
                result.deliberate += 1;
                result.reached.push((case.name, name.clone()));
                if theirs != expected.agent || mine != expected.agent_hooks {
                    case_failures.push(format!(
                        "  {name}: a deliberate difference changed ({})\n    {}: {theirs}\n    {}: {mine}\n    expected {}: {}\n    expected {}: {}",
                        expected.why, agent.name(), way.name(), agent.name(), expected.agent, way.name(), expected.agent_hooks
                    ));
                }
            }
            None if theirs != mine => case_failures.push(format!(
                "  {name}\n    {}: {theirs}\n    {}: {mine}\n    (if deliberate, in deliberate.rs: ({:?}, {:?}, {:?}, r#\"{theirs}\"#, r#\"{mine}\"#, WHY))",
                agent.name(),
                way.name(),
                agent,
                case.name,
                name
            )),
            None => {}
        }
    }
    eprintln!(
        "{} ({}): {} ({:.1?}): {} difference(s)",
        agent.name(),
        way.name(),
        case.name,
        started.elapsed(),
        case_failures.len()
    );
    if !case_failures.is_empty() {
        result.failure = Some(format!(
            "case `{}` ({}):\n{}\n  --- {} run\n{}\n  --- {} run\n{}",
            case.name,
            way.name(),
            case_failures.join("\n"),
            agent.name(),
            real.detail,
            way.name(),
            ours.detail
        ));
    }
    result
}

/// One case of `agent`: the agent's own session, agent-hooks' runner over the same file,
/// and (for the agents `install --take-over` wires) the agent's session through agent-hooks;
/// each of agent-hooks' ways compared with the agent's.
fn run_case(agent: Agent, install: &std::path::Path, case: &cases::Case) -> CaseResult {
    let run = Run::new();
    run.write("probe.py", include_str!("probe.py"));
    let started = std::time::Instant::now();
    let mut real = compare::agent_side(agent, install, &run, case);
    let mut ours = compare::agent_hooks_side(agent, &run, case, &real.probes);
    let mut bridged = (bridged_enabled() && agent != Agent::Copilot)
        .then(|| compare::bridged_side(agent, install, &run, case));
    // The run's folders are temporary: facts name them `<run>`.
    let root = run.root.path().to_string_lossy().into_owned();
    let mut real_whole = None;
    if case.name == "no answers" {
        stdin_facts(&real.probes, &mut real.facts, false);
        stdin_facts(&ours.probes, &mut ours.facts, false);
        if let Some(bridged) = &mut bridged {
            let mut whole = real.facts.clone();
            stdin_facts(&real.probes, &mut whole, true);
            stdin_facts(&bridged.probes, &mut bridged.facts, true);
            real_whole = Some(whole);
        }
    }
    for facts in [&mut real.facts, &mut ours.facts]
        .into_iter()
        .chain(bridged.as_mut().map(|b| &mut b.facts))
        .chain(real_whole.as_mut())
    {
        for value in facts.values_mut() {
            relative(value, &root);
        }
    }
    let mut result = compare_sides(agent, case, Way::Direct, &real, &ours, started);
    if let Some(bridged) = bridged {
        let reference = match real_whole {
            Some(whole) => compare::Side {
                facts: whole,
                probes: Vec::new(),
                detail: real.detail.clone(),
            },
            None => real,
        };
        result.bridged = Some(Box::new(compare_sides(
            agent,
            case,
            Way::Bridged,
            &reference,
            &bridged,
            started,
        )));
    }
    result
}

/// Runs every case of `agent` on both sides and compares. Returns the number of
/// comparisons; panics with every unexplained difference.
fn suite(agent: Agent, fail: bool) -> usize {
    let install = agents::install_dir();
    let versions = std::fs::read_to_string(install.join("versions.txt")).unwrap_or_default();
    eprintln!(
        "{}: agents installed: {}",
        agent.name(),
        versions.split_whitespace().collect::<Vec<_>>().join(" ")
    );
    let mut failures = Vec::new();
    let mut comparisons = 0;
    let mut deliberate_seen = 0;
    let only = std::env::var("REAL_AGENTS_CASE").ok();
    let full = std::env::var_os("REAL_AGENTS_FULL").is_some();
    let mut reached: Vec<(&'static str, String)> = Vec::new();
    let selected: Vec<cases::Case> = cases::all()
        .into_iter()
        .filter(|case| {
            case.agents.contains(&agent)
                && only
                    .as_deref()
                    .is_none_or(|o| o.split('|').any(|o| case.name.contains(o)))
                && (agent != Agent::Copilot || full || COPILOT_SUBSET.contains(&case.name))
                && (agent != Agent::Qwen || full || QWEN_SUBSET.contains(&case.name))
                && (agent != Agent::Droid || full || DROID_SUBSET.contains(&case.name))
        })
        .collect();
    // Two sessions at a time (the agents' start-up is most of a run), in case order.
    let next = AtomicUsize::new(0);
    let mut results: Vec<(usize, CaseResult)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..WORKERS)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::SeqCst);
                        let Some(case) = selected.get(i) else { break };
                        done.push((i, run_case(agent, &install, case)));
                    }
                    done
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("a case worker panicked"))
            .collect()
    });
    results.sort_by_key(|(i, _)| *i);
    let (mut bridged_comparisons, mut bridged_deliberate) = (0, 0);
    let mut bridged_reached: Vec<(&'static str, String)> = Vec::new();
    let mut bridged_ran = false;
    let mut recorded: Vec<String> = Vec::new();
    for (_, result) in results {
        comparisons += result.comparisons;
        deliberate_seen += result.deliberate;
        reached.extend(result.reached);
        match result.failure {
            Some(failure) if agent == Agent::Droid => recorded.push(failure),
            failure => failures.extend(failure),
        }
        if let Some(bridged) = result.bridged {
            bridged_ran = true;
            bridged_comparisons += bridged.comparisons;
            bridged_deliberate += bridged.deliberate;
            bridged_reached.extend(bridged.reached);
            failures.extend(bridged.failure);
        }
    }
    if only.is_none() {
        for (case, fact) in deliberate::rows(agent) {
            if !reached.iter().any(|(c, f)| *c == case && f == fact) {
                failures.push(format!(
                    "deliberate.rs has a row no run reached: case `{case}`, fact `{fact}`"
                ));
            }
        }
        if bridged_ran {
            for (case, fact) in deliberate::bridged_rows(agent) {
                if !bridged_reached.iter().any(|(c, f)| *c == case && f == fact) {
                    failures.push(format!(
                        "deliberate.rs has a row of the sessions through agent-hooks no run reached: case `{case}`, fact `{fact}`"
                    ));
                }
            }
        }
    }
    eprintln!("{}: {comparisons} comparisons, {deliberate_seen} of them deliberate differences, {} case(s) differ", agent.name(), failures.len());
    if bridged_ran {
        eprintln!(
            "{} through agent-hooks (install --take-over): {bridged_comparisons} comparisons, {bridged_deliberate} of them deliberate differences",
            agent.name()
        );
    }
    if !recorded.is_empty() {
        eprintln!(
            "{} and agent-hooks' runner over its file alone differ (recorded, not failed):\n{}",
            agent.name(),
            recorded.join("\n\n")
        );
    }
    if !failures.is_empty() {
        let report = failures.join("\n\n");
        if fail {
            panic!("{} and agent-hooks differ:\n{report}", agent.name());
        }
        eprintln!(
            "{} and agent-hooks differ (recorded, not failed):\n{report}",
            agent.name()
        );
    }
    comparisons
}

#[test]
#[ignore = "runs the real agents: tests/real-agents/run"]
fn claude_code_and_agent_hooks_agree() {
    suite(Agent::Claude, true);
}

#[test]
#[ignore = "runs the real agents: tests/real-agents/run"]
fn codex_and_agent_hooks_agree() {
    suite(Agent::Codex, true);
}

#[test]
#[ignore = "runs the real agents: tests/real-agents/run"]
fn gemini_cli_and_agent_hooks_agree() {
    suite(Agent::Gemini, true);
}

#[test]
#[ignore = "runs the real agents: tests/real-agents/run"]
fn qwen_code_and_agent_hooks_agree() {
    suite(Agent::Qwen, true);
}

/// Copilot CLI's run of a project's `.claude/settings.json` (which it reads its own way) is
/// compared and recorded, not failed; its own format is compared in the next test.
#[test]
#[ignore = "runs the real agents: tests/real-agents/run"]
fn copilot_cli_is_recorded() {
    suite(Agent::Copilot, false);
}

#[test]
#[ignore = "runs the real agents: tests/real-agents/run"]
fn factory_droid_and_agent_hooks_agree() {
    suite(Agent::Droid, true);
}

/// Copilot CLI's own format (`.github/hooks/*.json`): compared, and failed on a difference.
#[test]
#[ignore = "runs the real agents: tests/real-agents/run"]
fn copilot_cli_own_format_and_agent_hooks_agree() {
    copilot_format::suite();
}
