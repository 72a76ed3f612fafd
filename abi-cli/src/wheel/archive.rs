//! The wheel's zip archive and its RECORD, written so that the same entries give the same
//! bytes.

use std::io::Write;
use std::path::Path;

use base64::Engine;
use sha2::{Digest, Sha256};
use zip::write::SimpleFileOptions;

/// One file of the wheel.
#[derive(Debug)]
pub struct Entry {
    /// Its path inside the archive.
    pub path: String,
    /// Its bytes.
    pub bytes: Vec<u8>,
    /// Its Unix mode.
    pub mode: u32,
}

impl Entry {
    /// A regular file (0644).
    pub fn file(path: String, bytes: Vec<u8>) -> Entry {
        Entry { path, bytes, mode: 0o644 }
    }

    /// The shared library (0755).
    pub fn executable(path: String, bytes: Vec<u8>) -> Entry {
        Entry { path, bytes, mode: 0o755 }
    }
}

/// RECORD's text for `entries` plus its own line (`path,,`): `path,sha256=<urlsafe base64,
/// no padding>,size` per file.
pub fn record(entries: &[Entry], record_path: &str) -> String {
    let mut text = String::new();
    for entry in entries {
        let digest = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(&entry.bytes));
        text.push_str(&format!("{},sha256={digest},{}\n", entry.path, entry.bytes.len()));
    }
    text.push_str(&format!("{record_path},,\n"));
    text
}

/// Writes the archive through a temporary file beside `path`, renamed into place, so a
/// failed write leaves no partial wheel.
pub fn write(path: &Path, entries: &[Entry]) -> Result<(), String> {
    let partial = path.with_extension("whl.partial");
    let result = write_zip(&partial, entries)
        .and_then(|()| std::fs::rename(&partial, path).map_err(|e| format!("cannot write {}: {e}", path.display())));
    if result.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    result
}

fn write_zip(path: &Path, entries: &[Entry]) -> Result<(), String> {
    let fail = |e: &dyn std::fmt::Display| format!("cannot write {}: {e}", path.display());
    let file = std::fs::File::create(path).map_err(|e| fail(&e))?;
    let mut zip = zip::ZipWriter::new(std::io::BufWriter::new(file));
    for entry in entries {
        let options = SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated)
            // The zip format's earliest time: no build time leaks into the bytes.
            .last_modified_time(zip::DateTime::default())
            .unix_permissions(entry.mode);
        zip.start_file(entry.path.as_str(), options).map_err(|e| fail(&e))?;
        zip.write_all(&entry.bytes).map_err(|e| fail(&e))?;
    }
    let mut writer = zip.finish().map_err(|e| fail(&e))?;
    writer.flush().map_err(|e| fail(&e))
}
