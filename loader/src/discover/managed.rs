//! Managed policy: system-wide files an administrator owns (root), read before everything
//! else. Their hooks load first and cannot be turned off by user or project settings; their
//! rules (`allowManagedHooksOnly`, `disableAllHooks`, `allowedHttpHookUrls`,
//! `httpHookAllowedEnvVars`) can forbid every other hook. A managed file that anyone but
//! root could change is refused, and its rules are not applied (docs/managed-policy.md).
//!
//! Each agent's managed files are named by its profile ([`Managed`]), read by a
//! [`ManagedFiles`] provider each; any provider whose entries are at [`Level::Managed`] is
//! treated the same way.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{scan::Found, DiscoveryContext, DiscoveryProvider, EntryKind, HookEntry, Level};
use crate::{
    agents::{Agent, Managed},
    command_hook::{CommandHooks, ConfigIssue, HookKind, Severity},
};

/// The environment variable that adds a second system root (for tests): managed files are
/// read under `/` and under it. It never replaces `/`.
pub const MANAGED_ROOT_ENV: &str = "AGENT_HOOKS_MANAGED_ROOT";

/// One agent's managed (system-wide, root-owned) files, relative to a system root, as its
/// profile names them ([`Managed`]).
#[derive(Debug, Clone, Copy)]
pub struct ManagedFiles {
    agent: Agent,
    managed: &'static Managed,
}

/// The managed providers, one per agent that has managed files. They run on every discovery,
/// with or without the built-in providers (`--no-discover` does not turn them off).
pub fn managed_providers() -> Vec<Box<dyn DiscoveryProvider>> {
    Agent::ALL
        .into_iter()
        .filter_map(|agent| {
            let managed = agent.profile().managed.as_ref()?;
            Some(Box::new(ManagedFiles { agent, managed }) as Box<dyn DiscoveryProvider>)
        })
        .collect()
}

impl DiscoveryProvider for ManagedFiles {
    fn agent(&self) -> Option<Agent> {
        Some(self.agent)
    }

    fn level(&self) -> Option<Level> {
        Some(Level::Managed)
    }

    fn name(&self) -> &str {
        self.managed.provider
    }

    fn priority(&self) -> i32 {
        self.managed.priority
    }

    fn discover(&self, ctx: &DiscoveryContext) -> Result<Found, String> {
        let mut found = Found::default();
        for root in &ctx.managed_roots {
            for (relative, folder) in self.managed.files {
                let path = root.join(relative);
                let files = if *folder {
                    folder_files(&path)
                } else {
                    vec![path]
                };
                for file in files {
                    // A path that exists in any form is listed, so that a folder or a FIFO
                    // where the file should be is refused aloud, not passed over.
                    if std::fs::symlink_metadata(&file).is_ok() {
                        found.entries.push(HookEntry {
                            name: file.to_string_lossy().into_owned(),
                            path: file,
                            kind: EntryKind::HooksFile,
                            tool: None,
                            level: Level::Managed,
                            source: self.managed.provider.to_owned(),
                        });
                    }
                }
            }
        }
        Ok(found)
    }
}

/// The `*.json` and `*.toml` files at the top of `dir`, in name order.
fn folder_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "json" || e == "toml"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// The rules of the managed files, combined: the strictest wins (a rule set in any file
/// holds; lists given in several files are joined). One policy for the whole discovery: a
/// rule in any agent's managed file applies to every hook agent-hooks runs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ManagedPolicy {
    /// The managed files it came from, in order.
    pub sources: Vec<PathBuf>,
    /// `allowManagedHooksOnly`: only managed hooks load.
    pub managed_only: bool,
    /// `disableAllHooks`: no hook loads, managed ones included.
    pub disable_all: bool,
    /// `allowedHttpHookUrls`: the URL patterns (`*` matches any run of characters) HTTP hooks
    /// may post to. `None`: no rule; an empty list: no HTTP hook runs.
    pub allowed_http_urls: Option<Vec<String>>,
    /// `httpHookAllowedEnvVars`: the only variables an HTTP hook's headers may use, whatever
    /// its own `allowedEnvVars` says. `None`: no rule.
    pub http_env_vars: Option<Vec<String>>,
    /// The `decisions` object of agent-hooks' own policy file, as written: the program's
    /// decision record as the organisation sets it (whether it is required, where it goes,
    /// how tool inputs are kept), read by the program. The first file that gives it wins.
    pub decisions: Option<serde_json::Map<String, Value>>,
}

