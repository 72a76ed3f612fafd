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
use crate::schema::{check_binding, FnType, Metadata, Mismatch, TypeSchema};
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
    /// How many imports were found (bound or refused): none with some missing says that
    /// whatever registers them is not in the process.
    found: usize,
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
        self.found += 1;
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
        let names = ours.params();
        let fields = struct_fields_differ(o, t, &names);
        if problems.is_empty() && fields.is_empty() {
            return Some(bound);
        }
        let why: Vec<String> = problems
            .iter()
            .map(|m| match m {
                Mismatch::Arity { ours, theirs, required } if required < theirs => {
                    format!("it takes {required} to {theirs} arguments (the rest have defaults), not {ours}")
                }
                Mismatch::Arity { ours, theirs, .. } => format!("it takes {theirs} arguments, not {ours}"),
                Mismatch::Param { index, ours, theirs } => {
                    let name = names.get(*index).map_or("?", |(n, _)| n.as_str());
                    match ours.enum_difference(theirs) {
                        Some(d) => format!("argument `{name}` (#{index}) differs in the callee: {d}"),
                        None => {
                            let (ours, theirs) = told_apart(ours, theirs);
                            format!("argument `{name}` (#{index}) is declared {ours} but the callee takes {theirs}")
                        }
                    }
                }
                Mismatch::Return { ours, theirs } => match ours.enum_difference(theirs) {
                    Some(d) => format!("the result differs in the callee: {d}"),
                    None => {
                        let (ours, theirs) = told_apart(ours, theirs);
                        format!("the result is declared {ours} but the callee returns {theirs}")
                    }
                },
            })
            .chain(fields)
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
        match found {
            Some(_) => self.found += 1,
            None if !optional => self.missing.push(desc.name.to_owned()),
            None => {}
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
            if let Some(cause) = self.cause(source) {
                msg.push_str(": ");
                msg.push_str(cause);
            }
            msg.push_str(&format!("; missing: {}", listed(&self.missing)));
        }
        for m in &self.mismatched {
            msg.push_str(&format!("; signature mismatch for {m}"));
        }
        let k = if self.mismatched.is_empty() { kind::ATTRIBUTE_ERROR } else { kind::TYPE_ERROR };
        Err(Error::new(k, msg))
    }

    /// Why imports from the global registry are missing, when the process tells: libtvm_ffi
    /// arrived after the runtime was settled, or none of them is registered at all.
    fn cause(&self, source: &ImportSource<'_>) -> Option<&'static str> {
        if !matches!(source, ImportSource::Globals) {
            return None;
        }
        match (has_tvm_ffi_runtime(), self.found) {
            (false, _) if tvm_ffi_in_process() => Some(LATE_TVM_FFI),
            (false, 0) => Some(NO_RUNTIME),
            (true, 0) => Some(NOT_REGISTERED),
            _ => None,
        }
    }
}

/// How many missing names a bind error lists before saying how many more there are.
const LISTED: usize = 8;

/// The first [`LISTED`] names, then `and N more`.
fn listed(names: &[String]) -> String {
    match names.len().checked_sub(LISTED) {
        Some(more) if more > 0 => format!("{}, and {more} more", names[..LISTED].join(", ")),
        _ => names.join(", "),
    }
}

/// Why globals registered by C++ libraries are missing when libtvm_ffi arrived after this
/// process's first abi call settled on the embedded runtime (whose registry is not tvm-ffi's).
const LATE_TVM_FFI: &str = "libtvm_ffi was loaded after this process's first abi call had settled on abi's \
                            embedded runtime, whose global registry is not tvm-ffi's: open the C++ libraries, \
                            or libtvm_ffi, before the first abi call";

/// Why none of the globals is found when no tvm-ffi runtime is in the process.
const NO_RUNTIME: &str = "no tvm-ffi runtime is loaded in this process and no library loaded registers these \
                          globals: open the libraries that register them with `Library::open` before binding \
                          (and before any other abi call: the first one settles the runtime)";

/// Why none of the globals is found under a tvm-ffi runtime.
const NOT_REGISTERED: &str = "no library registering these globals is loaded in this process: open the libraries \
                              that register them with `Library::open` before binding";

/// Where a declared struct's field names (or their order) differ from those the callee
/// publishes for the struct in the same place (`abi.struct`/`abi.fields`): kinds agree, so
/// [`check_binding`] lets it through, but the values would land in the wrong fields. Only
/// where both sides name their fields (C++ publishes none).
fn struct_fields_differ(ours: &FnType, theirs: &FnType, names: &[(String, TypeSchema)]) -> Vec<String> {
    let params = ours.params.iter().zip(&theirs.params).enumerate().filter_map(|(index, (o, t))| {
        let name = names.get(index).map_or("?", |(n, _)| n.as_str());
        fields_differ(o, t).map(|why| format!("argument `{name}` (#{index}): {why}"))
    });
    let ret = fields_differ(&ours.ret, &theirs.ret).map(|why| format!("the result: {why}"));
    params.chain(ret).collect()
}

