//! `abi init-python`: makes a crate folder pip-installable. It writes `pyproject.toml`,
//! naming the build backend `abi_cli.build` of the `abi-cli` distribution (the build tool
//! as a wheel, `abi tool-wheel`), which pip installs from `[build-system] requires`: it
//! runs `cargo build --release`, or on Linux x86_64 and aarch64 `cargo zigbuild` against
//! glibc 2.17, and the `abi` executable shipped with it; for `pip install -e`, PEP 660's
//! `build_editable`; for an sdist, `build_sdist`.

pub mod ci;
use std::path::{Path, PathBuf};

/// Writes `pyproject.toml` into `crate_dir`; returns its path. An existing one is kept
/// unless `force`.
pub fn write(
    crate_dir: &Path,
    package: Option<&str>,
    dist_name: Option<&str>,
    force: bool,
) -> Result<Vec<PathBuf>, String> {
    let manifest = crate_dir.join("Cargo.toml");
    let cargo_toml = std::fs::read_to_string(&manifest).map_err(|e| {
        format!("{} is not a crate folder: cannot read {}: {e}", crate_dir.display(), manifest.display())
    })?;
    let parsed: toml::Table =
        cargo_toml.parse().map_err(|e| format!("{} is not valid TOML: {}", manifest.display(), one_line(&e)))?;
    if !builds_cdylib(&parsed) {
        return Err(format!(
            "{} builds no shared library: add `[lib] crate-type = [\"cdylib\"]` (Python loads the library)",
            manifest.display()
        ));
    }
    let crate_name = package_name(&parsed);
    let package = match (package, &crate_name) {
        (Some(p), _) => p.to_owned(),
        (None, Some(name)) => name.replace('-', "_"),
        (None, None) => return Err(format!("cannot read [package] name from {}: pass --package", manifest.display())),
    };
    crate::stubs::check_package_name(&package)?;
    let dist_name = dist_name.map(str::to_owned).or(crate_name).unwrap_or_else(|| package.clone());
    let files = [("pyproject.toml", pyproject(&package, &dist_name))];
    if !force {
        for (name, _) in &files {
            let path = crate_dir.join(name);
            if path.exists() {
                return Err(format!("{} exists; pass --force to replace it", path.display()));
            }
        }
    }
    crate::stubs::write_files(crate_dir, files)
}

/// The glibc `pyproject.toml` asks libraries to load on: manylinux2014's, what maturin
/// builds for by default; tvm_ffi's own wheels ask for 2.28.
const GLIBC: &str = "2.17";

/// What `[build-system] requires` asks for: the `abi-cli` releases this one's minor version
/// covers (`>=0.1.0,<0.2` for 0.1.x; `>=1.2.0,<2` from 1.0), the `abi` that reads what
/// this abi-core writes.
pub fn tool_requirement() -> String {
    let version = env!("CARGO_PKG_VERSION");
    let mut parts = version.split(['.', '-', '+']).map(|p| p.parse::<u64>().unwrap_or(0));
    let (major, minor) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    let below = if major == 0 { format!("0.{}", minor + 1) } else { format!("{}", major + 1) };
    format!("{}>={version},<{below}", crate::wheel::TOOL_DIST)
}

