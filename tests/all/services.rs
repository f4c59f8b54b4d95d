//! Host services, the way the interface grows within a major version: a plugin reaches the
//! services this agent offers through the generic `call`, gets a typed "unsupported" error
//! for one it does not offer (never a panic), and a plugin that declares such a service as
//! required is refused at load with advice to upgrade the agent. In process and in a plugin
//! process alike (the protocol carries the same call).

use std::path::Path;

use agent_hooks::{
    abi::{prelude::*, services::major_minor, INTERFACE_VERSION},
    load_hooks_with, HookRunner, LoadHooksResult, LoadOptions,
};
use agent_hooks_tests::{isolated, plugin, s, temp_dir};

fn in_process() -> LoadOptions {
    LoadOptions::in_process()
}

fn load(package: &str, dir: &Path, options: &LoadOptions) -> LoadHooksResult {
    load_hooks_with([s(&plugin(package))], dir, options)
}

fn services_answer(options: &LoadOptions) {
    let dir = temp_dir();
    let loaded = load("services", dir.path(), options);
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    let runner = HookRunner::new(loaded.hooks, dir.path());
    let outcome = runner
        .emit_blocking(&ToolCallEvent::new("exec", "call-1", json!({})))
        .expect("the call is answered");
    let unsupported = format!(
        "this host does not offer `future_service`: interface {0}, the plugin needs {0}",
        major_minor(INTERFACE_VERSION)
    );
    assert_eq!(
        outcome.input,
        Some(json!({
            "host_interface": {"ok": INTERFACE_VERSION},
            "context_interface": {"ok": {"version": INTERFACE_VERSION}},
            "host_future": {"err": unsupported},
            "context_future": {"err": unsupported},
        }))
    );
}

#[test]
fn services_answer_in_process_and_an_unknown_one_is_a_typed_error() {
    services_answer(&in_process());
}

#[test]
fn services_answer_in_a_plugin_process_and_an_unknown_one_is_a_typed_error() {
    services_answer(&isolated());
}

fn required_service_refused(options: &LoadOptions) {
    let dir = temp_dir();
    let loaded = load("requires-future", dir.path(), options);
    assert!(loaded.hooks.is_empty());
    assert_eq!(loaded.errors.len(), 1, "{:?}", loaded.errors);
    assert_eq!(
        loaded.errors[0].error.to_string(),
        format!(
            "{} requires the host service `future_service` (agent-hooks-abi {}), which this agent does not offer (it implements agent-hooks-abi {INTERFACE_VERSION}): upgrade the agent",
            plugin("requires-future").display(),
            major_minor(INTERFACE_VERSION),
        )
    );
}

#[test]
fn a_required_service_the_agent_lacks_refuses_the_plugin_in_process() {
    required_service_refused(&in_process());
}

#[test]
fn a_required_service_the_agent_lacks_refuses_the_plugin_in_a_plugin_process() {
    required_service_refused(&isolated());
}
