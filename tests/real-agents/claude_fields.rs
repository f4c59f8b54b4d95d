//! Claude Code's handler fields in the real agent and in agent-hooks: the same
//! `.claude/settings.json` with `args`, `shell`, `async`, `asyncRewake`, `once`,
//! `onFailure` and `continueOnBlock`, one session of Claude Code 2.1.332 and the same
//! session through agent-hooks, compared on what the tool did, which hooks ran how often,
//! how many model requests there were and what the model was told.

use agent_hooks::{
    command_hook::{CommandEvent, CommandHooks},
    HookRunner,
};
use serde_json::{json, Value};

use crate::{
    agents::{self, Agent, Run},
    cases::Case,
    compare,
};

/// The probe with tag `tag`, as a shell command.
fn probe(run: &Run, tag: &str) -> String {
    format!("python3 '{}' {tag}", run.path("probe.py").display())
}

/// One session: its case (answers, markers) and its hooks map.
struct Session {
    case: Case,
    hooks: fn(&Run) -> Value,
    /// Where the session through agent-hooks cannot show what the agent does (this suite's
    /// host does not turn a message into a model request), Claude Code's facts, pinned, and
    /// why; the runner's part is tested in tests/all/claude_code.rs.
    pinned: Option<(Value, &'static str)>,
    /// The prompt, when not the suite's own: a slash command of the project's
    /// `.claude/commands/`.
    prompt: Option<&'static str>,
}

/// The project's slash command `/deploy`: the suite's prompt, expanded.
const DEPLOY_COMMAND: &str = "Run the scripted command, then say you are done. ($ARGUMENTS)\n";

fn sessions() -> Vec<Session> {
    vec![
        Session {
            // `once` in a settings file: Claude Code runs the hook every time (three Stop runs:
            // two blocks, then no answer), agent-hooks too.
            case: Case::claude_only("fields: args, shell, async, once, continueOnBlock", |_| {
                vec![
                    (
                        "async",
                        json!([{"sleep": 1, "code": 2, "stderr": "M-async-exit2"}]),
                    ),
                    (
                        "stop-once",
                        json!([
                            {"stdout": json!({"decision": "block", "reason": "M-stop-once"}).to_string()},
                            {"stdout": json!({"decision": "block", "reason": "M-stop-twice"}).to_string()}
                        ]),
                    ),
                ]
            }),
            hooks: |run| {
                json!({
                    "PreToolUse": [{"hooks": [
                        {"type": "command", "command": "python3", "args": [run.path("probe.py").to_string_lossy(), "exec-form"]},
                        // Claude Code runs `"shell": "bash"` with /bin/sh on Linux (measured).
                        {"type": "command", "command": format!("[ -z \"$BASH_VERSION\" ] && {}", probe(run, "bash-shell")), "shell": "bash"},
                        {"type": "command", "command": probe(run, "continue-on-block"), "continueOnBlock": true}
                    ]}],
                    "PostToolUse": [{"hooks": [{"type": "command", "command": probe(run, "async"), "async": true}]}],
                    "Stop": [{"hooks": [{"type": "command", "command": probe(run, "stop-once"), "once": true}]}]
                })
            },
            pinned: None,
            prompt: None,
        },
        Session {
            case: Case::claude_only("fields: onFailure block", |_| {
                vec![("fails", json!([{"code": 1, "stderr": "M-on-failure"}]))]
            }),
            hooks: |run| {
                json!({"PreToolUse": [{"hooks": [
                    {"type": "command", "command": probe(run, "fails"), "onFailure": "block"}
                ]}]})
            },
            pinned: None,
            prompt: None,
        },
        Session {
            case: Case::claude_only("fields: asyncRewake", |_| {
                vec![("rewake", json!([{"sleep": 1, "code": 2, "stderr": "M-rewake"}]))]
            }),
            hooks: |run| {
                json!({"PostToolUse": [{"hooks": [
                    {"type": "command", "command": probe(run, "rewake"), "asyncRewake": true}
                ]}]})
            },
            pinned: Some((
                json!({
                    "hooks that ran": {"rewake": 1},
                    "model requests": 2,
                    "model was told": ["M-rewake"],
                    "tool ran, with what input": "ran"
                }),
                "an asyncRewake hook's exit 2 reaches the model as a message (agent-hooks: a message that starts a turn, AgentHost::send_message), which this suite's host does not turn into a request",
            )),
            prompt: None,
        },
        Session {
            case: Case::claude_only("events: PostToolBatch exit 2", |_| {
                vec![("batch", json!([{"code": 2, "stderr": "M-batch-stop"}]))]
            }),
            hooks: |run| json!({"PostToolBatch": [{"hooks": [{"type": "command", "command": probe(run, "batch")}]}]}),
            pinned: Some((
                json!({
                    "hooks that ran": {"batch": 1},
                    "model requests": 1,
                    "model was told": [],
                    "tool ran, with what input": "ran"
                }),
                "PostToolBatch has no runner moment: an agent emits it (emit_command); its exit 2 stops the agent before the next model request, as the registry's `Blocks` says",
            )),
            prompt: None,
        },
        Session {
            case: Case::claude_only("events: MessageDisplay (and DirectoryAdded, which does not fire)", |_| Vec::new()),
            hooks: |run| {
                json!({
                    "MessageDisplay": [{"hooks": [{"type": "command", "command": probe(run, "display")}]}],
                    "DirectoryAdded": [{"hooks": [{"type": "command", "command": probe(run, "added")}]}]
                })
            },
            pinned: Some((
                json!({
                    "hooks that ran": {"display": 1},
                    "model requests": 2,
                    "model was told": [],
                    "tool ran, with what input": "ran"
                }),
                "MessageDisplay has no runner moment: it fires (once here, the final text being one flush) while an answer streams; DirectoryAdded needs /add-dir or an SDK host, so it does not fire in a headless session",
            )),
            prompt: None,
        },
        Session {
            case: Case::claude_only("events: UserPromptExpansion exit 2", |_| {
                vec![("expansion", json!([{"code": 2, "stderr": "M-expansion-blocked"}]))]
            }),
            hooks: |run| {
                json!({"UserPromptExpansion": [{"matcher": "deploy", "hooks": [{"type": "command", "command": probe(run, "expansion")}]}]})
            },
            pinned: Some((
                json!({
                    "hooks that ran": {"expansion": 1},
                    "model requests": 0,
                    "model was told": [],
                    "tool ran, with what input": null
                }),
                "UserPromptExpansion has no runner moment: an agent emits it (emit_command); its exit 2 blocks the expansion, so the model is never asked",
            )),
            prompt: Some("/deploy prod"),
        },
    ]
}

/// Claude Code stopped on the hook `tag`'s exit 2; agent-hooks, given the payload Claude
/// Code gave it (`emit_command` of `event`), over the same file, must block with `reason`.
fn blocks_in_agent_hooks(
    run: &Run,
    tag: &str,
    event: CommandEvent,
    reason: &str,
) -> Option<String> {
    let probes = std::fs::read_to_string(run.path("probe.jsonl")).unwrap_or_default();
    let payload: Value = probes
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|l| l["tag"] == tag)?["payload"]
        .clone();
    // The probe answers by its run count: start again from the first answer.
    let _ = std::fs::remove_dir_all(run.path("counts"));
    let mut hooks = CommandHooks::new();
    hooks.load_file(&run.path(Agent::Claude.hooks_file()));
    let mut runner = HookRunner::new(Vec::new(), run.project());
    runner.add_command_hooks(hooks);
    let runtime = tokio::runtime::Runtime::new().ok()?;
    let fields = payload.as_object().cloned().unwrap_or_default();
    let outcome = runtime.block_on(runner.emit_command(event, fields));
    (!outcome.block || outcome.reasons != [reason])
        .then(|| format!("{event}: Claude Code stopped on exit 2; agent-hooks gave {outcome:?}"))
}

