//! `abi` on files a user did not write (a wheel or library downloaded from elsewhere, read
//! with `--no-load` before trusting it): damaged, cut short or hostile, each is a listing
//! or one line on stderr and exit status 2, never a panic, a signal or a hang; and the
//! Python that `abi stubs` writes from a file's names and texts always parses.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use abi_cli::read::{read_bytes, Listing};
use abi_derive_tests::{fixture_library, SplitMix64};
use object::{Object, ObjectSection};
use support::{abi, path, text};
use tempfile::TempDir;

/// A fresh, empty folder named `prefix...`, removed with what it holds when dropped (a
/// failing test's too).
fn temp_dir(prefix: &str) -> TempDir {
    tempfile::Builder::new().prefix(prefix).tempdir().unwrap()
}

/// Libraries with every record section: exports, classes, IREE records.
fn libraries() -> Vec<PathBuf> {
    vec![
        fixture_library("abi-mathlib", "mathlib"),
        fixture_library("abi-objects-lib", "abi_objects_lib"),
        fixture_library("iree-kit", "iree_kit"),
    ]
}

/// The byte range of each of abi's record sections in the ELF file `bytes`.
fn record_ranges(bytes: &[u8]) -> Vec<std::ops::Range<usize>> {
    let file = object::File::parse(bytes).expect("an ELF file");
    [abi_shared::EXPORT_RECORDS_SECTION, abi_shared::CLASS_RECORDS_SECTION, abi_shared::IREE_RECORDS_SECTION]
        .iter()
        .filter_map(|name| file.section_by_name(name)?.file_range())
        .map(|(start, len)| start as usize..(start + len) as usize)
        .collect()
}

fn read(bytes: &[u8]) -> Result<Listing, String> {
    read_bytes(Path::new("damaged.so"), bytes, false)
}

#[test]
fn damaged_libraries_read_as_a_listing_or_an_error() {
    let mut rng = SplitMix64(43);
    for lib in libraries() {
        let good = std::fs::read(&lib).unwrap();
        assert!(read(&good).is_ok(), "{}", lib.display());
        let ranges = record_ranges(&good);
        assert!(!ranges.is_empty(), "{} has record sections", lib.display());
        // Cut short anywhere (the headers, the tables, the records).
        for _ in 0..300 {
            let _ = read(&good[..rng.index(good.len())]);
        }
        for cut in [0, 1, 4, 16, 63, 64, 65] {
            assert!(read(&good[..cut]).is_err());
        }
        // Bytes changed in the records, and anywhere.
        for round in 0..600 {
            let mut bad = good.clone();
            for _ in 0..1 + rng.index(8) {
                let at = match round % 3 {
                    0 => rng.index(bad.len()),
                    _ => {
                        let r = &ranges[rng.index(ranges.len())];
                        r.start + rng.index(r.len())
                    }
                };
                bad[at] = match rng.index(4) {
                    0 => 0,
                    1 => 0xff,
                    _ => rng.next_u64() as u8,
                };
            }
            if let Ok(listing) = read(&bad) {
                // What reads must also write its package, which must parse.
                let _ = abi_cli::stubs::files(&listing, "pkg").unwrap();
            }
        }
    }
}

/// `file` damaged so that `abi` refuses it: the ELF header's section count and offset
/// pointing beyond the file, a record section's export body length of 4 GiB, or the
/// file cut short.
fn hostile_files(good: &[u8], dir: &Path) -> Vec<(PathBuf, &'static str)> {
    let mut files = Vec::new();
    let mut save = |name: &'static str, bytes: Vec<u8>| {
        let path = dir.join(format!("{name}.so"));
        std::fs::write(&path, bytes).unwrap();
        files.push((path, name));
    };
    save("cut-short", good[..good.len() / 2].to_vec());
    save("empty", Vec::new());
    let mut sections_beyond = good.to_vec();
    sections_beyond[0x28..0x30].copy_from_slice(&u64::MAX.to_le_bytes()); // e_shoff
    save("section-headers-beyond", sections_beyond);
    let exports = record_ranges(good)[0].clone();
    let mut long_body = good.to_vec();
    // The first record: name, NUL, global name (empty), NUL, then the 4-byte body length.
    let name_end = exports.start + good[exports.clone()].iter().position(|&b| b == 0).unwrap();
    long_body[name_end + 2..name_end + 6].copy_from_slice(&u32::MAX.to_le_bytes());
    save("body-length-4gib", long_body);
    let mut newline = good.to_vec();
    newline[exports.start] = b'\n';
    save("name-with-a-line-break", newline);
    // An IREE record whose JSON starts with a line break and is then cut: its message
    // quotes the record.
    let iree = fixture_library("iree-kit", "iree_kit");
    let mut iree_bytes = std::fs::read(&iree).unwrap();
    let records = record_ranges(&iree_bytes).last().unwrap().clone();
    iree_bytes[records.start..records.start + 3].copy_from_slice(b"\n\n[");
    save("iree-record-with-line-breaks", iree_bytes);
    save("symbols-sharing-one-long-name", symbols_sharing_one_name(good, 2000, 200_000));
    // More packed functions than records may describe, each its own name.
    let mut strings = vec![0u8];
    (0..70_000).for_each(|i| strings.extend_from_slice(format!("__tvm_ffi_f{i}\0").as_bytes()));
    save("more-exports-than-records", with_symbols(good, &strings, 70_000));
    files
}

