//! New fields and values never open a guard: each agent's `PreToolUse` payload, mutated the
//! way a newer version of the agent could send it (unknown fields, unknown values of the
//! fields agent-hooks knows, a larger or nested tool input, optional fields left out),
//! answered through the same code `agent-hooks hook` answers with. A guard that blocks the
//! original blocks every mutation; a required guard that cannot decide blocks too.
//!
//! The guard is long-running (one process for every case), so that a few thousand cases
//! per agent cost seconds.

use std::path::Path;

use proptest::{prelude::*, test_runner::TestRunner};
use serde_json::{json, Value};

use super::{answer_with, request::Request};
use crate::hook_session::{open, HookArgs};
use crate::{options::Common, relay::Reply, session::Session};
use agent_hooks::{agents::Agent, command_hook::CommandEvent};

/// The fields agent-hooks reads an event by: never taken out nor given another value.
const KEPT: &[&str] = &["hook_event_name", "tool_input", "toolArgs"];

/// The fields an agent may leave out (optional in its payload).
const OPTIONAL: &[&str] = &[
    "session_id",
    "transcript_path",
    "cwd",
    "permission_mode",
    "tool_use_id",
    "turn_id",
    "model",
    "timestamp",
    "sessionId",
];

/// The command every payload asks to run, which the guard refuses.
const DANGEROUS: &str = "rm -rf /";

/// `agent`'s payload of a shell call running [`DANGEROUS`], as it writes it today: in the
/// form of its own where it has one, else in the common form with its names of the event
/// and of the shell tool (its profile's).
fn original(agent: Agent, project: &Path) -> Value {
    match agent {
        Agent::Cline => json!({
            "clineVersion": "3.0.65", "timestamp": "2026-12-05T10:00:00.000Z", "taskId": "s-1",
            "workspaceRoots": [project], "hookName": "tool_call",
            "tool_call": {"id": "t-1", "name": "run_commands",
                "input": {"commands": [DANGEROUS]}},
            "preToolUse": {"toolName": "run_commands",
                "parameters": {"commands": json!([DANGEROUS]).to_string()}},
        }),
        Agent::Copilot => json!({
            "timestamp": 1_765_000_000_000_u64, "sessionId": "s-1", "cwd": project,
            "toolName": "bash", "toolArgs": json!({"command": DANGEROUS}).to_string(),
        }),
        _ => {
            let profile = agent.profile();
            let tool = profile
                .tools
                .iter()
                .find(|(own, _)| *own == "exec")
                .map_or("exec", |(_, its)| its);
            let event = profile.event_name(CommandEvent::PreToolUse);
            json!({
                "session_id": "s-1", "transcript_path": "/nonexistent/t.jsonl", "cwd": project,
                "permission_mode": "default", "hook_event_name": event, "tool_name": tool,
                "tool_input": {"command": DANGEROUS}, "tool_use_id": "t-1", "turn_id": "u-1",
                "model": "m-1", "timestamp": "2026-12-05T10:00:00Z",
            })
        }
    }
}

/// Text matching `pattern`, a regular expression read once (a `&str` strategy reads its
/// pattern again for every value).
fn text(pattern: &str) -> BoxedStrategy<String> {
    proptest::string::string_regex(pattern)
        .expect("a valid pattern")
        .boxed()
}

/// A JSON value a newer agent could put anywhere: scalars, lists and objects, nested.
fn any_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        text("[a-zA-Z0-9 _.:/-]{0,24}").prop_map(Value::String),
    ];
    // The strategy of the nesting is made again for every value: the pattern is read here.
    let key = text("[a-zA-Z_]{1,10}");
    leaf.prop_recursive(3, 24, 4, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((key.clone(), inner), 0..4)
                .prop_map(|fields| Value::Object(fields.into_iter().collect())),
        ]
    })
}

