//! pi through the real program: `install --agent pi` writes agent-hooks' extension and
//! nothing else, `uninstall` takes exactly it away (and the folders it made), `list` and
//! `doctor` say whether pi is wired, and `hook --agent pi` reads the request that extension
//! sends (pi's event and tool names) and answers in the form it reads.

use std::{
    io::{BufRead, BufReader, Write},
    os::unix::net::UnixStream,
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use agent_hooks_tests::{
    cli::{stderr, stdout},
    relay_bin,
    rig::{AgentHook, Rig},
};
use serde_json::json;

/// The user-level extension's path.
fn user_extension(rig: &Rig) -> PathBuf {
    rig.home().join(".pi/agent/extensions/agent-hooks.ts")
}

/// A rig whose program has its relay beside it, as `cargo install` lays them out: `install`
/// writes the relay into the extension only when it is there.
fn rig() -> Rig {
    relay_bin();
    Rig::new()
}

/// The command the extension runs: the relay beside the program, quoted.
fn relay_command() -> String {
    format!("'{}' --agent pi", relay_bin().display())
}

#[test]
fn install_writes_the_extension_with_the_program_in_it_and_uninstall_leaves_pi_s_folder_as_it_was()
{
    let rig = rig();
    rig.write("home/.pi/agent/settings.json", "{}\n");
    rig.write(
        "home/.pi/agent/extensions/mine.ts",
        "export default () => {};\n",
    );
    let before = agent_hooks_tests::tree(&rig.home(), |_| false);
    let out = rig.run(&["install", "--agent", "pi"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let extension = user_extension(&rig);
    assert_eq!(
        stdout(&out),
        format!(
            "pi now runs `{}` for 8 events: {}\n\
             pi loads it when it starts (/reload in a running pi); a project's extensions load once pi trusts the project.\n\
             Undo with: agent-hooks uninstall --agent pi\n",
            relay_command(),
            extension.display()
        )
    );
    let text = std::fs::read_to_string(&extension).unwrap();
    assert!(
        text.contains(&format!("const COMMAND = {};", json!(relay_command()))),
        "{text}"
    );
    assert!(text.contains("export default function agentHooks(pi"));
    let out = rig.run(&["uninstall", "--agent", "pi"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with(&format!(
            "pi no longer runs agent-hooks: {}\n",
            extension.display()
        )),
        "{}",
        stdout(&out)
    );
    let after: Vec<_> = agent_hooks_tests::tree(&rig.home(), |_| false)
        .into_iter()
        .filter(|(p, _)| p.starts_with(".pi"))
        .collect();
    let before: Vec<_> = before
        .into_iter()
        .filter(|(p, _)| p.starts_with(".pi"))
        .collect();
    assert_eq!(after, before);
}

#[test]
fn a_project_s_extension_goes_in_its_pi_extensions_and_its_folders_go_with_it() {
    let rig = rig();
    let out = rig.run(&["install", "--agent", "pi", "--project"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let extension = rig.project().join(".pi/extensions/agent-hooks.ts");
    assert!(
        stdout(&out).starts_with(&format!(
            "pi now runs `{}` for 8 events: {}\n",
            relay_command(),
            extension.display()
        )),
        "{}",
        stdout(&out)
    );
    assert!(stdout(&out).ends_with("Undo with: agent-hooks uninstall --agent pi --project\n"));
    assert!(extension.is_file());
    assert!(!user_extension(&rig).exists());
    let out = rig.run(&["uninstall", "--agent", "pi", "--project"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!rig.project().join(".pi").exists());
}

#[test]
fn installing_pi_again_is_a_no_op_that_says_so() {
    let rig = rig();
    assert!(rig.run(&["install", "--agent", "pi"]).status.success());
    let extension = user_extension(&rig);
    let written = std::fs::read_to_string(&extension).unwrap();
    let out = rig.run(&["install", "--agent", "pi"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        format!(
            "pi already runs agent-hooks, installed with these options: {}. Nothing to do.\n",
            extension.display()
        )
    );
    assert_eq!(std::fs::read_to_string(&extension).unwrap(), written);
}

#[test]
fn uninstall_refuses_an_extension_the_user_changed_and_says_what_to_do() {
    let rig = rig();
    assert!(rig.run(&["install", "--agent", "pi"]).status.success());
    let extension = user_extension(&rig);
    let changed = format!("{}// mine\n", std::fs::read_to_string(&extension).unwrap());
    std::fs::write(&extension, &changed).unwrap();
    let out = rig.run(&["uninstall", "--agent", "pi"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        format!(
            "agent-hooks: {} was changed since agent-hooks wrote it; remove it by hand if you no longer want it\n",
            extension.display()
        )
    );
    assert_eq!(std::fs::read_to_string(&extension).unwrap(), changed);
}

#[test]
fn list_and_doctor_say_whether_pi_is_wired() {
    let rig = rig();
    let not_wired = "  pi: not wired (agent-hooks install --agent pi)\n";
    let out = rig.run(&["doctor"]);
    assert!(stdout(&out).contains(not_wired), "{}", stdout(&out));
    assert!(rig.run(&["install", "--agent", "pi"]).status.success());
    let wired = format!(
        "  pi: runs agent-hooks: {}\n",
        user_extension(&rig).display()
    );
    for command in ["list", "doctor"] {
        let out = rig.run(&[command]);
        assert!(stdout(&out).contains(&wired), "{}", stdout(&out));
    }
}

/// A `tool_call` request as pi's extension sends it.
fn tool_call(project: &Path, tool: &str, input: serde_json::Value) -> String {
    json!({
        "hook_event_name": "tool_call",
        "cwd": project,
        "session_id": "019af0c2-5b1e-7000-8000-000000000001",
        "tool_name": tool,
        "tool_input": input,
        "tool_use_id": "toolu_1",
    })
    .to_string()
}

#[test]
fn a_claude_code_guard_on_bash_blocks_pi_s_bash_and_nothing_else() {
    let rig = rig();
    rig.write(
        "home/.claude/settings.json",
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
            "command": "echo 'no shell under this guard' >&2; exit 2"}]}]}}"#,
    );
    let bash = tool_call(&rig.project(), "bash", json!({"command": "ls"}));
    let out = rig.hook("pi", &["--with", "claude"], &bash);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(stderr(&out), "no shell under this guard\n");
    assert_eq!(stdout(&out), "");
    let read = tool_call(&rig.project(), "read", json!({"path": "README.md"}));
    let out = rig.hook("pi", &["--with", "claude"], &read);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "");
    // Without --with, Claude Code's files are not pi's: nothing runs.
    let out = rig.hook("pi", &[], &bash);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn a_rewritten_input_comes_back_in_pi_s_fields_under_pi_s_event_name() {
    let rig = rig();
    let rewrite = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "updatedInput": {"command": "echo safe"}}})
    .to_string();
    rig.write(
        "home/.config/agent-hooks/hooks/rewrite.json",
        &json!({"PreToolUse": [{"matcher": "exec", "hooks": [{"type": "command",
            "command": format!("echo '{rewrite}'")}]}]})
        .to_string(),
    );
    let bash = tool_call(&rig.project(), "bash", json!({"command": "rm -rf /"}));
    let out = rig.hook("pi", &[], &bash);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let answer: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        answer,
        json!({"hookSpecificOutput": {"hookEventName": "tool_call",
            "updatedInput": {"command": "echo safe"}}})
    );
}