/// `good` with its dynamic symbol table replaced by one exported function per name of
/// `names`, each symbol pointing at the start of its name in a new string table; the
/// names are NUL-separated in `strings` (one name many symbols share when `strings` holds
/// one).
fn with_symbols(good: &[u8], strings: &[u8], count: usize) -> Vec<u8> {
    let file = object::File::parse(good).expect("an ELF file");
    let text = file.section_by_name(".text").expect("a .text section").index().0 as u16;
    let mut table = vec![0; 24];
    let starts: Vec<u32> = std::iter::once(1)
        .chain(strings[1..].iter().enumerate().filter(|(_, &b)| b == 0).map(|(i, _)| i as u32 + 2))
        .filter(|&at| (at as usize) < strings.len())
        .collect();
    for i in 0..count {
        // Elf64_Sym: the name's offset, a global function in .text.
        table.extend_from_slice(&starts[i % starts.len()].to_le_bytes());
        table.extend_from_slice(&[0x12, 0]);
        table.extend_from_slice(&text.to_le_bytes());
        table.extend_from_slice(&0x1000u64.to_le_bytes());
        table.extend_from_slice(&16u64.to_le_bytes());
    }
    with_section(&with_section(good, ".dynstr", strings), ".dynsym", &table)
}

/// `count` exported functions that all name one `__tvm_ffi_AAA...` of `len` bytes (a few
/// hundred kilobytes of file that name hundreds of megabytes).
fn symbols_sharing_one_name(good: &[u8], count: usize, len: usize) -> Vec<u8> {
    let mut strings = b"\0__tvm_ffi_".to_vec();
    strings.resize(strings.len() + len, b'A');
    strings.push(0);
    with_symbols(good, &strings, count)
}

#[test]
fn hostile_files_are_one_line_and_exit_2_for_every_command() {
    let dir = temp_dir("abi-untrusted-");
    let good = fixture_library("abi-mathlib", "mathlib");
    for (file, what) in hostile_files(&std::fs::read(&good).unwrap(), dir.path()) {
        let f = path(&file);
        let out_dir = path(dir.path());
        let rs = format!("{out_dir}/bindings.rs");
        for args in [
            vec!["inspect", "--no-load", f],
            vec!["inspect", "--no-load", "--json", f],
            vec!["diff", "--no-load", path(&good), f],
            vec!["stubs", "--no-load", f, "--package", "p", "-o", out_dir],
            vec!["wheel", "--no-load", f, "--package", "p", "--version", "1.0", "-o", out_dir],
            vec!["bindgen", "--no-load", f, "-o", &rs],
        ] {
            let out = abi(&args);
            let (stdout, stderr) = text(&out);
            assert_eq!(out.status.code(), Some(2), "{what}: {args:?}: {stderr}");
            assert!(stdout.is_empty(), "{what}: {args:?}: {stdout}");
            assert_eq!(stderr.lines().count(), 1, "{what}: {args:?}: {stderr}");
            assert!(stderr.starts_with("abi: error: "), "{what}: {args:?}: {stderr}");
            if what == "symbols-sharing-one-long-name" {
                assert!(stderr.contains("symbols share names"), "{args:?}: {stderr}");
            }
            if what == "more-exports-than-records" {
                assert!(stderr.contains("exports 70000 packed functions, more than the 65536"), "{args:?}: {stderr}");
            }
        }
    }
    dir.close().unwrap();
}

