//! The released interface versions (`abi/RELEASES`: one `<version> <commit>` line each) and
//! what git holds for them: the compatibility matrix has a row per release, and its frozen
//! copies must be those commits' `abi/src`.

use std::process::Command;

use crate::workspace_root;

/// One released interface version and the commit where it was declared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Release {
    /// `1.0.0`, ...
    pub version: String,
    /// The full commit hash.
    pub commit: String,
}

/// Every release in `abi/RELEASES`, oldest first.
pub fn releases() -> Vec<Release> {
    let path = workspace_root().join("abi/RELEASES");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| {
            let mut words = line.split_whitespace();
            match (words.next(), words.next(), words.next()) {
                (Some(version), Some(commit), None) => Release {
                    version: version.to_owned(),
                    commit: commit.to_owned(),
                },
                _ => panic!("abi/RELEASES: `{line}` is not `<version> <commit>`"),
            }
        })
        .collect()
}

/// `git <args>` in the workspace; its stdout, or what went wrong with a hint for a shallow
/// clone.
pub fn git(args: &[&str]) -> Result<Vec<u8>, String> {
    let output = Command::new("git")
        .args(args)
        .current_dir(workspace_root())
        .output()
        .map_err(|e| format!("git {}: {e} (is git installed?)", args.join(" ")))?;
    if !output.status.success() {
        return Err(format!(
            "git {} failed: {} (a shallow clone? run `git fetch --unshallow --tags`)",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    Ok(output.stdout)
}

/// The files under `folder` at `commit` (paths relative to the repository's root).
pub fn files_at(commit: &str, folder: &str) -> Result<Vec<String>, String> {
    let listing = git(&["ls-tree", "-r", "--name-only", commit, "--", folder])?;
    Ok(String::from_utf8_lossy(&listing)
        .lines()
        .map(str::to_owned)
        .collect())
}

/// The content of `path` at `commit`.
pub fn file_at(commit: &str, path: &str) -> Result<Vec<u8>, String> {
    git(&["show", &format!("{commit}:{path}")])
}

/// The sample plugin `name` of interface 1.0.0 (`sample-plugins/<name>/src` of its commit,
/// unchanged, in `tests/fixtures/abi-history/samples-1.0.0`), built against today's `abi/`.
pub fn sample_1_0_0(name: &str) -> std::path::PathBuf {
    crate::separate_workspace_plugin(
        "tests/fixtures/abi-history/samples-1.0.0",
        &format!("sample-1-0-0-{name}"),
    )
}

/// The `agent-hooks` program of interface `version`'s release: the whole workspace of its
/// commit (`git archive`), built with its own lock file, once per test binary and kept between
/// runs. A real host of that interface: its loader, runner and plugin processes.
///
/// It builds in a target folder of its own (`<target>/abi-history/host-<version>/target`:
/// its program has today's program's name and must not replace it). Its lock file's
/// dependencies are mostly other versions or features than today's, so little would be
/// shared with the tests' target folder, and a folder of its own lets its build, the longest
/// of the suite, run beside the other builds of the tests rather than hold their folder's
/// lock.
pub fn release_host(version: &str) -> std::path::PathBuf {
    crate::cached(&format!("release host {version}"), || {
        let release = releases()
            .into_iter()
            .find(|r| r.version == version)
            .unwrap_or_else(|| panic!("{version} is not in abi/RELEASES"));
        let dir = crate::target_dir()
            .join("abi-history")
            .join(format!("host-{version}"));
        let source = dir.join(&release.commit);
        if !source.join("Cargo.toml").is_file() {
            let _ = std::fs::remove_dir_all(&source);
            std::fs::create_dir_all(&source).unwrap();
            let archive = git(&["archive", "--format=tar", &release.commit]).unwrap();
            let mut tar = Command::new("tar")
                .arg("-x")
                .arg("-C")
                .arg(&source)
                .stdin(std::process::Stdio::piped())
                .spawn()
                .expect("tar runs");
            std::io::Write::write_all(tar.stdin.as_mut().unwrap(), &archive).unwrap();
            drop(tar.stdin.take());
            assert!(tar.wait().unwrap().success(), "tar failed");
        }
        let mut command = crate::cargo_command();
        crate::without_incremental_caches(&mut command);
        command
            .args([
                "build",
                "--locked",
                "-p",
                "agent-hooks",
                "--bin",
                "agent-hooks",
            ])
            .arg("--manifest-path")
            .arg(source.join("Cargo.toml"))
            .arg("--target-dir")
            .arg(dir.join("target"))
            .arg("--message-format=json-render-diagnostics");
        crate::executable(command, &format!("agent-hooks {version}"))
    })
}

/// The matrix plugin built against `tests/fixtures/abi-history/layout-breaks` with the break
/// `feature` (`field-added`, `field-type`): a copy of its library of its own, since every
/// feature builds the same file.
pub fn layout_break_plugin(feature: &str) -> std::path::PathBuf {
    crate::cached(&format!("layout break {feature}"), || {
        // Every feature's build writes the same file: one build and its copy at a time.
        static SAME_FILE: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let _one_at_a_time = SAME_FILE.lock().unwrap_or_else(|p| p.into_inner());
        let manifest = workspace_root().join("tests/fixtures/abi-history/layout-breaks/Cargo.toml");
        let built = crate::build(
            &["build", "-p", "layout-break", "--features", feature],
            &manifest,
            "layout-break",
        );
        let dir = crate::target_dir().join("abi-history");
        std::fs::create_dir_all(&dir).unwrap();
        let copy = dir.join(format!("liblayout_break_{}.so", feature.replace('-', "_")));
        std::fs::copy(&built, &copy).unwrap();
        copy
    })
}
