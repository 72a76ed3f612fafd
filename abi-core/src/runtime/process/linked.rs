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

/// `items` sorted by the name `name` gives them: registries are listed and registered by
/// name, since the linker's order of a section varies between builds. The sort orders
/// (name, index) pairs, so every registry shares one copy of it in the library.
pub fn sorted_by_name<T: ?Sized>(
    items: impl Iterator<Item = &'static T>,
    name: impl Fn(&T) -> &'static str,
) -> Vec<&'static T> {
    let items: Vec<&'static T> = items.collect();
    let mut order: Vec<(&'static str, usize)> = items.iter().enumerate().map(|(i, t)| (name(t), i)).collect();
    order.sort_unstable();
    order.into_iter().map(|(_, i)| items[i]).collect()
}

#[cfg(test)]
mod tests {
    use super::sorted_by_name;

    #[test]
    fn sorts_by_name_keeping_every_item() {
        static ITEMS: [(&str, u8); 4] = [("b", 1), ("a", 2), ("c", 3), ("a", 4)];
        let sorted = sorted_by_name(ITEMS.iter(), |t| t.0);
        assert_eq!(sorted.iter().map(|t| t.1).collect::<Vec<_>>(), [2, 4, 1, 3]);
    }
}
