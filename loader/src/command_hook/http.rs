//! HTTP hooks (`type: "http"`): the payload is POSTed as JSON to the hook's URL, with its
//! headers; a 2xx answer's body is read like a command hook's stdout, anything else is a
//! reported, non-blocking failure. An `https://` URL's certificate is checked against the
//! system's trusted roots (on Linux, `SSL_CERT_FILE` and `SSL_CERT_DIR` name others).

use std::{sync::Arc, time::Duration, time::Instant};

use super::process::{Exit, Run, OUTPUT_CAP};

/// Where an HTTP hook posts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpTarget {
    /// The URL (`http://...` or `https://...`).
    pub url: String,
    /// Request headers as written; `$NAME` and `${NAME}` are replaced by the environment
    /// variable when `allowed_env` lists it, and by nothing otherwise.
    pub headers: Vec<(String, String)>,
    /// `allowedEnvVars`: the variables headers may use.
    pub allowed_env: Vec<String>,
}

/// How an HTTP hook's request ended: the run (its body as stdout when the answer was 2xx),
/// and what went wrong otherwise.
pub struct Posted {
    /// The run, for the report and the answer.
    pub run: Run,
    /// Why it failed (connection, timeout, non-2xx status), for a person.
    pub failure: Option<String>,
}

impl HttpTarget {
    /// POSTs `payload`, waiting at most `timeout`.
    pub async fn post(&self, payload: Arc<[u8]>, timeout: Duration) -> Posted {
        let started = Instant::now();
        let target = self.clone();
        let result = tokio::task::spawn_blocking(move || target.post_blocking(&payload, timeout))
            .await
            .unwrap_or_else(|e| Err(format!("the request task failed: {e}")));
        let (stdout, failure) = match result {
            Ok(body) => (body, None),
            Err(failure) => (Vec::new(), Some(failure)),
        };
        let stdout_truncated = stdout.len() > OUTPUT_CAP;
        let mut stdout = stdout;
        stdout.truncate(OUTPUT_CAP);
        Posted {
            run: Run {
                exit: match &failure {
                    None => Exit::Code(0),
                    Some(failure) => Exit::SpawnFailed(failure.clone()),
                },
                stdout,
                stderr: Vec::new(),
                stdout_truncated,
                stderr_truncated: false,
                duration: started.elapsed(),
            },
            failure,
        }
    }

    fn post_blocking(&self, payload: &[u8], timeout: Duration) -> Result<Vec<u8>, String> {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            .http_status_as_error(false)
            .tls_config(
                ureq::tls::TlsConfig::builder()
                    .root_certs(ureq::tls::RootCerts::PlatformVerifier)
                    .build(),
            )
            .build()
            .into();
        let mut request = agent
            .post(&self.url)
            .header("Content-Type", "application/json");
        for (name, value) in &self.headers {
            request = request.header(name, self.expand(value));
        }
        let mut response = request
            .send(payload)
            .map_err(|e| format!("POST {} failed: {e}", self.url))?;
        let status = response.status();
        let body = response
            .body_mut()
            .with_config()
            .limit(OUTPUT_CAP as u64 + 1)
            .read_to_vec()
            .map_err(|e| format!("POST {}: reading the answer failed: {e}", self.url))?;
        if !status.is_success() {
            let said = String::from_utf8_lossy(&body);
            let said: String = said.trim().chars().take(300).collect();
            return Err(format!(
                "POST {} answered HTTP {}{}",
                self.url,
                status.as_u16(),
                if said.is_empty() {
                    String::new()
                } else {
                    format!(": {said}")
                }
            ));
        }
        Ok(body)
    }

    /// `value` with the allowed environment variables put in.
    fn expand(&self, value: &str) -> String {
        let mut out = String::new();
        let mut rest = value;
        while let Some(at) = rest.find('$') {
            out.push_str(&rest[..at]);
            let after = &rest[at + 1..];
            let (name, tail) = match after.strip_prefix('{') {
                Some(braced) => match braced.find('}') {
                    Some(end) => (&braced[..end], &braced[end + 1..]),
                    None => ("", after),
                },
                None => {
                    let end = after
                        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .unwrap_or(after.len());
                    (&after[..end], &after[end..])
                }
            };
            if name.is_empty() {
                out.push('$');
                rest = after;
                continue;
            }
            if self.allowed_env.iter().any(|a| a == name) {
                out.push_str(&std::env::var(name).unwrap_or_default());
            }
            rest = tail;
        }
        out.push_str(rest);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_allowed_variables_reach_the_headers() {
        let target = HttpTarget {
            url: "http://127.0.0.1:1/".into(),
            headers: Vec::new(),
            allowed_env: vec!["PATH".into()],
        };
        let path = std::env::var("PATH").unwrap_or_default();
        assert_eq!(target.expand("a $PATH b"), format!("a {path} b"));
        assert_eq!(target.expand("${PATH}x"), format!("{path}x"));
        assert_eq!(target.expand("Bearer $HOME"), "Bearer ");
        assert_eq!(target.expand("cost: 5$"), "cost: 5$");
    }
}
