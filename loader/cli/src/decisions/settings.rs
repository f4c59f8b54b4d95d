//! Whether events are recorded, where, and how a tool's input is kept: the user's settings
//! (`decisions` in `<config>/settings.json`), under what the organisation's managed policy
//! sets (`decisions` in `/etc/agent-hooks/policy.json`), which the user cannot loosen.

use std::{
    io::Read,
    path::{Path, PathBuf},
};

use serde_json::{Map, Value};

use super::export::collector::{self, Collector};

/// How a tool's input is kept in a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputForm {
    /// As the agent sent it (strings cut at a bound).
    Full,
    /// As sent, with what looks like a secret replaced by `[redacted]` (the default).
    Redacted,
    /// Only its SHA-256: the record says which input it was without holding it.
    Digest,
}

impl InputForm {
    fn parse(text: &str) -> Option<InputForm> {
        match text {
            "full" => Some(InputForm::Full),
            "redacted" => Some(InputForm::Redacted),
            "digest" => Some(InputForm::Digest),
            _ => None,
        }
    }

    /// Its name in the settings.
    pub fn name(self) -> &'static str {
        match self {
            InputForm::Full => "full",
            InputForm::Redacted => "redacted",
            InputForm::Digest => "digest",
        }
    }

    /// How much of the input it shows: the organisation's form caps the user's.
    fn openness(self) -> u8 {
        match self {
            InputForm::Digest => 0,
            InputForm::Redacted => 1,
            InputForm::Full => 2,
        }
    }
}

/// The decision record's settings in force.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// Events are recorded.
    pub on: bool,
    /// The managed policy requires the record (the user's `"record": false` is ignored).
    pub required: bool,
    /// The folder of the records.
    pub folder: PathBuf,
    /// How tool inputs are kept.
    pub input: InputForm,
    /// Where the records are exported, if anywhere.
    pub export: Option<Collector>,
    /// What was wrong with the settings, each a sentence for the user.
    pub problems: Vec<String>,
}

/// The file of the user's settings in `config_dir`.
pub const SETTINGS_FILE: &str = "settings.json";

/// The largest settings file read.
const SETTINGS_LIMIT: u64 = 1 << 20;

impl Settings {
    /// The settings for a user whose configuration folder is `config_dir` and home `home`,
    /// under `managed` (the `decisions` object of the managed policy, if any).
    pub fn read(
        config_dir: &Path,
        home: Option<&Path>,
        managed: Option<&Map<String, Value>>,
    ) -> Settings {
        UserSettings::read(config_dir).settings(home, managed)
    }
}

/// The `decisions` object of the user's settings file, read once for what it says of the
/// record ([`settings`](Self::settings)) and of observe mode ([`observes`](Self::observes)).
pub struct UserSettings {
    file: PathBuf,
    decisions: Option<Map<String, Value>>,
    /// What was wrong with reading it.
    problems: Vec<String>,
}

impl UserSettings {
    /// The user's settings in `config_dir`.
    pub fn read(config_dir: &Path) -> UserSettings {
        let file = config_dir.join(SETTINGS_FILE);
        let mut problems = Vec::new();
        let decisions = user_decisions(&file, &mut problems);
        UserSettings {
            file,
            decisions,
            problems,
        }
    }