/// `pyproject.toml`: the tool distribution and its backend, the distribution name, the
/// package, the glibc.
fn pyproject(package: &str, dist_name: &str) -> String {
    format!(
        r#"# Written by `abi init-python`: `pip install .` builds this crate with cargo and
# packages its library as a wheel (the backend abi_cli.build of the abi-cli distribution,
# which pip installs first). `python -m build --sdist` writes an sdist holding the crate
# and the crates it depends on by path, which `pip install <sdist>` builds with
# `cargo --locked`. `pip install -e .` builds the debug profile and loads the library from
# cargo's target folder: after `cargo build`, a new Python process runs the new code
# (reinstall after changing a signature).

[build-system]
# The abi command and its build backend. On Linux x86_64 and aarch64 the backend also asks
# pip for ziglang and cargo-zigbuild, and links the library against the glibc named below
# with `cargo zigbuild`. abi-cli is not on PyPI yet: `abi tool-wheel -o DIR` writes its
# wheel, and pip finds it with `--find-links DIR` (or PIP_FIND_LINKS=DIR).
requires = ["{tool}"]
build-backend = "abi_cli.build"

[project]
name = "{dist_name}"
# The version is the crate's (Cargo.toml).
dynamic = ["version"]
# Requirements beyond {tvm_ffi} (which every wheel abi builds requires).
dependencies = []

[tool.abi]
# The Python package (import name).
package = "{package}"
# The oldest glibc the library may need (Linux x86_64 and aarch64), a manylinux policy's:
# with "{GLIBC}" the wheel is manylinux_2_17 (manylinux2014) and installs wherever glibc is
# 2.17 or newer ("2.28" is tvm_ffi's own); "native" builds with plain `cargo build` against
# this machine's glibc, and the wheel gets the tag the library fits.
glibc = "{GLIBC}"
"#,
        tool = tool_requirement(),
        tvm_ffi = abi_shared::TVM_FFI_REQUIREMENT,
    )
}

/// The crate's `[package] name`.
fn package_name(manifest: &toml::Table) -> Option<String> {
    manifest.get("package")?.get("name")?.as_str().map(str::to_owned)
}

/// Whether `[lib] crate-type` names `cdylib` (`crate_type`, the older spelling, too).
fn builds_cdylib(manifest: &toml::Table) -> bool {
    let lib = manifest.get("lib");
    let types = lib.and_then(|l| l.get("crate-type").or_else(|| l.get("crate_type")));
    types.and_then(toml::Value::as_array).is_some_and(|t| t.iter().any(|v| v.as_str() == Some("cdylib")))
}

/// A TOML error as one line.
fn one_line(error: &toml::de::Error) -> String {
    error.message().lines().next().unwrap_or_default().to_owned()
}

#[cfg(test)]
mod tests {
    fn table(text: &str) -> toml::Table {
        text.parse().unwrap()
    }

    #[test]
    fn the_crate_name_is_read_from_the_package_table() {
        let manifest = "[workspace]\nname = \"no\"\n\n[package]\nname = \"geo-kit\"\nversion = \"0.1.0\"\n";
        assert_eq!(super::package_name(&table(manifest)).as_deref(), Some("geo-kit"));
        assert_eq!(super::package_name(&table("[lib]\ncrate-type = [\"cdylib\"]\n")), None);
    }

    #[test]
    fn only_a_cdylib_in_lib_crate_type_counts() {
        assert!(super::builds_cdylib(&table("[lib]\ncrate-type = [\"rlib\", \"cdylib\"]\n")));
        assert!(super::builds_cdylib(&table("[lib]\ncrate_type = [\"cdylib\"]\n")));
        // Mentioned, but not built: a comment, a feature name, another table.
        let mentioned = "[lib]\ncrate-type = [\"rlib\"] # not a cdylib\n\n[features]\ncdylib = []\n";
        assert!(!super::builds_cdylib(&table(mentioned)));
        assert!(!super::builds_cdylib(&table("[package]\nname = \"cdylib\"\n")));
    }

    #[test]
    fn the_tool_requirement_covers_this_minor_version() {
        let requirement = super::tool_requirement();
        let version = env!("CARGO_PKG_VERSION");
        assert!(requirement.starts_with(&format!("abi-cli>={version},<")), "{requirement}");
        if version.starts_with("0.1.") {
            assert_eq!(requirement, format!("abi-cli>={version},<0.2"));
        }
    }

    #[test]
    fn the_pyproject_names_the_tvm_ffi_releases_every_wheel_requires() {
        let text = super::pyproject("geo_kit", "geo-kit");
        let line = format!(
            "# Requirements beyond {} (which every wheel abi builds requires).\n",
            abi_shared::TVM_FFI_REQUIREMENT
        );
        assert!(text.contains(&line), "{text}");
    }
}
