//! Long-running command hooks (`"persistent": true`, docs/long-running-hooks.md): the two
//! reference clients against the real runner (library and `agent-hooks emit`/`replay`),
//! and every fault a hook can commit, each by a small hostile script.

use std::{
    path::{Path, PathBuf},
    process::Command,
    sync::Arc,
    time::{Duration, Instant},
};

use agent_hooks::{
    abi::prelude::*,
    command_hook::{CommandHooks, Persistence},
    isolation::CRASH_LIMIT,
    HookErrorKind, HookRunner, Termination,
};
use agent_hooks_tests::{
    cli,
    commands::{CommandRig, Project},
    survivors, workspace_root, RecordingAgent,
};

fn exec(command: &str) -> ToolCallEvent {
    ToolCallEvent::new("exec", "call-1", json!({ "command": command }))
}

/// A hooks file with one long-running `PreToolUse` hook on `exec`.
/// A runner over one long-running hook of `command` on `PreToolUse`, not required.
fn persistent_rig(project: &Project, command: &str, timeout: u64) -> CommandRig {
    CommandRig::new(
        &project.root,
        &[persistent(project, command, timeout, false)],
    )
}

fn persistent(project: &Project, command: &str, timeout: u64, required: bool) -> PathBuf {
    let hook = json!({"type": "command", "command": command, "persistent": true,
                      "timeout": timeout, "required": required});
    let file = json!({"PreToolUse": [{"matcher": "exec", "hooks": [hook]}]});
    project.write("hooks.json", &file.to_string())
}

/// A runner over `file` whose agent has a UI that answers `confirm` with `answer`.
fn rig_with_ui(project: &Project, file: &Path, answer: bool) -> CommandRig {
    let rig = CommandRig::new(&project.root, &[file.to_path_buf()]);
    let agent = Arc::new(RecordingAgent::with_ui(answer));
    rig.runner.attach(agent.clone());
    CommandRig { agent, ..rig }
}

/// The command that runs a reference client, or `None` (said on stderr) when its
/// interpreter is not installed.
fn client(interpreter: &str, file: &str) -> Option<String> {
    let present = Command::new(interpreter)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !present {
        eprintln!("skipped: {interpreter} is not installed, so the {file} client was not run");
        return None;
    }
    let path = workspace_root().join("clients").join(file);
    Some(format!(
        "{interpreter} {}",
        agent_hooks::command_hook::shell_quote(&path.to_string_lossy())
    ))
}