#[test]
fn doctor_says_when_the_program_pi_s_extension_runs_is_gone() {
    let rig = rig();
    let out = rig.run(&[
        "install",
        "--agent",
        "pi",
        "--program",
        "/nonexistent/agent-hooks",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = rig.run(&["doctor"]);
    let said = format!(
        "{}: pi's entry runs /nonexistent/agent-hooks, which is gone (uninstalled or moved): pi's events get no hooks",
        user_extension(&rig).display()
    );
    assert!(
        stdout(&out).contains(&said) || stderr(&out).contains(&said),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
}

#[test]
fn a_claude_code_hook_on_write_sees_pi_s_write_with_claude_code_s_fields() {
    let rig = rig();
    rig.write(
        "home/.claude/settings.json",
        r#"{"hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command",
            "command": "p=$(cat); echo \"$p\" | grep -q '\"tool_name\":\"Write\"' && echo \"$p\" | grep -q '\"file_path\":\"notes.txt\"' && { echo 'seen as Write with file_path' >&2; exit 2; }; exit 0"}]}]}}"#,
    );
    let write = tool_call(
        &rig.project(),
        "write",
        json!({"path": "notes.txt", "content": "x"}),
    );
    let out = rig.hook("pi", &["--with", "claude"], &write);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(stderr(&out), "seen as Write with file_path\n");
}

