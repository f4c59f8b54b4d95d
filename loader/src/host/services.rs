//! The host services this agent offers through the boundary's generic `call` (see
//! `agent_hooks_abi::services`): what grows within a major version of the interface.

use abi_stable::std_types::{RErr, ROk, RResult, RString};
use agent_hooks_abi::services::{ServiceError, CONFIG, INTERFACE, LOG, PLUGIN, REQUIRE};
use serde::Deserialize;

/// What the hook's API serves (outside any call, or from the factory). `plugin`, `config`
/// and `log` (interface 1.1) are answered by the hook's API itself, which knows the plugin.
pub(crate) const API_SERVICES: &[&str] = &[INTERFACE, REQUIRE, PLUGIN, CONFIG, LOG];

/// What a call's context serves.
pub(crate) const CONTEXT_SERVICES: &[&str] = &[INTERFACE];

/// A plugin's declaration that it needs a service.
#[derive(Deserialize)]
pub(crate) struct Requirement {
    /// The service.
    pub(crate) service: String,
    /// The interface version (`major.minor`) the plugin was built against.
    #[serde(default)]
    pub(crate) needs: String,
}

/// Answers `service` if it is among `offered`. `require` succeeds when this agent offers
/// the required service.
pub(crate) fn answer_service(
    service: &str,
    request: &str,
    offered: &[&str],
) -> Result<String, ServiceError> {
    if !offered.contains(&service) {
        return Err(ServiceError::unsupported(service));
    }
    match service {
        INTERFACE => {
            Ok(serde_json::json!({ "version": agent_hooks_abi::INTERFACE_VERSION }).to_string())
        }
        REQUIRE => {
            let requirement: Requirement = serde_json::from_str(request)
                .map_err(|e| ServiceError::failed(service, format!("invalid request: {e}")))?;
            if API_SERVICES.contains(&requirement.service.as_str()) {
                Ok("null".to_owned())
            } else {
                Err(ServiceError::unsupported(&requirement.service))
            }
        }
        _ => Err(ServiceError::unsupported(service)),
    }
}

/// [`serve`]'s answer as it crosses the boundary.
pub(crate) fn to_abi(answer: Result<String, ServiceError>) -> RResult<RString, RString> {
    match answer {
        Ok(json) => ROk(json.into()),
        Err(error) => RErr(error.to_json().into()),
    }
}
