//! `#[derive(AbiError)]`: each variant of an error enum is an error kind, prefixed with the
//! crate's name, raised with the error's `Display` text; the kinds are published in the
//! class records section.

use abi_core::{AbiError, Error};
use abi_derive_tests::call_export as call;

/// What a kernel of this library refuses.
#[derive(Debug, thiserror::Error, abi_core::AbiError)]
pub enum KernelError {
    /// The input's shape does not suit the kernel.
    #[error("bad shape: {0}")]
    #[abi(base = ValueError)]
    BadShape(String),
    /// An index outside its range.
    #[error("{index} is outside 0..{len}")]
    #[abi(base = IndexError)]
    OutOfRange { index: i64, len: i64 },
    /// Anything else.
    #[error("internal: {0}")]
    Internal(String),
    /// Renamed to a kind of its own choosing.
    #[error("gone")]
    #[abi(kind = "errors_test.Gone")]
    Gone,
}

#[abi_core::export_fn]
pub fn kernel_at(index: i64, len: i64) -> Result<i64, KernelError> {
    match (index, len) {
        (_, 0) => Err(KernelError::BadShape("empty".into())),
        (i, n) if i < 0 || i >= n => Err(KernelError::OutOfRange { index: i, len: n }),
        (-7, _) => Err(KernelError::Internal("never".into())),
        (99, _) => Err(KernelError::Gone),
        (i, _) => Ok(i * 2),
    }
}

fn v<T: abi_core::IntoAny>(x: T) -> abi_core::Any {
    abi_core::Any::from_value(x).unwrap()
}

#[test]
fn each_variant_raises_its_kind_with_its_display_text() {
    assert_eq!(call("kernel_at", &[v(1i64), v(3i64)]).unwrap().to::<i64>().unwrap(), 2);
    let e = call("kernel_at", &[v(0i64), v(0i64)]).unwrap_err();
    assert_eq!((e.kind(), e.message()), ("errors.KernelError.BadShape", "bad shape: empty"));
    let e = call("kernel_at", &[v(5i64), v(3i64)]).unwrap_err();
    assert_eq!((e.kind(), e.message()), ("errors.KernelError.OutOfRange", "5 is outside 0..3"));
    let e = call("kernel_at", &[v(99i64), v(100i64)]).unwrap_err();
    assert_eq!((e.kind(), e.message()), ("errors_test.Gone", "gone"));
    // Argument errors keep naming the function.
    let e = call("kernel_at", &[v("x"), v(3i64)]).unwrap_err();
    assert_eq!(e.kind(), "TypeError");
    assert!(e.message().contains("kernel_at"), "{}", e.message());
}

#[test]
fn the_kinds_are_described_in_declaration_order() {
    let errors = KernelError::ERRORS;
    assert_eq!(errors.name, "KernelError");
    assert_eq!(errors.doc, "What a kernel of this library refuses.");
    let kinds: Vec<(&str, &str, &str)> = errors.kinds.iter().map(|k| (k.variant, k.kind(), k.base)).collect();
    assert_eq!(
        kinds,
        [
            ("BadShape", "errors.KernelError.BadShape", "ValueError"),
            ("OutOfRange", "errors.KernelError.OutOfRange", "IndexError"),
            ("Internal", "errors.KernelError.Internal", "RuntimeError"),
            ("Gone", "errors_test.Gone", "RuntimeError"),
        ]
    );
    assert_eq!(KernelError::Internal("x".into()).kind(), "errors.KernelError.Internal");
    let e: Error = KernelError::OutOfRange { index: 1, len: 0 }.into();
    assert_eq!(e.kind(), "errors.KernelError.OutOfRange");
    assert_eq!(errors.kinds[1].doc, "An index outside its range.");
}