#[test]
fn a_claude_code_hook_s_rewrite_of_write_comes_back_in_pi_s_fields() {
    let rig = rig();
    let rewrite = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "updatedInput": {"file_path": "other.txt", "content": "y"}}})
    .to_string();
    rig.write(
        "home/.claude/settings.json",
        &json!({"hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command",
            "command": format!("echo '{rewrite}'")}]}]}})
        .to_string(),
    );
    let write = tool_call(
        &rig.project(),
        "write",
        json!({"path": "notes.txt", "content": "x"}),
    );
    let out = rig.hook("pi", &["--with", "claude"], &write);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let answer: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        answer,
        json!({"hookSpecificOutput": {"hookEventName": "tool_call",
            "updatedInput": {"path": "other.txt", "content": "y"}}})
    );
}

#[test]
fn install_with_take_over_is_refused_for_pi_which_has_no_hooks_files() {
    let rig = rig();
    let out = rig.run(&["install", "--agent", "pi", "--take-over"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "agent-hooks: install does not apply --take-over: this agent has no hooks files of its own to move under agent-hooks; run install without it\n"
    );
    assert!(!rig.home().join(".pi").exists());
}

#[test]
fn a_native_plugin_s_change_of_a_result_comes_back_whole_for_pi() {
    let rig = rig();
    agent_hooks_tests::copy_to(
        &agent_hooks_tests::plugin("redact-secrets"),
        &rig.user_hooks(),
        "libredact_secrets.so",
    );
    let result = json!({
        "hook_event_name": "tool_result",
        "cwd": rig.project(),
        "session_id": "019af0c2-5b1e-7000-8000-000000000001",
        "tool_name": "read",
        "tool_input": {"path": ".env"},
        "tool_use_id": "toolu_1",
        "tool_response": {"output": "API_KEY=s3cr3t\nDEBUG=1", "is_error": false},
    })
    .to_string();
    let out = rig.hook("pi", &[], &result);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let answer: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        answer,
        json!({"content": [{"type": "text", "text": "API_KEY=[REDACTED]\nDEBUG=1"}]})
    );
    // Under Claude Code the same answer carries no result (it takes none).
    let claude = result
        .replace("\"tool_result\"", "\"PostToolUse\"")
        .replace("\"read\"", "\"Read\"");
    let out = rig.hook("claude", &[], &claude);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "");
}

#[test]
fn a_failed_pi_tool_reaches_hooks_as_post_tool_use_failure_with_its_error() {
    let rig = rig();
    let seen = rig.project().join("failure.json");
    let ran = rig.project().join("post-tool-use-ran");
    rig.write(
        "home/.claude/settings.json",
        &json!({"hooks": {
            "PostToolUseFailure": [{"matcher": "Bash", "hooks": [{"type": "command",
                "command": format!("cat > '{}'; echo 'the model should know' >&2; exit 2", seen.display())}]}],
            "PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
                "command": format!("touch '{}'", ran.display())}]}],
        }})
        .to_string(),
    );
    let failed = json!({
        "hook_event_name": "tool_result (isError)",
        "cwd": rig.project(),
        "session_id": "019af0c2-5b1e-7000-8000-000000000001",
        "tool_name": "bash",
        "tool_input": {"command": "false"},
        "tool_use_id": "toolu_1",
        "error": "\n\nCommand exited with code 1",
        "is_interrupt": false,
    })
    .to_string();
    let out = rig.hook("pi", &["--with", "claude"], &failed);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // The hook's reason for the model, after the failed call's own text (the result pi's
    // extension gives pi in place of its own).
    let answer: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        answer,
        json!({"decision": "block", "reason": "the model should know", "content": [
            {"type": "text", "text": "\n\nCommand exited with code 1"},
            {"type": "text", "text": "the model should know"}]})
    );
    assert!(!ran.exists(), "a PostToolUse hook ran for a failed call");
    let payload: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&seen).unwrap()).unwrap();
    assert_eq!(payload["hook_event_name"], "PostToolUseFailure");
    assert_eq!(payload["tool_name"], "Bash");
    assert_eq!(payload["tool_input"], json!({"command": "false"}));
    assert_eq!(payload["error"], "\n\nCommand exited with code 1");
    assert_eq!(payload["is_interrupt"], false);
    assert_eq!(payload["tool_use_id"], "toolu_1");
}

