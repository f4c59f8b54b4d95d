//! Nothing started on a hook's behalf outlives the agent: the
//! real program, real plugins, real processes, looked for in `/proc` after the program ended.

use std::{
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use agent_hooks_tests::{
    cli::{command, json_of, run, stdout},
    commands::Project,
    copy_to, pid_alive, plugin, survivors, temp_dir,
};

/// How many times the `exec` race is run: `AGENT_HOOKS_EXEC_RACE_RUNS` (the documented
/// command uses 100), else 10.
fn race_runs() -> usize {
    std::env::var("AGENT_HOOKS_EXEC_RACE_RUNS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(10)
}

/// A project with the hostile plugin, whose handler deadline is 300 ms (in the user's
/// settings under `home`).
fn hostile_project(home: &std::path::Path) -> Project {
    let project = Project::new("repo");
    let hooks = project.root.join(".agent-hooks/hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    copy_to(&plugin("hostile"), &hooks, "libhostile.so");
    let config = home.join(".config/agent-hooks");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("settings.json"),
        r#"{"plugins": {"libhostile.so": {"handler_timeout": 0.3}}}"#,
    )
    .unwrap();
    project
}

/// The `exec` race: a handler `exec`s `sh -c 'exec sleep 100'` and waits; at its deadline its
/// plugin process is killed, and the program must be gone as soon as `agent-hooks emit` has
/// exited, every time. Run 100 times with
/// `AGENT_HOOKS_EXEC_RACE_RUNS=100 cargo test -p agent-hooks-tests --test all keeper::the_exec_race`.
#[test]
fn the_exec_race_leaves_no_program_running_after_emit_exits() {
    let home = temp_dir();
    let project = hostile_project(home.path());
    let input = r#"{"tool_name": "exec", "input": {"fault": "exec_sleep"}}"#;
    let mut left = Vec::new();
    let runs = race_runs();
    // A round whose program had not started by the deadline (a loaded machine) proves
    // nothing: it is run again, up to as many extra rounds as there are runs.
    let mut started = 0;
    for round in 0..2 * runs {
        if started == runs {
            break;
        }
        let _ = std::fs::remove_file(project.root.join("exec-pid"));
        let output = run(
            &project.root,
            home.path(),
            &[
                "emit",
                "tool_call",
                "--input",
                input,
                "--trust-project",
                "--json",
            ],
            None,
        );
        assert!(
            stdout(&output).contains("did not answer tool_call within 300ms"),
            "run {round}: {}",
            stdout(&output)
        );
        let pid = project.read("exec-pid").trim().to_owned();
        if pid.is_empty() {
            // Nor later: a program that starts after emit exited escaped the keeper.
            std::thread::sleep(Duration::from_millis(500));
            let late = project.read("exec-pid").trim().to_owned();
            if !late.is_empty() {
                left.push((round, late));
            }
            continue;
        }
        started += 1;
        // At once, not after a grace: the agent killed it before it exited.
        if pid_alive(&pid) {
            left.push((round, pid));
        }
    }
    let still: Vec<_> = survivors(left.iter().map(|(_, pid)| pid.as_str()));
    for pid in &still {
        let _ = std::process::Command::new("kill")
            .args(["-9", pid])
            .status();
    }
    assert_eq!(
        started,
        runs,
        "the program started before the deadline in {started} of {} rounds",
        2 * runs
    );
    assert!(
        left.is_empty(),
        "{} of {runs} runs left the program running after emit exited: {left:?} (still alive 2 s later: {still:?})",
        left.len()
    );
}

/// A command hook that leaves a background child and a `setsid` escapee, then answers (or,
/// with `then`, runs it first: `sleep 30` keeps the agent waiting).
fn leaves_two(project: &Project, then: &str) {
    let command = format!(
        "sleep 100 & echo $! > bg-pid; setsid sh -c 'echo $$ > escapee-pid; exec sleep 100' & sleep 0.3; {then} echo '{{}}'"
    );
    guard(project, &command);
}

/// The project's one hook: `command`, on `PreToolUse` of `exec`, within 60 s.
fn guard(project: &Project, command: &str) {
    let hook = serde_json::json!({"type": "command", "command": command, "timeout": 60});
    project.write(
        ".agent-hooks/hooks/guard.json",
        &serde_json::json!({"PreToolUse": [{"matcher": "exec", "hooks": [hook]}]}).to_string(),
    );
}

/// `agent-hooks emit` of `input` as `event`, started and not waited for.
fn agent(project: &Project, home: &std::path::Path, event: &str, input: &str) -> Child {
    agent_with(project, home, event, input, &[])
}

/// [`agent`] with the options `extra` after the others.
fn agent_with(
    project: &Project,
    home: &std::path::Path,
    event: &str,
    input: &str,
    extra: &[&str],
) -> Child {
    Command::new(agent_hooks_tests::agent_hooks_bin())
        .args(["emit", event, "--input", input, "--trust-project", "--json"])
        .args(extra)
        .current_dir(&project.root)
        .env("HOME", home)
        .env_remove("XDG_CONFIG_HOME")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the program runs")
}

const PRE_TOOL_USE: &str = r#"{"tool_name": "exec", "tool_input": {"command": "ls"}}"#;

/// `agent-hooks emit` of [`PRE_TOOL_USE`], the project trusted, the outcome as JSON.
const EMIT_PRE_TOOL_USE: [&str; 6] = [
    "emit",
    "PreToolUse",
    "--input",
    PRE_TOOL_USE,
    "--trust-project",
    "--json",
];

/// The keeper's token of the agent that started `pid` (read from its environment; read
/// again for up to 2 s, as a process in the middle of `exec` shows an empty one).
fn token_of(pid: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
        let token = environ
            .split(|&b| b == 0)
            .filter_map(|v| std::str::from_utf8(v).ok())
            .find(|v| v.starts_with("AGENT_HOOKS_KEEPER="))
            .map(str::to_owned);
        match token {
            Some(token) => return token,
            None if Instant::now() > deadline => panic!("{pid} has no keeper token"),
            None => std::thread::sleep(Duration::from_millis(10)),
        }
    }
}

/// The live processes whose environment holds `token`.
fn carrying(token: &str) -> Vec<String> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.bytes().all(|b| b.is_ascii_digit()))
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ"))
                .is_ok_and(|env| env.split(|&b| b == 0).any(|v| v == token.as_bytes()))
        })
        .filter(|pid| pid_alive(pid))
        .collect()
}

