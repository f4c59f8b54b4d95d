//! The test kit, used as a plugin author would: factories written here, loaded in process.

use std::{sync::Mutex, time::Duration};

use agent_hooks_abi::prelude::*;
use agent_hooks_abi::testing::{Answer, Call, HandlerError, TestHost};
use agent_hooks_abi::{ModelInfo, SessionInfo};

/// Where the next line's panic is reported, as the kit (and the agent) shows it.
macro_rules! next_line {
    () => {
        format!("{}:{}", file!(), line!() + 1)
    };
}

static PANIC_AT: Mutex<String> = Mutex::new(String::new());

fn guard(api: &mut HookApi) -> HandlerResult<()> {
    api.on(|event: &ToolCallEvent, ctx| {
        let command = event.input["command"].as_str().unwrap_or_default();
        match command {
            "fail" => return Err("the handler failed".into()),
            "panic" => {
                *PANIC_AT.lock().unwrap() = next_line!();
                panic!("boom");
            }
            _ => {}
        }
        if !command.contains("rm -rf") {
            return Ok(None);
        }
        let allowed = ctx.ui().confirm("Dangerous command", command);
        Ok((!allowed).then(|| ToolCallResult::block("Blocked by user")))
    });
    Ok(())
}

fn call(command: &str) -> ToolCallEvent {
    ToolCallEvent::new("exec", "call-1", json!({ "command": command }))
}

#[test]
fn a_handler_gets_the_typed_event_and_its_result_comes_back_typed() {
    let plugin = TestHost::new().load(guard).unwrap();
    assert_eq!(plugin.events(), vec![EventKind::ToolCall]);
    assert_eq!(plugin.emit(&call("ls")), Ok(None));
    plugin.answer(Answer::No);
    assert_eq!(
        plugin.emit(&call("rm -rf /")),
        Ok(Some(ToolCallResult::block("Blocked by user")))
    );
    plugin.answer(Answer::Yes);
    assert_eq!(plugin.emit(&call("rm -rf /")), Ok(None));
    assert_eq!(
        plugin.calls(),
        vec![
            Call::Confirm {
                title: "Dangerous command".into(),
                message: "rm -rf /".into(),
                answer: false
            },
            Call::Confirm {
                title: "Dangerous command".into(),
                message: "rm -rf /".into(),
                answer: true
            },
        ]
    );
}

#[test]
fn an_event_without_a_handler_has_no_result() {
    let plugin = TestHost::new().load(guard).unwrap();
    let event = ToolResultEvent::new("exec", "call-1", json!({}));
    assert_eq!(plugin.emit(&event), Ok(None));
    assert!(plugin.emit_each(&event).is_empty());
}

#[test]
fn errors_and_panics_of_handlers_come_back_as_such() {
    let plugin = TestHost::new().load(guard).unwrap();
    assert_eq!(
        plugin.emit(&call("fail")),
        Err(HandlerError::Failed("the handler failed".into()))
    );
    let panicked = plugin.emit(&call("panic"));
    let at = PANIC_AT.lock().unwrap().clone();
    assert_eq!(
        panicked,
        Err(HandlerError::Panicked(format!("boom (at {at})")))
    );
    assert_eq!(
        panicked.unwrap_err().to_string(),
        format!("panicked: boom (at {at})")
    );
    // The plugin goes on after a panic, as in the agent.
    assert_eq!(plugin.emit(&call("ls")), Ok(None));
}

#[test]
fn a_factory_error_or_panic_fails_the_load() {
    let failed = TestHost::new().load(|_| Err("no config file".into()));
    assert_eq!(
        failed.err(),
        Some(HandlerError::Failed("no config file".into()))
    );
    let mut at = String::new();
    let panicked = TestHost::new().load(|_| {
        at = next_line!();
        panic!("factory boom")
    });
    assert_eq!(
        panicked.err(),
        Some(HandlerError::Panicked(format!("factory boom (at {at})")))
    );
}

fn two_handlers(api: &mut HookApi) -> HandlerResult<()> {
    api.on(|_: &ToolCallEvent, _| Ok(Some(ToolCallResult::block("first"))));
    api.on(|_: &ToolCallEvent, _| Err("second failed".into()));
    api.on(|_: &ToolCallEvent, _| Ok(None));
    Ok(())
}

