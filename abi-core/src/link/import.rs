//! Typed imports: binding packed functions that live elsewhere (a library on disk, the
//! global registry, or exports linked into this binary), checking declared signatures
//! against published metadata when binding, and calling them.

use crate::link::bound::Bound;
use crate::link::exports::find_export;
use crate::link::library::Library;
use crate::link::metadata::Metadata;
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

    /// Resolves `name` and reads its published metadata (`Ok(None)`: none published).
    fn resolve(&self, name: &str) -> Option<(Bound, Result<Option<Metadata>>)> {
        match self {
            ImportSource::Library(lib) => {
                let bound = lib.get(name)?;
                let meta = lib.metadata(name).transpose().and_then(|m| m.as_deref().map(Metadata::parse).transpose());
                Some((bound, meta))
            }
            ImportSource::Globals => Function::get_global(name).map(|f| (Bound::from_function(f), Ok(None))),
            ImportSource::Linked => {
                let e = find_export(name)?;
                Some((Bound::from_safe_call(e.safe_call), Metadata::parse(e.metadata_json()).map(Some)))
            }
        }
    }
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
        let theirs = match meta {
            Ok(meta) => meta.and_then(|m| m.type_schema),
            Err(e) => {
                self.mismatched.push(format!(
                    "`{}`: {} publishes metadata this build cannot read: {}",
                    desc.name,
                    source.describe(),
                    e.message()
                ));
                return None;
            }
        };
        if let Some(theirs) = theirs {
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
