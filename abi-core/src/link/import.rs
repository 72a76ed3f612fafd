//! Typed imports: binding packed functions that live elsewhere (a library on disk, the
//! global registry, or exports linked into this binary), checking declared signatures
//! against published metadata when binding, and calling them.

use crate::link::bound::Bound;
use crate::link::exports::find_export;
use crate::link::library::Library;
use crate::reflect::FnDesc;
use crate::runtime::calls::function::Function;
use crate::runtime::calls::globals::GET_METADATA;
use crate::runtime::process::discovery::{has_tvm_ffi_runtime, tvm_ffi_in_process};
use crate::schema::{check_binding, Metadata, Mismatch, TypeSchema};
use crate::value::conv_error::ConvError;
use crate::value::error::{kind, Error, Result};
use crate::value::string::str_any;

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
        let parse = |text: &str| Metadata::parse(text).map_err(|e| Error::value_error(e.message()));
        match self {
            ImportSource::Library(lib) => {
                let bound = lib.get(name)?;
                let meta = lib.metadata(name).transpose().and_then(|m| m.as_deref().map(parse).transpose());
                Some((bound, meta))
            }
            ImportSource::Globals => {
                let f = Function::get_global(name)?;
                let meta = global_metadata(name).and_then(|m| m.as_deref().map(parse).transpose());
                Some((Bound::from_function(f), meta))
            }
            ImportSource::Linked => {
                let e = find_export(name)?;
                Some((Bound::from_safe_call(e.safe_call), parse(e.metadata_json()).map(Some)))
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
    /// when its published signature is incompatible with `desc` (the relation of
    /// [`check_binding`]).
    pub fn bind(&mut self, source: &ImportSource<'_>, desc: &'static FnDesc, optional: bool) -> Option<Bound> {
        let Some((bound, meta)) = source.resolve(desc.name) else {
            if !optional {
                self.missing.push(desc.name.to_owned());
            }
            return None;
        };
        let theirs = match meta {
            Ok(Some(meta)) if meta.type_schema.is_some() => meta,
            Ok(_) => return Some(bound),
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
        let ours = Metadata::declared(desc);
        let (Some(o), Some(t)) = (&ours.type_schema, &theirs.type_schema) else { return Some(bound) };
        let problems = check_binding(o, t, theirs.required_args());
        if problems.is_empty() {
            return Some(bound);
        }
        let names = ours.params();
        let why: Vec<String> = problems
            .iter()
            .map(|m| match m {
                Mismatch::Arity { ours, theirs, required } if required < theirs => {
                    format!("it takes {required} to {theirs} arguments (the rest have defaults), not {ours}")
                }
                Mismatch::Arity { ours, theirs, .. } => format!("it takes {theirs} arguments, not {ours}"),
                Mismatch::Param { index, ours, theirs } => {
                    let (ours, theirs) = told_apart(ours, theirs);
                    format!(
                        "argument `{}` (#{index}) is declared {ours} but the callee takes {theirs}",
                        names.get(*index).map_or("?", |(n, _)| n.as_str()),
                    )
                }
                Mismatch::Return { ours, theirs } => {
                    let (ours, theirs) = told_apart(ours, theirs);
                    format!("the result is declared {ours} but the callee returns {theirs}")
                }
            })
            .collect();
        self.mismatched.push(format!(
            "`{}`: declared {}, but {} publishes {}: {}",
            desc.name,
            ours.python_signature(desc.name),
            source.describe(),
            theirs.python_signature(desc.name),
            why.join("; ")
        ));
        None
    }

    /// Resolves one `#[abi(unchecked)]` import: like [`Binder::bind`], but its signature is
    /// not compared with what the callee publishes (nothing, an untyped `ffi.Function`,
    /// or metadata this build cannot read). Each call still converts its arguments as
    /// declared, the callee checks what it receives, and the result is checked as it
    /// converts.
    pub fn bind_unchecked(
        &mut self,
        source: &ImportSource<'_>,
        desc: &'static FnDesc,
        optional: bool,
    ) -> Option<Bound> {
        let found = source.resolve(desc.name).map(|(bound, _)| bound);
        if found.is_none() && !optional {
            self.missing.push(desc.name.to_owned());
        }
        found
    }

    /// Fails with every problem recorded, or succeeds.
    pub fn finish(self, set: &str, source: &ImportSource<'_>) -> Result<()> {
        if self.missing.is_empty() && self.mismatched.is_empty() {
            return Ok(());
        }
        let mut msg = format!("cannot bind {set} from {}", source.describe());
        if !self.missing.is_empty() {
            msg.push_str(&format!("; missing: {}", self.missing.join(", ")));
            if matches!(source, ImportSource::Globals) && !has_tvm_ffi_runtime() && tvm_ffi_in_process() {
                msg.push_str(LATE_TVM_FFI);
            }
        }
        for m in &self.mismatched {
            msg.push_str(&format!("; signature mismatch for {m}"));
        }
        let k = if self.mismatched.is_empty() { kind::ATTRIBUTE_ERROR } else { kind::TYPE_ERROR };
        Err(Error::new(k, msg))
    }
}

/// Why globals registered by C++ libraries are missing when libtvm_ffi arrived after this
/// process's first abi call settled on the embedded runtime (whose registry is not tvm-ffi's).
const LATE_TVM_FFI: &str = " (libtvm_ffi was loaded after this process's first abi call had settled on abi's \
                            embedded runtime, whose global registry is not tvm-ffi's: open the C++ libraries, \
                            or libtvm_ffi, before the first abi call)";

/// Two mismatched types as messages name them: by struct names, or, where those read the
/// same (one struct, two layouts), as the tuples of their fields.
fn told_apart(ours: &TypeSchema, theirs: &TypeSchema) -> (String, String) {
    match (ours.python(), theirs.python()) {
        (o, t) if o == t => (ours.python_layout(), theirs.python_layout()),
        named => named,
    }
}

/// The metadata a global function was registered with (`ffi.GetGlobalFuncMetadata`, which
/// tvm-ffi and the embedded runtime both provide); `None` when it has none.
pub fn global_metadata(name: &str) -> Result<Option<String>> {
    let Some(get) = Function::get_global(GET_METADATA) else { return Ok(None) };
    let text: String = get.call_packed(&[str_any(name).view()])?.to()?;
    Ok((!text.is_empty()).then_some(text))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn point(fields: &[&str]) -> TypeSchema {
        TypeSchema::Struct {
            name: Some("Point".into()),
            fields: fields.iter().map(|f| (f.to_string(), TypeSchema::Float(None))).collect(),
        }
    }

    #[test]
    fn mismatched_types_are_named_unless_the_names_read_the_same() {
        let told = told_apart(&point(&["x", "y"]), &TypeSchema::Str);
        assert_eq!(told, ("Point".to_owned(), "str".to_owned()));
        let told = told_apart(&point(&["x", "y"]), &point(&["x"]));
        assert_eq!(told, ("tuple[float, float]".to_owned(), "tuple[float]".to_owned()));
    }
}