/// The first struct of `ours` whose field names differ from those of the struct at the
/// same place in `theirs`, said with both lists.
fn fields_differ(ours: &TypeSchema, theirs: &TypeSchema) -> Option<String> {
    use TypeSchema as T;
    match (ours, theirs) {
        (T::Struct { name: Some(a), fields: f }, T::Struct { name: Some(b), fields: g }) => {
            let (f, g): (Vec<&str>, Vec<&str>) =
                (f.iter().map(|(n, _)| n.as_str()).collect(), g.iter().map(|(n, _)| n.as_str()).collect());
            if f != g {
                return Some(format!(
                    "struct `{a}` is declared with fields ({}) but the callee's `{b}` has ({})",
                    f.join(", "),
                    g.join(", ")
                ));
            }
        }
        (T::Function(Some(f)), T::Function(Some(g))) if f.params.len() == g.params.len() => {
            let pairs = f.params.iter().zip(&g.params).chain([(&f.ret, &g.ret)]);
            return pairs.into_iter().find_map(|(o, t)| fields_differ(o, t));
        }
        (T::Optional(o), t) if !matches!(t, T::Optional(_)) => return fields_differ(o, t),
        (o, T::Optional(t)) if !matches!(o, T::Optional(_)) => return fields_differ(o, t),
        _ => {}
    }
    let (o, t) = (ours.args(), theirs.args());
    if o.len() != t.len() {
        return None;
    }
    o.into_iter().zip(t).find_map(|(o, t)| fields_differ(o, t))
}

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

    fn binder_missing(names: &[String]) -> Binder {
        Binder { missing: names.to_vec(), ..Binder::default() }
    }

    #[test]
    fn globals_missing_with_none_found_lead_with_the_cause_and_a_short_list() {
        let names: Vec<String> = (0..59).map(|i| format!("testing.f{i}")).collect();
        let err = binder_missing(&names).finish("TestingGlobals", &ImportSource::Globals).unwrap_err();
        assert_eq!(err.kind(), kind::ATTRIBUTE_ERROR);
        let m = err.message();
        assert!(
            m.starts_with(
                "cannot bind TestingGlobals from the global registry: no tvm-ffi runtime is loaded in this process \
                 and no library loaded registers these globals: open the libraries that register them with \
                 `Library::open` before binding"
            ),
            "{m}"
        );
        let list = names[..8].join(", ");
        assert!(m.ends_with(&format!("; missing: {list}, and 51 more")), "{m}");

        // Some found: no cause is claimed, and a short list is listed whole.
        let mut some = binder_missing(&names[..2]);
        some.found = 1;
        let m = some.finish("TestingGlobals", &ImportSource::Globals).unwrap_err().message().to_owned();
        assert_eq!(m, "cannot bind TestingGlobals from the global registry; missing: testing.f0, testing.f1");
        // Nor for a library or this binary.
        let m = binder_missing(&names[..1]).finish("X", &ImportSource::Linked).unwrap_err().message().to_owned();
        assert_eq!(m, "cannot bind X from this binary; missing: testing.f0");
    }

    #[test]
    fn structs_whose_fields_differ_in_name_or_order_are_told_with_both_lists() {
        let swapped = TypeSchema::Struct {
            name: Some("Swapped".into()),
            fields: vec![("y".into(), TypeSchema::Float(None)), ("x".into(), TypeSchema::Float(None))],
        };
        let theirs = point(&["x", "y"]);
        let why = "struct `Swapped` is declared with fields (y, x) but the callee's `Point` has (x, y)";
        assert_eq!(fields_differ(&swapped, &theirs).as_deref(), Some(why));
        // Inside containers, options and callbacks too; the same names in order agree.
        let list = |t: &TypeSchema| TypeSchema::Array(Box::new(t.clone()));
        assert_eq!(fields_differ(&list(&swapped), &list(&theirs)).as_deref(), Some(why));
        let opt = TypeSchema::Optional(Box::new(swapped.clone()));
        assert_eq!(fields_differ(&opt, &theirs).as_deref(), Some(why));
        assert_eq!(fields_differ(&point(&["x", "y"]), &theirs), None);
        // A struct without published names (a plain tuple) is not compared.
        let tuple = TypeSchema::Tuple(vec![TypeSchema::Float(None), TypeSchema::Float(None)]);
        assert_eq!(fields_differ(&swapped, &tuple), None);
    }

    #[test]
    fn mismatched_types_are_named_unless_the_names_read_the_same() {
        let told = told_apart(&point(&["x", "y"]), &TypeSchema::Str);
        assert_eq!(told, ("Point".to_owned(), "str".to_owned()));
        let told = told_apart(&point(&["x", "y"]), &point(&["x"]));
        assert_eq!(told, ("tuple[float, float]".to_owned(), "tuple[float]".to_owned()));
    }
}