impl ManagedPolicy {
    /// The rules of one managed file, read in its agent's `dialect`, and what was wrong
    /// with them (each a sentence for the user; a rule that cannot be read is not applied).
    pub fn read(dialect: Agent, bytes: &[u8], path: &Path) -> (ManagedPolicy, Vec<String>) {
        let mut policy = ManagedPolicy {
            sources: vec![path.to_path_buf()],
            ..ManagedPolicy::default()
        };
        let mut warnings = Vec::new();
        // The managed files of an agent whose profile says no `managed_rules` give hooks, and
        // no rules over other hooks.
        if !dialect.profile().managed_rules {
            return (policy, warnings);
        }
        // Invalid JSON is reported by the hooks' reader, which reads the same bytes.
        let Ok(Value::Object(top)) = serde_json::from_slice::<Value>(bytes) else {
            return (policy, warnings);
        };
        let mut flag = |key: &str| match top.get(key) {
            None | Some(Value::Null) => false,
            Some(Value::Bool(on)) => *on,
            Some(other) => {
                warnings.push(format!(
                    "{} (managed): `{key}` must be true or false, not {other}; taken as true, the stricter reading",
                    path.display()
                ));
                true
            }
        };
        policy.managed_only = flag("allowManagedHooksOnly");
        policy.disable_all = flag("disableAllHooks");
        let mut list = |key: &str| match top.get(key) {
            None | Some(Value::Null) => None,
            Some(Value::Array(items)) => Some(
                items
                    .iter()
                    .filter_map(|item| match item.as_str() {
                        Some(text) => Some(text.to_owned()),
                        None => {
                            warnings.push(format!(
                                "{} (managed): `{key}` holds {item}, not a string; left out",
                                path.display()
                            ));
                            None
                        }
                    })
                    .collect(),
            ),
            Some(other) => {
                warnings.push(format!(
                    "{} (managed): `{key}` must be a list of strings, not {other}; taken as an empty list, the stricter reading",
                    path.display()
                ));
                Some(Vec::new())
            }
        };
        policy.allowed_http_urls = list("allowedHttpHookUrls");
        policy.http_env_vars = list("httpHookAllowedEnvVars");
        if dialect == Agent::AgentHooks {
            match top.get("decisions") {
                None | Some(Value::Null) => {}
                Some(Value::Object(decisions)) => policy.decisions = Some(decisions.clone()),
                Some(other) => warnings.push(format!(
                    "{} (managed): `decisions` must be an object, not {other}; left out",
                    path.display()
                )),
            }
        }

        (policy, warnings)
    }

    /// Adds `other`'s rules: the strictest wins.
    pub fn merge(&mut self, other: ManagedPolicy) {
        self.sources.extend(other.sources);
        self.managed_only |= other.managed_only;
        self.disable_all |= other.disable_all;
        if self.decisions.is_none() {
            self.decisions = other.decisions;
        }
        for (mine, theirs) in [
            (&mut self.allowed_http_urls, other.allowed_http_urls),
            (&mut self.http_env_vars, other.http_env_vars),
        ] {
            if let Some(theirs) = theirs {
                let list = mine.get_or_insert_with(Vec::new);
                for item in theirs {
                    if !list.contains(&item) {
                        list.push(item);
                    }
                }
            }
        }
    }

    /// Whether any rule is set.
    pub fn is_empty(&self) -> bool {
        !self.managed_only
            && !self.disable_all
            && self.allowed_http_urls.is_none()
            && self.http_env_vars.is_none()
    }

    /// Why `entry` may not load under this policy, if it may not.
    pub fn forbids(&self, entry: &HookEntry) -> Option<String> {
        if self.disable_all {
            return Some(format!(
                "no hook runs: `disableAllHooks` is set by the managed policy ({})",
                self.named_sources()
            ));
        }
        if self.managed_only && entry.level != Level::Managed {
            return Some(format!(
                "only managed hooks run: `allowManagedHooksOnly` is set by the managed policy ({})",
                self.named_sources()
            ));
        }
        None
    }

