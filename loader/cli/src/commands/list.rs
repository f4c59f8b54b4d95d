//! `agent-hooks list`: what loaded, from where, listening to what; and everything that did
//! not, with its reason.

use std::process::ExitCode;

use agent_hooks::{
    command_hook::{CommandHook, HookKind, Matcher, Persistence},
    discover::HookEntry,
    HookOrigin,
};
use serde_json::{json, Value};

use crate::{
    options::{Common, Outcome},
    output::{indent_continuation, relative_text, short_path, table, Style},
    session::Session,
};

/// The `list` report as JSON.
pub fn report(session: &Session) -> Value {
    let findings = &session.findings;
    // By path, so that the report is linear in the number of hooks.
    let by_path: std::collections::HashMap<&std::path::Path, &HookEntry> = findings
        .entries
        .iter()
        .rev()
        .map(|e| (e.path.as_path(), e))
        .collect();
    let entry_of = |path: &std::path::Path| by_path.get(path).copied();
    // A startup hook that registered runner events or commands is a hook of the runner
    // too, named by its command, from its hooks file.
    let startup: std::collections::HashMap<(&str, &std::path::Path), &CommandHook> = session
        .runner
        .command_hooks()
        .hooks()
        .filter_map(|c| match &c.kind {
            HookKind::LongRunning {
                command,
                persistence: Persistence::Startup,
            } => Some(((command.as_str(), c.source.as_path()), c)),
            _ => None,
        })
        .collect();
    let mut hooks: Vec<Value> = session
        .runner
        .hooks()
        .iter()
        .map(|hook| {
            let entry = entry_of(hook.resolved_path());
            let (name, version) = match hook.origin() {
                HookOrigin::Plugin { name, version } => (name.clone(), version.clone()),
                HookOrigin::InProcess => (hook.path().to_owned(), String::new()),
            };
            let long_running = startup.get(&(hook.path(), hook.resolved_path()));
            if let Some(command) = long_running {
                return json!({
                    "kind": "long-running",
                    "path": command.source,
                    "command": command.kind.label(),
                    "dialect": command.dialect.name(),
                    "name": name,
                    "version": version,
                    "source": entry.map(|e| e.source.clone()),
                    "level": entry.map(|e| e.level.to_string()),
                    "events": hook.events().map(|e| e.name()).collect::<Vec<_>>(),
                    "commands": hook.commands().iter().map(|c| format!("/{}", c.name)).collect::<Vec<_>>(),
                    "warnings": hook.warnings(),
                    "process": process_json(hook.process_state()),
                    "observe": hook.is_observing(),
                });
            }
            json!({
                "kind": "plugin",
                "path": hook.path(),
                "resolved_path": hook.resolved_path(),
                "name": name,
                "version": version,
                "source": entry.map(|e| e.source.clone()),
                "level": entry.map(|e| e.level.to_string()),
                "events": hook.events().map(|e| e.name()).collect::<Vec<_>>(),
                "commands": hook.commands().iter().map(|c| format!("/{}", c.name)).collect::<Vec<_>>(),
                "warnings": hook.warnings(),
                "isolation": hook.isolation(),
                "process": process_json(hook.process_state()),
                "observe": hook.is_observing(),
            })
        })
        .collect();
    hooks.extend(session.runner.command_hooks().hooks().map(|hook| {
        let entry = entry_of(&hook.source);
        json!({
            "kind": "command",
            "path": hook.source,
            "source": entry.map(|e| e.source.clone()),
            "level": entry.map(|e| e.level.to_string()),
            "dialect": hook.dialect.name(),
            "type": hook.kind.type_name(),
            "events": [hook.event_name.as_str()],
            "matcher": match hook.matcher { Matcher::All => None, _ => hook.matcher_text.clone() },
            "if": hook.condition.as_ref().map(|c| c.text.clone()),
            "async": hook.run_async,
            "once": hook.once,
            "persistent": match hook.kind.persistence() {
                None => json!(false),
                Some(Persistence::Session) => json!(true),
                Some(Persistence::Startup) => json!("startup"),
                Some(Persistence::User) => json!("user"),
            },
            "command": hook.kind.label(),
            "timeout_s": hook.timeout.as_secs_f64(),
            "plugin_root": hook.plugin_root,
            "observe": hook.observe,
        })
    }));
    let entry = |e: &HookEntry| json!({"key": e.key(), "path": e.path, "source": e.source, "level": e.level.to_string()});
    json!({
        "hooks": hooks,
        "errors": findings.loaded.errors.iter().map(|f| json!({"path": f.path, "error": f.error.to_string()})).collect::<Vec<_>>(),
        "shadowed": findings.shadowed.iter().map(entry).collect::<Vec<_>>(),
        "disabled": findings.disabled.iter().map(entry).collect::<Vec<_>>(),
        "untrusted": findings.untrusted.iter().map(|u| {
            let mut value = entry(&u.entry);
            value["reason"] = json!(u.reason.to_string());
            value
        }).collect::<Vec<_>>(),
        "duplicates": findings.loaded.duplicates.iter().map(|d| json!({"path": d.path, "same_as": d.same_as})).collect::<Vec<_>>(),
        "forbidden": findings.forbidden.iter().map(|(e, reason)| {
            let mut value = entry(e);
            value["reason"] = json!(reason);
            value
        }).collect::<Vec<_>>(),
        "warnings": findings.warnings,
        "uncovered": findings.uncovered.iter().map(|u| json!({
            "file": u.file, "command": u.command, "reason": u.reason,
        })).collect::<Vec<_>>(),
        "config_issues": session.runner.command_hooks().issues().iter().map(|i| json!({
            "file": i.file, "location": i.location, "message": i.message,
            "severity": format!("{:?}", i.severity).to_lowercase(),
        })).collect::<Vec<_>>(),
    })
}

