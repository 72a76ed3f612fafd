//! `Variant[...]` values (`Variant2`...`Variant4`): an argument is the first member that
//! takes it, a value passes as the member it holds, and bind checks accept any member.

use abi_core::{Any, Metadata, Variant2};

/// Doubles an int, repeats a string.
#[abi_core::export_fn]
fn double(x: Variant2<i64, String>) -> Variant2<i64, String> {
    match x {
        Variant2::A(n) => Variant2::A(n * 2),
        Variant2::B(s) => Variant2::B(s.repeat(2)),
    }
}

#[abi_core::import(Doubles)]
extern "C" {
    fn double(x: Variant2<i64, String>) -> Variant2<i64, String>;
    /// One member declared alone binds too.
    #[abi(name = "double")]
    fn double_int(x: i64) -> Variant2<i64, String>;
}

#[abi_core::import(NotAMember)]
extern "C" {
    fn double(x: f64) -> Variant2<i64, String>;
}

#[test]
fn a_variant_is_the_first_member_that_takes_the_value() {
    let int = Any::from_value(Variant2::<i64, String>::A(3)).unwrap();
    assert_eq!(int.to::<i64>().unwrap(), 3, "passed as the member it holds");
    assert_eq!(int.to::<Variant2<String, i64>>().unwrap(), Variant2::B(3));
    let err = Any::from_value(1.5f64).unwrap().to::<Variant2<i64, String>>().unwrap_err();
    assert!(err.to_string().contains("expected Union[int, str], got float"), "{err}");
}

#[test]
fn variants_are_published_and_bound_by_member() {
    let meta = Metadata::parse(abi_core::find_export("double").unwrap().metadata_json()).unwrap();
    assert_eq!(meta.python_signature("double"), "double(x: Union[int, str]) -> Union[int, str]");
    let lib = Doubles::bind_linked().unwrap();
    assert_eq!(lib.double(Variant2::B("ab".into())).unwrap(), Variant2::B("abab".into()));
    assert_eq!(lib.double_int(21).unwrap(), Variant2::A(42));
    let err = NotAMember::bind_linked().expect_err("refused");
    assert!(
        err.message().contains("argument `x` (#0) is declared float but the callee takes Union[int, str]"),
        "{}",
        err.message()
    );
}
