//! The host services the kit offers through `call`; the others answer
//! [`ServiceError::Unsupported`], as an older host would.

use abi_stable::std_types::{RResult, RString};
use serde::Deserialize;

use super::state::Shared;
use crate::services::{ServiceError, INTERFACE, REQUIRE};

/// The services the kit offers, from the host API and from a call's context alike.
pub const OFFERED: &[&str] = &[INTERFACE, REQUIRE];

#[derive(Deserialize)]
struct Requirement {
    service: String,
}

/// Answers `service` with `request`.
pub(crate) fn call(_shared: &Shared, service: &str, request: &str) -> RResult<RString, RString> {
    let answer = match service {
        INTERFACE => Ok(serde_json::json!({ "version": crate::INTERFACE_VERSION }).to_string()),
        REQUIRE => serde_json::from_str::<Requirement>(request)
            .map_err(|e| ServiceError::failed(service, format!("invalid request: {e}")))
            .and_then(|required| {
                if OFFERED.contains(&required.service.as_str()) {
                    Ok("null".to_owned())
                } else {
                    Err(ServiceError::unsupported(&required.service))
                }
            }),
        _ => Err(ServiceError::unsupported(service)),
    };
    answer
        .map(RString::from)
        .map_err(|e| RString::from(e.to_json()))
        .into()
}
