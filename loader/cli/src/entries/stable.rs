//! The program an agent's entry runs, kept valid across upgrades, and checked by `doctor`.
//!
//! Run from an npm package (its binary sits under a `node_modules` folder), `install`
//! writes into the entry a link in the user's data folder
//! (`$XDG_DATA_HOME/agent-hooks/bin/agent-hooks-hook`, by default under `~/.local/share`)
//! that points at the package's relay, renewed at every `install`: the entry's path is
//! the same whatever npm does with its folders, and an upgrade of the package (same
//! folder, new files) is what the link leads to at the next event. A link rather than a
//! copy: a copy would keep the old version running under the agent after an upgrade. A
//! relay installed by `cargo install` is already at a path that an install over it keeps
//! (`~/.cargo/bin`), and is written as it is.

use std::{
    fs, io,
    path::{Path, PathBuf},
    process::Command,
};

use serde_json::Value;

use agent_hooks::agents::Agent;

/// The folder of the links: `$XDG_DATA_HOME/agent-hooks/bin` or
/// `~/.local/share/agent-hooks/bin`.
pub fn folder() -> Option<PathBuf> {
    let data = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            std::env::var_os("HOME")
                .map(PathBuf::from)
                .filter(|h| h.is_absolute())
                .map(|h| h.join(".local").join("share"))
        })?;
    Some(data.join("agent-hooks").join("bin"))
}

/// Whether `program` is inside a package manager's `node_modules` folder.
fn in_node_modules(program: &Path) -> bool {
    program
        .components()
        .any(|c| c.as_os_str() == "node_modules")
}

/// The relay an entry runs: `agent-hooks-hook` beside this program (`None` when it is not
/// there), through a link in [`folder`] when this program runs from an npm package. When
/// the link cannot be made, the relay's own path, with a line on stderr saying why.
pub fn relay() -> Option<PathBuf> {
    let program = std::env::current_exe().ok()?;
    let relay = program.parent()?.join("agent-hooks-hook");
    if !relay.is_file() {
        return None;
    }
    if !in_node_modules(&program) {
        return Some(relay);
    }
    match link(&program, &relay) {
        Ok(link) => Some(link),
        Err(e) => {
            eprintln!(
                "agent-hooks: the entry runs {} itself (a link that outlives an upgrade of the package could not be made: {e})",
                relay.display()
            );
            Some(relay)
        }
    }
}

/// Makes (or renews) the links to `program` and `relay` in [`folder`], each replaced at
/// once (a link made beside it, renamed over it): an agent's event never finds it missing.
fn link(program: &Path, relay: &Path) -> io::Result<PathBuf> {
    let folder = folder().ok_or_else(|| io::Error::other("HOME is not set"))?;
    fs::create_dir_all(&folder)?;
    for (name, target) in [("agent-hooks", program), ("agent-hooks-hook", relay)] {
        let link = folder.join(name);
        if fs::read_link(&link).ok().as_deref() == Some(target) {
            continue;
        }
        let fresh = folder.join(format!(".{name}.{}", std::process::id()));
        let _ = fs::remove_file(&fresh);
        std::os::unix::fs::symlink(target, &fresh)?;
        fs::rename(&fresh, &link)?;
    }
    Ok(folder.join("agent-hooks-hook"))
}

/// The program (first word) of an entry's command: `'quoted'` as `shell_quote` writes it,
/// or up to the first space.
fn first_word(command: &str) -> String {
    match command.strip_prefix('\'') {
        Some(rest) => {
            let mut word = String::new();
            let mut rest = rest;
            // `'\''` is a quote inside a quoted word.
            while let Some((part, after)) = rest.split_once('\'') {
                word.push_str(part);
                match after.strip_prefix("\\''") {
                    Some(more) => {
                        word.push('\'');
                        rest = more;
                    }
                    None => return word,
                }
            }
            word.push_str(rest);
            word
        }
        None => command.split(' ').next().unwrap_or_default().to_owned(),
    }
}

/// The commands in `value` that run agent-hooks for `agent`.
fn commands(value: &Value, agent: Agent, found: &mut Vec<String>) {
    match value {
        Value::String(text) if super::has_entry(text, agent) => found.push(text.clone()),
        Value::Array(items) => items.iter().for_each(|v| commands(v, agent, found)),
        Value::Object(members) => members.values().for_each(|v| commands(v, agent, found)),
        _ => {}
    }
}

/// What is wrong with the program the entry in `file` runs for `agent`: gone (a program
/// uninstalled, a link that leads nowhere), or of another version than this one (its
/// resident process would be of that version). A program named without a folder is found
/// on the `PATH` when the agent runs it, and is not checked.
pub fn problems(agent: Agent, file: &Path) -> Vec<String> {
    let Ok(text) = fs::read_to_string(file) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    match serde_json::from_str::<Value>(&text) {
        Ok(value) => commands(&value, agent, &mut found),
        // A file of agent-hooks' own that is not JSON (an extension in the agent's own language)
        // names its command.
        Err(_) => found.extend(
            agent
                .entry_file_command(&text)
                .filter(|c| super::has_entry(c, agent)),
        ),
    }
    let mut programs: Vec<String> = found.iter().map(|c| first_word(c)).collect();
    programs.sort();
    programs.dedup();
    let mine = format!("agent-hooks {}", env!("CARGO_PKG_VERSION"));
    let redo = format!(
        "run `agent-hooks uninstall --agent {name}`, then `agent-hooks install --agent {name}` with the agent-hooks you use",
        name = agent.hook_name()
    );
    let mut problems = Vec::new();
    for program in programs {
        let path = Path::new(&program);
        if !path.is_absolute() {
            continue;
        }
        // `exists` follows links: a link whose package was uninstalled is gone too.
        if !path.exists() {
            problems.push(format!(
                "{}: {}'s entry runs {program}, which is gone (uninstalled or moved): {}'s events get no hooks; reinstall agent-hooks, or take the entry out: {redo}",
                file.display(),
                agent.title(),
                agent.title()
            ));
            continue;
        }
        // The relay has no `--version`: the program beside it, where it really is, says.
        let Some(beside) = fs::canonicalize(path)
            .ok()
            .and_then(|real| real.parent().map(|d| d.join("agent-hooks")))
            .filter(|p| p.is_file())
        else {
            continue;
        };
        let said = Command::new(&beside)
            .arg("--version")
            .output()
            .ok()
            .filter(|out| out.status.success())
            .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_owned());
        match said {
            Some(said) if said == mine => {}
            Some(said) => problems.push(format!(
                "{}: {}'s entry runs {program}, which is {said}, and this is {mine}: the agent's events are answered by {said}; to use this one, {redo}",
                file.display(),
                agent.title()
            )),
            None => problems.push(format!(
                "{}: {}'s entry runs {program}, and {} does not say its version: {redo}",
                file.display(),
                agent.title(),
                beside.display()
            )),
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_word_of_an_entry_s_command() {
        assert_eq!(
            first_word("'/a b/agent-hooks-hook' --agent NAME"),
            "/a b/agent-hooks-hook"
        );
        assert_eq!(
            first_word("'/it'\\''s/agent-hooks-hook' --agent NAME"),
            "/it's/agent-hooks-hook"
        );
        assert_eq!(first_word("agent-hooks hook --agent NAME"), "agent-hooks");
    }
}
