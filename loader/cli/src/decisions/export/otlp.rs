//! A record as an OpenTelemetry log record, and the exporter that sends a batch of them to
//! the collector (the OpenTelemetry project's OTLP exporter, over HTTP with protobuf, its
//! requests sent by ureq, over TLS for an `https://` collector).
//!
//! Attributes follow the semantic conventions where they name the field: `session.id` and
//! `gen_ai.conversation.id` (the agent's session), `gen_ai.tool.name`,
//! `gen_ai.agent.name`; agent-hooks' own under `agent_hooks.`.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::Duration,
};

use bytes::Bytes;
use opentelemetry::{
    logs::{AnyValue, LogRecord as _, Logger as _, LoggerProvider as _, Severity},
    InstrumentationScope, Key,
};
use opentelemetry_http::{HttpClient, HttpError};
use opentelemetry_otlp::{Protocol, WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::{
    logs::{LogBatch, LogExporter as _, SdkLogger, SdkLoggerProvider},
    Resource,
};

use super::{
    super::{line::line, record::Record},
    Collector,
};

/// The most of a collector's answer read.
const ANSWER_LIMIT: u64 = 4 << 20;

/// How long one request may take, unless `OTEL_EXPORTER_OTLP_TIMEOUT` says otherwise.
const TIMEOUT: Duration = Duration::from_secs(10);

/// The name of the records' event.
const EVENT_NAME: &str = "agent_hooks.decision";

/// Sends records to a collector.
pub struct Exporter {
    exporter: opentelemetry_otlp::LogExporter,
    logger: SdkLogger,
    scope: InstrumentationScope,
    /// Why the last request could not be sent, in the client's words (the exporter's own
    /// error says only "network error").
    failure: Failure,
}

/// Why a request could not be sent, kept by the client for the exporter's caller.
type Failure = Arc<Mutex<Option<String>>>;

impl Exporter {
    /// An exporter to `collector`, with the resource the `OTEL_SERVICE_NAME` and
    /// `OTEL_RESOURCE_ATTRIBUTES` variables describe (service `agent-hooks` by default).
    pub fn new(collector: &Collector) -> Result<Exporter, String> {
        let failure = Failure::default();
        let client = Ureq {
            agent: ureq::Agent::config_builder()
                .timeout_global(Some(TIMEOUT))
                .http_status_as_error(false)
                .tls_config(collector.tls.config()?)
                .build()
                .into(),
            failure: failure.clone(),
        };
        let mut builder = opentelemetry_otlp::LogExporter::builder()
            .with_http()
            .with_http_client(client)
            .with_protocol(Protocol::HttpBinary);
        if let Some(endpoint) = &collector.endpoint {
            builder = builder.with_endpoint(endpoint.clone());
        }
        if !collector.headers.is_empty() {
            builder =
                builder.with_headers(collector.headers.iter().cloned().collect::<HashMap<_, _>>());
        }
        let mut exporter = builder.build().map_err(|e| e.to_string())?;
        let mut resource = Resource::builder();
        if std::env::var_os("OTEL_SERVICE_NAME").is_none() {
            resource = resource.with_service_name("agent-hooks");
        }
        let resource = resource
            .with_attribute(opentelemetry::KeyValue::new(
                "service.version",
                crate::relay::program_version(),
            ))
            .build();
        exporter.set_resource(&resource);
        // A provider with no processor: it only makes the records this exporter sends.
        let provider = SdkLoggerProvider::builder().build();
        let scope = InstrumentationScope::builder("agent-hooks")
            .with_version(crate::relay::program_version())
            .build();
        let logger = provider.logger_with_scope(scope.clone());
        Ok(Exporter {
            exporter,
            logger,
            scope,
            failure,
        })
    }

    /// Sends `records` in one request; the collector's refusal or the failure to reach it
    /// comes back as a sentence.
    pub fn send(&self, records: &[Record]) -> Result<(), String> {
        let made: Vec<_> = records.iter().map(|r| self.log_record(r)).collect();
        let pairs: Vec<_> = made.iter().map(|r| (r, &self.scope)).collect();
        let sent = futures_executor::block_on(self.exporter.export(LogBatch::new(&pairs)));
        let failure = self.failure.lock().ok().and_then(|mut f| f.take());
        sent.map_err(|e| match failure {
            Some(failure) => format!("{e}: {failure}"),
            None => e.to_string(),
        })
    }

    fn log_record(&self, record: &Record) -> opentelemetry_sdk::logs::SdkLogRecord {
        let mut log = self.logger.create_log_record();
        log.set_event_name(EVENT_NAME);
        if let Ok(time) = record.time.parse::<jiff::Timestamp>() {
            log.set_timestamp(time.into());
        }
        log.set_observed_timestamp(std::time::SystemTime::now());
        let (severity, text) = severity(record);
        log.set_severity_number(severity);
        log.set_severity_text(text);
        log.set_body(AnyValue::from(line(record)));
        let mut text = |key: &'static str, value: Option<&String>| {
            if let Some(value) = value {
                log.add_attribute(Key::from_static_str(key), AnyValue::from(value.clone()));
            }
        };
        text("gen_ai.agent.name", Some(&record.agent));
        text("session.id", record.session.as_ref());
        text("gen_ai.conversation.id", record.session.as_ref());
        text("gen_ai.tool.name", record.tool.as_ref());
        text("agent_hooks.agent.version", record.agent_version.as_ref());
        text("agent_hooks.project", record.project.as_ref());
        text("agent_hooks.event", Some(&record.event));
        text("agent_hooks.decision", Some(&record.decision));
        text("agent_hooks.reason", record.reason.as_ref());
        text("agent_hooks.answered_by", Some(&record.answered_by));
        text("agent_hooks.would_have", record.would_have.as_ref());
        text(
            "agent_hooks.tool.input_digest",
            record.input_digest.as_ref(),
        );
        text("agent_hooks.record.hash", record.hash.as_ref());
        let input = record.input.as_ref().map(|i| i.to_string());
        text("agent_hooks.tool.input", input.as_ref());
        let hooks = serde_json::to_string(&record.hooks).ok();
        text("agent_hooks.hooks", hooks.as_ref());
        log.add_attribute("agent_hooks.exit_code", i64::from(record.code));
        log.add_attribute("agent_hooks.required", record.required);
        log.add_attribute("agent_hooks.hook_count", record.hooks.len() as i64);
        let slowest = record.hooks.iter().map(|h| h.ms).fold(0.0, f64::max);
        log.add_attribute("agent_hooks.slowest_hook_ms", slowest);
        if !record.problems.is_empty() {
            log.add_attribute(
                "agent_hooks.problems",
                AnyValue::ListAny(Box::new(
                    record
                        .problems
                        .iter()
                        .map(|p| AnyValue::from(p.clone()))
                        .collect(),
                )),
            );
        }
        log
    }
}

