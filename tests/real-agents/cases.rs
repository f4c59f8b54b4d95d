//! The cases: one per kind of answer an agent's documentation names, written once in
//! neutral terms (`pre`, `post`, `prompt`, `start`, `stop`) and given each agent's event
//! names and answer fields.

use serde_json::{json, Value};

use crate::agents::Agent;

/// A hook a case adds besides the probe on every event.
pub struct Hook {
    /// The moment (`pre`, `post`, `prompt`, `start`, `stop`) or an agent's event name.
    pub event: &'static str,
    pub matcher: Option<&'static str>,
    /// The probe's tag: what its answers are keyed by and what its runs are logged as.
    pub tag: &'static str,
    /// Seconds.
    pub timeout: Option<f64>,
}

/// One case.
pub struct Case {
    pub name: &'static str,
    /// The probe on every event of the agent (tagged with the event's name).
    pub probe_events: bool,
    pub hooks: Vec<Hook>,
    /// The agents it runs for.
    pub agents: &'static [Agent],
    /// (tag or moment, the list of answers of its successive runs), per agent.
    answers: fn(Agent) -> Vec<(&'static str, Value)>,
}

const ALL: &[Agent] = &[
    Agent::Claude,
    Agent::Codex,
    Agent::Gemini,
    Agent::Copilot,
    Agent::Qwen,
];

impl Case {
    /// The agent's name of a moment (or the name itself when it is already one).
    pub fn event_name(&self, agent: Agent, moment: &str) -> String {
        let gemini = agent == Agent::Gemini;
        match moment {
            "pre" if gemini => "BeforeTool",
            "post" if gemini => "AfterTool",
            "prompt" if gemini => "BeforeAgent",
            "stop" if gemini => "AfterAgent",
            "pre" => "PreToolUse",
            "post" => "PostToolUse",
            "prompt" => "UserPromptSubmit",
            "stop" => "Stop",
            "start" => "SessionStart",
            other => other,
        }
        .to_owned()
    }

    /// (probe tag, answers) for `agent`.
    pub fn answers(&self, agent: Agent) -> Vec<(String, Value)> {
        (self.answers)(agent)
            .into_iter()
            .map(|(tag, answers)| (self.event_name(agent, tag), answers))
            .collect()
    }

