//! The `abi` binary on real libraries: the example mathlib (metadata read from data), the
//! diff fixture pair (one change per category), a C++ tvm-ffi library (loaded to read its
//! metadata; run by scripts/test-cpp-library.sh), and bad input (exit 2, never a panic).

use std::path::PathBuf;

use abi_derive_tests::fixture_library;
use tempfile::{TempDir, TempPath};

mod support;

use support::{abi, path, text};

#[test]
fn inspect_reads_signatures_docs_and_records_from_the_file() {
    let lib = fixture_library("abi-mathlib", "mathlib");
    let out = abi(&["inspect", path(&lib)]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("metadata read from the file's data; no library code ran"), "{stdout}");
    for part in [
        "\nadd(a: int, b: int) -> int\n    Adds two integers; a sum outside the i64 range raises `ValueError`.\n",
        "    iree.abi: {\"a\":[[\"named\",\"a\",\"i64\"],[\"named\",\"b\",\"i64\"]],\"r\":[\"i64\"],\"v\":1}\n    signature: I11!S3!t7S3!t7R6!S3!t7\n",
        "map_ints(xs: list[int], f: Callable[[int], int]) -> list[int]",
        // A struct is named by its name, as the library's errors and the stubs name it.
        "centroid(points: list[Point]) -> Optional[Point]",
        // `#[export_fn(global = ...)]` names, read from the file too.
        "    signature: I11!S3!t7S3!t7R6!S3!t7\n    global: mathlib.gcd\n",
    ] {
        assert!(stdout.contains(part), "{part:?} not in\n{stdout}");
    }
    assert_eq!(stdout.matches("    global: ").count(), 2, "gcd and clamp only:\n{stdout}");
}

/// A library's fieldless enums and error types, and the error type each export names, read
/// from the file (docs/guide/enums.md says `abi inspect` lists them).
#[test]
fn inspect_lists_enums_error_types_and_what_an_export_raises() {
    let lib = fixture_library("abi-interop-lib", "abi_interop_lib");
    let out = abi(&["inspect", path(&lib)]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    for part in [
        "next_interp(mode: Interp = \"nearest\") -> Interp\n",
        "    signature: I11!S3!t7S3!t7R6!S3!t7\n    raises: SamplingError\n",
        "\nenum Interp (crosses as a string)\n    Nearest = \"nearest\"\n    Bilinear = \"bilinear\"\n    Bicubic = \"cubic\"\n",
        "\nerror type SamplingError\n    What the sampling functions refuse.\n",
        "    BadSize = \"abi_interop_lib.SamplingError.BadSize\" (Python base ValueError)\n",
        "\nenum Figure (crosses as a tuple: its variant's name, then its fields)\n    Circle = \"Circle\" (r: float)\n",
        "    Polygon = \"Polygon\" (list[tuple[float, float]], str)\n    Empty = \"Empty\"\n",
    ] {
        assert!(stdout.contains(part), "{part:?} not in\n{stdout}");
    }
    let out = abi(&["inspect", "--json", path(&lib)]);
    let json: serde_json::Value = serde_json::from_str(&text(&out).0).unwrap();
    assert_eq!(json["enums"][1]["variants"], serde_json::json!(["Nearest", "Bilinear", "Bicubic"]), "{json}");
    assert_eq!(json["errors"][0]["kinds"][1]["base"], "IndexError", "{json}");
    let figure = &json["data_enums"][0];
    assert_eq!(figure["name"], "Figure", "{json}");
    assert_eq!(
        figure["variants"][1]["fields"],
        serde_json::json!([{"name": "w", "type": "float"}, {"name": "h", "type": "float"}])
    );
}

#[test]
fn inspect_json_is_the_model_and_matches_what_the_library_returns() {
    let lib = fixture_library("abi-mathlib", "mathlib");
    let out = abi(&["inspect", "--json", path(&lib)]);
    assert!(out.status.success(), "{}", text(&out).1);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["source"], "data");
    let add = &v["exports"]["add"];
    assert_eq!(add["python"], "add(a: int, b: int) -> int");
    assert_eq!(add["metadata"]["arg_names"], serde_json::json!(["a", "b"]));
    assert_eq!(add["global"], serde_json::Value::Null);
    assert_eq!(v["exports"]["gcd"]["global"], "mathlib.gcd");
    assert_eq!(v["exports"]["gcd"]["metadata"]["abi.global"], "mathlib.gcd");
    // The data read from the file is what the metadata function returns when called.
    let loaded = abi_core::Library::open(&lib).unwrap();
    let called: serde_json::Value = serde_json::from_str(&loaded.metadata("add").unwrap().unwrap()).unwrap();
    assert_eq!(add["metadata"], called);
}

