//! The command-hook phase of an emit: every matching hook at once, answers combined in
//! configuration order, so the outcome never depends on which hook finished first.

use std::{
    borrow::Cow,
    path::PathBuf,
    sync::{
        atomic::{AtomicU64, Ordering},
        Arc,
    },
    time::{SystemTime, UNIX_EPOCH},
};

use agent_hooks_abi::{
    events::{CustomMessage, SendMessageOptions},
    NotifyLevel,
};
use serde_json::{Map, Value};

use super::{payload::Payload, Combine, HookError, HookErrorKind, HookRunner, Termination};
use crate::agents::{interpret_hook, Agent, HookEnv};
use crate::command_hook::{
    did_not_answer, run, Answer, CommandEvent, CommandHook, CommandHookReport, CommandOutcome,
    Exit, HookKind, Run, RunSpec, ToolNames,
};
use crate::error::Listeners;
use crate::sync::{LockUnpoisoned, RwLockUnpoisoned};
use crate::{
    file::{read_checked, Limit, StrictModes},
    host::AgentHost,
};

/// A fresh id such as `prompt-1732912345123-7`: unique within the process, ordered.
pub(crate) fn fresh_id(kind: &str) -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let millis = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or_default();
    format!("{kind}-{millis}-{}", NEXT.fetch_add(1, Ordering::Relaxed))
}

impl HookRunner {
    /// The command hooks of the event. `stopped`: a native handler blocked (or cancelled)
    /// the event: agent-hooks' own hooks do not run then, but the hooks of an agent's files
    /// do, as that agent runs every matching hook of an event whatever another decided (a
    /// taken-over audit logger sees every call); of their answers only what adds to the
    /// block is kept (their reasons, a stop, context, messages), never an approval or a
    /// rewrite.
    pub(super) async fn command_phase<E: Combine>(
        &self,
        event: &mut Cow<'_, E>,
        outcome: &mut E::Outcome,
        given: &Map<String, Value>,
        stopped: bool,
    ) {
        if self.command[E::KIND.index()] == 0 {
            return;
        }
        let Some(mut input) = event.command_input() else {
            return;
        };
        // What the caller gave wins over what the runner derived (`emit --input`).
        for (key, value) in given {
            input.fields.insert(key.clone(), value.clone());
        }
        let ran = self
            .run_command_hooks_of(input.event, input.fields, stopped)
            .await;
        if let Some(combined) = ran {
            if stopped {
                let kept = CommandOutcome {
                    ran: combined.ran,
                    stop: combined.stop,
                    block: combined.block,
                    reasons: combined.reasons,
                    context: combined.context,
                    system_messages: combined.system_messages,
                    ..CommandOutcome::default()
                };
                E::fold_command(event, outcome, &kept);
            } else {
                E::fold_command(event, outcome, &combined);
            }
        }
    }

    /// Runs the command hooks of `event` with payload `fields` (the event's own fields; the
    /// runner adds the common ones where missing) and combines their answers. For the
    /// events the runner has no moment for (`Notification`, `SubagentStart`, `Setup`, ...),
    /// a host that has that moment calls this; for the others, [`emit`](Self::emit) does.
    pub async fn emit_command(
        &self,
        event: CommandEvent,
        fields: Map<String, Value>,
    ) -> CommandOutcome {
        self.run_command_hooks(event, fields)
            .await
            .unwrap_or_default()
    }

    /// `None` when no hook matched.
    async fn run_command_hooks(
        &self,
        event: CommandEvent,
        fields: Map<String, Value>,
    ) -> Option<CommandOutcome> {
        self.run_command_hooks_of(event, fields, false).await
    }

