// A syntax error in the body is rustc's to report, where it is: the export adds no error
// of its own (it said "can only be applied to a free function" at the next line), and its
// parameters' `#[abi]` options go with it (rustc said "cannot find attribute `abi`").
#[abi_core::export_fn]
fn add(a: i64, #[abi(default = 1)] b: i64) -> i64 {
    let c = a + b
    c
}

fn main() {}
