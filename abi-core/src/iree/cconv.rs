//! IREE's calling convention for scalars: which Rust types cross (`IreeArg`, `IreeReturn`),
//! their letters (`i` i32, `I` i64, `f` f32, `F` f64; bool, i8 and i16 promoted to `i`),
//! the canonical string (`0ii_i`, `0v_v`), and the buffer layout (natural alignment, the
//! total padded to the largest alignment), all computed at compile time.

use crate::value::error::{Error, Result};

/// A value's slot in an argument or result buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IreeKind {
    /// `i`: i32 (bool, i8 and i16 are promoted to it).
    I32,
    /// `I`: i64.
    I64,
    /// `f`: f32.
    F32,
    /// `F`: f64.
    F64,
}

impl IreeKind {
    /// The calling-convention letter.
    pub const fn letter(self) -> u8 {
        match self {
            IreeKind::I32 => b'i',
            IreeKind::I64 => b'I',
            IreeKind::F32 => b'f',
            IreeKind::F64 => b'F',
        }
    }

    /// Size in bytes, which is also the alignment.
    pub const fn size(self) -> usize {
        match self {
            IreeKind::I32 | IreeKind::F32 => 4,
            IreeKind::I64 | IreeKind::F64 => 8,
        }
    }
}

/// A type an IREE function takes: decoded from its slot's bits (zero-extended to 64).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a parameter of an `iree` export",
    label = "IREE's calling convention carries bool, i8, i16, i32, i64, f32 and f64 only",
    note = "without linking IREE a module cannot take strings, tensors, structs or callbacks, and the convention has no unsigned integers or half floats"
)]
pub trait IreeArg: Sized {
    /// Its slot.
    const KIND: IreeKind;
    /// The value from its slot's bits; a message when they are out of the type's range.
    fn from_bits(bits: u64) -> core::result::Result<Self, String>;
}

/// A scalar an IREE function returns: encoded into its slot's bits.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a result of an `iree` export",
    label = "IREE's calling convention carries bool, i8, i16, i32, i64, f32 and f64 only",
    note = "results are a scalar, a tuple of scalars, `()`, or an `abi_core::Result` of one of those"
)]
pub trait IreeValue {
    /// Its slot.
    const KIND: IreeKind;
    /// Its slot's bits.
    fn into_bits(self) -> u64;
}

/// What an IREE function returns: `()`, a scalar, a tuple of scalars (several results), or
/// an `abi_core::Result` of one of those (an `Err` becomes a failed status).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the result of an `iree` export",
    label = "IREE's calling convention carries bool, i8, i16, i32, i64, f32 and f64 only",
    note = "results are a scalar, a tuple of scalars, `()`, or an `abi_core::Result` of one of those"
)]
pub trait IreeReturn {
    /// The result slots.
    const KINDS: &'static [IreeKind];
    /// Writes each result's bits into `out` (`KINDS.len()` entries).
    fn into_slots(self, out: &mut [u64]) -> Result<()>;
}

macro_rules! scalar {
    ($t:ty, $kind:ident, |$b:ident| $from:expr, |$v:ident| $into:expr) => {
        impl IreeArg for $t {
            const KIND: IreeKind = IreeKind::$kind;
            #[inline(always)]
            fn from_bits($b: u64) -> core::result::Result<$t, String> {
                $from
            }
        }
        impl IreeValue for $t {
            const KIND: IreeKind = IreeKind::$kind;
            #[inline(always)]
            fn into_bits(self) -> u64 {
                let $v = self;
                $into
            }
        }
        impl IreeReturn for $t {
            const KINDS: &'static [IreeKind] = &[IreeKind::$kind];
            #[inline(always)]
            fn into_slots(self, out: &mut [u64]) -> Result<()> {
                out[0] = self.into_bits();
                Ok(())
            }
        }
    };
}

/// An i32 slot narrowed to a smaller integer, or the message naming the value.
fn narrow<T: TryFrom<i32>>(bits: u64, name: &str) -> core::result::Result<T, String> {
    let v = bits as u32 as i32;
    T::try_from(v).map_err(|_| format!("{v} does not fit {name}"))
}

scalar!(i32, I32, |b| Ok(b as u32 as i32), |v| v as u32 as u64);
scalar!(i64, I64, |b| Ok(b as i64), |v| v as u64);
scalar!(f32, F32, |b| Ok(f32::from_bits(b as u32)), |v| v.to_bits() as u64);
scalar!(f64, F64, |b| Ok(f64::from_bits(b)), |v| v.to_bits());
scalar!(i8, I32, |b| narrow(b, "i8"), |v| v as i32 as u32 as u64);
scalar!(i16, I32, |b| narrow(b, "i16"), |v| v as i32 as u32 as u64);
scalar!(
    bool,
    I32,
    |b| match b as u32 as i32 {
        0 => Ok(false),
        1 => Ok(true),
        v => Err(format!("{v} is not a bool (0 or 1)")),
    },
    |v| u64::from(v)
);