#[test]
fn emit_each_returns_each_handlers_result_in_order() {
    let plugin = TestHost::new().load(two_handlers).unwrap();
    assert_eq!(
        plugin.emit_each(&call("ls")),
        vec![
            Ok(Some(ToolCallResult::block("first"))),
            Err(HandlerError::Failed("second failed".into())),
            Ok(None),
        ]
    );
}

#[test]
#[should_panic(
    expected = "agent-hooks test kit: the plugin has 3 handlers of `tool_call`; `emit_each` returns the result of each"
)]
fn emit_refuses_an_event_with_several_handlers() {
    let plugin = TestHost::new().load(two_handlers).unwrap();
    let _ = plugin.emit(&call("ls"));
}

#[test]
#[should_panic(
    expected = "agent-hooks test kit: the plugin showed a `confirm` prompt titled \"Dangerous command\" and no answer was scripted: add one with `answer(Answer::...)` or `answer_to(\"Dangerous command\", Answer::...)`"
)]
fn a_prompt_without_a_scripted_answer_fails_the_test() {
    let plugin = TestHost::new().load(guard).unwrap();
    let _ = plugin.emit(&call("rm -rf /"));
}

#[test]
#[should_panic(
    expected = "agent-hooks test kit: the plugin showed a `confirm` prompt titled \"Dangerous command\", and the scripted answer Text(\"yes\") does not answer a `confirm` prompt"
)]
fn an_answer_of_the_wrong_kind_fails_the_test() {
    let plugin = TestHost::new().load(guard).unwrap();
    plugin.answer(Answer::text("yes"));
    let _ = plugin.emit(&call("rm -rf /"));
}

fn asks(api: &mut HookApi) -> HandlerResult<()> {
    api.register_command("ask", "Asks everything", |_, ctx| {
        let ui = ctx.ui();
        let picked = ui.select("Pick", &["a", "b"]);
        let typed = ui.input("Name", "your name");
        let edited = ui.editor("Edit", "draft");
        let custom = ui.custom("picker", &json!({"n": 1}));
        let sure = ui.confirm("Sure?", "really");
        ui.notify(
            &format!("{picked:?} {typed:?} {edited:?} {custom:?} {sure}"),
            NotifyLevel::Info,
        );
        Ok(())
    });
    Ok(())
}

#[test]
fn answers_by_title_are_used_every_time_and_the_others_in_order() {
    let plugin = TestHost::new().load(asks).unwrap();
    plugin
        .answer_to("Sure?", Answer::Yes)
        .answer(Answer::choose("b"))
        .answer(Answer::text("Ada"))
        .answer(Answer::Dismiss)
        .answer(Answer::Value(json!({"ok": true})))
        .answer(Answer::Yes);
    plugin.run_command("ask", "").unwrap();
    assert_eq!(
        plugin.notifications(),
        vec![(
            r#"Some("b") Some("Ada") None Some(Object {"ok": Bool(true)}) true"#.to_owned(),
            NotifyLevel::Info
        )]
    );
    assert_eq!(plugin.unused_answers(), vec![Answer::Yes]);
    assert_eq!(
        plugin.widgets(),
        vec![("picker".to_owned(), json!({"n": 1}))]
    );
}

#[test]
#[should_panic(
    expected = "agent-hooks test kit: the plugin showed a `select` prompt titled \"Pick\", and the scripted answer Choose(\"c\") is not one of the options offered: [\"a\", \"b\"]"
)]
fn a_choice_that_is_not_offered_fails_the_test() {
    let plugin = TestHost::new().load(asks).unwrap();
    plugin.answer(Answer::choose("c"));
    let _ = plugin.run_command("ask", "");
}

#[test]
fn without_a_ui_prompts_answer_nothing_and_scripted_answers_wait() {
    let host = TestHost::new();
    host.without_ui().answer(Answer::Yes);
    let plugin = host.load(guard).unwrap();
    assert_eq!(
        plugin.emit(&call("rm -rf /")),
        Ok(Some(ToolCallResult::block("Blocked by user")))
    );
    assert_eq!(plugin.unused_answers(), vec![Answer::Yes]);
    plugin.with_ui();
    assert_eq!(plugin.emit(&call("rm -rf /")), Ok(None));
}

