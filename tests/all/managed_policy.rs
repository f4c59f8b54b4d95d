//! Managed policy: root-owned system files (agent-hooks' `/etc/agent-hooks/policy.json`,
//! Claude Code's managed settings, Gemini CLI's system settings, Copilot CLI's `policy.d`), laid out under a second
//! system root (`AGENT_HOOKS_MANAGED_ROOT` / `DiscoveryOptions::managed_root`, which adds to
//! `/`, never replaces it). Each rule: managed hooks load first and cannot be disabled,
//! `--no-discover` keeps them, `allowManagedHooksOnly` forbids every other hook (configured
//! ones too), `disableAllHooks` forbids all, `allowedHttpHookUrls` and
//! `httpHookAllowedEnvVars` bind HTTP hooks, and a file others could change is refused with
//! its rules (ownership tested by chowning to another uid: the tests run as root).

use std::{
    os::unix::fs::MetadataExt,
    path::{Path, PathBuf},
    process::Command,
};

use agent_hooks::{
    agents::Agent,
    command_hook::{CommandEvent, HookKind},
    discover::Level,
    discover_and_load_hooks_with, Discovered, DiscoveryOptions,
};
use agent_hooks_tests::{agent_hooks_bin, s, set_mode, temp_dir};
use serde_json::Value;

struct Machine {
    _dir: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
    cwd: PathBuf,
}

fn machine() -> Machine {
    let dir = temp_dir();
    let root = dir.path().join("root");
    let home = dir.path().join("home");
    let cwd = dir.path().join("project");
    for folder in [&root, &home, &cwd] {
        std::fs::create_dir_all(folder).unwrap();
    }
    Machine {
        _dir: dir,
        root,
        home,
        cwd,
    }
}

fn write(path: &Path, text: &str) -> PathBuf {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
    set_mode(path, 0o644);
    path.to_path_buf()
}

