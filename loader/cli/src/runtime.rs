//! The tokio runtime of the subcommands that run hooks.

/// A runtime for the subcommands that emit: two workers, I/O and time.
pub fn build() -> Result<tokio::runtime::Runtime, std::io::Error> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
}