    /// [`run_command_hooks`](Self::run_command_hooks); `agents_files_only`: only the hooks of
    /// files in an agent's dialect (a native handler stopped the event).
    async fn run_command_hooks_of(
        &self,
        event: CommandEvent,
        fields: Map<String, Value>,
        agents_files_only: bool,
    ) -> Option<CommandOutcome> {
        let agent = self.agent();
        let tools = self.tool_names.read_unpoisoned().clone();
        let mut hooks =
            self.commands
                .matching(event, &fields, &tools, crate::agents::PROFILES, &self.cwd);
        hooks.retain(|hook| !agents_files_only || hook.dialect != Agent::AgentHooks);
        hooks.retain(|hook| !hook.once || self.first_run(hook));
        if hooks.is_empty() {
            return None;
        }
        let env_file = event.spec().env_file.then(|| self.env_file());
        // The session the payload names, when the caller gave one (an agent's own payload):
        // what a hook reads in `session_id` and in its agent's variable
        // (`HookEnv::SessionId`) are the same.
        let session_id: Arc<str> = match fields.get("session_id").and_then(Value::as_str) {
            Some(given) if !given.is_empty() => given.into(),
            _ => self.session_of(agent.as_ref()).into(),
        };
        let agent_env = super::agent_env::current();
        // One payload per (dialect, event name): hooks of one dialect share it.
        let mut payloads: Vec<(PayloadKey<'_>, Arc<str>)> = Vec::new();
        let mut jobs: Vec<HookJob> = Vec::new();
        for hook in &hooks {
            let key = (hook.dialect, hook.event_name.as_str());
            let payload = match payloads.iter().find(|(k, _)| *k == key) {
                Some((_, payload)) => payload.clone(),
                None => {
                    let payload: Arc<str> = self
                        .payload(agent.as_ref(), &session_id, &tools, hook, &fields)
                        .into();
                    payloads.push((key, payload.clone()));
                    payload
                }
            };
            let job = HookJob {
                hook: hook.clone(),
                payload,
                cwd: self.cwd.clone(),
                env_file: env_file.clone(),
                session_id: session_id.clone(),
                agent_env: agent_env.clone(),
                slots: self.command_slots.clone(),
                long_running: self.long_running.clone(),
                agent: agent.clone(),
                alone: false,
            };
            if hook.handler.in_background(hook.run_async) {
                self.run_in_background(job, agent.clone());
                continue;
            }
            jobs.push(job);
        }
        if let [job] = jobs.as_mut_slice() {
            job.alone = true;
        }
        let waited: Vec<Arc<CommandHook>> = jobs.iter().map(|j| j.hook.clone()).collect();
        let statuses = self.show_status(agent.as_ref(), &waited, true);
        // In this future, not in tasks: see `join.rs`.
        let runs = if waited.iter().any(|hook| hook.sequential) {
            self.run_in_order(jobs, event, &fields, &tools, agent.as_ref(), &session_id)
                .await
        } else {
            super::join::join_all(jobs.into_iter().map(HookJob::run)).await
        };
        if statuses {
            self.show_status(agent.as_ref(), &waited, false);
        }
        let mut combined = CommandOutcome::default();
        // Every reason given, in configuration order, for the dialects whose agent shows them
        // all when one hook blocks.
        let mut all_reasons: Vec<String> = Vec::new();
        let mut more_reasons = false;
        for (hook, finished) in waited.iter().zip(runs) {
            let mut answer = finished.answer(hook);
            crate::command_hook::adapt(hook.dialect.profile(), event, &finished.run, &mut answer);
            hook.handler
                .apply_on_failure(event, &hook.kind.label(), &mut answer);
            if hook.required && event == CommandEvent::PreToolUse {
                fail_closed(hook, &finished.run, &mut answer);
            }
            let mut run = finished.run;
            run.stderr_truncated |= finished.stderr_dropped;
            if let (Some(updated), Some(tool)) = (
                &answer.updated_input,
                fields.get("tool_name").and_then(Value::as_str),
            ) {
                let original = fields.get("tool_input").unwrap_or(&Value::Null);
                let dialect = hook.dialect.tool_dialect(&hook.event_name);
                answer.updated_input = Some(tools.input_back(dialect, tool, updated, original));
            }
            if hook.observe {
                // Recorded, not applied: its report carries what it would have done.
                report(
                    &self.listeners,
                    &self.command_reports,
                    hook,
                    run,
                    answer,
                    false,
                );
                continue;
            }
            if let Some(reason) = &answer.block {
                all_reasons.push(reason.clone());
            } else if let (true, Some(reason)) = (
                hook.dialect.shows_every_reason_with_a_block(),
                &answer.permission_reason,
            ) {
                all_reasons.push(reason.clone());
                more_reasons = true;
            }
            combined.add(&answer);
            deliver(agent.as_ref(), &answer, false);
            report(
                &self.listeners,
                &self.command_reports,
                hook,
                run,
                answer,
                false,
            );
        }
        if combined.block && more_reasons {
            combined.reasons = all_reasons;
        }
        if let Some(path) = env_file {
            match read_env_file(&path) {
                Ok(lines) if !lines.is_empty() => {
                    crate::host::shielded((), || agent.environment_file(&lines));
                }
                Ok(_) => {}
                Err(error) => self.listeners.report(&HookError::new(
                    HookErrorKind::Runner,
                    "CLAUDE_ENV_FILE",
                    event.name(),
                    format!("{error}; its lines are not applied"),
                )),
            }
        }
        Some(combined)
    }

    /// An `async` hook: started and not waited for; when it ends, its report goes to the
    /// listeners, its `systemMessage` to the UI and its context to the agent as a message
    /// for the next turn. Its decisions are reported as ignored.
    fn run_in_background(&self, job: HookJob, agent: Arc<dyn AgentHost>) {
        let listeners = self.listeners.clone();
        let reports = self.command_reports.clone();
        let hook = job.hook.clone();
        let background = async move {
            let hook = job.hook.clone();
            let finished = job.run().await;
            let mut answer = finished.answer(&hook);
            let mut run = finished.run;
            run.stderr_truncated |= finished.stderr_dropped;
            let decided = answer.block.is_some()
                || answer.permission.is_some()
                || answer.updated_input.is_some()
                || answer.stop_agent.is_some();
            if decided && !hook.observe {
                answer.problems.push(
                    "runs with `async`, so its decision (block, permission, updatedInput, continue) was ignored".into(),
                );
            }
            if !hook.observe {
                deliver(agent.as_ref(), &answer, true);
                if hook.handler.async_rewake && run.exit == Exit::Code(2) {
                    rewake(agent.as_ref(), &run);
                }
            }
            report(&listeners, &reports, &hook, run, answer, true);
        };
        match tokio::runtime::Handle::try_current() {
            Ok(handle) => {
                handle.spawn(background);
            }
            Err(_) => {
                let problem = Answer {
                    failed: true,
                    problems: vec!["runs with `async`, but no tokio runtime was running to keep it going; it did not run".into()],
                    ..Answer::default()
                };
                report(
                    &self.listeners,
                    &self.command_reports,
                    &hook,
                    lost_run(&hook),
                    problem,
                    true,
                );
            }
        }
    }

    /// Whether a `once` hook has not run yet in this runner (and marks it as run).
    fn first_run(&self, hook: &Arc<CommandHook>) -> bool {
        let id = Arc::as_ptr(hook) as usize;
        let mut ran = self.ran_once.lock_unpoisoned();
        if ran.contains(&id) {
            return false;
        }
        ran.push(id);
        true
    }

    /// Sets (or clears) the status line of each hook with a `statusMessage`; whether any had one.
    fn show_status(&self, agent: &dyn AgentHost, hooks: &[Arc<CommandHook>], show: bool) -> bool {
        let mut any = false;
        for (index, hook) in hooks.iter().enumerate() {
            if let Some(message) = &hook.status_message {
                any = true;
                let key = format!("hook:{}:{index}", hook.event_name);
                crate::host::shielded((), || {
                    if let Some(ui) = agent.ui() {
                        ui.set_status(&key, show.then_some(message.as_str()));
                    }
                });
            }
        }
        any
    }

    /// The session's `CLAUDE_ENV_FILE`, created empty on first use.
    fn env_file(&self) -> PathBuf {
        let path = std::env::temp_dir().join(format!("agent-hooks-env-{}.sh", self.session_id));
        if !path.exists() {
            let _ = std::fs::write(&path, "");
        }
        path
    }

    /// The session's id: the agent's, or the runner's own when the agent has none.
    fn session_of(&self, agent: &dyn AgentHost) -> String {
        let agent_session = crate::host::shielded(String::new(), || agent.session().id);
        if agent_session.is_empty() {
            self.session_id.clone()
        } else {
            agent_session
        }
    }

    /// The stdin payload of `hook`: the common fields (`session_id`, `transcript_path`,
    /// `cwd`, `permission_mode`, `hook_event_name` as its file names the event, `prompt_id`
    /// once there is one) where `fields` lacks them, then the event's fields, with the tool's
    /// name and input in the hook's dialect.
    pub(super) fn payload(
        &self,
        agent: &dyn AgentHost,
        session_id: &str,
        tools: &ToolNames,
        hook: &CommandHook,
        fields: &Map<String, Value>,
    ) -> String {
        // Borrowed where the runner holds the text: only what the agent gives is made.
        let mut common: Vec<(&'static str, Cow<'_, str>)> = Vec::with_capacity(8);
        common.push(("session_id", Cow::Borrowed(session_id)));
        if let Some(path) = crate::host::shielded(None, || agent.transcript_path()) {
            common.push(("transcript_path", Cow::Owned(path)));
        }
        common.push(("cwd", self.cwd.to_string_lossy()));
        let field = |name| hook.dialect.payload_field(hook.event, name);
        if let Some(name) = field("permission_mode") {
            let mode = crate::host::shielded("default".to_owned(), || agent.permission_mode());
            common.push((name, Cow::Owned(mode)));
        }
        common.push(("hook_event_name", Cow::Borrowed(&hook.event_name)));
        let prompt_id = self.prompt_id.read_unpoisoned().clone();
        if let (Some(prompt_id), Some(name)) = (prompt_id, field("prompt_id")) {
            common.push((name, Cow::Owned(prompt_id)));
        }
        if hook.event.spec().fields.contains(&"model") {
            if let Some(model) = crate::host::shielded(None, || agent.model()) {
                common.push(("model", Cow::Owned(model.id)));
            }
        }
        if hook.dialect.extra_fields().contains(&"timestamp") {
            common.push((
                "timestamp",
                Cow::Owned(
                    jiff::Timestamp::now()
                        .strftime("%Y-%m-%dT%H:%M:%SZ")
                        .to_string(),
                ),
            ));
        }
        let payload = Payload {
            common,
            fields,
            dialect: hook.dialect.tool_dialect(&hook.event_name),
            tools,
        };
        if !hook.dialect.own_payload() {
            return payload.to_text();
        }
        // An agent whose payloads are its own writes them from the common fields.
        let value = serde_json::to_value(&payload).unwrap_or_default();
        let own = crate::agents::payload_in(hook.dialect, hook.event, &hook.event_name, value);
        serde_json::to_string(&own).unwrap_or_default()
    }
}

/// What a payload differs by: the hook's dialect and its name of the event.
type PayloadKey<'h> = (Agent, &'h str);

