//! The overlap check an export's shim runs before converting its arguments, when two of
//! its parameters have conflicting accesses (`reflect::Access`): a tensor written in place
//! (`HostTensorMut`, `StridedTensorMut`) must share no memory with another tensor argument,
//! and a tensor read for the whole call (`HostTensor`, `StridedTensor`) none with an
//! argument that can write through cells. It compares the byte ranges the tensors' elements
//! span (strides of either sign; a tensor with no element spans none), and when they meet,
//! whether the elements still share no byte (interleaved views of one array,
//! `tensor::disjoint`). Tensors inside containers (a `Vec<TensorView>`) and memory other
//! holders write during the call are outside what it sees: the contract in the docs.

use crate::reflect::{leaf_count, Access, ParamDesc};
use crate::runtime::calls::boundary::CallError;
use crate::tensor::disjoint::disjoint;
use crate::tensor::TensorView;
use crate::value::any::AnyView;

/// Refuses an export's call when two tensor arguments whose parameters' accesses conflict
/// share memory, naming the slot that writes (or holds the shared slice) and the other.
#[inline(never)]
pub fn check_overlaps(params: &[ParamDesc], slots: &[AnyView<'_>]) -> Result<(), CallError> {
    let accesses = params.iter().scan(0usize, |slot, p| {
        let at = *slot;
        *slot += if p.expand { leaf_count(p.ty) } else { 1 };
        Some((at, if p.expand { Access::None } else { p.access }))
    });
    check(accesses, slots)
}

/// The same for slots whose accesses are `accesses` (a typed closure's arguments).
#[inline(never)]
pub fn check_slot_overlaps(accesses: &[Access], slots: &[AnyView<'_>]) -> Result<(), CallError> {
    check(accesses.iter().copied().enumerate(), slots)
}

/// Compares every pair of slots whose accesses conflict; no allocation, as the pairs are
/// few (parameters that may hold tensors).
fn check(accesses: impl Iterator<Item = (usize, Access)> + Clone, slots: &[AnyView<'_>]) -> Result<(), CallError> {
    let bytes = |slot: usize| {
        let tensor = slots.get(slot).and_then(TensorView::from_slot)?;
        Some((tensor, tensor.byte_range()?))
    };
    let mut rest = accesses.filter(|&(_, access)| access != Access::None);
    while let Some((a_slot, a)) = rest.next() {
        // `a`'s bytes, computed when a later slot conflicts with it.
        let mut a_bytes = None;
        for (b_slot, b) in rest.clone() {
            if !a.conflicts(b) {
                continue;
            }
            let Some((a_tensor, a_bytes)) = a_bytes.get_or_insert_with(|| bytes(a_slot)).clone() else { break };
            let Some((b_tensor, b_bytes)) = bytes(b_slot) else { continue };
            if a_bytes.start < b_bytes.end && b_bytes.start < a_bytes.end && !disjoint(&a_tensor, &b_tensor) {
                // Name the stricter side first: the one that writes, or holds the slice.
                let (slot, other) = if rank(a) >= rank(b) { (a_slot, b_slot) } else { (b_slot, a_slot) };
                return Err(CallError::Overlap { slot: slot as u32, other: other as u32 });
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
