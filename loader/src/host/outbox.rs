use std::sync::{Arc, Mutex, MutexGuard};

use agent_hooks_abi::events::{CustomMessage, SendMessageOptions};
use serde_json::Value;

use super::{shielded, AgentHost};

/// Where hooks' messages and entries go: to the agent once one is attached; until then,
/// into a queue that is delivered, in order, when it is.
#[derive(Default)]
pub(crate) struct Outbox {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    agent: Option<Arc<dyn AgentHost>>,
    pending: Vec<Pending>,
}

/// A message or entry sent before an agent was attached.
pub(crate) enum Pending {
    Message(CustomMessage, SendMessageOptions),
    Entry(String, Value),
}

impl Outbox {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub(crate) fn send(&self, item: Pending) {
        let mut state = self.lock();
        match state.agent.clone() {
            Some(agent) => {
                drop(state);
                deliver(agent.as_ref(), item);
            }
            None => state.pending.push(item),
        }
    }

    /// Attaches `agent` and delivers what was queued. The queue is drained under the lock,
    /// so that nothing sent meanwhile overtakes it.
    pub(crate) fn attach(&self, agent: Arc<dyn AgentHost>) {
        let mut state = self.lock();
        for item in std::mem::take(&mut state.pending) {
            deliver(agent.as_ref(), item);
        }
        state.agent = Some(agent);
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