#[test]
fn the_help_says_which_commands_load_a_library() {
    // The paragraph the guide shows (docs/guide/reliability.md) is the one every command prints.
    let chapter =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/guide/reliability.md")).unwrap();
    let shown = chapter.lines().find(|l| l.starts_with("LOADING: ")).expect("the chapter shows the LOADING paragraph");
    for command in ["inspect", "stubs", "wheel", "diff", "bindgen"] {
        let (stdout, _) = text(&abi(&[command, "--help"]));
        let printed = stdout.split("LOADING: ").nth(1).unwrap_or_else(|| panic!("{command}: no LOADING: {stdout}"));
        assert_eq!(
            format!("LOADING: {}", printed.split_whitespace().collect::<Vec<_>>().join(" ")),
            shown,
            "{command}"
        );
        assert!(stdout.contains("pass --no-load"), "{command}: {stdout}");
    }
}

/// Fails unless python3 compiles `source` (`compile`: parsing, and the checks after it,
/// such as `__debug__` not being a name to bind).
fn assert_python_parses(name: &str, source: &str) {
    use std::io::Write;
    let mut child = Command::new("python3")
        .args(["-c", "import sys; compile(sys.stdin.buffer.read(), 'stub', 'exec')"])
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("python3 runs");
    child.stdin.take().unwrap().write_all(source.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{name} does not parse: {}\n{source}", String::from_utf8_lossy(&out.stderr));
}

/// A class record with `key`, one field `field` and one method `method` taking `arg`.
fn class_record(key: &str, field: &str, method: &str, arg: &str) -> String {
    let v = abi_shared::METADATA_VERSION;
    let class = serde_json::json!({
        "record": "class", "type_key": key, "parent": "ffi.Object", "doc": "A \"\"\" doc\\",
        "fields": [{"name": field, "type_schema": "{\"type\":\"int\"}", "writable": false, "doc": "\u{0}\"\"\""}],
        "abi.version": v,
    });
    let schema = serde_json::json!({"type": "ffi.Function", "named_args": {
        "return": [{"type": key}], "params": [{"type": key}, {"type": "ffi.String"}],
    }})
    .to_string();
    let method = serde_json::json!({
        "record": "method", "class": key, "name": method, "static": false, "doc": "",
        "metadata": {"type_schema": schema, "arg_names": ["self", arg], "abi.defaults": {arg: "\u{1}\u{2028}\"'\\"}, "abi.version": v},
        "abi.version": v,
    });
    format!("{class}\0{method}\0")
}

#[test]
fn the_package_parses_whatever_names_and_texts_the_file_holds() {
    let hostile =
        ["a b", "1x", "class", "x\ny", "é", "k.def", "k.a-b", "__init__", "_", "k.", "print(1)#", "__debug__"];
    let mut records = String::new();
    for (i, name) in hostile.iter().enumerate() {
        records.push_str(&class_record(&format!("k{i}.{name}"), name, name, name));
        records.push_str(&class_record(name, name, name, name));
    }
    let classes = abi_core::schema::parse_class_records(records.as_bytes()).unwrap();
    let listing = Listing {
        path: PathBuf::from("lib\"x\n.so"),
        source: abi_cli::read::Source::Data,
        exports: Vec::new(),
        classes,
        errors: Vec::new(),
        iree: Default::default(),
    };
    for (name, source) in abi_cli::stubs::files(&listing, "pkg").unwrap() {
        assert_python_parses(name, &source);
    }
}

/// Error types whose names, kinds, bases and docs hold anything (keywords, builtins, quotes,
/// NULs, line breaks): each class is valid Python, or the kind gets none.
#[test]
fn the_package_parses_for_error_types_of_any_names() {
    use abi_core::schema::{ErrorKind, ErrorType};
    let hostile = [
        "a b",
        "1x",
        "class",
        "x\ny",
        "é",
        "__init__",
        "_",
        "print(1)#",
        "__debug__",
        "None",
        "E",
        "args",
        "\"\"\"",
        "ValueError",
        "Path",
    ];
    let mut errors = Vec::new();
    for (i, name) in hostile.iter().enumerate() {
        let kinds = hostile
            .iter()
            .map(|v| ErrorKind {
                variant: v.to_string(),
                kind: format!("k\"{i}.{v}\n"),
                base: (*v).into(),
                doc: format!("{v}\"\"\"\\\0"),
            })
            .collect();
        errors.push(ErrorType { name: name.to_string(), doc: "a \"\"\" doc\\\t".into(), kinds });
        let kinds = vec![ErrorKind {
            variant: name.to_string(),
            kind: "x".into(),
            base: "KeyError".into(),
            doc: String::new(),
        }];
        errors.push(ErrorType { name: "E".into(), doc: String::new(), kinds });
    }
    let listing = Listing {
        path: PathBuf::from("libx.so"),
        source: abi_cli::read::Source::Data,
        exports: Vec::new(),
        classes: Vec::new(),
        errors,
        iree: Default::default(),
    };
    for (name, source) in abi_cli::stubs::files(&listing, "pkg").unwrap() {
        assert_python_parses(name, &source);
    }
}

/// Found by the `stubs` fuzz target: an export returning an empty tuple (`{"type":"Tuple"}`
/// with no `args`) made `return (,)`.
#[test]
fn the_package_parses_for_empty_tuples() {
    let schema = |t: &str| {
        serde_json::json!({"type": "ffi.Function", "named_args": {
            "return": [serde_json::from_str::<serde_json::Value>(t).unwrap()],
            "params": [serde_json::from_str::<serde_json::Value>(t).unwrap()],
        }})
        .to_string()
    };
    let exports =
        [r#"{"type":"Tuple"}"#, r#"{"type":"Tuple","args":[]}"#, r#"{"type":"ffi.Array","args":[{"type":"Tuple"}]}"#]
            .iter()
            .enumerate()
            .map(|(i, t)| {
                export(
                    i,
                    serde_json::json!({
                        "type_schema": schema(t), "arg_names": ["x"], "abi.version": abi_shared::METADATA_VERSION,
                    }),
                )
            })
            .collect();
    let listing = listing_of(exports);
    for (name, source) in abi_cli::stubs::files(&listing, "pkg").unwrap() {
        assert_python_parses(name, &source);
    }
}

/// Enums whose names, names' texts and variants hold anything: each class and alias is
/// valid Python (the texts escaped), or the enum gets none.
#[test]
fn the_package_parses_for_enums_of_any_names() {
    let hostile = ["a\"\"\"b", "x\ny", "\\", "\u{0}", "é", "''"];
    let enums = [
        ("Mode", &hostile[..], &["A", "None", "True", "B_", "C", "D"][..]),
        ("Mode", &hostile[..2], &["print(1)#", "X"][..]),
        ("class", &hostile[..1], &["A"][..]),
        ("Z\"", &hostile[..1], &["A"][..]),
        ("Q", &hostile[..2], &["_A_", "B"][..]),
    ];
    let exports = enums
        .iter()
        .enumerate()
        .map(|(i, (name, names, variants))| {
            let t = serde_json::json!({"type": "ffi.String", "abi.enum": name, "abi.names": names, "abi.variants": variants});
            let schema = serde_json::json!({"type": "ffi.Function", "named_args": {
                "return": [{"type": "ffi.Array", "args": [t]}], "params": [{"type": "Optional", "args": [t]}],
            }});
            export(
                i,
                serde_json::json!({
                    "type_schema": schema.to_string(), "arg_names": ["x"], "abi.defaults": {"x": names[0]},
                    "abi.version": abi_shared::METADATA_VERSION,
                }),
            )
        })
        .collect();
    let listing = listing_of(exports);
    let files = abi_cli::stubs::files(&listing, "pkg").unwrap();
    for (name, source) in &files {
        assert_python_parses(name, source);
    }
    let (_, init) = files.iter().find(|(name, _)| *name == "__init__.py").unwrap();
    assert!(init.contains("class Mode(str, _enum.Enum):") && init.contains("    None_ = \"x\\ny\"\n"), "{init}");
    for no_class in ["class Mode_2(", "class class(", "class Q("] {
        assert!(!init.contains(no_class), "{no_class}: {init}");
    }
}

/// Enums with data whose names, variants and field names hold anything: each class is
/// valid Python (the names escaped), or the enum gets none.
#[test]
fn the_package_parses_for_enums_with_data_of_any_names() {
    let hostile = ["a\"\"\"b", "x\ny", "\\", "\u{0}", "é", "''"];
    // (the enum's name, the names, the variants' identifiers, the field names)
    type Case<'a> = (&'a str, &'a [&'a str], &'a [&'a str], &'a [&'a str]);
    let cases: [Case<'_>; 6] = [
        ("Shape", &hostile[..3], &["A", "None", "B"], &["r", "w"]),
        ("K", &hostile[..2], &["A", "B"], &["class", "0"]),
        ("Shape", &hostile[..2], &["print(1)#", "X"], &["x", "y"]),
        ("def", &hostile[..1], &["A"], &["r"]),
        ("S", &hostile[..2], &["_A", "B"], &["_x", "count"]),
        ("T", &hostile[..2], &["T", "U"], &["U", "v"]),
    ];
    let exports = cases
        .iter()
        .enumerate()
        .map(|(i, (name, names, variants, fields))| {
            // Each variant holds every field (a float), or none for the last one.
            let tuple = |n: usize| {
                let items: Vec<serde_json::Value> = std::iter::once(serde_json::json!({"type": "ffi.String"}))
                    .chain((0..n).map(|_| serde_json::json!({"type": "float"})))
                    .collect();
                serde_json::json!({"type": "Tuple", "args": items})
            };
            let last = names.len() - 1;
            let t = serde_json::json!({
                "type": "Variant",
                "args": (0..names.len()).map(|k| tuple(if k == last { 0 } else { fields.len() })).collect::<Vec<_>>(),
                "abi.enum": name, "abi.names": names, "abi.variants": &variants[..names.len()],
                "abi.variant_fields": (0..names.len()).map(|k| if k == last { &fields[..0] } else { *fields }).collect::<Vec<_>>(),
            });
            let schema = serde_json::json!({"type": "ffi.Function", "named_args": {
                "return": [{"type": "ffi.Array", "args": [t]}], "params": [{"type": "Optional", "args": [t]}],
            }});
            export(
                i,
                serde_json::json!({
                    "type_schema": schema.to_string(), "arg_names": ["x"], "abi.version": abi_shared::METADATA_VERSION,
                }),
            )
        })
        .collect();
    let files = abi_cli::stubs::files(&listing_of(exports), "pkg").unwrap();
    for (name, source) in &files {
        assert_python_parses(name, source);
    }
    let (_, init) = files.iter().find(|(name, _)| *name == "__init__.py").unwrap();
    assert!(init.contains("class Shape(tuple):") && init.contains(r#"_variant(Shape, "None_", "x\ny""#), "{init}");
    for no_class in ["class Shape_2(", "class K(", "class def(", "class S(", "class T("] {
        assert!(!init.contains(no_class), "{no_class}: {init}");
    }
}

/// Export `f{i}` with the metadata `metadata`.
fn export(i: usize, metadata: serde_json::Value) -> abi_cli::read::Export {
    abi_cli::read::Export {
        name: format!("f{i}"),
        metadata: Some(abi_core::schema::Metadata::parse(&metadata.to_string()).unwrap()),
        doc: None,
    }
}

/// A library's listing read from its data, holding `exports` only.
fn listing_of(exports: Vec<abi_cli::read::Export>) -> Listing {
    Listing {
        path: PathBuf::from("libx.so"),
        source: abi_cli::read::Source::Data,
        exports,
        classes: Vec::new(),
        errors: Vec::new(),
        iree: Default::default(),
    }
}

/// A device or a pipe has no size to bound a read by: `/dev/zero` never ends.
#[test]
fn what_is_not_a_regular_file_is_refused_before_it_is_read() {
    for file in ["/dev/zero", "/dev/null", "/"] {
        let out = abi(&["inspect", "--no-load", file]);
        let (stdout, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(2), "{file}: {stdout}{stderr}");
        assert_eq!(stderr, format!("abi: error: cannot read {file}: not a regular file (a library is one)\n"));
    }
}

/// A file may declare tens of thousands of classes (up to the record limit): a chain of
/// 20,000, each the parent of the next and listed children first, is written parents
/// first, and keys a file spells alike (`a-b`, `a b`, `a_b`) get names apart. Finding each
/// class's depth and its name by scanning every class made this take many minutes.
#[test]
fn many_classes_are_written_parents_first_with_names_apart() {
    let v = abi_shared::METADATA_VERSION;
    let mut records = String::new();
    let class = |key: &str, parent: &str| {
        serde_json::json!({"record": "class", "type_key": key, "parent": parent, "doc": "", "fields": [], "abi.version": v})
            .to_string()
    };
    for i in (1..20_000).rev() {
        records.push_str(&class(&format!("k.C{i}"), &format!("k.C{}", i - 1)));
        records.push('\0');
    }
    records.push_str(&class("k.C0", "ffi.Object"));
    records.push('\0');
    for key in ["x.a-b", "x.a b", "x.a_b", "y.a_b"] {
        records.push_str(&class(key, "ffi.Object"));
        records.push('\0');
    }
    let listing = Listing {
        path: PathBuf::from("libx.so"),
        source: abi_cli::read::Source::Data,
        // An export with the name `y.a_b` would get: a class may not shadow it.
        exports: vec![abi_cli::read::Export { name: "y_a_b".into(), metadata: None, doc: None }],
        classes: abi_core::schema::parse_class_records(records.as_bytes()).unwrap(),
        errors: Vec::new(),
        iree: Default::default(),
    };
    let files = abi_cli::stubs::files(&listing, "pkg").unwrap();
    let (_, init) = files.iter().find(|(name, _)| *name == "__init__.py").unwrap();
    let at = |needle: &str| init.find(needle).unwrap_or_else(|| panic!("no {needle:?}"));
    assert!(at("class C0(") < at("class C1(C0)") && at("class C1(C0)") < at("class C19999(C19998)"));
    for name in ["class x_a_b(", "class x_a_b_2(", "class x_a_b_3(", "class y_a_b_2("] {
        at(name);
    }
    assert_python_parses("__init__.py", init);
}

/// What a hostile file puts in a name: terminal escape sequences (clear the screen, set the
/// window title, ring the bell), a line break followed by `FORGED` (no line `abi` prints
/// starts with it, unless a line break got through), a forged error line, a Unicode line
/// separator.
fn hostile(name: &str) -> String {
    format!("{name}\u{1b}[2J\u{1b}]0;owned\u{7}\nFORGED\rabi: error: forged line\u{2028}\u{9b}31m\u{7f}")
}

/// `good` (an ELF library) whose section `name` holds `content` instead: the bytes go at
/// the end of the file and the section's header points at them (readers find a section by
/// its header), so a record section can grow.
fn with_section(good: &[u8], name: &str, content: &[u8]) -> Vec<u8> {
    let file = object::File::parse(good).expect("an ELF file");
    let index = file.section_by_name(name).unwrap_or_else(|| panic!("no section {name}")).index().0;
    let le = |at: usize, n: usize| good[at..at + n].iter().rev().fold(0usize, |v, &b| v << 8 | b as usize);
    let (shoff, shentsize) = (le(0x28, 8), le(0x3a, 2)); // e_shoff, e_shentsize
    let header = shoff + index * shentsize;
    let mut bytes = good.to_vec();
    bytes.resize(good.len().next_multiple_of(8), 0); // where a symbol table may start
    let offset = bytes.len() as u64;
    bytes[header + 0x18..header + 0x20].copy_from_slice(&offset.to_le_bytes()); // sh_offset
    bytes[header + 0x20..header + 0x28].copy_from_slice(&(content.len() as u64).to_le_bytes()); // sh_size
    bytes.extend_from_slice(content);
    bytes
}

/// The bytes of `good`'s section `name`.
fn section<'a>(good: &'a [u8], name: &str) -> &'a [u8] {
    let file = object::File::parse(good).expect("an ELF file");
    let (start, len) = file.section_by_name(name).and_then(|s| s.file_range()).expect("the section");
    &good[start as usize..(start + len) as usize]
}

