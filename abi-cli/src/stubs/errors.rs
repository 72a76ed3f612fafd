//! Exception classes for the library's derived error types (`#[derive(AbiError)]`, read from
//! its records): a class per type, a `RuntimeError` (what `tvm_ffi` raises for a kind it
//! does not know, so `except RuntimeError` still catches them all), and beneath it a class
//! per kind, also a subclass of the kind's builtin base (`SamplingError.BadSize(SamplingError,
//! ValueError)`), which the package registers with `tvm_ffi` for the kind: an error of that
//! kind, raised by any library in the process, then arrives as that class.

use std::collections::{BTreeMap, HashSet};

use abi_core::schema::{ErrorType, Metadata};
use abi_shared::BUILTIN_ERROR_KINDS;

use super::model::{ErrorClass, KindClass};
use super::{is_public_name, is_python_name};

/// The builtin base of every class: `tvm_ffi`'s class for a kind it does not know.
pub const RUNTIME_ERROR: &str = "RuntimeError";

/// Python's builtin names that start with a capital: the exceptions and warnings a class
/// of the package would hide from code importing its names (and from the package's own
/// code, which names the bases), and the constants.
const BUILTINS: &str = "ArithmeticError AssertionError AttributeError BaseException BaseExceptionGroup \
     BlockingIOError BrokenPipeError BufferError BytesWarning ChildProcessError ConnectionAbortedError ConnectionError \
     ConnectionRefusedError ConnectionResetError DeprecationWarning EOFError Ellipsis EncodingWarning EnvironmentError \
     Exception ExceptionGroup FileExistsError FileNotFoundError FloatingPointError FutureWarning GeneratorExit IOError \
     ImportError ImportWarning IndentationError IndexError InterruptedError IsADirectoryError KeyError \
     KeyboardInterrupt LookupError MemoryError ModuleNotFoundError NameError NotADirectoryError NotImplemented \
     NotImplementedError OSError OverflowError PendingDeprecationWarning PermissionError ProcessLookupError \
     PythonFinalizationError RecursionError ReferenceError ResourceWarning RuntimeError RuntimeWarning \
     StopAsyncIteration StopIteration SyntaxError SyntaxWarning SystemError SystemExit TabError TimeoutError TypeError \
     UnboundLocalError UnicodeDecodeError UnicodeEncodeError UnicodeError UnicodeTranslateError UnicodeWarning \
     UserWarning ValueError Warning ZeroDivisionError";

/// What every exception class has already, which a kind's class of that name would hide.
const EXCEPTION_ATTRIBUTES: [&str; 4] = ["args", "with_traceback", "add_note", "mro"];

/// The error types that get a class, by the Rust name of each.
#[derive(Debug, Default)]
pub struct Errors {
    classes: Vec<(String, ErrorClass)>,
}

impl Errors {
    /// A class for every error type whose name Python can use and `taken` does not take
    /// (nor a builtin name); two types of one name get apart, the later (in the listing's
    /// order, by name) `SamplingError_2`. A kind's class is its type's attribute by the
    /// variant's name (a keyword followed by `_`: `None_`), and a module-level name too
    /// when no other name of the package, builtin or kind of another type is the same.
    pub fn new(types: &[ErrorType], taken: impl Fn(&str) -> bool) -> Errors {
        let taken = |name: &str| taken(name) || !is_public_name(name) || is_builtin(name);
        let mut used = HashSet::new();
        let mut classes = Vec::new();
        for t in types.iter().filter(|t| !taken(&t.name)) {
            let mut name = t.name.clone();
            for n in 2.. {
                if !used.contains(&name) && !taken(&name) {
                    break;
                }
                name = format!("{}_{n}", t.name);
            }
            used.insert(name.clone());
            let kinds = kind_classes(t, &name);
            classes.push((t.name.clone(), ErrorClass { name, doc: t.doc.clone(), kinds }));
        }
        // A kind's module-level name: its class's, where no type, no other kind and nothing
        // else of the package has it.
        let mut count: BTreeMap<String, usize> = BTreeMap::new();
        for kind in classes.iter().flat_map(|(_, c)| &c.kinds) {
            *count.entry(kind.name.clone()).or_default() += 1;
        }
        for (_, class) in &mut classes {
            for kind in &mut class.kinds {
                kind.module_level = count[&kind.name] == 1 && !used.contains(&kind.name) && !taken(&kind.name);
            }
        }
        Errors { classes }
    }

    /// The names, for `__all__`: each type's class and each kind's module-level name.
    pub fn names(&self) -> impl Iterator<Item = String> + '_ {
        self.classes.iter().flat_map(|(_, c)| {
            let kinds = c.kinds.iter().filter(|k| k.module_level).map(|k| k.name.clone());
            std::iter::once(c.name.clone()).chain(kinds)
        })
    }

    /// The paragraph a function's docs end with when its metadata names an error type with
    /// a class (one only: two types of that name cannot be told apart): `Raises:
    /// SamplingError.`
    pub fn raises(&self, meta: Option<&Metadata>) -> Option<String> {
        let rust_name = meta?.error.as_deref()?;
        match self.classes.iter().filter(|(name, _)| name == rust_name).collect::<Vec<_>>()[..] {
            [(_, class)] => Some(format!("Raises: {}.", class.name)),
            _ => None,
        }
    }

    /// The classes, in the listing's order.
    pub fn into_classes(self) -> Vec<ErrorClass> {
        self.classes.into_iter().map(|(_, c)| c).collect()
    }
}

fn is_builtin(name: &str) -> bool {
    BUILTINS.split_whitespace().any(|b| b == name)
}