/// One hook to run, with everything it needs.
pub(super) struct HookJob {
    pub(super) hook: Arc<CommandHook>,
    /// JSON: text, which a long-running hook's event carries as it is.
    pub(super) payload: Arc<str>,
    cwd: PathBuf,
    env_file: Option<PathBuf>,
    /// The session's id, for an agent's variable that gives it (`HookEnv::SessionId`).
    session_id: Arc<str>,
    /// The variables the agent gave for this event ([`super::agent_env`]).
    agent_env: super::agent_env::AgentEnv,
    /// The runner's bound on hooks running at once.
    slots: Arc<tokio::sync::Semaphore>,
    /// Where a `persistent` hook's process lives.
    long_running: Arc<super::long_running::LongRunningHooks>,
    /// The agent, whose UI a long-running hook's requests go to.
    agent: Arc<dyn AgentHost>,
    /// The only hook the emit waits for (a long-running one may then read its answer on
    /// the emit's thread).
    alone: bool,
}

/// A finished hook: its run, and for an HTTP hook what went wrong with the request.
pub(super) struct Finished {
    pub(super) run: Run,
    failure: Option<String>,
    /// A long-running hook's stderr since the previous event was cut (see [`Run`]'s
    /// `stderr_truncated`, set after its answer is read).
    stderr_dropped: bool,
}

