//! Running a hook the agent answers itself (`mcp_tool`, `prompt`, `agent`): the request
//! from the hook's payload, the agent's method on a thread of its own (host code may
//! block), bounded by the hook's timeout, and its reply read as a run
//! ([`reply_run`](crate::command_hook::reply_run)).

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use serde_json::Value;

use crate::{
    command_hook::{reply_run, HostCall, HostCallError, HostCallKind, Run},
    host::AgentHost,
    supervisor::Exit,
};

/// Asks `agent` what `call` asks, with the hook's stdin `payload`; gives up at `timeout`.
/// Returns the run its reply stands for, and the failure when there was none.
pub(super) async fn ask(
    call: &HostCall,
    payload: &[u8],
    agent: Arc<dyn AgentHost>,
    timeout: Duration,
) -> (Run, Option<String>) {
    let started = Instant::now();
    let kind = call.kind();
    let payload: Value = serde_json::from_slice(payload).unwrap_or(Value::Null);
    let mcp = call.mcp_call(&payload);
    let model = call.model_request(&payload);
    let asked = tokio::task::spawn_blocking(move || {
        crate::host::shielded(
            Err(HostCallError::Failed(format!(
                "the agent's {} panicked",
                kind.method()
            ))),
            || match (kind, &mcp, &model) {
                (HostCallKind::McpTool, Some(call), _) => agent.call_mcp_tool(call),
                (HostCallKind::Prompt, _, Some(request)) => agent.prompt_model(request),
                (HostCallKind::Agent, _, Some(request)) => agent.run_subagent(request),
                _ => Err(HostCallError::Failed(
                    "the hook's request could not be built".into(),
                )),
            },
        )
    });
    match tokio::time::timeout(timeout, asked).await {
        Ok(Ok(reply)) => reply_run(kind, reply, started.elapsed()),
        Ok(Err(join)) => reply_run(
            kind,
            Err(HostCallError::Failed(format!(
                "the call to {} ended without an answer: {join}",
                kind.method()
            ))),
            started.elapsed(),
        ),
        Err(_) => {
            let failure = format!(
                "the agent did not answer this `{}` hook within its timeout of {} s ({} was still running)",
                kind.name(),
                timeout.as_secs_f64(),
                kind.method()
            );
            let (mut run, _) = reply_run(kind, Ok(String::new()), started.elapsed());
            run.exit = Exit::TimedOut;
            (run, Some(failure))
        }
    }
}
