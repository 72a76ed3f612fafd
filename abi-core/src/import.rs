//! Typed imports: binding packed functions that live elsewhere (a library on disk, the
//! global registry, or exports linked into this binary), checking declared signatures
//! against published metadata when binding, and calling them.

use core::ffi::c_void;
use core::ptr::{self, NonNull};

use crate::any::{Any, RawAny};
use crate::error::{kind, Error, Result};
use crate::exports::find_export;
use crate::function::{Function, SafeCall};
use crate::library::{Library, TakeError};
use crate::object::{ObjectHeader, ObjectRef};
use crate::reflect::{fn_signature_text, fn_type_schema, FnDesc, Writer};

/// What keeps a bound function's code and handle alive.
#[derive(Clone, Debug)]
enum Keep {
    // Held so the library handle lives as long as the binding (it is never unloaded).
    #[allow(dead_code)]
    Library(Library),
    Function(Function),
    Static,
}

/// A resolved packed function, ready to call.
#[derive(Clone, Debug)]
pub struct Bound {
    safe_call: SafeCall,
    handle: *mut c_void,
    take_error: Option<TakeError>,
    keep: Keep,
}

// SAFETY: the handle is null or a Function object kept alive by `keep`; objects are
// thread-safe and packed functions are callable from any thread.
unsafe impl Send for Bound {}
// SAFETY: see above.
unsafe impl Sync for Bound {}

impl Bound {
    pub(crate) fn from_library(safe_call: SafeCall, lib: Library) -> Bound {
        Bound { safe_call, handle: ptr::null_mut(), take_error: lib.take_error(), keep: Keep::Library(lib) }
    }

    /// Binds a Function object (its `safe_call` receives the object as handle).
    pub fn from_function(f: Function) -> Bound {
        let obj = f.as_object().as_ptr();
        // SAFETY: a Function object's cell starts with safe_call.
        let safe_call = unsafe { *crate::object::cell_ptr::<SafeCall>(obj) };
        Bound { safe_call, handle: obj.cast(), take_error: None, keep: Keep::Function(f) }
    }

    /// Binds a shim linked into this binary.
    pub fn from_safe_call(safe_call: SafeCall) -> Bound {
        Bound { safe_call, handle: ptr::null_mut(), take_error: None, keep: Keep::Static }
    }

    /// Calls with packed arguments; the result is owned.
    #[inline]
    pub fn call_raw(&self, args: &[RawAny]) -> Result<Any> {
        // SAFETY: `args` is a valid slice for the call.
        unsafe { self.call_unchecked(args.as_ptr(), args.len() as i32) }
    }

    /// Calls with an explicit pointer and count, as a C caller would (the callee checks
    /// them; used to test hostile input).
    ///
    /// # Safety
    /// When `n > 0` and `args` is non-null, `args` points to `n` slots valid for the call.
    #[inline]
    pub unsafe fn call_unchecked(&self, args: *const RawAny, n: i32) -> Result<Any> {
        let mut result = RawAny::NONE;
        // SAFETY: the packed convention: `args` as guaranteed by the caller, `result` starts
        // as None; `keep` keeps the code and handle alive.
        let rc = unsafe { (self.safe_call)(self.handle, args, n, &mut result) };
        if rc == 0 {
            // SAFETY: success transfers ownership of the result.
            Ok(unsafe { Any::from_raw(result) })
        } else {
            Err(self.take_error(rc))
        }
    }

    #[cold]
    #[inline(never)]
    fn take_error(&self, code: i32) -> Error {
        if crate::host::host().is_none() {
            if let Some(take) = self.take_error {
                let mut out: *mut c_void = ptr::null_mut();
                // SAFETY: the library's documented entry writes an owned Error or null.
                unsafe { take(&mut out) };
                if let Some(obj) = NonNull::new(out.cast::<ObjectHeader>()) {
                    // SAFETY: an owned reference.
                    if let Ok(e) = Error::from_object(unsafe { ObjectRef::from_raw(obj) }) {
                        return e;
                    }
                }
            }
        }
        crate::host::take_raised_after(code)
    }

    /// A Function object calling this binding.
    pub fn to_function(&self) -> Function {
        match &self.keep {
            Keep::Function(f) => f.clone(),
            _ => {
                let this = self.clone();
                Function::from_closure(move |args| {
                    let raw: Vec<RawAny> = args.iter().map(|a| *a.raw()).collect();
                    this.call_raw(&raw)
                })
            }
        }
    }
}

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

fn render(f: impl Fn(&mut Writer)) -> String {
    let mut count = Writer::new(&mut []);
    f(&mut count);
    let mut buf = vec![0u8; count.len()];
    f(&mut Writer::new(&mut buf));
    String::from_utf8(buf).unwrap_or_default()
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
            let ours = render(|w| fn_type_schema(w, desc));
            if ours != theirs {
                self.mismatched.push(format!(
                    "`{}`: declared {} (type_schema {ours}), but {} publishes type_schema {theirs}",
                    desc.name,
                    render(|w| fn_signature_text(w, desc)),
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
pub fn bad_result(desc: &'static FnDesc, err: crate::ConvError) -> Error {
    Error::new(err.kind(), format!("{}: the result {err}", render(|w| fn_signature_text(w, desc))))
}

/// The error for an argument that cannot be packed.
#[cold]
pub fn bad_arg(desc: &'static FnDesc, index: usize, err: crate::ConvError) -> Error {
    let name = desc.params.get(index).map_or("?", |p| p.name);
    Error::new(err.kind(), format!("{}: argument `{name}` (#{index}) {err}", render(|w| fn_signature_text(w, desc))))
}
