//! `agent-hooks log`: the recent decisions, one line each, filtered; `--follow` keeps
//! showing them as they are recorded; `--verify` checks the hash chain.

use std::{
    io::{Read, Seek, SeekFrom},
    os::unix::fs::MetadataExt,
    path::Path,
    process::ExitCode,
    time::Duration,
};

use agent_hooks::agents::Agent;

use crate::decisions::{
    chain::{self, Broken},
    line::line,
    record::{time_of, Record},
    settings::folder_to_read,
};
use crate::options::{Common, Outcome};

/// `agent-hooks log`'s options.
#[derive(Debug, Clone, clap::Args)]
pub struct LogArgs {
    /// Only this session's events.
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// Only events answered so: block, ask, rewrite, allow, stop, replace, context, error
    /// or none.
    #[arg(long, value_name = "DECISION")]
    pub decision: Option<String>,
    /// Only events in which a hook whose id (its command and file, or its plugin's path)
    /// contains this text ran.
    #[arg(long = "hook-id", value_name = "TEXT")]
    pub hook: Option<String>,
    /// Only this agent's events.
    #[arg(
        long,
        value_name = "NAME",
        value_parser = crate::options::agent_names(),
        ignore_case = true,
    )]
    pub agent: Option<Agent>,
    /// Only events since a time (2026-12-06T10:00:00Z), a day (2026-12-06, UTC), or a span
    /// back from now (30m, 2h, 1d).
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,
    /// How many of the newest events to show (0: all).
    #[arg(long, short = 'n', value_name = "N", default_value_t = 50)]
    pub last: usize,
    /// Go on showing events as they are recorded (until interrupted).
    #[arg(long, short = 'f')]
    pub follow: bool,
    /// Check the hash chain: say whether every record is there as written, or where the
    /// chain breaks.
    #[arg(long)]
    pub verify: bool,
}

/// The filters of `log` and `stats`.
#[derive(Debug, Default)]
pub struct Filter {
    session: Option<String>,
    decision: Option<String>,
    hook: Option<String>,
    agent: Option<String>,
    since: Option<String>,
}

impl Filter {
    /// The filter `args` give.
    fn of(args: &LogArgs) -> Result<Filter, String> {
        Ok(Filter {
            session: args.session.clone(),
            decision: args.decision.clone(),
            hook: args.hook.clone(),
            agent: args.agent.map(|a| a.hook_name().to_owned()),
            since: args.since.as_deref().map(since).transpose()?,
        })
    }

    /// A filter on the agent and the time alone.
    pub fn of_agent_since(agent: Option<Agent>, when: Option<&str>) -> Result<Filter, String> {
        Ok(Filter {
            agent: agent.map(|a| a.hook_name().to_owned()),
            since: when.map(since).transpose()?,
            ..Filter::default()
        })
    }

    /// Whether it filters anything out.
    fn is_any(&self) -> bool {
        self.session.is_some()
            || self.decision.is_some()
            || self.hook.is_some()
            || self.agent.is_some()
            || self.since.is_some()
    }

    /// Whether `record` passes.
    pub fn passes(&self, record: &Record) -> bool {
        self.session
            .as_ref()
            .is_none_or(|s| record.session.as_ref() == Some(s))
            && self.decision.as_ref().is_none_or(|d| &record.decision == d)
            && self
                .hook
                .as_ref()
                .is_none_or(|h| record.hooks.iter().any(|run| run.id.contains(h.as_str())))
            && self.agent.as_ref().is_none_or(|a| &record.agent == a)
            && self
                .since
                .as_ref()
                .is_none_or(|t| record.time.as_str() >= t.as_str())
    }
}

/// `--since`'s value as a record's time (records' times sort as text).
fn since(when: &str) -> Result<String, String> {
    if let Ok(time) = when.parse::<jiff::Timestamp>() {
        return Ok(time_of(time));
    }
    if let Ok(day) = when.parse::<jiff::civil::Date>() {
        return Ok(format!("{day}T00:00:00.000Z"));
    }
    let span = match when.strip_suffix('d').and_then(|d| d.parse::<i64>().ok()) {
        Some(days) => days
            .checked_mul(86_400)
            .map(jiff::SignedDuration::from_secs),
        None => when.parse::<jiff::SignedDuration>().ok(),
    };
    match span.and_then(|s| jiff::Timestamp::now().checked_sub(s).ok()) {
        Some(time) => Ok(time_of(time)),
        None => Err(format!(
            "--since {when}: not a time (2026-12-06T10:00:00Z), a day (2026-12-06) or a span back from now (30m, 2h, 1d)"
        )),
    }
}

/// Every record in `folder`, oldest first (lines that are not records are left out).
pub fn records(folder: &Path) -> Vec<Record> {
    chain::files(folder)
        .iter()
        .filter_map(|file| read_bounded(file).ok())
        .flat_map(|text| {
            whole_lines(&text)
                .filter_map(|line| serde_json::from_str(line).ok())
                .collect::<Vec<Record>>()
        })
        .collect()
}

/// The newest block among the recent records (the last 128 KiB of the current file), for
/// `status`.
pub fn last_block() -> Option<Record> {
    use std::os::unix::fs::FileExt;
    let file = std::fs::File::open(folder_to_read().join(chain::FILE)).ok()?;
    let size = file.metadata().ok()?.len();
    let start = size.saturating_sub(128 * 1024);
    let mut tail = vec![0; usize::try_from(size - start).ok()?];
    file.read_exact_at(&mut tail, start).ok()?;
    let text = String::from_utf8_lossy(&tail);
    let block = whole_lines(&text)
        .rev()
        .filter_map(|line| serde_json::from_str::<Record>(line).ok())
        .find(|record| record.decision == "block");
    block
}