/// Export records as the export records section holds them (docs/ABI.md section 4).
fn export_records_section(records: &[abi_core::schema::ExportRecord]) -> Vec<u8> {
    let mut out = Vec::new();
    for r in records {
        let body = format!("{}\0{}\0{}\0", r.metadata, r.signature, r.doc);
        out.extend(format!("{}\0{}\0", r.name, r.global.as_deref().unwrap_or("")).bytes());
        out.extend((body.len() as u32).to_le_bytes());
        out.extend(body.bytes());
    }
    out
}

/// Real libraries whose names carry [`hostile`] text, each still a library `abi` reads:
/// mathlib with hostile parameter names, global names, signature text, a parameter type
/// and (in the dynamic symbols) an export name; iree-kit with a hostile module name and
/// entry point and functions named by hostile text and by 65,536 characters, with its
/// module and without (which earns a warning quoting every function name); the objects
/// library with a class whose key, parent, field, method and parameter are hostile.
fn hostile_names(dir: &Path) -> Vec<PathBuf> {
    use serde_json::{json, Value};
    let mut files = Vec::new();
    let mut save = |name: &str, bytes: Vec<u8>| {
        let path = dir.join(format!("{name}.so"));
        std::fs::write(&path, bytes).unwrap();
        files.push(path);
    };

    let math = std::fs::read(fixture_library("abi-mathlib", "mathlib")).unwrap();
    let mut records =
        abi_core::schema::parse_export_records(section(&math, abi_shared::EXPORT_RECORDS_SECTION)).unwrap();
    for r in &mut records {
        let mut m: Value = serde_json::from_str(&r.metadata).unwrap();
        match r.name.as_str() {
            "add" => {
                m["arg_names"] = json!([hostile("a"), hostile("b")]);
                m[abi_shared::GLOBAL_KEY] = json!(hostile("g"));
                m["signature"] = json!(hostile("I"));
                r.global = Some(hostile("g"));
                r.signature = hostile("add");
            }
            "clamp" => {
                let mut schema: Value = serde_json::from_str(m["type_schema"].as_str().unwrap()).unwrap();
                schema["named_args"]["params"][0] = json!({ "type": hostile("T") });
                m["type_schema"] = json!(schema.to_string());
                m.as_object_mut().unwrap().remove("iree.abi");
            }
            _ => {}
        }
        r.metadata = m.to_string();
    }
    let mut math = with_section(&math, abi_shared::EXPORT_RECORDS_SECTION, &export_records_section(&records));
    // An export named by hostile text in the dynamic symbols, the same length as the name.
    let (start, len) = {
        let file = object::File::parse(&*math).unwrap();
        let (start, len) = file.section_by_name(".dynstr").and_then(|s| s.file_range()).unwrap();
        (start as usize, len as usize)
    };
    let old = b"\0__tvm_ffi_sum_of_squares\0";
    let at = start + math[start..start + len].windows(old.len()).position(|w| w == old).unwrap() + 11;
    let new = format!("{:x<14}", "s\u{1b}[1m\nFORGED");
    math[at..at + 14].copy_from_slice(new.as_bytes());
    save("mathlib-hostile-names", math);

    let kit = std::fs::read(fixture_library("iree-kit", "iree_kit")).unwrap();
    let v = abi_shared::METADATA_VERSION;
    let function = |name: &str, cconv: &str| {
        json!({ "record": "iree.function", "name": name, "cconv": cconv, "abi.version": v }).to_string()
    };
    let functions = [function(&"f".repeat(65_536), "0ii_i"), function(&hostile("g"), &hostile("0i_i"))];
    let module =
        json!({ "record": "iree.module", "name": hostile("kit"), "entry": hostile("create"), "abi.version": v });
    for (name, records) in [
        ("iree-hostile-names", [&functions[..], &[module.to_string()]].concat()),
        ("iree-hostile-names-no-module", functions.to_vec()),
    ] {
        save(name, with_section(&kit, abi_shared::IREE_RECORDS_SECTION, records.join("\0").as_bytes()));
    }

    let objects = std::fs::read(fixture_library("abi-objects-lib", "abi_objects_lib")).unwrap();
    let mut classes = section(&objects, abi_shared::CLASS_RECORDS_SECTION).to_vec();
    classes.push(0);
    let record = class_record(&hostile("k.C"), &hostile("f"), &hostile("m"), &hostile("a"));
    let parent = format!("\"parent\":{}", json!(hostile("ffi.Object")));
    classes.extend(record.replacen("\"parent\":\"ffi.Object\"", &parent, 1).bytes());
    save("objects-hostile-names", with_section(&objects, abi_shared::CLASS_RECORDS_SECTION, &classes));
    files
}

