//! The options of the subcommands, in groups each subcommand takes as it needs them, what
//! they come to together ([`Common`]), and what a subcommand returns.
//!
//! Each subcommand shows and accepts its own options only. The options given before the
//! subcommand (`agent-hooks --json list`), as earlier versions took them, are still read for
//! this release, with a warning that says where they go now ([`Before`]).

use std::{path::PathBuf, process::ExitCode};

use clap::Args;

/// Where the hooks are and how they load: the options of the commands that find, list or
/// run hooks.
#[derive(Args, Clone, Debug, Default)]
pub struct HookOptions {
    /// The project folder (default: the current folder).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// A plugin library, a hooks JSON file, or a folder of hooks, added to what discovery
    /// finds. Repeatable.
    #[arg(long = "hook", value_name = "PATH")]
    pub hooks: Vec<String>,
    /// Use only the --hook paths: no discovery.
    #[arg(long)]
    pub no_discover: bool,
    /// Trust the project's hooks for this run.
    #[arg(long)]
    pub trust_project: bool,
    /// A hook that must run (a `type:tool:name` key, a file name or a path): when it is not
    /// running, every tool call is blocked. Repeatable.
    #[arg(long = "require", value_name = "ID")]
    pub required: Vec<String>,
    /// Load plugins in this process instead of each in a plugin process of its own: faster
    /// calls, but a plugin that crashes takes the command down with it.
    #[arg(long)]
    pub in_process: bool,
}

/// `--json`.
#[derive(Args, Clone, Debug, Default)]
pub struct JsonOption {
    /// Machine-readable output on stdout (JSON; JSON Lines for replay).
    #[arg(long)]
    pub json: bool,
}

/// `--cwd` alone: the commands that act on a project without running its hooks.
#[derive(Args, Clone, Debug, Default)]
pub struct CwdOption {
    /// The project folder (default: the current folder).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
}

/// How hooks that ask are answered, and how strict loading is: the options of the commands
/// that fire events themselves (emit, replay, command, demo).
#[derive(Args, Clone, Debug, Default)]
pub struct RunOptions {
    /// Fail closed: exit with code 1 when any hook failed to load.
    #[arg(long)]
    pub strict: bool,
    /// Who answers hooks' prompts: `no` (no UI: confirm says no), `yes` (a user who accepts
    /// everything), or a JSON file of answers (in order, or keyed by the prompt's title).
    /// Default: no.
    #[arg(long, value_name = "yes|no|FILE")]
    pub ui: Option<String>,
    /// What the agent's MCP servers and model answer `mcp_tool`, `prompt` and `agent`
    /// hooks: a JSON file of answers (docs/cli.md). Without it, those hooks are reported as
    /// not supported by this agent.
    #[arg(long, value_name = "FILE")]
    pub host_script: Option<String>,
}

/// The options earlier versions took before the subcommand, read for this release (hidden
/// from the help): each one given is merged with the subcommand's own, with a warning.
#[derive(Args, Clone, Debug, Default)]
pub struct Before {
    #[arg(long = "cwd", value_name = "DIR", hide = true)]
    cwd: Option<PathBuf>,
    #[arg(long = "hook", value_name = "PATH", hide = true)]
    hooks: Vec<String>,
    #[arg(long = "no-discover", hide = true)]
    no_discover: bool,
    #[arg(long = "trust-project", hide = true)]
    trust_project: bool,
    #[arg(long = "json", hide = true)]
    json: bool,
    #[arg(long = "strict", hide = true)]
    strict: bool,
    #[arg(long = "require", value_name = "ID", hide = true)]
    required: Vec<String>,
    #[arg(long = "in-process", hide = true)]
    in_process: bool,
    #[arg(long = "ui", value_name = "yes|no|FILE", hide = true)]
    ui: Option<String>,
    #[arg(long = "host-script", value_name = "FILE", hide = true)]
    host_script: Option<String>,
}

impl Before {
    /// The options given, as the user wrote them.
    fn given(&self) -> Vec<&'static str> {
        [
            (self.cwd.is_some(), "--cwd"),
            (!self.hooks.is_empty(), "--hook"),
            (self.no_discover, "--no-discover"),
            (self.trust_project, "--trust-project"),
            (self.json, "--json"),
            (self.strict, "--strict"),
            (!self.required.is_empty(), "--require"),
            (self.in_process, "--in-process"),
            (self.ui.is_some(), "--ui"),
            (self.host_script.is_some(), "--host-script"),
        ]
        .into_iter()
        .filter_map(|(given, name)| given.then_some(name))
        .collect()
    }

    /// What is said of the options given before the subcommand `command`: those it takes
    /// go after it now; those it does not take are ignored, as they always were, and said so.
    /// `install` and `uninstall` refuse the options of the commands that run hooks
    /// themselves, with what to do instead.
    pub fn warnings(&self, command: &str, takes: impl Fn(&str) -> bool) -> Vec<String> {
        let given = self.given();
        let (taken, ignored): (Vec<&str>, Vec<&str>) =
            given.into_iter().partition(|name| takes(name));
        let mut said = Vec::new();
        if !taken.is_empty() {
            said.push(format!(
                "agent-hooks: {} before the command is read for this release only: write {} after it (`agent-hooks {command} {} ...`)",
                taken.join(", "),
                if taken.len() == 1 { "it" } else { "them" },
                taken.join(" ... ")
            ));
        }
        if !ignored.is_empty() && !matches!(command, "install" | "uninstall") {
            said.push(format!(
                "agent-hooks: {command} does not take {}: ignored",
                ignored.join(", ")
            ));
        }
        said
    }
}

