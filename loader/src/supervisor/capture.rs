use tokio::io::{AsyncRead, AsyncReadExt};

/// A pipe's output, kept up to a cap; the rest is read and dropped.
pub(super) struct Captured {
    kept: Vec<u8>,
    cap: usize,
    truncated: bool,
}

impl Captured {
    pub(super) fn new(cap: usize) -> Self {
        Self {
            kept: Vec::new(),
            cap,
            truncated: false,
        }
    }

    /// Reads `pipe` to its end (or its first error).
    pub(super) async fn read_from(&mut self, pipe: Option<impl AsyncRead + Unpin>) {
        let Some(mut pipe) = pipe else { return };
        // On the heap: the run's future is moved as a whole, so it stays small.
        let mut chunk = vec![0u8; 8 * 1024];
        loop {
            match pipe.read(&mut chunk).await {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    let room = self.cap.saturating_sub(self.kept.len());
                    self.kept.extend_from_slice(&chunk[..n.min(room)]);
                    self.truncated |= n > room;
                }
            }
        }
    }

    /// What was kept, and whether more was dropped.
    pub(super) fn into_parts(self) -> (Vec<u8>, bool) {
        (self.kept, self.truncated)
    }
}