#[test]
fn names_from_the_file_print_escaped_on_one_line_each() {
    let dir = temp_dir("abi-hostile-names-");
    let good = fixture_library("abi-mathlib", "mathlib");
    let out_dir = path(dir.path());
    let rs = format!("{out_dir}/bindings.rs");
    let longest_warning = "abi: warning: ".len() + abi_cli::MESSAGE_CHARS + "...".len();
    for file in hostile_names(dir.path()) {
        let f = path(&file);
        for args in [
            vec!["inspect", "--no-load", f],
            vec!["inspect", "--no-load", "--json", f],
            vec!["diff", "--no-load", path(&good), f],
            vec!["diff", "--no-load", "--json", path(&good), f],
            vec!["stubs", "--no-load", f, "--package", "p", "-o", out_dir],
            vec!["wheel", "--no-load", f, "--package", "p", "--version", "1.0", "-o", out_dir],
            vec!["bindgen", "--no-load", f, "-o", &rs],
        ] {
            let out = abi(&args);
            let (stdout, stderr) = text(&out);
            let code = out.status.code();
            let codes: &[i32] = match args[0] {
                "inspect" => &[0], // the file reads: its names are what is printed
                "diff" => &[0, 1, 2],
                _ => &[0, 2],
            };
            assert!(code.is_some_and(|c| codes.contains(&c)), "{f}: {args:?}: {code:?}: {stderr}");
            // JSON escapes control characters itself, and may keep line separators.
            let json = args.contains(&"--json");
            for (stream, printed) in [("stdout", &stdout), ("stderr", &stderr)] {
                let bad = printed.chars().find(|&c| {
                    (c.is_control() && !matches!(c, '\n' | '\t')) || (!json && matches!(c, '\u{2028}' | '\u{2029}'))
                });
                assert_eq!(bad, None, "{f}: {args:?}: {stream}: {printed}");
                for line in printed.lines() {
                    assert!(!line.starts_with("FORGED"), "{f}: {args:?}: a line break got through: {printed}");
                }
            }
            for line in stderr.lines() {
                assert!(line.starts_with("abi: warning: ") || line.starts_with("abi: error: "), "{args:?}: {stderr}");
                assert!(line.chars().count() <= longest_warning, "{f}: {args:?}: {} chars", line.chars().count());
            }
            // Bindings put names from the file in comments: a line break there would make the
            // rest of the line Rust code.
            if args[0] == "bindgen" && code == Some(0) {
                let bindings = std::fs::read_to_string(&rs).unwrap();
                assert_eq!(bindings.chars().find(|&c| c.is_control() && c != '\n'), None, "{f}: {bindings}");
                assert!(!bindings.lines().any(|l| l.trim_start().starts_with("FORGED")), "{f}: {bindings}");
            }
            if args[0] == "inspect" && !json {
                let shown = r"\u{1b}[2J\u{1b}]0;owned\u{7}\nFORGED\rabi: error: forged line\u{2028}\u{9b}31m\u{7f}";
                assert!(stdout.contains(shown), "{f}: the names print escaped: {stdout}");
            }
        }
    }
    dir.close().unwrap();
}