    /// Applies the HTTP rules to every HTTP hook of `hooks`: one whose URL no pattern of
    /// `allowedHttpHookUrls` matches does not run (a configuration error says why), and the
    /// variables its headers may use are narrowed to `httpHookAllowedEnvVars`.
    pub(crate) fn apply_http(&self, hooks: &mut CommandHooks) {
        if let Some(allowed) = &self.allowed_http_urls {
            let mut refused = Vec::new();
            hooks.retain(|hook| match &hook.kind {
                HookKind::Http(target) if !allowed.iter().any(|p| url_matches(p, &target.url)) => {
                    refused.push(ConfigIssue {
                        file: hook.source.clone(),
                        location: Some(format!("{} hook to {}", hook.event_name, target.url)),
                        message: format!(
                            "the managed policy ({}) allows HTTP hooks only to {}; this hook does not run",
                            self.named_sources(),
                            if allowed.is_empty() {
                                "no URL (`allowedHttpHookUrls` is empty)".to_owned()
                            } else {
                                allowed.join(", ")
                            }
                        ),
                        severity: Severity::Error,
                    });
                    false
                }
                _ => true,
            });
            for issue in refused {
                hooks.push_issue(issue);
            }
        }
        if let Some(vars) = &self.http_env_vars {
            hooks.edit_http(|target| target.allowed_env.retain(|name| vars.contains(name)));
        }
    }

    fn named_sources(&self) -> String {
        self.sources
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Whether `url` matches `pattern`, where `*` matches any run of characters (none
/// included) and everything else matches itself.
pub fn url_matches(pattern: &str, url: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    let (first, rest) = match parts.split_first() {
        Some(split) => split,
        None => return url.is_empty(),
    };
    let Some(mut tail) = url.strip_prefix(first) else {
        return false;
    };
    let Some((last, middle)) = rest.split_last() else {
        return tail.is_empty();
    };
    for part in middle {
        match tail.find(part) {
            Some(at) => tail = &tail[at + part.len()..],
            None => return false,
        }
    }
    tail.len() >= last.len() && tail.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_patterns_match_with_stars() {
        for (pattern, url, matches) in [
            (
                "http://127.0.0.1:*/hook",
                "http://127.0.0.1:8080/hook",
                true,
            ),
            (
                "http://127.0.0.1:*/hook",
                "http://127.0.0.1:8080/hook2",
                false,
            ),
            ("http://127.0.0.1:*", "http://127.0.0.1:1/a/b", true),
            (
                "http://policy.internal/*",
                "http://evil/policy.internal/",
                false,
            ),
            ("http://a/x", "http://a/x", true),
            ("http://a/x", "http://a/xy", false),
            ("*", "anything", true),
            ("http://*/ab*ba", "http://h/aba", false),
            ("http://*/ab*ba", "http://h/abba", true),
        ] {
            assert_eq!(url_matches(pattern, url), matches, "{pattern} {url}");
        }
    }

    #[test]
    fn the_strictest_rule_wins_when_files_combine() {
        let read = |text: &str| {
            ManagedPolicy::read(Agent::ClaudeCode, text.as_bytes(), Path::new("/m.json"))
        };
        let (mut policy, warnings) = read(r#"{"allowedHttpHookUrls": ["http://a/*"]}"#);
        assert!(warnings.is_empty());
        let (other, warnings) = read(
            r#"{"allowManagedHooksOnly": "yes", "allowedHttpHookUrls": ["http://b/*"], "httpHookAllowedEnvVars": "TOKEN"}"#,
        );
        assert_eq!(
            warnings,
            [
                "/m.json (managed): `allowManagedHooksOnly` must be true or false, not \"yes\"; taken as true, the stricter reading",
                "/m.json (managed): `httpHookAllowedEnvVars` must be a list of strings, not \"TOKEN\"; taken as an empty list, the stricter reading",
            ]
        );
        policy.merge(other);
        assert!(policy.managed_only && !policy.disable_all);
        assert_eq!(
            policy.allowed_http_urls.as_deref(),
            Some(&["http://a/*".to_owned(), "http://b/*".to_owned()][..])
        );
        assert_eq!(policy.http_env_vars.as_deref(), Some(&[][..]));
    }
}
