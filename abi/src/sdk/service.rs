//! The plugin side of host services: a typed request in, a typed answer or
//! [`ServiceError`] out, over the boundary's generic `call`.

use abi_stable::std_types::{RResult, RString};
use serde::{de::DeserializeOwned, Serialize};

use crate::{
    ffi::{HostApiBox, HostContextRef},
    services::{major_minor, ServiceError},
};

/// The interface version (`major.minor`) this plugin was built against: what it needs.
pub(crate) fn built_against() -> String {
    major_minor(crate::INTERFACE_VERSION)
}

/// A boundary object with the generic `call`: the host API or a call's context.
pub(crate) trait RawCall {
    /// The boundary's `call`.
    fn raw_call(&self, service: &str, request: &str) -> RResult<RString, RString>;
}

impl RawCall for HostApiBox {
    fn raw_call(&self, service: &str, request: &str) -> RResult<RString, RString> {
        self.call(service.into(), request.into())
    }
}

impl RawCall for HostContextRef<'_> {
    fn raw_call(&self, service: &str, request: &str) -> RResult<RString, RString> {
        self.call(service.into(), request.into())
    }
}

/// Serialises `request`, calls `service` through `raw`, and reads the answer.
pub(crate) fn call<T: DeserializeOwned>(
    raw: &impl RawCall,
    service: &str,
    request: &impl Serialize,
) -> Result<T, ServiceError> {
    let request = serde_json::to_string(request)
        .map_err(|e| ServiceError::failed(service, format!("cannot encode the request: {e}")))?;
    match raw.raw_call(service, &request).into_result() {
        Ok(answer) => serde_json::from_str(&answer).map_err(|e| {
            ServiceError::failed(service, format!("cannot read the host's answer: {e}"))
        }),
        Err(text) => Err(ServiceError::from_json(service, &text, &built_against())),
    }
}