impl IreeReturn for () {
    const KINDS: &'static [IreeKind] = &[];
    #[inline(always)]
    fn into_slots(self, _: &mut [u64]) -> Result<()> {
        Ok(())
    }
}

impl<T: IreeReturn> IreeReturn for Result<T> {
    const KINDS: &'static [IreeKind] = T::KINDS;
    #[inline(always)]
    fn into_slots(self, out: &mut [u64]) -> Result<()> {
        self?.into_slots(out)
    }
}

macro_rules! tuple {
    ($($t:ident $i:tt),+) => {
        impl<$($t: IreeValue),+> IreeReturn for ($($t,)+) {
            const KINDS: &'static [IreeKind] = &[$($t::KIND),+];
            #[inline(always)]
            fn into_slots(self, out: &mut [u64]) -> Result<()> {
                $(out[$i] = self.$i.into_bits();)+
                Ok(())
            }
        }
    };
}

tuple!(A 0);
tuple!(A 0, B 1);
tuple!(A 0, B 1, C 2);
tuple!(A 0, B 1, C 2, D 3);
tuple!(A 0, B 1, C 2, D 3, E 4);
tuple!(A 0, B 1, C 2, D 3, E 4, F 5);
tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);

/// The offsets of `N` slots of `kinds` laid out with natural alignment, and the buffer's
/// size (padded to the largest alignment).
pub const fn layout<const N: usize>(kinds: &[IreeKind]) -> ([usize; N], usize) {
    assert!(kinds.len() == N, "slot count mismatch");
    let mut offsets = [0usize; N];
    let (mut at, mut align, mut i) = (0usize, 1usize, 0);
    while i < N {
        let size = kinds[i].size();
        at = at.next_multiple_of(size);
        offsets[i] = at;
        at += size;
        if size > align {
            align = size;
        }
        i += 1;
    }
    (offsets, at.next_multiple_of(align))
}

/// Length of the canonical calling convention of `args` and `results`.
pub const fn cconv_len(args: &[IreeKind], results: &[IreeKind]) -> usize {
    1 + letter_count(args.len()) + 1 + letter_count(results.len())
}

/// Letters for `n` slots: `v` stands for none.
const fn letter_count(n: usize) -> usize {
    if n == 0 {
        1
    } else {
        n
    }
}

/// The canonical calling convention: `0`, argument letters (`v` for none), `_`, result
/// letters (`v` for none).
pub const fn cconv<const L: usize>(args: &[IreeKind], results: &[IreeKind]) -> [u8; L] {
    let mut out = [0u8; L];
    out[0] = b'0';
    let mut at = write_letters(&mut out, 1, args);
    out[at] = b'_';
    at = write_letters(&mut out, at + 1, results);
    assert!(at == L, "calling convention length mismatch");
    out
}

const fn write_letters(out: &mut [u8], mut at: usize, kinds: &[IreeKind]) -> usize {
    if kinds.is_empty() {
        out[at] = b'v';
        return at + 1;
    }
    let mut i = 0;
    while i < kinds.len() {
        out[at] = kinds[i].letter();
        at += 1;
        i += 1;
    }
    at
}

/// The bits of the slot of `kind` at `offset` (zero-extended).
///
/// # Safety
/// `buf` has at least `offset + kind.size()` readable bytes.
#[inline(always)]
pub unsafe fn read_slot(buf: *const u8, offset: usize, kind: IreeKind) -> u64 {
    // SAFETY: the caller's contract; unaligned reads need no alignment from the host.
    unsafe {
        match kind {
            IreeKind::I32 | IreeKind::F32 => u64::from(buf.add(offset).cast::<u32>().read_unaligned()),
            IreeKind::I64 | IreeKind::F64 => buf.add(offset).cast::<u64>().read_unaligned(),
        }
    }
}

/// Writes the bits of the slot of `kind` at `offset`.
///
/// # Safety
/// `buf` has at least `offset + kind.size()` writable bytes.
#[inline(always)]
pub unsafe fn write_slot(buf: *mut u8, offset: usize, kind: IreeKind, bits: u64) {
    // SAFETY: the caller's contract.
    unsafe {
        match kind {
            IreeKind::I32 | IreeKind::F32 => buf.add(offset).cast::<u32>().write_unaligned(bits as u32),
            IreeKind::I64 | IreeKind::F64 => buf.add(offset).cast::<u64>().write_unaligned(bits),
        }
    }
}

/// The error of an argument whose bits do not decode.
#[cold]
pub fn bad_arg(name: &str, index: usize, message: String) -> Error {
    Error::value_error(format!("argument `{name}` (#{index}): {message}"))
}
