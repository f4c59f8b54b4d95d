//! The host services the kit offers through `call`; the others answer
//! [`ServiceError::Unsupported`], as an older host would.

use abi_stable::std_types::{RResult, RString};
use serde::Deserialize;

use super::{
    record::Call,
    state::{lock, Shared},
};
use crate::services::{
    LogLevel, LogRecord, PluginInfo, ServiceError, CONFIG, INTERFACE, LOG, PLUGIN, REQUIRE,
};

/// The services the kit offers, from the host API and from a call's context alike.
pub const OFFERED: &[&str] = &[INTERFACE, REQUIRE, PLUGIN, CONFIG, LOG];

#[derive(Deserialize)]
struct Requirement {
    service: String,
}

fn to_json(service: &str, value: &impl serde::Serialize) -> Result<String, ServiceError> {
    serde_json::to_string(value)
        .map_err(|e| ServiceError::failed(service, format!("cannot write the answer: {e}")))
}

fn read<'a, T: Deserialize<'a>>(service: &str, request: &'a str) -> Result<T, ServiceError> {
    serde_json::from_str(request)
        .map_err(|e| ServiceError::failed(service, format!("invalid request: {e}")))
}

fn serve(shared: &Shared, service: &str, request: &str) -> Result<String, ServiceError> {
    match service {
        INTERFACE => Ok(serde_json::json!({ "version": crate::INTERFACE_VERSION }).to_string()),
        REQUIRE => {
            let required: Requirement = read(service, request)?;
            if OFFERED.contains(&required.service.as_str()) {
                Ok("null".to_owned())
            } else {
                Err(ServiceError::unsupported(&required.service))
            }
        }
        PLUGIN => {
            let state = lock(shared);
            let world = &state.world;
            let info = PluginInfo {
                path: world.plugin_path.clone(),
                project_dir: world.project_dir.clone().unwrap_or(world.cwd.clone()),
                has_ui: world.has_ui,
                // Every record is kept, so that a test reads them all.
                log_level: Some(LogLevel::Trace),
            };
            to_json(service, &info)
        }
        CONFIG => to_json(service, &lock(shared).world.config),
        LOG => {
            let record: LogRecord = read(service, request)?;
            lock(shared).calls.push(Call::Log(record));
            Ok("null".to_owned())
        }
        _ => Err(ServiceError::unsupported(service)),
    }
}

/// Answers `service` with `request`, as it crosses the boundary.
pub(crate) fn call(shared: &Shared, service: &str, request: &str) -> RResult<RString, RString> {
    serve(shared, service, request)
        .map(RString::from)
        .map_err(|e| RString::from(e.to_json()))
        .into()
}