/// The most of one records file read: eight times what a writer lets it grow to, so that a
/// file that is not the writers' (a folder others can write to) cannot exhaust memory.
const READ_LIMIT: u64 = 64 << 20;

/// `file`'s text, up to [`READ_LIMIT`] (invalid UTF-8 replaced).
fn read_bounded(file: &Path) -> std::io::Result<String> {
    let mut bytes = Vec::new();
    std::fs::File::open(file)?
        .take(READ_LIMIT)
        .read_to_end(&mut bytes)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// The finished lines of `text` (an unfinished last line is a writer's still).
fn whole_lines(text: &str) -> impl DoubleEndedIterator<Item = &str> {
    let whole = text.rfind('\n').map_or("", |end| &text[..end]);
    whole.lines().filter(|l| !l.is_empty())
}

/// `agent-hooks log`.
pub fn run(common: &Common, args: &LogArgs) -> Outcome {
    let folder = folder_to_read();
    if args.verify {
        return verify(&folder);
    }
    let filter = Filter::of(args)?;
    let chosen: Vec<Record> = records(&folder)
        .into_iter()
        .filter(|r| filter.passes(r))
        .collect();
    let skip = match args.last {
        0 => 0,
        n => chosen.len().saturating_sub(n),
    };
    if chosen.is_empty() && !common.json && !args.follow {
        outln!(
            "No decisions recorded{} (in {}).",
            if filter.is_any() { " that match" } else { "" },
            folder.display()
        );
    }
    for record in &chosen[skip..] {
        show(record, common.json);
    }
    if args.follow {
        follow(&folder, &filter, common.json);
    }
    Ok(ExitCode::SUCCESS)
}

fn show(record: &Record, json: bool) {
    if json {
        outln!("{}", serde_json::to_string(record).unwrap_or_default());
        return;
    }
    outln!("{}", line(record));
}

/// Shows the records appended from now on, polling the file (across its moves aside).
fn follow(folder: &Path, filter: &Filter, json: bool) {
    let path = folder.join(chain::FILE);
    let inode = |p: &Path| std::fs::metadata(p).ok().map(|m| (m.ino(), m.len()));
    let (mut at_inode, mut offset) = inode(&path).unwrap_or((0, 0));
    let mut pending = String::new();
    loop {
        std::thread::sleep(Duration::from_millis(200));
        let Some((now_inode, size)) = inode(&path) else {
            continue;
        };
        if now_inode != at_inode {
            // Moved aside: the new file is read from its start.
            (at_inode, offset) = (now_inode, 0);
            pending.clear();
        }
        if size <= offset {
            continue;
        }
        let Ok(mut file) = std::fs::File::open(&path) else {
            continue;
        };
        let mut added = String::new();
        if file.seek(SeekFrom::Start(offset)).is_err()
            || file.take(size - offset).read_to_string(&mut added).is_err()
        {
            continue;
        }
        offset = size;
        pending.push_str(&added);
        while let Some(end) = pending.find('\n') {
            let line: String = pending.drain(..=end).collect();
            if let Ok(record) = serde_json::from_str::<Record>(line.trim_end()) {
                if filter.passes(&record) {
                    show(&record, json);
                }
            }
        }
    }
}

/// `agent-hooks log --verify`.
fn verify(folder: &Path) -> Outcome {
    let files = chain::files(folder);
    if files.is_empty() {
        outln!("No decisions recorded (in {}).", folder.display());
        return Ok(ExitCode::SUCCESS);
    }
    let mut previous: Option<String> = None;
    let mut count = 0usize;
    let mut starts_late = false;
    let mut unfinished = None;
    for file in &files {
        let text = read_bounded(file)
            .map_err(|e| format!("{}: could not be read ({e})", file.display()))?;
        if !text.is_empty() && !text.ends_with('\n') {
            unfinished = Some(file.clone());
        }
        for (number, line) in whole_lines(&text).enumerate() {
            let at = || format!("{} line {}", file.display(), number + 1);
            let (body, hash) = match chain::unsealed(line) {
                Ok(sealed) => sealed,
                Err(Broken::NoHash) => {
                    return broken(
                        &at(),
                        "it carries no hash: it was not written by agent-hooks, or was cut",
                        count,
                    )
                }
                Err(Broken::Changed) => {
                    return broken(
                        &at(),
                        "its content is not what was written: it was changed after",
                        count,
                    )
                }
            };
            let prev = serde_json::from_str::<Record>(&body)
                .map(|r| r.prev)
                .map_err(|_| ())
                .unwrap_or_else(|()| "?".into());
            match &previous {
                None if prev != chain::FIRST => starts_late = true,
                Some(expected) if *expected != prev => {
                    return broken(
                        &at(),
                        "it does not follow the record before it: a record was removed or put in between here",
                        count,
                    )
                }
                _ => {}
            }
            previous = Some(hash);
            count += 1;
        }
    }
    outln!(
        "The chain holds: {count} record{} in {} file{}, each as it was written and none missing{}.",
        if count == 1 { "" } else { "s" },
        files.len(),
        if files.len() == 1 { "" } else { "s" },
        if starts_late {
            " (it starts after older records that were moved aside and are no longer kept)"
        } else {
            ""
        }
    );
    if let Some(file) = unfinished {
        outln!(
            "The last line of {} is unfinished (its writer stopped mid-line); the next record cuts it off.",
            file.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn broken(at: &str, why: &str, good: usize) -> Outcome {
    outln!(
        "The chain breaks at {at}: {why}. {}",
        match good {
            0 => "No record before it.".to_owned(),
            1 => "The record before it holds.".to_owned(),
            n => format!("The {n} records before it hold."),
        }
    );
    Ok(ExitCode::from(1))
}
