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

    /// Reads `pipe` to its end (or its first error). What was read stays kept even if the
    /// future is dropped half-way (a pipe abandoned after the process exited).
    pub(super) async fn read_from(&mut self, pipe: Option<impl AsyncRead + Unpin>) {
        let Some(pipe) = pipe else { return };
        // Read straight into `kept`, which grows with the output: a hook that prints
        // nothing costs no buffer, and nothing is zeroed first.
        let limit = u64::try_from(self.cap).unwrap_or(u64::MAX);
        let mut kept = pipe.take(limit);
        if kept.read_to_end(&mut self.kept).await.is_err() || kept.limit() > 0 {
            return;
        }
        // At the cap: the rest is drained (so the process never blocks on a full pipe) and
        // dropped.
        let mut rest = kept.into_inner();
        let mut chunk = vec![0u8; 8 * 1024];
        while let Ok(1..) = rest.read(&mut chunk).await {
            self.truncated = true;
        }
    }

    /// What was kept, and whether more was dropped.
    pub(super) fn into_parts(self) -> (Vec<u8>, bool) {
        (self.kept, self.truncated)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn capture(output: &[u8], cap: usize) -> (Vec<u8>, bool) {
        let mut captured = Captured::new(cap);
        captured.read_from(Some(output)).await;
        captured.into_parts()
    }

    #[tokio::test]
    async fn output_is_kept_up_to_the_cap_and_the_rest_reported() {
        assert_eq!(capture(b"", 4).await, (Vec::new(), false));
        assert_eq!(capture(b"abc", 4).await, (b"abc".to_vec(), false));
        assert_eq!(capture(b"abcd", 4).await, (b"abcd".to_vec(), false));
        assert_eq!(capture(b"abcdefgh", 4).await, (b"abcd".to_vec(), true));
        let long = vec![b'x'; 100_000];
        assert_eq!(capture(&long, 70_000).await, (vec![b'x'; 70_000], true));
    }
}
