//! Where the new plugin gets the interface crate from: a path, a git repository, or (once it
//! is published) crates.io.

use std::path::{Path, PathBuf};

use agent_hooks_abi::services::major_minor;

/// The interface crate's source, as written into the plugin's `Cargo.toml`.
pub enum Dependency {
    /// A local folder holding the interface crate (a clone's `abi/`).
    Path(PathBuf),
    /// A git repository of agent-hooks, at a revision when given.
    Git {
        /// The repository's URL.
        url: String,
        /// A commit, tag or branch; the default branch when `None`.
        rev: Option<String>,
    },
    /// crates.io, at this program's interface version (`major.minor`).
    Registry,
}

/// The interface crate next to the loader this program was built from: in a clone of the
/// repository, `abi/` (this package is `loader/cli/`).
pub fn built_with() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("..")
        .join("abi")
}

/// The most of a `Cargo.toml` read to recognise the interface crate.
const MANIFEST_CAP: u64 = 1024 * 1024;

/// Whether `folder` holds the interface crate. Only a regular file is read (a FIFO named
/// `Cargo.toml` would block), and only its first MiB.
pub fn is_interface_crate(folder: &Path) -> bool {
    use std::io::Read;
    let manifest = folder.join("Cargo.toml");
    let mut text = String::new();
    manifest.is_file()
        && std::fs::File::open(&manifest)
            .and_then(|file| file.take(MANIFEST_CAP).read_to_string(&mut text))
            .is_ok()
        && text.contains("name = \"agent-hooks-abi\"")
}

/// A TOML basic string (JSON's escapes are TOML's).
fn toml_string(text: &str) -> String {
    serde_json::Value::from(text).to_string()
}

impl Dependency {
    /// The dependency's value in `Cargo.toml`, with `features` when given.
    pub fn toml(&self, features: &[&str]) -> String {
        let mut fields = match self {
            Dependency::Path(path) => {
                vec![format!("path = {}", toml_string(&path.to_string_lossy()))]
            }
            Dependency::Git { url, rev } => {
                let mut fields = vec![format!("git = {}", toml_string(url))];
                if let Some(rev) = rev {
                    fields.push(format!("rev = {}", toml_string(rev)));
                }
                fields
            }
            Dependency::Registry if features.is_empty() => return toml_string(&version()),
            Dependency::Registry => vec![format!("version = {}", toml_string(&version()))],
        };
        if !features.is_empty() {
            let features: Vec<String> = features.iter().map(|f| toml_string(f)).collect();
            fields.push(format!("features = [{}]", features.join(", ")));
        }
        format!("{{ {} }}", fields.join(", "))
    }

    /// A comment for `Cargo.toml` on what to write once the crate is published.
    pub fn comment(&self) -> String {
        match self {
            Dependency::Registry => String::new(),
            _ => format!(
                "# Until agent-hooks-abi is on crates.io; then: agent-hooks-abi = {}\n",
                toml_string(&version())
            ),
        }
    }

    /// Where the dependency comes from, for a person.
    pub fn describe(&self) -> String {
        match self {
            Dependency::Path(path) => format!("path {}", path.display()),
            Dependency::Git { url, rev: None } => format!("git {url}"),
            Dependency::Git {
                url,
                rev: Some(rev),
            } => format!("git {url} at {rev}"),
            Dependency::Registry => format!("crates.io, version {}", version()),
        }
    }
}

/// The interface version this program was built with, as a Cargo requirement.
fn version() -> String {
    major_minor(agent_hooks_abi::INTERFACE_VERSION)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_source_is_written_as_cargo_reads_it() {
        let v = version();
        let path = Dependency::Path(PathBuf::from("/src/agent \"hooks\"/abi"));
        assert_eq!(path.toml(&[]), r#"{ path = "/src/agent \"hooks\"/abi" }"#);
        assert_eq!(
            path.toml(&["testing"]),
            r#"{ path = "/src/agent \"hooks\"/abi", features = ["testing"] }"#
        );
        let git = Dependency::Git {
            url: "https://example.com/agent-hooks.git".into(),
            rev: Some("v1.1.0".into()),
        };
        assert_eq!(
            git.toml(&[]),
            r#"{ git = "https://example.com/agent-hooks.git", rev = "v1.1.0" }"#
        );
        assert_eq!(Dependency::Registry.toml(&[]), format!("\"{v}\""));
        assert_eq!(
            Dependency::Registry.toml(&["testing"]),
            format!("{{ version = \"{v}\", features = [\"testing\"] }}")
        );
        assert_eq!(
            git.comment(),
            format!("# Until agent-hooks-abi is on crates.io; then: agent-hooks-abi = \"{v}\"\n")
        );
        assert_eq!(Dependency::Registry.comment(), "");
    }
}
