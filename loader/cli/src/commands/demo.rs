//! `agent-hooks demo`, the built-in default: the sample plugins (built next to this program
//! by `cargo build --workspace`) and a built-in set of command hooks, on a built-in session
//! that shows each thing the hook system does, with a line of explanation each.
//!
//! A program installed alone (`cargo install`) has no sample plugins next to it: the demo then
//! registers the same hooks in the program's own process (as a host does with
//! `HookRunner::add_in_process`) and leaves out what only a plugin process shows (a segfault
//! contained).

use std::{path::PathBuf, process::ExitCode};

use agent_hooks::{
    abi::prelude::{
        AgentMessage, ContentBlock, ContextEvent, ContextResult, HandlerResult, HookApi,
        ToolCallEvent, ToolCallResult, ToolResultEvent, ToolResultPatch,
    },
    HookRunner, LoadError,
};
use serde_json::json;

use crate::{
    commands::replay::{print_summary, replay_line, Summary},
    options::{Common, Outcome},
    output::{short_path, Style},
    session::Session,
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

/// The steps only a plugin process can show (a segfault contained, the process restarted).
const NATIVE_ONLY: &[&str] = &["segfaults", "starts that plugin's process again"];

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

/// What the built-in panicking hook panics with.
const ON_PURPOSE: &str = "handler exploded on purpose";

/// Keeps the panic hook quiet about the built-in hook's panic, which the runner catches and
/// the demo reports; any other panic is printed as before.
fn quiet_about_the_demo_panic() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if info.payload().downcast_ref::<&str>() != Some(&ON_PURPOSE) {
            previous(info);
        }
    }));
}

/// The demo's hooks, as sample plugins run in-process, for a program installed without them:
/// what each does is what its plugin does. Returns the hooks that did not load, by name.
fn add_built_in_hooks(runner: &mut HookRunner) -> Vec<(String, LoadError)> {
    let mut failed = Vec::new();
    let mut add = |name: &str, factory: fn(&mut HookApi) -> HandlerResult<()>| {
        if let Err(error) = runner.add_in_process(name, factory) {
            failed.push((name.to_owned(), error));
        }
    };
    add("block-dangerous", |api| {
        api.on(|event: &ToolCallEvent, ctx| {
            let command = event.input["command"].as_str().unwrap_or_default();
            if event.tool_name != "exec" || !command.contains("rm -rf") || ctx.has_ui() {
                return Ok(None);
            }
            Ok(Some(ToolCallResult::block(
                "Dangerous command blocked: `rm -rf` needs a user to confirm it, and there is no UI",
            )))
        });
        Ok(())
    });
    add("redact-secrets", |api| {
        api.on(|event: &ToolResultEvent, _ctx| {
            let redact = |text: &str| -> String {
                text.split(' ')
                    .map(|word| match word.strip_prefix("API_KEY=") {
                        Some(_) => "API_KEY=[REDACTED]",
                        None => word,
                    })
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            let secret = |b: &ContentBlock| b.as_text().is_some_and(|t| t.contains("API_KEY="));
            if event.tool_name != "read" || !event.content.iter().any(secret) {
                return Ok(None);
            }
            let content = event
                .content
                .iter()
                .map(|block| match block.as_text() {
                    Some(text) => ContentBlock::text(redact(text)),
                    None => block.clone(),
                })
                .collect();
            Ok(Some(ToolResultPatch::default().content(content)))
        });
        Ok(())
    });
    add("filter-context", |api| {
        api.on(|event: &ContextEvent, _ctx| {
            let debug = |m: &AgentMessage| m.custom_type.as_deref() == Some("debug-only");
            if !event.messages.iter().any(debug) {
                return Ok(None);
            }
            let kept = event.messages.iter().filter(|m| !debug(m)).cloned();
            Ok(Some(ContextResult::default().messages(kept.collect())))
        });
        Ok(())
    });
    add("panicking-handler", |api| {
        api.on(|event: &ToolCallEvent, _ctx| {
            if event.tool_name == "explode" {
                std::panic::panic_any(ON_PURPOSE);
            }
            Ok(None)
        });
        Ok(())
    });
    add("factory-error", |_api| {
        Err("missing configuration file ~/.example.toml".into())
    });
    failed
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
    // Without the sample plugins (an installed program), their hooks run in this process.
    let native = plugins.iter().all(|p| p.exists());
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
    demo.hooks = if native {
        plugins.iter().map(|p| p.display().to_string()).collect()
    } else {
        Vec::new()
    };
    demo.hooks.push(hooks_file.display().to_string());
    let mut built_in_failures = Vec::new();
    let session = Session::build(
        &demo,
        |_| {},
        |runner| {
            runner.set_max_stop_blocks(2);
            if !native {
                quiet_about_the_demo_panic();
                built_in_failures = add_built_in_hooks(runner);
            }
        },
    )?;
    let label = |hook: &agent_hooks::Hook| match hook.resolved_path() {
        path if path.as_os_str().is_empty() => format!("{} (in-process)", hook.path()),
        path => short_path(path, &folder),
    };

    if !common.json {
        if native {
            outln!(
                "{}",
                style.bold("agent-hooks demo: native plugins and command hooks, one runner")
            );
            outln!(
                "Loaded {} plugins and {} command hooks:",
                session.runner.hooks().len(),
                session.runner.command_hooks().hooks().count()
            );
        } else {
            outln!(
                "{}",
                style.bold("agent-hooks demo: in-process hooks and command hooks, one runner")
            );
            outln!(
                "The sample plugins are not next to this program, so their hooks run in its own process; to see them as native plugins, each in a process of its own, build the workspace (`cargo build --workspace`) and run target/debug/agent-hooks demo."
            );
            outln!(
                "Loaded {} in-process hooks and {} command hooks:",
                session.runner.hooks().len(),
                session.runner.command_hooks().hooks().count()
            );
        }
        for hook in session.runner.hooks() {
            let events: Vec<&str> = hook.events().map(|e| e.name()).collect();
            outln!(
                "  {} {}  {}",
                style.ok("ok"),
                label(hook),
                style.dim(&events.join(", "))
            );
        }
        for hook in session.runner.command_hooks().hooks() {
            outln!(
                "  {} {} hook  {}",
                style.ok("ok"),
                hook.event,
                style.dim(&hook.kind.label())
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
        for (name, error) in &built_in_failures {
            outln!("  {} {name} (in-process): {error}", style.bad("FAIL"));
        }
        outln!();
    }

    let runtime = crate::runtime::build()?;
    let mut summary = Summary::default();
    let started = std::time::Instant::now();
    let steps = session_steps()
        .into_iter()
        .filter(|(note, _)| native || !NATIVE_ONLY.iter().any(|n| note.contains(n)));
    for (note, step) in steps {
        let (replayed, record) =
            replay_line(&session, &runtime, &step.to_string(), None, &mut summary)?;
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
