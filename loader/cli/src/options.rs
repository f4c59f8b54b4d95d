//! The options every subcommand takes, and what a subcommand returns.

use std::{path::PathBuf, process::ExitCode};

use clap::Args;

/// Options every subcommand takes.
#[derive(Args, Clone, Debug)]
pub struct Common {
    /// The project folder (default: the current folder).
    #[arg(long, global = true, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// A plugin library, a hooks JSON file, or a folder of hooks, added to what discovery
    /// finds. Repeatable.
    #[arg(long = "hook", global = true, value_name = "PATH")]
    pub hooks: Vec<String>,
    /// Use only the --hook paths: no discovery.
    #[arg(long, global = true)]
    pub no_discover: bool,
    /// Trust the project's hooks for this run.
    #[arg(long, global = true)]
    pub trust_project: bool,
    /// Machine-readable output on stdout (JSON; JSON Lines for replay).
    #[arg(long, global = true)]
    pub json: bool,
    /// Fail closed: exit with code 1 when any hook failed to load (emit, replay).
    #[arg(long, global = true)]
    pub strict: bool,
    /// A hook that must run (a `type:tool:name` key, a file name or a path): when it is not
    /// running, every tool call is blocked. Repeatable.
    #[arg(long = "require", global = true, value_name = "ID")]
    pub required: Vec<String>,
    /// Load plugins in this process instead of each in a plugin process of its own: faster
    /// calls, but a plugin that crashes takes the command down with it.
    #[arg(long, global = true)]
    pub in_process: bool,
    /// Who answers hooks' prompts (emit, replay, command): `no` (no UI: confirm says no),
    /// `yes` (a user who accepts everything), or a JSON file of answers (in order, or keyed
    /// by the prompt's title).
    #[arg(long, global = true, value_name = "yes|no|FILE", default_value = "no")]
    pub ui: String,
    /// What the agent's MCP servers and model answer `mcp_tool`, `prompt` and `agent`
    /// hooks (emit, replay, command): a JSON file of answers (docs/cli.md). Without it,
    /// those hooks are reported as not supported by this agent.
    #[arg(long, global = true, value_name = "FILE")]
    pub host_script: Option<String>,
    /// Show plugins' log records on stderr: `-v` info, `-vv` debug, `-vvv` trace
    /// (warnings and errors always).
    #[arg(short = 'v', long = "verbose", action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
}

/// What a subcommand returns: its exit code, or an error that stops it.
pub type Outcome = Result<ExitCode, Box<dyn std::error::Error>>;
