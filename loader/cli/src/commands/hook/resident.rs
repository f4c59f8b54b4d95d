//! `hook`'s side of the resident process (`serve`): one request to it (see
//! [`crate::relay`]), which starts it when it is not running. Any failure is an error the
//! caller answers by running the hooks itself.

use super::HookArgs;
use crate::{
    options::Common,
    relay::{self, Header, Reply, VERSION},
};

/// Sends one event to the resident process and gives its answer.
pub fn ask(common: &Common, args: &HookArgs, payload: &[u8]) -> Result<Reply, String> {
    let (home, xdg) = relay::user()?;
    let cwd = match &common.cwd {
        Some(dir) => std::path::absolute(dir).map_err(|e| e.to_string())?,
        None => std::env::current_dir().map_err(|e| e.to_string())?,
    };
    let header = Header {
        v: VERSION,
        agent: args.agent.hook_name().into(),
        event: args.event.clone(),
        with: args.with.iter().map(|a| a.hook_name().to_owned()).collect(),
        home,
        xdg_config_home: xdg,
        cwd,
        hooks: common.hooks.clone(),
        no_discover: common.no_discover,
        trust_project: common.trust_project,
        required: common.required.clone(),
        in_process: common.in_process,
        env: Some(relay::environment()),
        agent_pid: relay::agent_pid(),
        status: false,
        length: None,
        ui: None,
        keep: false,
        program: Some(relay::program_version()),
    };
    let program = std::env::current_exe().map_err(|e| e.to_string())?;
    relay::ask(&header, payload, &program)
}