/// Output that cannot be written (a full disk; `| head`, which closes the pipe) is one
/// error line and exit 2, not a panic (exit 101).
#[test]
fn output_that_cannot_be_written_is_an_error_not_a_panic() {
    let good = fixture_library("abi-mathlib", "mathlib");
    for args in [vec!["inspect", "--no-load", path(&good)], vec!["inspect", "--no-load", "--json", path(&good)]] {
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_abi")).args(&args).stdout(full).output().unwrap();
        let (_, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.starts_with("abi: error: cannot write the output: "), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
    }
}

/// A run that fails says one line, its error, even when the file also earns a warning
/// (IREE functions without a module), which `wheel` printed before failing.
#[test]
fn a_failing_run_says_one_line_even_with_a_warning() {
    let kit = std::fs::read(fixture_library("iree-kit", "iree_kit")).unwrap();
    // Only the function records: no module entry, so the warning.
    let records = section(&kit, abi_shared::IREE_RECORDS_SECTION);
    let functions: Vec<&[u8]> =
        records.split(|&b| b == 0).filter(|r| !r.is_empty() && !r.windows(11).any(|w| w == b"iree.module")).collect();
    let no_module = with_section(&kit, abi_shared::IREE_RECORDS_SECTION, &functions.join(&0u8));
    // The dynamic section, which wheel reads for the platform, past the end of the file.
    let file = object::File::parse(&*no_module).unwrap();
    let dynamic = file.section_by_name(".dynamic").unwrap().index().0;
    let shoff = u64::from_le_bytes(no_module[0x28..0x30].try_into().unwrap()) as usize;
    let mut bad = no_module.clone();
    let at = shoff + 64 * dynamic + 0x18; // sh_offset
    bad[at..at + 8].copy_from_slice(&(1u64 << 40).to_le_bytes());
    let dir = temp_dir("abi-warning-then-error-");
    let (warned, failing) = (dir.path().join("warned.so"), dir.path().join("failing.so"));
    std::fs::write(&warned, &no_module).unwrap();
    std::fs::write(&failing, &bad).unwrap();
    let inspect = abi(&["inspect", "--no-load", path(&warned)]);
    assert!(text(&inspect).1.starts_with("abi: warning: "), "the file earns the warning: {}", text(&inspect).1);
    let out =
        abi(&["wheel", "--no-load", path(&failing), "--package", "p", "--version", "1.0", "-o", path(dir.path())]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("abi: error: "), "{stderr}");
    dir.close().unwrap();
}
