// The derive names nothing from the prelude and raises no warning of its own.
#![deny(warnings)]
#![no_implicit_prelude]

::core::include!("shared/shadows.rs");

#[derive(::abi_core::AbiStruct, Debug, PartialEq)]
pub struct Point {
    pub x: f64,
    #[abi(rename = "why")]
    pub y: f64,
}

#[derive(::abi_core::AbiStruct, Debug, PartialEq)]
pub struct Tagged(pub ::std::string::String, pub Point);

#[::abi_core::export_fn]
pub fn flip(#[abi(expand)] p: Point) -> Point {
    Point { x: p.y, y: p.x }
}

#[::abi_core::export_fn]
pub fn tag(t: Tagged) -> Tagged {
    t
}

fn main() {
    let p = flip(Point { x: 1.0, y: 2.0 });
    ::std::assert_eq!(p, Point { x: 2.0, y: 1.0 });
    let t = tag(Tagged(::std::string::ToString::to_string("a"), p));
    ::std::assert_eq!(t.0, "a");
}
