//! Signatures `#[export_fn]` accepts, and that the functions stay ordinary Rust functions.
use std::collections::HashMap;

use abi_core::{Error, Result, TensorView, TypedFunction};

#[abi_core::export_fn]
fn nothing() {}

#[abi_core::export_fn]
pub fn zero_args() -> i64 {
    42
}

/// Docs with `code`, "quotes" and a second paragraph.
///
/// Second paragraph.
#[abi_core::export_fn(name = "renamed_v2")]
pub(crate) fn renamed(mut x: i64) -> i64 {
    x += 1;
    x
}

#[abi_core::export_fn]
fn lifetimes<'a>(s: &'a str, b: &'a [u8]) -> String {
    format!("{s}{}", b.len())
}

#[abi_core::export_fn]
#[inline]
#[must_use]
fn with_other_attributes(a: bool) -> bool {
    !a
}

struct Oops(String);

impl From<Oops> for Error {
    fn from(o: Oops) -> Error {
        Error::value_error(o.0)
    }
}

#[abi_core::export_fn]
fn custom_error(x: i64) -> std::result::Result<i64, Oops> {
    if x < 0 {
        Err(Oops(format!("{x} is negative")))
    } else {
        Ok(x)
    }
}

#[abi_core::export_fn]
fn io_error(path: String) -> std::result::Result<String, std::io::Error> {
    Err(std::io::Error::new(std::io::ErrorKind::NotFound, path))
}

type Meters = f64;

#[abi_core::export_fn]
fn aliased(m: Meters) -> Meters {
    m * 2.0
}

#[abi_core::export_fn]
fn containers(
    v: Vec<i64>,
    o: Option<String>,
    m: HashMap<String, f64>,
    t: (i64, String, bool),
    nested: Vec<Option<Vec<u8>>>,
) -> Result<(usize, bool, usize, i64, usize)> {
    Ok((v.len(), o.is_some(), m.len(), t.0, nested.len()))
}

#[abi_core::export_fn]
fn borrowed(t: TensorView<'_>, f: TypedFunction<fn(i64) -> i64>, any: abi_core::AnyView<'_>) -> Result<i64> {
    let _ = any;
    f.call(t.ndim() as i64)
}

#[abi_core::export_fn]
#[allow(clippy::too_many_arguments)]
fn many(
    a0: i64, a1: i64, a2: i64, a3: i64, a4: i64, a5: i64, a6: i64, a7: i64,
    a8: i64, a9: i64, a10: i64, a11: i64, a12: i64, a13: i64, a14: i64, a15: i64,
    a16: i64, a17: i64, a18: i64, a19: i64,
) -> i64 {
    a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11 + a12 + a13 + a14 + a15 + a16 + a17 + a18 + a19
}

#[derive(abi_core::AbiStruct)]
struct Span2 {
    start: i64,
    end: i64,
}

#[abi_core::export_fn]
fn span_len(#[abi(expand)] s: Span2, tuple: Span2) -> i64 {
    (s.end - s.start) + (tuple.end - tuple.start)
}

mod nested {
    #[abi_core::export_fn(name = "nested_add")]
    pub fn add(a: i64, b: i64) -> i64 {
        a + b
    }
}

/// Defaults of every literal kind, for every type that takes them; the function stays an
/// ordinary Rust function with every parameter.
#[abi_core::export_fn]
#[allow(clippy::too_many_arguments)]
fn defaulted(
    a: i64,
    #[abi(default = -3)] b: i8,
    #[abi(default = 2.5)] c: f32,
    #[abi(default = -1e3)] d: f64,
    #[abi(default = true)] e: bool,
    #[abi(default = "s")] f: &str,
    #[abi(default = "owned")] g: String,
    #[abi(default = 7)] h: Option<u64>,
    #[abi(default = "o")] i: Option<String>,
    #[abi(default = None)] j: Option<&str>,
    #[abi(default)] k: Option<f64>,
) -> String {
    format!("{a} {b} {c} {d} {e} {f} {g} {h:?} {i:?} {j:?} {k:?}")
}

fn main() {
    nothing();
    assert_eq!(defaulted(1, 2, 3.0, 4.0, false, "f", "g".into(), None, None, Some("j"), Some(1.0)), "1 2 3 4 false f g None None Some(\"j\") Some(1.0)");
    let defaulted = abi_core::exports().into_iter().find(|e| e.name() == "defaulted").unwrap();
    assert_eq!(
        defaulted.signature_text(),
        r#"defaulted(a: int, b: int = -3, c: float = 2.5, d: float = -1000.0, e: bool = True, f: str = "s", g: str = "owned", h: Optional[int] = 7, i: Optional[str] = "o", j: Optional[str] = None, k: Optional[float] = None) -> str"#
    );
    let called = defaulted.function().call_packed(&[abi_core::Any::from_value(1i64).unwrap().view()]).unwrap();
    assert_eq!(called.to::<String>().unwrap(), r#"1 -3 2.5 -1000 true s owned Some(7) Some("o") None None"#);
    assert_eq!(zero_args(), 42);
    assert_eq!(renamed(1), 2);
    assert_eq!(lifetimes("a", b"bc"), "a2");
    assert!(with_other_attributes(false));
    assert!(custom_error(-1).is_err());
    assert!(io_error("x".into()).is_err());
    assert_eq!(aliased(1.5), 3.0);
    assert_eq!(containers(vec![1], None, HashMap::new(), (7, String::new(), true), vec![]).unwrap().3, 7);
    assert_eq!(many(1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1), 20);
    assert_eq!(nested::add(1, 2), 3);
    assert_eq!(span_len(Span2 { start: 1, end: 4 }, Span2 { start: 0, end: 1 }), 4);
    let names: Vec<&str> = abi_core::exports().iter().map(|e| e.name()).collect();
    for expected in ["nothing", "zero_args", "renamed_v2", "lifetimes", "custom_error", "many", "nested_add"] {
        assert!(names.contains(&expected), "{expected} missing from {names:?}");
    }
    assert!(!names.contains(&"renamed"));
}
