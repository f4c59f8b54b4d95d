//! Trust covers what a trusted plugin reads from the project: its
//! configuration file (`lib<name>.toml` or `.json` beside it). Changing it, removing it or
//! adding one makes the plugin untrusted until `trust` again, and a required plugin that is
//! untrusted blocks. The real program, a real plugin that reads its configuration.

use agent_hooks_tests::{
    cli::{json_of, run, stdout},
    commands::Project,
    copy_to, plugin, temp_dir,
};
use serde_json::Value;

const DEPLOY: &str = r#"{"tool_name": "exec", "input": {"command": "deploy"}}"#;

/// `emit tool_call` of `deploy` with `extra` arguments, without `--trust-project`.
fn emit(project: &Project, home: &std::path::Path, extra: &[&str]) -> Value {
    let args = [
        &["emit", "tool_call", "--input", DEPLOY, "--json"][..],
        extra,
    ]
    .concat();
    json_of(&run(&project.root, home, &args, None))
}

/// The reasons `list` gives for the untrusted project hooks.
fn untrusted(project: &Project, home: &std::path::Path) -> Vec<String> {
    let listed = json_of(&run(&project.root, home, &["list", "--json"], None));
    listed["untrusted"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["reason"].as_str().unwrap().to_owned())
        .collect()
}

fn trust(project: &Project, home: &std::path::Path) -> String {
    let output = run(&project.root, home, &["trust"], None);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    stdout(&output)
}

#[test]
fn changing_removing_or_adding_a_plugin_s_configuration_file_untrusts_it() {
    let project = Project::new("repo");
    let home = temp_dir();
    let hooks = project.root.join(".agent-hooks/hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    copy_to(&plugin("boundary"), &hooks, "libboundary.so");
    let toml = project.write(
        ".agent-hooks/hooks/libboundary.toml",
        "ask = [\"deploy\"]\n",
    );

    let said = trust(&project, home.path());
    assert!(
        said.contains("reads .agent-hooks/hooks/libboundary.toml"),
        "{said}"
    );
    assert!(untrusted(&project, home.path()).is_empty());
    // Trusted with its configuration: `deploy` is asked about.
    assert_eq!(
        emit(&project, home.path(), &[])["ask"],
        "boundary asks: run `deploy`?"
    );

    // The project weakens the guard without a new trust: the plugin does not run.
    std::fs::write(&toml, "ask = []\n").unwrap();
    let changed = format!(
        "reads its configuration from {}, which changed, appeared or was removed since it was trusted: review it, then run `agent-hooks trust` again",
        std::fs::canonicalize(&toml).unwrap().display()
    );
    assert_eq!(untrusted(&project, home.path()), [changed]);
    // Required, the untrusted guard blocks every call, saying why and what to do.
    let outcome = emit(&project, home.path(), &["--require", "libboundary.so"]);
    assert_eq!(outcome["block"], true, "{outcome}");
    let reason = outcome["reason"].as_str().unwrap();
    assert!(
        reason.contains("it is untrusted: reads its configuration from")
            && reason.contains("run `agent-hooks trust` again"),
        "{reason}"
    );

    // Trusted again, it runs with the new configuration.
    trust(&project, home.path());
    assert!(untrusted(&project, home.path()).is_empty());
    let outcome = emit(&project, home.path(), &[]);
    assert!(outcome["ask"].is_null(), "{outcome}");
    assert_eq!(
        outcome["hooks"].as_array().map(Vec::len),
        Some(1),
        "{outcome}"
    );

    // Removed: the plugin would run with an empty configuration; untrusted.
    std::fs::remove_file(&toml).unwrap();
    assert_eq!(untrusted(&project, home.path()).len(), 1);
    trust(&project, home.path());
    assert!(untrusted(&project, home.path()).is_empty());

    // A configuration file that appears where there was none: untrusted.
    let json = project.write(".agent-hooks/hooks/libboundary.json", r#"{"ask": []}"#);
    let reasons = untrusted(&project, home.path());
    assert_eq!(reasons.len(), 1);
    let json = std::fs::canonicalize(json).unwrap();
    assert!(
        reasons[0].contains(&json.display().to_string()),
        "{reasons:?}"
    );
}