/// The classes of `t`'s kinds, beneath its class `parent`. A kind gets none when its
/// variant's name could not be an attribute (no identifier, a leading `_`, an exception's
/// attribute, one taken by an earlier variant) or would hide a name the stubs' class body
/// reads (its bases), or when the kind is a builtin one, which registering would take over.
/// A base `tvm_ffi` does not know counts as `RuntimeError`.
fn kind_classes(t: &ErrorType, parent: &str) -> Vec<KindClass> {
    let mut kinds: Vec<KindClass> = Vec::new();
    for k in &t.kinds {
        let name = match &k.variant {
            v if is_python_name(v) => v.clone(),
            v if abi_shared::is_c_identifier(v) => format!("{v}_"),
            _ => continue,
        };
        let unusable = name.starts_with('_')
            || EXCEPTION_ATTRIBUTES.contains(&name.as_str())
            || BUILTIN_ERROR_KINDS.contains(&name.as_str())
            || name == parent
            || kinds.iter().any(|earlier| earlier.name == name);
        if unusable || BUILTIN_ERROR_KINDS.contains(&k.kind.as_str()) {
            continue;
        }
        let base = BUILTIN_ERROR_KINDS.iter().find(|&&b| b == k.base && b != RUNTIME_ERROR).map(|&b| b.to_owned());
        kinds.push(KindClass { name, module_level: false, kind: k.kind.clone(), base, doc: k.doc.clone() });
    }
    kinds
}

#[cfg(test)]
mod tests {
    use super::*;
    use abi_core::schema::ErrorKind;

    /// An error type `name` of `(variant, kind, base)`s.
    fn error_type(name: &str, kinds: &[(&str, &str, &str)]) -> ErrorType {
        let kinds = kinds
            .iter()
            .map(|&(variant, kind, base)| ErrorKind {
                variant: variant.into(),
                kind: kind.into(),
                base: base.into(),
                doc: String::new(),
            })
            .collect();
        ErrorType { name: name.into(), doc: String::new(), kinds }
    }

    /// Each class as `Type: Kind(Base), ...`, a kind with a module-level name marked `+`.
    fn shown(errors: Errors) -> Vec<String> {
        let kind = |k: &KindClass| {
            let base = k.base.as_deref().map(|b| format!("({b})")).unwrap_or_default();
            format!("{}{base}{}", k.name, if k.module_level { "+" } else { "" })
        };
        let class = |c: &ErrorClass| format!("{}: {}", c.name, c.kinds.iter().map(kind).collect::<Vec<_>>().join(", "));
        errors.into_classes().iter().map(class).collect()
    }

    #[test]
    fn kinds_are_attributes_and_module_level_names_where_free() {
        let types = [
            error_type(
                "KernelError",
                &[("BadShape", "k.KernelError.BadShape", "ValueError"), ("Internal", "k.K.I", "RuntimeError")],
            ),
            error_type(
                "SamplingError",
                &[("Internal", "k.S.I", "RuntimeError"), ("shape", "k.S.s", "KeyError"), ("Odd", "k.S.O", "OSError")],
            ),
        ];
        // `shape` is an export's name; `Internal` two types' kind; `OSError` no base tvm_ffi knows.
        let errors = Errors::new(&types, |name| name == "shape");
        assert_eq!(
            shown(errors),
            ["KernelError: BadShape(ValueError)+, Internal", "SamplingError: Internal, shape(KeyError), Odd+"]
        );
    }

    #[test]
    fn types_of_one_name_get_apart_and_taken_or_builtin_names_none() {
        let types = [
            error_type("E", &[("A", "x.E.A", "ValueError")]),
            error_type("E", &[("A", "y.E.A", "ValueError")]),
            error_type("TimeoutError", &[("B", "x.T.B", "RuntimeError")]),
            error_type("Point", &[("C", "x.P.C", "RuntimeError")]),
            error_type("_Hidden", &[("D", "x.H.D", "RuntimeError")]),
        ];
        let errors = Errors::new(&types, |name| name == "Point" || name == "E_2");
        let names: Vec<String> = errors.names().collect();
        assert_eq!(names, ["E", "E_3"], "`A` names a kind of both types");
    }

    #[test]
    fn variants_that_cannot_be_attributes_and_builtin_kinds_get_no_class() {
        let t = error_type(
            "E",
            &[
                ("None", "x.E.None", "ValueError"),
                ("None_", "x.E.None_", "ValueError"),
                ("args", "x.E.args", "ValueError"),
                ("_Private", "x.E._Private", "ValueError"),
                ("ValueError", "x.E.ValueError", "ValueError"),
                ("E", "x.E.E", "ValueError"),
                ("Plain", "ValueError", "ValueError"),
                ("a-b", "x.E.a-b", "ValueError"),
            ],
        );
        let kinds = kind_classes(&t, "E");
        let names: Vec<&str> = kinds.iter().map(|k| k.name.as_str()).collect();
        assert_eq!(names, ["None_"]);
        assert_eq!(kinds[0].kind, "x.E.None");
    }

    #[test]
    fn a_function_raising_a_type_with_a_class_says_so() {
        let types = [error_type("E", &[]), error_type("F", &[]), error_type("F", &[("A", "x.F.A", "ValueError")])];
        let errors = Errors::new(&types, |_| false);
        let meta = |error: &str| {
            let json = serde_json::json!({"abi.error": error, "abi.version": abi_shared::METADATA_VERSION});
            Metadata::parse(&json.to_string()).unwrap()
        };
        assert_eq!(errors.raises(Some(&meta("E"))).as_deref(), Some("Raises: E."));
        assert_eq!(errors.raises(Some(&meta("F"))), None, "two types named F");
        assert_eq!(errors.raises(Some(&meta("G"))), None);
        assert_eq!(errors.raises(None), None);
    }
}
