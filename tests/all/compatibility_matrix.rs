//! The compatibility matrix: one plugin source (`tests/fixtures/abi-history/plugin/lib.rs`)
//! built against each released interface version (a frozen copy of `abi/` per version) and
//! against a simulated next minor, each loaded and driven by today's agent, in process and
//! in a plugin process: events, results, commands, renderers and every host service the
//! plugin knows. The plugin built against the next minor calls the service this agent lacks
//! and gets the typed error.
//!
//! A new row: when an interface version is released, add `<version> <commit>` to
//! `abi/RELEASES`, run `.ci/tags`, and copy that commit's `abi/src` to
//! `tests/fixtures/abi-history/<version>/abi/src` (`git archive <commit> abi/src | tar -x -C
//! tests/fixtures/abi-history/<version>`), with a manifest and a plugin package as the other
//! rows have. A test checks each copy against its commit.

use std::{path::Path, sync::Arc};

use agent_hooks::{
    abi::{prelude::*, services::major_minor, INTERFACE_VERSION},
    load_hooks_with, HookRunner, LoadOptions,
};
use agent_hooks_tests::{
    host_1_0_0, isolated, matrix_plugin, plugin,
    releases::{file_at, files_at, layout_break_plugin, release_host, releases, sample_1_0_0},
    s, temp_dir, RecordingAgent,
};

/// Every released interface version of this major, oldest first (`abi/RELEASES`).
fn released() -> Vec<String> {
    releases().into_iter().map(|r| r.version).collect()
}

/// The simulated next minor (the one after this agent's): its version.
const NEXT_MINOR: (&str, &str) = ("next-minor", "1.2.0");

struct Loaded {
    runner: HookRunner,
    agent: Arc<RecordingAgent>,
}

fn load(row: &str, dir: &Path, options: &LoadOptions) -> Loaded {
    let loaded = load_hooks_with([s(&matrix_plugin(row))], dir, options);
    assert!(loaded.errors.is_empty(), "row {row}: {:?}", loaded.errors);
    assert!(
        loaded.hooks[0].warnings().is_empty(),
        "row {row}: {:?}",
        loaded.hooks[0].warnings()
    );
    let runner = HookRunner::new(loaded.hooks, dir);
    let agent = Arc::new(RecordingAgent::with_ui(false));
    runner.attach(agent.clone());
    Loaded { runner, agent }
}

fn tool_call(command: &str) -> ToolCallEvent {
    ToolCallEvent::new("exec", "call-1", json!({ "command": command }))
}

/// Drives every event, command, renderer and service of the plugin built for `row` against
/// interface `built_against`; `metric` is what its call of the `metric` service (simulated
/// 1.2) answered, if it makes one.
fn drive(row: &str, built_against: &str, metric: Option<String>, options: &LoadOptions) {
    let dir = temp_dir();
    let Loaded { runner, agent } = load(row, dir.path(), options);

    // What the factory sent, delivered once the agent attached.
    assert_eq!(
        agent.messages.lock().unwrap()[0].content,
        Content::Text(format!("built against {built_against}"))
    );
    assert_eq!(
        agent.entries.lock().unwrap().as_slice(),
        [(
            "matrix".to_owned(),
            json!({ "built_against": built_against })
        )]
    );

    // A result that replaces the input, built from every service of the interface.
    let outcome = runner.emit_blocking(&tool_call("ls")).expect("answered");
    let mut expected = json!({
        "command": "ls",
        "built_against": built_against,
        "host_interface": INTERFACE_VERSION,
        "context_interface": INTERFACE_VERSION,
        "cwd": dir.path(),
        "session": "session-1",
        "has_ui": true,
        "idle": true,
        "queued": false,
        "exec": "from exec",
    });
    if let Some(metric) = metric {
        expected["metric"] = json!(metric);
    }
    assert!(!outcome.block, "row {row}");
    assert_eq!(outcome.input, Some(expected), "row {row}");

    // A block, after asking the user (who says no).
    let outcome = runner
        .emit_blocking(&tool_call("rm -rf build"))
        .expect("answered");
    assert!(outcome.block, "row {row}");
    assert_eq!(outcome.reason.as_deref(), Some("matrix: rm -rf denied"));

    let patch = runner
        .emit_blocking(&ToolResultEvent::default().tool_call_id("call-1"))
        .expect("answered");
    assert_eq!(
        patch.details,
        Some(json!({ "seen": "call-1", "by": built_against }))
    );

    runner
        .emit_blocking(&SessionStartEvent::default().source("startup"))
        .expect("delivered");
    runner
        .run_command("matrix", "go")
        .expect("the command exists")
        .expect("it succeeds");
    assert_eq!(
        agent.calls(),
        [
            "send_message matrix",
            "append_entry matrix",
            "wait_for_idle",
            "new_session"
        ]
    );
    let ui = agent
        .ui
        .as_ref()
        .expect("a UI")
        .calls
        .lock()
        .unwrap()
        .clone();
    assert_eq!(
        ui,
        [
            format!("set_status matrix: {built_against}"),
            "confirm Run it?: rm -rf build".to_owned(),
            format!("notify info: session startup ({built_against})"),
            "notify info: matrix go".to_owned(),
        ]
    );

    assert_eq!(
        runner.render_message(
            &CustomMessage::new("matrix", "hi"),
            &RenderOptions::default()
        ),
        Some(format!("[matrix {built_against}] Text(\"hi\")"))
    );
}

