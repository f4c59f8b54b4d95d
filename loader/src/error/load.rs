//! Why a hook path did not load: one cause per variant, each message saying what to do.

use std::path::PathBuf;

use thiserror::Error;

/// Why one hook path did not load. Each message says what happened and what to do.
///
/// More causes may come in later versions: match with a wildcard.
#[derive(Error, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum LoadError {
    /// `$VAR` in the path names an unset variable.
    #[error("the path uses ${var}, which is not set: set it, or write the path out")]
    UnsetVariable {
        /// The variable's name.
        var: String,
    },
    /// The path could not be expanded for another reason.
    #[error("cannot expand the path: {reason}")]
    BadPath {
        /// What went wrong.
        reason: String,
    },
    /// Nothing exists at the path.
    #[error("no such file: {resolved} (check the path; relative paths are taken from the agent's working folder)")]
    NotFound {
        /// The path after expansion.
        resolved: PathBuf,
    },
    /// The path names a folder.
    #[error("{resolved} is a folder, not a plugin library: give the path of the .{ext} file inside it", ext = std::env::consts::DLL_EXTENSION)]
    IsDirectory {
        /// The path after expansion.
        resolved: PathBuf,
    },
    /// The file cannot be read.
    #[error(
        "permission denied reading {resolved}: make it readable by the user running the agent"
    )]
    PermissionDenied {
        /// The path after expansion.
        resolved: PathBuf,
    },
    /// The file is a script or other text.
    #[error("{resolved} looks like a script ({first_line}), not a plugin library; configure it as a command hook")]
    Script {
        /// The path after expansion.
        resolved: PathBuf,
        /// Its first line, shortened.
        first_line: String,
    },
    /// The file is an executable program.
    #[error("{resolved} is an executable program, not a plugin library; to run it as a hook, configure it as a command hook")]
    Executable {
        /// The path after expansion.
        resolved: PathBuf,
    },
    /// The file is a shared library cut short or damaged.
    #[error("{resolved} is a truncated or damaged shared library ({detail}); rebuild it or copy it again")]
    Truncated {
        /// The path after expansion.
        resolved: PathBuf,
        /// What the dynamic loader said.
        detail: String,
    },
    /// The file is not a shared library at all.
    #[error("{resolved} is not a shared library ({detail}); a plugin is the .{ext} a `cdylib` crate builds", ext = std::env::consts::DLL_EXTENSION)]
    NotALibrary {
        /// The path after expansion.
        resolved: PathBuf,
        /// What gave it away.
        detail: String,
    },
    /// The dynamic loader refused the library for another reason (e.g. a missing dependency).
    #[error("the dynamic loader cannot open {resolved}: {detail}")]
    Open {
        /// The path after expansion.
        resolved: PathBuf,
        /// What the dynamic loader said.
        detail: String,
    },
    /// A shared library without the plugin entry point.
    #[error("{resolved} is a shared library but not an agent-hooks plugin: it does not export the plugin entry point (build it with `agent_hooks_abi::export_plugin!`)")]
    NotAPlugin {
        /// The path after expansion.
        resolved: PathBuf,
    },
    /// Built with an abi_stable whose header this host cannot read.
    #[error("{resolved} was built with an incompatible version of abi_stable ({detail}); rebuild it against agent-hooks-abi {host}", host = agent_hooks_abi::INTERFACE_VERSION)]
    IncompatibleAbiStable {
        /// The path after expansion.
        resolved: PathBuf,
        /// abi_stable's description.
        detail: String,
    },
    /// Built against a newer major version of the interface than this host supports.
    #[error("{resolved} was built against agent-hooks-abi {plugin}; this agent supports {host}: upgrade the agent, or rebuild the plugin against agent-hooks-abi {host}")]
    NewerInterface {
        /// The path after expansion.
        resolved: PathBuf,
        /// The interface version (`major.minor`) the plugin was built against.
        plugin: String,
        /// What this host supports, e.g. `1.x`.
        host: String,
    },
    /// Built against an older major version of the interface than this host supports.
    #[error("{resolved} was built against agent-hooks-abi {plugin}; this agent supports {host}: rebuild the plugin against agent-hooks-abi {host}")]
    OlderInterface {
        /// The path after expansion.
        resolved: PathBuf,
        /// The interface version (`major.minor`) the plugin was built against.
        plugin: String,
        /// What this host supports, e.g. `1.x`.
        host: String,
    },
    /// The interface types differ from this host's.
    #[error("{resolved} was built against an agent-hooks-abi that claims this agent's major version but differs from it: {summary}. One of the two was changed without a new major version: rebuild the plugin against agent-hooks-abi {host}", host = agent_hooks_abi::INTERFACE_VERSION)]
    LayoutMismatch {
        /// The path after expansion.
        resolved: PathBuf,
        /// The decisive lines of the layout check.
        summary: String,
        /// Everything the layout check said (long).
        full: String,
    },
    /// The plugin declared a host service as required, and this agent does not offer it.
    #[error("{resolved} requires the host service `{service}` (agent-hooks-abi {needs}), which this agent does not offer (it implements agent-hooks-abi {host}): upgrade the agent", host = agent_hooks_abi::INTERFACE_VERSION)]
    NeedsNewerHost {
        /// The path after expansion.
        resolved: PathBuf,
        /// The service.
        service: String,
        /// The interface version (`major.minor`) the plugin was built against.
        needs: String,
    },
    /// Built with `panic = "abort"`.
    #[error("{resolved} was built with panic = \"abort\": its first panic would kill the agent. Rebuild it with panic = \"unwind\" (the default: remove `panic = \"abort\"` from its Cargo profile)")]
    PanicAbort {
        /// The path after expansion.
        resolved: PathBuf,
    },
    /// abi_stable's module constructor failed.
    #[error("{resolved} failed to initialise its plugin module: {detail}")]
    ModuleInit {
        /// The path after expansion.
        resolved: PathBuf,
        /// What failed.
        detail: String,
    },
    /// The file could be changed by other users.
    #[error("refused: {reason}")]
    UnsafePermissions {
        /// What is wrong and how to fix it.
        reason: String,
    },
    /// The file is not a regular file, or is too large, or could not be read.
    #[error("{error}")]
    File {
        /// What is wrong with the file.
        error: crate::file::FileError,
    },
    /// The plugin's factory returned an error.
    #[error("the plugin's factory failed: {message}")]
    FactoryFailed {
        /// The factory's error.
        message: String,
    },
    /// The plugin's factory panicked.
    #[error(
        "the plugin's factory panicked, so it is not loaded ({message}); report this to its author"
    )]
    FactoryPanicked {
        /// The panic's message and location.
        message: String,
    },
    /// The plugin process could not be started.
    #[error("cannot run the plugin in a process of its own: {detail}")]
    PluginHost {
        /// What went wrong.
        detail: String,
    },
    /// The plugin process died while loading the library or running the factory.
    #[error("the plugin process {cause} while loading the plugin (in its library's constructors or its factory), so it is not loaded; report this to its author")]
    DiedWhileLoading {
        /// How it ended.
        cause: String,
    },
    /// The factory did not finish in time.
    #[error("the plugin's factory did not finish within {after:?}; its process was killed and the plugin is not loaded (raise factory_timeout if it needs longer)")]
    FactoryTimedOut {
        /// The deadline.
        after: std::time::Duration,
    },
}

impl std::fmt::Debug for LoadError {
    /// The message, and for a layout mismatch the whole report of the layout check.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self}")?;
        if let LoadError::LayoutMismatch { full, .. } = self {
            write!(f, "\n\nfull layout report:\n{full}")?;
        }
        Ok(())
    }
}

impl From<crate::file::FileError> for LoadError {
    /// The plugin-specific message where there is one (a folder: give the library inside).
    fn from(error: crate::file::FileError) -> Self {
        use crate::file::FileError;
        match error {
            FileError::NotFound { path } => LoadError::NotFound { resolved: path },
            FileError::IsDirectory { path } => LoadError::IsDirectory { resolved: path },
            FileError::PermissionDenied { path } => LoadError::PermissionDenied { resolved: path },
            FileError::UnsafePermissions { reason } => LoadError::UnsafePermissions { reason },
            error => LoadError::File { error },
        }
    }
}
