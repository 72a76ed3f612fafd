//! `abi tool-wheel`: the wheel of the `abi-cli` distribution, the build tool as pip installs
//! it. It holds the Python package `abi_cli` (the PEP 517 backend `abi_cli.build`, the
//! `abi` console script's launcher, `load_inline`) and one `abi` executable inside it, at
//! `abi_cli/bin/abi` (`abi.exe` on Windows), as the ziglang wheel ships zig: the backend
//! runs the executable shipped beside it, found by its own path, in whatever layout pip
//! installed it (an isolated build environment, `--target`, a user install), and the
//! `abi` command on `PATH` is a console script running that same file, so the wheel holds
//! the binary once. Its tag is `py3-none-<platform>` read from the executable as
//! [`super::write`] reads a library's: the executable runs no Python code of any version.

use std::path::{Path, PathBuf};

use super::archive::Entry;
use super::{names, platform, Requested, Written};

/// The distribution's name, what `[build-system] requires` names.
pub const TOOL_DIST: &str = "abi-cli";

/// The package's Python files, as the repository holds them (`abi-cli/python/abi_cli`).
const PYTHON_FILES: [(&str, &str); 4] = [
    ("__init__.py", include_str!("../../python/abi_cli/__init__.py")),
    ("__main__.py", include_str!("../../python/abi_cli/__main__.py")),
    ("build.py", include_str!("../../python/abi_cli/build.py")),
    ("inline.py", include_str!("../../python/abi_cli/inline.py")),
];

/// Writes the `abi-cli` wheel for the `abi` executable `binary` into `out`. The executable
/// must be this version's `abi` (read from its bytes: [`abi_cli::IDENTITY`]), for any
/// platform; the wheel's version is this `abi`'s.
pub fn write_tool(binary: &Path, requested: &Requested, out: &Path) -> Result<Written, String> {
    let bytes = std::fs::read(binary).map_err(|e| format!("cannot read {}: {e}", binary.display()))?;
    let version = env!("CARGO_PKG_VERSION");
    match abi_cli::identity_in(&bytes) {
        Some(found) if found == version => {}
        Some(found) => {
            return Err(format!(
                "{} is abi {found} and this is abi {version}: a tool wheel holds its own version's executable \
                 (run `{} tool-wheel` instead)",
                binary.display(),
                binary.display()
            ))
        }
        None => return Err(format!("{} is not an `abi` executable (built from abi-cli)", binary.display())),
    }
    let needs =
        platform::needs(&bytes).map_err(|e| format!("{} {e}", binary.display()).replace(" library", " file"))?;
    let tag = format!("py3-none-{}", platform::tag(&needs, requested)?);
    // A library's warnings are about loading it beside apache-tvm-ffi; the tool needs none,
    // but an executable runs only from its minimum macOS on, as a library loads.
    let mut warnings = Vec::new();
    if let platform::Needs::MachO(macho) = &needs {
        warnings.extend(super::macos::minimum_warning(macho));
        if macho.arch == "arm64" && !super::macos::is_signed(&bytes)? {
            return Err(format!(
                "{} carries no code signature, and macOS on arm64 runs only signed executables: sign it (`codesign -s - {}`, ad hoc) and run tool-wheel again",
                binary.display(),
                binary.display()
            ));
        }
    }
    let executable = if matches!(needs, platform::Needs::Pe(_)) { "abi.exe" } else { "abi" };

    let mut entries: Vec<Entry> = PYTHON_FILES
        .iter()
        .map(|(name, text)| Entry::file(format!("abi_cli/{name}"), text.as_bytes().to_vec()))
        .collect();
    entries.push(Entry::executable(format!("abi_cli/bin/{executable}"), bytes));
    let stem = format!("{}-{version}", names::normalised_dist_name(TOOL_DIST));
    let dist_info = vec![("METADATA", metadata(version)), ("entry_points.txt", ENTRY_POINTS.to_owned())];
    let path: PathBuf = super::finish(entries, &stem, &tag, dist_info, out)?;
    Ok(Written { path, warnings })
}

/// The `abi` console script: `abi_cli.main` runs the shipped executable.
const ENTRY_POINTS: &str = "[console_scripts]\nabi = abi_cli:main\n";

/// `METADATA`: the backend reads pyproject.toml with `tomllib`, which Python 3.11 added
/// (tomli before it); `load_inline` imports the package it builds, which needs
/// apache-tvm-ffi (the extra `inline`: a build environment needs none).
fn metadata(version: &str) -> String {
    format!(
        "Metadata-Version: 2.1\nName: {TOOL_DIST}\nVersion: {version}\n\
         Summary: The abi command and the PEP 517 build backend of crates made pip-installable by `abi init-python`\n\
         Requires-Python: >=3.9\nRequires-Dist: tomli>=1.1; python_version < \"3.11\"\n\
         Provides-Extra: inline\nRequires-Dist: {}; extra == \"inline\"\n",
        abi_shared::TVM_FFI_REQUIREMENT
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_metadata_names_the_distribution_tomli_for_old_pythons_and_tvm_ffi_for_load_inline() {
        let text = metadata("1.2.3");
        assert!(text.starts_with("Metadata-Version: 2.1\nName: abi-cli\nVersion: 1.2.3\n"), "{text}");
        assert!(text.contains("Requires-Dist: tomli>=1.1; python_version < \"3.11\"\n"), "{text}");
        let inline = format!(
            "Provides-Extra: inline\nRequires-Dist: {}; extra == \"inline\"\n",
            abi_shared::TVM_FFI_REQUIREMENT
        );
        assert!(text.ends_with(&inline), "{text}");
    }

    #[test]
    fn a_file_that_is_not_abi_is_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let fake = dir.path().join("abi");
        std::fs::write(&fake, b"\x7fELF not really").unwrap();
        let error = write_tool(&fake, &Requested::Auto, dir.path()).unwrap_err();
        assert_eq!(error, format!("{} is not an `abi` executable (built from abi-cli)", fake.display()));
        let other = format!("{}0.0.1-other\0", abi_cli::IDENTITY_PREFIX);
        std::fs::write(&fake, other.as_bytes()).unwrap();
        let error = write_tool(&fake, &Requested::Auto, dir.path()).unwrap_err();
        assert!(error.contains("is abi 0.0.1-other and this is abi "), "{error}");
    }
}
