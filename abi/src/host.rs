//! For hosts: run a hook factory in process, through the same boundary types as a plugin.

use crate::{
    ffi::{CallError, HostApiBox},
    sdk::{guard, HandlerResult, HookApi},
};

/// Runs `factory` with the host API object `host`, as the loader does for a plugin library:
/// its registrations reach `host`, and an error or a panic comes back as a [`CallError`].
///
/// This is how a host registers hooks that live in its own binary; their handlers are the
/// same boundary objects as a plugin's, so they go through the same dispatch.
pub fn run_factory<F>(host: HostApiBox, factory: F) -> Result<(), CallError>
where
    F: FnOnce(&mut HookApi) -> HandlerResult<()>,
{
    guard::guarded(|| {
        let mut api = HookApi::new(host);
        factory(&mut api).map_err(|e| CallError::error(e.to_string()))
    })
}