/// pi's extension as it talks to the resident process's socket: its request sent (the
/// payload's length given, its side of the connection left open), then the lines read one
/// by one and answered as the test says.
struct Client {
    stream: UnixStream,
    reader: BufReader<UnixStream>,
}

impl Client {
    /// Sends `payload` as the extension does, offering a UI whose questions wait
    /// `question_ms` when given.
    fn send(rig: &Rig, payload: &str, question_ms: Option<u64>) -> Client {
        let mut client = Client::connect(rig);
        client.request(rig, payload, question_ms, false);
        client
    }

    /// A connection to the resident process, nothing sent yet.
    fn connect(rig: &Rig) -> Client {
        let socket = rig.resident_folder().join("serve.sock");
        let stream = UnixStream::connect(socket).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        let reader = BufReader::new(stream.try_clone().unwrap());
        Client { stream, reader }
    }

    /// Sends `payload` on this connection, asking to `keep` it for the next request.
    fn request(&mut self, rig: &Rig, payload: &str, question_ms: Option<u64>, keep: bool) {
        let mut header = json!({
            "v": 1, "agent": "pi", "event": null, "with": [], "home": rig.home(),
            "xdg_config_home": null, "cwd": rig.project(), "hooks": [], "no_discover": false,
            "trust_project": false, "required": [], "in_process": false,
            "length": payload.len(),
            "ui": question_ms.map(|ms| json!({"question_ms": ms})),
        });
        if keep {
            header["keep"] = json!(true);
        }
        self.stream
            .write_all(format!("{header}\n{payload}").as_bytes())
            .unwrap();
    }

    /// Whether the resident process closed the connection (nothing more comes).
    fn closed(&mut self) -> bool {
        let mut rest = String::new();
        matches!(self.reader.read_line(&mut rest), Ok(0))
    }

    /// The next line, as JSON.
    fn line(&mut self) -> serde_json::Value {
        let mut line = String::new();
        self.reader.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"))
    }

    fn answer(&mut self, line: &str) {
        self.stream.write_all(line.as_bytes()).unwrap();
    }
}

