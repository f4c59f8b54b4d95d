//! Waiting for several futures at once inside the caller's own future: no task is spawned,
//! so a hook's run does not hop between threads (what `JoinSet` costs on a multi-threaded
//! runtime when the caller is `block_on`).

use std::{
    future::Future,
    pin::Pin,
    task::{Context, Poll},
};

/// Runs every future to completion, concurrently, and returns their outputs in order.
/// One future is awaited where it is; several are each boxed as they are made, never moved
/// after (a hook's run is a large future, and most emits run one hook).
pub(crate) async fn join_all<F: Future>(futures: impl IntoIterator<Item = F>) -> Vec<F::Output> {
    let mut futures = futures.into_iter();
    let Some(first) = futures.next() else {
        return Vec::new();
    };
    let Some(second) = futures.next() else {
        return vec![first.await];
    };
    let all = [first, second].into_iter().chain(futures);
    let mut pending: Vec<Pin<Box<F>>> = all.map(Box::pin).collect();
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
    use super::*;

    #[tokio::test]
    async fn outputs_keep_their_order_and_the_futures_run_together() {
        // The first future can only end once the second ran: run one after the other, they
        // would never end.
        let (sender, receiver) = tokio::sync::oneshot::channel::<u32>();
        let mut sender = Some(sender);
        let futures: Vec<Pin<Box<dyn Future<Output = u32>>>> = vec![
            Box::pin(async move { receiver.await.unwrap_or(0) + 1 }),
            Box::pin(async move {
                if let Some(sender) = sender.take() {
                    let _ = sender.send(41);
                }
                7
            }),
        ];
        assert_eq!(join_all(futures).await, [42, 7]);
    }
}
