//! `abi wheel`: a `py3-none-<platform>` wheel (PEP 427) holding the package `abi stubs`
//! writes and the library itself, under its own file name, so one wheel serves every
//! Python version (the library is not a CPython extension) and
//! `tvm_ffi.libinfo.load_lib_module` finds the library through RECORD. With `--editable`
//! (the wheel of `pip install -e`, PEP 660) the library stays where cargo built it: the
//! wheel holds the package and a file naming the library's path. The same input gives
//! the same bytes: entries sorted (the `.dist-info` folder last), every timestamp
//! 1980-01-01, fixed permissions.

mod archive;
mod macos;
mod manylinux;
mod names;
pub mod platform;
mod tool;
mod windows;

use std::path::{Path, PathBuf};

use crate::read::Listing;
use archive::Entry;
pub use platform::Requested;
pub use tool::{write_tool, TOOL_DIST};

/// What `abi wheel` was asked for.
#[derive(Debug)]
pub struct Request<'a> {
    /// The Python package (import name).
    pub package: &'a str,
    /// The distribution version.
    pub version: &'a str,
    /// The distribution name; the package name when `None`.
    pub dist_name: Option<&'a str>,
    /// Requirements beyond apache-tvm-ffi.
    pub requires: &'a [String],
    /// The platform tag.
    pub platform: &'a Requested,
    /// For an editable install (PEP 660), the crate folder: the wheel then holds no library
    /// but [`crate::stubs::EDITABLE_FILE`], naming the library where cargo builds it.
    pub editable: Option<&'a Path>,
}

/// A wheel written: its path, and what its platform tag cannot say about where it works.
#[derive(Debug)]
pub struct Written {
    /// The wheel file.
    pub path: PathBuf,
    /// Warnings for the user (the wheel was written all the same).
    pub warnings: Vec<String>,
}

/// Writes the wheel into `out`.
pub fn write(listing: &Listing, request: &Request<'_>, out: &Path) -> Result<Written, String> {
    crate::stubs::check_package_name(request.package)?;
    let dist_name = request.dist_name.unwrap_or(request.package);
    names::check_dist_name(dist_name)?;
    names::check_version(request.version)?;
    request.requires.iter().try_for_each(|r| names::check_requirement(r))?;
    let library = std::fs::read(&listing.path).map_err(|e| format!("cannot read {}: {e}", listing.path.display()))?;
    let needs = platform::needs(&library).map_err(|e| format!("{} {e}", listing.path.display()))?;
    let tag = format!("py3-none-{}", platform::tag(&needs, request.platform)?);
    let warnings = platform::warnings(&needs);
    let lib_name = listing.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    if lib_name.is_empty() || lib_name.contains([',', '"', '\n', '\r']) {
        return Err(format!("`{lib_name}` cannot be a file name inside a wheel"));
    }

    let package = request.package;
    let mut entries: Vec<Entry> = crate::stubs::files(listing, package)?
        .into_iter()
        .map(|(name, text)| Entry::file(format!("{package}/{name}"), text.into_bytes()))
        .collect();
    match request.editable {
        None => entries.push(Entry::executable(format!("{package}/{lib_name}"), library)),
        Some(crate_dir) => entries.push(Entry::file(
            format!("{package}/{}", crate::stubs::EDITABLE_FILE),
            editable_file(listing, crate_dir)?.into_bytes(),
        )),
    }
    let stem = format!("{}-{}", names::normalised_dist_name(dist_name), request.version);
    let dist_info = vec![("METADATA", metadata(listing, dist_name, request))];
    let path = finish(entries, &stem, &tag, dist_info, out)?;
    Ok(Written { path, warnings })
}

/// Sorts `entries`, adds `{stem}.dist-info/` (the files of `dist_info`, then WHEEL and
/// RECORD, in that order: the folder last) and writes `out/{stem}-{tag}.whl`; returns its
/// path.
fn finish(
    mut entries: Vec<Entry>,
    stem: &str,
    tag: &str,
    dist_info: Vec<(&str, String)>,
    out: &Path,
) -> Result<PathBuf, String> {
    entries.sort_by(|a, b| a.path.cmp(&b.path));
    let folder = format!("{stem}.dist-info");
    for (name, text) in dist_info.into_iter().chain([("WHEEL", wheel_file(tag))]) {
        entries.push(Entry::file(format!("{folder}/{name}"), text.into_bytes()));
    }
    let record_path = format!("{folder}/RECORD");
    let record = archive::record(&entries, &record_path);
    entries.push(Entry::file(record_path, record.into_bytes()));

    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let path = out.join(format!("{stem}-{tag}.whl"));
    archive::write(&path, &entries)?;
    Ok(path)
}