fn diff_pair() -> (PathBuf, PathBuf) {
    (fixture_library("abi-api-v1", "api_v1"), fixture_library("abi-api-v2", "api_v2"))
}

#[test]
fn diff_classifies_every_category_and_exits_1_when_anything_breaks() {
    let (v1, v2) = diff_pair();
    let out = abi(&["diff", "--json", path(&v1), path(&v2)]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out).1);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let found: Vec<(String, String, String)> = v["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["function"].as_str().unwrap().into(),
                c["kind"].as_str().unwrap().into(),
                c["severity"].as_str().unwrap().into(),
            )
        })
        .collect();
    let expected = [
        ("api.Fresh", "class_added", "compatible"),
        ("api.Retired", "class_removed", "breaking"),
        ("api.Shape.area", "param_added", "breaking"),
        ("api.Shape.depth", "field_added", "compatible"),
        ("api.Shape.gone", "method_removed", "breaking"),
        ("api.Shape.hits", "field_made_read_only", "breaking"),
        ("api.Shape.misses", "field_made_writable", "compatible"),
        ("api.Shape.perimeter", "method_added", "compatible"),
        ("api.Shape.scale", "field_retyped", "breaking"),
        ("api.Shape.sides", "field_removed", "breaking"),
        ("api.Shape.twin", "method_kind_changed", "breaking"),
        ("api.Shape.within", "param_narrowed", "breaking"),
        ("area", "docs_changed", "compatible"),
        ("bump", "param_added_with_default", "compatible"),
        ("dropped", "export_removed", "breaking"),
        ("each", "callback_changed", "breaking"),
        ("extent", "struct_fields_changed", "breaking"),
        ("fresh", "export_added", "compatible"),
        ("grow", "param_added", "breaking"),
        ("halve", "param_widened", "compatible"),
        ("mean", "result_narrowed", "compatible"),
        ("need", "optional_made_required", "breaking"),
        ("norm", "struct_fields_changed", "breaking"),
        ("old_name", "export_renamed", "breaking"),
        ("op_backward", "op_backward_changed", "breaking"),
        ("op_outputs", "op_output_removed", "breaking"),
        ("op_outputs", "param_removed", "breaking"),
        ("op_rule", "op_rule_changed", "breaking"),
        ("pad", "default_removed", "breaking"),
        ("pair_sum", "positional_param_renamed", "compatible"),
        ("pair_sum", "positional_param_renamed", "compatible"),
        ("rename_param", "param_renamed", "breaking"),
        ("repeat", "default_added", "compatible"),
        ("result", "result_changed", "breaking"),
        ("round_to", "default_changed", "breaking"),
        ("shrink", "param_removed", "breaking"),
        ("sides_of", "param_narrowed", "breaking"),
        ("small", "result_widened", "breaking"),
        ("span", "params_reordered", "breaking"),
        ("store", "param_narrowed", "breaking"),
        ("version", "global_renamed", "breaking"),
        ("widen", "param_widened", "compatible"),
    ];
    let expected: Vec<(String, String, String)> =
        expected.iter().map(|(f, k, s)| (f.to_string(), k.to_string(), s.to_string())).collect();
    assert_eq!(found, expected);
    // The report names the function, the parameter and both types.
    let store = v["changes"].as_array().unwrap().iter().find(|c| c["function"] == "store").unwrap();
    assert_eq!((&store["parameter"], &store["old"], &store["new"]), (&"v".into(), &"Any".into(), &"int".into()));
    let (stdout, _) = text(&abi(&["diff", path(&v1), path(&v2)]));
    assert!(stdout.contains("BREAKING   store: parameter `v` (#0) narrowed: Any -> int"), "{stdout}");
    assert!(stdout.contains("norm: parameter `p` (#0): struct fields reordered: (x, y) -> (y, x)"), "{stdout}");
    assert!(
        stdout.contains("BREAKING   api.Shape.scale: field type changed: float -> int [field_retyped]"),
        "{stdout}"
    );
    // Widths come from `iree.abi`: the newcomer's i64 -> u8 and f64 -> f32 are breaking.
    assert!(
        stdout.contains("BREAKING   sides_of: parameter `n` (#0) narrowed: i64 -> u8 (old arguments may be out of range) [param_narrowed]"),
        "{stdout}"
    );
    assert!(stdout.contains("BREAKING   api.Shape.within: parameter `x` (#1) narrowed: f64 -> f32"), "{stdout}");
    assert!(stdout.contains("compatible halve: parameter `x` (#0) widened: f32 -> f64 [param_widened]"), "{stdout}");
    assert!(
        stdout.contains("BREAKING   version: global name changed: api.version -> api.release (callers looking up `api.version` find nothing) [global_renamed]"),
        "{stdout}"
    );
    // Defaults and keywords: the generated package takes parameters by name.
    assert!(
        stdout.contains("BREAKING   round_to: parameter `digits` (#1) default changed: 2 -> 3 (callers that omit it get another value) [default_changed]"),
        "{stdout}"
    );
    assert!(
        stdout.contains("compatible bump: parameter `by` (#1: int = 1) added with a default: old callers omit it [param_added_with_default]"),
        "{stdout}"
    );
    // An op's rules, outputs and backward are what its framework wrappers are made of.
    for line in [
        "BREAKING   op_rule: shape rule of `y` changed: out = [x.0, x.0] -> out = [x.0, 3] (outputs are allocated by it) [op_rule_changed]",
        "BREAKING   op_outputs: output `hi` removed: callers that read it fail [op_output_removed]",
        "BREAKING   op_backward: backward changed: op_grad_a -> op_grad_b (gradients are computed by another op) [op_backward_changed]",
    ] {
        assert!(stdout.contains(line), "{line:?} not in\n{stdout}");
    }
    assert!(stdout.ends_with("29 breaking, 13 compatible change(s)\n"), "{stdout}");
}

