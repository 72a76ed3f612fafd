//! IREE's calling convention: which Rust types cross (`IreeArg`, `IreeReturn`), their
//! letters (`i` i32, `I` i64, `f` f32, `F` f64, `r` a reference; bool, i8 and i16 promoted
//! to `i`; tensors are `r`, see `tensors`), the canonical string (`0ii_i`, `0r_f`), and the
//! buffer layout (natural alignment, the total padded to the largest alignment), all
//! computed at compile time.

use crate::iree::hal::HalCall;
use crate::iree::refs::{RawRef, VmRef};
use crate::iree::status::Failure;
use crate::value::error::Error;

/// A value's slot in an argument or result buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IreeKind {
    /// `i`: i32 (bool, i8 and i16 are promoted to it; results are sign-extended, bool 0/1).
    I32,
    /// `I`: i64.
    I64,
    /// `f`: f32.
    F32,
    /// `F`: f64.
    F64,
    /// `r`: a reference (`iree_vm_ref_t`, 16 bytes): tensors travel as `!hal.buffer_view`.
    Ref,
}

impl IreeKind {
    /// The calling-convention letter.
    pub const fn letter(self) -> u8 {
        match self {
            IreeKind::I32 => b'i',
            IreeKind::I64 => b'I',
            IreeKind::F32 => b'f',
            IreeKind::F64 => b'F',
            IreeKind::Ref => b'r',
        }
    }

    /// Size in bytes.
    pub const fn size(self) -> usize {
        match self {
            IreeKind::I32 | IreeKind::F32 => 4,
            IreeKind::I64 | IreeKind::F64 => 8,
            IreeKind::Ref => 16,
        }
    }

    /// Alignment in bytes.
    pub const fn align(self) -> usize {
        match self {
            IreeKind::Ref => 8,
            k => k.size(),
        }
    }
}

/// A type an IREE function takes: a scalar decoded from its slot, or a tensor checked and
/// mapped from the `!hal.buffer_view` its slot refers to. What the call keeps while the
/// function runs (a mapping) is `Held`; the parameter borrows it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a parameter of an `iree` export",
    label = "IREE's calling convention carries bool, i8, i16, i32, i64, f32, f64 and tensors (`HostTensor<T, N>`)",
    note = "without linking IREE a module cannot take strings (nor fieldless enums, which cross as strings), structs or callbacks, the convention has no unsigned integers or half floats, and program tensors are read-only (`HostTensor`, not `HostTensorMut`)"
)]
pub trait IreeArg<'a>: Sized {
    /// Its slot.
    const KIND: IreeKind;
    /// What the call holds for it while the function runs.
    type Held;
    /// Reads its slot.
    ///
    /// # Safety
    /// `slot` has `KIND.size()` readable bytes, valid for the call `cx` belongs to.
    unsafe fn hold(cx: &HalCall<'_>, slot: *const u8) -> core::result::Result<Self::Held, Failure>;
    /// The parameter, borrowing what was held.
    fn view(held: &'a mut Self::Held) -> core::result::Result<Self, Failure>;
}

/// A scalar an IREE function takes: decoded from its slot's bits (zero-extended to 64).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a parameter of an `iree` export",
    label = "IREE's calling convention carries bool, i8, i16, i32, i64, f32, f64 and tensors (`HostTensor<T, N>`)",
    note = "without linking IREE a module cannot take strings (nor fieldless enums, which cross as strings), structs or callbacks, the convention has no unsigned integers or half floats, and program tensors are read-only (`HostTensor`, not `HostTensorMut`)"
)]
pub trait IreeScalar: Sized + Copy {
    /// Its slot.
    const KIND: IreeKind;
    /// The value from its slot's bits; a message when they are out of the type's range.
    fn from_bits(bits: u64) -> core::result::Result<Self, String>;
}

