//! `agent-hooks new NAME`: write a plugin crate from the template, ready to test, build and
//! load.

mod dependency;
mod name;

use std::{
    path::{Path, PathBuf},
    process::ExitCode,
};

use clap::Args;

use self::dependency::Dependency;
use crate::options::Outcome;

/// `agent-hooks new`'s arguments.
#[derive(Args, Debug)]
pub struct NewArgs {
    /// The plugin's crate name (letters, digits, `-`, `_`); the library is `lib<name>.so`
    /// with `_` for `-`.
    name: String,
    /// Where to write the crate (default: a folder named NAME in the current folder). It
    /// must not exist.
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
    /// Take the interface crate from this folder (a clone's `abi/`). The default while the
    /// crate is not published: the `abi/` of the clone this program was built from.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["abi_git", "abi_registry"])]
    abi_path: Option<PathBuf>,
    /// Take the interface crate from this git repository of agent-hooks.
    #[arg(long, value_name = "URL", conflicts_with = "abi_registry")]
    abi_git: Option<String>,
    /// With --abi-git: the commit, tag or branch.
    #[arg(long, value_name = "REV", requires = "abi_git")]
    abi_rev: Option<String>,
    /// Take the interface crate from crates.io (once it is published there).
    #[arg(long)]
    abi_registry: bool,
}

/// Why no plugin crate was written.
#[derive(Debug, thiserror::Error)]
pub enum NewError {
    /// The name cannot be a crate name.
    #[error("`{name}` cannot be a plugin's crate name: {why}. Use letters, digits, `-` and `_`, starting with a letter (e.g. `demo-guard`)")]
    InvalidName {
        /// The name given.
        name: String,
        /// What is wrong with it.
        why: String,
    },
    /// The target folder exists.
    #[error("`{0}` already exists: choose another name, or another folder with --dir")]
    Exists(PathBuf),
    /// `--abi-path` is not the interface crate.
    #[error("`{0}` does not hold the agent-hooks-abi crate: give --abi-path the `abi` folder of an agent-hooks clone")]
    NotTheInterface(PathBuf),
    /// No source was given and the clone this program was built from is gone.
    #[error("the agent-hooks-abi crate this program was built with is no longer at `{0}`, and it is not on crates.io yet: pass --abi-path with the `abi` folder of an agent-hooks clone, or --abi-git with the repository's URL")]
    NoInterface(PathBuf),
    /// A file could not be written.
    #[error("cannot write `{path}`: {source}")]
    Write {
        /// The file or folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// `agent-hooks new`.
pub fn run(args: &NewArgs) -> Outcome {
    if let Some(why) = name::invalid(&args.name) {
        return Err(NewError::InvalidName {
            name: args.name.clone(),
            why,
        }
        .into());
    }
    let dependency = dependency(args)?;
    let folder = args
        .dir
        .clone()
        .unwrap_or_else(|| PathBuf::from(&args.name));
    if folder.exists() {
        return Err(NewError::Exists(folder).into());
    }
    let lib_name = name::lib_name(&args.name);
    let (comment, toml) = (dependency.comment(), dependency.toml(&[]));
    let dev_toml = dependency.toml(&["testing"]);
    let fill = |template: &str| {
        template
            .replace("{{name}}", &args.name)
            .replace("{{lib_name}}", &lib_name)
            .replace("{{dependency_comment}}", &comment)
            .replace("{{dependency}}", &toml)
            .replace("{{dev_dependency}}", &dev_toml)
    };
    let files = [
        ("Cargo.toml", fill(include_str!("template/Cargo.toml.in"))),
        ("src/lib.rs", fill(include_str!("template/lib.rs.in"))),
        ("README.md", fill(include_str!("template/README.md.in"))),
        (".gitignore", fill(include_str!("template/gitignore.in"))),
    ];
    for (file, text) in files {
        write(&folder.join(file), &text)?;
    }
    let library = format!(
        "target/release/lib{lib_name}{}",
        std::env::consts::DLL_SUFFIX
    );
    outln!(
        "Created the plugin `{}` in {} (agent-hooks-abi from {}). Next:",
        args.name,
        folder.display(),
        dependency.describe()
    );
    outln!("  cd {}", folder.display());
    outln!("  cargo test              # its test, with the test kit");
    outln!("  cargo build --release");
    outln!("  agent-hooks list --hook {library}");
    Ok(ExitCode::SUCCESS)
}

fn dependency(args: &NewArgs) -> Result<Dependency, NewError> {
    if let Some(url) = &args.abi_git {
        return Ok(Dependency::Git {
            url: url.clone(),
            rev: args.abi_rev.clone(),
        });
    }
    if args.abi_registry {
        return Ok(Dependency::Registry);
    }
    let (folder, missing): (PathBuf, fn(PathBuf) -> NewError) = match &args.abi_path {
        Some(folder) => (folder.clone(), NewError::NotTheInterface),
        None => (dependency::built_with(), NewError::NoInterface),
    };
    match folder.canonicalize() {
        Ok(folder) if dependency::is_interface_crate(&folder) => Ok(Dependency::Path(folder)),
        _ => Err(missing(folder)),
    }
}

/// Writes `text` to `path`, creating its folder; never replaces a file.
fn write(path: &Path, text: &str) -> Result<(), NewError> {
    let failed = |source| NewError::Write {
        path: path.to_path_buf(),
        source,
    };
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(failed)?;
    }
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .and_then(|mut file| std::io::Write::write_all(&mut file, text.as_bytes()))
        .map_err(failed)
}