    /// The marker strings its answers carry (`M-...`), to find them in what the model got.
    pub fn markers(&self) -> Vec<String> {
        let mut found = Vec::new();
        for agent in ALL {
            for (_, answers) in (self.answers)(*agent) {
                let text = answers.to_string();
                let mut rest = text.as_str();
                while let Some(at) = rest.find("M-") {
                    let tail = &rest[at..];
                    let end = tail
                        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
                        .unwrap_or(tail.len());
                    let marker = tail[..end].to_owned();
                    if !found.contains(&marker) {
                        found.push(marker);
                    }
                    rest = &tail[end..];
                }
            }
        }
        found.sort();
        found
    }
}

impl Case {
    /// A case of Claude Code only, whose hooks file its test writes itself (claude_fields.rs).
    pub fn claude_only(
        name: &'static str,
        answers: fn(Agent) -> Vec<(&'static str, Value)>,
    ) -> Case {
        Case {
            name,
            probe_events: false,
            hooks: Vec::new(),
            agents: &[Agent::Claude],
            answers,
        }
    }
}

/// An answer: exit `code` with `stderr`.
fn exit(code: i32, stderr: &str) -> Value {
    json!({"code": code, "stderr": stderr})
}

/// An answer: `value` on stdout, exit 0.
fn out(value: Value) -> Value {
    json!({"stdout": value.to_string()})
}

/// An answer: plain text on stdout, exit 0.
fn plain(text: &str) -> Value {
    json!({"stdout": text})
}

/// The `hookSpecificOutput` of `event` with `fields`.
fn specific(agent: Agent, event: &str, fields: Value) -> Value {
    let name = match (agent, event) {
        (Agent::Gemini, "pre") => "BeforeTool",
        (Agent::Gemini, "post") => "AfterTool",
        (Agent::Gemini, "prompt") => "BeforeAgent",
        (_, "pre") => "PreToolUse",
        (_, "post") => "PostToolUse",
        (_, "prompt") => "UserPromptSubmit",
        (_, "start") => "SessionStart",
        (_, other) => other,
    };
    let mut output = json!({"hookEventName": name});
    for (k, v) in fields.as_object().into_iter().flatten() {
        output[k] = v.clone();
    }
    json!({ "hookSpecificOutput": output })
}

/// A rewritten tool input in the agent's field (`updatedInput`, Gemini's `tool_input`).
fn rewrite(agent: Agent, command: &str) -> Value {
    let field = if agent == Agent::Gemini {
        "tool_input"
    } else {
        "updatedInput"
    };
    let mut input = json!({"command": command});
    if agent != Agent::Codex {
        input["description"] = json!("rewritten by a hook");
    }
    let mut fields = json!({});
    fields[field] = input;
    if agent != Agent::Gemini {
        fields["permissionDecision"] = json!("allow");
    }
    out(specific(agent, "pre", fields))
}

fn none(_: Agent) -> Vec<(&'static str, Value)> {
    Vec::new()
}

fn pre(hook: &'static str, matcher: &'static str) -> Hook {
    Hook {
        event: "pre",
        matcher: Some(matcher),
        tag: hook,
        timeout: None,
    }
}

/// Every case.
pub fn all() -> Vec<Case> {
    let case = |name, answers| Case {
        name,
        probe_events: true,
        hooks: Vec::new(),
        agents: ALL,
        answers,
    };
    let mut cases = vec![
        case("no answers", none),
        case("pre: exit 2 with a reason on stderr", |_| {
            vec![("pre", json!([exit(2, "M-exit2-reason")]))]
        }),
        case("pre: exit 2, nothing on stderr", |_| {
            vec![("pre", json!([exit(2, "")]))]
        }),
        case("pre: exit 1", |_| {
            vec![("pre", json!([exit(1, "M-exit1")]))]
        }),
        case("pre: exit 3", |_| {
            vec![("pre", json!([exit(3, "M-exit3")]))]
        }),
        case("pre: plain stdout", |_| {
            vec![("pre", json!([plain("M-pre-plain")]))]
        }),
        case("pre: not JSON that starts with {", |_| {
            vec![("pre", json!([plain("{M-broken")]))]
        }),
        case("pre: decision block", |_| {
            vec![(
                "pre",
                json!([out(
                    json!({"decision": "block", "reason": "M-decision-block"})
                )]),
            )]
        }),
        case("pre: decision deny", |_| {
            vec![(
                "pre",
                json!([out(
                    json!({"decision": "deny", "reason": "M-decision-deny"})
                )]),
            )]
        }),
        case("pre: permissionDecision deny", |a| {
            vec![(
                "pre",
                json!([out(specific(
                    a,
                    "pre",
                    json!({"permissionDecision": "deny", "permissionDecisionReason": "M-permission-deny"})
                ))]),
            )]
        }),
        case("pre: permissionDecision deny without a reason", |a| {
            vec![(
                "pre",
                json!([out(specific(
                    a,
                    "pre",
                    json!({"permissionDecision": "deny"})
                ))]),
            )]
        }),
        case("pre: permissionDecision allow", |a| {
            vec![(
                "pre",
                json!([out(specific(
                    a,
                    "pre",
                    json!({"permissionDecision": "allow", "permissionDecisionReason": "M-permission-allow"})
                ))]),
            )]
        }),
        case("pre: updatedInput", |a| {
            vec![(
                "pre",
                json!([rewrite(a, "echo rewritten >> side-effect.txt")]),
            )]
        }),
        case("pre: updatedInput alone", |a| {
            let mut answer = rewrite(a, "echo rewritten >> side-effect.txt");
            let mut output: Value =
                serde_json::from_str(answer["stdout"].as_str().unwrap_or("{}")).unwrap_or_default();
            if let Some(specific) = output["hookSpecificOutput"].as_object_mut() {
                specific.remove("permissionDecision");
            }
            answer["stdout"] = json!(output.to_string());
            vec![("pre", json!([answer]))]
        }),
        case("pre: permissionDecision ask", |a| {
            vec![(
                "pre",
                json!([out(specific(
                    a,
                    "pre",
                    json!({"permissionDecision": "ask", "permissionDecisionReason": "M-ask"})
                ))]),
            )]
        }),
        case("post: continue false", |_| {
            vec![(
                "post",
                json!([out(json!({"continue": false, "stopReason": "M-post-stop"}))]),
            )]
        }),
        case("prompt: continue false", |_| {
            vec![(
                "prompt",
                json!([out(
                    json!({"continue": false, "stopReason": "M-prompt-stop"})
                )]),
            )]
        }),
        case("stop: continue false", |_| {
            vec![(
                "stop",
                json!([out(json!({"continue": false, "stopReason": "M-stop-stop"}))]),
            )]
        }),
        case("pre: continue false", |_| {
            vec![(
                "pre",
                json!([out(
                    json!({"continue": false, "stopReason": "M-stop-reason"})
                )]),
            )]
        }),
        case("pre: additionalContext", |a| {
            vec![(
                "pre",
                json!([out(specific(
                    a,
                    "pre",
                    json!({"additionalContext": "M-pre-context"})
                ))]),
            )]
        }),
        case("pre: systemMessage", |_| {
            vec![("pre", json!([out(json!({"systemMessage": "M-system"}))]))]
        }),
        case("pre: suppressOutput", |_| {
            vec![("pre", json!([out(json!({"suppressOutput": true}))]))]
        }),
        case("post: decision block", |_| {
            vec![(
                "post",
                json!([out(json!({"decision": "block", "reason": "M-post-block"}))]),
            )]
        }),
        case("post: exit 2", |_| {
            vec![("post", json!([exit(2, "M-post-exit2")]))]
        }),
        case("post: additionalContext", |a| {
            vec![(
                "post",
                json!([out(specific(
                    a,
                    "post",
                    json!({"additionalContext": "M-post-context"})
                ))]),
            )]
        }),
        case("prompt: additionalContext", |a| {
            vec![(
                "prompt",
                json!([out(specific(
                    a,
                    "prompt",
                    json!({"additionalContext": "M-prompt-context"})
                ))]),
            )]
        }),
        case("prompt: plain stdout", |_| {
            vec![("prompt", json!([plain("M-prompt-plain")]))]
        }),
        case("prompt: decision block", |_| {
            vec![(
                "prompt",
                json!([out(
                    json!({"decision": "block", "reason": "M-prompt-block"})
                )]),
            )]
        }),
        case("prompt: exit 2", |_| {
            vec![("prompt", json!([exit(2, "M-prompt-exit2")]))]
        }),
        case("start: additionalContext", |a| {
            vec![(
                "start",
                json!([out(specific(
                    a,
                    "start",
                    json!({"additionalContext": "M-start-context"})
                ))]),
            )]
        }),
        case("start: plain stdout", |_| {
            vec![("start", json!([plain("M-start-plain")]))]
        }),
        case("stop: decision block, once", |_| {
            vec![(
                "stop",
                json!([out(json!({"decision": "block", "reason": "M-stop-block"}))]),
            )]
        }),
        case("stop: exit 2, once", |_| {
            vec![("stop", json!([exit(2, "M-stop-exit2")]))]
        }),
    ];
    cases.push(Case {
        name: "pre: a hook past its timeout",
        probe_events: true,
        hooks: vec![Hook {
            event: "pre",
            matcher: None,
            tag: "slow",
            timeout: Some(3.0),
        }],
        agents: ALL,
        answers: |_| {
            vec![(
                "slow",
                json!([{"sleep": 8, "code": 2, "stderr": "M-too-late"}]),
            )]
        },
    });
    cases.push(Case {
        name: "pre: two hooks rewrite, the first in the file finishes last",
        probe_events: false,
        hooks: vec![pre("rewrite-a", ""), pre("rewrite-b", "")],
        agents: ALL,
        answers: |a| {
            let mut slow = rewrite(a, "echo rewritten-a >> side-effect.txt");
            slow["sleep"] = json!(1.5);
            vec![
                ("rewrite-a", json!([slow])),
                (
                    "rewrite-b",
                    json!([rewrite(a, "echo rewritten-b >> side-effect.txt")]),
                ),
            ]
        },
    });
    cases.push(Case {
        name: "pre: two hooks disagree, allow and deny",
        probe_events: false,
        hooks: vec![pre("allow", ""), pre("deny", "")],
        agents: ALL,
        answers: |a| {
            vec![
                (
                    "allow",
                    json!([out(specific(
                        a,
                        "pre",
                        json!({"permissionDecision": "allow"})
                    ))]),
                ),
                ("deny", json!([exit(2, "M-one-denies")])),
            ]
        },
    });
    // Gemini CLI's own top-level answers: a question (headless, nobody to answer it), and
    // two hooks that give reasons, one allowing and one denying.
    cases.push(Case {
        name: "pre: decision ask",
        probe_events: false,
        hooks: vec![pre("ask", "")],
        agents: &[Agent::Gemini],
        answers: |_| {
            vec![(
                "ask",
                json!([out(json!({"decision": "ask", "reason": "M-decision-ask"}))]),
            )]
        },
    });
    cases.push(Case {
        name: "pre: two hooks give reasons, allow and deny",
        probe_events: false,
        hooks: vec![pre("allow-reason", ""), pre("deny-reason", "")],
        agents: &[Agent::Gemini],
        answers: |_| {
            vec![
                (
                    "allow-reason",
                    json!([out(json!({"decision": "allow", "reason": "M-allowed-a"}))]),
                ),
                (
                    "deny-reason",
                    json!([out(json!({"decision": "deny", "reason": "M-denied-b"}))]),
                ),
            ]
        },
    });
    cases.push(Case {
        name: "matchers: exact names, lists and regexes",
        probe_events: false,
        hooks: vec![
            pre("m-exact", "Bash"),
            pre("m-prefix", "Bas"),
            pre("m-list", "Read|Bash"),
            pre("m-regex", "^Ba.*"),
            pre("m-star", "*"),
            pre("m-empty", ""),
            pre("m-lower", "bash"),
            pre("m-gemini-exact", "run_shell_command"),
            pre("m-gemini-prefix", "run_shell"),
            pre("m-gemini-regex", "run_.*_command"),
        ],
        agents: ALL,
        answers: none,
    });
    cases
}