    /// The record's settings in force for a user whose home is `home`, under `managed` (the
    /// `decisions` object of the managed policy, if any).
    pub fn settings(&self, home: Option<&Path>, managed: Option<&Map<String, Value>>) -> Settings {
        let mut problems = self.problems.clone();
        let file = &self.file;
        let user = &self.decisions;
        let mut settings = Settings {
            on: true,
            required: false,
            folder: state_folder(home),
            input: InputForm::Redacted,
            export: None,
            problems: Vec::new(),
        };
        let apply = |from: &Map<String, Value>,
                     whose: &str,
                     settings: &mut Settings,
                     problems: &mut Vec<String>| {
            if let Some(value) = from.get("record") {
                match value.as_bool() {
                    Some(on) => settings.on = on,
                    None => problems.push(format!(
                        "{whose}: `decisions.record` must be true or false, not {value}; events are recorded"
                    )),
                }
            }
            if let Some(value) = from.get("input") {
                match value.as_str().and_then(InputForm::parse) {
                    Some(form) => settings.input = form,
                    None => problems.push(format!(
                        "{whose}: `decisions.input` must be \"full\", \"redacted\" or \"digest\", not {value}; inputs are kept {}",
                        settings.input.name()
                    )),
                }
            }
        };
        if let Some(user) = &user {
            apply(
                user,
                &file.display().to_string(),
                &mut settings,
                &mut problems,
            );
            match user.get("observe") {
                None | Some(Value::Null | Value::Bool(_)) => {}
                Some(Value::Array(folders)) if folders.iter().all(Value::is_string) => {}
                Some(other) => problems.push(format!(
                    "{}: `decisions.observe` must be true, false or a list of project folders, not {other}; nothing observes",
                    file.display()
                )),
            }
        }
        if let Some(managed) = managed {
            let whose = "the managed policy";
            let user_form = settings.input;
            let mut organisation = settings.clone();
            organisation.input = InputForm::Full;
            apply(managed, whose, &mut organisation, &mut problems);
            if managed.contains_key("input") {
                // The organisation's form holds unless the user's shows less.
                settings.input = if user_form.openness() < organisation.input.openness() {
                    user_form
                } else {
                    organisation.input
                };
            }
            match managed.get("required") {
                None | Some(Value::Null) => {}
                Some(Value::Bool(required)) => settings.required = *required,
                Some(other) => {
                    problems.push(format!(
                        "{whose}: `decisions.required` must be true or false, not {other}; taken as true, the stricter reading"
                    ));
                    settings.required = true;
                }
            }
            match managed.get("folder") {
                None | Some(Value::Null) => {}
                Some(Value::String(folder)) => match shellexpand::full(folder) {
                    Ok(expanded) if Path::new(expanded.as_ref()).is_absolute() => {
                        settings.folder = PathBuf::from(expanded.as_ref());
                    }
                    _ => problems.push(format!(
                        "{whose}: `decisions.folder` must be an absolute path (variables and `~` allowed), not {folder:?}; records go to {}",
                        settings.folder.display()
                    )),
                },
                Some(other) => problems.push(format!(
                    "{whose}: `decisions.folder` must be a path, not {other}; records go to {}",
                    settings.folder.display()
                )),
            }
            if settings.required {
                settings.on = true;
            } else if managed.contains_key("record") {
                settings.on = organisation.on;
            }
        }
        let whose = file.display().to_string();
        settings.export = collector::chosen(
            user.as_ref().map(|user| (user, whose.as_str())),
            managed,
            |name| std::env::var(name).ok(),
            &mut problems,
        );
        settings.problems = problems;
        settings
    }

    /// Whether the user observes every hook in the project `cwd`: their settings'
    /// `decisions.observe` is `true`, or a list of folders one of which holds `cwd`. Only the
    /// user's own settings can say so: a project cannot turn its user's guards into
    /// observers.
    pub fn observes(&self, home: Option<&Path>, cwd: &Path) -> bool {
        match self.decisions.as_ref().and_then(|d| d.get("observe")) {
            Some(Value::Bool(everywhere)) => *everywhere,
            Some(Value::Array(folders)) => {
                let cwd = std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_path_buf());
                folders.iter().filter_map(Value::as_str).any(|folder| {
                    let folder = match (folder.strip_prefix("~/"), home) {
                        (Some(rest), Some(home)) => home.join(rest),
                        _ => PathBuf::from(folder),
                    };
                    cwd.starts_with(std::fs::canonicalize(&folder).unwrap_or(folder))
                })
            }
            _ => false,
        }
    }
}

/// The folder `agent-hooks log` and `stats` read: where this user's records are written,
/// by the user's settings and the managed policy files (read here only for where they put
/// the records: reading changes nothing).
pub fn folder_to_read() -> PathBuf {
    in_force().folder
}

