//! The session that answers an agent's events, for `hook`, the resident process and
//! `install` (which wires the events its hooks use): `hook`'s options, and discovery without
//! the calling agent's own hooks files, which that agent runs itself.

use std::path::PathBuf;

use agent_hooks::{
    agents::Agent,
    command_hook::CommandHook,
    discover::{builtin_providers, managed_providers, DiscoveryProvider, Level},
};

use crate::{
    options::{agent_names, Common},
    session::Session,
};

/// `agent-hooks hook`'s options.
#[derive(Debug, Clone, clap::Args)]
pub struct HookArgs {
    /// The agent that runs this command.
    #[arg(long, value_name = "NAME", value_parser = agent_names(), ignore_case = true)]
    pub agent: Agent,
    /// The event, when the agent's payload does not name it (an agent whose hooks file names
    /// the event in the command it runs).
    #[arg(long, value_name = "NAME")]
    pub event: Option<String>,
    /// Also run these agents' hooks files (comma-separated; those of the agents that have
    /// files of their own).
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "AGENTS",
        value_parser = agent_names(),
        ignore_case = true,
    )]
    pub with: Vec<Agent>,
    /// Run the hooks in this process, not through the resident process.
    #[arg(long)]
    pub no_serve: bool,
}

/// The session of one `hook` call: discovery without the calling agent's own hooks files,
/// nor other agents' unless named with `--with`, nor any hook entry that is agent-hooks
/// itself (an agent wired to agent-hooks has one in its file).
pub fn open(common: &Common, args: &HookArgs) -> Result<Session, Box<dyn std::error::Error>> {
    open_for(common, args, None)
}

/// [`open`] for a user whose home (and `XDG_CONFIG_HOME`) are given, not this process's.
pub fn open_for(
    common: &Common,
    args: &HookArgs,
    user: Option<(PathBuf, Option<PathBuf>)>,
) -> Result<Session, Box<dyn std::error::Error>> {
    open_at(common, args, user, false)
}

/// [`open_for`]; with `user_level_only`, without the project's hooks (what an entry in the
/// user's own file serves in every project).
pub fn open_at(
    common: &Common,
    args: &HookArgs,
    user: Option<(PathBuf, Option<PathBuf>)>,
    user_level_only: bool,
) -> Result<Session, Box<dyn std::error::Error>> {
    let agent = args.agent;
    let with = args.with.clone();
    Session::build_keeping(
        common,
        |options| {
            if let Some((home, xdg)) = user {
                options.config_dir = Some(match xdg {
                    Some(xdg) => xdg.join(&options.app_name),
                    None => home.join(".config").join(&options.app_name),
                });
                options.home = Some(home);
            }
            // The calling agent runs its own managed hooks; other agents' run only when
            // named with `--with`. Their rules apply either way; agent-hooks' own run.
            options.managed_rules_only = managed_providers()
                .iter()
                .filter(|p| {
                    p.agent().is_some_and(|of| {
                        of != Agent::AgentHooks && (of == agent || !with.contains(&of))
                    })
                })
                .map(|p| p.name().to_owned())
                .collect();
            if !options.builtin_providers {
                return;
            }
            options.builtin_providers = false;
            // Never the calling agent's own files, nor those of an agent that does not run
            // agent-hooks (no `hook_name` in its profile); another agent's only when named
            // with `--with`.
            let wanted = |p: &dyn DiscoveryProvider| match p.agent() {
                _ if user_level_only && p.level() == Some(Level::Project) => false,
                None => true,
                Some(_) if runs_itself(agent, p) => false,
                Some(of) => of.profile().hook_name.is_some() && with.contains(&of),
            };
            let mut providers: Vec<_> = builtin_providers()
                .into_iter()
                .filter(|p| wanted(p.as_ref()))
                .collect();
            // The calling agent's hooks that `install --take-over` moved under agent-hooks
            // run here (the agent no longer runs them); other agents' only with `--with`.
            options.extra_providers.retain(|p| {
                p.agent().is_none_or(|of| of == agent || with.contains(&of))
                    && !(user_level_only && p.level() == Some(Level::Project))
            });
            providers.append(&mut options.extra_providers);
            options.extra_providers = providers;
        },
        |hook: &CommandHook| !crate::wiring::is_wiring(hook),
        |_| {},
    )
}

/// Whether `agent` runs the hooks files `provider` finds itself: its own, and those of
/// another agent it also reads at the project level (its profile's
/// `also_runs_project_files_of`).
fn runs_itself(agent: Agent, provider: &dyn DiscoveryProvider) -> bool {
    let Some(of) = provider.agent() else {
        return false;
    };
    of == agent
        || (provider.level() == Some(Level::Project)
            && agent.profile().also_runs_project_files_of.contains(&of))
}