impl Finished {
    /// Its answer: read from its output in its dialect, or the request's failure.
    pub(super) fn answer(&self, hook: &CommandHook) -> Answer {
        match &self.failure {
            None => interpret_hook(hook, &self.run),
            Some(failure) => Answer {
                failed: true,
                problems: vec![failure.clone()],
                ..Answer::default()
            },
        }
    }
}

impl HookJob {
    pub(super) async fn run(self) -> Finished {
        // Closed only when the runner is gone: then the hook runs unbounded.
        let _slot = self.slots.clone().acquire_owned().await.ok();
        // Each kind's run is boxed, so that a hook's future stays small.
        let hook = self.hook.clone();
        let command = match &hook.kind {
            HookKind::HostCall(call) => {
                let asked = super::host_calls::ask(
                    call,
                    self.payload.as_bytes(),
                    self.agent,
                    self.hook.timeout,
                );
                let (run, failure) = Box::pin(asked).await;
                return Finished {
                    run,
                    failure,
                    stderr_dropped: false,
                };
            }
            HookKind::Http(target) => {
                let posted = Box::pin(target.post(self.payload.into(), self.hook.timeout)).await;
                return Finished {
                    run: posted.run,
                    failure: posted.failure,
                    stderr_dropped: false,
                };
            }
            HookKind::LongRunning {
                command,
                persistence,
            } => {
                // Its variables are made only for its process's start, not for every event.
                let (cwd, env_file, session_id) = (&self.cwd, &self.env_file, &self.session_id);
                let agent_env = &self.agent_env;
                let env = || {
                    let own = hook_env(&hook, cwd, env_file.as_deref(), session_id);
                    agent_env.beneath(own.iter().map(|(k, v)| (*k, v.as_str())))
                };
                let call = self.long_running.call(
                    self.hook,
                    command,
                    *persistence,
                    self.payload,
                    env,
                    self.cwd.clone(),
                    self.agent,
                    self.alone,
                );
                let done = Box::pin(call).await;
                return Finished {
                    run: done.run,
                    failure: done.failure,
                    stderr_dropped: done.stderr_dropped,
                };
            }
            HookKind::Command { command } => command,
        };
        let own = hook_env(
            &self.hook,
            &self.cwd,
            self.env_file.as_deref(),
            &self.session_id,
        );
        let env = self
            .agent_env
            .beneath(own.iter().map(|(k, v)| (*k, v.as_str())));
        let argv = self
            .hook
            .handler
            .argv(command, &self.cwd, self.hook.plugin_root.as_deref());
        let spec = RunSpec {
            command,
            argv,
            cwd: &self.cwd,
            env: &env,
            inherit_env: !self.agent_env.is_given(),
            stdin: self.payload.into(),
            timeout: self.hook.timeout,
        };
        // Boxed too: its process's run is most of a hook's future, which an emit holds and
        // moves, whatever kind of hook runs (a long-running hook's event is copied less).
        Finished {
            run: Box::pin(run(spec)).await,
            failure: None,
            stderr_dropped: false,
        }
    }
}

