//! A Rust crate folder given where a plugin was meant: a hint to build it and pass the
//! library, instead of a warning for each file in it.

use std::path::Path;

/// The hint for `folder` (given with `--hook`) when it is a Rust crate (it has a
/// `Cargo.toml`); `None` otherwise.
pub(super) fn crate_hint(folder: &Path) -> Option<String> {
    let manifest = std::fs::read_to_string(folder.join("Cargo.toml")).ok()?;
    let library = library_name(&manifest).unwrap_or_else(|| "<name>".into());
    let file = format!(
        "{}{library}.{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_EXTENSION
    );
    Some(format!(
        "{} (given with --hook) is a Rust crate, not a plugin: build it with `cargo build --release` and pass the library it builds, --hook {}",
        folder.display(),
        folder.join("target/release").join(file).display()
    ))
}

/// The library's name: `[lib] name`, else `[package] name` with `-` as `_` (as cargo
/// names the file). Read line by line: enough for the usual manifest.
fn library_name(manifest: &str) -> Option<String> {
    let mut section = "";
    let (mut package, mut lib) = (None, None);
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            section = line;
            continue;
        }
        let Some(value) = line
            .strip_prefix("name")
            .map(str::trim_start)
            .and_then(|rest| rest.strip_prefix('='))
        else {
            continue;
        };
        let value = value.trim().trim_matches('"').to_owned();
        match section {
            "[package]" => package = Some(value),
            "[lib]" => lib = Some(value),
            _ => {}
        }
    }
    lib.or(package).map(|name| name.replace('-', "_"))
}

#[cfg(test)]
mod tests {
    use super::library_name;

    #[test]
    fn the_library_name_comes_from_lib_or_package() {
        assert_eq!(
            library_name("[package]\nname = \"demo-guard\"\nversion = \"0.1.0\"\n"),
            Some("demo_guard".into())
        );
        assert_eq!(
            library_name(
                "[package]\nname = \"a\"\n[lib]\ncrate-type = [\"cdylib\"]\nname = \"b_lib\"\n"
            ),
            Some("b_lib".into())
        );
        assert_eq!(library_name("[workspace]\nmembers = []\n"), None);
    }
}