fn shows(api: &mut HookApi) -> HandlerResult<()> {
    let host = api.host();
    api.on(move |event: &TurnStartEvent, ctx| {
        let ui = ctx.ui();
        ui.set_status("turn", Some(&format!("turn {}", event.turn_index)));
        ui.set_status("busy", Some("yes"));
        ui.set_status("busy", None);
        ui.set_editor_text("draft");
        ui.notify("careful", NotifyLevel::Warning);
        host.append_entry("turns", &json!({"turn": event.turn_index}))?;
        host.send_message(
            &CustomMessage::new("note", "turn started"),
            &SendMessageOptions::default().trigger_turn(true),
        )?;
        Ok(None)
    });
    Ok(())
}

#[test]
fn what_the_plugin_showed_set_appended_and_sent_is_read_back_in_order() {
    let plugin = TestHost::new().load(shows).unwrap();
    let event = TurnStartEvent::default().turn_index(3);
    assert_eq!(plugin.emit(&event), Ok(None));
    assert_eq!(
        plugin.status().into_iter().collect::<Vec<_>>(),
        vec![("turn".to_owned(), "turn 3".to_owned())]
    );
    assert_eq!(plugin.editor(), "draft");
    assert_eq!(
        plugin.notifications(),
        vec![("careful".to_owned(), NotifyLevel::Warning)]
    );
    assert_eq!(
        plugin.entries(),
        vec![("turns".to_owned(), json!({"turn": 3}))]
    );
    assert_eq!(
        plugin.sent(),
        vec![(
            CustomMessage::new("note", "turn started"),
            SendMessageOptions::default().trigger_turn(true)
        )]
    );
    let status = |key: &str, text: Option<&str>| Call::SetStatus {
        key: key.into(),
        text: text.map(Into::into),
    };
    assert_eq!(
        plugin.take_calls(),
        vec![
            status("turn", Some("turn 3")),
            status("busy", Some("yes")),
            status("busy", None),
            Call::SetEditorText {
                text: "draft".into()
            },
            Call::Notify {
                message: "careful".into(),
                level: NotifyLevel::Warning
            },
            Call::AppendEntry {
                custom_type: "turns".into(),
                data: json!({"turn": 3})
            },
            Call::SendMessage {
                message: CustomMessage::new("note", "turn started"),
                options: SendMessageOptions::default().trigger_turn(true)
            },
        ]
    );
    assert!(plugin.calls().is_empty());
}

/// `/sh SCRIPT` runs `sh -c SCRIPT`, `/run PROGRAM` runs `PROGRAM --version`; both notify
/// what came back.
fn runs(api: &mut HookApi) -> HandlerResult<()> {
    fn report(ctx: &CommandContext<'_>, output: ExecOutput) {
        let text = format!(
            "{:?} {:?} {:?} killed={}",
            output.stdout, output.stderr, output.code, output.killed
        );
        ctx.ui().notify(&text, NotifyLevel::Info);
    }
    let host = api.host();
    api.register_command("sh", "Runs a script", move |script, ctx| {
        let options = ExecOptions::default()
            .timeout(Duration::from_millis(500))
            .env("KIT_TEST", "set");
        report(ctx, host.exec("sh", &["-c", script], &options)?);
        Ok(())
    });
    let host = api.host();
    api.register_command("run", "Runs a program", move |program, ctx| {
        report(
            ctx,
            host.exec(program, &["--version"], &ExecOptions::default())?,
        );
        Ok(())
    });
    Ok(())
}

fn notified(plugin: &agent_hooks_abi::testing::TestPlugin) -> Vec<String> {
    plugin
        .notifications()
        .into_iter()
        .map(|(text, _)| text)
        .collect()
}

#[test]
fn programs_run_for_real_in_the_hosts_folder_with_the_plugins_environment() {
    let folder = std::env::temp_dir().canonicalize().unwrap();
    let plugin = TestHost::new().load(runs).unwrap();
    plugin.cwd(&folder);
    let script = "pwd; echo $KIT_TEST >&2; exit 3";
    plugin.run_command("sh", script).unwrap();
    assert_eq!(
        notified(&plugin),
        vec![format!(
            "\"{}\\n\" \"set\\n\" Some(3) killed=false",
            folder.display()
        )]
    );
    let ran = plugin.ran();
    assert_eq!(ran.len(), 1);
    assert_eq!(
        (ran[0].command.as_str(), &ran[0].args),
        ("sh", &vec!["-c".to_owned(), script.to_owned()])
    );
    assert_eq!(ran[0].cwd, folder);
    assert_eq!(ran[0].options.timeout, Some(Duration::from_millis(500)));
    assert!(!ran[0].stubbed);
}

