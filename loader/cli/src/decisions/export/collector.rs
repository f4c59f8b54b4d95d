//! Where records are exported: the collector named by the managed policy, the user's
//! settings or the standard `OTEL_EXPORTER_OTLP_*` variables, and the certificates it is
//! reached with.

use serde_json::{Map, Value};

use super::tls;

/// Where records are exported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Collector {
    /// The collector's OTLP/HTTP address (`http://collector:4318`), logs sent to its
    /// `/v1/logs`; `None` when the `OTEL_EXPORTER_OTLP_*` variables say it.
    pub endpoint: Option<String>,
    /// Headers sent with each request (besides `OTEL_EXPORTER_OTLP_HEADERS`).
    pub headers: Vec<(String, String)>,
    /// Who asked for the export: the managed policy, the user's settings file, or a
    /// variable.
    pub by: String,
    /// The certificates used when the address is `https://`.
    pub tls: tls::Tls,
}

impl Collector {
    /// The address records are sent to, as the user would write it.
    pub fn address(&self) -> String {
        self.endpoint
            .clone()
            .or_else(|| std::env::var(LOGS_ENDPOINT).ok().filter(|e| !e.is_empty()))
            .or_else(|| {
                std::env::var(ENDPOINT)
                    .ok()
                    .filter(|e| !e.is_empty())
                    .map(|e| logs_path(&e))
            })
            .unwrap_or_default()
    }
}

const ENDPOINT: &str = "OTEL_EXPORTER_OTLP_ENDPOINT";
const LOGS_ENDPOINT: &str = "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT";
const PROTOCOL: &str = "OTEL_EXPORTER_OTLP_PROTOCOL";
const LOGS_PROTOCOL: &str = "OTEL_EXPORTER_OTLP_LOGS_PROTOCOL";

/// The only protocol sent.
const HTTP_PROTOBUF: &str = "http/protobuf";

/// `endpoint` with the logs' path (`/v1/logs`) added, as the OTLP variables' base address
/// is read.
fn logs_path(endpoint: &str) -> String {
    format!("{}/v1/logs", endpoint.trim_end_matches('/'))
}

/// Where records go, by the managed policy's `decisions.export` (which the user cannot turn
/// off), else the user's (`false` turns the variables' export off), else the standard
/// variables `OTEL_EXPORTER_OTLP_LOGS_ENDPOINT` and `OTEL_EXPORTER_OTLP_ENDPOINT` (unless
/// `OTEL_SDK_DISABLED=true` or `OTEL_LOGS_EXPORTER=none`). What is wrong is said in
/// `problems`, and nothing is exported where the setting cannot be read.
pub fn chosen(
    user: Option<(&Map<String, Value>, &str)>,
    managed: Option<&Map<String, Value>>,
    var: impl Fn(&str) -> Option<String>,
    problems: &mut Vec<String>,
) -> Option<Collector> {
    let var = |name: &str| var(name).filter(|v| !v.is_empty());
    if let Some(setting) = managed.and_then(|m| m.get("export")) {
        return from_setting(setting, "the managed policy", var, problems);
    }
    if let Some((user, file)) = user {
        if let Some(setting) = user.get("export") {
            return from_setting(setting, file, var, problems);
        }
    }
    if var("OTEL_SDK_DISABLED").is_some_and(|v| v.eq_ignore_ascii_case("true"))
        || var("OTEL_LOGS_EXPORTER").is_some_and(|v| v.eq_ignore_ascii_case("none"))
    {
        return None;
    }
    let by = [LOGS_ENDPOINT, ENDPOINT]
        .into_iter()
        .find(|name| var(name).is_some())?;
    let protocol = [LOGS_PROTOCOL, PROTOCOL]
        .into_iter()
        .find_map(|name| var(name).map(|value| (name, value)));
    if let Some((name, value)) = protocol {
        if value != HTTP_PROTOBUF {
            problems.push(format!(
                "decision export: {name} is {value:?}, and agent-hooks sends OTLP as {HTTP_PROTOBUF} only, so nothing is exported. Set {LOGS_PROTOCOL}={HTTP_PROTOBUF} and {LOGS_ENDPOINT} to the collector's OTLP/HTTP address (usually port 4318), or `decisions.export` in agent-hooks' settings"
            ));
            return None;
        }
    }
    let tls = tls::Tls::from_variables(var, problems)?;
    Some(Collector {
        endpoint: None,
        headers: Vec::new(),
        by: by.to_owned(),
        tls,
    })
}

