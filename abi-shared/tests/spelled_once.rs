//! Every spelling of a type (`type_schema` keys and their C++ aliases, Python names, stub
//! annotations, IREE record names and tags) is written in one place,
//! `abi-shared/src/vocab.rs`: this scans the string literals of every other source file of
//! the workspace's crates (tests excluded: test modules at a file's end and test files) and
//! fails on one that spells a type. A literal spells a type when it is one of the
//! spellings, holds one as a JSON key (`\"ffi.String\"`), or opens one with type arguments
//! (`list[`).

use std::path::{Path, PathBuf};

use abi_shared::vocab::{iree, SPELLINGS};

/// Literals that match a spelling but mean something else, with the reason.
const NOT_TYPE_SPELLINGS: &[(&str, &str, &str)] = &[
    ("abi-shared/src/lib.rs", "None", "the Python keyword list"),
    ("abi-core/src/schema/metadata.rs", "None", "the Python literal of a `null` default"),
    ("abi-core/src/reflect/render.rs", "None", "the Python literal of a `null` default"),
    ("abi-macros/src/attr.rs", "None", "the Rust literal `None` a default may be"),
    ("abi-core/src/ffi/dtype.rs", "int", "DLPack's dtype code names (`int32`)"),
    ("abi-core/src/ffi/dtype.rs", "float", "DLPack's dtype code names (`float32`)"),
    ("abi-core/src/ffi/dtype.rs", "bool", "DLPack's dtype code names (`bool`)"),
    ("abi-core/src/ffi/dtype.rs", "unknown", "DLPack's dtype code names"),
    ("abi-core/src/ffi/type_index.rs", "object", "the display name of a runtime-registered object type"),
    ("abi-core/src/runtime/process/map.rs", "ffi.Map", "the global function that builds a map"),
    ("abi-core/src/runtime/process/map.rs", "ffi.Dict", "the global function that builds a dict"),
    ("abi-core/src/runtime/process/list.rs", "ffi.List", "the global function that builds a list"),
    ("abi-cli/src/bindgen/rust_type.rs", "bool", "the Rust type `bool` that generated bindings name"),
    ("abi-cli/src/stubs/op_stubs.rs", "bool", "DLPack's dtype name `bool`, matched to numpy's"),
    ("abi-macros/src/attr.rs", "optional", "the `#[import(optional)]` option"),
    ("abi-macros/src/model.rs", "bool", "the Rust type `bool`, a scalar an op takes"),
    ("abi-core/src/value/any.rs", "None", "the Python repr of the None value"),
    ("abi-core/src/value/error.rs", "Error", "the Rust struct name in its Debug output"),
    ("abi-core/src/tensor/typed.rs", "ndarray", "the cargo feature `ndarray` (the crate)"),
    ("abi-core/src/tensor/strided.rs", "ndarray", "the cargo feature `ndarray` (the crate)"),
    ("abi-core/src/tensor/cast.rs", "ndarray", "the cargo feature `ndarray` (the crate)"),
    ("abi-core/src/tensor/mod.rs", "ndarray", "the cargo feature `ndarray` (the crate)"),
];

/// The string literals of Rust source (their text between the quotes, escapes as
/// written), outside comments and char literals; the test module at a file's end is cut.
fn string_literals(source: &str) -> Vec<String> {
    let test_module = source
        .match_indices("#[cfg(test)]")
        .find(|(at, m)| source[at + m.len()..].trim_start().starts_with("mod tests"));
    let code = match test_module {
        Some((end, _)) => &source[..end],
        None => source,
    };
    let b = code.as_bytes();
    let (mut out, mut i) = (Vec::new(), 0);
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => i = code[i..].find('\n').map_or(b.len(), |n| i + n),
            b'/' if b.get(i + 1) == Some(&b'*') => i = code[i..].find("*/").map_or(b.len(), |n| i + n + 2),
            // A char literal (`'"'`, `'\''`), not a lifetime.
            b'\'' if b.get(i + 2) == Some(&b'\'') => i += 3,
            b'\'' if b.get(i + 1) == Some(&b'\\') => i = code[i + 2..].find('\'').map_or(b.len(), |n| i + n + 3),
            b'r' if (b.get(i + 1) == Some(&b'"') || b.get(i + 1) == Some(&b'#'))
                && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')) =>
            {
                let hashes = code[i + 1..].bytes().take_while(|&c| c == b'#').count();
                if b.get(i + 1 + hashes) != Some(&b'"') {
                    i += 1;
                    continue;
                }
                let start = i + 2 + hashes;
                let close = format!("\"{}", "#".repeat(hashes));
                let end = code[start..].find(&close).map_or(b.len(), |n| start + n);
                out.push(code[start..end].to_owned());
                i = end + close.len();
            }
            b'"' => {
                let start = i + 1;
                let mut j = start;
                while j < b.len() && b[j] != b'"' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                out.push(code[start..j.min(b.len())].to_owned());
                i = j + 1;
            }
            _ => i += 1,
        }
    }
    out
}

/// The spellings a literal writes.
fn spellings_in(literal: &str) -> Vec<&'static str> {
    let mut found = Vec::new();
    let words = SPELLINGS
        .iter()
        .flat_map(|s| [s.key, s.python, s.stub].into_iter().chain(s.iree).chain(s.aliases.iter().copied()));
    for word in words.chain(iree::ALL) {
        let opens = literal
            .match_indices(&format!("{word}["))
            .any(|(at, _)| !literal[..at].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.'));
        if literal == word || literal.contains(&format!("\\\"{word}\\\"")) || opens {
            found.push(word);
        }
    }
    found.sort_unstable();
    found.dedup();
    found
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_source_outside_the_vocabulary_spells_a_type() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut files = Vec::new();
    for krate in ["abi-shared", "abi-core", "abi-macros", "abi-cli"] {
        rust_files(&root.join(krate).join("src"), &mut files);
    }
    assert!(files.len() > 40, "the crates' sources were found: {}", files.len());
    let mut problems = Vec::new();
    for path in &files {
        let rel = path.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
        // The vocabulary itself, and test modules kept in their own files (`tests.rs`,
        // `snapshot_tests.rs`), which check exact texts.
        if rel == "abi-shared/src/vocab.rs" || rel.ends_with("/tests.rs") || rel.ends_with("_tests.rs") {
            continue;
        }
        for literal in string_literals(&std::fs::read_to_string(path).unwrap()) {
            for word in spellings_in(&literal) {
                if !NOT_TYPE_SPELLINGS.iter().any(|&(f, w, _)| f == rel && w == word && literal == word) {
                    problems.push(format!("{rel}: \"{literal}\" spells `{word}`"));
                }
            }
        }
    }
    assert!(problems.is_empty(), "spell types through abi_shared::vocab:\n{}", problems.join("\n"));
}

#[test]
fn the_scan_finds_what_it_looks_for() {
    let source = r##"
        // "ffi.String" in a comment is fine
        const A: &str = "ffi.String";
        let b = format!("list[{}]", x);
        w.str("{\"type\":\"Tuple\",\"args\":[");
        let c = r#"Optional[int]"#;
        let q = '"'; let lt: &'a str = "not a type"; let e = '\'';
        let ok = "blist[x] and int32 and ffi.Strings";
        #[cfg(test)]
        mod tests { const T: &str = "int"; }
    "##;
    let literals = string_literals(source);
    let found: Vec<Vec<&str>> = literals.iter().map(|l| spellings_in(l)).collect();
    assert_eq!(
        found,
        [vec!["ffi.String"], vec!["list"], vec!["Tuple"], vec!["Optional"], vec![], vec![]],
        "{literals:?}"
    );
}