fn clients() -> Vec<String> {
    [("python3", "python/guard.py"), ("node", "node/guard.js")]
        .into_iter()
        .filter_map(|(interpreter, file)| client(interpreter, file))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reference_guards_block_confirm_and_count_through_the_library() {
    for command in clients() {
        for confirmed in [false, true] {
            let project = Project::new("p");
            let file = persistent(&project, &command, 10, false);
            let rig = rig_with_ui(&project, &file, confirmed);
            let blocked = rig.runner.emit(&exec("rm -rf /")).await.unwrap();
            assert!(blocked.block, "{command}");
            assert_eq!(
                blocked.reason.as_deref(),
                Some("rm -rf is blocked by the guard hook")
            );
            let push = rig.runner.emit(&exec("git push --force")).await.unwrap();
            assert_eq!(push.block, !confirmed, "{command}");
            if !confirmed {
                assert_eq!(
                    push.reason.as_deref(),
                    Some("the user did not confirm the force push")
                );
            }
            let allowed = rig.runner.emit(&exec("ls")).await.unwrap();
            assert!(!allowed.block);
            assert_eq!(
                rig.agent.ui_calls(),
                [
                    "set_status guard: guard: 1 checked",
                    "set_status guard: guard: 2 checked",
                    "confirm Force push: Run `git push --force`?",
                    "set_status guard: guard: 3 checked",
                ],
                "{command}"
            );
            assert!(
                rig.errors.lock().unwrap().is_empty(),
                "{:?}",
                rig.error_messages()
            );
        }
    }
}

#[test]
fn the_reference_guards_run_under_emit_and_replay() {
    for command in clients() {
        let project = Project::new("p");
        let file = persistent(&project, &command, 10, false);
        let home = project.root.join("home");
        std::fs::create_dir_all(&home).unwrap();
        let hook = file.to_string_lossy().into_owned();
        let args = |extra: &[&str]| {
            let mut args = vec!["--no-discover", "--hook", hook.as_str()];
            args.extend_from_slice(extra);
            args.iter()
                .map(|a| (*a).to_owned())
                .collect::<Vec<String>>()
        };
        let emit = |input: &str| {
            let mut all = vec!["emit".to_owned(), "PreToolUse".to_owned()];
            all.extend(args(&["--input", input, "--json"]));
            let all: Vec<&str> = all.iter().map(String::as_str).collect();
            cli::json_of(&cli::run(&project.root, &home, &all, None))
        };
        let blocked = emit(r#"{"tool_name":"exec","tool_input":{"command":"rm -rf /"}}"#);
        assert_eq!(blocked["block"], true, "{command}: {blocked}");
        assert_eq!(blocked["reason"], "rm -rf is blocked by the guard hook");
        // No UI in the command: the confirm is answered no.
        let push = emit(r#"{"tool_name":"exec","tool_input":{"command":"git push --force"}}"#);
        assert_eq!(push["reason"], "the user did not confirm the force push");

        let session = project.write(
            "session.jsonl",
            &[
                r#"{"event":"PreToolUse","tool_name":"exec","tool_input":{"command":"ls"}}"#,
                r#"{"event":"PreToolUse","tool_name":"exec","tool_input":{"command":"cat x"}}"#,
                r#"{"event":"PreToolUse","tool_name":"exec","tool_input":{"command":"rm -rf x"}}"#,
            ]
            .join("\n"),
        );
        let mut all = vec!["replay".to_owned(), session.to_string_lossy().into_owned()];
        all.extend(args(&[]));
        let all: Vec<&str> = all.iter().map(String::as_str).collect();
        let replayed = cli::stdout(&cli::run(&project.root, &home, &all, None));
        assert!(
            replayed.contains("BLOCKED: rm -rf is blocked by the guard hook"),
            "{replayed}"
        );
        assert!(
            replayed.contains("Summary: 3 events, 1 blocked, 0 rewritten, 0 hook errors"),
            "{replayed}"
        );
    }
}

/// A hostile hook: says hello, then does `on_event` (sh, with `$id` the event's id) for
/// each event. Each start is counted in `starts`.
fn hostile(project: &Project, name: &str, on_event: &str) -> String {
    hook_script(project, name, r#"{"type":"hello","protocol":1}"#, on_event)
}

/// A hook that says `hello`, then does `on_event` for each event.
fn hook_script(project: &Project, name: &str, hello: &str, on_event: &str) -> String {
    let script = format!(
        r#"#!/bin/sh
echo start >> "$(dirname "$0")/starts"
echo $$ > "$(dirname "$0")/pid"
read -r _ _ _ _ group _ < /proc/$$/stat
echo "$group" > "$(dirname "$0")/group"
read -r hello
echo '{hello}'
while read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/^{{"type":"event","id":\([0-9]*\).*/\1/p')
  [ -n "$id" ] || continue
  {on_event}
done
"#
    );
    let path = project.script(name, &script);
    agent_hooks::command_hook::shell_quote(&path.to_string_lossy())
}

/// How many times the hook was started.
fn starts(project: &Project) -> usize {
    project.read("starts").lines().count()
}

const ANSWER: &str = r#"printf '{"type":"answer","id":%s}\n' "$id""#;

/// Emits `exec ls` and returns the outcome's block and the errors it reported.
async fn emit_ls(rig: &CommandRig) -> (bool, Vec<(HookErrorKind, String)>) {
    let before = rig.errors.lock().unwrap().len();
    let outcome = rig.runner.emit(&exec("ls")).await.unwrap();
    let errors = rig.errors.lock().unwrap()[before..]
        .iter()
        .map(|e| (e.kind.clone(), e.message.clone()))
        .collect();
    (outcome.block, errors)
}

/// After a fault, the next event goes to a new process.
async fn restarted(rig: &CommandRig, project: &Project) {
    let before = starts(project);
    let (_, errors) = emit_ls(rig).await;
    assert_eq!(starts(project), before + 1, "{errors:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn garbage_is_reported_never_trusted_and_the_hook_restarted() {
    let project = Project::new("p");
    // The first start answers with garbage, the next ones answer properly.
    let command = hostile(
        &project,
        "garbage.sh",
        &format!(
            r#"if [ "$(wc -l < "$(dirname "$0")/starts")" -eq 1 ]; then echo 'not json {{"decision":"block"}}'; else {ANSWER}; fi"#
        ),
    );
    let rig = persistent_rig(&project, &command, 5);
    let (block, errors) = emit_ls(&rig).await;
    assert!(!block, "garbage must not be read as a decision");
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        matches!(errors[0].0, HookErrorKind::Crashed(_)),
        "{errors:?}"
    );
    assert!(
        errors[0].1.contains(
            "wrote a line that is not a protocol message (expected ident at line 1 column 2): \"not json {\\\"decision\\\":\\\"block\\\"}\"; a protocol error, so it was stopped: everything a long-running hook prints on stdout must be a protocol message (one JSON object per line); print debugging output on stderr instead while handling PreToolUse"
        ),
        "{}",
        errors[0].1
    );
    let (block, errors) = emit_ls(&rig).await;
    assert!(!block);
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(starts(&project), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_for_another_id_is_reported_and_the_hook_restarted() {
    let project = Project::new("p");
    let command = hostile(
        &project,
        "wrong-id.sh",
        r#"printf '{"type":"answer","id":%s,"block":"forged"}\n' "$((id + 1000))""#,
    );
    let rig = persistent_rig(&project, &command, 5);
    let (block, errors) = emit_ls(&rig).await;
    assert!(
        !block,
        "an answer for another event must not decide this one"
    );
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].1.contains(
            "answered call 1001, which no call was waiting for; a protocol error, so it was stopped (what it sends next could not be matched to calls)"
        ),
        "{}",
        errors[0].1
    );
    emit_ls(&rig).await;
    assert_eq!(starts(&project), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hook_past_its_deadline_fails_like_a_one_shot_hook_and_is_restarted() {
    for required in [false, true] {
        let project = Project::new("p");
        let command = hostile(&project, "hang.sh", "sleep 30");
        let rig = CommandRig::new(
            &project.root,
            &[persistent(&project, &command, 1, required)],
        );
        let started = Instant::now();
        let (block, errors) = emit_ls(&rig).await;
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{:?}",
            started.elapsed()
        );
        // As a one-shot hook that timed out: the call goes on, unless the hook is required.
        assert_eq!(block, required);
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(errors[0].0, HookErrorKind::TimedOut(Duration::from_secs(1)));
        assert!(
            errors[0].1.ends_with(&format!("`{command}` did not answer PreToolUse within 1s; its process was killed and starts again on the next event")),
            "{}",
            errors[0].1
        );
        let pid = project.read("pid");
        assert!(
            survivors([pid.as_str()]).is_empty(),
            "the hung hook was not killed"
        );
        emit_ls(&rig).await;
        assert_eq!(starts(&project), 2);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crashing_hook_is_restarted_until_the_crash_budget_is_spent() {
    let project = Project::new("p");
    let command = hostile(&project, "crash.sh", "echo 'dying now' >&2; exit 3");
    let rig = persistent_rig(&project, &command, 5);
    let (block, errors) = emit_ls(&rig).await;
    assert!(!block);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].1.contains("exited with status 3")
            && errors[0]
                .1
                .contains("while handling PreToolUse; its last output: dying now"),
        "{}",
        errors[0].1
    );
    for _ in 1..CRASH_LIMIT {
        emit_ls(&rig).await;
    }
    assert_eq!(starts(&project), CRASH_LIMIT);
    let (block, errors) = emit_ls(&rig).await;
    assert!(!block);
    assert_eq!(
        starts(&project),
        CRASH_LIMIT,
        "a disabled hook is not started again"
    );
    assert!(
        errors.iter().any(|(_, m)| m.contains(&format!(
            "is disabled for the rest of the session: its process ended {CRASH_LIMIT} times within 60s"
        ))),
        "{errors:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hook_killed_between_events_is_restarted_on_the_next_one() {
    let project = Project::new("p");
    let command = hostile(&project, "ok.sh", ANSWER);
    let rig = persistent_rig(&project, &command, 5);
    let (_, errors) = emit_ls(&rig).await;
    assert!(errors.is_empty(), "{errors:?}");
    // Killed as a user would kill it: its whole process group (`sh -c` and the script).
    let pid = project.read("pid").trim().to_owned();
    let group = project.read("group").trim().to_owned();
    Command::new("kill")
        .args(["-9", "--", &format!("-{group}")])
        .status()
        .unwrap();
    assert!(survivors([pid.as_str(), group.as_str()]).is_empty());
    let (block, errors) = emit_ls(&rig).await;
    assert!(!block);
    assert_eq!(starts(&project), 2, "{errors:?}");
    assert_eq!(errors.len(), 1, "{errors:?}");
    // `sh -c` may run the script as its child: then the shell reports the kill as 137.
    assert!(
        matches!(
            errors[0].0,
            HookErrorKind::Crashed(Termination::Signal(9) | Termination::Exit(137))
        ),
        "{errors:?}"
    );
    assert!(
        (errors[0].1.contains("died with signal 9")
            || errors[0].1.contains("exited with status 137"))
            && errors[0].1.ends_with("between calls; restarting it"),
        "{}",
        errors[0].1
    );
    let (_, errors) = emit_ls(&rig).await;
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(starts(&project), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_line_past_the_limit_is_refused_before_it_is_kept() {
    let project = Project::new("p");
    let command = hostile(
        &project,
        "flood.sh",
        "head -c 9000000 /dev/zero | tr '\\0' x; echo",
    );
    let rig = persistent_rig(&project, &command, 10);
    let (block, errors) = emit_ls(&rig).await;
    assert!(!block);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].1.contains(&format!(
            "sent a message the agent cannot read (a line longer than the limit of {} bytes); a protocol error, so it was stopped (what it sends next could not be matched to calls) while handling PreToolUse",
            agent_hooks::isolation::lines::MAX_LINE
        )),
        "{}",
        errors[0].1
    );
    restarted(&rig, &project).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stderr_is_logged_per_event_and_bounded() {
    let project = Project::new("p");
    let command = hostile(
        &project,
        "chatty.sh",
        &format!(
            r#"if [ "$id" -eq 1 ]; then echo "checking event $id" >&2; else head -c 1000000 /dev/zero | tr '\0' e >&2; fi; {ANSWER}"#
        ),
    );
    let rig = persistent_rig(&project, &command, 10);
    let (_, errors) = emit_ls(&rig).await;
    assert!(errors.is_empty(), "{errors:?}");
    {
        let reports = rig.reports.lock().unwrap();
        assert_eq!(reports[0].stderr, "checking event 1\n");
        assert!(!reports[0].stderr_truncated);
    }
    let (_, errors) = emit_ls(&rig).await;
    assert!(errors.is_empty(), "{errors:?}");
    let reports = rig.reports.lock().unwrap();
    assert!(reports[1].stderr_truncated);
    assert!(
        reports[1].stderr.len() <= agent_hooks::isolation::STDERR_LOG,
        "{}",
        reports[1].stderr.len()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_requests_from_a_hook_that_does_not_read_is_stopped() {
    let project = Project::new("p");
    // 20,000 notifications in one event, none of their replies read.
    let command = hostile(
        &project,
        "requests.sh",
        &format!(
            r#"i=0; while [ $i -lt 20000 ]; do printf '{{"type":"request","id":%s,"event":%s,"method":"ui_notify","message":"n","level":"info"}}\n' $i "$id"; i=$((i+1)); done; {ANSWER}"#
        ),
    );
    let rig = rig_with_ui(&project, &persistent(&project, &command, 20, false), true);
    let started = Instant::now();
    let (block, errors) = emit_ls(&rig).await;
    assert!(!block);
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0]
            .1
            .contains("stopped reading what the agent sends (1024 messages waited for it)"),
        "{}",
        errors[0].1
    );
    restarted(&rig, &project).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_hooks_process_group_is_killed_when_the_runner_is_dropped() {
    let project = Project::new("p");
    let command = hostile(
        &project,
        "parent.sh",
        &format!(r#"sleep 300 & echo $! > "$(dirname "$0")/child"; {ANSWER}"#),
    );
    let rig = persistent_rig(&project, &command, 5);
    let (_, errors) = emit_ls(&rig).await;
    assert!(errors.is_empty(), "{errors:?}");
    let (parent, child) = (project.read("pid"), project.read("child"));
    drop(rig);
    assert!(
        survivors([parent.as_str(), child.as_str()]).is_empty(),
        "the hook or its child outlived the runner"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hook_that_does_not_speak_the_protocol_is_told_what_to_do() {
    let project = Project::new("p");
    // A one-shot hook marked persistent: it waits for the end of its input, which never
    // comes.
    let one_shot = project.script("one-shot.sh", "#!/bin/sh\ncat > /dev/null\necho '{}'\n");
    let quoted = agent_hooks::command_hook::shell_quote(&one_shot.to_string_lossy());
    let rig = persistent_rig(&project, &quoted, 1);
    let (_, errors) = emit_ls(&rig).await;
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].1.ends_with(&format!("`{quoted}` could not be started: it is not a long-running hook (it did not answer within 1s); it must write its hello line first (see docs/long-running-hooks.md), or drop `persistent` to run it once per event")),
        "{}",
        errors[0].1
    );

    let newer = project.script(
        "newer.sh",
        "#!/bin/sh\nread -r hello\necho '{\"type\":\"hello\",\"protocol\":2}'\nsleep 30\n",
    );
    let quoted = agent_hooks::command_hook::shell_quote(&newer.to_string_lossy());
    let rig = persistent_rig(&project, &quoted, 5);
    let (_, errors) = emit_ls(&rig).await;
    assert!(
        errors[0].1.ends_with(&format!("`{quoted}` could not be started: it speaks long-running hook protocol 2, this agent 1: update the hook (or its client library) to this protocol")),
        "{}",
        errors[0].1
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hook_started_at_startup_subscribes_to_runner_events_and_registers_commands() {
    let project = Project::new("p");
    let script = project.script(
        "watcher.sh",
        r#"#!/bin/sh
read -r hello
echo '{"type":"hello","protocol":1,"name":"watcher","events":["tool_call","no_such_event"],"commands":[{"name":"count","description":"Show the count"}]}'
while read -r line; do
  case "$line" in
    '{"type":"event"'*'"event":"tool_call"'*)
      id=$(printf '%s' "$line" | sed -n 's/^{"type":"event","id":\([0-9]*\).*/\1/p')
      echo "tool_call $id" >&2
      echo '{"type":"request","id":1,"method":"send_message","message":{"custom_type":"watch","content":"saw a tool call"}}'
      echo '{"type":"request","id":2,"method":"append_entry","custom_type":"watch","data":{"n":1}}'
      printf '{"type":"answer","id":%s,"output":{"block":true,"reason":"watched"}}\n' "$id" ;;
    '{"type":"command"'*)
      id=$(printf '%s' "$line" | sed -n 's/^{"type":"command","id":\([0-9]*\).*/\1/p')
      printf '{"type":"request","id":3,"event":%s,"method":"ui_notify","message":"count: 1","level":"info"}\n' "$id"
      printf '{"type":"answer","id":%s}\n' "$id" ;;
    '{"type":"event"'*)
      id=$(printf '%s' "$line" | sed -n 's/^{"type":"event","id":\([0-9]*\).*/\1/p')
      printf '{"type":"answer","id":%s}\n' "$id" ;;
  esac
done
"#,
    );
    let command = agent_hooks::command_hook::shell_quote(&script.to_string_lossy());
    let hook = json!({"type": "command", "command": command, "persistent": "startup"});
    let file = project.write(
        "hooks.json",
        &json!({"SessionStart": [{"hooks": [hook]}]}).to_string(),
    );
    let rig = rig_with_ui(&project, &file, true);
    let hooks = rig.runner.hooks();
    assert_eq!(hooks.len(), 1);
    assert_eq!(hooks[0].path(), command);
    assert_eq!(
        hooks[0].warnings(),
        ["registers a handler for unknown event `no_such_event`, which this host does not emit; the handler is ignored"]
    );
    assert_eq!(
        rig.runner
            .registered_commands()
            .map(|c| (c.name.as_str(), c.description.as_str()))
            .collect::<Vec<_>>(),
        [("count", "Show the count")]
    );

    let outcome = rig.runner.emit(&exec("ls")).await.unwrap();
    assert!(outcome.block);
    assert_eq!(outcome.reason.as_deref(), Some("watched"));
    let deadline = Instant::now() + Duration::from_secs(5);
    while rig.agent.calls().len() < 2 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(
        rig.agent.calls(),
        ["send_message watch", "append_entry watch"]
    );
    assert_eq!(rig.agent.entries.lock().unwrap()[0].1, json!({"n": 1}));

    rig.runner.run_command("count", "").unwrap().unwrap();
    assert_eq!(rig.agent.ui_calls(), ["notify info: count: 1"]);
    // The same process answers the command-hook event it was configured for.
    rig.runner
        .emit(&SessionStartEvent::default())
        .await
        .unwrap();
    assert_eq!(rig.reports.lock().unwrap().len(), 1);
    assert!(
        rig.errors.lock().unwrap().is_empty(),
        "{:?}",
        rig.error_messages()
    );
}

#[test]
fn persistent_takes_true_false_startup_or_user_and_says_what_else_it_did() {
    let (hooks, issues) = agent_hooks::agents::parse_hooks(
        r#"{"PreToolUse": [{"hooks": [
            {"command": "a", "persistent": true},
            {"command": "b", "persistent": "startup"},
            {"command": "c", "persistent": "always"},
            {"command": "d", "persistent": 1},
            {"type": "http", "url": "http://127.0.0.1:9/h", "persistent": true},
            {"command": "e", "persistent": "user"}
        ]}]}"#,
        Path::new("hooks.json"),
    );
    let kinds: Vec<Option<Persistence>> = hooks.iter().map(|h| h.kind.persistence()).collect();
    assert_eq!(
        kinds,
        [
            Some(Persistence::Session),
            Some(Persistence::Startup),
            Some(Persistence::Session),
            None,
            None,
            Some(Persistence::User)
        ]
    );
    let messages: Vec<String> = issues.iter().map(ToString::to_string).collect();
    assert_eq!(
        messages,
        [
            "hooks.json (PreToolUse[0].hooks[2].persistent): `persistent` must be true, false, \"startup\" or \"user\", not \"always\"; taken as true",
            "hooks.json (PreToolUse[0].hooks[3].persistent): `persistent` must be true or false, not 1; taken as false",
            "hooks.json (PreToolUse[0].hooks[4].persistent): `persistent` applies to command hooks only; this http hook posts once per event",
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runner_events_in_the_hello_of_a_hook_started_on_its_first_event_are_reported() {
    let project = Project::new("p");
    let command = hook_script(
        &project,
        "late.sh",
        r#"{"type":"hello","protocol":1,"events":["tool_call"]}"#,
        r#"printf '{"type":"answer","id":%s,"block":"late"}\n' "$id""#,
    );
    let rig = persistent_rig(&project, &command, 5);
    let (block, errors) = emit_ls(&rig).await;
    assert!(block, "its hooks-file event is answered");
    assert_eq!(rig.runner.hooks().len(), 0);
    assert_eq!(
        errors,
        [(
            HookErrorKind::Protocol,
            "its hello lists runner events or commands, which only a hook started with `\"persistent\": \"startup\"` gets; they are ignored, and it gets the events of its hooks file".to_owned()
        )]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hook_that_exits_after_an_answer_is_restarted_on_the_next_event() {
    let project = Project::new("p");
    let command = hostile(&project, "once.sh", &format!("{ANSWER}; exit 0"));
    let rig = persistent_rig(&project, &command, 5);
    let (_, errors) = emit_ls(&rig).await;
    assert!(errors.is_empty(), "{errors:?}");
    let pid = project.read("pid").trim().to_owned();
    let group = project.read("group").trim().to_owned();
    assert!(survivors([pid.as_str(), group.as_str()]).is_empty());
    let (block, errors) = emit_ls(&rig).await;
    assert!(!block);
    assert_eq!(starts(&project), 2, "{errors:?}");
    said_it_exited_between_calls(&errors);
}

/// The one error of the event: the hook exited (status 0) between calls and is restarted.
fn said_it_exited_between_calls(errors: &[(HookErrorKind, String)]) {
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].1.contains("exited with status 0")
            && errors[0].1.ends_with("between calls; restarting it"),
        "{}",
        errors[0].1
    );
}

/// A hook that ends with an event sent to it and unread (here it answers, rests, and exits
/// before it reads again; the next event is sent at once) ended between events, as far as
/// that event goes: said so, and the event goes to its next process, not lost as a crash.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hook_that_ends_before_it_reads_an_event_gets_it_in_its_next_process() {
    let project = Project::new("p");
    let command = hostile(
        &project,
        "rests.sh",
        &format!(r#"echo "$id" >> "$(dirname "$0")/answered"; {ANSWER}; sleep 0.3; exit 0"#),
    );
    let rig = persistent_rig(&project, &command, 5);
    let (_, errors) = emit_ls(&rig).await;
    assert!(errors.is_empty(), "{errors:?}");
    let (block, errors) = emit_ls(&rig).await;
    assert!(!block);
    assert_eq!(starts(&project), 2, "{errors:?}");
    assert_eq!(
        project.read("answered").lines().count(),
        2,
        "the second event was answered by the second process"
    );
    said_it_exited_between_calls(&errors);
}

/// Trust covers a long-running hook as a one-shot one: its project hooks file does not run
/// until trusted, and a change to the script it runs makes it untrusted again.
#[test]
fn trust_covers_the_script_a_long_running_hook_runs() {
    if client("python3", "python/guard.py").is_none() {
        return;
    }
    let project = Project::new("repo");
    let home = project.root.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let guard = std::fs::read_to_string(workspace_root().join("clients/python/guard.py")).unwrap();
    project.write("guard.py", &guard);
    project.write(
        ".agent-hooks/hooks/hooks.json",
        r#"{"PreToolUse": [{"matcher": "exec", "hooks": [
            {"type": "command", "command": "python3 ./guard.py", "persistent": true}
        ]}]}"#,
    );
    let blocked = || {
        let output = cli::run(
            &project.root,
            &home,
            &[
                "emit",
                "PreToolUse",
                "--input",
                r#"{"tool_name": "exec", "tool_input": {"command": "rm -rf /"}}"#,
                "--json",
            ],
            None,
        );
        cli::json_of(&output)["block"].clone()
    };
    assert_eq!(blocked(), false, "an untrusted project hook does not run");
    let trusted = cli::run(&project.root, &home, &["trust"], None);
    assert!(
        cli::stdout(&trusted).contains("runs guard.py"),
        "{}",
        cli::stdout(&trusted)
    );
    assert_eq!(blocked(), true, "the trusted guard runs and blocks");
    project.write("guard.py", &guard.replace("rm -rf", "rm -fr"));
    assert_eq!(blocked(), false, "the changed guard does not run");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_process_serves_every_event_and_file_that_names_its_command() {
    let project = Project::new("p");
    let command = hostile(&project, "both.sh", ANSWER);
    let hook = json!({"type": "command", "command": command, "persistent": true});
    let file = project.write(
        "hooks.json",
        &json!({"PreToolUse": [{"hooks": [hook]}], "PostToolUse": [{"hooks": [hook]}]}).to_string(),
    );
    let other = project.write(
        "other.json",
        &json!({"PreToolUse": [{"matcher": "exec", "hooks": [hook]}]}).to_string(),
    );
    let rig = CommandRig::new(&project.root, &[file, other]);
    emit_ls(&rig).await;
    let result = ToolResultEvent::new("exec", "call-1", json!({"command": "ls"}));
    rig.runner.emit(&result).await.unwrap();
    emit_ls(&rig).await;
    assert_eq!(starts(&project), 1);
    assert_eq!(rig.reports.lock().unwrap().len(), 3);
    assert!(
        rig.errors.lock().unwrap().is_empty(),
        "{:?}",
        rig.error_messages()
    );
}

#[test]
fn a_startup_hook_that_does_not_start_is_an_issue_of_the_hooks() {
    let project = Project::new("p");
    let hook =
        json!({"type": "command", "command": "exit 3", "persistent": "startup", "timeout": 2});
    let (file, issues, _) = start_with_issues(&project, vec![hook]);
    assert_eq!(issues.len(), 1);
    let (start, end) = issues[0].split_once(" (peak memory ").unwrap();
    assert_eq!(
        start,
        format!(
            "{}: `exit 3` did not start: it is not a long-running hook (it exited with status 3",
            file.display()
        )
    );
    assert!(
        end.ends_with(" MiB) before it said hello); it must write its hello line first (see docs/long-running-hooks.md), or drop `persistent` to run it once per event; it starts again on its first event, without the runner events and commands of its hello"),
        "{end}"
    );
}

/// Startup hooks all start before any hello is waited for: two that never say hello hold
/// the runner's start for one timeout, not for two in turn.
#[test]
fn startup_hooks_that_never_say_hello_are_waited_for_together() {
    let project = Project::new("p");
    let hooks: Vec<Value> = ["a", "b"]
        .iter()
        .map(|name| {
            json!({"type": "command", "command": format!("sleep 30 # {name}"),
                "persistent": "startup", "timeout": 1})
        })
        .collect();
    let (file, issues, waited) = start_with_issues(&project, hooks);
    assert_eq!(issues.len(), 2, "{issues:?}");
    for (issue, name) in issues.iter().zip(["a", "b"]) {
        let start = format!("{}: `sleep 30 # {name}` did not start: ", file.display());
        assert!(issue.starts_with(&start), "{issue}");
        let rest = "it is not a long-running hook (it did not answer within 1s); it must write its hello line first";
        assert!(issue[start.len()..].starts_with(rest), "{issue}");
    }
    // One after the other, the second would wait its own second after the first's.
    assert!(waited < Duration::from_millis(1800), "{waited:?}");
}

/// Gives the runner `SessionStart` hooks from a hooks file of `project`: the file, the
/// issues of the runner's command hooks, and how long adding them took.
fn start_with_issues(project: &Project, hooks: Vec<Value>) -> (PathBuf, Vec<String>, Duration) {
    let file = project.write(
        "hooks.json",
        &json!({"SessionStart": [{"hooks": hooks}]}).to_string(),
    );
    let mut command_hooks = CommandHooks::new();
    command_hooks.load_file(&file);
    let mut runner = HookRunner::new(Vec::new(), &project.root);
    let started = Instant::now();
    runner.add_command_hooks(command_hooks);
    let waited = started.elapsed();
    let issues = runner
        .command_hooks()
        .issues()
        .iter()
        .map(ToString::to_string)
        .collect();
    (file, issues, waited)
}

/// The example of docs/command-hooks.md, as written: `clients/hooks.json` from the repository's root.
#[test]
fn the_readme_example_runs_from_the_repository_root() {
    if client("python3", "python/guard.py").is_none() {
        return;
    }
    let home = agent_hooks_tests::temp_dir();
    let root = workspace_root();
    let hook = ["--no-discover", "--hook", "clients/hooks.json"];
    let mut emit = vec!["emit", "PreToolUse"];
    emit.extend(hook);
    emit.extend([
        "--input",
        r#"{"tool_name": "exec", "tool_input": {"command": "rm -rf /"}}"#,
    ]);
    let emitted = cli::stdout(&cli::run(&root, home.path(), &emit, None));
    assert!(
        emitted.starts_with("tool_call BLOCKED: rm -rf is blocked by the guard hook\n"),
        "{emitted}"
    );
    let mut replay = vec!["replay"];
    replay.extend(hook);
    replay.push("-");
    let session = [
        r#"{"event":"PreToolUse","tool_name":"exec","tool_input":{"command":"ls"}}"#,
        r#"{"event":"PreToolUse","tool_name":"exec","tool_input":{"command":"git push --force"}}"#,
    ]
    .join("\n");
    let replayed = cli::stdout(&cli::run(&root, home.path(), &replay, Some(&session)));
    let lines: Vec<&str> = replayed.lines().collect();
    assert!(
        lines[0].starts_with("    1  tool_call            ok: \"ran `ls`\" ("),
        "{replayed}"
    );
    // Under each event, what the guard did through the agent (its status line, its confirm,
    // answered "no" as without a UI).
    assert_eq!(
        lines[1], "       status guard = \"guard: 1 checked\"; status line: \"guard: 1 checked\"",
        "{replayed}"
    );
    assert!(
        lines[2].starts_with(
            "    2  tool_call            BLOCKED: the user did not confirm the force push ("
        ),
        "{replayed}"
    );
    assert_eq!(
        lines[3..5],
        [
            "       status guard = \"guard: 2 checked\"; status line: \"guard: 2 checked\"",
            "       confirm \"Force push\": \"Run `git push --force`?\" → no",
        ],
        "{replayed}"
    );
    // With a user who says yes, the push runs.
    replay.extend(["--ui", "yes"]);
    let replayed = cli::stdout(&cli::run(&root, home.path(), &replay, Some(&session)));
    let lines: Vec<&str> = replayed.lines().collect();
    assert!(
        lines[2].starts_with("    2  tool_call            ok: \"ran `git push --force`\" ("),
        "{replayed}"
    );
    assert_eq!(
        lines[4], "       confirm \"Force push\": \"Run `git push --force`?\" → yes",
        "{replayed}"
    );
}

/// Events that overlap (tool calls in parallel) share the process; answers are routed by
/// id, so each call gets its own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn overlapping_events_each_get_their_own_answer() {
    for command in clients() {
        let project = Project::new("p");
        let file = persistent(&project, &command, 10, false);
        let rig = Arc::new(rig_with_ui(&project, &file, true));
        let calls: Vec<_> = (0..16)
            .map(|i| {
                let rig = rig.clone();
                tokio::spawn(async move {
                    let command = if i % 2 == 0 { "rm -rf x" } else { "ls" };
                    rig.runner.emit(&exec(command)).await.unwrap().block
                })
            })
            .collect();
        for (i, call) in calls.into_iter().enumerate() {
            assert_eq!(call.await.unwrap(), i % 2 == 0, "{command}: call {i}");
        }
        assert!(
            rig.errors.lock().unwrap().is_empty(),
            "{:?}",
            rig.error_messages()
        );
    }
}

#[test]
fn list_says_which_hooks_are_long_running() {
    let project = Project::new("p");
    let home = project.root.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let lazy = hostile(&project, "lazy.sh", ANSWER);
    let early = hostile(&project, "early.sh", ANSWER);
    let file = project.write(
        "hooks.json",
        &json!({"PreToolUse": [{"matcher": "exec", "hooks": [
            {"type": "command", "command": lazy, "persistent": true},
            {"type": "command", "command": early, "persistent": "startup"},
            {"type": "command", "command": "true"}
        ]}]})
        .to_string(),
    );
    let listed = cli::stdout(&cli::run(
        &project.root,
        &home,
        &["list", "--no-discover", "--hook", &file.to_string_lossy()],
        None,
    ));
    for line in [
        format!("PreToolUse [exec] (long-running): {lazy}\n"),
        format!("PreToolUse [exec] (long-running, started with the runner): {early}\n"),
        "PreToolUse [exec]: true\n".to_owned(),
    ] {
        assert!(listed.contains(&line), "{line}\n{listed}");
    }
}

#[test]
fn list_shows_a_startup_hook_that_registered_runner_events_as_a_long_running_hook() {
    let project = Project::new("p");
    let home = project.root.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let hello = r#"{"type":"hello","protocol":1,"name":"watcher","events":["tool_call"],"commands":[{"name":"count","description":"Show the count"}]}"#;
    let watcher = hook_script(&project, "watcher.sh", hello, ANSWER);
    let file = project.write(
        "hooks.json",
        &json!({"SessionStart": [{"hooks": [
            {"type": "command", "command": watcher, "persistent": "startup"}
        ]}]})
        .to_string(),
    );
    let args = ["--no-discover", "--hook", "hooks.json"];
    let listed = cli::run(
        &project.root,
        &home,
        &[&["list"][..], &args[..], &["--json"]].concat(),
        None,
    );
    let hooks = cli::json_of(&listed)["hooks"].clone();
    let row = hooks
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["kind"] != "command")
        .unwrap_or_else(|| panic!("no row for the hook's process: {hooks:#}"))
        .clone();
    assert_eq!(
        (
            &row["kind"],
            &row["path"],
            &row["command"],
            &row["dialect"],
            &row["events"],
            &row["commands"]
        ),
        (
            &json!("long-running"),
            &json!(file),
            &json!(watcher),
            &json!("agent-hooks"),
            &json!(["tool_call"]),
            &json!(["/count"])
        ),
        "{row:#}"
    );
    let listed = cli::stdout(&cli::run(
        &project.root,
        &home,
        &[&["list"][..], &args[..]].concat(),
        None,
    ));
    let line = listed
        .lines()
        .find(|l| l.contains("long-running (agent-hooks)"))
        .unwrap_or_else(|| panic!("{listed}"));
    let line = line.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        line.starts_with(
            "long-running (agent-hooks) project configured hooks.json tool_call, /count (pid "
        ) && line.ends_with(&format!("): {watcher}")),
        "{listed}"
    );
    assert!(!listed.contains("plugin "), "{listed}");
}

/// A long-running hook that allocates without end stops at its memory limit (here 64 MiB,
/// from `AGENT_HOOKS_HOOK_MEMORY_MB` in the agent's environment) instead of growing to
/// gigabytes, and the report says which limit it reached and what sets it.
#[test]
fn a_hook_that_allocates_without_end_stops_at_its_memory_limit_and_says_so() {
    let project = Project::new("p");
    let home = agent_hooks_tests::temp_dir();
    // dash keeps a command substitution's output in memory as it grows.
    let command = hostile(
        &project,
        "greedy.sh",
        &format!("x=$(head -c 400000000 /dev/zero | tr '\\0' x); {ANSWER}"),
    );
    let hook = json!({"type": "command", "command": command, "persistent": true, "timeout": 30});
    project.write(
        ".agent-hooks/hooks/greedy.json",
        &json!({"PreToolUse": [{"matcher": "exec", "hooks": [hook]}]}).to_string(),
    );
    let output = Command::new(agent_hooks_tests::agent_hooks_bin())
        .args([
            "emit",
            "PreToolUse",
            "--input",
            r#"{"tool_name": "exec", "tool_input": {"command": "ls"}}"#,
            "--trust-project",
            "--json",
        ])
        .current_dir(&project.root)
        .env("HOME", home.path())
        .env_remove("XDG_CONFIG_HOME")
        .env("AGENT_HOOKS_HOOK_MEMORY_MB", "64")
        .output()
        .expect("the program runs");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        said.contains(
            "it reached its memory limit of 64 MiB, which AGENT_HOOKS_HOOK_MEMORY_MB sets"
        ),
        "{said}"
    );
}

/// The writer threads of long-running hooks still alive in this process (`hook-stdin`).
fn writers_blocked() -> usize {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .flatten()
        .filter(|task| {
            std::fs::read_to_string(task.path().join("comm"))
                .is_ok_and(|c| c.trim() == "hook-stdin")
        })
        .count()
}

/// A hook whose descendant (in a session of its own, reading nothing) keeps the hook's stdin
/// open, and that exits 0.3 s after its hello without reading: the agent's write of a 300 KB
/// event fills the pipe meanwhile.
/// Once the hook's end is known the writer gives up, so no thread stays blocked per restart.
#[test]
fn a_descendant_holding_stdin_leaves_no_writer_blocked_per_restart() {
    if !agent_hooks_tests::alone_in_process(
        module_path!(),
        "a_descendant_holding_stdin_leaves_no_writer_blocked_per_restart",
    ) {
        return;
    }
    let project = Project::new("p");
    let script = r#"#!/bin/sh
exec 3<&0
setsid sleep 1000 <&3 >/dev/null 2>&1 &
read -r hello
echo '{"type":"hello","protocol":1}'
sleep 0.3
exit 0
"#;
    let path = project.script("holder.sh", script);
    let command = agent_hooks::command_hook::shell_quote(&path.to_string_lossy());
    let rig = persistent_rig(&project, &command, 2);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let big = exec(&"x".repeat(300_000));
    for _ in 0..3 {
        let _ = runtime.block_on(rig.runner.emit(&big));
    }
    std::thread::sleep(Duration::from_millis(500));
    let errors = rig.errors.lock().unwrap().clone();
    assert!(!errors.is_empty(), "the hook's end was not reported");
    assert_eq!(writers_blocked(), 0, "{errors:?}");
}

/// A cancelled emit tells the hook: it gets `{"type":"cancel","id":N}` for the event it was
/// deciding, which it may stop; it is not killed, and the next event is answered by the
/// same process.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_emit_tells_the_hook_to_stop_that_event() {
    let project = Project::new("p");
    // The second event is left unanswered: the hook writes down the event's id and the
    // line that comes next.
    let command = hostile(
        &project,
        "cancel.sh",
        r#"here=$(dirname "$0"); n=$(($(cat "$here/n" 2>/dev/null || echo 0) + 1)); echo $n > "$here/n"
  if [ "$n" = 2 ]; then echo "got $id" >> "$here/log"; read -r next; echo "$next" >> "$here/log"
  else printf '{"type":"answer","id":%s}\n' "$id"; fi"#,
    );
    let rig = persistent_rig(&project, &command, 10);
    let (block, errors) = emit_ls(&rig).await;
    assert!(!block && errors.is_empty(), "{errors:?}");
    let cancelled =
        tokio::time::timeout(Duration::from_millis(500), rig.runner.emit(&exec("ls"))).await;
    assert!(cancelled.is_err(), "the hook answered the second event");
    let started = Instant::now();
    while project.read("log").lines().count() < 2 && started.elapsed() < Duration::from_secs(5) {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let log = project.read("log");
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines.len(), 2, "{log}");
    let id = lines[0].strip_prefix("got ").expect("the event's id");
    assert_eq!(lines[1], format!(r#"{{"type":"cancel","id":{id}}}"#));
    // The same process answers the next event: it was told, not killed.
    let (block, errors) = emit_ls(&rig).await;
    assert!(!block && errors.is_empty(), "{errors:?}");
    assert_eq!(starts(&project), 1);
}
