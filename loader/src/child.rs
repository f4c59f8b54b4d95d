//! The plugin process's own side: loads one library with the agent's own loader and serves
//! it over the protocol on private file descriptors. It stands above the loader and the
//! hook it serves; the agent's side of the same process is `crate::remote`.

use std::{
    collections::HashMap,
    fs::File,
    io::BufWriter,
    sync::{
        atomic::{AtomicU64, AtomicUsize, Ordering},
        mpsc, Arc, Mutex,
    },
    thread,
};

use abi_stable::{
    sabi_trait::TD_Opaque,
    std_types::{RErr, RNone, ROk, ROption, RResult, RSlice, RSome, RStr, RString},
};
use agent_hooks_abi::ffi::{CallError, HostContext, HostContext_TO};
use serde_json::Value;

use crate::protocol::frames::{
    read_frame, write_frame, Answer, CallOutcome, FromPlugin, HostRequest, Limits, Registered,
    Target, ToPlugin, PROTOCOL_VERSION,
};
use crate::sync::LockUnpoisoned;
use crate::{
    hook::Hook,
    host::Forward,
    remote::{Inbound, Readers, CHILD_MARKER, SELF_SERVES},
};

/// The connection to the agent, shared by every thread of the plugin process.
struct Link {
    out: Mutex<BufWriter<File>>,
    pending: Mutex<HashMap<u64, mpsc::Sender<Answer>>>,
    next_id: AtomicU64,
}

impl Link {
    fn send(&self, message: &FromPlugin) -> bool {
        let mut out = self.out.lock_unpoisoned();
        write_frame(&mut *out, message).is_ok()
    }

    /// Asks the agent and waits for its answer.
    fn ask(&self, call: Option<u64>, request: HostRequest) -> Answer {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (sender, receiver) = mpsc::channel();
        self.pending.lock_unpoisoned().insert(id, sender);
        let sent = self.send(&FromPlugin::Request { id, call, request });
        let answer = if sent { receiver.recv().ok() } else { None };
        self.pending.lock_unpoisoned().remove(&id);
        answer.unwrap_or_else(|| Answer::Err {
            message: "the agent closed the connection".into(),
        })
    }

    fn answered(&self, id: u64, answer: Answer) {
        let waiting = self.pending.lock_unpoisoned().remove(&id);
        if let Some(waiting) = waiting {
            let _ = waiting.send(answer);
        }
    }

    /// Ends every wait: the agent is gone.
    fn close(&self) {
        self.pending.lock_unpoisoned().clear();
    }
}

impl Forward for Link {
    fn forward(&self, request: HostRequest) -> Answer {
        self.ask(None, request)
    }
}

/// What the threads of the plugin process share: the connection, the plugin once it is
/// loaded, what the agent says and how many threads wait to read it.
struct Served {
    link: Arc<Link>,
    loaded: Mutex<Option<(Arc<Hook>, String)>>,
    /// The agent's messages: read by one reading thread at a time; the others wait, and the
    /// next message wakes one of them.
    input: Inbound,
    /// Reading threads waiting for their turn (or about to).
    waiting: AtomicUsize,
    /// Loads and the goodbye, for the main thread.
    work: mpsc::Sender<ToPlugin>,
}

/// Runs the plugin process on `input`/`output` (the protocol's descriptors) until the agent
/// says goodbye or goes away.
fn serve_plugin(input: File, output: File) {
    let link = Arc::new(Link {
        out: Mutex::new(BufWriter::new(output)),
        pending: Mutex::default(),
        next_id: AtomicU64::new(1),
    });
    if !link.send(&FromPlugin::Hello {
        protocol: PROTOCOL_VERSION,
        interface_version: agent_hooks_abi::INTERFACE_VERSION.to_owned(),
        raw_payload: true,
    }) {
        return;
    }
    // A reader routes replies at once, so that a factory or a handler waiting for one never
    // blocks the reading of it; loads and the goodbye go to this thread.
    let (work, jobs) = mpsc::channel::<ToPlugin>();
    let served = Arc::new(Served {
        link: link.clone(),
        loaded: Mutex::new(None),
        input: Inbound::new(input, Readers::Threads),
        waiting: AtomicUsize::new(0),
        work,
    });
    start_reader(&served);

    for job in jobs {
        match job {
            ToPlugin::Load {
                library,
                image,
                given,
                cwd: cwd_path,
                limits,
            } => {
                apply_limits(&limits);
                let cwd = cwd_path.to_string_lossy().into_owned();
                let forward: Arc<dyn Forward> = link.clone();
                let answer = match crate::load::load_plugin_forwarding(
                    &given,
                    &library,
                    image.as_deref(),
                    &cwd_path,
                    forward,
                ) {
                    Ok(loaded) => {
                        let registered = registered_of(&loaded);
                        *served.loaded.lock_unpoisoned() = Some((Arc::new(loaded), cwd));
                        FromPlugin::Loaded(registered)
                    }
                    Err(error) => FromPlugin::LoadFailed { error },
                };
                link.send(&answer);
            }
            ToPlugin::Goodbye => break,
            ToPlugin::Call { .. } | ToPlugin::Reply { .. } => {}
        }
    }
}

