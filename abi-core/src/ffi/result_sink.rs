//! Where a shim's result goes, as its conversion may ask: the caller's result slot, which
//! holds None on entry. Only the Python door marks it (its None carries the address of a
//! static of this library as payload, which no other caller writes: a host's None has a
//! zero payload, and the type index alone says None), and only when it keeps the GIL for
//! the call; a `String` result is then made straight into a Python `str` by the maker the
//! door registered when it opened, with no Str object between (docs/ABI.md section 13).
//! The mark is on one slot, not on the thread: a nested export's result and the values a
//! body builds are untouched.

use std::sync::OnceLock;

use super::type_index as ti;
use super::RawAny;

/// The mark's address: a marked slot holds None with this static's address as payload.
static PYTHON_MARK: u8 = 0;

/// Makes a Python `str` of a text, as an opaque pointer value only the door reads back.
pub type StrMaker = fn(&str) -> Option<RawAny>;

/// The door's maker, registered when a package opens it.
static PYTHON_STR: OnceLock<StrMaker> = OnceLock::new();

/// A shim's result slot, as a conversion sees it.
#[derive(Debug, Clone, Copy)]
pub struct ResultSink(*const RawAny);

impl ResultSink {
    /// The sink of `slot` (the shim's result pointer, checked non-null by the shim).
    #[inline(always)]
    pub fn new(slot: *const RawAny) -> ResultSink {
        ResultSink(slot)
    }

    /// Whether the Python door marked the slot: it called the shim with the GIL held and
    /// takes a Python `str` as the result.
    #[inline(always)]
    pub fn is_python(self) -> bool {
        // SAFETY: a non-null sink is the shim's result slot, readable for the call (the
        // packed calling convention).
        !self.0.is_null() && is_python_mark(unsafe { &*self.0 })
    }

    /// `s` as the door's Python `str`, when the slot is marked and the maker made one.
    #[inline]
    pub fn python_str(self, s: &str) -> Option<RawAny> {
        if !self.is_python() {
            return None;
        }
        PYTHON_STR.get().and_then(|make| make(s))
    }
}

/// The marked None the door writes into its result slot before a call.
pub fn python_mark() -> RawAny {
    RawAny::from_ptr(ti::NONE, core::ptr::addr_of!(PYTHON_MARK).cast_mut().cast())
}

/// Whether `slot` holds the door's marked None.
#[inline(always)]
fn is_python_mark(slot: &RawAny) -> bool {
    slot.type_index == ti::NONE && core::ptr::eq(slot.ptr().cast_const(), core::ptr::addr_of!(PYTHON_MARK).cast())
}

/// Registers the door's maker (once: the first opening's stands).
pub fn register_python_str(make: StrMaker) {
    let _ = PYTHON_STR.set(make);
}
