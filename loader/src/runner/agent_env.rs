//! The environment the agent gave for the event being emitted: when agent-hooks runs under
//! an agent (the agent starts `agent-hooks hook`, which asks the resident process), the
//! hooks of an event are started by a process the agent did not start, whose environment
//! is that of an earlier event. The variables the agent set for this event (its own, such
//! as `CLAUDE_EFFORT`, and whatever a later version adds) are carried with the event and
//! given to every command hook (and a long-running hook's process when this event starts
//! it), as the agent gives them to its own hooks.

use std::{future::Future, sync::Arc};

tokio::task_local! {
    static AGENT_ENV: Arc<[(String, String)]>;
}

/// The variables of the event being emitted, if the host gave any.
#[derive(Debug, Clone, Default)]
pub(crate) struct AgentEnv(Option<Arc<[(String, String)]>>);

/// The agent's variables of the emit this is called in (none outside
/// [`with_agent_environment`]).
pub(crate) fn current() -> AgentEnv {
    AgentEnv(AGENT_ENV.try_with(Arc::clone).ok())
}

/// Whether agent-hooks owns a variable of that name: its own are never taken from the agent
/// (a hook's `AGENT_HOOKS_PROJECT_DIR`, the keeper's and plugin processes' marks).
fn own(name: &str) -> bool {
    name.starts_with("AGENT_HOOKS_")
}

impl AgentEnv {
    /// Whether the host gave the agent's environment for this event: then a command hook's
    /// process gets it whole (with the runner's variables), not this process's.
    pub(crate) fn is_given(&self) -> bool {
        self.0.is_some()
    }

    /// `own` (the variables the runner gives a hook) beneath the agent's: a variable the
    /// agent gave wins over the runner's of the same name, but for agent-hooks' own.
    pub(crate) fn beneath<'a>(
        &self,
        own_vars: impl Iterator<Item = (&'a str, &'a str)>,
    ) -> Vec<(String, String)> {
        let given = self.0.as_deref().unwrap_or_default();
        let mut env: Vec<(String, String)> =
            Vec::with_capacity(given.len() + own_vars.size_hint().0);
        env.extend(own_vars.map(|(k, v)| (k.to_owned(), v.to_owned())));
        env.extend(
            given
                .iter()
                .filter(|(name, _)| !own(name))
                .map(|(k, v)| (k.clone(), v.clone())),
        );
        env
    }
}

/// See [`HookRunner::with_agent_environment`](super::HookRunner::with_agent_environment).
pub(crate) async fn with_agent_environment<F: Future>(
    environment: Vec<(String, String)>,
    future: F,
) -> F::Output {
    AGENT_ENV.scope(environment.into(), future).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_agents_variables_win_but_agent_hooks_own() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a runtime");
        let given = vec![
            ("CLAUDE_PROJECT_DIR".to_owned(), "/agent".to_owned()),
            ("CLAUDE_EFFORT".to_owned(), "high".to_owned()),
            (
                "AGENT_HOOKS_PROJECT_DIR".to_owned(),
                "/elsewhere".to_owned(),
            ),
        ];
        let env = runtime.block_on(with_agent_environment(given, async {
            current().beneath(
                [
                    ("AGENT_HOOKS_PROJECT_DIR", "/p"),
                    ("CLAUDE_PROJECT_DIR", "/p"),
                ]
                .into_iter(),
            )
        }));
        let last = |name: &str| {
            env.iter()
                .rev()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.as_str())
        };
        assert_eq!(last("AGENT_HOOKS_PROJECT_DIR"), Some("/p"));
        assert_eq!(last("CLAUDE_PROJECT_DIR"), Some("/agent"));
        assert_eq!(last("CLAUDE_EFFORT"), Some("high"));
        assert!(current().beneath(std::iter::empty()).is_empty());
    }
}