/// Waits up to 1 s for every process carrying `token` to be gone; those left (then killed).
fn left_after_a_second(token: &str) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(1);
    loop {
        let left = carrying(token);
        if left.is_empty() || Instant::now() > deadline {
            for pid in &left {
                let _ = Command::new("kill").args(["-9", pid]).status();
            }
            return left;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn wait_for(project: &Project, file: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let text = project.read(file).trim().to_owned();
        if !text.is_empty() {
            return text;
        }
        assert!(Instant::now() < deadline, "{file} never written");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A command hook that closes its outputs and goes on: its end is still its exit, not its
/// pipes' close (what it wrote before is kept, and its exit code decides).
#[test]
fn a_hook_that_closes_its_outputs_early_is_waited_for_to_its_exit() {
    let home = temp_dir();
    let project = Project::new("repo");
    guard(
        &project,
        "echo 'closed early' >&2; exec >&- 2>&-; sleep 0.4; exit 2",
    );
    let started = Instant::now();
    let output = run(&project.root, home.path(), &EMIT_PRE_TOOL_USE, None);
    assert!(started.elapsed() >= Duration::from_millis(400));
    assert_eq!(output.status.code(), Some(0));
    let outcome = json_of(&output);
    assert_eq!(outcome["block"], true, "{outcome}");
    assert_eq!(outcome["reason"], "closed early");
}

/// A keeper program that does not serve this agent (of another version, of the one-socket
/// protocol before version 2, not a keeper, ended, or silent for 3 s): the user is told which
/// program, why, and what to do; the hooks still run, kept by the shell keeper; the program
/// is not left running.
#[test]
fn a_keeper_program_of_another_version_is_reported_and_the_hooks_still_run() {
    let cases = [
        (
            r"printf 'K\011'; exec cat > /dev/null",
            "is of another version of agent-hooks (it speaks version 9 of the keeper's protocol, this agent speaks version 2)",
        ),
        (
            "printf K >&0; exec cat > /dev/null",
            "is of an earlier version of agent-hooks (it speaks the keeper's protocol over one socket, this agent over two)",
        ),
        ("echo hello", "is not a keeper (it wrote something other than a keeper's hello)"),
        ("exit 0", "ended before it said it serves"),
        ("exec sleep 100", "did not say it serves within 3s"),
    ];
    for (script, why) in cases {
        // A silent program is waited for 3 s; the others are told apart at once.
        let within = if script.contains("sleep") { 5 } else { 2 };
        let home = temp_dir();
        let project = Project::new("repo");
        guard(&project, "echo 'no' >&2; exit 2");
        let program = project.root.join("old-agent-hooks");
        let pid_file = project.root.join("keeper-pid");
        std::fs::write(
            &program,
            format!("#!/bin/sh\necho $$ > '{}'\n{script}\n", pid_file.display()),
        )
        .unwrap();
        std::fs::set_permissions(
            &program,
            std::os::unix::fs::PermissionsExt::from_mode(0o755),
        )
        .unwrap();
        let mut agent = command(&project.root, home.path(), &EMIT_PRE_TOOL_USE);
        agent.env("AGENT_HOOKS_PLUGIN_HOST", &program);
        let started = Instant::now();
        let output = agent.output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        let expected = format!(
            "the keeper of processes started for hooks did not start: {} {why}; the shell keeper runs instead, which ends those processes with the agent only while they keep its mark in their environment (docs/keeper.md). Install the agent-hooks command of this agent's version beside it, or set AGENT_HOOKS_PLUGIN_HOST to one",
            program.display()
        );
        assert!(stderr.contains(&expected), "{script}: {stderr}");
        assert!(
            started.elapsed() < Duration::from_secs(within),
            "{script}: told within {within} s, not after {:?}",
            started.elapsed()
        );
        let outcome = json_of(&output);
        assert_eq!(outcome["block"], true, "{script}: {outcome}");
        assert_eq!(outcome["reason"], "no");
        let keeper = std::fs::read_to_string(&pid_file).unwrap();
        assert!(
            !alive_after_a_second(keeper.trim()),
            "{script}: the keeper program {keeper} was left running"
        );
    }
}

/// A normal exit of the agent: the background child and the `setsid` escapee of a command
/// hook that answered (alive when the agent exits) are gone within a second.
#[test]
fn nothing_a_hook_started_outlives_a_normal_exit_of_the_agent() {
    let home = temp_dir();
    let project = Project::new("repo");
    leaves_two(&project, "");
    let mut agent = agent(&project, home.path(), "PreToolUse", PRE_TOOL_USE);
    let background = wait_for(&project, "bg-pid");
    let escapee = wait_for(&project, "escapee-pid");
    let token = token_of(&escapee);
    assert_eq!(token_of(&background), token);
    assert!(agent.wait().unwrap().success());
    assert_eq!(left_after_a_second(&token), Vec::<String>::new());
}

/// The agent killed by SIGTERM, then by SIGKILL, (a) while a command hook runs that left a
/// background child and a `setsid` escapee, (b) while a plugin waits in `exec` for a
/// program: every process started on their behalf (the hook's shell and children, the
/// plugin process and its program) is gone within a second.
#[test]
fn nothing_a_hook_started_outlives_an_agent_killed_by_sigterm_or_sigkill() {
    for signal in ["-TERM", "-KILL"] {
        let home = temp_dir();
        let project = hostile_project(home.path());
        std::fs::write(
            home.path().join(".config/agent-hooks/settings.json"),
            r#"{"plugins": {"libhostile.so": {"handler_timeout": 30}}}"#,
        )
        .unwrap();
        leaves_two(&project, "sleep 30;");
        let busy_hook = agent(&project, home.path(), "PreToolUse", PRE_TOOL_USE);
        let escapee = wait_for(&project, "escapee-pid");
        let exec_input = r#"{"tool_name": "exec", "input": {"fault": "exec_sleep"}}"#;
        let busy_plugin = agent(&project, home.path(), "tool_call", exec_input);
        let program = wait_for(&project, "exec-pid");
        for (mut agent, pid, at_least) in [(busy_hook, escapee, 4), (busy_plugin, program, 2)] {
            let token = token_of(&pid);
            let before = carrying(&token);
            // The hook's shell, its sleep, its two; or the plugin process and its program.
            assert!(before.len() >= at_least, "{signal}: {before:?}");
            end_by_signal(&mut agent, signal);
            assert_eq!(
                left_after_a_second(&token),
                Vec::<String>::new(),
                "{signal}: of {before:?}"
            );
        }
    }
}

/// Sends the agent `signal` (`-TERM`, `-KILL`) and waits for it to end.
fn end_by_signal(agent: &mut Child, signal: &str) {
    let killed = Command::new("kill")
        .args([signal, &agent.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success(), "kill {signal}");
    let _ = agent.wait();
}

/// The parent of `pid`, from `/proc/<pid>/stat`.
fn parent_of(pid: &str) -> String {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let rest = stat.rsplit_once(')').map(|(_, rest)| rest).unwrap_or("");
    rest.split_whitespace().nth(1).unwrap_or("").to_owned()
}

/// Waits up to 1 s for `pid` to be gone; whether it still runs (then it is killed).
fn alive_after_a_second(pid: &str) -> bool {
    let deadline = Instant::now() + Duration::from_secs(1);
    while pid_alive(pid) {
        if Instant::now() > deadline {
            let _ = Command::new("kill").args(["-9", pid]).status();
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// The gap the token keeper left, closed by the subreaper: a command hook's child that
/// clears its environment (`env -i`, so it carries no token) and leaves its group and
/// session (`setsid`). Once the hook's shell has exited, the escapee's parent is the keeper
/// (not init, not the agent); it is gone within a second of the agent's end, for a normal
/// exit, SIGTERM and SIGKILL.
#[test]
fn an_escapee_with_a_cleared_environment_outside_its_group_does_not_outlive_the_agent() {
    for end in ["exit", "-TERM", "-KILL"] {
        let home = temp_dir();
        let project = Project::new("repo");
        // After the first hook answered, the agent waits for a second one that sleeps.
        let command =
            "setsid env -i /bin/sh -c 'echo $$ > clean-pid; exec sleep 100' & sleep 0.3; echo '{}'";
        let hook = serde_json::json!({"type": "command", "command": command, "timeout": 60});
        let slow =
            serde_json::json!({"type": "command", "command": "sleep 2; echo '{}'", "timeout": 60});
        let hooks = vec![hook, slow];
        project.write(
            ".agent-hooks/hooks/guard.json",
            &serde_json::json!({"PreToolUse": [{"matcher": "exec", "hooks": hooks}]}).to_string(),
        );
        let mut agent = agent(&project, home.path(), "PreToolUse", PRE_TOOL_USE);
        let escapee = wait_for(&project, "clean-pid");
        let environ = std::fs::read(format!("/proc/{escapee}/environ")).unwrap_or_default();
        assert!(
            !environ.windows(18).any(|w| w == b"AGENT_HOOKS_KEEPER"),
            "{end}: the escapee carries the token"
        );
        // Its shell exits (at once after `exec sleep`, the outer one after the echo): the
        // escapee is reparented to the keeper.
        let deadline = Instant::now() + Duration::from_secs(10);
        let keeper = loop {
            let parent = parent_of(&escapee);
            if parent != "1"
                && parent != agent.id().to_string()
                && std::fs::read_to_string(format!("/proc/{parent}/cmdline"))
                    .is_ok_and(|c| c.contains("agent-hooks"))
            {
                break parent;
            }
            assert!(
                Instant::now() < deadline,
                "{end}: the escapee's parent is {parent} (the agent is {})",
                agent.id()
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        assert_eq!(parent_of(&keeper), agent.id().to_string(), "{end}");
        if end == "exit" {
            assert!(agent.wait().unwrap().success());
        } else {
            end_by_signal(&mut agent, end);
        }
        assert!(
            !alive_after_a_second(&escapee),
            "{end}: the escapee {escapee} outlived the agent (its keeper was {keeper})"
        );
        assert!(
            !alive_after_a_second(&keeper),
            "{end}: the keeper {keeper} outlived the agent"
        );
    }
}

/// A long-running guard in Python, run as `python3 guard.py MODE` (so under `/bin/sh -c`;
/// where `/bin/sh` is dash, `sh` stays the parent of the Python process). On its first event
/// it writes its pid to `python-pid`, starts a background child (`bg-pid`) and one in a
/// session of its own (`escapee-pid`); then, in mode `block`, it sleeps inside the event for
/// good; in mode `answer`, it answers once the file `go` exists.
const GUARD: &str = r#"import json, os, subprocess, sys, time

def note(name, pid):
    with open(name + ".tmp", "w") as f:
        f.write(str(pid))
    os.rename(name + ".tmp", name)

sys.stdin.readline()
print(json.dumps({"type": "hello", "protocol": 1, "name": "guard"}), flush=True)
for line in sys.stdin:
    message = json.loads(line)
    if message.get("type") != "event":
        continue
    background = subprocess.Popen(["sleep", "100"])
    escapee = subprocess.Popen(["sleep", "100"], start_new_session=True)
    note("bg-pid", background.pid)
    note("escapee-pid", escapee.pid)
    note("python-pid", os.getpid())
    if sys.argv[1] == "block":
        while True:
            time.sleep(1000)
    while not os.path.exists("go"):
        time.sleep(0.01)
    print(json.dumps({"type": "answer", "id": message["id"]}), flush=True)
"#;

/// A project whose `PreToolUse` hook on `exec` is [`GUARD`], long-running, in `mode`; `None`
/// (said on stderr) when `python3` is not installed.
fn python_guard(mode: &str) -> Option<Project> {
    let present = Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !present {
        eprintln!("skipped: python3 is not installed");
        return None;
    }
    let project = Project::new("repo");
    project.write("guard.py", GUARD);
    let hook = serde_json::json!({"type": "command", "command": format!("python3 guard.py {mode}"),
                                  "persistent": true, "timeout": 60});
    project.write(
        ".agent-hooks/hooks/guard.json",
        &serde_json::json!({"PreToolUse": [{"matcher": "exec", "hooks": [hook]}]}).to_string(),
    );
    Some(project)
}

/// The guard's processes, once it is inside its event: its Python process, whose parent
/// must be the hook's `sh` (the case where the kernel's death signal of the hook's first
/// process would reach `sh`, not Python), and the keeper's token they all carry, with every
/// process that carries it: the hook's `sh`, Python, its two children (at least).
fn guard_in_its_event(project: &Project) -> (String, String, Vec<String>) {
    let background = wait_for(project, "bg-pid");
    let escapee = wait_for(project, "escapee-pid");
    let python = wait_for(project, "python-pid");
    let shell = parent_of(&python);
    let command = std::fs::read_to_string(format!("/proc/{shell}/cmdline")).unwrap_or_default();
    let words: Vec<&str> = command.split('\0').collect();
    assert!(
        words.len() > 2
            && words[0].rsplit('/').next() == Some("sh")
            && words[1] == "-c"
            && words[2].starts_with("python3 guard.py"),
        "the parent of Python ({python}) is {shell}: {command:?}"
    );
    let token = token_of(&python);
    let before = carrying(&token);
    for pid in [&shell, &python, &background, &escapee] {
        assert!(before.contains(pid), "{pid} not among {before:?}");
        assert_eq!(token_of(pid), token);
    }
    (python, token, before)
}

/// A long-running hook busy in an event (`sh -c 'python3 guard.py'`, which sleeps inside the
/// event and started a background child and a `setsid` one) when the agent is killed by
/// SIGTERM, then by SIGKILL: every process that carries the keeper's token, and the Python
/// process, is gone within a second.
#[test]
fn a_long_running_hook_busy_in_an_event_does_not_outlive_an_agent_killed_by_sigterm_or_sigkill() {
    for signal in ["-TERM", "-KILL"] {
        let home = temp_dir();
        let Some(project) = python_guard("block") else {
            return;
        };
        let mut agent = agent(&project, home.path(), "PreToolUse", PRE_TOOL_USE);
        let (python, token, before) = guard_in_its_event(&project);
        // The agent still waits for the guard's answer.
        assert!(agent.try_wait().unwrap().is_none(), "{signal}");
        end_by_signal(&mut agent, signal);
        assert_eq!(
            left_after_a_second(&token),
            Vec::<String>::new(),
            "{signal}: of {before:?}"
        );
        assert!(
            !alive_after_a_second(&python),
            "{signal}: the guard's Python process {python} outlived the agent"
        );
    }
}

/// A normal exit of the agent after a long-running hook answered: the hook's process (its
/// `sh` and Python), its background child and its `setsid` child are gone within a second.
#[test]
fn a_long_running_hook_that_answered_does_not_outlive_a_normal_exit_of_the_agent() {
    let home = temp_dir();
    let Some(project) = python_guard("answer") else {
        return;
    };
    let mut agent = agent(&project, home.path(), "PreToolUse", PRE_TOOL_USE);
    let (python, token, before) = guard_in_its_event(&project);
    project.write("go", "");
    let status = agent.wait().unwrap();
    assert!(status.success(), "{status:?}");
    assert_eq!(
        left_after_a_second(&token),
        Vec::<String>::new(),
        "of {before:?}"
    );
    assert!(
        !alive_after_a_second(&python),
        "the guard's Python process {python} outlived the agent"
    );
}

/// A plugin loaded into the agent's process (`--in-process`) that waits in `exec` for a
/// program when the agent is killed by SIGTERM, then by SIGKILL: the program is gone within
/// a second.
#[test]
fn a_program_an_in_process_plugin_waits_for_does_not_outlive_an_agent_killed_by_sigterm_or_sigkill()
{
    for signal in ["-TERM", "-KILL"] {
        let home = temp_dir();
        let project = hostile_project(home.path());
        std::fs::write(
            home.path().join(".config/agent-hooks/settings.json"),
            r#"{"plugins": {"libhostile.so": {"handler_timeout": 30}}}"#,
        )
        .unwrap();
        let input = r#"{"tool_name": "exec", "input": {"fault": "exec_sleep"}}"#;
        let mut agent = agent_with(&project, home.path(), "tool_call", input, &["--in-process"]);
        let program = wait_for(&project, "exec-pid");
        let token = token_of(&program);
        // In process: no plugin process, so the program is the only one with the token.
        let before = carrying(&token);
        assert_eq!(before, vec![program.clone()], "{signal}");
        assert!(agent.try_wait().unwrap().is_none(), "{signal}");
        end_by_signal(&mut agent, signal);
        assert!(
            !alive_after_a_second(&program),
            "{signal}: the program {program} outlived the agent"
        );
        assert_eq!(
            left_after_a_second(&token),
            Vec::<String>::new(),
            "{signal}"
        );
    }
}

/// `doctor` says which keeper is in force: the subreaper keeper, the program itself, or the
/// shell keeper, with the warning of a keeper program that does not serve as a problem (and
/// exit code 1), in text and in JSON.
#[test]
fn doctor_says_which_keeper_is_in_force() {
    let home = temp_dir();
    let project = Project::new("repo");
    let doctor = |host: Option<&std::path::Path>, json: bool| {
        let mut args = vec!["doctor"];
        if json {
            args.push("--json");
        }
        let mut doctor = command(&project.root, home.path(), &args);
        match host {
            Some(program) => doctor.env("AGENT_HOOKS_PLUGIN_HOST", program),
            None => doctor.env_remove("AGENT_HOOKS_PLUGIN_HOST"),
        };
        doctor.output().unwrap()
    };
    let program = agent_hooks_tests::agent_hooks_bin();
    let out = doctor(None, false);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let lines = stdout(&out);
    let line = format!(
        "Keeper\n  the subreaper keeper ({}): whatever a hook starts ends with the agent\n",
        program.display()
    );
    assert!(lines.contains(&line), "{lines}");
    assert_eq!(
        json_of(&doctor(None, true))["keeper"],
        serde_json::json!({"keeper": "subreaper", "program": program})
    );

    let not_a_keeper = home.path().join("not-a-keeper");
    std::fs::write(&not_a_keeper, "#!/bin/sh\necho hello\n").unwrap();
    agent_hooks_tests::set_mode(&not_a_keeper, 0o755);
    let out = doctor(Some(&not_a_keeper), false);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let lines = stdout(&out);
    assert!(
        lines.contains("Keeper\n  the shell keeper (the keeper program found does not serve (see Problems)): a process a hook starts ends with the agent only while it keeps AGENT_HOOKS_KEEPER in its environment (docs/keeper.md)\n"),
        "{lines}"
    );
    let problem = format!(
        "  ✗ the keeper of processes started for hooks did not start: {} is not a keeper (it wrote something other than a keeper's hello); the shell keeper runs instead",
        not_a_keeper.display()
    );
    assert!(lines.contains(&problem), "{lines}");
    let report = json_of(&doctor(Some(&not_a_keeper), true));
    assert_eq!(report["keeper"]["keeper"], "shell");
    assert!(report["keeper"]["unserved"]
        .as_str()
        .is_some_and(|w| w.contains("is not a keeper")));
}