/// One way a newer agent's payload may differ.
#[derive(Debug, Clone)]
enum Mutation {
    /// A field agent-hooks does not know, at the top.
    NewField(String, Value),
    /// A new value of a field agent-hooks knows (`permission_mode`, `source`, `tool_name`,
    /// `toolName`, ...).
    NewValue(&'static str, Value),
    /// A field more in the tool's input.
    LargerInput(String, Value),
    /// The tool's input given as an object where it was text (`toolArgs` of an agent's own
    /// form).
    InputAsObject,
    /// An optional field left out.
    Missing(&'static str),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let known = prop::sample::select(vec![
        "permission_mode",
        "source",
        "tool_name",
        "toolName",
        "session_id",
        "cwd",
        "tool_use_id",
        "stop_hook_active",
        "model",
    ]);
    let new_values = prop_oneof![text("[a-zA-Z_]{1,16}").prop_map(Value::String), any_value(),];
    let name = text("[a-z][a-zA-Z_]{0,14}");
    prop_oneof![
        (name.clone(), any_value()).prop_map(|(k, v)| Mutation::NewField(k, v)),
        (known, new_values).prop_map(|(k, v)| Mutation::NewValue(k, v)),
        (name, any_value()).prop_map(|(k, v)| Mutation::LargerInput(k, v)),
        Just(Mutation::InputAsObject),
        prop::sample::select(OPTIONAL.to_vec()).prop_map(Mutation::Missing),
    ]
}

/// `payload` with `mutations` applied (a field agent-hooks reads an event by is kept).
fn mutate(mut payload: Value, mutations: &[Mutation]) -> Value {
    let Some(fields) = payload.as_object_mut() else {
        return payload;
    };
    for m in mutations {
        match m {
            Mutation::NewField(name, value) if !fields.contains_key(name) => {
                fields.insert(name.clone(), value.clone());
            }
            Mutation::NewValue(name, value) if !KEPT.contains(name) => {
                // A value of a field the payload has, or the field added.
                fields.insert((*name).to_owned(), value.clone());
            }
            Mutation::LargerInput(name, value) if name != "command" => {
                if let Some(Value::Object(input)) = fields.get_mut("tool_input") {
                    input.insert(name.clone(), value.clone());
                }
                if let Some(Value::String(args)) = fields.get_mut("toolArgs") {
                    if let Ok(Value::Object(mut input)) = serde_json::from_str::<Value>(args) {
                        input.insert(name.clone(), value.clone());
                        *args = Value::Object(input).to_string();
                    }
                }
            }
            Mutation::InputAsObject => {
                if let Some(Value::String(args)) = fields.get("toolArgs") {
                    if let Ok(object) = serde_json::from_str::<Value>(args) {
                        fields.insert("toolArgs".into(), object);
                    }
                }
            }
            Mutation::Missing(name) => {
                fields.remove(*name);
            }
            _ => {}
        }
    }
    payload
}

/// Whether `reply` keeps the tool from running, in `agent`'s terms.
fn blocks(agent: Agent, reply: &Reply) -> bool {
    let denied = || {
        serde_json::from_str::<Value>(&reply.stdout).is_ok_and(|answer| {
            answer["permissionDecision"] == "deny"
                || answer["hookSpecificOutput"]["permissionDecision"] == "deny"
        })
    };
    // Cline reads no exit code: a block is `cancel` in the answer.
    let cancelled = || {
        serde_json::from_str::<Value>(&reply.stdout).is_ok_and(|answer| answer["cancel"] == true)
    };
    reply.code == 2
        || (agent == Agent::Copilot && denied())
        || (agent == Agent::Cline && cancelled())
}

