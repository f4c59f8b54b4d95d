//! Plugins' log records (and the agent's), on stderr: `-v` and more show more.

use tracing::level_filters::LevelFilter;

/// Writes `tracing` records at the level `-v` asks for to stderr.
pub fn init(verbose: u8) {
    let level = match verbose {
        0 => LevelFilter::WARN,
        1 => LevelFilter::INFO,
        2 => LevelFilter::DEBUG,
        _ => LevelFilter::TRACE,
    };
    let _ = tracing_subscriber::fmt()
        .with_max_level(level)
        .with_writer(std::io::stderr)
        .without_time()
        .with_ansi(false)
        .try_init();
}
