//! What agent-hooks as the host gives an agent's hooks, and does with their answers, where
//! the real agent does it otherwise than a first reading of its docs says (measured with
//! the agents in tests/real-agents): the payload's session is Gemini CLI's
//! `GEMINI_SESSION_ID`; Claude Code's `PermissionRequest` hooks get no `tool_use_id` and
//! its `PostToolUseFailure` hooks no `is_error`; a Codex CLI `PostToolUse` block replaces
//! the tool's result for the model.

use agent_hooks_tests::commands::Project;
use serde_json::{json, Value};

fn recorded(project: &Project, name: &str) -> Value {
    let text = std::fs::read_to_string(project.root.join(name)).unwrap_or_default();
    serde_json::from_str(&text).unwrap_or(Value::Null)
}

#[test]
fn a_gemini_cli_hook_gets_the_payloads_session_in_its_variable_too() {
    let project = Project::new("gemini");
    let hooks = json!({"hooks": {"BeforeTool": [{"hooks": [{"type": "command", "name": "r",
        "command": "cat > \"$GEMINI_PROJECT_DIR\"/stdin.json; printf '%s' \"$GEMINI_SESSION_ID\" > \"$GEMINI_PROJECT_DIR\"/sid"}]}]}});
    project.write(".gemini/settings.json", &hooks.to_string());
    project.emit(
        "PreToolUse",
        json!({"tool_name": "exec", "tool_input": {"command": "ls"}, "session_id": "given-1"}),
    );
    assert_eq!(recorded(&project, "stdin.json")["session_id"], "given-1");
    assert_eq!(
        std::fs::read_to_string(project.root.join("sid")).unwrap(),
        "given-1"
    );
}

#[test]
fn claude_codes_permission_request_and_failure_hooks_get_only_what_it_sends() {
    let project = Project::new("claude");
    let record = |name: &str| format!("cat > \"$CLAUDE_PROJECT_DIR\"/{name}.json");
    let hooks = json!({"hooks": {
        "PermissionRequest": [{"hooks": [{"type": "command", "command": record("permission")}]}],
        "PostToolUseFailure": [{"hooks": [{"type": "command", "command": record("failure")}]}],
    }});
    project.write(".claude/settings.json", &hooks.to_string());
    project.emit(
        "PermissionRequest",
        json!({"tool_name": "Bash", "tool_input": {"command": "ls"}}),
    );
    project.emit(
        "PostToolUseFailure",
        json!({"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t-1",
               "error": "boom"}),
    );
    let permission = recorded(&project, "permission.json");
    assert_eq!(permission["tool_name"], "Bash", "{permission}");
    assert!(permission.get("tool_use_id").is_none(), "{permission}");
    let failure = recorded(&project, "failure.json");
    assert_eq!(failure["error"], "boom", "{failure}");
    assert!(failure.get("is_error").is_none(), "{failure}");
}

#[test]
fn a_codex_cli_post_tool_use_block_replaces_the_tools_result() {
    let project = Project::new("codex");
    let hooks = json!({"hooks": {"PostToolUse": [{"hooks": [{"type": "command",
        "command": "echo 'the output is withheld' >&2; exit 2"}]}]}});
    project.write(".codex/hooks.json", &hooks.to_string());
    let outcome = project.emit(
        "PostToolUse",
        json!({"tool_name": "exec", "tool_input": {"command": "cat secret"},
               "tool_response": {"output": "the secret"}}),
    );
    let text = outcome["content"].to_string();
    assert!(text.contains("the output is withheld"), "{outcome}");
    assert!(!text.contains("the secret"), "{outcome}");
}
