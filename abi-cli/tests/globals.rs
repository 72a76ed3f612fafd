//! `abi inspect --globals` and `abi bindgen` on the pinned apache-tvm-ffi: the globals its
//! libraries register, read by loading them (libtvm_ffi found through
//! `ABI_TVM_FFI_LIBDIR`, which scripts/test-bindgen.sh sets; ignored by `cargo test`).

use std::path::PathBuf;

use tempfile::TempDir;

mod support;

use support::{abi, path, text};

/// A fresh, empty folder named `prefix...`, removed with what it holds when dropped (a
/// failing test's too).
fn temp_dir(prefix: &str) -> TempDir {
    tempfile::Builder::new().prefix(prefix).tempdir().unwrap()
}

fn libdir() -> PathBuf {
    PathBuf::from(std::env::var_os("ABI_TVM_FFI_LIBDIR").expect("ABI_TVM_FFI_LIBDIR names the wheel's lib folder"))
}

#[test]
#[ignore = "needs the wheel's libtvm_ffi: run by scripts/test-bindgen.sh"]
fn inspect_lists_the_globals_a_library_registers() {
    let testing = libdir().join("libtvm_ffi_testing.so");
    let out = abi(&["inspect", path(&testing), "--globals", "testing."]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains(": 2 export(s);"), "its module exports first:\n{stdout}");
    assert!(
        stdout.contains("\n59 global function(s) under `testing.`, registered by the loaded libraries\n"),
        "{stdout}"
    );
    assert!(stdout.contains("\ntesting.add_one(_0: int) -> int\n"), "{stdout}");
    assert!(stdout.contains("\ntesting.schema_id_list_int(_0: tvm_ffi.List[int]) -> tvm_ffi.List[int]\n"), "{stdout}");
    assert!(stdout.contains("\ntesting.echo(*args: Any) -> Any  (packed: no signature published)\n"), "{stdout}");

    // libtvm_ffi's own, with no library named; as JSON too.
    let out = abi(&["inspect", "--globals", "ffi.", "--json"]);
    assert!(out.status.success(), "{}", text(&out).1);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let globals = v["globals"].as_object().unwrap();
    assert_eq!(globals.len(), 100);
    assert_eq!(globals["ffi.Array"]["packed"], true);
    assert_eq!(globals["ffi.ArrayContains"]["python"], "ffi.ArrayContains(_0: list[Any], _1: Any) -> bool");
}

#[test]
#[ignore = "needs the wheel's libtvm_ffi: run by scripts/test-bindgen.sh"]
fn a_prefix_with_no_globals_is_one_line_and_exit_2() {
    for cmd in ["inspect", "bindgen"] {
        let out = abi(&[cmd, "--globals", "nothing.", "-o", "/dev/null"][..if cmd == "inspect" { 3 } else { 5 }]);
        let (_, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert_eq!(stderr, "abi: error: no global functions under `nothing.` in the loaded libraries\n");
    }
}

#[test]
#[ignore = "needs the wheel's libtvm_ffi: run by scripts/test-bindgen.sh"]
fn the_checked_in_bindings_of_tvm_ffi_are_what_bindgen_writes() {
    let dir = temp_dir("abi-globals-");
    let testing = libdir().join("libtvm_ffi_testing.so");
    let checked_in = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../abi-derive-tests/tests/bindgen");
    for (args, file) in
        [(vec!["--load", path(&testing), "--globals", "testing."], "testing.rs"), (vec!["--globals", "ffi."], "ffi.rs")]
    {
        let out = dir.path().join(file);
        let run = abi(&[&["bindgen"][..], &args, &["-o", path(&out)]].concat());
        assert!(run.status.success(), "{}", text(&run).1);
        let fresh = std::fs::read_to_string(&out).unwrap();
        assert!(
            fresh == std::fs::read_to_string(checked_in.join(file)).unwrap(),
            "abi-derive-tests/tests/bindgen/{file} is stale: regenerate it with abi bindgen {}",
            args.join(" ")
        );
    }
}

#[test]
#[ignore = "needs the wheel's libtvm_ffi: run by scripts/test-bindgen.sh"]
fn a_library_that_only_registers_globals_named_to_bind_says_to_load_it() {
    let runtime = libdir().join("libtvm_ffi.so");
    // Not written; if it were, it goes with the folder.
    let dir = temp_dir("abi-globals-load-");
    let out = dir.path().join("load.rs");
    for cmd in ["inspect", "bindgen"] {
        let run =
            abi(&[cmd, path(&runtime), "--globals", "ffi.", "-o", path(&out)][..if cmd == "inspect" { 4 } else { 6 }]);
        let (_, stderr) = text(&run);
        assert_eq!(run.status.code(), Some(2), "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains("exports no packed functions"), "{stderr}");
        assert!(
            stderr.ends_with("to read only the global functions it registers, pass it with --load instead\n"),
            "{stderr}"
        );
    }
    assert!(!out.exists(), "nothing written");
    // As --load it binds.
    let run = abi(&["inspect", "--load", path(&runtime), "--globals", "ffi."]);
    assert!(run.status.success(), "{}", text(&run).1);
}

#[test]
#[ignore = "needs the wheel's libtvm_ffi: run by scripts/test-bindgen.sh"]
fn any_prefix_gives_identifiers_clippy_accepts() {
    let testing = libdir().join("libtvm_ffi_testing.so");
    let dir = temp_dir("abi-globals-prefix-");
    for (prefix, wanted) in [
        ("", "    #[abi(name = \"ffi._RegisterFFIInit\")]\n    fn ffi_register_ffi_init("),
        ("testing", "    #[abi(name = \"testing.add_one\")]\n    fn add_one("),
        ("testing.schema_id_int", "    #[abi(name = \"testing.schema_id_int\")]\n    fn schema_id_int("),
    ] {
        let out = dir.path().join("g.rs");
        let run = abi(&["bindgen", "--load", path(&testing), "--globals", prefix, "-o", path(&out)]);
        assert!(run.status.success(), "{prefix:?}: {}", text(&run).1);
        let source = std::fs::read_to_string(&out).unwrap();
        assert!(source.contains(wanted), "{prefix:?}: {wanted:?} not in\n{source}");
        // The import set's functions (the handles' methods keep a leading `_` of C++).
        let block = source.split("\n}\n").next().unwrap();
        for line in block.lines().filter_map(|l| l.trim().strip_prefix("fn ")) {
            let name = line.split('(').next().unwrap();
            assert!(!name.starts_with('_') && !name.contains("__") && name != "f_", "{prefix:?}: `{name}`");
        }
    }
}

#[test]
#[ignore = "needs the wheel's libtvm_ffi: run by scripts/test-bindgen.sh"]
fn a_global_registered_twice_keeps_the_first_and_names_both_libraries() {
    let first = abi_derive_tests::fixture_library("abi-mathlib", "mathlib");
    let dir = temp_dir("abi-globals-twice-");
    let second = dir.path().join("libmathlib.so");
    std::fs::copy(&first, &second).unwrap();
    let run = abi(&["inspect", "--load", path(&first), "--load", path(&second), "--globals", "mathlib.", "--json"]);
    let (stdout, stderr) = text(&run);
    assert!(run.status.success(), "{stderr}");
    assert!(
        stderr.lines().any(|l| l
            == format!(
                "abi: global `mathlib.gcd` is already registered; keeping that registration (its code is in {}); \
                 {}'s `gcd` stays reachable through its module",
                first.display(),
                second.display()
            )),
        "{stderr}"
    );
    // The registry holds the first library's function.
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert!(v["globals"]["mathlib.gcd"].is_object(), "{stdout}");
}
