//! The compile-time check that an integer default (`#[abi(default = 300)]`) fits its
//! parameter's type: the macro asserts [`int_default_fits`] in a constant spanned on the
//! literal, since rustc's own range lint does not reach literals in generated code.

/// The values a parameter type takes from an integer default.
#[diagnostic::on_unimplemented(
    message = "an integer default needs an integer or float parameter, not `{Self}`",
    label = "this parameter's default is an integer"
)]
pub trait IntDefault {
    /// The smallest value.
    const MIN: i128;
    /// The largest value.
    const MAX: i128;
}

macro_rules! int_default {
    ($($t:ty),*) => {$(
        impl IntDefault for $t {
            const MIN: i128 = <$t>::MIN as i128;
            const MAX: i128 = <$t>::MAX as i128;
        }
    )*};
}
int_default!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

// A float parameter with an integer literal is rustc's type error; no range to add.
impl IntDefault for f32 {
    const MIN: i128 = i128::MIN;
    const MAX: i128 = i128::MAX;
}
impl IntDefault for f64 {
    const MIN: i128 = i128::MIN;
    const MAX: i128 = i128::MAX;
}

/// Whether `value` is a value of `T`.
pub const fn int_default_fits<T: IntDefault>(value: i128) -> bool {
    value >= T::MIN && value <= T::MAX
}
