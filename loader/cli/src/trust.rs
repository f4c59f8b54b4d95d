//! `agent-hooks trust`: trust the current project's hooks, after listing them.

use std::process::ExitCode;

use agent_hooks::{discover::TrustStore, DiscoveryOptions};
use serde_json::json;

use crate::{
    output::{short_path, Style},
    session::Session,
    Common, Outcome,
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
                    "scripts": u.scripts.iter().map(|(script, _)| script).collect::<Vec<_>>(),
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
        for (script, _) in &hook.scripts {
            outln!("    runs {}", short_path(script, &session.cwd));
        }
    }
    outln!(
        "Recorded with their SHA-256 (and that of the scripts they run) in {}; a file or script that changes is untrusted again.",
        store.path().display()
    );
    Ok(ExitCode::SUCCESS)
}
