//! Quickstart: export Rust functions through the TVM FFI packed ABI, read their reflection,
//! call them through their C symbols and through typed imports, and handle errors. One
//! process, the embedded runtime, no Python.
//!
//! Run: `cargo run -p abi-examples --bin quickstart`

use abi_core::{Any, AnyView, Error, Result};

/// Adds two numbers.
#[abi_core::export_fn]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// A point in the plane.
#[derive(abi_core::AbiStruct, Debug, Clone, Copy)]
struct Point {
    x: f64,
    y: f64,
}

/// Distance of `p` from the origin; `p` arrives as two argument slots.
#[abi_core::export_fn]
fn norm(#[abi(expand)] p: Point) -> f64 {
    p.x.hypot(p.y)
}

/// Greets someone, refusing empty names.
#[abi_core::export_fn(name = "greet_v2")]
fn greet(name: &str) -> Result<String> {
    if name.is_empty() {
        return Err(Error::value_error("name must not be empty"));
    }
    Ok(format!("Hello, {name}!"))
}

// The same functions seen from the caller's side: typed wrappers, checked when bound.
#[abi_core::import(Demo)]
extern "C" {
    fn add(a: i64, b: i64) -> i64;
    fn norm(x: f64, y: f64) -> f64;
    #[abi(name = "greet_v2")]
    fn greet(name: &str) -> String;
    #[abi(optional)]
    fn shout(text: &str) -> String;
}

fn main() -> Result<()> {
    println!("== Exports linked into this binary, with their compile-time metadata ==");
    for export in abi_core::exports() {
        println!("{}:\n  {}", export.name(), export.metadata_json());
        if !export.doc().is_empty() {
            println!("  doc: {}", export.doc());
        }
    }

    println!("\n== Calling `add` through its packed C symbol ==");
    let add_fn = abi_core::find_export("add").expect("linked").function();
    let (a, b) = (Any::from_value(40i64)?, Any::from_value(2i64)?);
    let sum = add_fn.call_packed(&[a.view(), b.view()])?;
    println!("__tvm_ffi_add(40, 2) = {:?}", sum);

    println!("\n== Calling through typed imports (bound and checked once) ==");
    let demo = Demo::bind_linked()?;
    println!("demo.add(1, 2)      = {}", demo.add(1, 2)?);
    println!("demo.norm(3.0, 4.0) = {}", demo.norm(3.0, 4.0)?);
    println!("demo.greet(\"abi\")   = {:?}", demo.greet("abi")?);
    println!("demo.has_shout()    = {} (optional import, not exported)", demo.has_shout());

    println!("\n== Errors cross the boundary with their kind and a precise message ==");
    match demo.greet("") {
        Err(e) => println!("greet(\"\")           -> {e}"),
        Ok(v) => println!("unexpected: {v}"),
    }
    let wrong = Any::from_value("forty")?;
    match add_fn.call_packed(&[wrong.view(), b.view()]) {
        Err(e) => println!("add(\"forty\", 2)     -> {e}"),
        Ok(v) => println!("unexpected: {v:?}"),
    }
    match add_fn.call_packed(&[AnyView::NONE]) {
        Err(e) => println!("add(None)           -> {e}"),
        Ok(v) => println!("unexpected: {v:?}"),
    }
    Ok(())
}
