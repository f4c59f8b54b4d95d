//! Small things of the `agent-hooks` program's human output: a crate folder given as a hook,
//! multi-line factory errors, an event's summary.

use agent_hooks_tests::{
    cli::{run, stderr, stdout},
    copy_to, plugin, temp_dir,
};

#[test]
fn a_crate_folder_given_as_a_hook_gets_one_hint_to_build_it() {
    let dir = temp_dir();
    let project = dir.path().join("demo-guard");
    std::fs::create_dir_all(project.join("src")).unwrap();
    std::fs::write(
        project.join("Cargo.toml"),
        "[package]\nname = \"demo-guard\"\nversion = \"0.1.0\"\n\n[lib]\ncrate-type = [\"cdylib\"]\n",
    )
    .unwrap();
    std::fs::write(project.join("src/lib.rs"), "").unwrap();
    std::fs::write(project.join("README.md"), "").unwrap();
    std::fs::write(project.join("Cargo.lock"), "").unwrap();
    let output = run(
        dir.path(),
        dir.path(),
        &["list", "--no-discover", "--hook", "demo-guard"],
        None,
    );
    assert_eq!(
        stdout(&output),
        "Hooks (0)\n  none: put plugins or hooks files in .agent-hooks/hooks/, or pass --hook PATH\n\
         Warnings (1)\n  demo-guard (given with --hook) is a Rust crate, not a plugin: build it with `cargo build --release` and pass the library it builds, --hook demo-guard/target/release/libdemo_guard.so\n"
    );
}

#[test]
fn a_factory_error_of_several_lines_stays_indented_under_its_plugin() {
    let dir = temp_dir();
    std::fs::create_dir(dir.path().join("hooks")).unwrap();
    copy_to(
        &plugin("ui-audit"),
        &dir.path().join("hooks"),
        "libui_audit.so",
    );
    // The fixture's factory fails when this file is in its working folder.
    std::fs::write(dir.path().join("ui-audit-fails"), "").unwrap();
    let args = ["--no-discover", "--hook", "hooks/libui_audit.so"];
    let output = run(
        dir.path(),
        dir.path(),
        &[&["list"][..], &args[..]].concat(),
        None,
    );
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stdout(&output),
        "Hooks (0)\n  none: put plugins or hooks files in .agent-hooks/hooks/, or pass --hook PATH\n\
         Errors (1)\n  hooks/libui_audit.so: the plugin's factory failed: cannot start the audit:\n      \
         ui-audit-fails exists\n      remove it and try again\n"
    );
    let output = run(
        dir.path(),
        dir.path(),
        &[&["doctor"][..], &args[..]].concat(),
        None,
    );
    assert!(
        stdout(&output).ends_with(
            "Problems (1)\n  ✗ hooks/libui_audit.so: the plugin's factory failed: cannot start the audit:\n      \
             ui-audit-fails exists\n      remove it and try again\n"
        ),
        "{}",
        stdout(&output)
    );
    let output = run(
        dir.path(),
        dir.path(),
        &[&["emit"][..], &args[..], &["turn_end"]].concat(),
        None,
    );
    assert_eq!(
        stderr(&output),
        "agent-hooks: not loaded: hooks/libui_audit.so: the plugin's factory failed: cannot start the audit:\n      \
         ui-audit-fails exists\n      remove it and try again\n"
    );
    assert_eq!(
        stdout(&output),
        "turn_end notified\n  no hook is loaded (see `agent-hooks list`)\n",
        "the summary is the event's outcome, not the fields added for --json"
    );
}

#[test]
fn emit_names_input_fields_the_event_does_not_have() {
    let dir = temp_dir();
    let emit = |event: &str, input: &str, json: bool| {
        let mut args = vec!["emit", "--no-discover", event, "--input", input];
        if json {
            args.push("--json");
        }
        run(dir.path(), dir.path(), &args, None)
    };
    let output = emit(
        "tool_call",
        r#"{"toolName": "exec", "input": {}, "payload": 1}"#,
        false,
    );
    assert_eq!(
        stderr(&output),
        "agent-hooks: warning: --input: `toolName` is not a field of tool_call (did you mean `tool_name`?); native hooks do not see it\n\
         agent-hooks: warning: --input: `payload` is not a field of tool_call (its fields: tool_name, tool_call_id, input); native hooks do not see it\n"
    );
    let output = emit("before_agent_start", r#"{"promt": "hi"}"#, true);
    assert_eq!(
        agent_hooks_tests::cli::json_of(&output)["warnings"],
        serde_json::json!(["--input: `promt` is not a field of before_agent_start (did you mean `prompt`?); native hooks do not see it"])
    );

    // Other agents' names for the same event and its fields are accepted as they are.
    for (event, input) in [
        (
            "PreToolUse",
            r#"{"session_id": "s", "transcript_path": "/t", "cwd": "/", "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "toolu_1"}"#,
        ),
        (
            "PostToolUse",
            r#"{"tool_name": "Write", "tool_input": {}, "tool_response": {"success": true}}"#,
        ),
        (
            "PostToolUseFailure",
            r#"{"tool_name": "Bash", "tool_input": {}, "error": "x", "is_interrupt": false}"#,
        ),
        (
            "PreCompact",
            r#"{"trigger": "manual", "custom_instructions": ""}"#,
        ),
        ("UserPromptSubmit", r#"{"prompt": "hi"}"#),
        ("Stop", r#"{"stop_hook_active": false}"#),
        ("SessionEnd", r#"{"reason": "exit"}"#),
    ] {
        let output = emit(event, input, false);
        assert_eq!(stderr(&output), "", "{event}");
    }
    let output = emit("PreToolUse", r#"{"toolName": "Bash"}"#, false);
    assert_eq!(
        stderr(&output),
        "agent-hooks: warning: --input: `toolName` is not a field of tool_call (did you mean `tool_name`?); native hooks do not see it\n"
    );
}

#[test]
fn a_handler_with_its_own_runtime_awaits_in_a_plugin_process_and_in_process() {
    let dir = temp_dir();
    std::fs::create_dir(dir.path().join("hooks")).unwrap();
    copy_to(
        &plugin("async-handler"),
        &dir.path().join("hooks"),
        "libasync.so",
    );
    for isolation in [&[][..], &["--in-process"][..]] {
        for (command, said) in [
            (
                "deploy prod",
                "tool_call BLOCKED: the policy service said no\n",
            ),
            ("ls", "tool_call allowed\n"),
        ] {
            let input = format!(r#"{{"tool_name": "exec", "input": {{"command": "{command}"}}}}"#);
            let mut args = vec!["emit", "--no-discover", "--hook", "hooks/libasync.so"];
            args.extend_from_slice(isolation);
            args.extend(["tool_call", "--input", &input]);
            let output = run(dir.path(), dir.path(), &args, None);
            let text = stdout(&output);
            assert!(
                text.starts_with(said),
                "{isolation:?} {command}: {text}{}",
                stderr(&output)
            );
        }
    }
}
