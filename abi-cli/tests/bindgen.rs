//! `abi bindgen` on abi libraries read from the file (`--no-load`): the declarations it
//! writes, byte-identical on every run and formatted as rustfmt formats them, as a module
//! or as a crate with the abi-core dependency the user names; bad input is one line and
//! exit 2. (The bindings it writes are compiled and called by abi-derive-tests'
//! bindgen_* tests.)

use std::path::PathBuf;

use abi_derive_tests::fixture_library;
use tempfile::TempDir;

mod support;

use support::{abi, path, text};

/// A fresh, empty folder, removed with what it holds when dropped (a failing test's too).
fn out_dir(name: &str) -> TempDir {
    tempfile::Builder::new().prefix(&format!("abi-bindgen-{name}-")).tempdir().unwrap()
}

fn generate(lib: &std::path::Path, out: &std::path::Path) -> String {
    let run = abi(&["bindgen", path(lib), "--no-load", "-o", path(out)]);
    let (stdout, stderr) = text(&run);
    assert!(run.status.success(), "{stderr}");
    assert_eq!(stdout, format!("wrote {}\n", out.display()));
    std::fs::read_to_string(out).unwrap()
}

#[test]
fn a_module_declares_every_export_with_its_types_and_is_the_same_every_time() {
    let lib = fixture_library("abi-mathlib", "mathlib");
    let tmp = out_dir("module");
    let dir = tmp.path();
    let first = generate(&lib, &dir.join("a.rs"));
    let again = out_dir("module-again");
    let second = generate(&lib, &again.path().join("a.rs"));
    assert_eq!(first, second, "deterministic");
    for part in [
        "//! Rust bindings to `libmathlib.so`, written by `abi bindgen`",
        "#[abi_core::import(Mathlib)]\nextern \"C\" {\n",
        "    /// Adds two integers; a sum outside the i64 range raises `ValueError`.\n    fn add(a: i64, b: i64) -> i64;\n",
        "    fn map_ints(xs: Vec<i64>, f: abi_core::TypedFunction<fn(i64) -> i64>) -> Vec<i64>;\n",
        // Borrowed in, owned out; an abi struct comes back as a derived struct.
        "fn greet_v2(name: &str) -> String;",
        "fn centroid(points: Vec<Point>) -> Option<Point>;",
        "#[derive(Clone, Debug, PartialEq, abi_core::AbiStruct)]\npub struct Point {\n",
    ] {
        assert!(first.contains(part), "{part:?} not in\n{first}");
    }
    // Formatted as rustfmt formats it, when rustfmt is here to say.
    if let Ok(check) =
        std::process::Command::new("rustfmt").args(["--edition", "2021", "--check"]).arg(dir.join("a.rs")).output()
    {
        assert!(check.status.success(), "{}", String::from_utf8_lossy(&check.stdout));
    }
}

#[test]
fn a_crate_names_abi_core_as_the_user_says() {
    let lib = fixture_library("abi-mathlib", "mathlib");
    let tmp = out_dir("crate");
    let dir = tmp.path();
    let spec = r#"{ path = "../abi/abi-core" }"#;
    let run = abi(&["bindgen", path(&lib), "--no-load", "--crate", "mathlib-sys", "--abi-core", spec, "-o", path(dir)]);
    assert!(run.status.success(), "{}", text(&run).1);
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
    assert!(manifest.contains("name = \"mathlib-sys\"\n"), "{manifest}");
    assert!(manifest.contains("\n[dependencies]\nabi-core = { path = \"../abi/abi-core\" }\n"), "{manifest}");
    let lib_rs = std::fs::read_to_string(dir.join("src/lib.rs")).unwrap();
    assert!(lib_rs.contains("fn add(a: i64, b: i64) -> i64;"), "{lib_rs}");

    let run = abi(&["bindgen", path(&lib), "--no-load", "--crate", "x", "--abi-core", "0.3", "-o", path(dir)]);
    assert!(run.status.success(), "{}", text(&run).1);
    assert!(std::fs::read_to_string(dir.join("Cargo.toml")).unwrap().contains("\nabi-core = \"0.3\"\n"));

    // A crate needs the dependency spelled.
    let run = abi(&["bindgen", path(&lib), "--crate", "x", "-o", path(dir)]);
    assert_eq!(run.status.code(), Some(2));
    assert!(text(&run).1.contains("--abi-core"), "{}", text(&run).1);
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let tmp = out_dir("bad");
    let dir = tmp.path();
    let not_a_library = dir.join("notes.txt");
    std::fs::write(&not_a_library, "hello").unwrap();
    let run = abi(&["bindgen", path(&not_a_library), "-o", path(&dir.join("x.rs"))]);
    let (_, stderr) = text(&run);
    assert_eq!(run.status.code(), Some(2));
    assert!(
        stderr.starts_with("abi: error: ") && stderr.contains("is not a shared library") && stderr.lines().count() == 1,
        "{stderr}"
    );
    assert!(!dir.join("x.rs").exists(), "nothing written");

    // A shared library with no packed functions: the C runtime's.
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
    let libc = maps.lines().filter_map(|l| l.split_whitespace().nth(5)).find(|p| p.contains("/libc.so")).unwrap();
    let run = abi(&["bindgen", libc, "--no-load", "-o", path(&dir.join("x.rs"))]);
    let (_, stderr) = text(&run);
    assert_eq!(run.status.code(), Some(2));
    assert!(stderr.contains("exports no packed functions") && stderr.lines().count() == 1, "{stderr}");
}

