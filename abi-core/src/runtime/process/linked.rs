//! Reading the registries the linker assembles (`#[linkme::distributed_slice]`): exports,
//! object methods, IREE functions.

use linkme::DistributedSlice;

/// The elements the linker gathered into the distributed slice `slice` returns. Under Miri
/// none, and `slice` is never called: Miri cannot read the section bounds linkme's extern
/// statics name (even taking the slice's address reads them; rust-lang/miri#4171), so a
/// Miri run sees a binary with nothing registered (scripts/test-miri.sh lists this).
#[inline]
pub fn linked<T>(slice: impl FnOnce() -> &'static DistributedSlice<[T]>) -> &'static [T] {
    if cfg!(miri) {
        return &[];
    }
    slice().static_slice()
}
