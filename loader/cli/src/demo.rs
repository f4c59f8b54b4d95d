//! `agent-hooks demo`, the built-in default: the sample plugins (built next to this program
//! by `cargo build --workspace`) and a built-in set of command hooks, on a built-in session
//! that shows each thing the hook system does, with a line of explanation each.

use std::{path::PathBuf, process::ExitCode};

use serde_json::json;

use crate::{
    emit::runtime,
    output::{short_path, Style},
    replay::{print_summary, replay_line, Summary},
    session::Session,
    Common, Outcome,
};

/// The plugins the demo loads, by crate name, and what each shows.
const PLUGINS: &[&str] = &[
    "block_dangerous",
    "redact_secrets",
    "filter_context",
    "panicking_handler",
    "hostile",
    "factory_error",
];

/// The built-in command hooks, written into the demo project.
const HOOKS_FILE: &str = r#"{
  "PreToolUse": [
    { "matcher": "^exec$",
      "hooks": [ { "type": "command", "command": "grep -q '\"git status\"' && echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"updatedInput\": {\"command\": \"git status --short\"}}}' || true", "timeout": 5 } ] }
  ],
  "PermissionRequest": [
    { "matcher": "exec",
      "hooks": [ { "type": "command", "command": "grep -q '\"command\": *\"git ' && echo '{\"decision\": \"approve\"}' || true" } ] }
  ],
  "UserPromptSubmit": [
    { "hooks": [ { "type": "command", "command": "echo 'Deploys require an approved change ticket.'" } ] }
  ],
  "Stop": [
    { "hooks": [ { "type": "command", "command": "echo '{\"decision\": \"block\", \"reason\": \"Please run the test suite before stopping.\"}'" } ] }
  ]
}"#;

/// The built-in session: what each step shows, and the event.
fn session_steps() -> Vec<(&'static str, serde_json::Value)> {
    vec![
        ("A prompt: a command hook (UserPromptSubmit) injects context.",
         json!({"event": "before_agent_start", "prompt": "Deploy the release"})),
        ("A dangerous command: the block-dangerous plugin blocks it (no UI to ask).",
         json!({"event": "tool_call", "tool_name": "exec", "input": {"command": "rm -rf build"}})),
        ("A command rewritten: a PreToolUse hook returns updatedInput; the tool runs the new one.",
         json!({"event": "tool_call", "tool_name": "exec", "input": {"command": "git status"}})),
        ("A secret in a file: the redact-secrets plugin redacts it in the tool's output.",
         json!({"event": "tool_call", "tool_name": "read", "input": {"path": ".env", "output": "API_KEY=sk-live-1234 DEBUG=1"}})),
        ("A debug message: the filter-context plugin keeps it out of the model's context.",
         json!({"event": "context", "messages": [
            {"role": "user", "content": "Deploy the release"},
            {"role": "custom", "custom_type": "debug-only", "content": "trace: 41 ms in planner"},
            {"role": "custom", "custom_type": "note", "content": "release notes drafted"}]})),
        ("A git command needs permission: a PermissionRequest hook approves it.",
         json!({"event": "permission_request", "tool_name": "exec", "input": {"command": "git push origin main"}})),
        ("A plugin panics in tool_call: the panic is caught inside it and reported, the call is blocked (hooks fail safe), and the agent goes on.",
         json!({"event": "tool_call", "tool_name": "explode", "input": {}})),
        ("A plugin segfaults in tool_call: it runs in a process of its own, so the agent lives, hears which plugin died of what, and blocks the call.",
         json!({"event": "tool_call", "tool_name": "exec", "input": {"command": "ls", "fault": "segfault"}})),
        ("The next call starts that plugin's process again, and it works.",
         json!({"event": "tool_call", "tool_name": "exec", "input": {"command": "ls", "fault": "none"}})),
        ("The agent wants to stop: a Stop hook keeps it going...",
         json!({"event": "stop"})),
        ("...and again...",
         json!({"event": "stop"})),
        ("...until the runner's bound (2 in a row here, 8 by default) lets it stop.",
         json!({"event": "stop"})),
    ]
}

