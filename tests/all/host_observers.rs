//! What a host learns beyond messages and entries: every program a hook runs with `exec`
//! (`AgentHost::program_ran`), and a UI that records calls while saying no user is there
//! (`AgentHost::has_ui`), with the plugin in a plugin process and in process.

use std::sync::{Arc, Mutex};

use agent_hooks::{
    abi::{events::ToolCallEvent, NotifyLevel},
    load_hooks_with, AgentHost, HookRunner, HostUi, LoadOptions, ProgramRun,
};
use agent_hooks_tests::{isolated, plugin, s, temp_dir};
use serde_json::json;

/// An agent without a user whose UI records what it is asked.
#[derive(Default)]
struct Observer {
    calls: Mutex<Vec<String>>,
}

impl Observer {
    fn record(&self, call: String) {
        self.calls.lock().unwrap().push(call);
    }
}

impl HostUi for Observer {
    fn confirm(&self, title: &str, _message: &str) -> bool {
        self.record(format!("confirm {title}"));
        true
    }

    fn notify(&self, message: &str, _level: NotifyLevel) {
        self.record(format!("notify {message}"));
    }

    fn set_status(&self, key: &str, text: Option<&str>) {
        self.record(format!("set_status {key} {text:?}"));
    }
}

impl AgentHost for Observer {
    fn ui(&self) -> Option<&dyn HostUi> {
        Some(self)
    }

    fn has_ui(&self) -> bool {
        false
    }

    fn program_ran(&self, run: &ProgramRun<'_>) {
        let result = match run.result {
            Ok(output) => format!("code {:?}, stdout {:?}", output.code, output.stdout),
            Err(error) => format!("error {error}"),
        };
        self.record(format!("exec {} {:?}: {result}", run.command, run.args));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_host_hears_of_programs_run_and_decides_what_has_ui_says() {
    let dir = temp_dir();
    for options in [isolated(), LoadOptions::in_process()] {
        let loaded = load_hooks_with([s(&plugin("ui-audit"))], dir.path(), &options);
        assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
        let runner = HookRunner::new(loaded.hooks, dir.path());
        let agent = Arc::new(Observer::default());
        runner.attach(agent.clone());

        let call = ToolCallEvent::new("exec", "call-1", json!({"command": "deploy prod"}));
        let outcome = runner.emit(&call).await.unwrap();
        assert!(outcome.block);
        assert_eq!(
            outcome.reason.as_deref(),
            Some("deploy needs a user, and there is no UI"),
            "has_ui is the host's answer, not whether it gives a UI"
        );
        let runner = Arc::new(runner);
        let commands = runner.clone();
        tokio::task::spawn_blocking(move || commands.run_command("audit", "now"))
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        let calls = agent.calls.lock().unwrap().clone();
        assert_eq!(
            calls,
            [
                "set_status audit Some(\"1 call(s) audited\")",
                "exec echo [\"audit\", \"now\"]: code Some(0), stdout \"audit now\\n\"",
                "notify editor: ",
                "set_status audit None",
            ]
        );
    }
}
