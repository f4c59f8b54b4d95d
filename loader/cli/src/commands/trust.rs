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
    // The hooks that run now may use events the agents' entries are not written for.
    let wiring = if untrusted.is_empty() {
        Vec::new()
    } else {
        crate::entries::sync::resync_all(common)
    };
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
    say_wiring(&wiring);
    Ok(ExitCode::SUCCESS)
}

/// What a change of trust changed in the agents' entries ([`crate::entries::sync::resync`]).
fn say_wiring(lines: &[String]) {
    for line in lines {
        outln!("Wiring: {line}");
    }
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

/// `agent-hooks untrust`'s options.
#[derive(Debug, Clone, clap::Args)]
pub struct UntrustArgs {
    /// Files or folders whose trust entries to remove (a folder: every entry under it).
    /// Without any, the project's (--cwd): its files, and the copies of its hooks that
    /// `install --take-over` made.
    #[arg(value_name = "PATH")]
    pub paths: Vec<std::path::PathBuf>,
    /// Remove the entries of files that no longer exist, wherever they were.
    #[arg(long, conflicts_with = "paths")]
    pub gone: bool,
}

/// `agent-hooks untrust`: removes trust entries, so that those files wait for `agent-hooks
/// trust` again, and stale entries (of files that are gone) are cleared.
pub fn untrust(common: &Common, args: &UntrustArgs) -> Outcome {
    let cwd = match &common.cwd {
        Some(dir) => std::path::absolute(dir)?,
        None => std::env::current_dir()?,
    };
    let config_dir = DiscoveryOptions::new(&cwd).config_dir();
    let mut store = TrustStore::open(&config_dir)?;
    // The places whose entries go: an entry that is one of them or lies under one.
    let places: Vec<std::path::PathBuf> = if args.paths.is_empty() {
        let mut places = vec![TrustStore::key_of(&cwd)];
        places.extend(agent_hooks::agents::Agent::hooked().map(|agent| {
            TrustStore::key_of(&crate::taken_over::scope(
                &config_dir,
                agent.hook_name(),
                Some(&cwd),
            ))
        }));
        places
    } else {
        args.paths
            .iter()
            .map(|p| std::path::absolute(cwd.join(p)).map(|p| TrustStore::key_of(&p)))
            .collect::<Result<_, _>>()?
    };
    let removed = store.untrust(|entry, _| {
        if args.gone {
            !entry.exists()
        } else {
            places.iter().any(|place| entry.starts_with(place))
        }
    })?;
    let wiring = if removed.is_empty() {
        Vec::new()
    } else {
        crate::entries::sync::resync_all(common)
    };
    if common.json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&json!({ "untrusted": removed }))?
        );
        return Ok(ExitCode::SUCCESS);
    }
    if removed.is_empty() {
        outln!(
            "No trust entry {}: nothing to remove ({}).",
            if args.gone {
                "of a file that is gone".to_owned()
            } else {
                format!(
                    "for {}",
                    places
                        .first()
                        .map(|p| p.display().to_string())
                        .unwrap_or_default()
                )
            },
            store.path().display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    outln!(
        "Removed {} trust entr{} from {}:",
        removed.len(),
        if removed.len() == 1 { "y" } else { "ies" },
        store.path().display()
    );
    for path in &removed {
        outln!("  {}", short_path(path, &cwd));
    }
    outln!("Those that are still there wait for `agent-hooks trust` again.");
    say_wiring(&wiring);
    Ok(ExitCode::SUCCESS)
}
