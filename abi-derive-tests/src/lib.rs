//! Test support for the abi macros: building the example cdylibs the tests load.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

/// The workspace root.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("workspace root").to_owned()
}

/// Builds the cdylib of `package` (debug) and returns its path. It builds into its own
/// target directory so that a running `cargo test` never waits on its own build lock.
pub fn fixture_library(package: &str, lib_name: &str) -> PathBuf {
    static BUILT: OnceLock<Mutex<Vec<String>>> = OnceLock::new();
    let root = workspace_root();
    let target = root.join("target").join("fixtures");
    // Sanitizer runs build fixtures for an explicit target so proc-macros stay plain.
    let triple = std::env::var("ABI_FIXTURE_TARGET").ok();
    let out_dir = match &triple {
        Some(t) => target.join(t).join("debug"),
        None => target.join("debug"),
    };
    let path = out_dir.join(format!("lib{lib_name}.so"));
    let mut built = BUILT.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    if !built.iter().any(|p| p == package) {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
        let mut cmd = Command::new(cargo);
        cmd.args(["build", "--quiet", "-p", package, "--target-dir"]).arg(&target).current_dir(&root);
        if let Some(t) = &triple {
            cmd.args(["--target", t]);
        }
        let status = cmd.status().expect("run cargo build for a fixture library");
        assert!(status.success(), "building {package} failed");
        built.push(package.to_owned());
    }
    assert!(path.exists(), "{} missing after building {package}", path.display());
    path
}
