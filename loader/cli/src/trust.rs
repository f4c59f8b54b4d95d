//! `agent-hooks trust`: trust the current project's hooks, after listing them.

use std::process::ExitCode;

use agent_hooks::{
    discover::{EntryKind, TrustStore, UntrustedHook, ABSENT},
    DiscoveryOptions,
};
use serde_json::json;

use crate::{
    options::{Common, Outcome},
    output::{short_path, Style},
    session::Session,
};

/// `agent-hooks trust`.
pub fn run(common: &Common) -> Outcome {
    let session = Session::open_with(common, |options| options.trust_project = false)?;
    let untrusted = &session.findings.untrusted;
    let config_dir = DiscoveryOptions::new(&session.cwd).config_dir();
    let mut store = TrustStore::open(&config_dir)?;
    store.trust(untrusted.iter().flat_map(|u| {
        std::iter::once((u.entry.path.as_path(), u.hash.as_str())).chain(
            u.scripts
                .iter()
                .map(|(script, hash)| (script.as_path(), hash.as_str())),
        )
    }))?;
    if common.json {
        let trusted: Vec<_> = untrusted
            .iter()
            .map(|u| {
                json!({
                    "key": u.entry.key(),
                    "path": u.entry.path,
                    "was": u.reason.to_string(),
                    "scripts": runs(u).collect::<Vec<_>>(),
                    "reads": reads(u).collect::<Vec<_>>(),
                })
            })
            .collect();
        outln!(
            "{}",
            serde_json::to_string_pretty(&json!({"trusted": trusted}))?
        );
        return Ok(ExitCode::SUCCESS);
    }
    let style = Style::for_stdout();
    if untrusted.is_empty() {
        outln!("Nothing to trust: this project has no untrusted hooks.");
        return Ok(ExitCode::SUCCESS);
    }
    outln!(
        "{}",
        style.bold(&format!(
            "Trusting {} project hook(s) of {}:",
            untrusted.len(),
            session.cwd.display()
        ))
    );
    for hook in untrusted {
        outln!(
            "  {}  {}",
            short_path(&hook.entry.path, &session.cwd),
            style.dim(&format!("({})", hook.entry.key()))
        );
        for script in runs(hook) {
            outln!("    runs {}", short_path(script, &session.cwd));
        }
        for config in reads(hook) {
            outln!("    reads {}", short_path(config, &session.cwd));
        }
    }
    outln!(
        "Recorded with their SHA-256 (and that of the scripts they run and the configuration files beside plugins) in {}; a file, script or configuration file that changes (or appears, or goes) is untrusted again.",
        store.path().display()
    );
    Ok(ExitCode::SUCCESS)
}

/// The scripts a hooks file's commands run.
fn runs(hook: &UntrustedHook) -> impl Iterator<Item = &std::path::Path> + '_ {
    let plugin = hook.entry.kind == EntryKind::Plugin;
    hook.scripts
        .iter()
        .filter(move |_| !plugin)
        .map(|(script, _)| script.as_path())
}

/// The configuration files beside a plugin that exist.
fn reads(hook: &UntrustedHook) -> impl Iterator<Item = &std::path::Path> + '_ {
    let plugin = hook.entry.kind == EntryKind::Plugin;
    hook.scripts
        .iter()
        .filter(move |(_, hash)| plugin && hash != ABSENT)
        .map(|(config, _)| config.as_path())
}
