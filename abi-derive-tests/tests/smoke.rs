use abi_core::{Any, AnyView, RawAny};

/// Adds two integers.
#[abi_core::export_fn]
pub fn add(a: i64, b: i64) -> i64 {
    a + b
}

#[abi_core::export_fn(name = "greet_v2")]
pub fn greet(name: &str) -> abi_core::Result<String> {
    Ok(format!("hello, {name}"))
}

extern "C" {
    fn __tvm_ffi_add(h: *mut core::ffi::c_void, args: *const RawAny, n: i32, r: *mut RawAny) -> i32;
}

#[test]
fn smoke() {
    let a = Any::from_value(1i64).unwrap();
    let b = Any::from_value(2i64).unwrap();
    let args = [*a.as_raw(), *b.as_raw()];
    let mut r = RawAny::NONE;
    let rc = unsafe { __tvm_ffi_add(core::ptr::null_mut(), args.as_ptr(), 2, &mut r) };
    assert_eq!(rc, 0);
    let r = unsafe { Any::from_raw(r) };
    assert_eq!(r.to::<i64>().unwrap(), 3);
    for e in abi_core::exports() {
        println!("{} {}", e.name(), e.metadata_json());
    }
    let _ = AnyView::NONE;
}