#[test]
fn every_released_interface_version_loads_and_runs_in_process() {
    for row in &released() {
        drive(row, row, None, &LoadOptions::in_process());
    }
}

#[test]
fn every_released_interface_version_loads_and_runs_in_a_plugin_process() {
    for row in &released() {
        drive(row, row, None, &isolated());
    }
}

fn next_minor_metric_answer() -> String {
    format!(
        "this host does not offer `metric`: interface {}, the plugin needs {}",
        major_minor(INTERFACE_VERSION),
        major_minor(NEXT_MINOR.1)
    )
}

#[test]
fn a_plugin_of_the_next_minor_loads_and_its_new_service_is_a_typed_error_in_process() {
    let (row, version) = NEXT_MINOR;
    drive(
        row,
        version,
        Some(next_minor_metric_answer()),
        &LoadOptions::in_process(),
    );
}

#[test]
fn a_plugin_of_the_next_minor_loads_and_its_new_service_is_a_typed_error_in_a_plugin_process() {
    let (row, version) = NEXT_MINOR;
    drive(row, version, Some(next_minor_metric_answer()), &isolated());
}

/// The checked boundary is frozen for the major version: today's `abi/src/ffi/` must be the
/// one released as 1.0.0, or plugins of some 1.y would stop loading. The one place it may
/// grow is the end of `PluginModule`, a prefix type: lines added after its `factory` field,
/// and nothing else changed; a module's opening `//!` comment may be mended.
#[test]
fn the_checked_boundary_is_the_one_released_as_1_0_0() {
    let root = agent_hooks_tests::workspace_root();
    let frozen = root.join("tests/fixtures/abi-history/1.0.0/abi/src/ffi");
    // The module's opening comment may be mended; its code may not.
    let code = |text: String| -> String {
        text.lines()
            .filter(|line| !line.starts_with("//!"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    for file in ["mod.rs", "host_api.rs", "context.rs", "handlers.rs"] {
        let today = code(std::fs::read_to_string(root.join("abi/src/ffi").join(file)).unwrap());
        let released = code(std::fs::read_to_string(frozen.join(file)).unwrap());
        assert!(
            today == released,
            "abi/src/ffi/{file} differs from interface 1.0.0's: the checked types are frozen within a major version (add a host service instead, see agent_hooks_abi::services)"
        );
    }
    let today = std::fs::read_to_string(root.join("abi/src/ffi/module.rs")).unwrap();
    let released = std::fs::read_to_string(frozen.join("module.rs")).unwrap();
    let (before, after) = split_after_factory(&released);
    assert!(
        today.len() >= released.len() && today.starts_with(before) && today.ends_with(after),
        "abi/src/ffi/module.rs differs from interface 1.0.0's other than by fields appended to PluginModule after `factory`: within a major version the root module only grows at its end (docs/compatibility.md, the rule for growth)"
    );
}

/// `text` cut just after `PluginModule`'s `factory` field, where a minor version may append.
fn split_after_factory(text: &str) -> (&str, &str) {
    let field = text
        .find("    pub factory:")
        .expect("interface 1.0.0's PluginModule has a factory field");
    let end = field
        + text[field..]
            .find('\n')
            .expect("a line end after the field")
        + 1;
    text.split_at(end)
}

#[test]
fn the_root_module_may_grow_at_its_end_and_nowhere_else() {
    let released = "struct PluginModule {\n    pub a: u8,\n    pub factory: F,\n}\n";
    let (before, after) = split_after_factory(released);
    let grown = "struct PluginModule {\n    pub a: u8,\n    pub factory: F,\n    pub more: Option<u8>,\n}\n";
    let changed = "struct PluginModule {\n    pub a: u16,\n    pub factory: F,\n    pub more: Option<u8>,\n}\n";
    let inserted =
        "struct PluginModule {\n    pub x: u8,\n    pub a: u8,\n    pub factory: F,\n}\n";
    let accepted = |t: &str| t.starts_with(before) && t.ends_with(after);
    assert!(accepted(released));
    assert!(accepted(grown));
    assert!(!accepted(changed));
    assert!(!accepted(inserted));
}

/// Each row's frozen copy is exactly `abi/src` of the commit its release was declared in
/// (`abi/RELEASES`), and every release has a row.
#[test]
fn every_frozen_copy_is_its_release_commit() {
    let root = agent_hooks_tests::workspace_root();
    for release in releases() {
        let copy = root
            .join("tests/fixtures/abi-history")
            .join(&release.version);
        let files = files_at(&release.commit, "abi/src").unwrap();
        assert!(
            !files.is_empty(),
            "{}: no abi/src at {}",
            release.version,
            release.commit
        );
        for file in &files {
            let at_commit = file_at(&release.commit, file).unwrap();
            let frozen = std::fs::read(copy.join(file)).unwrap_or_else(|e| {
                panic!(
                    "row {}: {file} of {} is missing from the copy: {e}",
                    release.version, release.commit
                )
            });
            assert!(
                frozen == at_commit,
                "row {}: {file} differs from commit {} (regenerate the copy with `git archive {} abi/src`)",
                release.version,
                release.commit,
                release.commit
            );
        }
        let mut in_copy = Vec::new();
        let mut folders = vec![copy.join("abi/src")];
        while let Some(folder) = folders.pop() {
            for entry in std::fs::read_dir(&folder).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    folders.push(path);
                } else {
                    let relative = path.strip_prefix(&copy).unwrap();
                    in_copy.push(relative.to_string_lossy().into_owned());
                }
            }
        }
        in_copy.sort();
        let mut expected = files.clone();
        expected.sort();
        assert_eq!(
            in_copy, expected,
            "row {}: files not in its commit",
            release.version
        );
    }
}

/// A plugin's source that compiled against 1.0.0 compiles against today's interface: the
/// sample plugins of 1.0.0, unchanged (struct expressions with `..Default::default()` and
/// exhaustive ones, as 1.0.0's docs showed), build and load.
#[test]
fn the_sample_plugins_of_1_0_0_compile_unchanged_against_this_interface() {
    let release = &releases()[0];
    assert_eq!(release.version, "1.0.0");
    let root = agent_hooks_tests::workspace_root();
    let copy = root.join("tests/fixtures/abi-history/samples-1.0.0");
    let files = files_at(&release.commit, "sample-plugins").unwrap();
    let sources: Vec<&String> = files.iter().filter(|f| f.ends_with("src/lib.rs")).collect();
    assert_eq!(sources.len(), 6, "{files:?}");
    for file in sources {
        let frozen = std::fs::read(copy.join(file)).unwrap();
        assert!(
            frozen == file_at(&release.commit, file).unwrap(),
            "samples-1.0.0/{file} is not the 1.0.0 commit's"
        );
        let name = file.split('/').nth(1).unwrap();
        let dir = temp_dir();
        let loaded = load_hooks_with(
            [s(&sample_1_0_0(name))],
            dir.path(),
            &LoadOptions::in_process(),
        );
        assert!(loaded.errors.is_empty(), "{name}: {:?}", loaded.errors);
    }
}

/// What a host of interface 1.0.0 makes of `results` (`(event, result)` as they cross).
fn read_by_1_0_0(results: &[(&str, Value)]) -> Vec<Value> {
    use std::io::Write;
    let mut reader = std::process::Command::new(host_1_0_0())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("the 1.0.0 reader runs");
    let mut input = reader.stdin.take().unwrap();
    for (event, result) in results {
        writeln!(input, "{}", json!({ "event": event, "result": result })).unwrap();
    }
    drop(input);
    let output = reader.wait_with_output().unwrap();
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// A plugin of 1.1 in a host of 1.0: its ask is read as a block with the question as the
/// reason (fail safe: never silently allowed), and its session_start context is reported
/// as an invalid result and ignored. The results are those of a real 1.1 plugin (the
/// `boundary` fixture), as they cross the boundary.
#[test]
fn a_1_1_plugin_that_asks_is_blocked_by_a_1_0_host() {
    let dir = temp_dir();
    let mut options = LoadOptions::in_process();
    options.configs.insert(
        "libboundary.so".into(),
        agent_hooks::PluginConfig {
            value: json!({"ask": ["deploy"], "greeting": "hello"}),
            source: "test".into(),
        },
    );
    let loaded = load_hooks_with([s(&plugin("boundary"))], dir.path(), &options);
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    let runner = HookRunner::new(loaded.hooks, dir.path());
    let mut results = Vec::new();
    runner
        .for_each_handler(&tool_call("deploy"), |_, result| {
            let result = result.expect("answered").expect("a result");
            results.push(("tool_call", serde_json::to_value(result).unwrap()));
            std::ops::ControlFlow::Continue(())
        })
        .unwrap();
    runner
        .for_each_handler(
            &SessionStartEvent::default().source("startup"),
            |_, result| {
                let result = result.expect("answered").expect("a result");
                results.push(("session_start", serde_json::to_value(result).unwrap()));
                std::ops::ControlFlow::Continue(())
            },
        )
        .unwrap();
    assert_eq!(
        results,
        [
            (
                "tool_call",
                json!({"block": true, "ask": true, "reason": "boundary asks: run `deploy`?"})
            ),
            ("session_start", json!({"context": "hello"})),
        ]
    );
    assert_eq!(
        read_by_1_0_0(&results),
        [
            json!({"blocked": "boundary asks: run `deploy`?"}),
            json!({"reported": "returned an invalid session_start result: invalid type: map, expected unit"}),
        ]
    );
    // And a 1.0 plugin's block stays a block, not an ask, in this host.
    let today: ToolCallResult =
        serde_json::from_value(json!({"block": true, "reason": "no"})).unwrap();
    assert_eq!(today, ToolCallResult::block("no"));
}

/// What a host built from the 1.0.0 release commit prints for `event` with the 1.1 plugin
/// `readme-1-1` (configuration with `?`, session_start context, logs): its JSON outcome
/// and its stderr.
fn in_1_0_host(mode: &[&str], event: &str, input: &Value) -> (Value, String) {
    let host = release_host("1.0.0");
    let dir = temp_dir();
    let output = std::process::Command::new(host)
        .args(["--no-discover", "--json", "--hook"])
        .arg(plugin("readme-1-1"))
        .args(mode)
        .args(["emit", event, "--input", &input.to_string()])
        .current_dir(dir.path())
        .output()
        .expect("the 1.0.0 host runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{stdout}\n{stderr}");
    (serde_json::from_str(&stdout).expect(&stdout), stderr)
}

/// A 1.1 plugin written as the docs show, in a real 1.0 host (built from the 1.0.0 commit),
/// in a plugin process and in process: its `config()?` loads with the defaults and a
/// warning; its session_start context is reported once as not supported (not as an invalid
/// result); its log records reach the agent's stderr.
#[test]
fn a_1_1_plugin_degrades_as_documented_in_a_host_built_from_the_1_0_0_release() {
    for mode in [&[][..], &["--in-process"][..]] {
        let (outcome, stderr) = in_1_0_host(mode, "session_start", &json!({"source": "startup"}));
        assert_eq!(outcome["context"], json!([]), "{mode:?}: {outcome}");
        let errors: Vec<&str> = outcome["errors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["error"].as_str().unwrap())
            .collect();
        assert_eq!(
            errors,
            ["session_start context is not supported by this agent (interface 1.0; it needs 1.1): the context was not added"],
            "{mode:?}"
        );
        assert!(
            stderr.starts_with("[warn] this agent (interface 1.0) gives plugins no configuration: the defaults are used\n[warn] readme-1-1 loaded\n"),
            "{mode:?}: {stderr}"
        );

        let call = json!({"tool_name": "exec", "tool_call_id": "1", "input": {}});
        let (outcome, stderr) = in_1_0_host(mode, "tool_call", &call);
        assert_eq!(outcome["errors"], json!([]), "{mode:?}: {outcome}");
        assert_eq!(outcome["block"], json!(false));
        assert!(stderr.contains("[warn] saw exec\n"), "{mode:?}: {stderr}");
    }
}

/// A plugin built against an interface crate that claims this major but changed a checked
/// type is refused, and the refusal names the user's type and field where it changed
/// (`CallError` at a simulated 1.1.1), not abi_stable's wrappers on the way to it.
#[test]
fn layout_breaks_are_refused_naming_the_type_and_field() {
    for (feature, expected) in [
        (
            "field-added",
            "differs from it: CallError.code: too many fields: the agent has 2, the plugin 3",
        ),
        (
            "field-type",
            "differs from it: CallError.panicked: mismatched type: the agent has bool, the plugin u8",
        ),
    ] {
        let dir = temp_dir();
        let loaded = load_hooks_with(
            [s(&layout_break_plugin(feature))],
            dir.path(),
            &LoadOptions::in_process(),
        );
        assert_eq!(loaded.errors.len(), 1, "{feature}");
        let message = loaded.errors[0].error.to_string();
        let first_line = message.lines().next().unwrap();
        assert!(first_line.contains(expected), "{feature}: {message}");
    }
}

/// A method appended to a frozen trait (`HostApi`) in the plugin's crate is not a refusal:
/// abi_stable lets a host that knows fewer trailing methods accept the plugin (the docs'
/// rule for growth says so, and that such a method fails when the plugin calls it). Here so
/// that the docs change with the behaviour.
#[test]
fn a_method_appended_to_a_frozen_trait_is_accepted_as_the_docs_say() {
    let dir = temp_dir();
    let loaded = load_hooks_with(
        [s(&layout_break_plugin("method-appended"))],
        dir.path(),
        &LoadOptions::in_process(),
    );
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
}