/// What a result slot receives: bits, or a reference moved to the caller. Plain data, so
/// the scalar path has nothing to drop: a reference made for a call that then fails is
/// released by [`release_slots`].
#[derive(Clone, Copy, Debug)]
pub enum Slot {
    /// A scalar's bits.
    Bits(u64),
    /// An owned reference (a tensor's buffer view).
    Ref(RawRef),
}

/// Releases the references among `slots` (results made before a later one failed).
#[cold]
pub fn release_slots(slots: &[Slot]) {
    for slot in slots {
        if let Slot::Ref(r) = *slot {
            // SAFETY: a reference `into_slot` made and nobody received.
            drop(unsafe { VmRef::from_owned(r) });
        }
    }
}

/// A value an IREE function returns: a scalar encoded into its slot's bits, or a tensor
/// copied into a new buffer view on the program's device.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a result of an `iree` export",
    label = "IREE's calling convention carries bool, i8, i16, i32, i64, f32, f64 and tensors (`abi_core::Tensor`)",
    note = "results are a scalar, a `Tensor`, a tuple of those, `()`, or a `Result` of one of those whose error converts to `abi_core::Error`"
)]
pub trait IreeValue {
    /// Its slot.
    const KIND: IreeKind;
    /// Its slot's content.
    fn into_slot(self, cx: &HalCall<'_>) -> core::result::Result<Slot, Failure>;
}

/// What an IREE function returns: `()`, a scalar or tensor, a tuple of those (several
/// results), or an `abi_core::Result` of one of those (an `Err` becomes a failed status).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the result of an `iree` export",
    label = "IREE's calling convention carries bool, i8, i16, i32, i64, f32, f64 and tensors (`abi_core::Tensor`)",
    note = "results are a scalar, a `Tensor`, a tuple of those, `()`, or a `Result` of one of those whose error converts to `abi_core::Error`; strings and fieldless enums (which cross as strings) are not"
)]
pub trait IreeReturn {
    /// The result slots.
    const KINDS: &'static [IreeKind];
    /// Each result's slot content into `out` (`KINDS.len()` entries), all or none: a
    /// failure drops (releases) the references already made.
    fn into_slots(self, cx: &HalCall<'_>, out: &mut [Slot]) -> core::result::Result<(), Failure>;
}

impl<'a, T: IreeScalar> IreeArg<'a> for T {
    const KIND: IreeKind = <T as IreeScalar>::KIND;
    type Held = T;
    #[inline(always)]
    unsafe fn hold(_: &HalCall<'_>, slot: *const u8) -> core::result::Result<T, Failure> {
        // SAFETY: the caller's contract.
        let bits = unsafe { read_slot(slot, 0, <T as IreeScalar>::KIND) };
        T::from_bits(bits).map_err(|m| Failure::Error(Error::value_error(m)))
    }
    #[inline(always)]
    fn view(held: &'a mut T) -> core::result::Result<T, Failure> {
        Ok(*held)
    }
}

/// `IreeReturn` for a type that is one result.
macro_rules! single_result {
    ($t:ty) => {
        impl IreeReturn for $t {
            const KINDS: &'static [IreeKind] = &[<$t as IreeValue>::KIND];
            #[inline(always)]
            fn into_slots(self, cx: &HalCall<'_>, out: &mut [Slot]) -> core::result::Result<(), Failure> {
                out[0] = self.into_slot(cx)?;
                Ok(())
            }
        }
    };
}
pub(crate) use single_result;

macro_rules! scalar {
    ($t:ty, $kind:ident, |$b:ident| $from:expr, |$v:ident| $into:expr) => {
        impl IreeScalar for $t {
            const KIND: IreeKind = IreeKind::$kind;
            #[inline(always)]
            fn from_bits($b: u64) -> core::result::Result<$t, String> {
                $from
            }
        }
        impl IreeValue for $t {
            const KIND: IreeKind = IreeKind::$kind;
            #[inline(always)]
            fn into_slot(self, _: &HalCall<'_>) -> core::result::Result<Slot, Failure> {
                let $v = self;
                Ok(Slot::Bits($into))
            }
        }
        single_result!($t);
    };
}

/// An i32 slot narrowed to a `bits`-wide integer. IREE promotes i8 and i16 to i32 without
/// saying how: its VM zero-extends (-3 as i8 arrives as 253), C callers sign-extend, so both
/// spellings of the narrow value are accepted; anything wider is refused with the value named.
fn narrow(bits: u64, width: u32) -> core::result::Result<i32, String> {
    let v = bits as u32 as i32;
    let (min, max_unsigned) = (-(1i32 << (width - 1)), (1i32 << width) - 1);
    if v < min || v > max_unsigned {
        return Err(format!("{v} does not fit i{width}"));
    }
    // Sign-extend the low `width` bits.
    let shift = 32 - width;
    Ok((v << shift) >> shift)
}

scalar!(i32, I32, |b| Ok(b as u32 as i32), |v| v as u32 as u64);
scalar!(i64, I64, |b| Ok(b as i64), |v| v as u64);
scalar!(f32, F32, |b| Ok(f32::from_bits(b as u32)), |v| v.to_bits() as u64);
scalar!(f64, F64, |b| Ok(f64::from_bits(b)), |v| v.to_bits());
scalar!(i8, I32, |b| narrow(b, 8).map(|v| v as i8), |v| v as i32 as u32 as u64);
scalar!(i16, I32, |b| narrow(b, 16).map(|v| v as i16), |v| v as i32 as u32 as u64);
scalar!(
    bool,
    I32,
    // An i1 arrives zero-extended (1) or sign-extended (-1).
    |b| match b as u32 as i32 {
        0 => Ok(false),
        1 | -1 => Ok(true),
        v => Err(format!("{v} is not a bool (0, or 1 / -1)")),
    },
    |v| u64::from(v)
);

impl IreeReturn for () {
    const KINDS: &'static [IreeKind] = &[];
    #[inline(always)]
    fn into_slots(self, _: &HalCall<'_>, _: &mut [Slot]) -> core::result::Result<(), Failure> {
        Ok(())
    }
}

/// A `Result` whose error converts to [`Error`] (as an export's may): an `Err` is a failed
/// status of its kind.
impl<T: IreeReturn, E: Into<Error>> IreeReturn for core::result::Result<T, E> {
    const KINDS: &'static [IreeKind] = T::KINDS;
    #[inline(always)]
    fn into_slots(self, cx: &HalCall<'_>, out: &mut [Slot]) -> core::result::Result<(), Failure> {
        match self {
            Ok(value) => value.into_slots(cx, out),
            Err(e) => Err(Failure::Error(e.into())),
        }
    }
}

macro_rules! tuple {
    ($($t:ident $i:tt),+) => {
        impl<$($t: IreeValue),+> IreeReturn for ($($t,)+) {
            const KINDS: &'static [IreeKind] = &[$($t::KIND),+];
            #[inline(always)]
            fn into_slots(self, cx: &HalCall<'_>, out: &mut [Slot]) -> core::result::Result<(), Failure> {
                $(out[$i] = self.$i.into_slot(cx)?;)+
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
        let (size, a) = (kinds[i].size(), kinds[i].align());
        at = at.next_multiple_of(a);
        offsets[i] = at;
        at += size;
        if a > align {
            align = a;
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

/// The bits of the scalar slot of `kind` at `offset` (zero-extended).
///
/// # Safety
/// `buf` has at least `offset + kind.size()` readable bytes.
#[inline(always)]
pub unsafe fn read_slot(buf: *const u8, offset: usize, kind: IreeKind) -> u64 {
    // SAFETY: the caller's contract; unaligned reads need no alignment from the host.
    unsafe {
        match kind {
            IreeKind::I32 | IreeKind::F32 => u64::from(buf.add(offset).cast::<u32>().read_unaligned()),
            IreeKind::I64 | IreeKind::F64 | IreeKind::Ref => buf.add(offset).cast::<u64>().read_unaligned(),
        }
    }
}

/// Writes a result slot of `kind` at `offset`; a reference moves to the caller.
///
/// # Safety
/// `buf` has at least `offset + kind.size()` writable bytes, and `slot` matches `kind`.
#[inline(always)]
pub unsafe fn write_slot(buf: *mut u8, offset: usize, kind: IreeKind, slot: Slot) {
    // SAFETY: the caller's contract.
    unsafe {
        match (kind, slot) {
            (IreeKind::I32 | IreeKind::F32, Slot::Bits(bits)) => {
                buf.add(offset).cast::<u32>().write_unaligned(bits as u32)
            }
            (IreeKind::I64 | IreeKind::F64, Slot::Bits(bits)) => buf.add(offset).cast::<u64>().write_unaligned(bits),
            (_, Slot::Ref(r)) => buf.add(offset).cast::<RawRef>().write_unaligned(r),
            (IreeKind::Ref, Slot::Bits(_)) => unreachable!("a reference slot gets a reference"),
        }
    }
}

/// The failure of an argument that does not convert: its error names the argument; a HAL
/// status passes through.
#[cold]
pub fn bad_arg(name: &str, index: usize, failure: Failure) -> Failure {
    match failure {
        Failure::Error(e) => {
            Failure::Error(Error::new(e.kind(), format!("argument `{name}` (#{index}): {}", e.message())))
        }
        status => status,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrow_integers_accept_both_extensions_and_refuse_wider_values() {
        assert_eq!(i8::from_bits(253), Ok(-3));
        assert_eq!(i8::from_bits((-3i32) as u32 as u64), Ok(-3));
        assert_eq!(i8::from_bits(127), Ok(127));
        assert_eq!(i8::from_bits(300), Err("300 does not fit i8".to_owned()));
        assert_eq!(i8::from_bits((-129i32) as u32 as u64), Err("-129 does not fit i8".to_owned()));
        assert_eq!(i16::from_bits(65535), Ok(-1));
        assert_eq!(i16::from_bits(70000), Err("70000 does not fit i16".to_owned()));
        assert_eq!(bool::from_bits(u32::MAX as u64), Ok(true));
        assert_eq!(bool::from_bits(2), Err("2 is not a bool (0, or 1 / -1)".to_owned()));
        // Results are sign-extended into the i32 slot.
        let imports = crate::iree::hal::Resolved::new(true);
        let cx = HalCall::new(&imports, core::ptr::null_mut());
        assert!(matches!((-3i8).into_slot(&cx), Ok(Slot::Bits(b)) if b == u64::from((-3i32) as u32)));
    }

    #[test]
    fn layout_and_calling_convention_follow_the_grammar() {
        use IreeKind::*;
        assert_eq!(layout::<3>(&[I32, I64, F32]), ([0, 8, 16], 24));
        assert_eq!(layout::<2>(&[F32, I64]), ([0, 8], 16));
        assert_eq!(layout::<0>(&[]), ([], 0));
        // A reference is 16 bytes, 8-aligned (`iree_vm_ref_t`).
        assert_eq!(layout::<3>(&[Ref, I64, I32]), ([0, 16, 24], 32));
        assert_eq!(layout::<2>(&[I32, Ref]), ([0, 8], 24));
        assert_eq!(&cconv::<4>(&[Ref], &[F32]), b"0r_f");
        assert_eq!(&cconv::<5>(&[I32, I32], &[I32]), b"0ii_i");
        assert_eq!(&cconv::<7>(&[I32, I64, F32], &[F32, I64]), b"0iIf_fI");
        assert_eq!(cconv_len(&[], &[]), 4);
        assert_eq!(&cconv::<4>(&[], &[]), b"0v_v");
        assert_eq!(&cconv::<5>(&[], &[I32, I32]), b"0v_ii");
    }
}
