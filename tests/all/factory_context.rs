//! Interface 1.1: what a plugin's factory knows of where it runs (its own file, the project
//! folder, whether there is a UI) and its configuration (the settings' object, else
//! `lib<name>.toml` or `.json` next to the library), read into the plugin's own type, with
//! errors that name the file, the field and the position. In process and in a plugin process.

use std::path::{Path, PathBuf};

use agent_hooks::{
    abi::prelude::*, discover_and_load_hooks_with, load_hooks_with, DiscoveryOptions, HookRunner,
    LoadHooksResult, LoadOptions, PluginConfig,
};
use agent_hooks_tests::{agent_hooks_bin, copy_to, isolated, plugin, s, temp_dir};

fn in_process() -> LoadOptions {
    LoadOptions::in_process()
}

/// The fixture, copied as `libboundary.so` into a folder of its own, with `files` beside it.
fn library(files: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
    let dir = temp_dir();
    let library = copy_to(&plugin("boundary"), dir.path(), "libboundary.so");
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let library = std::fs::canonicalize(library).unwrap();
    (dir, library)
}

fn load(library: &Path, project: &Path, options: &LoadOptions) -> LoadHooksResult {
    load_hooks_with([s(library)], project, options)
}

/// What the plugin's factory learnt, as it reports it to `tool_call` "info".
fn info(library: &Path, project: &Path, options: &LoadOptions) -> Value {
    let loaded = load(library, project, options);
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    report(&HookRunner::new(loaded.hooks, project))
}

/// The plugin's answer to `tool_call` "info".
fn report(runner: &HookRunner) -> Value {
    let outcome = runner
        .emit_blocking(&ToolCallEvent::new(
            "exec",
            "call-1",
            json!({"command": "info"}),
        ))
        .expect("answered");
    outcome.input.expect("the plugin reports")
}

fn load_error(library: &Path, options: &LoadOptions) -> String {
    let project = temp_dir();
    let loaded = load(library, project.path(), options);
    assert!(loaded.hooks.is_empty());
    assert_eq!(loaded.errors.len(), 1, "{:?}", loaded.errors);
    loaded.errors[0].error.to_string()
}

fn both(test: impl Fn(&LoadOptions)) {
    test(&in_process());
    test(&isolated());
}

#[test]
fn the_factory_knows_its_file_the_project_and_whether_there_is_a_ui() {
    both(|options| {
        let (_dir, library) = library(&[]);
        let project = temp_dir();
        let mut options = options.clone();
        options.has_ui = true;
        assert_eq!(
            info(&library, project.path(), &options),
            json!({
                "path": library,
                "project_dir": project.path(),
                "has_ui": true,
                "config": {"ask": [], "greeting": null, "limits": {"max_calls": 100}},
            })
        );
        options.has_ui = false;
        assert_eq!(info(&library, project.path(), &options)["has_ui"], false);
    });
}

#[test]
fn a_toml_file_next_to_the_library_configures_it() {
    both(|options| {
        let (_dir, library) = library(&[(
            "libboundary.toml",
            "ask = [\"deploy\"]\ngreeting = \"hi\"\n[limits]\nmax_calls = 5\n",
        )]);
        let project = temp_dir();
        assert_eq!(
            info(&library, project.path(), options)["config"],
            json!({"ask": ["deploy"], "greeting": "hi", "limits": {"max_calls": 5}})
        );
    });
}