/// A record's severity: a block or a failure to run the hooks is a warning, the rest
/// information.
fn severity(record: &Record) -> (Severity, &'static str) {
    match record.decision.as_str() {
        "block" | "error" => (Severity::Warn, "WARN"),
        _ if record.required || !record.problems.is_empty() => (Severity::Warn, "WARN"),
        _ => (Severity::Info, "INFO"),
    }
}

/// The exporter's requests, sent by ureq (the HTTP client the program has for HTTP hooks).
#[derive(Debug)]
struct Ureq {
    agent: ureq::Agent,
    failure: Failure,
}

#[async_trait::async_trait]
impl HttpClient for Ureq {
    async fn send_bytes(
        &self,
        request: http::Request<Bytes>,
    ) -> Result<http::Response<Bytes>, HttpError> {
        let (parts, body) = request.into_parts();
        let request = http::Request::from_parts(parts, body.to_vec());
        let said = |error: ureq::Error, failure: &Failure| {
            if let Ok(mut kept) = failure.lock() {
                *kept = Some(error.to_string());
            }
            error
        };
        let response = self
            .agent
            .run(request)
            .map_err(|e| said(e, &self.failure))?;
        let (parts, mut body) = response.into_parts();
        let bytes = body
            .with_config()
            .limit(ANSWER_LIMIT)
            .read_to_vec()
            .map_err(|e| said(e, &self.failure))?;
        Ok(http::Response::from_parts(parts, Bytes::from(bytes)))
    }
}