/// The payload fields a hook got beyond the common ones, against the registry's row.
fn payload_fields_match_the_registry(
    probes: &[compare::ProbeRun],
    tag: &str,
    event: &str,
) -> Option<String> {
    // The common fields, and `effort`: the agent's own state, not carried (docs/real-agents.md).
    let common = [
        "effort",
        "session_id",
        "transcript_path",
        "cwd",
        "permission_mode",
        "hook_event_name",
        "prompt_id",
        "agent_id",
        "agent_type",
    ];
    let payload = probes
        .iter()
        .find(|p| p.tag == tag)?
        .payload
        .as_object()?
        .clone();
    let row = agent_hooks::command_hook::EVENTS
        .iter()
        .find(|r| r.name == event)?;
    let mut got: Vec<&str> = payload
        .keys()
        .map(String::as_str)
        .filter(|k| !common.contains(k))
        .collect();
    got.sort();
    let mut documented: Vec<&str> = row.fields.to_vec();
    documented.sort();
    (got != documented)
        .then(|| format!("{event}: Claude Code sends {got:?}, the registry has {documented:?}"))
}

#[test]
#[ignore = "runs the real agents: tests/real-agents/run"]
fn claude_code_handler_fields_agree() {
    let install = agents::install_dir();
    let only = std::env::var("REAL_AGENTS_CASE").ok();
    let mut failures = Vec::new();
    for session in sessions() {
        if only
            .as_deref()
            .is_some_and(|o| !session.case.name.contains(o))
        {
            continue;
        }
        let started = std::time::Instant::now();
        let run = Run::new();
        run.write("probe.py", include_str!("probe.py"));
        run.write("project/.claude/commands/deploy.md", DEPLOY_COMMAND);
        let hooks = (session.hooks)(&run);
        let real = compare::agent_side_with(
            Agent::Claude,
            &install,
            &run,
            &session.case,
            &hooks,
            session.prompt,
        );
        let mut differences = Vec::new();
        if let Some((pinned, why)) = &session.pinned {
            let facts = serde_json::to_value(&real.facts).unwrap_or_default();
            if session.case.name.contains("PostToolBatch") {
                failures.extend(payload_fields_match_the_registry(
                    &real.probes,
                    "batch",
                    "PostToolBatch",
                ));
                failures.extend(blocks_in_agent_hooks(
                    &run,
                    "batch",
                    CommandEvent::PostToolBatch,
                    "M-batch-stop",
                ));
            }
            if session.case.name.contains("MessageDisplay") {
                failures.extend(payload_fields_match_the_registry(
                    &real.probes,
                    "display",
                    "MessageDisplay",
                ));
            }
            if session.case.name.contains("UserPromptExpansion") {
                failures.extend(payload_fields_match_the_registry(
                    &real.probes,
                    "expansion",
                    "UserPromptExpansion",
                ));
                failures.extend(blocks_in_agent_hooks(
                    &run,
                    "expansion",
                    CommandEvent::UserPromptExpansion,
                    "M-expansion-blocked",
                ));
            }
            if facts != *pinned {
                failures.push(format!(
                    "case `{}`: Claude Code changed ({why})\n    now: {facts}\n    pinned: {pinned}\n{}",
                    session.case.name, real.detail
                ));
            }
            eprintln!(
                "Claude Code: {} ({:.1?}): pinned",
                session.case.name,
                started.elapsed()
            );
            continue;
        }
        let ours = compare::agent_hooks_side(Agent::Claude, &run, &session.case, &real.probes);
        for (name, theirs) in &real.facts {
            let mine = ours.facts.get(name).cloned().unwrap_or(Value::Null);
            if *theirs != mine {
                differences.push(format!(
                    "  {name}\n    Claude Code: {theirs}\n    agent-hooks: {mine}"
                ));
            }
        }
        eprintln!(
            "Claude Code: {} ({:.1?}): {} difference(s); Claude Code: {:?}",
            session.case.name,
            started.elapsed(),
            differences.len(),
            real.facts
        );
        if !differences.is_empty() {
            failures.push(format!(
                "case `{}`:\n{}\n  --- Claude Code run\n{}\n  --- agent-hooks run\n{}",
                session.case.name,
                differences.join("\n"),
                real.detail,
                ours.detail
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "Claude Code and agent-hooks differ:\n{}",
        failures.join("\n\n")
    );
}
