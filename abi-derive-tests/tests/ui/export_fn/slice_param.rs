#[abi_core::export_fn]
fn total(x: &[f32]) -> f32 {
    x.iter().sum()
}

#[abi_core::export_fn]
fn count(x: &[i64]) -> usize {
    x.len()
}

#[abi_core::export_fn]
fn fill(x: &mut [f32]) {
    x.fill(0.0);
}

// Bytes stay a supported parameter.
#[abi_core::export_fn]
fn byte_count(b: &[u8]) -> usize {
    b.len()
}

fn main() {}
