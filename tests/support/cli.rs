//! Running the `agent-hooks` program as a real process, with a private HOME.

use std::{
    path::Path,
    process::{Command, Output, Stdio},
    time::{Duration, Instant},
};

use serde_json::Value;

use crate::agent_hooks_bin;

/// The program with `args`, in `cwd`, with a private HOME; not started (for a test that sets
/// more of its environment).
pub fn command(cwd: &Path, home: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(agent_hooks_bin());
    command
        .args(args)
        .current_dir(cwd)
        .env("HOME", home)
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_STATE_HOME")
        .env("NO_COLOR", "1");
    command
}

/// Runs the program in `cwd` with a private HOME (so the user's own hooks stay out), with
/// `stdin` as its input when given; checks that no Rust panic reached the user.
pub fn run(cwd: &Path, home: &Path, args: &[&str], stdin: Option<&str>) -> Output {
    let mut command = command(cwd, home, args);
    let output = match stdin {
        None => command.output().expect("the program runs"),
        Some(text) => output_with(&mut command, text),
    };
    no_panic(&output);
    output
}

/// Runs `command` with `stdin` as its input, and gives its output.
pub fn output_with(command: &mut Command, stdin: &str) -> Output {
    use std::io::Write;
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the program runs");
    child
        .stdin
        .take()
        .expect("its stdin")
        .write_all(stdin.as_bytes())
        .expect("write its stdin");
    child.wait_with_output().expect("wait for the program")
}

/// Runs the program with a stdin that stays open and never gets a byte (like a terminal
/// nobody types in), and fails the test if it has not ended within `limit`.
pub fn run_within(cwd: &Path, home: &Path, args: &[&str], limit: Duration) -> Output {
    let mut child = command(cwd, home, args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the program runs");
    let stdin = child.stdin.take();
    let started = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if started.elapsed() > limit {
            let _ = child.kill();
            let output = child.wait_with_output().expect("wait");
            panic!(
                "agent-hooks {args:?} hung for more than {limit:?}:\n{}",
                stdout(&output)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(stdin);
    let output = child.wait_with_output().expect("wait");
    no_panic(&output);
    output
}

fn no_panic(output: &Output) {
    let all = format!(
        "{}{}",
        stdout(output),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        !all.contains("panicked at") || all.contains("reported"),
        "a Rust panic reached the user:\n{all}"
    );
    assert!(
        !all.contains("RUST_BACKTRACE") && !all.contains("stack backtrace"),
        "{all}"
    );
}

/// The program's stdout as text.
pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The program's stderr, as text.
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The program's stdout as JSON.
pub fn json_of(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", stdout(output)))
}
