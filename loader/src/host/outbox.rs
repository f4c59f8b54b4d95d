use std::{
    collections::VecDeque,
    sync::{Arc, Mutex, MutexGuard},
};

use agent_hooks_abi::events::{CustomMessage, SendMessageOptions};
use serde_json::Value;

use super::{shielded, AgentHost, ProgramRun};
use crate::error::{HookError, HookErrorKind, Listeners};
use crate::sync::LockUnpoisoned;

/// Where hooks' messages and entries go: to the agent once one is attached; until then,
/// into a queue that is delivered, in order, when it is.
///
/// The agent is never called with the lock held: an agent whose `send_message` emits an
/// event whose handler sends again must not deadlock. Order is kept all the same: while the
/// queue is being delivered, whatever is sent (from the agent's own call or from another
/// thread) joins the end of the queue, and the thread delivering it delivers it too.
///
/// It also carries hooks' problems with what they sent (a value this host does not know) to
/// the runner's error listeners, keeping those found before the runner existed.
#[derive(Default)]
pub(crate) struct Outbox {
    state: Mutex<State>,
    reports: Mutex<Reports>,
}

#[derive(Default)]
struct Reports {
    listeners: Option<Arc<Listeners<HookError>>>,
    early: Vec<HookError>,
}

/// How many messages and entries wait for an agent at most; what hooks send past that
/// before one is attached is dropped (reported once).
pub(crate) const MAX_PENDING: usize = 1024;

/// How many messages and entries one hook may send from one handler call (and the time
/// until its next call); the rest are dropped, reported once per call.
pub(crate) const MAX_PER_CALL: usize = 1000;

/// How many bytes (as JSON) of messages and entries one hook may send from one handler
/// call; the rest are dropped, reported once per call.
pub(crate) const MAX_BYTES_PER_CALL: usize = 16 << 20;

#[derive(Default)]
struct State {
    /// Sent since the hook's last call began: how many, and their bytes.
    in_call: (usize, usize),
    /// The flood of this call was reported.
    flood_reported: bool,
    agent: Option<Arc<dyn AgentHost>>,
    pending: VecDeque<Pending>,
    /// Sent while [`MAX_PENDING`] waited for an agent, and dropped.
    dropped: usize,
    /// A thread is delivering the queue; senders add to it instead of delivering.
    draining: bool,
}

/// A message or entry sent before an agent was attached.
pub(crate) enum Pending {
    Message(CustomMessage, SendMessageOptions),
    Entry(String, Value),
}

impl Outbox {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock_unpoisoned()
    }

    /// A handler call of the hook begins: what it sends is counted afresh.
    pub(crate) fn begin_call(&self) {
        let mut state = self.lock();
        state.in_call = (0, 0);
        state.flood_reported = false;
    }

    pub(crate) fn send(&self, item: Pending) {
        let size = match &item {
            Pending::Message(message, _) => serde_json::to_vec(message).map_or(0, |v| v.len()),
            Pending::Entry(custom_type, data) => custom_type.len() + data.to_string().len(),
        };
        let mut state = self.lock();
        let (count, bytes) = state.in_call;
        // Before an agent is attached, `MAX_PENDING` bounds what waits.
        let attached = state.agent.is_some();
        if attached && (count >= MAX_PER_CALL || bytes + size > MAX_BYTES_PER_CALL) {
            let first = !std::mem::replace(&mut state.flood_reported, true);
            drop(state);
            if first {
                self.report(HookError::new(
                    HookErrorKind::Protocol,
                    "",
                    "send_message",
                    format!("a hook sent more than {MAX_PER_CALL} messages and entries, or {} MiB of them, from one call; the rest of this call's are dropped (send fewer, or batch them into one)", MAX_BYTES_PER_CALL >> 20),
                ));
            }
            return;
        }
        state.in_call = (count + 1, bytes + size);
        match state.agent.clone() {
            Some(agent) if !state.draining => {
                drop(state);
                deliver(agent.as_ref(), item);
            }
            None if state.pending.len() >= MAX_PENDING => {
                state.dropped += 1;
                let first = state.dropped == 1;
                drop(state);
                if first {
                    self.report(HookError::new(
                        HookErrorKind::Runner,
                        "",
                        "send_message",
                        format!("hooks sent more than {MAX_PENDING} messages and entries before an agent was attached; the rest are dropped (attach the agent before events are emitted)"),
                    ));
                }
            }
            _ => state.pending.push_back(item),
        }
    }

    /// Attaches `agent` and delivers what was queued, in order, without holding the lock
    /// while the agent runs.
    pub(crate) fn attach(&self, agent: Arc<dyn AgentHost>) {
        {
            let mut state = self.lock();
            state.agent = Some(agent);
            if state.draining {
                // Another thread is delivering; it delivers to the new agent from now on.
                return;
            }
            state.draining = true;
        }
        loop {
            let (agent, item) = {
                let mut state = self.lock();
                match (state.agent.clone(), state.pending.pop_front()) {
                    (Some(agent), Some(item)) => (agent, item),
                    _ => {
                        state.draining = false;
                        return;
                    }
                }
            };
            deliver(agent.as_ref(), item);
        }
    }

    /// Reports `error` to the runner's error listeners, or keeps it until there are some.
    pub(crate) fn report(&self, error: HookError) {
        let mut reports = self.reports.lock_unpoisoned();
        match reports.listeners.clone() {
            Some(listeners) => {
                drop(reports);
                listeners.report(&error);
            }
            None => reports.early.push(error),
        }
    }

    /// Sends problems to `listeners` from now on, and those kept until now.
    pub(crate) fn report_to(&self, listeners: Arc<Listeners<HookError>>) {
        let early = {
            let mut reports = self.reports.lock_unpoisoned();
            reports.listeners = Some(listeners.clone());
            std::mem::take(&mut reports.early)
        };
        for error in early {
            listeners.report(&error);
        }
    }

    /// Tells the attached agent, if any, of a program a hook ran (a program run from a
    /// factory, before an agent is attached, is not told).
    pub(crate) fn program_ran(&self, run: &ProgramRun<'_>) {
        let agent = self.lock().agent.clone();
        if let Some(agent) = agent {
            shielded((), || agent.program_ran(run));
        }
    }

    /// How many items wait for an agent.
    pub(crate) fn pending_count(&self) -> usize {
        self.lock().pending.len()
    }
}

fn deliver(agent: &dyn AgentHost, item: Pending) {
    shielded((), || match item {
        Pending::Message(message, options) => agent.send_message(message, options),
        Pending::Entry(custom_type, data) => agent.append_entry(&custom_type, data),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_waits_for_an_agent_is_bounded_and_the_rest_reported_once() {
        let outbox = Outbox::default();
        for n in 0..MAX_PENDING + 10 {
            outbox.send(Pending::Entry("count".into(), Value::from(n)));
        }
        assert_eq!(outbox.pending_count(), MAX_PENDING);
        let early = &outbox.reports.lock().unwrap().early;
        assert_eq!(early.len(), 1);
        assert_eq!(
            early[0].message,
            format!("hooks sent more than {MAX_PENDING} messages and entries before an agent was attached; the rest are dropped (attach the agent before events are emitted)")
        );
    }
}
