// A derive error is reported once: the traits are still implemented, so exports and
// imports using the struct report nothing more.
#[derive(abi_core::AbiStruct)]
struct Point {
    #[abi(rename = "x coordinate")]
    x: f64,
    y: f64,
}

#[abi_core::export_fn]
fn norm(p: Point) -> f64 {
    (p.x * p.x + p.y * p.y).sqrt()
}

#[abi_core::export_fn]
fn origin() -> Point {
    Point { x: 0.0, y: 0.0 }
}

fn main() {}