/// Starts one more reading thread (counted as waiting from now on).
fn start_reader(served: &Arc<Served>) {
    served.waiting.fetch_add(1, Ordering::AcqRel);
    let reader = served.clone();
    let started = thread::Builder::new()
        .name("agent-hooks-call".into())
        .spawn(move || read_messages(&reader));
    if started.is_err() {
        served.waiting.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A reading thread: waits for its turn, then reads the agent's messages. A call runs on
/// the thread that read it, at once, once the reading is left to the threads that wait (one
/// more is started if none waits; the next message wakes one of them, so that the call's
/// requests get their replies and other calls run meanwhile): a call costs no hand-off
/// between reading it and running it, and no wake-up of another thread.
fn read_messages(served: &Arc<Served>) {
    'turns: loop {
        let mut input = served.input.turn();
        served.waiting.fetch_sub(1, Ordering::AcqRel);
        loop {
            let Ok(message) = read_frame::<ToPlugin>(&mut input) else {
                break 'turns;
            };
            match message {
                ToPlugin::Reply { id, result } => served.link.answered(id, result),
                ToPlugin::Call {
                    id,
                    target,
                    payload,
                } => {
                    let loaded = served.loaded.lock_unpoisoned().clone();
                    let Some((hook, cwd)) = loaded else {
                        served.link.send(&FromPlugin::Done {
                            id,
                            result: CallOutcome::Failed {
                                message: "no plugin is loaded".into(),
                                panicked: false,
                            },
                        });
                        continue;
                    };
                    if served.waiting.load(Ordering::Acquire) == 0 {
                        start_reader(served);
                    }
                    served.input.give_back(input);
                    let result = call(&hook, &served.link, &cwd, id, target, &payload);
                    served.link.send(&FromPlugin::Done { id, result });
                    served.waiting.fetch_add(1, Ordering::AcqRel);
                    continue 'turns;
                }
                other => {
                    if served.work.send(other).is_err() {
                        break 'turns;
                    }
                }
            }
            if input.buffered().is_empty() {
                served.waiting.fetch_add(1, Ordering::AcqRel);
                served.input.give_back(input);
                continue 'turns;
            }
        }
    }
    served.link.close();
    // The agent is gone: nothing more to do for anyone.
    std::process::exit(0);
}

fn registered_of(hook: &Hook) -> Registered {
    let (name, version) = match hook.origin() {
        crate::hook::HookOrigin::Plugin { name, version } => (name.clone(), version.clone()),
        _ => Default::default(),
    };
    Registered {
        name,
        version,
        handlers: hook
            .events()
            .flat_map(|kind| std::iter::repeat_n(kind.name().to_owned(), hook.handler_count(kind)))
            .collect(),
        commands: hook
            .commands()
            .iter()
            .map(|c| (c.name.clone(), c.description.clone()))
            .collect(),
        renderers: hook
            .renderers()
            .iter()
            .map(|r| r.custom_type.clone())
            .collect(),
        warnings: hook.warnings().to_vec(),
    }
}

/// Calls the plugin's code named by `target`, with a context that asks the agent.
fn call(
    hook: &Hook,
    link: &Arc<Link>,
    cwd: &str,
    id: u64,
    target: Target,
    payload: &str,
) -> CallOutcome {
    let context = RemoteContext {
        link: link.clone(),
        call: id,
        cwd: cwd.to_owned(),
    };
    let ctx = HostContext_TO::from_ptr(&context, TD_Opaque);
    let result: RResult<Option<String>, CallError> = match target {
        Target::Handler {
            event,
            index,
            serial,
        } => match event
            .parse()
            .ok()
            .and_then(|kind| hook.native_handler(kind, index))
        {
            Some(handler) => handler
                .handle(payload.into(), serial, ctx)
                .map(|output| output.into_option().map(RString::into_string)),
            None => RErr(CallError::error(format!(
                "the plugin has no handler {index} for {event}"
            ))),
        },
        Target::Command { index } => {
            match hook.commands().get(index).and_then(|c| c.handler.native()) {
                Some(handler) => handler.run(payload.into(), ctx).map(|()| None),
                None => RErr(CallError::error(format!(
                    "the plugin has no command {index}"
                ))),
            }
        }
        Target::Renderer { index, options } => match hook
            .renderers()
            .get(index)
            .and_then(|r| r.renderer.native())
        {
            Some(renderer) => renderer
                .render(payload.into(), options.as_str().into(), ctx)
                .map(|output| output.into_option().map(RString::into_string)),
            None => RErr(CallError::error(format!(
                "the plugin has no renderer {index}"
            ))),
        },
    };
    match result {
        ROk(output) => CallOutcome::Ok { output },
        RErr(error) => CallOutcome::Failed {
            message: error.message.into_string(),
            panicked: error.panicked,
        },
    }
}

/// Applies resource limits before the library is loaded.
fn apply_limits(limits: &Limits) {
    use nix::sys::resource::{setrlimit, Resource};
    if let Some(bytes) = limits.address_space {
        let _ = setrlimit(Resource::RLIMIT_AS, bytes, bytes);
    }
    if let Some(files) = limits.open_files {
        let _ = setrlimit(Resource::RLIMIT_NOFILE, files, files);
    }
}

/// The context of one call, in the plugin process: each method asks the agent, which
/// answers with the context of the call it is waiting for.
struct RemoteContext {
    link: Arc<Link>,
    call: u64,
    cwd: String,
}

impl RemoteContext {
    fn ask(&self, request: HostRequest) -> Result<Value, String> {
        match self.link.ask(Some(self.call), request) {
            Answer::Ok { value } => Ok(value),
            Answer::Err { message } => Err(message),
        }
    }

    fn bool(&self, request: HostRequest, fallback: bool) -> bool {
        self.ask(request)
            .ok()
            .and_then(|v| v.as_bool())
            .unwrap_or(fallback)
    }

    fn text(&self, request: HostRequest) -> RString {
        self.ask(request)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default()
            .into()
    }

    fn maybe_text(&self, request: HostRequest) -> ROption<RString> {
        match self
            .ask(request)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
        {
            Some(text) => RSome(text.into()),
            None => RNone,
        }
    }

    fn action(&self, request: HostRequest) -> RResult<RString, RString> {
        match self.ask(request) {
            Ok(value) => ROk(value.as_str().unwrap_or_default().into()),
            Err(message) => RErr(message.into()),
        }
    }
}

fn s(text: RStr<'_>) -> String {
    text.as_str().to_owned()
}

impl HostContext for RemoteContext {
    fn has_ui(&self) -> bool {
        self.bool(HostRequest::HasUi, false)
    }

    fn cwd(&self) -> RString {
        self.cwd.as_str().into()
    }

    fn session(&self) -> RString {
        self.text(HostRequest::Session)
    }

    fn model(&self) -> RString {
        self.text(HostRequest::Model)
    }

    fn is_idle(&self) -> bool {
        self.bool(HostRequest::IsIdle, true)
    }

    fn abort(&self) {
        let _ = self.ask(HostRequest::Abort);
    }

    fn has_queued_messages(&self) -> bool {
        self.bool(HostRequest::HasQueuedMessages, false)
    }

    fn ui_select(&self, title: RStr<'_>, options: RSlice<'_, RString>) -> ROption<RString> {
        self.maybe_text(HostRequest::UiSelect {
            title: s(title),
            options: options.iter().map(|o| o.to_string()).collect(),
        })
    }

    fn ui_confirm(&self, title: RStr<'_>, message: RStr<'_>) -> bool {
        self.bool(
            HostRequest::UiConfirm {
                title: s(title),
                message: s(message),
            },
            false,
        )
    }

    fn ui_input(&self, title: RStr<'_>, placeholder: RStr<'_>) -> ROption<RString> {
        self.maybe_text(HostRequest::UiInput {
            title: s(title),
            placeholder: s(placeholder),
        })
    }

    fn ui_editor(&self, title: RStr<'_>, prefill: RStr<'_>) -> ROption<RString> {
        self.maybe_text(HostRequest::UiEditor {
            title: s(title),
            prefill: s(prefill),
        })
    }

    fn ui_notify(&self, message: RStr<'_>, level: RStr<'_>) {
        let _ = self.ask(HostRequest::UiNotify {
            message: s(message),
            level: s(level),
        });
    }

    fn ui_set_status(&self, key: RStr<'_>, text: ROption<RStr<'_>>) {
        let _ = self.ask(HostRequest::UiSetStatus {
            key: s(key),
            text: text.into_option().map(s),
        });
    }

    fn ui_custom(&self, kind: RStr<'_>, data: RStr<'_>) -> ROption<RString> {
        self.maybe_text(HostRequest::UiCustom {
            kind: s(kind),
            data: s(data),
        })
    }

    fn ui_set_editor_text(&self, text: RStr<'_>) {
        let _ = self.ask(HostRequest::UiSetEditorText { text: s(text) });
    }

    fn ui_get_editor_text(&self) -> RString {
        self.text(HostRequest::UiGetEditorText)
    }

    fn ui_theme(&self) -> RString {
        self.text(HostRequest::UiTheme)
    }

    fn wait_for_idle(&self) -> RResult<(), RString> {
        match self.ask(HostRequest::WaitForIdle) {
            Ok(_) => ROk(()),
            Err(message) => RErr(message.into()),
        }
    }

    fn new_session(&self, options: RStr<'_>) -> RResult<RString, RString> {
        self.action(HostRequest::NewSession {
            options: s(options),
        })
    }

    fn branch(&self, entry_id: RStr<'_>) -> RResult<RString, RString> {
        self.action(HostRequest::Branch {
            entry_id: s(entry_id),
        })
    }

    fn navigate_tree(&self, target_id: RStr<'_>, options: RStr<'_>) -> RResult<RString, RString> {
        self.action(HostRequest::NavigateTree {
            target_id: s(target_id),
            options: s(options),
        })
    }

    fn call(&self, service: RStr<'_>, request: RStr<'_>) -> RResult<RString, RString> {
        self.action(HostRequest::Service {
            service: s(service),
            request: s(request),
        })
    }
}

/// Makes this program able to run plugin processes, and runs one if this process was
/// started as one. Call it first thing in the agent's `main`: when the process is a plugin
/// process it serves the plugin and exits; otherwise it returns at once, and the agent's
/// plugin processes are started from its own program.
///
/// Without this call, the agent looks for its plugin-host program in `$AGENT_HOOKS_PLUGIN_HOST`,
/// then for the `agent-hooks` command next to its own program (or set
/// [`LoadOptions::plugin_host`](crate::load::LoadOptions::plugin_host)).
pub fn serve_if_plugin_process() {
    SELF_SERVES.store(true, std::sync::atomic::Ordering::Relaxed);
    crate::supervisor::keeper::serve_if_keeper();
    if std::env::var_os(CHILD_MARKER).is_none() {
        return;
    }
    // Still one thread: nothing reads the environment concurrently. The marker must not
    // reach programs the plugin runs.
    std::env::remove_var(CHILD_MARKER);
    std::process::exit(run_plugin_process());
}

fn run_plugin_process() -> i32 {
    #[cfg(target_os = "linux")]
    {
        // Die with the agent, even if it is killed with SIGKILL.
        let _ = nix::sys::prctl::set_pdeathsig(nix::sys::signal::Signal::SIGKILL);
    }
    let Some((input, output)) = private_protocol_fds() else {
        eprintln!("agent-hooks plugin process: cannot set up its connection to the agent");
        return 2;
    };
    serve_plugin(input, output);
    0
}

/// Moves the protocol off stdin and stdout, so that a plugin that prints (or reads) cannot
/// corrupt it: the protocol gets private descriptors (closed on exec, so that the programs
/// a plugin runs do not get them), stdin becomes `/dev/null` and stdout goes to stderr,
/// which the agent keeps.
fn private_protocol_fds() -> Option<(std::fs::File, std::fs::File)> {
    use std::os::fd::AsFd;
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    // Close-on-exec: a program the plugin runs must neither speak the protocol in its name
    // nor hold the connection open once the plugin process has ended.
    let input = stdin.as_fd().try_clone_to_owned().ok()?;
    let output = stdout.as_fd().try_clone_to_owned().ok()?;
    let null = std::fs::File::open("/dev/null").ok()?;
    nix::unistd::dup2_stdin(null.as_fd()).ok()?;
    nix::unistd::dup2_stdout(std::io::stderr().as_fd()).ok()?;
    Some((input.into(), output.into()))
}