/// A long-running guard on every tool call that refuses [`DANGEROUS`] wherever the tool's
/// input carries it, `required` or not, in a hooks file of agent-hooks' own.
fn guard(folder: &Path, required: bool) -> std::path::PathBuf {
    let script = folder.join("guard.py");
    std::fs::write(
        &script,
        r#"import json, sys
def send(m):
    sys.stdout.write(json.dumps(m) + "\n"); sys.stdout.flush()
send({"type": "hello", "protocol": 1, "name": "guard"})
for line in sys.stdin:
    m = json.loads(line)
    if m.get("type") == "event":
        if "rm -rf" in json.dumps(m["payload"].get("tool_input")):
            send({"type": "answer", "id": m["id"], "block": "the guard refuses rm -rf"})
        else:
            send({"type": "answer", "id": m["id"]})
    elif m.get("type") == "goodbye":
        break
"#,
    )
    .expect("write the guard");
    let file = folder.join("guard.json");
    let hooks = json!({"PreToolUse": [{"hooks": [{"type": "command",
        "command": format!("python3 '{}'", script.display()), "persistent": true,
        "timeout": 10, "required": required}]}]});
    std::fs::write(&file, hooks.to_string()).expect("write the hooks file");
    file
}

/// The session `hook --agent AGENT` opens with the guard alone.
fn session(agent: Agent, project: &Path, hooks: &Path) -> (Common, HookArgs, Session) {
    let common = Common {
        cwd: Some(project.to_path_buf()),
        hooks: vec![hooks.display().to_string()],
        no_discover: true,
        ui: "no".into(),
        ..Common::default()
    };
    let args = HookArgs {
        agent,
        event: (agent == Agent::Copilot).then(|| "preToolUse".to_owned()),
        with: Vec::new(),
        no_serve: true,
    };
    let mut session = open(&common, &args).expect("a session");
    // Not recorded: the user's state folder is not the test's to write.
    session.decisions.on = false;
    (common, args, session)
}

/// Every mutation of every agent's payload is blocked by the guard, required or not: every
/// other agent from the first here, the rest in the next test, so that the two halves run
/// at once (each case waits on the guard's process).
#[test]
fn new_fields_and_values_never_open_a_guard() {
    never_open_a_guard(0);
}

/// The agents [`new_fields_and_values_never_open_a_guard`] leaves: every other agent from
/// the second.
#[test]
fn new_fields_and_values_never_open_a_guard_of_the_other_agents() {
    never_open_a_guard(1);
}

/// The mutations of the payloads of every other agent of [`Agent::hooked`], from the one at
/// `first`, each blocked by the guard, required or not.
fn never_open_a_guard(first: usize) {
    let cases: u32 = std::env::var("AGENT_HOOKS_MUTATION_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(2000);
    let folder = tempfile::tempdir().expect("a folder");
    let project = folder.path().join("project");
    std::fs::create_dir_all(&project).expect("a project");
    let runtime = crate::runtime::build().expect("a runtime");
    for required in [false, true] {
        let hooks = guard(folder.path(), required);
        for agent in Agent::hooked().skip(first).step_by(2) {
            let (common, args, session) = session(agent, &project, &hooks);
            let base = original(agent, &project);
            let answer = |payload: &Value| {
                let bytes = payload.to_string().into_bytes();
                match Request::parse(&bytes, agent, args.event.as_deref()) {
                    Ok(request) => answer_with(&session, &runtime, agent, &request, None),
                    Err(error) => super::unreadable(
                        &session,
                        &common,
                        agent,
                        &error,
                        crate::decisions::AnsweredBy::Relay,
                    ),
                }
            };
            let first = answer(&base);
            assert!(blocks(agent, &first), "{agent:?}: the original: {first:?}");
            let config = ProptestConfig {
                cases: if required { cases / 4 } else { cases },
                failure_persistence: None,
                // A generator cheaper than the default's cryptographic one: the cases are
                // many, and drawing one should cost less than answering it.
                rng_algorithm: proptest::test_runner::RngAlgorithm::XorShift,
                ..ProptestConfig::default()
            };
            let mut runner = TestRunner::new(config);
            let result = runner.run(&prop::collection::vec(mutation(), 1..6), |mutations| {
                let payload = mutate(base.clone(), &mutations);
                let reply = answer(&payload);
                prop_assert!(
                    blocks(agent, &reply),
                    "{agent:?} (required: {required}): {payload}\n{reply:?}"
                );
                Ok(())
            });
            if let Err(failure) = result {
                panic!("a mutation opened the guard: {failure}");
            }
        }
    }
}
