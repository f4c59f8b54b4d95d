//! Threads that run calls into code the agent does not control, so that the thread that
//! waits for them can stop waiting.

use std::{
    sync::{
        atomic::{AtomicU64, Ordering},
        mpsc, Arc, Mutex,
    },
    thread,
    time::{Duration, Instant},
};

use crate::sync::LockUnpoisoned;

type Job = Box<dyn FnOnce() + Send>;

/// How long a thread keeps looking for what it waits for before it sleeps. Waking a thread
/// that sleeps on another CPU costs its waker and itself tens of microseconds on a virtual
/// machine whose idle CPUs halt (docs/performance.md, "How to read a ratio"); a quick
/// handler's answer, or the next handler's call, usually comes sooner. Bounded, and the CPU
/// is yielded between looks, so a thread on the same CPU runs meanwhile.
pub(crate) const SPIN: Duration = Duration::from_micros(30);

/// Tries `attempt` until it gives a value or `limit` has passed, yielding between tries.
pub(crate) fn spin<T>(limit: Duration, mut attempt: impl FnMut() -> Option<T>) -> Option<T> {
    // The first try reads no clock: it is often the only one.
    if let Some(value) = attempt() {
        return Some(value);
    }
    let started = Instant::now();
    loop {
        if started.elapsed() >= limit {
            return None;
        }
        thread::yield_now();
        if let Some(value) = attempt() {
            return Some(value);
        }
    }
}

/// What `receiver` holds now, for [`spin`]: `Some(Some(value))`, `Some(None)` when every sender
/// is gone (nothing will come), `None` when nothing is there yet.
fn taken<T>(receiver: &mpsc::Receiver<T>) -> Option<Option<T>> {
    match receiver.try_recv() {
        Ok(value) => Some(Some(value)),
        Err(mpsc::TryRecvError::Disconnected) => Some(None),
        Err(mpsc::TryRecvError::Empty) => None,
    }
}

/// A pool of threads that grows when all are busy; idle threads are reused. A thread whose
/// call never returns is simply never idle again.
#[derive(Default)]
pub(crate) struct Workers {
    idle: Arc<Mutex<Vec<mpsc::Sender<Job>>>>,
}

impl Workers {
    /// Runs `job` on an idle thread, or a new one.
    pub(crate) fn run(&self, job: impl FnOnce() + Send + 'static) {
        let job: Job = Box::new(job);
        let idle = self.idle.lock_unpoisoned().pop();
        let job = match idle {
            Some(worker) => match worker.send(job) {
                Ok(()) => return,
                Err(mpsc::SendError(job)) => job,
            },
            None => job,
        };
        let (sender, receiver) = mpsc::channel::<Job>();
        let idle = self.idle.clone();
        let me = sender.clone();
        let _ = sender.send(job);
        let spawned = thread::Builder::new()
            .name("agent-hooks-call".into())
            .spawn(move || loop {
                // The next call of a series (the event's next handler) usually comes at once.
                let job = match spin(SPIN, || taken(&receiver)) {
                    Some(Some(job)) => job,
                    Some(None) => break,
                    None => match receiver.recv() {
                        Ok(job) => job,
                        Err(_) => break,
                    },
                };
                job();
                idle.lock_unpoisoned().push(me.clone());
            });
        if let Err(e) = spawned {
            // No thread to run it: the job is dropped, and its caller sees no answer.
            drop(e);
        }
    }
}

/// The time a call spends waiting for the user (or the agent) does not count against its
/// deadline: host services that wait pause the call's clock.
#[derive(Default)]
pub(crate) struct CallClock {
    paused: AtomicU64,
    paused_total_us: AtomicU64,
    since: Mutex<Option<Instant>>,
}

impl CallClock {
    /// Runs `f` with the clock paused.
    pub(crate) fn paused<T>(&self, f: impl FnOnce() -> T) -> T {
        if self.paused.fetch_add(1, Ordering::AcqRel) == 0 {
            *self.since.lock_unpoisoned() = Some(Instant::now());
        }
        let value = f();
        if self.paused.fetch_sub(1, Ordering::AcqRel) == 1 {
            if let Some(since) = self.since.lock_unpoisoned().take() {
                let us = u64::try_from(since.elapsed().as_micros()).unwrap_or(u64::MAX);
                self.paused_total_us.fetch_add(us, Ordering::AcqRel);
            }
        }
        value
    }

    fn is_paused(&self) -> bool {
        self.paused.load(Ordering::Acquire) > 0
    }

    fn paused_total(&self) -> Duration {
        Duration::from_micros(self.paused_total_us.load(Ordering::Acquire))
    }
}

/// How long a caller waits for an answer before it lets its tokio worker go.
const QUICK_ANSWER: Duration = Duration::from_millis(1);

/// Waits up to `timeout` for `receiver`. Most answers come within microseconds; a slower one
/// must not hold a tokio worker (other tasks, timers and command hooks would stall), so after
/// a short wait the worker hands its tasks on while this thread waits.
pub(crate) fn recv_letting_worker_go<T>(
    receiver: &mpsc::Receiver<T>,
    timeout: Duration,
) -> Result<T, mpsc::RecvTimeoutError> {
    let quick = timeout.min(QUICK_ANSWER);
    match receiver.recv_timeout(quick) {
        Err(mpsc::RecvTimeoutError::Timeout) if timeout > quick => {
            super::may_block(|| receiver.recv_timeout(timeout - quick))
        }
        other => other,
    }
}

/// Runs `job` on a pool thread and waits up to `timeout` of the job's own time (what `clock`
/// says was spent waiting for the user does not count). `None` when the deadline passed:
/// the thread is abandoned, still running.
pub(crate) fn call_with_deadline<T: Send + 'static>(
    timeout: Duration,
    clock: Arc<CallClock>,
    job: impl FnOnce() -> T + Send + 'static,
) -> Option<T> {
    static POOL: std::sync::OnceLock<Workers> = std::sync::OnceLock::new();
    let (sender, receiver) = mpsc::sync_channel(1);
    POOL.get_or_init(Workers::default).run(move || {
        let _ = sender.send(job());
    });
    let started = Instant::now();
    if let Some(answer) = spin(SPIN.min(timeout), || taken(&receiver)) {
        return answer;
    }
    let wait = |limit: Duration| receiver.recv_timeout(limit);
    match wait(QUICK_ANSWER.min(timeout)) {
        Ok(value) => return Some(value),
        Err(mpsc::RecvTimeoutError::Disconnected) => return None,
        Err(mpsc::RecvTimeoutError::Timeout) => {}
    }
    // The clock may have been paused: the loop, not one wait, decides when time is up.
    super::may_block(|| loop {
        let deadline = started + timeout + clock.paused_total();
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() && !clock.is_paused() {
            return None;
        }
        match wait(left.max(Duration::from_millis(10))) {
            Ok(value) => return Some(value),
            Err(mpsc::RecvTimeoutError::Disconnected) => return None,
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
    })
}
