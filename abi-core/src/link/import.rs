//! Typed imports: binding packed functions that live elsewhere (a library on disk, the
//! global registry, or exports linked into this binary), checking declared signatures
//! against published metadata when binding, and calling them.

use crate::link::bound::Bound;
use crate::link::exports::find_export;
use crate::link::library::Library;
use crate::reflect::FnDesc;
use crate::runtime::function::Function;
use crate::value::conv_error::ConvError;
use crate::value::error::{kind, Error, Result};

/// Where imports are resolved from.
#[derive(Clone, Copy, Debug)]
pub enum ImportSource<'a> {
    /// A library on disk.
    Library(&'a Library),
    /// The global function registry (tvm-ffi's under a tvm-ffi host).
    Globals,
    /// `#[export_fn]` functions linked into this binary.
    Linked,
}

impl ImportSource<'_> {
    fn describe(&self) -> String {
        match self {
            ImportSource::Library(l) => l.path().display().to_string(),
            ImportSource::Globals => "the global registry".to_owned(),
            ImportSource::Linked => "this binary".to_owned(),
        }
    }

    /// Resolves `name` and its published metadata, if any.
    fn resolve(&self, name: &str) -> Option<(Bound, Option<String>)> {
        match self {
            ImportSource::Library(lib) => {
                let bound = lib.get(name)?;
                let meta = lib.metadata(name).and_then(Result::ok);
                Some((bound, meta))
            }
            ImportSource::Globals => Function::get_global(name).map(|f| (Bound::from_function(f), None)),
            ImportSource::Linked => {
                let e = find_export(name)?;
                Some((Bound::from_safe_call(e.safe_call), Some(e.metadata_json().to_owned())))
            }
        }
    }
}

/// Reads the string value of `"key":` in a JSON object text (enough for metadata).
fn json_string_field(json: &str, key: &str) -> Option<String> {
    let pat = format!("\"{key}\":");
    let start = json.find(&pat)? + pat.len();
    let mut chars = json[start..].trim_start().chars();
    if chars.next()? != '"' {
        return None;
    }
    let mut out = String::new();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some(out),
            '\\' => match chars.next()? {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'r' => out.push('\r'),
                'u' => {
                    let hex: String = chars.by_ref().take(4).collect();
                    out.push(char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?);
                }
                other => out.push(other),
            },
            c => out.push(c),
        }
    }
    None
}

/// Collects binding problems so every missing or mismatched import is reported at once.
#[derive(Debug, Default)]
pub struct Binder {
    missing: Vec<String>,
    mismatched: Vec<String>,
}

impl Binder {
    /// Resolves one import; `None` (and a recorded problem unless optional) when absent or
    /// when its published signature differs from `desc`.
    pub fn bind(&mut self, source: &ImportSource<'_>, desc: &'static FnDesc, optional: bool) -> Option<Bound> {
        let Some((bound, meta)) = source.resolve(desc.name) else {
            if !optional {
                self.missing.push(desc.name.to_owned());
            }
            return None;
        };
        if let Some(theirs) = meta.as_deref().and_then(|m| json_string_field(m, "type_schema")) {
            let ours = desc.type_schema();
            if ours != theirs {
                self.mismatched.push(format!(
                    "`{}`: declared {} (type_schema {ours}), but {} publishes type_schema {theirs}",
                    desc.name,
                    desc.signature_text(),
                    source.describe(),
                ));
                return None;
            }
        }
        Some(bound)
    }

    /// Fails with every problem recorded, or succeeds.
    pub fn finish(self, set: &str, source: &ImportSource<'_>) -> Result<()> {
        if self.missing.is_empty() && self.mismatched.is_empty() {
            return Ok(());
        }
        let mut msg = format!("cannot bind {set} from {}", source.describe());
        if !self.missing.is_empty() {
            msg.push_str(&format!("; missing: {}", self.missing.join(", ")));
        }
        for m in &self.mismatched {
            msg.push_str(&format!("; signature mismatch for {m}"));
        }
        let k = if self.mismatched.is_empty() { kind::ATTRIBUTE_ERROR } else { kind::TYPE_ERROR };
        Err(Error::new(k, msg))
    }
}

/// The error for calling an optional import that is absent and has no fallback.
#[cold]
pub fn absent(set: &str, name: &str) -> Error {
    Error::attribute_error(format!("optional import `{name}` of {set} is not available"))
}

/// The error for a result of the wrong type.
#[cold]
pub fn bad_result(desc: &'static FnDesc, err: ConvError) -> Error {
    Error::new(err.kind(), format!("{}: the result {err}", desc.signature_text()))
}

/// The error for an argument that cannot be packed.
#[cold]
pub fn bad_arg(desc: &'static FnDesc, index: usize, err: ConvError) -> Error {
    let name = desc.params.get(index).map_or("?", |p| p.name);
    Error::new(err.kind(), format!("{}: argument `{name}` (#{index}) {err}", desc.signature_text()))
}