/// The options of the commands that run hooks, which `install` and `uninstall` take only to
/// refuse them with what to do instead (hidden from their help).
#[derive(Args, Clone, Debug, Default)]
pub struct Unapplied {
    #[arg(long = "hook", value_name = "PATH", hide = true)]
    hooks: Vec<String>,
    #[arg(long = "no-discover", hide = true)]
    no_discover: bool,
    #[arg(long = "trust-project", hide = true)]
    trust_project: bool,
    #[arg(long = "json", hide = true)]
    json: bool,
    #[arg(long = "strict", hide = true)]
    strict: bool,
    #[arg(long = "require", value_name = "ID", hide = true)]
    required: Vec<String>,
    #[arg(long = "in-process", hide = true)]
    in_process: bool,
    #[arg(long = "ui", value_name = "yes|no|FILE", hide = true)]
    ui: Option<String>,
    #[arg(long = "host-script", value_name = "FILE", hide = true)]
    host_script: Option<String>,
}

impl Unapplied {
    /// These with those given `before` the subcommand, as one set to refuse.
    pub fn with(self, before: Before) -> Before {
        let mut hooks = before.hooks;
        hooks.extend(self.hooks);
        let mut required = before.required;
        required.extend(self.required);
        Before {
            cwd: before.cwd,
            hooks,
            no_discover: self.no_discover || before.no_discover,
            trust_project: self.trust_project || before.trust_project,
            json: self.json || before.json,
            strict: self.strict || before.strict,
            required,
            in_process: self.in_process || before.in_process,
            ui: self.ui.or(before.ui),
            host_script: self.host_script.or(before.host_script),
        }
    }
}

/// What a subcommand's options come to: its own, with those given before it.
#[derive(Clone, Debug, Default)]
pub struct Common {
    /// The project folder (default: the current folder).
    pub cwd: Option<PathBuf>,
    /// `--hook` paths.
    pub hooks: Vec<String>,
    /// `--no-discover`.
    pub no_discover: bool,
    /// `--trust-project`.
    pub trust_project: bool,
    /// `--json`.
    pub json: bool,
    /// `--strict`.
    pub strict: bool,
    /// `--require` ids.
    pub required: Vec<String>,
    /// `--in-process`.
    pub in_process: bool,
    /// `--ui` (`no` when not given).
    pub ui: String,
    /// `--host-script`.
    pub host_script: Option<String>,
    /// `-v` counted.
    pub verbose: u8,
}

impl Common {
    /// The options of a subcommand: `before` it, then its own groups (those it does not
    /// take are `None`).
    pub fn of(
        before: Before,
        verbose: u8,
        hooks: Option<HookOptions>,
        json: Option<JsonOption>,
        run: Option<RunOptions>,
        cwd: Option<CwdOption>,
    ) -> Common {
        let hooks = hooks.unwrap_or_default();
        let run = run.unwrap_or_default();
        let mut common = Common {
            cwd: hooks.cwd.or(cwd.and_then(|c| c.cwd)).or(before.cwd),
            hooks: before.hooks,
            no_discover: hooks.no_discover || before.no_discover,
            trust_project: hooks.trust_project || before.trust_project,
            json: json.is_some_and(|j| j.json) || before.json,
            strict: run.strict || before.strict,
            required: before.required,
            in_process: hooks.in_process || before.in_process,
            ui: run.ui.or(before.ui).unwrap_or_else(|| "no".to_owned()),
            host_script: run.host_script.or(before.host_script),
            verbose,
        };
        common.hooks.extend(hooks.hooks);
        common.required.extend(hooks.required);
        common
    }
}

/// What a subcommand returns: its exit code, or an error that stops it.
pub type Outcome = Result<ExitCode, Box<dyn std::error::Error>>;

/// The parser of an agent's name (`--agent`, `--with`): the registry's agents that run
/// agent-hooks, in any case, each also by its full name; `--help` lists them, so that the
/// help of a new agent is its registry line.
pub fn agent_names() -> impl clap::builder::TypedValueParser<Value = agent_hooks::agents::Agent> {
    use agent_hooks::agents::Agent;
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    PossibleValuesParser::new(Agent::hooked().map(|a| {
        let value = PossibleValue::new(a.hook_name());
        if a.name() == a.hook_name() {
            value
        } else {
            value.alias(a.name())
        }
    }))
    .try_map(|name| name.parse::<Agent>())
}