/// This user's record settings, by the user's settings file and the managed policy files,
/// without discovering hooks.
pub fn in_force() -> Settings {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let options = agent_hooks::DiscoveryOptions::new(".");
    let roots = std::iter::once(PathBuf::from("/")).chain(
        std::env::var_os(agent_hooks::discover::MANAGED_ROOT_ENV)
            .filter(|r| !r.is_empty())
            .map(PathBuf::from),
    );
    // agent-hooks' own managed files (its policy file), under each system root.
    let policy_files = agent_hooks::agents::Agent::AgentHooks
        .profile()
        .managed
        .map_or(&[][..], |m| m.files);
    let managed = roots
        .flat_map(|root| {
            policy_files
                .iter()
                .filter(|(_, folder)| !folder)
                .map(move |(file, _)| root.join(file))
        })
        .filter_map(|file| std::fs::read(&file).ok().map(|bytes| (file, bytes)))
        .find_map(|(file, bytes)| {
            let (policy, _) = agent_hooks::discover::ManagedPolicy::read(
                agent_hooks::agents::Agent::AgentHooks,
                &bytes,
                &file,
            );
            policy.decisions
        });
    Settings::read(&options.config_dir(), home.as_deref(), managed.as_ref())
}

/// The `decisions` object of the user's settings file, if it has one.
fn user_decisions(file: &Path, problems: &mut Vec<String>) -> Option<Map<String, Value>> {
    let mut bytes = Vec::new();
    match std::fs::File::open(file) {
        Ok(opened) => {
            if let Err(error) = opened.take(SETTINGS_LIMIT).read_to_end(&mut bytes) {
                problems.push(format!("{}: could not be read ({error})", file.display()));
                return None;
            }
        }
        Err(_) => return None,
    }
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(Value::Object(mut top)) => match top.remove("decisions") {
            None | Some(Value::Null) => None,
            Some(Value::Object(decisions)) => Some(decisions),
            Some(other) => {
                problems.push(format!(
                    "{}: `decisions` must be an object, not {other}",
                    file.display()
                ));
                None
            }
        },
        // Its other keys' reader says what is wrong with the file as a whole.
        _ => None,
    }
}

/// The user's state folder for agent-hooks: `$XDG_STATE_HOME/agent-hooks`, else
/// `~/.local/state/agent-hooks`.
pub fn state_folder(home: Option<&Path>) -> PathBuf {
    let xdg = std::env::var_os("XDG_STATE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute());
    match (xdg, home) {
        (Some(xdg), _) => xdg.join("agent-hooks"),
        (None, Some(home)) => home.join(".local").join("state").join("agent-hooks"),
        (None, None) => std::env::temp_dir().join("agent-hooks-state"),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn object(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    fn with_user(user: Value, managed: Option<Value>) -> Settings {
        let dir = tempfile::tempdir().expect("a scratch folder");
        std::fs::write(dir.path().join(SETTINGS_FILE), user.to_string()).expect("written");
        let managed = managed.map(object);
        Settings::read(dir.path(), Some(Path::new("/home/u")), managed.as_ref())
    }

    #[test]
    fn recorded_and_redacted_unless_the_user_says_otherwise() {
        let settings = with_user(json!({}), None);
        assert!(settings.on);
        assert_eq!(settings.input, InputForm::Redacted);
        let settings = with_user(
            json!({"decisions": {"record": false, "input": "full"}}),
            None,
        );
        assert!(!settings.on);
        assert_eq!(settings.input, InputForm::Full);
    }

    #[test]
    fn the_user_cannot_turn_off_or_open_what_the_organisation_requires() {
        let settings = with_user(
            json!({"decisions": {"record": false, "input": "full"}}),
            Some(json!({"required": true, "input": "digest", "folder": "/var/log/ah"})),
        );
        assert!(settings.on && settings.required);
        assert_eq!(settings.input, InputForm::Digest);
        assert_eq!(settings.folder, PathBuf::from("/var/log/ah"));
        // A user may keep less than the organisation allows.
        let settings = with_user(
            json!({"decisions": {"input": "digest"}}),
            Some(json!({"input": "redacted"})),
        );
        assert_eq!(settings.input, InputForm::Digest);
    }

    #[test]
    fn wrong_values_are_said_and_the_stricter_reading_taken() {
        let settings = with_user(
            json!({"decisions": {"record": "no", "input": "all"}}),
            Some(json!({"required": "yes", "folder": "logs"})),
        );
        assert!(settings.on && settings.required);
        assert_eq!(settings.input, InputForm::Redacted);
        assert_eq!(settings.problems.len(), 4, "{:?}", settings.problems);
        assert!(
            settings.problems[0].contains("`decisions.record` must be true or false, not \"no\"")
        );
    }
}
