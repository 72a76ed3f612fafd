//! Calls a C++ library written with tvm-ffi's own export macros (tests/cpp/cpplib.cc)
//! through the bindings `abi bindgen` wrote for it (generated/cpplib.rs):
//!
//! ```sh
//! abi bindgen libcpplib.so --globals cpplib. -o examples/generated/cpplib.rs
//! cargo run -p abi-examples --bin call_cpp_library -- path/to/libcpplib.so
//! ```
//!
//! scripts/test-cpp-library.sh builds the library and runs this.

#[rustfmt::skip] // as generated
#[path = "generated/cpplib.rs"]
mod cpplib;

use abi_core::{Library, TypedFunction};

fn main() -> abi_core::Result<()> {
    let path = std::env::args().nth(1).expect("usage: call_cpp_library path/to/libcpplib.so");
    // Open the C++ library before any other abi call: it brings libtvm_ffi into the
    // process, and the first abi call settles which runtime this program uses.
    let lib = Library::open(&path)?;
    let cpp = cpplib::Cpplib::bind(&lib)?; // every export checked against its metadata
    let globals = cpplib::CpplibGlobals::bind_globals()?; // and the global it registers

    println!("scale(1.5, 2.0) = {}", cpp.scale(1.5, 2.0)?);
    println!("label(\"a\", Some(3)) = {}", cpp.label("a", Some(3))?);
    println!("cpplib.mul(6, 7) = {}", globals.mul(6, 7)?);
    let inc = TypedFunction::<fn(i64) -> i64>::new(|x| x + 1);
    println!("apply_twice(x + 1, 5) = {}", cpp.apply_twice(inc.as_function().clone(), 5)?);
    let err = cpp.checked(-1).unwrap_err();
    println!("checked(-1) raised {}: {}", err.kind(), err.message());
    Ok(())
}