/// What a program leaves running in the background does not hold the run: it ends with
/// the program, as in the agent.
#[test]
fn a_background_child_holding_the_output_does_not_hold_the_run() {
    let plugin = TestHost::new().load(runs).unwrap();
    let started = std::time::Instant::now();
    plugin
        .run_command("sh", "echo started; sleep 10 &")
        .unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(
        notified(&plugin),
        vec!["\"started\\n\" \"\" Some(0) killed=false"]
    );
}

#[test]
fn a_program_is_killed_after_its_timeout() {
    let plugin = TestHost::new().load(runs).unwrap();
    let started = std::time::Instant::now();
    plugin
        .run_command("sh", "echo started; exec sleep 10")
        .unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(
        notified(&plugin),
        vec!["\"started\\n\" \"\" None killed=true"]
    );
}

#[test]
fn a_program_that_cannot_start_is_an_error_of_exec() {
    let plugin = TestHost::new().load(runs).unwrap();
    let outcome = plugin.run_command("run", "no-such-program-kit");
    assert_eq!(
        outcome,
        Err(HandlerError::Failed(
            "cannot run `no-such-program-kit`: No such file or directory (os error 2)".into()
        ))
    );
    assert_eq!(
        plugin.ran()[0].output,
        Err("cannot run `no-such-program-kit`: No such file or directory (os error 2)".into())
    );
}

#[test]
fn stubs_answer_for_the_programs_they_know_and_the_latest_first() {
    let plugin = TestHost::new().load(runs).unwrap();
    plugin
        .stub_exec(
            "git",
            ExecOutput::default().stdout("git version 0\n").code(0),
        )
        .exec_with(|program, args, _| {
            (program == "git" && args == ["--version"]).then(|| Err("git is broken".to_owned()))
        })
        .stub_exec("cargo", ExecOutput::default().stdout("cargo 0\n").code(0));
    plugin.run_command("run", "cargo").unwrap();
    assert_eq!(
        plugin.run_command("run", "git"),
        Err(HandlerError::Failed("git is broken".into()))
    );
    plugin.run_command("sh", "echo real").unwrap();
    assert_eq!(
        notified(&plugin),
        vec![
            "\"cargo 0\\n\" \"\" Some(0) killed=false",
            "\"real\\n\" \"\" Some(0) killed=false"
        ]
    );
    let stubbed: Vec<bool> = plugin.ran().iter().map(|r| r.stubbed).collect();
    assert_eq!(stubbed, vec![true, true, false]);
}

fn session_control(api: &mut HookApi) -> HandlerResult<()> {
    api.register_command("/move", "Moves in the session", |target, ctx| {
        ctx.wait_for_idle()?;
        let outcome = ctx.navigate_tree(target, &NavigateTreeOptions::default().summarize(true))?;
        let branched = ctx.branch("entry-1")?;
        let started = ctx.new_session(&NewSessionOptions::default().parent_session("old"))?;
        ctx.ui().notify(
            &format!(
                "{} {} {}",
                outcome.cancelled, branched.cancelled, started.cancelled
            ),
            NotifyLevel::Info,
        );
        Ok(())
    });
    Ok(())
}

#[test]
fn commands_control_the_session_and_their_actions_are_recorded() {
    let plugin = TestHost::new().load(session_control).unwrap();
    assert_eq!(
        plugin.commands(),
        vec![("move".to_owned(), "Moves in the session".to_owned())]
    );
    plugin.run_command("/move", "target-1").unwrap();
    plugin.cancel_session_actions(true);
    plugin.run_command("move", "target-2").unwrap();
    assert_eq!(
        notified(&plugin),
        vec!["false false false", "true true true"]
    );
    assert_eq!(
        plugin.calls()[..4],
        [
            Call::WaitForIdle,
            Call::NavigateTree(
                "target-1".into(),
                NavigateTreeOptions::default().summarize(true)
            ),
            Call::Branch("entry-1".into()),
            Call::NewSession(NewSessionOptions::default().parent_session("old")),
        ]
    );
}

#[test]
#[should_panic(
    expected = "agent-hooks test kit: the plugin registered no command `mvoe`; it registered [\"move\"]"
)]
fn running_a_command_the_plugin_did_not_register_fails_the_test() {
    let plugin = TestHost::new().load(session_control).unwrap();
    let _ = plugin.run_command("mvoe", "");
}

