//! The record's export to an OpenTelemetry collector: the resident process follows the
//! records file and sends each record as an OTLP log record (HTTP, protobuf), at its own
//! pace. The event's way to its answer never waits on the collector: the file is the queue.
//! A collector that is away leaves the records waiting in the file; records the file's
//! rotation takes away before they were sent are counted as lost.
//!
//! - `collector`: where records go ([`Collector`]), from the managed policy, the user's
//!   settings or the standard `OTEL_EXPORTER_OTLP_*` variables.
//! - `follow`: the records not yet sent, in batches, across the file's rotation.
//! - `otlp`: a record as an OTLP log record, and the exporter that sends a batch.
//! - `tls`: the certificates an `https://` collector is checked against, and the client's.
//! - [`Progress`]: what was sent, what failed, kept beside the records for `doctor`.

pub mod collector;
mod follow;
mod otlp;
mod tls;

use std::{
    path::{Path, PathBuf},
    time::Duration,
};

use serde::{Deserialize, Serialize};

use super::record::now;
pub use collector::Collector;

/// What the exporter has done, kept in [`PROGRESS_FILE`] beside the records: the last
/// record sent (by its hash), how many were sent, and since when the collector refuses.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    /// Where records are sent.
    pub address: String,
    /// The hash of the last record the collector took (or the last one written before the
    /// export began); `None`: every record in the files is to be sent.
    #[serde(default)]
    pub sent_up_to: Option<String>,
    /// Records the collector took.
    #[serde(default)]
    pub sent: u64,
    /// Times records were moved out of the files by rotation before they were sent.
    #[serde(default)]
    pub lost: u64,
    /// Since when sending fails (RFC 3339), while it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failing_since: Option<String>,
    /// Why it failed last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// When this was written.
    #[serde(default)]
    pub at: String,
}

/// The exporter's progress file, in the records' folder.
pub const PROGRESS_FILE: &str = "export.json";

impl Progress {
    fn read(folder: &Path) -> Option<Progress> {
        let text = std::fs::read_to_string(folder.join(PROGRESS_FILE)).ok()?;
        serde_json::from_str(&text).ok()
    }

    fn write(&mut self, folder: &Path) {
        self.at = now();
        let Ok(text) = serde_json::to_string_pretty(self) else {
            return;
        };
        let Ok(mut file) = tempfile::NamedTempFile::new_in(folder) else {
            return;
        };
        use std::io::Write;
        if file.write_all(text.as_bytes()).is_ok() {
            let _ = file.persist(folder.join(PROGRESS_FILE));
        }
    }
}

/// The longest wait between two tries while the collector refuses.
const MOST_BACKOFF: Duration = Duration::from_secs(30);

/// How often the file is looked at for new records.
const POLL: Duration = Duration::from_millis(500);

/// Starts exporting the records in `folder` to `collector`, on a thread of its own, for
/// the life of the process: the records after the last one sent (all those written from
/// now on, the first time). What goes wrong is said once on stderr (the resident process's
/// log) and kept in the progress file for `doctor`.
pub fn start(folder: PathBuf, collector: Collector) {
    let address = collector.address();
    // The first time, records are sent from the one after the last already written.
    let mut progress = Progress::read(&folder)
        .filter(|p| p.address == address)
        .unwrap_or_else(|| Progress {
            address: address.clone(),
            sent_up_to: follow::last_hash(&folder),
            ..Progress::default()
        });
    // Where to start is fixed before this process answers its first event.
    let at = follow::Position::after(&folder, progress.sent_up_to.as_deref());
    if at.lost {
        progress.lost += 1;
    }
    let spawned = std::thread::Builder::new()
        .name("decision-export".into())
        .spawn(move || run(&folder, &collector, progress, at));
    if let Err(error) = spawned {
        eprintln!("agent-hooks serve: the decision export could not start ({error})");
    }
}

fn run(folder: &Path, collector: &Collector, mut progress: Progress, mut at: follow::Position) {
    let address = progress.address.clone();
    let exporter = match otlp::Exporter::new(collector) {
        Ok(exporter) => exporter,
        Err(error) => {
            eprintln!(
                "agent-hooks serve: the decision export to {address} could not start: {error}"
            );
            progress.failing_since = Some(now());
            progress.error = Some(error);
            progress.write(folder);
            return;
        }
    };
    progress.write(folder);
    eprintln!("agent-hooks serve: decisions are exported to {address}");
    let mut backoff = Duration::from_secs(1);
    loop {
        let batch = at.next_batch(folder);
        if batch.lost {
            progress.lost += 1;
            progress.write(folder);
        }
        if batch.records.is_empty() {
            at = batch.then;
            std::thread::sleep(POLL);
            continue;
        }
        match exporter.send(&batch.records) {
            Ok(()) => {
                progress.sent += batch.records.len() as u64;
                progress.sent_up_to = batch.records.last().and_then(|r| r.hash.clone());
                if progress.failing_since.take().is_some() {
                    eprintln!("agent-hooks serve: the collector at {address} takes records again");
                }
                progress.error = None;
                progress.write(folder);
                at = batch.then;
                backoff = Duration::from_secs(1);
            }
            Err(error) => {
                if progress.failing_since.is_none() {
                    eprintln!(
                        "agent-hooks serve: records could not be sent to the collector at {address} ({error}); they wait in the records file and are sent when it takes them"
                    );
                    progress.failing_since = Some(now());
                }
                progress.error = Some(error);
                progress.write(folder);
                std::thread::sleep(backoff);
                backoff = (backoff * 2).min(MOST_BACKOFF);
            }
        }
    }
}

/// What `doctor` says of the export to `collector` of the records in `folder`: a problem
/// when the collector refuses records or records were lost, nothing when all is well.
pub fn check(folder: &Path, collector: &Collector) -> Vec<String> {
    let address = collector.address();
    let Some(progress) = Progress::read(folder).filter(|p| p.address == address) else {
        return Vec::new();
    };
    let mut problems = Vec::new();
    if let Some(since) = &progress.failing_since {
        let waiting =
            follow::Position::after(folder, progress.sent_up_to.as_deref()).waiting(folder);
        problems.push(format!(
            "decision export: the collector at {address} has not taken records since {since} ({}); records waiting in the records file: {waiting}, sent when it takes them",
            progress.error.as_deref().unwrap_or("no answer")
        ));
    }
    if progress.lost > 0 {
        problems.push(format!(
            "decision export: records were moved out of the records files before they could be sent to {address} ({} times); the files keep about {} MiB, so a collector away for long loses the oldest",
            progress.lost,
            3 * (super::chain::limit() >> 20)
        ));
    }
    problems
}
