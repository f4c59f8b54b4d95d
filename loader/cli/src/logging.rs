//! Plugins' log records (and the agent's), on stderr, or in the capped log file of `serve`
//! and `hook` ([`crate::capped_log`]): `-v` and more show more.
//!
//! The writer is made at the first record, not at the start: most runs of the program (an
//! event that finds no plugin) write none, and making it (its registry of spans) was about
//! a fiftieth of such a run. Until then the level alone answers what is kept, so a plugin
//! told the level at its load logs what it did before.

use std::sync::OnceLock;

use tracing::{
    level_filters::LevelFilter, span, subscriber::Interest, Event, Metadata, Subscriber,
};

/// Writes `tracing` records at the level `-v` asks for to stderr (or to the log file, once
/// [`crate::capped_log::open`] was called).
pub fn init(verbose: u8) {
    let level = match verbose {
        0 => LevelFilter::WARN,
        1 => LevelFilter::INFO,
        2 => LevelFilter::DEBUG,
        _ => LevelFilter::TRACE,
    };
    let _ = tracing::subscriber::set_global_default(Deferred {
        level,
        writer: OnceLock::new(),
    });
}

/// The level, and the writer once a record came.
struct Deferred {
    level: LevelFilter,
    writer: OnceLock<Box<dyn Subscriber + Send + Sync>>,
}

impl Deferred {
    fn writer(&self) -> &(dyn Subscriber + Send + Sync) {
        self.writer
            .get_or_init(|| {
                Box::new(
                    tracing_subscriber::fmt()
                        .with_max_level(self.level)
                        .with_writer(crate::capped_log::out)
                        .without_time()
                        .with_ansi(false)
                        .finish(),
                )
            })
            .as_ref()
    }
}

impl Subscriber for Deferred {
    fn register_callsite(&self, metadata: &'static Metadata<'static>) -> Interest {
        if self.enabled(metadata) {
            Interest::always()
        } else {
            Interest::never()
        }
    }

    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        *metadata.level() <= self.level
    }

    fn max_level_hint(&self) -> Option<LevelFilter> {
        Some(self.level)
    }

    fn new_span(&self, span: &span::Attributes<'_>) -> span::Id {
        self.writer().new_span(span)
    }

    fn record(&self, span: &span::Id, values: &span::Record<'_>) {
        self.writer().record(span, values);
    }

    fn record_follows_from(&self, span: &span::Id, follows: &span::Id) {
        self.writer().record_follows_from(span, follows);
    }

    fn event(&self, event: &Event<'_>) {
        self.writer().event(event);
    }

    fn enter(&self, span: &span::Id) {
        self.writer().enter(span);
    }

    fn exit(&self, span: &span::Id) {
        self.writer().exit(span);
    }

    fn clone_span(&self, id: &span::Id) -> span::Id {
        self.writer().clone_span(id)
    }

    fn try_close(&self, id: span::Id) -> bool {
        self.writer().try_close(id)
    }
}