/// Prints the `list` report for a person.
pub fn print(session: &Session, report: &Value, style: Style) {
    let base = &session.cwd;
    let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
    let path = |v: &Value| short_path(std::path::Path::new(v.as_str().unwrap_or_default()), base);
    let hooks = report["hooks"].as_array().cloned().unwrap_or_default();
    outln!("{}", style.bold(&format!("Hooks ({})", hooks.len())));
    if hooks.is_empty() {
        outln!(
            "  {}",
            style.dim(
                "none: put plugins or hooks files in .agent-hooks/hooks/, or pass --hook PATH"
            )
        );
    }
    let rows: Vec<Vec<String>> = hooks
        .iter()
        .map(|h| {
            let listens: Vec<String> = h["events"]
                .as_array()
                .into_iter()
                .flatten()
                .map(text)
                .chain(h["commands"].as_array().into_iter().flatten().map(text))
                .collect();
            let what = if h["kind"] == "command" {
                let matcher = h["matcher"]
                    .as_str()
                    .map(|m| format!(" [{m}]"))
                    .unwrap_or_default();
                let condition = h["if"]
                    .as_str()
                    .map(|c| format!(" if {c}"))
                    .unwrap_or_default();
                let background = match (&h["async"], &h["persistent"]) {
                    (Value::Bool(true), _) => " (async)",
                    (_, Value::Bool(true)) => " (long-running)",
                    (_, Value::String(when)) if when == "user" => {
                        " (long-running, one for all the user's sessions)"
                    }
                    (_, Value::String(_)) => " (long-running, started with the runner)",
                    _ => "",
                };
                format!(
                    "{}{matcher}{condition}{background}: {}",
                    listens.join(", "),
                    text(&h["command"])
                )
            } else {
                let runs = match h["process"]["state"].as_str() {
                    Some("running") => format!("isolated, pid {}", h["process"]["pid"]),
                    Some("disabled") => format!("DISABLED: {}", text(&h["process"]["cause"])),
                    Some(_) => "isolated, stopped".into(),
                    None => "in process".into(),
                };
                match h["command"].as_str() {
                    // A long-running hook: its process runs its command.
                    Some(command) => format!(
                        "{} ({}): {command}",
                        listens.join(", "),
                        runs.trim_start_matches("isolated, ")
                    ),
                    None => format!("{} ({runs})", listens.join(", ")),
                }
            };
            let what = if h["observe"] == true {
                format!(
                    "{what} {}",
                    style.warn("(observing: recorded, not applied)")
                )
            } else {
                what
            };
            // The hooks of an agent's extension say whose they are: their source names the
            // extension (`<agent> extension <name>`).
            let extension = h["source"]
                .as_str()
                .filter(|source| source.contains(" extension "));
            let kind = match h["dialect"].as_str() {
                Some(_) if extension.is_some() => {
                    format!("{} ({})", text(&h["kind"]), extension.unwrap_or_default())
                }
                Some(dialect) => format!("{} ({dialect})", text(&h["kind"])),
                None => text(&h["kind"]),
            };
            vec![
                style.ok(&kind),
                h["level"].as_str().unwrap_or("given").to_owned(),
                h["source"].as_str().unwrap_or("--hook").to_owned(),
                path(&h["path"]),
                what,
            ]
        })
        .collect();
    table("  ", &rows);
    let section = |title: &str, items: &[Value], line: &dyn Fn(&Value) -> String| {
        if !items.is_empty() {
            outln!("{}", style.bold(&format!("{title} ({})", items.len())));
            for item in items {
                outln!("  {}", line(item));
            }
        }
    };
    let list = |key: &str| report[key].as_array().cloned().unwrap_or_default();
    section("Shadowed", &list("shadowed"), &|e| {
        format!(
            "{}  {} {}",
            text(&e["key"]),
            path(&e["path"]),
            style.dim(&format!(
                "({}; an earlier hook has this key)",
                text(&e["source"])
            ))
        )
    });
    section("Disabled", &list("disabled"), &|e| {
        format!("{}  {}", text(&e["key"]), path(&e["path"]))
    });
    section(
        "Forbidden by the managed policy",
        &list("forbidden"),
        &|e| format!("{}  {}", path(&e["path"]), style.warn(&text(&e["reason"]))),
    );
    section("Untrusted project hooks", &list("untrusted"), &|e| {
        format!("{}  {}", path(&e["path"]), style.warn(&text(&e["reason"])))
    });
    section(
        "Runs code that trust does not cover",
        &list("uncovered"),
        &|u| {
            format!(
                "{}: `{}` {}",
                path(&u["file"]),
                text(&u["command"]),
                style.warn(&format!("({})", text(&u["reason"])))
            )
        },
    );
    section("Duplicates", &list("duplicates"), &|d| {
        format!(
            "{} {}",
            path(&d["path"]),
            style.dim(&format!("(the same library as {})", text(&d["same_as"])))
        )
    });
    let warnings: Vec<Value> = warning_lines(report, base)
        .into_iter()
        .map(Value::String)
        .collect();
    section("Warnings", &warnings, &|w| style.warn(&text(w)));
    section("Configuration problems", &list("config_issues"), &|i| {
        let place = i["location"]
            .as_str()
            .map(|l| format!(" ({l})"))
            .unwrap_or_default();
        let message = format!("{}{place}: {}", path(&i["file"]), text(&i["message"]));
        if i["severity"] == "error" {
            style.bad(&message)
        } else {
            style.warn(&message)
        }
    });
    section("Errors", &list("errors"), &|e| {
        let error = indent_continuation(&text(&e["error"]), "    ");
        format!("{}: {}", path(&e["path"]), style.bad(&error))
    });
}

