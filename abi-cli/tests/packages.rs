//! The packages `abi stubs` writes for every fixture and example library, kept under
//! `tests/packages/<package>/` (`__init__.py` and `__init__.pyi`): a change to the
//! generator shows in them, line by line, in review. `ABI_BLESS=1 cargo test -p abi-cli
//! --test packages` writes them anew after a change meant to alter them.

mod support;

use std::path::{Path, PathBuf};

use abi_derive_tests::fixture_library;
use support::{abi, path, text};
use tempfile::TempDir;

/// `(cargo package, library name, Python package)` of every library with exports.
const LIBRARIES: &[(&str, &str, &str)] = &[
    ("abi-api-v1", "api_v1", "api_v1"),
    ("abi-api-v2", "api_v2", "api_v2"),
    ("abi-interop-lib", "abi_interop_lib", "interop_lib"),
    ("abi-mathlib", "mathlib", "mathlib"),
    ("abi-objects-conflict", "abi_objects_conflict", "objects_conflict"),
    ("abi-objects-lib", "abi_objects_lib", "objects_lib"),
    ("abi-objects-twin", "abi_objects_twin", "objects_twin"),
    ("abi-trial-lib", "abi_trial_lib", "trial_lib"),
    ("cuda-kit", "cuda_kit", "cuda_kit"),
    ("iree-kit", "iree_kit", "iree_kit"),
    ("op-kit", "op_kit", "op_kit"),
    ("running-stats", "running_stats", "running_stats"),
    ("signal-kit", "signal_kit", "signal_kit"),
    ("tensor-kit", "tensor_kit", "tensor_kit"),
];

/// The files kept for review; the others are checked here (`py.typed` is empty, the ops'
/// support module is `abi_ops.py` verbatim).
const KEPT: &[&str] = &["__init__.py", "__init__.pyi"];

fn kept_dir(package: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/packages").join(package)
}

/// The first line where `found` and `kept` differ, with both versions.
fn first_difference(found: &str, kept: &str) -> String {
    let (mut f, mut k) = (found.lines(), kept.lines());
    for n in 1.. {
        match (f.next(), k.next()) {
            (Some(a), Some(b)) if a == b => continue,
            (None, None) => break,
            (a, b) => return format!("line {n}:\n  now:  {}\n  kept: {}", a.unwrap_or("<end>"), b.unwrap_or("<end>")),
        }
    }
    "they differ only in line endings".to_owned()
}

#[test]
fn the_generated_packages_match_the_kept_ones() {
    let bless = std::env::var_os("ABI_BLESS").is_some();
    let support = include_str!("../src/stubs/abi_ops.py");
    let door = include_str!("../src/stubs/abi_door.py");
    let mut stale = Vec::new();
    for &(crate_name, lib, package) in LIBRARIES {
        let library = fixture_library(crate_name, lib);
        let out = tempdir(package);
        let run = abi(&["stubs", path(&library), "--package", package, "-o", path(out.path())]);
        let (stdout, stderr) = text(&run);
        assert!(run.status.success(), "abi stubs {package}: {stdout}{stderr}");
        let dir = out.path().join(package);
        let mut names: Vec<String> =
            std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        for name in &names {
            let found = std::fs::read_to_string(dir.join(name)).unwrap();
            match name.as_str() {
                "py.typed" => assert_eq!(found, "", "{package}/py.typed"),
                "_abi_ops.py" => assert!(found == support, "{package}/_abi_ops.py is not abi_ops.py verbatim"),
                "_abi_door.py" => assert!(found == door, "{package}/_abi_door.py is not abi_door.py verbatim"),
                kept_name if KEPT.contains(&kept_name) => {
                    let kept_path = kept_dir(package).join(kept_name);
                    if bless {
                        std::fs::create_dir_all(kept_dir(package)).unwrap();
                        std::fs::write(&kept_path, &found).unwrap();
                        continue;
                    }
                    let kept = std::fs::read_to_string(&kept_path).unwrap_or_default();
                    if found != kept {
                        stale.push(format!("{package}/{kept_name}: {}", first_difference(&found, &kept)));
                    }
                }
                other => panic!("{package}: unexpected file {other}"),
            }
        }
        for kept_name in KEPT {
            assert!(names.iter().any(|n| n == kept_name), "{package}: no {kept_name} written");
        }
    }
    assert!(
        stale.is_empty(),
        "the generated packages differ from tests/packages (ABI_BLESS=1 writes them anew):\n{}",
        stale.join("\n")
    );
}

/// A fresh folder for one package's files, removed with them when dropped (at the end of
/// the package's turn, or when a failing test unwinds).
fn tempdir(package: &str) -> TempDir {
    tempfile::Builder::new().prefix(&format!("abi-packages-{package}-")).tempdir().unwrap()
}
