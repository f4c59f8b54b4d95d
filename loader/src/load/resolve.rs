//! From the path a user wrote to an absolute path.

use std::path::{Path, PathBuf};

use super::LoadError;

/// Expands `~`, `~/...`, `$VAR` and `${VAR}` (an unset variable is an error), then makes the
/// path absolute against `cwd`. `..` and symbolic links are kept: identity is decided later.
pub(crate) fn resolve_path(path: &str, cwd: &Path) -> Result<PathBuf, LoadError> {
    let home = || std::env::var("HOME").ok();
    let lookup =
        |var: &str| -> Result<Option<String>, std::env::VarError> { std::env::var(var).map(Some) };
    let expanded =
        shellexpand::full_with_context(path, home, lookup).map_err(|e| match e.cause {
            std::env::VarError::NotPresent => LoadError::UnsetVariable { var: e.var_name },
            std::env::VarError::NotUnicode(_) => LoadError::BadPath {
                reason: format!("${} is not valid Unicode", e.var_name),
            },
        })?;
    let expanded = Path::new(expanded.as_ref());
    let joined = if expanded.is_absolute() {
        expanded.to_path_buf()
    } else {
        cwd.join(expanded)
    };
    std::path::absolute(&joined).map_err(|e| LoadError::BadPath {
        reason: format!("cannot make {} absolute: {e}", joined.display()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_are_taken_from_cwd() {
        let cwd = Path::new("/home/user/project");
        assert_eq!(
            resolve_path("hooks/a.so", cwd).unwrap(),
            PathBuf::from("/home/user/project/hooks/a.so")
        );
        assert_eq!(
            resolve_path("/abs/a.so", cwd).unwrap(),
            PathBuf::from("/abs/a.so")
        );
    }

    #[test]
    fn an_unset_variable_is_an_error_naming_it() {
        let error = resolve_path("$AGENT_HOOKS_SURELY_UNSET_VAR/a.so", Path::new("/")).unwrap_err();
        assert_eq!(
            error.to_string(),
            "the path uses $AGENT_HOOKS_SURELY_UNSET_VAR, which is not set: set it, or write the path out"
        );
    }
}