/// The warnings of a `list` report, for people: each plugin's own (under its path, and a
/// long-running hook's under its hooks file and command), then
/// discovery's; paths under `base` relative to it, later lines of a warning indented.
pub fn warning_lines(report: &Value, base: &std::path::Path) -> Vec<String> {
    let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
    let plugins = report["hooks"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|h| {
            let mut at = short_path(std::path::Path::new(&text(&h["path"])), base);
            if let Some(command) = h["command"].as_str() {
                // A long-running hook: its hooks file and its command.
                at.push_str(&format!(" (`{command}`)"));
            }
            h["warnings"]
                .as_array()
                .into_iter()
                .flatten()
                .map(move |w| format!("{at}: {}", text(w)))
        });
    let discovery = report["warnings"]
        .as_array()
        .into_iter()
        .flatten()
        .map(text);
    plugins
        .chain(discovery)
        .map(|w| indent_continuation(&relative_text(&w, base), "    "))
        .collect()
}

/// `agent-hooks list`. Exit code 1 when a plugin, or a hooks file or one of its hooks, failed
/// to load.
pub fn run(common: &Common) -> Outcome {
    let session = Session::open(common)?;
    let report = report(&session);
    if common.json {
        let mut report = report;
        report["agents"] = crate::entries::wired::wired_json(common);
        outln!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print(&session, &report, Style::for_stdout());
        // Only once some agent is wired: the list is about hooks first.
        if !crate::entries::wired::wired(common).is_empty() {
            outln!("Agents");
            for line in crate::entries::wired::wired_lines(common) {
                outln!("{line}");
            }
        }
    }
    let config_errors = session
        .runner
        .command_hooks()
        .issues()
        .iter()
        .any(|i| i.severity == agent_hooks::command_hook::Severity::Error);
    Ok(
        if session.findings.loaded.errors.is_empty() && !config_errors {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        },
    )
}

/// A plugin process's state as JSON: `{"state": "running", "pid"}`, `{"state": "stopped" |
/// "disabled", "cause"}`, or `null` for a plugin loaded in process.
fn process_json(state: Option<agent_hooks::isolation::ProcessState>) -> serde_json::Value {
    use agent_hooks::isolation::ProcessState;
    match state {
        None => serde_json::Value::Null,
        Some(ProcessState::Running(pid)) => json!({"state": "running", "pid": pid}),
        Some(ProcessState::Stopped(cause)) => json!({"state": "stopped", "cause": cause}),
        Some(ProcessState::Disabled(cause)) => json!({"state": "disabled", "cause": cause}),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::warning_lines;

    #[test]
    fn plugins_warnings_are_listed_under_their_path_before_discoverys() {
        let report = json!({
            "hooks": [
                {"path": "/p/hooks/libnew.so", "warnings": ["registers a handler for unknown event `future_event`, which this host does not emit (the plugin may be newer than the host); the handler is ignored"]},
                {"path": "/p/hooks/guard.json"},
            ],
            "warnings": ["/p/hooks/notes.txt is neither a plugin library (.so) nor a hooks file (.json)\nsecond line"],
        });
        assert_eq!(
            warning_lines(&report, std::path::Path::new("/p")),
            [
                "hooks/libnew.so: registers a handler for unknown event `future_event`, which this host does not emit (the plugin may be newer than the host); the handler is ignored",
                "hooks/notes.txt is neither a plugin library (.so) nor a hooks file (.json)\n    second line",
            ]
        );
    }
}
