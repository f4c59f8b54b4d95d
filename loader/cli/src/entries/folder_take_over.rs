//! `install --take-over` for an agent whose own hooks are whole files in a folder (its
//! profile's places of a folder of `*.json` files, or of files named after its events): a
//! take-over moves those files, byte for byte, into the copy that agent-hooks runs (see
//! [`crate::taken_over`]: read in the agent's form, as the folder's path says), and the
//! folder keeps only agent-hooks' own file. `uninstall` writes each file back as it was,
//! with its mode; a file the user changed in the copy since is kept beside it.

use std::{
    fs,
    os::unix::fs::PermissionsExt,
    path::{Path, PathBuf},
};

use serde::{Deserialize, Serialize};

use super::{read, write, InstallError};

/// One of an agent's hooks files that a take-over moved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MovedFile {
    /// Where it was (and goes back to).
    pub from: PathBuf,
    /// The copy agent-hooks runs.
    pub to: PathBuf,
    /// Its text, as it was.
    pub text: String,
    /// Its permission bits.
    pub mode: u32,
}

/// The files of `folder` to move: its `*.json` but `own` (agent-hooks' file), in name
/// order, each with where its copy goes (`copy_of(file name)`). Symbolic links stay (they
/// are not moved byte for byte), said on stderr.
pub fn plan(
    folder: &Path,
    own: &Path,
    copy_of: &dyn Fn(&str) -> PathBuf,
) -> Result<Vec<MovedFile>, InstallError> {
    let json = |p: &Path| p.extension().is_some_and(|e| e == "json") && p != own;
    plan_where(folder, &json, copy_of)
}

/// [`plan`] for the files of `folder` that `hooks` takes as the agent's hooks files (files
/// named after its events), agent-hooks' own included when it is among them.
pub fn plan_where(
    folder: &Path,
    hooks: &dyn Fn(&Path) -> bool,
    copy_of: &dyn Fn(&str) -> PathBuf,
) -> Result<Vec<MovedFile>, InstallError> {
    let entries = match fs::read_dir(folder) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => {
            return Err(InstallError::Io {
                path: folder.to_path_buf(),
                error,
            })
        }
    };
    let mut paths: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| hooks(p))
        .collect();
    paths.sort();
    let mut moved = Vec::new();
    for from in paths {
        let meta = fs::symlink_metadata(&from).map_err(|error| InstallError::Io {
            path: from.clone(),
            error,
        })?;
        if meta.file_type().is_symlink() {
            eprintln!(
                "agent-hooks: {} is a symbolic link: left where it is (the agent keeps running it)",
                from.display()
            );
            continue;
        }
        if !meta.is_file() {
            continue;
        }
        let Some(text) = read(&from)? else { continue };
        let name = from.file_name().unwrap_or_default().to_string_lossy();
        moved.push(MovedFile {
            to: copy_of(&name),
            from,
            text,
            mode: meta.permissions().mode() & 0o7777,
        });
    }
    Ok(moved)
}

/// Writes the copies, then (once the caller recorded them and wrote its own file) the
/// originals go with [`remove_originals`].
pub fn write_copies(moved: &[MovedFile]) -> Result<(), InstallError> {
    for file in moved {
        write(&file.to, &file.text)?;
    }
    Ok(())
}

/// Removes the moved files from the agent's folder.
pub fn remove_originals(moved: &[MovedFile]) -> Result<(), InstallError> {
    for file in moved {
        fs::remove_file(&file.from).map_err(|error| InstallError::Io {
            path: file.from.clone(),
            error,
        })?;
    }
    Ok(())
}

/// The moved files whose place in the agent's folder is taken again (by a file that is
/// not what was moved), which `uninstall` does not overwrite unless forced.
pub fn taken_places(moved: &[MovedFile]) -> Result<Vec<PathBuf>, InstallError> {
    let mut taken = Vec::new();
    for file in moved {
        if let Some(text) = read(&file.from)? {
            if text != file.text {
                taken.push(file.from.clone());
            }
        }
    }
    Ok(taken)
}

/// Puts every moved file back as it was (text and mode); a copy changed since is kept
/// beside it (`.json.kept`), one unchanged is removed.
pub fn put_back(moved: &[MovedFile]) -> Result<(), InstallError> {
    for file in moved {
        write(&file.from, &file.text)?;
        fs::set_permissions(&file.from, fs::Permissions::from_mode(file.mode)).map_err(
            |error| InstallError::Io {
                path: file.from.clone(),
                error,
            },
        )?;
        match read(&file.to)? {
            Some(copy) if copy == file.text => {
                fs::remove_file(&file.to).map_err(|error| InstallError::Io {
                    path: file.to.clone(),
                    error,
                })?;
            }
            Some(_) => {
                let kept = file.to.with_extension("json.kept");
                fs::rename(&file.to, &kept).map_err(|error| InstallError::Io {
                    path: file.to.clone(),
                    error,
                })?;
                eprintln!(
                    "agent-hooks: you changed {} since the take-over; your version is kept in {} (no longer run): copy what you want into {}",
                    file.to.display(),
                    kept.display(),
                    file.from.display()
                );
            }
            None => {}
        }
    }
    Ok(())
}