#[test]
fn the_world_the_test_sets_is_what_handlers_see() {
    let plugin = TestHost::new()
        .session(SessionInfo::default().id("s-9").file("/tmp/s-9.jsonl"))
        .model(ModelInfo::default().provider("anthropic").id("claude"))
        .busy(true)
        .queued_messages(true)
        .editor_text("typed")
        .cwd("/somewhere")
        .load(|api| {
            api.on(|_: &AgentStartEvent, ctx| {
                let text = format!(
                    "{:?} {:?} {:?} idle={} queued={} ui={} editor={:?}",
                    ctx.cwd(),
                    ctx.session(),
                    ctx.model(),
                    ctx.is_idle(),
                    ctx.has_queued_messages(),
                    ctx.has_ui(),
                    ctx.ui().get_editor_text(),
                );
                ctx.ui().notify(&text, NotifyLevel::Info);
                ctx.abort();
                Ok(None)
            });
            Ok(())
        })
        .unwrap();
    plugin.emit(&AgentStartEvent::default()).unwrap();
    assert_eq!(
        notified(&plugin),
        vec![
            r#""/somewhere" SessionInfo { id: "s-9", file: Some("/tmp/s-9.jsonl") } Some(ModelInfo { provider: "anthropic", id: "claude" }) idle=false queued=true ui=true editor="typed""#
        ]
    );
    assert_eq!(plugin.calls().last(), Some(&Call::Abort));
}

#[test]
fn services_the_kit_lacks_answer_unsupported_as_an_older_host_would() {
    let plugin = TestHost::new()
        .load(|api| {
            let version = api.host().interface_version()?;
            let missing = api.host().call::<Value>("telepathy", &json!({}));
            api.host()
                .append_entry("seen", &json!([version, missing.unwrap_err().to_string()]))?;
            Ok(())
        })
        .unwrap();
    let major_minor: Vec<&str> = agent_hooks_abi::INTERFACE_VERSION
        .split('.')
        .take(2)
        .collect();
    let major_minor = major_minor.join(".");
    assert_eq!(
        plugin.entries(),
        vec![(
            "seen".to_owned(),
            json!([
                agent_hooks_abi::INTERFACE_VERSION,
                format!("this host does not offer `telepathy`: interface {major_minor}, the plugin needs {major_minor}")
            ])
        )]
    );
    let refused = TestHost::new().load(|api| Ok(api.require("telepathy")?));
    assert_eq!(
        refused.err(),
        Some(HandlerError::Failed(format!(
            "this host does not offer `telepathy`: interface {major_minor}, the plugin needs {major_minor}"
        )))
    );
    assert!(TestHost::new()
        .load(|api| Ok(api.require("interface")?))
        .is_ok());
}

#[test]
fn a_renderer_renders_its_type_and_leaves_the_others() {
    let plugin = TestHost::new()
        .load(|api| {
            api.register_message_renderer("todo", |message, options, _| {
                Ok(Some(format!(
                    "{} expanded={}",
                    message.custom_type, options.expanded
                )))
            });
            Ok(())
        })
        .unwrap();
    assert_eq!(plugin.renderers(), vec!["todo"]);
    let todo = CustomMessage::new("todo", "x");
    let options = RenderOptions::default().expanded(true);
    assert_eq!(
        plugin.render(&todo, &options),
        Ok(Some("todo expanded=true".into()))
    );
    assert_eq!(
        plugin.render(&CustomMessage::new("note", "x"), &options),
        Ok(None)
    );
}

#[derive(Debug, agent_hooks_abi::serde::Deserialize)]
#[serde(crate = "agent_hooks_abi::serde")]
struct GuardConfig {
    blocked: Vec<String>,
}

fn configured(api: &mut HookApi) -> HandlerResult<()> {
    let config: GuardConfig = api.config()?;
    api.on(move |event: &ToolCallEvent, _| {
        let command = event.input["command"].as_str().unwrap_or_default();
        let blocked = config.blocked.iter().any(|b| command.contains(b.as_str()));
        Ok(blocked.then(|| ToolCallResult::block("blocked by the configuration")))
    });
    Ok(())
}

