//! How the export reaches a collector over TLS (an `https://` address): the collector's
//! certificate is checked against the system's trusted roots, or against the certificate
//! authority the user names; a client certificate is sent where the collector asks for one.
//!
//! Named by the standard variables (`OTEL_EXPORTER_OTLP_LOGS_CERTIFICATE`, else
//! `OTEL_EXPORTER_OTLP_CERTIFICATE`; `..._CLIENT_CERTIFICATE` and `..._CLIENT_KEY` likewise),
//! or by the `decisions.export` setting's `certificate`, `clientCertificate` and `clientKey`.
//! Each file is PEM, read when the export starts.

use std::{
    io::Read,
    path::{Path, PathBuf},
};

use serde_json::{Map, Value};
use ureq::tls::{parse_pem, Certificate, ClientCert, PemItem, PrivateKey, RootCerts, TlsConfig};

/// The most of a certificate or key file read.
const FILE_LIMIT: u64 = 1 << 20;

/// The certificate authority and client certificate the export uses.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tls {
    /// The certificate authority the collector's certificate must be issued by, instead of
    /// the system's trusted roots.
    pub authority: Option<PathBuf>,
    /// The client certificate (its chain) and its private key.
    pub client: Option<(PathBuf, PathBuf)>,
}

/// The names of one file's variable: the logs' own, then the general one.
struct Names {
    logs: &'static str,
    general: &'static str,
    /// Its key in the `decisions.export` setting.
    setting: &'static str,
}

const AUTHORITY: Names = Names {
    logs: "OTEL_EXPORTER_OTLP_LOGS_CERTIFICATE",
    general: "OTEL_EXPORTER_OTLP_CERTIFICATE",
    setting: "certificate",
};
const CLIENT_CERTIFICATE: Names = Names {
    logs: "OTEL_EXPORTER_OTLP_LOGS_CLIENT_CERTIFICATE",
    general: "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE",
    setting: "clientCertificate",
};
const CLIENT_KEY: Names = Names {
    logs: "OTEL_EXPORTER_OTLP_LOGS_CLIENT_KEY",
    general: "OTEL_EXPORTER_OTLP_CLIENT_KEY",
    setting: "clientKey",
};

impl Tls {
    /// What the standard variables name; `None` (and a problem said) when they name
    /// something that cannot be used.
    pub fn from_variables(
        var: impl Fn(&str) -> Option<String>,
        problems: &mut Vec<String>,
    ) -> Option<Tls> {
        let find = |names: &Names| {
            [names.logs, names.general]
                .into_iter()
                .find_map(|name| var(name).map(|value| (name.to_owned(), PathBuf::from(value))))
        };
        Tls::checked(
            find(&AUTHORITY),
            find(&CLIENT_CERTIFICATE),
            find(&CLIENT_KEY),
            problems,
        )
    }

    /// What a `decisions.export` setting of `whose` names, the variables filling in what it
    /// does not say; `None` (and a problem said) when it names something that cannot be
    /// used.
    pub fn from_setting(
        object: &Map<String, Value>,
        whose: &str,
        var: impl Fn(&str) -> Option<String>,
        problems: &mut Vec<String>,
    ) -> Option<Tls> {
        let mut wrong = false;
        let mut find = |names: &Names| match object.get(names.setting) {
            None | Some(Value::Null) => [names.logs, names.general]
                .into_iter()
                .find_map(|name| var(name).map(|value| (name.to_owned(), PathBuf::from(value)))),
            Some(Value::String(path)) => Some((
                format!("{whose}'s `decisions.export.{}`", names.setting),
                PathBuf::from(path),
            )),
            Some(other) => {
                problems.push(format!(
                    "{whose}: `decisions.export.{}` must be the path of a PEM file, not {other}; nothing is exported",
                    names.setting
                ));
                wrong = true;
                None
            }
        };
        let (authority, certificate, key) = (
            find(&AUTHORITY),
            find(&CLIENT_CERTIFICATE),
            find(&CLIENT_KEY),
        );
        if wrong {
            return None;
        }
        Tls::checked(authority, certificate, key, problems)
    }

    /// The files found (each with who named it), checked: each can be read and holds what
    /// it should, and a client certificate comes with its key.
    fn checked(
        authority: Option<(String, PathBuf)>,
        certificate: Option<(String, PathBuf)>,
        key: Option<(String, PathBuf)>,
        problems: &mut Vec<String>,
    ) -> Option<Tls> {
        let client = match (certificate, key) {
            (None, None) => None,
            (Some((_, certificate)), Some((_, key))) => Some((certificate, key)),
            (Some((by, _)), None) | (None, Some((by, _))) => {
                problems.push(format!(
                    "decision export: {by} is set without its pair: a client certificate needs both {} and {} (or `clientCertificate` and `clientKey` in `decisions.export`); nothing is exported",
                    CLIENT_CERTIFICATE.general, CLIENT_KEY.general
                ));
                return None;
            }
        };
        let tls = Tls {
            authority: authority.map(|(_, path)| path),
            client,
        };
        match tls.config() {
            Ok(_) => Some(tls),
            Err(problem) => {
                problems.push(format!("decision export: {problem}; nothing is exported"));
                None
            }
        }
    }

