//! Waiting for several futures at once inside the caller's own future: no task is spawned,
//! so a hook's run does not hop between threads (what `JoinSet` costs on a multi-threaded
//! runtime when the caller is `block_on`).

use std::{
    future::Future,
    pin::Pin,
    task::{Context, Poll},
};

/// Runs every future to completion, concurrently, and returns their outputs in order.
pub(crate) async fn join_all<F: Future>(futures: Vec<F>) -> Vec<F::Output> {
    let mut pending: Vec<Pin<Box<F>>> = futures.into_iter().map(Box::pin).collect();
    let mut outputs: Vec<Option<F::Output>> = pending.iter().map(|_| None).collect();
    std::future::poll_fn(|cx: &mut Context<'_>| {
        let mut waiting = false;
        for (future, output) in pending.iter_mut().zip(outputs.iter_mut()) {
            if output.is_none() {
                match future.as_mut().poll(cx) {
                    Poll::Ready(value) => *output = Some(value),
                    Poll::Pending => waiting = true,
                }
            }
        }
        if waiting {
            Poll::Pending
        } else {
            Poll::Ready(())
        }
    })
    .await;
    outputs.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;

    #[tokio::test]
    async fn outputs_keep_their_order_and_waits_overlap() {
        let started = Instant::now();
        let outputs = join_all(
            [30u64, 10, 20]
                .into_iter()
                .map(|ms| async move {
                    tokio::time::sleep(Duration::from_millis(ms)).await;
                    ms
                })
                .collect(),
        )
        .await;
        assert_eq!(outputs, [30, 10, 20]);
        assert!(
            started.elapsed() < Duration::from_millis(55),
            "{:?}",
            started.elapsed()
        );
    }
}