/// A `decisions.export` setting: `false`, or `{"endpoint": URL, "headers": {NAME: VALUE}}`
/// with, for an `https://` collector, `certificate`, `clientCertificate` and `clientKey`
/// (PEM files; the standard variables fill in what it does not say).
fn from_setting(
    setting: &Value,
    whose: &str,
    var: impl Fn(&str) -> Option<String>,
    problems: &mut Vec<String>,
) -> Option<Collector> {
    let wrong = |problems: &mut Vec<String>, what: String| {
        problems.push(format!(
            "{whose}: `decisions.export` {what}; nothing is exported"
        ));
        None
    };
    let object = match setting {
        Value::Bool(false) | Value::Null => return None,
        Value::Object(object) => object,
        other => {
            return wrong(
                problems,
                format!("must be false or {{\"endpoint\": \"http://HOST:4318\"}}, not {other}"),
            )
        }
    };
    let endpoint = match object.get("endpoint") {
        Some(Value::String(endpoint))
            if endpoint.starts_with("http://") || endpoint.starts_with("https://") =>
        {
            endpoint
        }
        other => {
            return wrong(
                problems,
                format!(
                    "needs an `endpoint`, the collector's OTLP/HTTP address (\"http://HOST:4318\"), not {}",
                    other.map_or("nothing".to_owned(), Value::to_string)
                ),
            )
        }
    };
    let mut headers = Vec::new();
    match object.get("headers") {
        None | Some(Value::Null) => {}
        Some(Value::Object(map)) if map.values().all(Value::is_string) => {
            headers.extend(
                map.iter()
                    .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned())),
            );
        }
        Some(other) => {
            return wrong(
                problems,
                format!("`headers` must be an object of strings, not {other}"),
            )
        }
    }
    let tls = tls::Tls::from_setting(object, whose, var, problems)?;
    Some(Collector {
        endpoint: Some(logs_path(endpoint)),
        headers,
        by: whose.to_owned(),
        tls,
    })
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

    fn with(
        user: Option<Value>,
        managed: Option<Value>,
        vars: &[(&str, &str)],
    ) -> (Option<Collector>, Vec<String>) {
        let mut problems = Vec::new();
        let user = user.map(object);
        let managed = managed.map(object);
        let found = chosen(
            user.as_ref().map(|u| (u, "settings.json")),
            managed.as_ref(),
            |name| {
                vars.iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| (*v).to_owned())
            },
            &mut problems,
        );
        (found, problems)
    }

    #[test]
    fn nothing_is_exported_unless_asked() {
        assert_eq!(with(None, None, &[]), (None, Vec::new()));
    }

    #[test]
    fn the_standard_variables_turn_it_on() {
        let (found, problems) = with(None, None, &[(ENDPOINT, "http://c:4318")]);
        assert!(problems.is_empty(), "{problems:?}");
        let found = found.expect("exported");
        assert_eq!(found.endpoint, None);
        assert_eq!(found.by, ENDPOINT);
        for off in [
            ("OTEL_SDK_DISABLED", "true"),
            ("OTEL_LOGS_EXPORTER", "none"),
        ] {
            assert_eq!(
                with(None, None, &[(ENDPOINT, "http://c:4318"), off]).0,
                None
            );
        }
    }

    #[test]
    fn grpc_is_refused_with_what_to_do() {
        let (found, problems) = with(
            None,
            None,
            &[(ENDPOINT, "http://c:4317"), (PROTOCOL, "grpc")],
        );
        assert_eq!(found, None);
        assert_eq!(problems.len(), 1);
        assert!(
            problems[0].starts_with("decision export: OTEL_EXPORTER_OTLP_PROTOCOL is \"grpc\""),
            "{problems:?}"
        );
        // The logs' own variable wins.
        let (found, _) = with(
            None,
            None,
            &[
                (ENDPOINT, "http://c:4317"),
                (PROTOCOL, "grpc"),
                (LOGS_PROTOCOL, "http/protobuf"),
            ],
        );
        assert!(found.is_some());
    }

    #[test]
    fn settings_name_the_collector_and_the_organisation_wins() {
        let user = json!({"export": {"endpoint": "http://mine:4318/", "headers": {"x-team": "a"}}});
        let (found, _) = with(Some(user.clone()), None, &[]);
        let found = found.expect("exported");
        assert_eq!(found.endpoint.as_deref(), Some("http://mine:4318/v1/logs"));
        assert_eq!(found.headers, vec![("x-team".to_owned(), "a".to_owned())]);
        assert_eq!(found.by, "settings.json");
        // The user's false turns the variables off; the managed policy's export holds.
        let (found, _) = with(
            Some(json!({"export": false})),
            None,
            &[(ENDPOINT, "http://c:4318")],
        );
        assert_eq!(found, None);
        let (found, _) = with(
            Some(json!({"export": false})),
            Some(json!({"export": {"endpoint": "http://org:4318"}})),
            &[],
        );
        let found = found.expect("the organisation's export");
        assert_eq!(found.endpoint.as_deref(), Some("http://org:4318/v1/logs"));
        assert_eq!(found.by, "the managed policy");
    }

    #[test]
    fn an_https_collector_is_taken_checked_against_the_systems_roots() {
        let user = json!({"export": {"endpoint": "https://org.example:4318"}});
        let (found, problems) = with(Some(user), None, &[]);
        assert!(problems.is_empty(), "{problems:?}");
        let found = found.expect("the export");
        assert_eq!(
            found.endpoint.as_deref(),
            Some("https://org.example:4318/v1/logs")
        );
        assert_eq!(found.tls, tls::Tls::default());
    }

    #[test]
    fn a_wrong_setting_is_said_and_exports_nothing() {
        for (setting, said) in [
            (json!({"export": true}), "must be false or"),
            (json!({"export": {}}), "needs an `endpoint`"),
            (
                json!({"export": {"endpoint": "https://c:4318", "certificate": "/nowhere.pem"}}),
                "the certificate authority file /nowhere.pem cannot be read",
            ),
            (
                json!({"export": {"endpoint": "http://c:4318", "headers": {"a": 1}}}),
                "`headers` must be an object of strings",
            ),
        ] {
            let (found, problems) = with(Some(setting), None, &[(ENDPOINT, "http://c:4318")]);
            assert_eq!(found, None);
            assert!(
                problems.len() == 1 && problems[0].contains(said),
                "{problems:?}"
            );
        }
    }
}
