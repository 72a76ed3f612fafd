//! `abi init-python --ci github`: a CI workflow that builds the crate's wheels on the
//! systems they are for, smoke-tests each there and publishes them. For GitHub Actions,
//! `.github/workflows/wheels.yml` (Linux x86_64 and aarch64, macOS arm64 and Windows x86_64
//! runners, an sdist job, and a publishing job run on a tag through PyPI's trusted
//! publishing) and `.github/abi_wheels.py`, the one script its build and smoke-test steps
//! run. Both go into the repository holding the crate (the nearest folder above it with a
//! `.git`, else the crate folder itself), the workflow naming the crate's folder from there.

use std::path::{Component, Path, PathBuf};

/// The CI systems `abi init-python --ci` writes a workflow for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Ci {
    /// GitHub Actions: .github/workflows/wheels.yml and the script its steps run,
    /// .github/abi_wheels.py.
    Github,
}

/// The workflow, `@CRATE@` standing for the crate's folder relative to the repository.
const WORKFLOW: &str = include_str!("ci/wheels.yml");
/// The script the workflow's build and smoke-test steps run.
const SCRIPT: &str = include_str!("ci/abi_wheels.py");

/// The files a workflow is made of, with their texts, not yet written: [`plan`] checks
/// everything before [`write()`] writes, so that `init-python` writes either all its files
/// or none.
#[derive(Debug)]
pub struct Workflow {
    files: Vec<(PathBuf, String)>,
}

/// The workflow for `ci` of the crate in `crate_dir`. Refuses a folder whose path from
/// the repository a workflow cannot spell plainly and, unless `force`, files that exist.
pub fn plan(crate_dir: &Path, ci: Ci, force: bool) -> Result<Workflow, String> {
    let Ci::Github = ci;
    let absolute =
        std::path::absolute(crate_dir).map_err(|e| format!("cannot resolve {}: {e}", crate_dir.display()))?;
    let root = repository(&absolute).unwrap_or_else(|| absolute.clone());
    let relative = crate_path(absolute.strip_prefix(&root).unwrap_or(Path::new("")))?;
    let github = root.join(".github");
    let files = vec![
        (github.join("workflows").join("wheels.yml"), WORKFLOW.replace("@CRATE@", &relative)),
        (github.join("abi_wheels.py"), SCRIPT.to_owned()),
    ];
    if !force {
        if let Some((path, _)) = files.iter().find(|(path, _)| path.exists()) {
            return Err(format!("{} exists; pass --force to replace it", path.display()));
        }
    }
    Ok(Workflow { files })
}

/// Writes the workflow's files, making their folders; returns their paths.
pub fn write(workflow: Workflow) -> Result<Vec<PathBuf>, String> {
    let mut written = Vec::new();
    for (path, text) in workflow.files {
        if let Some(folder) = path.parent() {
            std::fs::create_dir_all(folder).map_err(|e| format!("cannot create {}: {e}", folder.display()))?;
        }
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        written.push(path);
    }
    Ok(written)
}

/// The nearest folder holding `.git` (a folder, or a file in a worktree) from `dir` up.
fn repository(dir: &Path) -> Option<PathBuf> {
    dir.ancestors().find(|d| d.join(".git").exists()).map(Path::to_path_buf)
}

/// `relative` as the workflow's steps pass it (`--crate PATH`, the same text for bash and
/// PowerShell): `.` for the repository's own folder, else `/`-separated names of letters,
/// digits, `.`, `_` and `-`.
fn crate_path(relative: &Path) -> Result<String, String> {
    let mut names = Vec::new();
    for component in relative.components() {
        let name = match component {
            Component::Normal(name) => name.to_str().unwrap_or(""),
            Component::CurDir => continue,
            _ => "",
        };
        let plain = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
        if !plain || name.starts_with('-') {
            return Err(format!(
                "the crate folder {} is not a path the workflow can name plainly (letters, digits, `.`, `_`, `-`): rename it, or write the workflow for a folder that is",
                relative.display()
            ));
        }
        names.push(name);
    }
    Ok(if names.is_empty() { ".".to_owned() } else { names.join("/") })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_crate_path_is_dot_at_the_root_and_slash_separated_below() {
        assert_eq!(crate_path(Path::new("")).unwrap(), ".");
        assert_eq!(crate_path(&Path::new("rust").join("geo-kit_2")).unwrap(), "rust/geo-kit_2");
        for bad in ["my crate", "a$b", "-x", "x;y"] {
            let said = crate_path(Path::new(bad)).unwrap_err();
            assert!(said.contains("not a path the workflow can name plainly"), "{said}");
        }
    }

    #[test]
    fn the_workflow_names_the_crate_in_every_step_and_keeps_no_placeholder() {
        let text = WORKFLOW.replace("@CRATE@", "rust/geo");
        assert!(!text.contains("@CRATE@"));
        let steps: Vec<_> = text.lines().filter(|l| l.contains("run: python .github/abi_wheels.py")).collect();
        assert_eq!(steps.len(), 4, "{steps:?}");
        assert!(steps.iter().all(|l| l.contains(" --crate rust/geo ")), "{steps:?}");
    }

    #[test]
    fn files_go_into_the_repository_above_the_crate_and_are_kept_unless_forced() {
        let root = std::env::temp_dir().join(format!("abi-ci-{}", std::process::id()));
        let krate = root.join("rust").join("geo");
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::create_dir_all(&krate).unwrap();
        let written = write(plan(&krate, Ci::Github, false).unwrap()).unwrap();
        assert_eq!(written, [root.join(".github/workflows/wheels.yml"), root.join(".github/abi_wheels.py")]);
        assert!(std::fs::read_to_string(&written[0]).unwrap().contains("build --crate rust/geo --out dist"));
        let said = plan(&krate, Ci::Github, false).unwrap_err();
        assert_eq!(said, format!("{} exists; pass --force to replace it", written[0].display()));
        assert!(plan(&krate, Ci::Github, true).is_ok());
        std::fs::remove_dir_all(&root).unwrap();
    }
}