/// The variables a command hook's process gets: `AGENT_HOOKS_PROJECT_DIR`, and the ones
/// its file's agent gives (its profile's `env`, as the real agents do), its plugin's root
/// (`CLAUDE_PLUGIN_ROOT`), the session's `CLAUDE_ENV_FILE` where the event has one and the agent
/// gives it.
pub(crate) fn hook_env(
    hook: &CommandHook,
    cwd: &std::path::Path,
    env_file: Option<&std::path::Path>,
    session_id: &str,
) -> Vec<(&'static str, String)> {
    let project = cwd.to_string_lossy().into_owned();
    let mut env: Vec<(&'static str, String)> = vec![("AGENT_HOOKS_PROJECT_DIR", project.clone())];
    for (name, value) in hook.dialect.profile().env {
        let value = match value {
            HookEnv::ProjectDir => project.clone(),
            HookEnv::SessionId => session_id.to_owned(),
            HookEnv::HookFileFolder => hook
                .source
                .parent()
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_default(),
            HookEnv::Text(text) => (*text).to_owned(),
        };
        env.push((*name, value));
    }
    if let Some(root) = &hook.plugin_root {
        env.push(("CLAUDE_PLUGIN_ROOT", root.to_string_lossy().into_owned()));
    }
    // Only the agents whose profile says so give their hooks CLAUDE_ENV_FILE.
    let env_file = env_file.filter(|_| hook.dialect.has_env_file());
    if let Some(file) = env_file {
        env.push(("CLAUDE_ENV_FILE", file.to_string_lossy().into_owned()));
    }
    env
}

/// What the runner does itself with an answer: the user sees `systemMessage`, the agent is
/// told to stop on `continue: false`; a background hook's context becomes a message.
fn deliver(agent: &dyn AgentHost, answer: &Answer, background: bool) {
    if let Some(reason) = &answer.stop_agent {
        if !background {
            crate::host::shielded((), || agent.stop_requested(reason));
        }
    }
    if let Some(message) = &answer.system_message {
        crate::host::shielded((), || {
            if let Some(ui) = agent.ui() {
                ui.notify(message, NotifyLevel::Info);
            }
        });
    }
    if background {
        for context in &answer.context {
            let message = CustomMessage::new("hook-context", context.as_str());
            crate::host::shielded((), || {
                agent.send_message(message, SendMessageOptions::default())
            });
        }
    }
}

/// An `asyncRewake` hook that exited with code 2 wakes the agent: what it said (stderr, or
/// stdout when stderr is empty) goes to the model in a message that starts a turn.
fn rewake(agent: &dyn AgentHost, run: &Run) {
    let stderr = String::from_utf8_lossy(&run.stderr);
    let said = match stderr.trim() {
        "" => String::from_utf8_lossy(&run.stdout).trim().to_owned(),
        text => text.to_owned(),
    };
    let message = CustomMessage::new("hook-rewake", said.as_str());
    crate::host::shielded((), || {
        agent.send_message(message, SendMessageOptions::default().trigger_turn(true))
    });
}

/// Reports a hook's run to the command-hook listeners, and its problems as a [`HookError`].
fn report(
    errors: &Listeners<HookError>,
    reports: &Listeners<CommandHookReport>,
    hook: &CommandHook,
    run: Run,
    answer: Answer,
    background: bool,
) {
    if !answer.problems.is_empty() {
        errors.report(&HookError::new(
            error_kind(&run.exit, hook.timeout),
            hook.source.to_string_lossy(),
            hook.event_name.as_str(),
            format!("`{}` {}", hook.kind.label(), answer.problems.join("; ")),
        ));
    }
    reports.report_with(|| CommandHookReport {
        event: hook.event,
        dialect: hook.dialect,
        background,
        command: hook.kind.label().into_owned(),
        source: hook.source.clone(),
        exit: run.exit,
        duration: run.duration,
        stdout_truncated: run.stdout_truncated,
        stderr_truncated: run.stderr_truncated,
        // Moved, not copied, when it is UTF-8 (up to a MiB per hook, on every emit).
        stderr: String::from_utf8(run.stderr)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
        answer,
        observed: hook.observe,
    });
}

/// A required hook that did not answer (or whose answer was taken after its timeout only
/// when complete) blocks the call, naming itself and the failure.
fn fail_closed(hook: &CommandHook, run: &Run, answer: &mut Answer) {
    if answer.block.is_none() && answer.failed && did_not_answer(&run.exit) {
        answer.block = Some(format!(
            "required hook `{}` ({}) {}, so the call is blocked: fix the hook, or stop requiring it",
            hook.kind.label(),
            hook.source.display(),
            answer.problems.first().map_or("failed", String::as_str)
        ));
    }
}

/// What kind of failure a command hook's problems are, by how its process ended: exit 0
/// or 2 with problems means its answer was not understood.
fn error_kind(exit: &Exit, timeout: std::time::Duration) -> HookErrorKind {
    match *exit {
        Exit::TimedOut => HookErrorKind::TimedOut(timeout),
        Exit::Signal(signal) => HookErrorKind::Crashed(Termination::Signal(signal)),
        Exit::Code(0 | 2) => HookErrorKind::Protocol,
        Exit::Code(_) | Exit::SpawnFailed(_) => HookErrorKind::Failed,
    }
}

/// The run of a hook that could not be run at all.
fn lost_run(hook: &CommandHook) -> Run {
    Run {
        exit: Exit::SpawnFailed(format!("the task running `{}` failed", hook.kind.label())),
        stdout: Vec::new(),
        stderr: Vec::new(),
        stdout_truncated: false,
        stderr_truncated: false,
        duration: std::time::Duration::ZERO,
    }
}

/// The lines hooks wrote to `CLAUDE_ENV_FILE`, read with the checks of every hook file: a
/// hook may have put a FIFO, a device or a huge file there (none yet: no lines).
fn read_env_file(path: &std::path::Path) -> Result<Vec<String>, crate::file::FileError> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let mut modes = StrictModes::new(home.as_deref());
    match read_checked(path, Limit::HooksFile, &mut modes) {
        Ok(file) => Ok(String::from_utf8_lossy(&file.bytes)
            .lines()
            .map(str::to_owned)
            .collect()),
        Err(crate::file::FileError::NotFound { .. }) => Ok(Vec::new()),
        Err(error) => Err(error),
    }
}