/// `agent-hooks demo`.
pub fn run(common: &Common) -> Outcome {
    let style = Style::for_stdout();
    let exe = std::env::current_exe()?;
    let folder = exe
        .parent()
        .ok_or("cannot find this program's folder")?
        .to_path_buf();
    let plugins: Vec<PathBuf> = PLUGINS
        .iter()
        .map(|name| {
            folder.join(format!(
                "{}{name}{}",
                std::env::consts::DLL_PREFIX,
                std::env::consts::DLL_SUFFIX
            ))
        })
        .collect();
    if let Some(missing) = plugins.iter().find(|p| !p.exists()) {
        return Err(format!(
            "the sample plugins are not built ({} is missing): run `cargo build --workspace` first",
            missing.display()
        )
        .into());
    }
    let project = tempfile::Builder::new()
        .prefix("agent-hooks-demo-")
        .tempdir()?;
    let hooks_file = project.path().join(".agent-hooks/hooks.json");
    std::fs::create_dir_all(project.path().join(".agent-hooks"))?;
    std::fs::write(&hooks_file, HOOKS_FILE)?;

    let mut demo = common.clone();
    demo.cwd = Some(project.path().to_path_buf());
    demo.no_discover = true;
    demo.trust_project = true;
    demo.hooks = plugins.iter().map(|p| p.display().to_string()).collect();
    demo.hooks.push(hooks_file.display().to_string());
    let session = Session::build(&demo, |_| {}, |runner| runner.set_max_stop_blocks(2))?;

    if !common.json {
        outln!(
            "{}",
            style.bold("agent-hooks demo: native plugins and command hooks, one runner")
        );
        outln!(
            "Loaded {} plugins and {} command hooks:",
            session.runner.hooks().len(),
            session.runner.command_hooks().hooks().count()
        );
        for hook in session.runner.hooks() {
            let events: Vec<&str> = hook.events().map(|e| e.name()).collect();
            outln!(
                "  {} {}  {}",
                style.ok("ok"),
                short_path(hook.resolved_path(), &folder),
                style.dim(&events.join(", "))
            );
        }
        for hook in session.runner.command_hooks().hooks() {
            outln!(
                "  {} {} hook  {}",
                style.ok("ok"),
                hook.event,
                style.dim(&hook.command)
            );
        }
        outln!("A plugin that fails to load is reported with its reason, and the rest load:");
        for failure in &session.findings.loaded.errors {
            outln!(
                "  {} {}: {}",
                style.bad("FAIL"),
                short_path(std::path::Path::new(&failure.path), &folder),
                failure.error
            );
        }
        outln!();
    }

    let runtime = runtime()?;
    let mut summary = Summary::default();
    let started = std::time::Instant::now();
    for (note, step) in session_steps() {
        let (replayed, record) = replay_line(&session, &runtime, &step.to_string(), &mut summary)?;
        if common.json {
            let mut record = record;
            record["note"] = json!(note);
            outln!("{record}");
            continue;
        }
        outln!("{} {note}", style.bold("▸"));
        outln!("    {} → {}", replayed.name, replayed.summary);
        for error in record["errors"].as_array().into_iter().flatten() {
            let path = match error["hook_path"].as_str().unwrap_or_default() {
                "" => "runner".to_owned(),
                path => short_path(std::path::Path::new(path), &folder),
            };
            outln!(
                "    {} {}: {}",
                style.warn("reported:"),
                path,
                error["error"]
                    .as_str()
                    .unwrap_or_default()
                    .lines()
                    .next()
                    .unwrap_or_default()
            );
        }
    }
    if !common.json {
        outln!();
    }
    print_summary(common, &summary, started.elapsed(), style, project.path())?;
    Ok(ExitCode::SUCCESS)
}