fn hook(event: &str, command: &str) -> String {
    format!(r#"{{"{event}": [{{"hooks": [{{"type": "command", "command": "{command}"}}]}}]}}"#)
}

impl Machine {
    /// The user's and the project's own hooks, besides the managed ones.
    fn with_user_and_project_hooks(self) -> Self {
        write(
            &self.home.join(".config/agent-hooks/hooks/user.json"),
            &hook("PreToolUse", "echo user"),
        );
        write(
            &self.cwd.join(".agent-hooks/hooks/project.json"),
            &hook("PreToolUse", "echo project"),
        );
        self
    }

    fn options(&self) -> DiscoveryOptions {
        let mut options = DiscoveryOptions::new(&self.cwd);
        options.home = Some(self.home.clone());
        options.config_dir = Some(self.home.join(".config/agent-hooks"));
        options.managed_root = Some(self.root.clone());
        options.trust_project = true;
        options.load = agent_hooks::LoadOptions::in_process();
        options
    }

    fn discover(
        &self,
        configured: &[String],
        adjust: impl FnOnce(&mut DiscoveryOptions),
    ) -> Discovered {
        let mut options = self.options();
        adjust(&mut options);
        discover_and_load_hooks_with(configured, options)
    }

    fn cli(&self, args: &[&str]) -> std::process::Output {
        Command::new(agent_hooks_bin())
            .args(args)
            .current_dir(&self.cwd)
            .env("HOME", &self.home)
            .env_remove("XDG_CONFIG_HOME")
            .env("NO_COLOR", "1")
            .env("AGENT_HOOKS_MANAGED_ROOT", &self.root)
            .output()
            .expect("the program runs")
    }
}

fn commands(found: &Discovered) -> Vec<String> {
    found
        .commands
        .hooks()
        .map(|h| h.kind.label().into_owned())
        .collect()
}

fn forbidden(found: &Discovered) -> Vec<(String, String)> {
    found
        .forbidden
        .iter()
        .map(|(e, why)| {
            (
                e.path.file_name().unwrap().to_string_lossy().into_owned(),
                why.clone(),
            )
        })
        .collect()
}

#[test]
fn managed_hooks_load_first_and_user_settings_cannot_turn_them_off() {
    let m = machine().with_user_and_project_hooks();
    let policy = write(
        &m.root.join("etc/agent-hooks/policy.json"),
        &format!(r#"{{"hooks": {}}}"#, hook("PreToolUse", "echo managed")),
    );
    // The user disables the managed file by every id it could have: nothing changes.
    let found = m.discover(&[], |o| {
        o.disabled = vec![
            s(&policy),
            "policy.json".into(),
            format!("hooks:*:{}", s(&policy)),
        ];
    });
    assert_eq!(
        commands(&found),
        ["echo managed", "echo user", "echo project"]
    );
    assert!(found.disabled.is_empty(), "{:?}", found.disabled);
    let managed = &found.entries[0];
    assert_eq!(
        (managed.level, managed.source.as_str()),
        (Level::Managed, "agent-hooks (managed)")
    );

    // Without the built-in providers (`--no-discover`), the managed hooks still load.
    let found = m.discover(&[], |o| o.builtin_providers = false);
    assert_eq!(commands(&found), ["echo managed"]);

    // The program shows them as managed, first, also with --no-discover.
    let output = m.cli(&["list", "--json", "--no-discover"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let first = &report["hooks"][0];
    assert_eq!(first["level"], "managed", "{report:#}");
    assert_eq!(first["source"], "agent-hooks (managed)");
    assert_eq!(first["command"], "echo managed");
}

#[test]
fn allow_managed_hooks_only_forbids_every_other_hook_configured_ones_included() {
    let m = machine().with_user_and_project_hooks();
    write(
        &m.root.join("etc/claude-code/managed-settings.json"),
        &format!(
            r#"{{"allowManagedHooksOnly": true, "hooks": {}}}"#,
            hook("PreToolUse", "echo managed")
        ),
    );
    let given = write(&m.home.join("given.json"), &hook("Stop", "echo given"));
    let found = m.discover(&[s(&given)], |_| {});
    assert_eq!(commands(&found), ["echo managed"]);
    // The managed file is Claude Code's: its hooks are read in Claude Code's dialect.
    assert_eq!(
        found.commands.hooks().next().unwrap().dialect,
        Agent::ClaudeCode
    );
    let why = format!(
        "only managed hooks run: `allowManagedHooksOnly` is set by the managed policy ({})",
        m.root
            .join("etc/claude-code/managed-settings.json")
            .display()
    );
    assert_eq!(
        forbidden(&found),
        [
            ("user.json".to_owned(), why.clone()),
            ("project.json".to_owned(), why.clone()),
            ("given.json".to_owned(), why.clone()),
        ]
    );

    // `list` and `doctor` say which hooks the policy forbids, and why.
    let output = m.cli(&["list", "--hook", &s(&given)]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains("Forbidden by the managed policy (3)"),
        "{text}"
    );
    assert!(text.contains(&why), "{text}");
    let output = m.cli(&["doctor", "--json", "--hook", &s(&given)]);
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let notes = report["notes"].to_string();
    assert!(notes.contains("allowManagedHooksOnly"), "{report:#}");
}

#[test]
fn disable_all_hooks_in_a_managed_file_forbids_all_managed_ones_included() {
    let m = machine().with_user_and_project_hooks();
    write(
        &m.root.join("etc/agent-hooks/policy.json"),
        &format!(r#"{{"hooks": {}}}"#, hook("PreToolUse", "echo managed")),
    );
    write(
        &m.root
            .join("etc/claude-code/managed-settings.d/10-off.json"),
        r#"{"disableAllHooks": true}"#,
    );
    let found = m.discover(&[], |_| {});
    assert!(commands(&found).is_empty(), "{:?}", commands(&found));
    let names: Vec<String> = forbidden(&found).into_iter().map(|(n, _)| n).collect();
    assert_eq!(
        names,
        ["policy.json", "10-off.json", "user.json", "project.json"]
    );
    assert!(found.forbidden[0]
        .1
        .starts_with("no hook runs: `disableAllHooks`"));

    // The same key in a user's own settings does not reach the managed policy.
    let m = machine();
    write(
        &m.root.join("etc/agent-hooks/policy.json"),
        &format!(r#"{{"hooks": {}}}"#, hook("PreToolUse", "echo managed")),
    );
    write(
        &m.home.join(".claude/settings.json"),
        &format!(
            r#"{{"disableAllHooks": true, "allowManagedHooksOnly": true, "hooks": {}}}"#,
            hook("Stop", "echo user")
        ),
    );
    let found = m.discover(&[], |_| {});
    assert_eq!(commands(&found)[0], "echo managed");
    assert!(found.policy.is_empty(), "{:?}", found.policy);
}

#[test]
fn http_hooks_are_bound_by_the_allowed_urls_and_variables() {
    let m = machine();
    write(
        &m.root.join("etc/claude-code/managed-settings.json"),
        r#"{"allowedHttpHookUrls": ["http://127.0.0.1:*/allowed/*"], "httpHookAllowedEnvVars": ["HOOK_TOKEN"]}"#,
    );
    write(
        &m.home.join(".config/agent-hooks/hooks/http.json"),
        r#"{"hooks": {"PreToolUse": [{"hooks": [
            {"type": "http", "url": "http://127.0.0.1:9/allowed/guard", "headers": {"A": "$HOOK_TOKEN", "B": "$HOME"}, "allowedEnvVars": ["HOOK_TOKEN", "HOME"]},
            {"type": "http", "url": "http://127.0.0.1:9/other"}
        ]}]}}"#,
    );
    let found = m.discover(&[], |_| {});
    let http: Vec<_> = found
        .commands
        .hooks()
        .filter_map(|h| match &h.kind {
            HookKind::Http(target) => Some(target.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(http.len(), 1, "{http:?}");
    assert_eq!(http[0].url, "http://127.0.0.1:9/allowed/guard");
    assert_eq!(http[0].allowed_env, ["HOOK_TOKEN"]);
    let issues: Vec<String> = found
        .commands
        .issues()
        .iter()
        .map(|i| i.to_string())
        .collect();
    assert_eq!(
        issues,
        [format!(
            "{} (PreToolUse hook to http://127.0.0.1:9/other): the managed policy ({}) allows HTTP hooks only to http://127.0.0.1:*/allowed/*; this hook does not run",
            m.home.join(".config/agent-hooks/hooks/http.json").display(),
            m.root.join("etc/claude-code/managed-settings.json").display()
        )]
    );

    // An empty list: no HTTP hook runs.
    write(
        &m.root.join("etc/claude-code/managed-settings.json"),
        r#"{"allowedHttpHookUrls": []}"#,
    );
    let found = m.discover(&[], |_| {});
    assert_eq!(found.commands.hooks().count(), 0);
    assert!(found.commands.issues()[0]
        .message
        .contains("no URL (`allowedHttpHookUrls` is empty)"));
}

#[test]
fn gemini_system_settings_are_read_in_gemini_dialect() {
    let m = machine();
    write(
        &m.root.join("etc/gemini-cli/settings.json"),
        r#"{"hooks": {"BeforeTool": [{"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "echo gemini", "timeout": 1500}]}]}}"#,
    );
    let found = m.discover(&[], |o| o.builtin_providers = false);
    let hook = found
        .commands
        .hooks()
        .next()
        .expect("the managed Gemini hook");
    assert_eq!(
        (hook.dialect, hook.event, hook.timeout.as_millis()),
        (Agent::Gemini, CommandEvent::PreToolUse, 1500)
    );
    assert_eq!(found.entries[0].source, "gemini-cli (managed)");
}

/// Runs as root (the tests do here); a managed file must be root's, so another owner, a
/// group or others that can write, or a folder above that others can write to, is refused,
/// and its rules are not applied.
#[test]
fn a_managed_file_anyone_but_root_could_change_is_refused_with_its_rules() {
    if nix::unistd::Uid::effective().as_raw() != 0 {
        eprintln!("managed_policy: the ownership cases need root (chown); skipped as a user");
        return;
    }
    type Spoil = dyn Fn(&Path);
    let cases: [(&str, &Spoil, &str); 3] = [
        (
            "another owner",
            &|file: &Path| std::os::unix::fs::chown(file, Some(12345), None).unwrap(),
            "is owned by uid 12345, not by root as a managed policy must be, so uid 12345 could change what it runs; fix it with `chown root",
        ),
        (
            "group write",
            &|file: &Path| set_mode(file, 0o664),
            "(mode 664), so its members could change what it runs; fix it with `chmod g-w",
        ),
        (
            "a folder others can write to",
            &|file: &Path| set_mode(file.parent().unwrap(), 0o777),
            "other users can write to (mode 777), so anyone on this machine could replace it; fix it with `chmod go-w",
        ),
    ];
    for (case, spoil, expected) in cases {
        let m = machine().with_user_and_project_hooks();
        let file = write(
            &m.root.join("etc/agent-hooks/policy.json"),
            &format!(
                r#"{{"allowManagedHooksOnly": true, "hooks": {}}}"#,
                hook("PreToolUse", "echo managed")
            ),
        );
        spoil(&file);
        let found = m.discover(&[], |_| {});
        assert_eq!(commands(&found), ["echo user", "echo project"], "{case}");
        assert!(
            found.policy.is_empty() && found.forbidden.is_empty(),
            "{case}"
        );
        let error = found.loaded.errors[0].error.to_string();
        assert!(error.contains(expected), "{case}: {error}");
        assert!(
            found.warnings.iter().any(|w| w.starts_with(&format!(
                "the managed policy file {} is refused, so neither its rules nor its hooks apply: ",
                file.display()
            ))),
            "{case}: {:?}",
            found.warnings
        );
        // The program says so too, and still runs the user's hooks.
        let output = m.cli(&["list", "--json", "--trust-project"]);
        let report: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(report["errors"][0]["path"], s(&file), "{case}");
        assert_eq!(report["hooks"].as_array().unwrap().len(), 2, "{case}");
    }
    // Owned by root with the right modes: accepted (the same file, unspoiled).
    let m = machine();
    let file = write(
        &m.root.join("etc/agent-hooks/policy.json"),
        r#"{"hooks": {}}"#,
    );
    assert_eq!(std::fs::metadata(&file).unwrap().uid(), 0);
    let found = m.discover(&[], |_| {});
    assert!(found.loaded.errors.is_empty(), "{:?}", found.loaded.errors);
}

#[test]
fn a_hook_call_leaves_the_calling_agents_managed_hooks_to_it_but_keeps_their_rules() {
    let m = machine();
    write(
        &m.root.join("etc/claude-code/managed-settings.json"),
        &format!(
            r#"{{"allowManagedHooksOnly": true, "hooks": {}}}"#,
            hook("PreToolUse", "echo managed-by-claude")
        ),
    );
    write(
        &m.home.join(".config/agent-hooks/hooks/user.json"),
        &hook("PreToolUse", "echo user"),
    );
    let found = m.discover(&[], |o| {
        o.managed_rules_only = vec!["claude-code (managed)".into()]
    });
    assert!(commands(&found).is_empty(), "{:?}", commands(&found));
    assert_eq!(forbidden(&found).len(), 1);
}

#[test]
fn copilot_clis_policy_folder_is_managed_read_in_its_dialect_in_name_order() {
    let m = machine().with_user_and_project_hooks();
    let folder = m.root.join("etc/github-copilot/policy.d");
    write(
        &folder.join("20-audit.json"),
        r#"{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "echo audit"}]}}"#,
    );
    write(
        &folder.join("10-gate.json"),
        r#"{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "echo gate"}]}}"#,
    );
    // Not a policy file: only `*.json` at the folder's top are read.
    write(&folder.join("README.txt"), "notes");
    let found = m.discover(&[], |o| o.disabled = vec![s(&folder.join("10-gate.json"))]);
    assert_eq!(
        commands(&found),
        ["echo gate", "echo audit", "echo user", "echo project"]
    );
    let first = found.commands.hooks().next().unwrap();
    assert_eq!(
        (first.dialect, first.event),
        (Agent::Copilot, CommandEvent::PreToolUse)
    );
    assert_eq!(
        (found.entries[0].level, found.entries[0].source.as_str()),
        (Level::Managed, "copilot-cli (managed)")
    );
}

#[test]
fn codexs_requirements_toml_is_managed_and_codexs_review_cannot_withhold_it() {
    let m = machine().with_user_and_project_hooks();
    let requirements = write(
        &m.root.join("etc/codex/requirements.toml"),
        "[[hooks.PreToolUse]]\nmatcher = \"Bash\"\n\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"echo required-by-admin\"\n",
    );
    // The user's Codex review turns every hook off by hand: not the managed one.
    write(
        &m.home.join(".codex/config.toml"),
        &format!(
            "[hooks.state.\"{}:pre_tool_use:0:0\"]\nenabled = false\n",
            requirements.display()
        ),
    );
    let found = m.discover(&[], |_| {});
    assert_eq!(
        commands(&found),
        ["echo required-by-admin", "echo user", "echo project"]
    );
    let first = found.commands.hooks().next().unwrap();
    assert_eq!(first.dialect, Agent::Codex);
    assert_eq!(
        (found.entries[0].level, found.entries[0].source.as_str()),
        (Level::Managed, "codex (managed)")
    );
}

/// Claude Code's own `disableAllHooks` (in its user, project or local settings) turns off
/// Claude Code's hooks, not the managed ones and not agent-hooks' own; the most specific file
/// that sets it decides, as Claude Code merges its settings.
#[test]
fn claude_codes_disable_all_hooks_turns_off_its_own_hooks_only() {
    let m = machine().with_user_and_project_hooks();
    write(
        &m.root.join("etc/claude-code/managed-settings.json"),
        &format!(r#"{{"hooks": {}}}"#, hook("PreToolUse", "echo managed")),
    );
    let user = write(
        &m.home.join(".claude/settings.json"),
        &format!(
            r#"{{"disableAllHooks": true, "hooks": {}}}"#,
            hook("PreToolUse", "echo claude-user")
        ),
    );
    write(
        &m.cwd.join(".claude/settings.local.json"),
        &format!(
            r#"{{"hooks": {}}}"#,
            hook("PreToolUse", "echo claude-project")
        ),
    );
    let found = m.discover(&[], |_| {});
    assert_eq!(
        commands(&found),
        ["echo managed", "echo user", "echo project"]
    );
    let why = format!(
        "Claude Code's hooks are turned off: `disableAllHooks` is true in {}",
        user.display()
    );
    assert_eq!(
        forbidden(&found),
        [
            ("settings.json".to_owned(), why.clone()),
            ("settings.local.json".to_owned(), why),
        ]
    );
    // The project's settings say false: more specific than the user's, so Claude Code's
    // hooks run again.
    write(
        &m.cwd.join(".claude/settings.json"),
        r#"{"disableAllHooks": false}"#,
    );
    let found = m.discover(&[], |_| {});
    let ran = commands(&found);
    assert!(ran.contains(&"echo claude-user".to_owned()), "{ran:?}");
    assert!(ran.contains(&"echo claude-project".to_owned()), "{ran:?}");
    assert!(found.forbidden.is_empty(), "{:?}", found.forbidden);
}