/// A rig with the `ui-audit` plugin (a `deploy` command is confirmed by the user, its
/// status counts the calls) and its resident process started by a pi event.
fn audited() -> Rig {
    let rig = Rig::new();
    agent_hooks_tests::copy_to(
        &agent_hooks_tests::plugin("ui-audit"),
        &rig.user_hooks(),
        "libui_audit.so",
    );
    let start = json!({"hook_event_name": "session_start", "cwd": rig.project(),
        "session_id": "019af0c2-5b1e-7000-8000-000000000001", "source": "startup"});
    let out = agent_hooks_tests::cli::output_with(
        &mut agent_hooks_tests::rig::Resident::command(&rig, &["hook", "--agent", "pi"]),
        &start.to_string(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    rig
}

fn deploy(rig: &Rig) -> String {
    tool_call(&rig.project(), "bash", json!({"command": "deploy prod"}))
}

fn status_frame(n: u32) -> serde_json::Value {
    json!({"ui": {"call": "set_status", "key": "audit", "text": format!("{n} call(s) audited")}})
}

fn confirm_frame(ms: u64) -> serde_json::Value {
    json!({"ui": {"call": "confirm", "id": 1, "title": "Deploy", "message": "Run `deploy prod`?", "timeout_ms": ms}})
}

fn serve_log(rig: &Rig) -> String {
    std::fs::read_to_string(rig.resident_folder().join("serve.log")).unwrap_or_default()
}

#[test]
fn a_plugin_s_confirm_reaches_a_client_with_a_ui_and_its_answer_decides_the_call() {
    let rig = audited();
    for (n, yes) in [(1, true), (2, false)] {
        let mut client = Client::send(&rig, &deploy(&rig), Some(5000));
        assert_eq!(client.line(), status_frame(n));
        assert_eq!(client.line(), confirm_frame(5000));
        client.answer(&format!("{}\n", json!({"id": 1, "answer": yes})));
        let said = if yes {
            "deploy allowed"
        } else {
            "deploy refused"
        };
        assert_eq!(
            client.line(),
            json!({"ui": {"call": "notify", "message": said, "level": "warning"}})
        );
        let reply = client.line();
        if yes {
            assert_eq!(reply, json!({"code": 0, "stdout": "", "stderr": ""}));
        } else {
            assert_eq!(
                reply,
                json!({"code": 2, "stdout": "", "stderr": "refused by the user\n"})
            );
        }
    }
}

#[test]
fn without_a_ui_offered_a_plugin_gets_the_no_ui_answers_and_no_frame_is_sent() {
    let rig = audited();
    let mut client = Client::send(&rig, &deploy(&rig), None);
    assert_eq!(
        client.line(),
        json!({"code": 2, "stdout": "", "stderr": "deploy needs a user, and there is no UI\n"})
    );
}

#[test]
fn a_client_that_never_answers_gets_the_no_ui_answer_at_its_time() {
    let rig = audited();
    let since = Instant::now();
    let mut client = Client::send(&rig, &deploy(&rig), Some(300));
    assert_eq!(client.line(), status_frame(1));
    assert_eq!(client.line(), confirm_frame(300));
    assert_eq!(
        client.line(),
        json!({"ui": {"call": "notify", "message": "deploy refused", "level": "warning"}})
    );
    assert_eq!(
        client.line(),
        json!({"code": 2, "stdout": "", "stderr": "refused by the user\n"})
    );
    // Its time and the grace for its answer line, no more.
    assert!(since.elapsed() >= Duration::from_millis(2300));
    assert!(since.elapsed() < Duration::from_secs(20));
    assert!(
        serve_log(&rig).contains(
            "agent-hooks serve: UI: no answer to the confirm question within its time; the no-UI answer stands\n"
        ),
        "{}",
        serve_log(&rig)
    );
}

#[test]
fn a_client_that_answers_garbage_gets_the_no_ui_answer_and_the_log_says_why() {
    let rig = audited();
    for (garbage, why) in [
        (
            "yes please\n",
            "not an answer line (expected value at line 1 column 1)",
        ),
        (
            "{\"id\": 1, \"answer\": \"yes\"}\n",
            "answer \"yes\" does not fit a confirm question",
        ),
    ] {
        let mut client = Client::send(&rig, &deploy(&rig), Some(5000));
        client.line();
        assert_eq!(client.line(), confirm_frame(5000));
        client.answer(garbage);
        assert_eq!(
            client.line(),
            json!({"ui": {"call": "notify", "message": "deploy refused", "level": "warning"}})
        );
        assert_eq!(
            client.line(),
            json!({"code": 2, "stdout": "", "stderr": "refused by the user\n"})
        );
        let said = format!(
            "agent-hooks serve: UI: the client's answer to the confirm question is unreadable: {why}; the no-UI answer stands\n"
        );
        assert!(serve_log(&rig).contains(&said), "{}", serve_log(&rig));
    }
}

#[test]
fn a_client_gone_mid_question_gets_the_no_ui_answer_and_the_next_event_is_answered() {
    let rig = audited();
    let mut client = Client::send(&rig, &deploy(&rig), Some(5000));
    client.line();
    assert_eq!(client.line(), confirm_frame(5000));
    client.stream.shutdown(std::net::Shutdown::Both).unwrap();
    drop(client);
    let mut next = Client::send(&rig, &deploy(&rig), None);
    assert_eq!(
        next.line(),
        json!({"code": 2, "stdout": "", "stderr": "deploy needs a user, and there is no UI\n"})
    );
    assert!(
        serve_log(&rig).contains(
            "agent-hooks serve: UI: the client closed the connection before it answered the confirm question; no-UI answers for the rest of the call\n"
        ),
        "{}",
        serve_log(&rig)
    );
}

#[test]
fn a_kept_connection_answers_each_event_in_turn_with_its_ui_frames() {
    let rig = audited();
    let mut client = Client::connect(&rig);
    client.request(&rig, &deploy(&rig), Some(5000), true);
    assert_eq!(client.line(), status_frame(1));
    assert_eq!(client.line(), confirm_frame(5000));
    client.answer(&format!("{}\n", json!({"id": 1, "answer": true})));
    assert_eq!(
        client.line(),
        json!({"ui": {"call": "notify", "message": "deploy allowed", "level": "warning"}})
    );
    assert_eq!(
        client.line(),
        json!({"code": 0, "stdout": "", "stderr": "", "keep": true})
    );
    // An answer the client sent as the call was answered (a dialog it closed late) is
    // passed over, and the next event on the connection is answered.
    client.answer(&format!("{}\n", json!({"id": 1, "answer": null})));
    client.request(&rig, &deploy(&rig), None, true);
    assert_eq!(
        client.line(),
        json!({"code": 2, "stdout": "", "stderr": "deploy needs a user, and there is no UI\n", "keep": true})
    );
    let ls = tool_call(&rig.project(), "bash", json!({"command": "ls"}));
    client.request(&rig, &ls, Some(5000), true);
    assert_eq!(client.line(), status_frame(3));
    assert_eq!(
        client.line(),
        json!({"code": 0, "stdout": "", "stderr": "", "keep": true})
    );
    // Without `keep`, the answer is the last line of the connection.
    client.request(&rig, &ls, None, false);
    assert_eq!(
        client.line(),
        json!({"code": 0, "stdout": "", "stderr": ""})
    );
    assert!(client.closed());
}

#[test]
fn a_kept_connection_that_sends_garbage_is_answered_with_the_error_and_closed() {
    let rig = audited();
    let mut client = Client::connect(&rig);
    let ls = tool_call(&rig.project(), "bash", json!({"command": "ls"}));
    client.request(&rig, &ls, None, true);
    assert_eq!(client.line()["keep"], json!(true));
    client.answer("not a header\n");
    let reply = client.line();
    assert_eq!(reply["code"], json!(1), "{reply}");
    assert!(
        reply["stderr"]
            .as_str()
            .unwrap_or_default()
            .starts_with("agent-hooks serve: the request's header is not readable: "),
        "{reply}"
    );
    assert_eq!(reply.get("keep"), None);
    assert!(client.closed());
    // The resident process serves the next connection.
    let mut next = Client::send(&rig, &ls, None);
    assert_eq!(next.line(), json!({"code": 0, "stdout": "", "stderr": ""}));
}

#[test]
fn a_kept_connection_is_closed_when_the_resident_process_gives_way() {
    let rig = audited();
    let mut client = Client::connect(&rig);
    let ls = tool_call(&rig.project(), "bash", json!({"command": "ls"}));
    client.request(&rig, &ls, None, true);
    assert_eq!(client.line()["keep"], json!(true));
    // A client of another version: the resident process gives way to it.
    let socket = rig.resident_folder().join("serve.sock");
    let mut other = UnixStream::connect(&socket).unwrap();
    let header = json!({
        "v": 1, "agent": "pi", "event": null, "with": [], "home": rig.home(),
        "xdg_config_home": null, "cwd": rig.project(), "hooks": [], "no_discover": false,
        "trust_project": false, "required": [], "in_process": false,
        "program": "0.0.0-other", "length": ls.len(),
    });
    other
        .write_all(format!("{header}\n{ls}").as_bytes())
        .unwrap();
    let mut refusal = String::new();
    BufReader::new(other).read_line(&mut refusal).unwrap();
    assert!(refusal.contains("\"gave_way\""), "{refusal}");
    // The kept connection, idle, is closed (the process does not wait on it to end).
    let since = Instant::now();
    assert!(client.closed());
    assert!(since.elapsed() < Duration::from_secs(5));
}