    /// The client's TLS configuration, the files read now; what cannot be read or used
    /// comes back as a sentence naming the file.
    pub fn config(&self) -> Result<TlsConfig, String> {
        let roots = match &self.authority {
            None => RootCerts::PlatformVerifier,
            Some(path) => RootCerts::new_with_certs(&certificates(path, "certificate authority")?),
        };
        let client = match &self.client {
            None => None,
            Some((certificate, key)) => Some(ClientCert::new_with_certs(
                &certificates(certificate, "client certificate")?,
                private_key(key)?,
            )),
        };
        Ok(TlsConfig::builder()
            .root_certs(roots)
            .client_cert(client)
            .build())
    }
}

/// The text of the PEM file at `path` (the `what` it holds, for the message).
fn read(path: &Path, what: &str) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|file| file.take(FILE_LIMIT + 1).read_to_end(&mut bytes))
        .map_err(|e| format!("the {what} file {} cannot be read: {e}", path.display()))?;
    if bytes.len() as u64 > FILE_LIMIT {
        return Err(format!(
            "the {what} file {} is larger than {} KiB: not a PEM file",
            path.display(),
            FILE_LIMIT >> 10
        ));
    }
    Ok(bytes)
}

/// The certificates of the PEM file at `path`: at least one.
fn certificates(path: &Path, what: &str) -> Result<Vec<Certificate<'static>>, String> {
    let bytes = read(path, what)?;
    let mut found = Vec::new();
    for item in parse_pem(&bytes) {
        match item {
            Ok(PemItem::Certificate(certificate)) => found.push(certificate),
            Ok(_) => {}
            Err(e) => {
                return Err(format!(
                    "the {what} file {} is not PEM as expected: {e}",
                    path.display()
                ))
            }
        }
    }
    if found.is_empty() {
        return Err(format!(
            "the {what} file {} holds no certificate (a PEM `BEGIN CERTIFICATE` block)",
            path.display()
        ));
    }
    Ok(found)
}

/// The private key of the PEM file at `path`.
fn private_key(path: &Path) -> Result<PrivateKey<'static>, String> {
    let bytes = read(path, "client key")?;
    for item in parse_pem(&bytes) {
        match item {
            Ok(PemItem::PrivateKey(key)) => return Ok(key),
            Ok(_) => {}
            Err(e) => {
                return Err(format!(
                    "the client key file {} is not PEM as expected: {e}",
                    path.display()
                ))
            }
        }
    }
    Err(format!(
        "the client key file {} holds no private key (a PEM `BEGIN PRIVATE KEY` block)",
        path.display()
    ))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn vars(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| {
            pairs
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| (*v).to_owned())
        }
    }

    #[test]
    fn no_file_named_checks_against_the_systems_roots() {
        let mut problems = Vec::new();
        let tls = Tls::from_variables(vars(&[]), &mut problems);
        assert_eq!(tls, Some(Tls::default()));
        assert!(problems.is_empty(), "{problems:?}");
        let config = Tls::default().config().map_err(|e| e.to_string());
        assert!(matches!(
            config.as_ref().map(TlsConfig::root_certs),
            Ok(RootCerts::PlatformVerifier)
        ));
    }

    #[test]
    fn a_file_that_cannot_be_read_is_said_with_its_path() {
        let mut problems = Vec::new();
        let tls = Tls::from_variables(
            vars(&[("OTEL_EXPORTER_OTLP_CERTIFICATE", "/nowhere/ca.pem")]),
            &mut problems,
        );
        assert_eq!(tls, None);
        assert_eq!(problems.len(), 1);
        assert!(
            problems[0].starts_with(
                "decision export: the certificate authority file /nowhere/ca.pem cannot be read: "
            ) && problems[0].ends_with("; nothing is exported"),
            "{problems:?}"
        );
    }

    #[test]
    fn a_file_with_no_certificate_is_said() {
        let dir = tempfile::tempdir().expect("a folder");
        let path = dir.path().join("ca.pem");
        std::fs::write(&path, "not a certificate\n").expect("written");
        let mut problems = Vec::new();
        let setting = json!({"certificate": path});
        let tls = Tls::from_setting(
            setting.as_object().expect("an object"),
            "settings.json",
            vars(&[]),
            &mut problems,
        );
        assert_eq!(tls, None);
        assert_eq!(
            problems,
            [format!(
                "decision export: the certificate authority file {} holds no certificate (a PEM `BEGIN CERTIFICATE` block); nothing is exported",
                path.display()
            )]
        );
    }

    #[test]
    fn a_client_certificate_without_its_key_is_said() {
        let mut problems = Vec::new();
        let tls = Tls::from_variables(
            vars(&[("OTEL_EXPORTER_OTLP_LOGS_CLIENT_CERTIFICATE", "/c.pem")]),
            &mut problems,
        );
        assert_eq!(tls, None);
        assert_eq!(
            problems,
            ["decision export: OTEL_EXPORTER_OTLP_LOGS_CLIENT_CERTIFICATE is set without its pair: a client certificate needs both OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE and OTEL_EXPORTER_OTLP_CLIENT_KEY (or `clientCertificate` and `clientKey` in `decisions.export`); nothing is exported"]
        );
    }

    #[test]
    fn a_setting_that_is_not_a_path_is_said() {
        let mut problems = Vec::new();
        let setting = json!({"clientKey": 3});
        let tls = Tls::from_setting(
            setting.as_object().expect("an object"),
            "settings.json",
            vars(&[]),
            &mut problems,
        );
        assert_eq!(tls, None);
        assert_eq!(
            problems,
            ["settings.json: `decisions.export.clientKey` must be the path of a PEM file, not 3; nothing is exported"]
        );
    }
}