#[test]
fn a_json_file_next_to_the_library_configures_it() {
    both(|options| {
        let (_dir, library) = library(&[("libboundary.json", r#"{"limits": {"max_calls": 9}}"#)]);
        let project = temp_dir();
        assert_eq!(
            info(&library, project.path(), options)["config"],
            json!({"ask": [], "greeting": null, "limits": {"max_calls": 9}})
        );
    });
}

#[test]
fn the_settings_object_wins_over_a_file() {
    both(|options| {
        let (_dir, library) = library(&[("libboundary.toml", "greeting = \"from the file\"\n")]);
        let project = temp_dir();
        let mut options = options.clone();
        options.configs.insert(
            "libboundary.so".into(),
            PluginConfig {
                value: json!({"greeting": "from the settings"}),
                source: "settings".into(),
            },
        );
        assert_eq!(
            info(&library, project.path(), &options)["config"]["greeting"],
            "from the settings"
        );
    });
}

#[test]
fn a_toml_syntax_error_names_the_file_line_and_column() {
    both(|options| {
        let (_dir, library) = library(&[("libboundary.toml", "ask = []\ngreeting = \n")]);
        let file = library.with_extension("toml");
        assert_eq!(
            load_error(&library, options),
            format!(
                "the plugin's factory failed: {}, line 2, column 12: string values must be quoted, expected literal string",
                file.display()
            )
        );
    });
}

#[test]
fn a_value_of_the_wrong_type_names_the_field_and_its_position() {
    both(|options| {
        let (_dir, library) = library(&[(
            "libboundary.toml",
            "ask = []\n[limits]\nmax_calls = \"ten\"\n",
        )]);
        let file = library.with_extension("toml");
        assert_eq!(
            load_error(&library, options),
            format!(
                "the plugin's factory failed: {}, line 3, column 13: `limits.max_calls`: invalid type: string \"ten\", expected u32",
                file.display()
            )
        );
        let (_dir, library) = library_with_json("{\n  \"ask\": \"deploy\"\n}");
        let file = library.with_extension("json");
        assert_eq!(
            load_error(&library, options),
            format!(
                "the plugin's factory failed: {}, line 2, column 17: `ask`: invalid type: string \"deploy\", expected a sequence",
                file.display()
            )
        );
    });
}

fn library_with_json(text: &str) -> (tempfile::TempDir, PathBuf) {
    library(&[("libboundary.json", text)])
}

#[test]
fn a_settings_object_of_the_wrong_type_names_the_entry_and_the_field() {
    both(|options| {
        let (_dir, library) = library(&[]);
        let mut options = options.clone();
        options.configs.insert(
            "libboundary.so".into(),
            PluginConfig {
                value: json!({"limits": {"max_calls": -1}}),
                source: "plugins.\"libboundary.so\".config in settings.json".into(),
            },
        );
        assert_eq!(
            load_error(&library, &options),
            format!(
                "the plugin's factory failed: plugins.\"libboundary.so\".config in settings.json: `limits.max_calls`: invalid value: integer `-1`, expected u32"
            )
        );
    });
}

#[test]
fn two_configuration_files_are_refused_with_both_names() {
    both(|options| {
        let (_dir, library) = library(&[("libboundary.toml", ""), ("libboundary.json", "{}")]);
        assert_eq!(
            load_error(&library, options),
            format!(
                "the plugin's factory failed: {} and {} both exist: keep one of them",
                library.with_extension("toml").display(),
                library.with_extension("json").display(),
            )
        );
    });
}

/// Discovers `library` with a private HOME and a configuration folder holding `settings`
/// as its `settings.json`: the project folder, the configuration folder, what was found.
fn discover(
    library: &Path,
    settings: &str,
) -> (
    tempfile::TempDir,
    tempfile::TempDir,
    agent_hooks::Discovered,
) {
    let project = temp_dir();
    let home = temp_dir();
    let config = temp_dir();
    std::fs::write(config.path().join("settings.json"), settings).unwrap();
    let mut options = DiscoveryOptions::new(project.path());
    options.home = Some(home.path().to_path_buf());
    options.config_dir = Some(config.path().to_path_buf());
    options.load.plugin_host = Some(agent_hooks_bin());
    let discovered = discover_and_load_hooks_with(&[s(library)], options);
    (project, config, discovered)
}

/// Discovery reads the object from the user's `settings.json`, by library file name.
#[test]
fn discovery_reads_the_object_from_the_user_settings() {
    let (_dir, library) = library(&[]);
    let (project, _config, discovered) = discover(
        &library,
        r#"{"plugins": {"libboundary.so": {"config": {"ask": ["deploy"]}}}}"#,
    );
    assert!(
        discovered.loaded.errors.is_empty(),
        "{:?}",
        discovered.loaded.errors
    );
    assert!(discovered.warnings.is_empty(), "{:?}", discovered.warnings);
    let runner = HookRunner::new(discovered.loaded.hooks, project.path());
    assert_eq!(report(&runner)["config"]["ask"], json!(["deploy"]));
}

#[test]
fn a_settings_config_that_is_not_an_object_is_a_warning() {
    let (_dir, library) = library(&[]);
    let (project, config, discovered) = discover(
        &library,
        r#"{"plugins": {"libboundary.so": {"config": ["deploy"]}}}"#,
    );
    let settings = config.path().join("settings.json");
    assert_eq!(
        discovered.warnings,
        [format!(
            "{}: plugins.libboundary.so.config must be an object; it is ignored",
            settings.display()
        )]
    );
    let runner = HookRunner::new(discovered.loaded.hooks, project.path());
    assert_eq!(report(&runner)["config"]["ask"], json!([]));
}

/// Where the README puts a plugin's configuration: beside the library, in a hooks folder.
/// Discovery passes it over (not a stray file, not a hooks file), the plugin reads it, and
/// `doctor` finds nothing wrong; a `.toml` with no plugin beside it is still reported.
#[test]
fn a_configuration_file_beside_a_plugin_in_a_hooks_folder_is_the_plugin_s_own() {
    use agent_hooks_tests::cli::{json_of, run, stdout};
    for (file, text) in [
        ("libboundary.toml", "greeting = \"from the file\"\n"),
        ("libboundary.json", r#"{"greeting": "from the file"}"#),
    ] {
        let home = temp_dir();
        let project = temp_dir();
        let hooks = home.path().join(".config/agent-hooks/hooks");
        std::fs::create_dir_all(&hooks).unwrap();
        copy_to(&plugin("boundary"), &hooks, "libboundary.so");
        std::fs::write(hooks.join(file), text).unwrap();
        let doctor = run(project.path(), home.path(), &["doctor", "--json"], None);
        let report = json_of(&doctor);
        assert_eq!(
            (
                &report["problems"],
                &report["warnings"],
                &report["config_issues"]
            ),
            (&json!([]), &json!([]), &json!([])),
            "{file}: {report}"
        );
        assert_eq!(doctor.status.code(), Some(0), "{file}: {report}");
        assert_eq!(report["hooks"].as_array().unwrap().len(), 1, "{report}");
        let emitted = run(
            project.path(),
            home.path(),
            &[
                "emit",
                "tool_call",
                "--json",
                "--input",
                r#"{"tool_name": "exec", "input": {"command": "info"}}"#,
            ],
            None,
        );
        assert_eq!(
            json_of(&emitted)["input"]["config"]["greeting"],
            "from the file",
            "{file}: {}",
            stdout(&emitted)
        );

        // Without its plugin, the same file is what it looks like: a stray file, or a
        // hooks file that does not read as one.
        std::fs::remove_file(hooks.join("libboundary.so")).unwrap();
        let doctor = run(project.path(), home.path(), &["doctor"], None);
        assert_eq!(doctor.status.code(), Some(1), "{file}: {}", stdout(&doctor));
        assert!(
            stdout(&doctor).contains(&format!("{}", hooks.join(file).display())),
            "{file}: {}",
            stdout(&doctor)
        );
    }
}