#[test]
fn the_configuration_is_set_per_test() {
    let plugin = TestHost::new()
        .config(json!({"blocked": ["curl"]}))
        .load(configured)
        .unwrap();
    assert_eq!(
        plugin.emit(&call("curl example.com")),
        Ok(Some(ToolCallResult::block("blocked by the configuration")))
    );
    assert_eq!(plugin.emit(&call("rm -rf /")), Ok(None));
}

#[test]
fn a_configuration_that_does_not_fit_fails_the_load_with_its_place() {
    let missing = TestHost::new().load(configured);
    assert_eq!(
        missing.err(),
        Some(HandlerError::Failed(
            "no configuration (set one with TestHost::config): missing field `blocked`".into()
        ))
    );
    let wrong = TestHost::new()
        .config(json!({"blocked": "curl"}))
        .load(configured);
    assert_eq!(
        wrong.err(),
        Some(HandlerError::Failed(
            "the test's configuration: `blocked`: invalid type: string \"curl\", expected a sequence".into()
        ))
    );
    let file = TestHost::new()
        .config_json("libguard.json", "{\n  \"blocked\": [1]\n}")
        .load(configured);
    assert_eq!(
        file.err(),
        Some(HandlerError::Failed(
            "libguard.json, line 2, column 15: `blocked[0]`: invalid type: integer `1`, expected a string".into()
        ))
    );
}

#[test]
fn the_factory_knows_where_it_runs() {
    let seen = |host: &TestHost| {
        let plugin = host
            .load(|api| {
                let info = api.plugin_info()?;
                api.append_entry("info", &json!([info.path, info.project_dir, info.has_ui]))?;
                Ok(())
            })
            .unwrap();
        plugin.entries().last().unwrap().1.clone()
    };
    let here = std::env::current_dir().unwrap();
    assert_eq!(
        seen(&TestHost::new()),
        json!([here.join("libagent_hooks_abi.so"), here, true])
    );
    let host = TestHost::new();
    host.plugin_path("/opt/hooks/libguard.so")
        .cwd("/home/ada/project")
        .without_ui();
    assert_eq!(
        seen(&host),
        json!(["/opt/hooks/libguard.so", "/home/ada/project", false])
    );
    host.project_dir("/home/ada");
    assert_eq!(seen(&host)[1], json!("/home/ada"));
}

#[test]
fn log_records_are_read_back_in_order() {
    let plugin = TestHost::new()
        .load(|api| {
            let host = api.host();
            host.log(LogLevel::Info, "loaded");
            api.on(move |event: &ToolCallEvent, ctx| {
                host.log(LogLevel::Debug, &format!("checking {}", event.tool_name));
                ctx.log(LogLevel::Warn, "from the context");
                Ok(None)
            });
            Ok(())
        })
        .unwrap();
    plugin.emit(&call("ls")).unwrap();
    assert_eq!(
        plugin.logs(),
        vec![
            (LogLevel::Info, "loaded".to_owned()),
            (LogLevel::Debug, "checking exec".to_owned()),
            (LogLevel::Warn, "from the context".to_owned()),
        ]
    );
}

#[cfg(feature = "log")]
#[test]
fn the_log_bridge_sends_log_macros_to_the_test_host() {
    let plugin = TestHost::new()
        .load(|api| {
            log::info!("factory says hi");
            api.on(|_: &ToolCallEvent, _| {
                log::trace!("handler says hi");
                Ok(None)
            });
            Ok(())
        })
        .unwrap();
    plugin.emit(&call("ls")).unwrap();
    assert_eq!(
        plugin.logs(),
        vec![
            (LogLevel::Info, "factory says hi".to_owned()),
            (LogLevel::Trace, "handler says hi".to_owned()),
        ]
    );
}

#[test]
fn an_ask_and_a_session_start_context_come_back_as_results() {
    let plugin = TestHost::new()
        .load(|api| {
            api.on(|_: &ToolCallEvent, _| Ok(Some(ToolCallResult::ask("This pushes."))));
            api.on(|_: &SessionStartEvent, _| {
                Ok(Some(
                    SessionStartResult::default().context("Build with make ci."),
                ))
            });
            Ok(())
        })
        .unwrap();
    let asked = plugin.emit(&call("git push")).unwrap().unwrap();
    assert_eq!(asked, ToolCallResult::ask("This pushes."));
    assert!(asked.ask && !asked.block);
    assert_eq!(
        plugin.emit(&SessionStartEvent::default()),
        Ok(Some(
            SessionStartResult::default().context("Build with make ci.")
        ))
    );
}
