//! `agent-hooks stats`: per hook, over the records kept: how often it ran and what it
//! answered, and how long it took (median, 95th percentile, longest), the slowest first, so
//! that a user sees which hook makes each tool call slow.

use std::{collections::BTreeMap, process::ExitCode};

use agent_hooks::agents::Agent;
use serde::Serialize;

use crate::options::{Common, Outcome};
use crate::{commands::log, decisions::settings::folder_to_read};

/// `agent-hooks stats`' options.
#[derive(Debug, Clone, clap::Args)]
pub struct StatsArgs {
    /// Only events since a time, a day or a span back from now (as `log --since`).
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,
    /// Only this agent's events.
    #[arg(
        long,
        value_name = "NAME",
        value_parser = crate::options::agent_names(),
        ignore_case = true,
    )]
    pub agent: Option<Agent>,
}

/// One hook's figures.
#[derive(Debug, Default, Serialize)]
struct Figures {
    hook: String,
    kind: String,
    calls: usize,
    blocks: usize,
    asks: usize,
    rewrites: usize,
    errors: usize,
    timeouts: usize,
    p50_ms: f64,
    p95_ms: f64,
    max_ms: f64,
    #[serde(skip)]
    times: Vec<f64>,
}

/// `agent-hooks stats`.
pub fn run(common: &Common, args: &StatsArgs) -> Outcome {
    let filter = log::Filter::of_agent_since(args.agent, args.since.as_deref())?;
    let folder = folder_to_read();
    let mut by_hook: BTreeMap<String, Figures> = BTreeMap::new();
    let mut events = 0usize;
    for record in log::records(&folder).iter().filter(|r| filter.passes(r)) {
        events += 1;
        for run in &record.hooks {
            let figures = by_hook.entry(run.id.clone()).or_insert_with(|| Figures {
                hook: run.id.clone(),
                kind: run.kind.clone(),
                ..Figures::default()
            });
            figures.calls += 1;
            match run.answer.as_str() {
                "block" => figures.blocks += 1,
                "ask" => figures.asks += 1,
                "rewrite" => figures.rewrites += 1,
                _ => {}
            }
            if run.failure.as_deref() == Some("timed out") {
                figures.timeouts += 1;
            } else if run.failure.is_some() {
                figures.errors += 1;
            }
            figures.times.push(run.ms);
        }
    }
    let mut all: Vec<Figures> = by_hook.into_values().map(summed).collect();
    all.sort_by(|a, b| {
        b.p95_ms
            .total_cmp(&a.p95_ms)
            .then(b.max_ms.total_cmp(&a.max_ms))
    });
    if common.json {
        outln!("{}", serde_json::to_string_pretty(&all).unwrap_or_default());
        return Ok(ExitCode::SUCCESS);
    }
    if all.is_empty() {
        outln!(
            "No hook ran in the {events} recorded event{} (in {}).",
            if events == 1 { "" } else { "s" },
            folder.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    outln!(
        "{events} event{}, {} hook{}, the slowest first (times in ms):",
        if events == 1 { "" } else { "s" },
        all.len(),
        if all.len() == 1 { "" } else { "s" }
    );
    outln!(
        "{:>6} {:>6} {:>5} {:>8} {:>6} {:>8} {:>8} {:>8} {:>8}  hook",
        "calls",
        "blocks",
        "asks",
        "rewrites",
        "errors",
        "timeouts",
        "p50",
        "p95",
        "max"
    );
    for f in &all {
        outln!(
            "{:>6} {:>6} {:>5} {:>8} {:>6} {:>8} {:>8.1} {:>8.1} {:>8.1}  {} ({})",
            f.calls,
            f.blocks,
            f.asks,
            f.rewrites,
            f.errors,
            f.timeouts,
            f.p50_ms,
            f.p95_ms,
            f.max_ms,
            f.hook,
            f.kind
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Its percentiles, from its times (nearest rank).
fn summed(mut figures: Figures) -> Figures {
    let mut times = std::mem::take(&mut figures.times);
    times.sort_by(f64::total_cmp);
    let rank = |p: f64| {
        let n = times.len();
        let at = ((p * n as f64).ceil() as usize).clamp(1, n) - 1;
        times[at]
    };
    if !times.is_empty() {
        figures.p50_ms = rank(0.50);
        figures.p95_ms = rank(0.95);
        figures.max_ms = times[times.len() - 1];
    }
    figures
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_nearest_ranks() {
        let figures = summed(Figures {
            times: (1..=20).map(f64::from).collect(),
            ..Figures::default()
        });
        assert_eq!(
            (figures.p50_ms, figures.p95_ms, figures.max_ms),
            (10.0, 19.0, 20.0)
        );
    }
}