#[test]
fn inspect_shows_an_ops_rules_in_place_params_backward_and_jax_entry() {
    let lib = fixture_library("op-kit", "op_kit");
    let out = abi(&["inspect", path(&lib)]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    for part in [
        "scale_rows(x: Tensor[f64, 2], k: Tensor[f64, 1], y: Tensor[f64, 2]) -> None\n",
        "    op (cpu): inputs x, k; scalars -\n        y: out = x\n        backward: scale_rows_bwd\n",
        "    op (cpu): inputs a, b; scalars -\n        c: out = [a.0, b.1]\n",
        "    op (cpu): inputs -; scalars n, step\n        y: out = [n]\n",
        "    op (cpu): inputs -; scalars -\n        x: inout\n        in place: x\n        jax entry: relu___jax\n",
        "relu___jax(x__in: Any, x: Tensor[f32, 2]) -> None\n",
        "    op (cpu): inputs labels; scalars n_classes\n        y: out = [labels.0, n_classes]\n",
        // A fieldless enum scalar.
        "activate(x: Tensor[f32, 2], kind: Activation, y: Tensor[f32, 2]) -> None\n",
        "    op (cpu): inputs x; scalars kind\n        y: out = x\n        backward: activate_bwd\n",
    ] {
        assert!(stdout.contains(part), "{part:?} not in\n{stdout}");
    }
    assert_eq!(stdout.matches("    op (cpu)").count(), 15, "every op, and not the JAX entries:\n{stdout}");

    let out = abi(&["inspect", "--json", path(&lib)]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let relu = &v["exports"]["relu_"]["op"];
    assert_eq!(relu["outputs"], serde_json::json!([{"name": "x", "inout": true}]));
    assert_eq!(
        (&relu["inout"], &relu["jax"], &relu["backward"]),
        (&serde_json::json!(["x"]), &"relu___jax".into(), &serde_json::Value::Null)
    );
    assert_eq!(v["exports"]["matmul"]["op"]["outputs"], serde_json::json!([{"name": "c", "shape": ["a.0", "b.1"]}]));
    assert_eq!(v["exports"]["scale_rows"]["op"]["backward"], "scale_rows_bwd");
    assert_eq!(v["exports"]["relu___jax"]["op"], serde_json::Value::Null);
    assert_eq!(v["exports"]["scale_rows"]["metadata"]["abi.op"], v["exports"]["scale_rows"]["op"]);
}

#[test]
fn diff_of_compatible_builds_exits_0() {
    let (v1, _) = diff_pair();
    let out = abi(&["diff", path(&v1), path(&v1)]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out).0.lines().last(), Some("0 breaking, 0 compatible change(s)"));
}

#[test]
fn bad_input_is_a_message_and_exit_2() {
    let dir = temp_dir("abi-cli-bad-");
    let not_lib = dir.path().join("notes.txt");
    std::fs::write(&not_lib, "hello").unwrap();
    let cases: [(Vec<String>, &str); 4] = [
        (vec!["inspect".into(), path(&not_lib).into()], "is not a shared library"),
        (vec!["inspect".into(), dir.path().join("absent.so").display().to_string()], "cannot read"),
        // A shared library with no packed exports: the C runtime's.
        (vec!["inspect".into(), libc_path()], "exports no packed functions"),
        (
            vec![
                "stubs".into(),
                path(&fixture_library("abi-mathlib", "mathlib")).into(),
                "--package".into(),
                "not-a-name".into(),
                "-o".into(),
                path(dir.path()).into(),
            ],
            "is not a Python package name",
        ),
    ];
    for (args, says) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = abi(&args);
        let (_, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.starts_with("abi: error: ") && stderr.contains(says), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

/// A fresh, empty folder named `prefix...`, removed with what it holds when dropped (a
/// failing test's too).
fn temp_dir(prefix: &str) -> TempDir {
    tempfile::Builder::new().prefix(prefix).tempdir().unwrap()
}

/// The path of the C runtime this test links (a shared library without packed exports).
fn libc_path() -> String {
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
    maps.lines()
        .filter_map(|l| l.split_whitespace().nth(5))
        .find(|p| p.contains("/libc.so"))
        .expect("libc is mapped")
        .to_owned()
}

/// A copy of mathlib with every `from` in its bytes replaced by `to` (same length).
fn patched(from: &str, to: &str, name: &str) -> TempPath {
    patched_library(fixture_library("abi-mathlib", "mathlib"), from, to, name)
}

/// A copy of `lib` with every `from` in its bytes replaced by `to` (same length), as a
/// temporary file removed when dropped.
fn patched_library(lib: PathBuf, from: &str, to: &str, name: &str) -> TempPath {
    assert_eq!(from.len(), to.len());
    let bytes = std::fs::read(lib).unwrap();
    let text = bytes.windows(from.len()).filter(|w| *w == from.as_bytes()).count();
    assert!(text > 0, "{from:?} not in the library");
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i..].starts_with(from.as_bytes()) {
            out.extend_from_slice(to.as_bytes());
            i += from.len();
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    let file = tempfile::Builder::new().prefix(&format!("abi-cli-{name}-")).suffix(".so").tempfile().unwrap();
    std::fs::write(file.path(), out).unwrap();
    file.into_temp_path()
}

#[test]
fn malformed_and_future_metadata_in_a_file_are_refused() {
    let future = format!("\"abi.version\":{}}}", abi_shared::METADATA_VERSION + 1);
    let current = format!("\"abi.version\":{}}}", abi_shared::METADATA_VERSION);
    for (lib, says) in [
        (patched(&current, &future, "future"), "newer than this build of abi reads"),
        (patched("{\"type_schema\":\"{", "[\"type_schema\":\"{", "malformed"), "malformed metadata JSON"),
    ] {
        let out = abi(&["inspect", "--no-load", path(&lib)]);
        let (_, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(says) && stderr.contains("publishes metadata this build cannot read"), "{stderr}");
        // Which file: `abi diff` reads two.
        assert!(stderr.starts_with(&format!("abi: error: {}: ", lib.display())), "{stderr}");
    }
}

#[test]
fn inspect_reads_object_classes_from_the_file() {
    let lib = fixture_library("abi-objects-lib", "abi_objects_lib");
    let out = abi(&["inspect", "--no-load", path(&lib)]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("; 2 class(es) read from the file's records\n"), "{stdout}");
    for part in [
        "\nclass mylib.Counter (parent ffi.Object)\n    A named counter.\n    field name: str (read-only)\n        The counter's name.\n    field start: int (read-only)\n",
        "    static method __ffi_init__(name: str, start: int) -> mylib.Counter\n",
        "    method add(self: mylib.Counter, by: int) -> int\n        Adds `by` and returns the new value.\n",
        "\nclass mylib.LimitedCounter (parent mylib.Counter)\n",
        "    field label: str (writable)\n",
    ] {
        assert!(stdout.contains(part), "{part:?} not in\n{stdout}");
    }
    let out = abi(&["inspect", "--json", "--no-load", path(&lib)]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let counter = &v["classes"]["mylib.Counter"];
    assert_eq!(counter["parent"], "ffi.Object");
    assert_eq!(counter["fields"][1], serde_json::json!({"name": "start", "type": "int", "writable": false, "doc": ""}));
    assert_eq!(counter["methods"]["zero"]["static"], true);
    assert_eq!(counter["methods"]["add"]["metadata"]["arg_names"], serde_json::json!(["self", "by"]));
    // A library without classes lists none.
    let out = abi(&["inspect", "--json", path(&fixture_library("abi-mathlib", "mathlib"))]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["classes"], serde_json::json!({}));
}

#[test]
fn malformed_and_future_class_records_are_refused() {
    let lib = || fixture_library("abi-objects-lib", "abi_objects_lib");
    let current = format!("}}],\"abi.version\":{}}}", abi_shared::METADATA_VERSION);
    let future = format!("}}],\"abi.version\":{}}}", abi_shared::METADATA_VERSION + 1);
    // Where stubs would write, were the records read.
    let out_dir = temp_dir("abi-cli-class-stubs-");
    for (lib, says) in [
        (
            patched_library(lib(), &current, &future, "class-future"),
            "a class record has format version 2, this build reads 1",
        ),
        (
            patched_library(lib(), "{\"record\":\"class\"", "{\"record\":\"klass\"", "class-kind"),
            "a class record has no valid kind",
        ),
        (
            patched_library(lib(), "{\"record\":\"class\"", "[\"record\":\"class\"", "class-json"),
            "a class record is not JSON",
        ),
    ] {
        for command in ["inspect", "stubs"] {
            let out = abi(&[command, "--no-load", path(&lib), "--package", "p", "-o", path(out_dir.path())]
                [..if command == "inspect" { 3 } else { 7 }]);
            let (_, stderr) = text(&out);
            assert_eq!(out.status.code(), Some(2), "{command}: {stderr}");
            assert!(stderr.contains(says), "{command}: {stderr}");
        }
    }
}

#[test]
#[ignore = "needs the C++ library: scripts/test-cpp-library.sh builds it and runs this"]
fn inspect_and_diff_read_a_cpp_library_by_loading_it() {
    let lib = std::env::var("ABI_CPP_LIBRARY").expect("ABI_CPP_LIBRARY names the C++ library");
    let out = abi(&["inspect", &lib]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stdout.contains("metadata returned by the library's metadata functions (the library was loaded)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("\napply_twice(_0: Function, _1: int) -> int\n    Calls f on x, then on the result.\n"),
        "{stdout}"
    );
    assert!(stdout.contains("\nlabel(_0: str, _1: Optional[int]) -> str\n"), "{stdout}");
    let refused = abi(&["inspect", "--no-load", &lib]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(text(&refused).1.contains("publishes its metadata only as functions"));
    let same = abi(&["diff", &lib, &lib]);
    assert_eq!(same.status.code(), Some(0), "{}", text(&same).1);
    let dir = temp_dir("abi-cli-cpp-stubs-");
    let out = abi(&["stubs", &lib, "--package", "cpplib", "-o", path(dir.path())]);
    assert!(out.status.success(), "{}", text(&out).1);
    let stub = std::fs::read_to_string(dir.path().join("cpplib/__init__.pyi")).unwrap();
    for part in [
        "def apply_twice(_0: Callable[..., Any], _1: int, /) -> int:\n    \"\"\"Calls f on x, then on the result.\"\"\"\n",
        "def label(_0: str, _1: Optional[int], /) -> str: ...\n",
    ] {
        assert!(stub.contains(part), "{part:?} not in\n{stub}");
    }
}

#[test]
fn inspect_reads_the_iree_module_from_the_file() {
    let lib = fixture_library("iree-kit", "iree_kit");
    let out = abi(&["inspect", "--no-load", path(&lib)]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(stderr, "", "a library with its module earns no warning");
    for part in [
        "\nIREE module kit: entry point iree_vm_dynamic_module_create, 14 function(s)\n    kit.add_i32      0ii_i\n",
        "\n    kit.mix          0iIf_fI\n",
        "\n    kit.tick         0v_v\n",
    ] {
        assert!(stdout.contains(part), "{part:?} not in\n{stdout}");
    }
    let out = abi(&["inspect", "--json", "--no-load", path(&lib)]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["iree"]["modules"], serde_json::json!([{ "name": "kit", "entry": "iree_vm_dynamic_module_create" }]));
    assert_eq!(v["iree"]["functions"]["row_sums"], serde_json::json!({ "cconv": "0r_rI" }));
    assert_eq!(v["iree"]["functions"].as_object().unwrap().len(), 14);
    assert_eq!(v["iree"]["warning"], serde_json::Value::Null);
    // A library without IREE functions says nothing of IREE.
    let mathlib = fixture_library("abi-mathlib", "mathlib");
    let out = abi(&["inspect", path(&mathlib)]);
    assert!(!text(&out).0.contains("IREE module") && text(&out).1.is_empty(), "{:?}", text(&out));
}

#[test]
fn iree_functions_without_a_module_are_a_warning_naming_the_macro() {
    let lib = fixture_library("abi-trial-lib", "abi_trial_lib");
    let warning = "has IREE functions but no module entry point (#[export_fn(iree)]: twice): IREE cannot load it \
                   (\"symbol 'iree_vm_dynamic_module_create' not found in library\"); add `abi_core::iree_module!(\"name\");`";
    let out = abi(&["inspect", "--no-load", path(&lib)]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "a warning, not an error: {stderr}");
    assert!(stderr.starts_with("abi: warning: ") && stderr.contains(warning), "{stderr}");
    assert!(stdout.contains("\nIREE functions without a module: 1 function(s), no module entry point (add `abi_core::iree_module!(\"name\");`)\n    twice  0i_i\n"), "{stdout}");
    // Docs holding control characters print them escaped, never raw to the terminal.
    assert!(
        stdout.contains("    a tab\there, NUL \\u{0}, \\u{1}, a carriage return \\r, DEL \\u{7f}, NEL \\u{85}"),
        "{stdout}"
    );
    let out = abi(&["inspect", "--json", path(&lib)]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["iree"]["warning"].as_str().is_some_and(|w| w.contains(warning)), "{}", v["iree"]);
    // `abi wheel` builds the wheel and warns the same way.
    let dir = temp_dir("abi-cli-trial-wheel-");
    let out = abi(&["wheel", path(&lib), "--package", "trial", "--version", "1.0", "-o", path(dir.path())]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.starts_with("wrote ") && stderr.contains(warning), "{stdout}\n{stderr}");
}

/// The ```text block after `<!-- excerpt of: COMMAND -->` in the guide's chapter on the
/// command (docs/guide/cli.md).
fn guide_excerpt(command: &str) -> String {
    let chapter = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/guide/cli.md")).unwrap();
    let marker = format!("<!-- excerpt of: {command} -->\n```text\n");
    let start = chapter.find(&marker).unwrap_or_else(|| panic!("docs/guide/cli.md shows no excerpt of `{command}`"))
        + marker.len();
    let len = chapter[start..].find("```").unwrap();
    chapter[start..start + len].to_owned()
}

#[test]
fn the_guide_excerpts_are_real_output() {
    let lib = fixture_library("abi-mathlib", "mathlib");
    let inspect = text(&abi(&["inspect", path(&lib)])).0;
    let excerpt = guide_excerpt("abi inspect target/debug/libmathlib.so");
    assert!(inspect.contains(&excerpt), "guide excerpt not in the output:\n{excerpt}\n---\n{inspect}");
    let (v1, v2) = diff_pair();
    let diff = text(&abi(&["diff", path(&v1), path(&v2)])).0;
    for line in guide_excerpt("abi diff libapi_v1.so libapi_v2.so").lines() {
        assert!(diff.lines().any(|l| l == line), "guide line not in the output: {line}\n---\n{diff}");
    }
    let iree = text(&abi(&["inspect", path(&fixture_library("iree-kit", "iree_kit"))])).0;
    for line in guide_excerpt("abi inspect target/debug/libiree_kit.so").lines() {
        assert!(iree.lines().any(|l| l == line), "guide line not in the output: {line}\n---\n{iree}");
    }
}

/// `--load` loads a library so that its globals are registered: without `--globals` it
/// would be ignored, so it is refused (it was silently ignored).
#[test]
fn load_without_globals_is_refused() {
    let lib = fixture_library("abi-mathlib", "mathlib");
    // Nor with --no-load, which loads nothing (it was ignored too).
    let cases =
        [(&[][..], "--globals <PREFIX>"), (&["--no-load"][..], "'--no-load' cannot be used with '--load <LIB>'")];
    for ((flags, says), command) in cases.iter().flat_map(|c| [(c, "inspect"), (c, "bindgen")]) {
        let mut args = vec![command];
        args.extend(flags.iter().copied());
        args.extend(["--load", path(&lib), path(&lib)]);
        if command == "bindgen" {
            args.extend(["-o", "/dev/null"]);
        }
        let out = abi(&args);
        let (_, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
}
