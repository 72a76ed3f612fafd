//! The stub and package writer: a listing made of the export, class and IREE records in
//! the input (three sections: two 4-byte little-endian lengths, then the export
//! records, the class records and the IREE records) writes
//! `__init__.py` and `__init__.pyi`, which must compile as Python (`compile`, in one
//! python3 process kept for the run).
#![no_main]

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Mutex, OnceLock};

use abi_cli::read::{Export, Listing, Source};
use abi_core::schema::{parse_class_records, parse_error_records, parse_export_records, parse_iree_records, Metadata};
use libfuzzer_sys::fuzz_target;

/// Reads a 4-byte little-endian length and that many bytes of source, answers `ok` or the
/// SyntaxError on one line (`compile`: parsing and the checks after it).
const CHECKER: &str = r#"
import sys
inp, out = sys.stdin.buffer, sys.stdout
while True:
    head = inp.read(4)
    if len(head) < 4:
        break
    src = inp.read(int.from_bytes(head, "little"))
    try:
        compile(src, "stub", "exec")
        out.write("ok\n")
    except SyntaxError as e:
        out.write(repr(e).replace("\n", " ") + "\n")
    out.flush()
"#;

struct Python {
    _child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

fn python() -> &'static Mutex<Python> {
    static PYTHON: OnceLock<Mutex<Python>> = OnceLock::new();
    PYTHON.get_or_init(|| {
        let mut child = Command::new("python3")
            .args(["-c", CHECKER])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 runs");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Mutex::new(Python { _child: child, stdin, stdout })
    })
}

fn assert_parses(name: &str, source: &str) {
    let mut py = python().lock().unwrap();
    py.stdin.write_all(&u32::try_from(source.len()).unwrap().to_le_bytes()).unwrap();
    py.stdin.write_all(source.as_bytes()).unwrap();
    py.stdin.flush().unwrap();
    let mut answer = String::new();
    py.stdout.read_line(&mut answer).unwrap();
    assert_eq!(answer, "ok\n", "{name} does not parse:\n{source}");
}

fn sections(data: &[u8]) -> [&[u8]; 3] {
    let (head, rest) = data.split_at(data.len().min(8));
    let length = |at: usize| head.get(at..at + 4).map_or(0, |b| u32::from_le_bytes(b.try_into().unwrap()) as usize);
    let (exports, rest) = rest.split_at(length(0).min(rest.len()));
    let (classes, iree) = rest.split_at(length(4).min(rest.len()));
    [exports, classes, iree]
}

fuzz_target!(|data: &[u8]| {
    let [exports, classes, iree] = sections(data);
    let Ok(records) = parse_export_records(exports) else { return };
    let Ok(errors) = parse_error_records(classes) else { return };
    let Ok(classes) = parse_class_records(classes) else { return };
    let Ok(iree) = parse_iree_records(iree) else { return };
    let exports = records
        .into_iter()
        .map(|r| Export {
            name: r.name,
            metadata: Metadata::parse(&r.metadata).ok(),
            doc: Some(r.doc).filter(|d| !d.is_empty()),
        })
        .collect();
    let listing = Listing { path: PathBuf::from("libfuzzed.so"), source: Source::Data, exports, classes, errors, iree };
    for (name, source) in abi_cli::stubs::files(&listing, "pkg").expect("a valid package name") {
        if name.ends_with(".py") || name.ends_with(".pyi") {
            assert_parses(name, &source);
        }
    }
});