/// The text of [`crate::stubs::EDITABLE_FILE`]: the library's and the crate folder's
/// absolute paths (symbolic links kept: the package loads whatever they point at then),
/// and each export's `signature` and `arg_names` as its metadata has them, which the
/// package compares with the library it loads (a changed signature needs new wrappers).
fn editable_file(listing: &Listing, crate_dir: &Path) -> Result<String, String> {
    let library = listing.path.as_path();
    if !crate_dir.join("Cargo.toml").is_file() {
        return Err(format!("--editable {}: no Cargo.toml there (name the crate folder)", crate_dir.display()));
    }
    let absolute = |path: &Path| {
        let full = std::path::absolute(path).map_err(|e| format!("cannot make {} absolute: {e}", path.display()))?;
        full.to_str()
            .map(str::to_owned)
            .ok_or_else(|| format!("{} is not UTF-8: an editable install cannot name it", full.display()))
    };
    let exports: serde_json::Map<String, serde_json::Value> = listing
        .exports
        .iter()
        .map(|e| {
            let meta = e.metadata.as_ref();
            let fingerprint = serde_json::json!({
                "signature": meta.and_then(|m| m.signature.as_deref()),
                "arg_names": meta.and_then(|m| m.arg_names.as_deref()),
            });
            (e.name.clone(), fingerprint)
        })
        .collect();
    let text = serde_json::json!({ "library": absolute(library)?, "crate": absolute(crate_dir)?, "exports": exports });
    Ok(format!("{text}\n"))
}

/// The extras of a package with ops, `pkg[torch]` and `pkg[jax]`, with their requirements:
/// torch 2.4 is the first with `torch.library.custom_op` (and `register_fake`,
/// `register_autograd` on it); JAX 0.5 the first with the public `jax.ffi` module (and
/// `ffi_call`'s `vmap_method`); jax-tvm-ffi 0.1.3 the release the ops were verified with,
/// below 0.2 whose `arg_spec` may change.
pub const OP_EXTRAS: [(&str, &[&str]); 2] =
    [("torch", &["torch>=2.4"]), ("jax", &["jax>=0.5.0", "jax-tvm-ffi>=0.1.3,<0.2"])];

/// `METADATA` (core metadata 2.1): the name, version, a summary naming the library, and
/// the requirements, apache-tvm-ffi first; for a library with ops, the extras.
fn metadata(listing: &Listing, dist_name: &str, request: &Request<'_>) -> String {
    let lib = listing.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut text = format!(
        "Metadata-Version: 2.1\nName: {dist_name}\nVersion: {}\nSummary: The packed functions of {lib} (package `{}`), built with abi\nRequires-Dist: {}\n",
        request.version,
        request.package,
        abi_shared::TVM_FFI_REQUIREMENT
    );
    for requirement in request.requires {
        text.push_str(&format!("Requires-Dist: {requirement}\n"));
    }
    if crate::stubs::has_ops(listing) {
        for (extra, requirements) in OP_EXTRAS {
            text.push_str(&format!("Provides-Extra: {extra}\n"));
            for requirement in requirements {
                text.push_str(&format!("Requires-Dist: {requirement}; extra == \"{extra}\"\n"));
            }
        }
    }
    text
}

/// `WHEEL`: not pure Python, one tag.
fn wheel_file(tag: &str) -> String {
    format!("Wheel-Version: 1.0\nGenerator: abi {}\nRoot-Is-Purelib: false\nTag: {tag}\n", env!("CARGO_PKG_VERSION"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_library_with_ops_declares_the_torch_and_jax_extras() {
        fn request(listing: &Listing) -> String {
            let platform = Requested::Auto;
            let request = Request {
                package: "op_kit",
                version: "0.1.0",
                dist_name: None,
                requires: &[],
                platform: &platform,
                editable: None,
            };
            metadata(listing, "op-kit", &request)
        }
        let op = r#"{"type_schema":"{\"type\":\"ffi.Function\",\"named_args\":{\"return\":[{\"type\":\"None\"}],\"params\":[{\"type\":\"ffi.Tensor\",\"dtype\":\"float32\",\"ndim\":1}]}}","arg_names":["x"],"abi.op":{"inputs":[],"scalars":[],"outputs":[{"name":"x","inout":true}],"inout":["x"],"backward":null,"jax":null,"device":"cpu"}}"#;
        let plain = r#"{"type_schema":"{\"type\":\"ffi.Function\",\"named_args\":{\"return\":[{\"type\":\"int\"}],\"params\":[]}}"}"#;
        let export = |name: &str, meta: &str| crate::read::Export {
            name: name.into(),
            metadata: Some(abi_core::schema::Metadata::parse(meta).unwrap()),
            doc: None,
        };
        let mut listing = Listing {
            path: "libop_kit.so".into(),
            source: crate::read::Source::Data,
            exports: vec![export("add", plain), export("relu_", op)],
            classes: Vec::new(),
            errors: Vec::new(),
            iree: Default::default(),
        };
        let text = request(&listing);
        assert!(
            text.ends_with(
                "Provides-Extra: torch\nRequires-Dist: torch>=2.4; extra == \"torch\"\n\
                 Provides-Extra: jax\nRequires-Dist: jax>=0.5.0; extra == \"jax\"\n\
                 Requires-Dist: jax-tvm-ffi>=0.1.3,<0.2; extra == \"jax\"\n"
            ),
            "{text}"
        );
        listing.exports.retain(|e| e.name == "add");
        assert!(!request(&listing).contains("Provides-Extra"), "a library without ops has no extras");
    }
}
