//! The overlap check an export's shim runs before converting its arguments, when two of
//! its parameters have conflicting accesses (`reflect::Access`): a `HostTensorMut` must
//! share no memory with another tensor argument, and a `HostTensor`'s slice none with an
//! argument that can write through cells. It compares the byte ranges the tensors' elements
//! span (strides of either sign; a tensor with no element spans none). Tensors inside
//! containers (a `Vec<TensorView>`) and memory other holders write during the call are
//! outside what it sees: the contract in the docs.

use crate::convert::FromArg;
use crate::reflect::{leaf_count, Access, FnDesc};
use crate::runtime::calls::boundary::CallError;
use crate::tensor::TensorView;
use crate::value::any::AnyView;

/// Refuses an export's call when two tensor arguments whose parameters' accesses conflict
/// share memory, naming the slot that writes (or holds the shared slice) and the other.
#[cold]
#[inline(never)]
pub fn check_overlaps(desc: &FnDesc, slots: &[AnyView<'_>]) -> Result<(), CallError> {
    let mut accesses = Vec::with_capacity(slots.len());
    for p in desc.params {
        match p.expand {
            true => accesses.extend((0..leaf_count(p.ty)).map(|_| Access::None)),
            false => accesses.push(p.access),
        }
    }
    check_slot_overlaps(&accesses, slots)
}

/// The same for slots whose accesses are `accesses` (a typed closure's arguments).
#[cold]
#[inline(never)]
pub fn check_slot_overlaps(accesses: &[Access], slots: &[AnyView<'_>]) -> Result<(), CallError> {
    // (slot, access, bytes) of every slot that may hold a tensor and holds one with elements.
    let tensors: Vec<_> = accesses
        .iter()
        .zip(slots)
        .enumerate()
        .filter(|(_, (&access, _))| access != Access::None)
        .filter_map(|(slot, (&access, v))| {
            let bytes = TensorView::from_arg(v).ok()?.byte_range()?;
            Some((slot as u32, access, bytes))
        })
        .collect();
    for (i, (a_slot, a, a_bytes)) in tensors.iter().enumerate() {
        for (b_slot, b, b_bytes) in &tensors[i + 1..] {
            let overlap = a_bytes.start < b_bytes.end && b_bytes.start < a_bytes.end;
            if overlap && a.conflicts(*b) {
                // Name the stricter side first: the one that writes, or holds the slice.
                let (slot, other) = if rank(*a) >= rank(*b) { (*a_slot, *b_slot) } else { (*b_slot, *a_slot) };
                return Err(CallError::Overlap { slot, other });
            }
        }
    }
    Ok(())
}

fn rank(a: Access) -> u8 {
    match a {
        Access::None => 0,
        Access::Pointer => 1,
        Access::Cells => 2,
        Access::Shared => 3,
        Access::Exclusive => 4,
    }
}