/// The checked-in file `name` of abi-derive-tests/tests/bindgen/.
fn checked_in(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../abi-derive-tests/tests/bindgen").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

// The file names in the headers are Linux's.
#[cfg(target_os = "linux")]
#[test]
fn the_checked_in_bindings_of_abi_libraries_are_what_bindgen_writes() {
    let tmp = out_dir("checked-in");
    let dir = tmp.path();
    for (package, lib, file) in
        [("abi-interop-lib", "abi_interop_lib", "interop_lib.rs"), ("abi-api-v1", "api_v1", "api_v1.rs")]
    {
        let fresh = generate(&fixture_library(package, lib), &dir.join(file));
        assert!(fresh == checked_in(file), "tests/bindgen/{file} is stale: regenerate it with `abi bindgen --no-load`");
    }
}

#[test]
#[ignore = "needs the C++ library: scripts/test-cpp-library.sh builds it and runs this"]
fn the_example_bindings_of_the_cpp_library_are_what_bindgen_writes() {
    let lib = PathBuf::from(std::env::var_os("ABI_CPP_LIBRARY").expect("ABI_CPP_LIBRARY names the C++ library"));
    let tmp = out_dir("cpp");
    let out = tmp.path().join("cpplib.rs");
    let run = abi(&["bindgen", path(&lib), "--globals", "cpplib.", "-o", path(&out)]);
    assert!(run.status.success(), "{}", text(&run).1);
    let example = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/generated/cpplib.rs");
    assert_eq!(std::fs::read_to_string(out).unwrap(), std::fs::read_to_string(example).unwrap());
}

/// Runs `abi args...` with `ABI_TVM_FFI_LIBDIR` as given (or unset) and an empty PATH, so
/// no tvm-ffi-config is found.
fn abi_without_tvm_ffi(libdir: Option<&str>, args: &[&str]) -> std::process::Output {
    let empty = out_dir("empty-path");
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_abi"));
    cmd.args(args).env("PATH", empty.path()).env_remove("ABI_TVM_FFI_LIBDIR");
    if let Some(dir) = libdir {
        cmd.env("ABI_TVM_FFI_LIBDIR", dir);
    }
    cmd.output().expect("run abi")
}

#[test]
fn globals_without_libtvm_ffi_are_refused_saying_how_to_name_it() {
    let tmp = out_dir("no-tvm-ffi");
    let dir = tmp.path();
    let out = dir.join("ffi.rs");
    for libdir in [None, Some("/nonexistent-abi-libdir")] {
        for args in [vec!["inspect", "--globals", "ffi."], vec!["bindgen", "--globals", "ffi.", "-o", path(&out)]] {
            let run = abi_without_tvm_ffi(libdir, &args);
            let (stdout, stderr) = text(&run);
            assert_eq!(run.status.code(), Some(2), "{args:?}: {stdout}{stderr}");
            assert_eq!(stderr.lines().count(), 1, "{stderr}");
            assert!(stderr.contains("set ABI_TVM_FFI_LIBDIR to the folder holding it"), "{stderr}");
            let why = match libdir {
                Some(_) => "ABI_TVM_FFI_LIBDIR names /nonexistent-abi-libdir, which holds no ",
                None => "ABI_TVM_FFI_LIBDIR is not set and no tvm-ffi-config is on PATH",
            };
            assert!(stderr.contains(why), "{stderr}");
            assert!(!out.exists(), "nothing written");
        }
    }
}

/// A copy of mathlib whose export records section is renamed, so that reading its
/// metadata means loading it, written as `dir/name`.
fn mathlib_read_by_loading(dir: &std::path::Path, name: &str) -> PathBuf {
    let bytes = std::fs::read(fixture_library("abi-mathlib", "mathlib")).unwrap();
    let (from, to) = (abi_shared::EXPORT_RECORDS_SECTION.as_bytes(), b"abi_export_recordz");
    assert_eq!(from.len(), to.len());
    let mut out = bytes.clone();
    let mut hits = 0;
    for i in 0..bytes.len().saturating_sub(from.len()) {
        if &bytes[i..i + from.len()] == from {
            out[i..i + from.len()].copy_from_slice(to);
            hits += 1;
        }
    }
    assert!(hits > 0, "the section name is in the library");
    let path = dir.join(name);
    std::fs::write(&path, out).unwrap();
    path
}

/// Runs `abi args...` in the folder `cwd`.
fn abi_in(cwd: &std::path::Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_abi")).args(args).current_dir(cwd).output().expect("run abi")
}

#[cfg(target_os = "linux")]
#[test]
fn a_bare_file_name_is_the_file_here_and_the_header_repeats_a_command_that_works() {
    let tmp = out_dir("bare");
    let dir = tmp.path();
    mathlib_read_by_loading(dir, "libbare.so");
    let run = abi_in(dir, &["inspect", "libbare.so"]);
    let (stdout, stderr) = text(&run);
    assert!(run.status.success(), "{stderr}");
    assert!(stdout.contains("(the library was loaded)"), "read by loading it:\n{stdout}");

    let spec = r#"{ path = "../abi/abi-core" }"#;
    let run = abi_in(dir, &["bindgen", "libbare.so", "--crate", "bare-sys", "--abi-core", spec, "-o", "out"]);
    assert!(run.status.success(), "{}", text(&run).1);
    let lib_rs = std::fs::read_to_string(dir.join("out/src/lib.rs")).unwrap();
    let command = r#"abi bindgen libbare.so --crate bare-sys --abi-core '{ path = "../abi/abi-core" }' -o out"#;
    assert!(lib_rs.contains(&format!("regenerate with\n//! `{command}`.\n")), "{lib_rs}");
    // The command it names writes the same files again.
    let rerun = std::process::Command::new("sh")
        .args(["-c", &command.replacen("abi", env!("CARGO_BIN_EXE_abi"), 1)])
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(rerun.status.success(), "{}", text(&rerun).1);
    assert_eq!(std::fs::read_to_string(dir.join("out/src/lib.rs")).unwrap(), lib_rs);

    // Absolute paths are named by their file names, with every flag kept.
    let out = dir.join("m.rs");
    let lib = fixture_library("abi-mathlib", "mathlib");
    let run = abi(&["bindgen", path(&lib), "--no-load", "-o", path(&out)]);
    assert!(run.status.success(), "{}", text(&run).1);
    let module = std::fs::read_to_string(&out).unwrap();
    assert!(module.contains("//! `abi bindgen libmathlib.so --no-load -o m.rs`.\n"), "{module}");
}

#[test]
fn a_crate_name_or_dependency_cargo_would_refuse_is_one_line_and_exit_2() {
    let lib = fixture_library("abi-mathlib", "mathlib");
    let tmp = out_dir("crate-refused");
    let dir = tmp.path();
    for (name, spec, says) in [
        ("bad name!", "0.1", "--crate \"bad name!\" is not a name the crate can have"),
        ("abi-core", "0.1", "it is the name of its dependency, abi-core"),
        ("x", "garbage {", "--abi-core \"garbage {\" is not a dependency"),
        ("x", "{ path = ", "not a TOML table"),
    ] {
        let run = abi(&["bindgen", path(&lib), "--no-load", "--crate", name, "--abi-core", spec, "-o", path(dir)]);
        let (_, stderr) = text(&run);
        assert_eq!(run.status.code(), Some(2), "{name} {spec}: {stderr}");
        assert!(stderr.starts_with("abi: error: ") && stderr.lines().count() == 1, "{stderr}");
        assert!(stderr.contains(says), "{stderr}");
        assert!(!dir.join("Cargo.toml").exists(), "nothing written");
    }
    // --abi-core says what the crate depends on: without --crate it is refused.
    let run = abi(&["bindgen", path(&lib), "--no-load", "--abi-core", "0.1", "-o", path(&dir.join("m.rs"))]);
    assert_eq!(run.status.code(), Some(2), "{}", text(&run).1);
    assert!(text(&run).1.contains("--crate"), "{}", text(&run).1);
    assert!(!dir.join("m.rs").exists(), "nothing written");
}
