//! Bulk data in and out of HAL buffers without IREE's code. Two routes:
//!
//! - **mapped** (default): the buffer is mapped through its own driver vtable, mirroring
//!   `iree_hal_buffer_t`, its vtable and `iree_hal_buffer_mapping_t` of IREE 3.13's
//!   driver-facing `hal/buffer.h`. Before any mapping a canary compares the mirrored byte
//!   length and offsets with what `hal.buffer.length` says; if they disagree (another IREE
//!   layout) the module says so once on stderr and takes the other route.
//! - **copied**: `hal.buffer.load` / `hal.buffer.store`, 4 bytes a call: public VM functions
//!   only, slow (55-90 ns a call) but correct on any layout. Module parameter
//!   `abi.mapping=off` forces it.
//!
//! Memory the host cannot see (no `HOST_VISIBLE` bit) is an error, never a mapping.

use core::ffi::c_void;
use std::sync::Once;

use crate::iree::hal::{Bound, HOST_COHERENT, HOST_VISIBLE};
use crate::iree::refs::{RawRef, VmRef};
use crate::iree::status::Failure;
use crate::iree::vm::{ByteSpan, Status};
use crate::value::error::Error;

/// `iree_hal_resource_t`.
#[repr(C)]
struct Resource {
    ref_count: i32,
    vtable: *const Vtable,
}

/// `iree_hal_buffer_t` (IREE 3.13).
#[repr(C)]
struct Buffer {
    resource: Resource,
    allocated_buffer: *mut Buffer,
    allocation_size: u64,
    byte_offset: u64,
    byte_length: u64,
    placement: [u64; 3],
    pooling_allocator: *mut c_void,
    preserve_count: u32,
    memory_type: u32,
    allowed_usage: u32,
    allowed_access: u16,
    reserved: u16,
    flags: u32,
}

/// `iree_hal_buffer_mapping_impl_t`. Its `uint32_t is_persistent : 1` follows a 16-bit
/// field, so C packs it into bit 16 of the word at offset 8 (byte 10), and
/// `reserved_flags : 31`, which would cross that word, starts the next one: the bit lives
/// in `persistent` here, never in padding (a driver reads it: valgrind caught it
/// uninitialised when it was padding).
#[repr(C)]
#[derive(Default)]
struct MappingImpl {
    byte_offset: u64,
    allowed_access: u16,
    persistent: u16,
    reserved_flags: u32,
    reserved: u64,
}

/// `iree_hal_buffer_mapping_t`.
#[repr(C)]
struct Mapping {
    contents: ByteSpan,
    buffer: *mut Buffer,
    impl_: MappingImpl,
}

type MapRange = unsafe extern "C" fn(*mut Buffer, u32, u16, u64, u64, *mut Mapping) -> Status;
type UnmapRange = unsafe extern "C" fn(*mut Buffer, u64, u64, *mut Mapping) -> Status;
type SyncRange = unsafe extern "C" fn(*mut Buffer, u64, u64) -> Status;

/// `iree_hal_buffer_vtable_t`.
#[repr(C)]
struct Vtable {
    recycle: Option<unsafe extern "C" fn(*mut Buffer)>,
    destroy: Option<unsafe extern "C" fn(*mut Buffer)>,
    map_range: Option<MapRange>,
    unmap_range: Option<UnmapRange>,
    invalidate_range: Option<SyncRange>,
    flush_range: Option<SyncRange>,
}

static_assertions::const_assert_eq!(core::mem::size_of::<Resource>(), 16);
static_assertions::const_assert_eq!(core::mem::offset_of!(Buffer, byte_length), 40);
static_assertions::const_assert_eq!(core::mem::offset_of!(Buffer, memory_type), 84);
static_assertions::const_assert_eq!(core::mem::size_of::<Buffer>(), 104);
static_assertions::const_assert_eq!(core::mem::size_of::<Mapping>(), 48);
static_assertions::const_assert_eq!(core::mem::offset_of!(MappingImpl, persistent), 10);
static_assertions::const_assert_eq!(core::mem::size_of::<Vtable>(), 48);

/// `IREE_HAL_MAPPING_MODE_SCOPED`.
const SCOPED: u32 = 1;
/// `IREE_HAL_MEMORY_ACCESS_READ`.
const READ: u16 = 1;
/// `IREE_HAL_MEMORY_ACCESS_WRITE | IREE_HAL_MEMORY_ACCESS_DISCARD`.
const DISCARD_WRITE: u16 = 2 | 4;

/// A buffer's bytes, readable while this lives: mapped, or copied out.
pub struct ReadBytes {
    data: *const u8,
    route: ReadRoute,
}

enum ReadRoute {
    // Unmapped (and its reference released) when dropped.
    Mapped(#[allow(dead_code)] Mapped),
    // Owns the copied bytes `data` points into.
    Copied(#[allow(dead_code)] Vec<u64>),
    Empty,
}

impl core::fmt::Debug for ReadBytes {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let route = match self.route {
            ReadRoute::Mapped(_) => "mapped",
            ReadRoute::Copied(_) => "copied",
            ReadRoute::Empty => "empty",
        };
        f.debug_struct("ReadBytes").field("route", &route).finish()
    }
}

impl ReadBytes {
    /// The first byte (null when there are none).
    pub fn data(&self) -> *const u8 {
        self.data
    }
}

/// A scoped mapping made as `iree_hal_buffer_map_range` makes one: it holds a reference to
/// `mapping.buffer`, which the driver may have swapped for the buffer really backing the
/// bytes (a transient buffer hands over its committed backing buffer); unmapping goes
/// through that buffer's vtable and releases it, as `iree_hal_buffer_unmap_range` does.
struct Mapped {
    mapping: Mapping,
    /// The VM type of `hal.buffer` references, to release `mapping.buffer` through.
    buffer_type: usize,
}

impl Mapped {
    /// The vtable of the buffer the mapping holds.
    fn vtable(&self) -> &Vtable {
        // SAFETY: `mapping.buffer` is a live buffer (referenced by the mapping) whose
        // resource starts with its vtable (the checked layout).
        unsafe { &*(*self.mapping.buffer).resource.vtable }
    }

    /// Unmaps and releases; the unmap's status.
    fn unmap(mut self) -> Status {
        let status = self.unmap_in_place();
        core::mem::forget(self);
        status
    }

    fn unmap_in_place(&mut self) -> Status {
        let mut status = 0;
        if !self.mapping.contents.data.is_null() {
            if let Some(unmap) = self.vtable().unmap_range {
                let m = &mut self.mapping;
                let (buffer, offset, length) = (m.buffer, m.impl_.byte_offset, m.contents.data_length as u64);
                // SAFETY: the driver's entry of the buffer the mapping holds, undoing it once.
                status = unsafe { unmap(buffer, offset, length, m) };
            }
        }
        // SAFETY: the reference the mapping held (taken in `map`, or handed over by the
        // driver), of the `hal.buffer` VM type.
        drop(unsafe { VmRef::from_owned(RawRef { ptr: self.mapping.buffer.cast(), type_: self.buffer_type }) });
        status
    }
}

impl Drop for Mapped {
    fn drop(&mut self) {
        // A failed unmap of a read mapping loses nothing (CPU drivers never fail it).
        let _ = self.unmap_in_place();
    }
}

/// What the mirrored layout says of a buffer, once the canary agreed with the HAL.
#[derive(Clone, Copy)]
struct Checked {
    ptr: *mut Buffer,
    byte_offset: u64,
    byte_length: u64,
    memory_type: u32,
    buffer_type: usize,
    map: MapRange,
}

/// The mirrored buffer of `buffer`, when mapping is allowed and the canary agrees.
///
/// # Safety
/// `buffer` is a live `hal.buffer` reference.
#[inline(always)]
unsafe fn checked(cx: &Bound<'_>, buffer: &VmRef) -> Result<Option<Checked>, Failure> {
    if !cx.mapping() {
        return Ok(None);
    }
    let length = cx.length(buffer.raw())?;
    // SAFETY: a HAL buffer starts with `iree_hal_buffer_t` (the pinned layout, checked next).
    let b = unsafe { &*buffer.raw().ptr.cast::<Buffer>() };
    let fits = b.byte_offset.checked_add(b.byte_length).is_some_and(|end| end <= b.allocation_size);
    // SAFETY: read only when the resource's vtable pointer is set.
    let vtable = unsafe { b.resource.vtable.as_ref() };
    match vtable {
        Some(vt) if b.byte_length == length && fits && !b.allocated_buffer.is_null() => {
            match (vt.map_range, vt.unmap_range) {
                (Some(map), Some(_)) => Ok(Some(Checked {
                    ptr: buffer.raw().ptr.cast(),
                    byte_offset: b.byte_offset,
                    byte_length: b.byte_length,
                    memory_type: b.memory_type,
                    buffer_type: buffer.raw().type_,
                    map,
                })),
                _ => Ok(layout_differs()),
            }
        }
        _ => Ok(layout_differs()),
    }
}

#[cold]
fn layout_differs<T>() -> Option<T> {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        eprintln!(
            "abi: HAL buffers do not have IREE 3.13's layout: tensors are copied through hal.buffer.load/store (slow)"
        )
    });
    None
}

#[cold]
#[inline(never)]
fn not_host_visible(memory_type: u32) -> Failure {
    Failure::Error(Error::value_error(format!(
        "the tensor is in device memory the host cannot map (memory type {memory_type:#x}, no HOST_VISIBLE): \
         run the program on a device with host-visible memory (local-sync, local-task)"
    )))
}

#[cold]
#[inline(never)]
fn too_short(have: u64, need: u64) -> Failure {
    Failure::Error(Error::value_error(format!("the tensor's buffer holds {have} bytes, its shape needs {need}")))
}

/// Maps `length` bytes as `iree_hal_buffer_map_range` does: the fields its prepare step
/// fills in and the reference it takes for a scoped mapping, then the driver's
/// `map_range`, then (memory that is not coherent) an invalidation.
#[inline(always)]
/// `held` is the reference the mapping keeps (the one a scoped mapping takes).
fn map(c: &Checked, held: VmRef, access: u16, length: u64) -> Result<Mapped, Failure> {
    if c.memory_type & HOST_VISIBLE == 0 {
        return Err(not_host_visible(c.memory_type));
    }
    if c.byte_length < length {
        return Err(too_short(c.byte_length, length));
    }
    let held = held.into_raw();
    let mut mapped = Mapped {
        mapping: Mapping {
            contents: ByteSpan { data: core::ptr::null_mut(), data_length: length as usize },
            buffer: held.ptr.cast(),
            impl_: MappingImpl { byte_offset: c.byte_offset, allowed_access: access, ..MappingImpl::default() },
        },
        buffer_type: c.buffer_type,
    };
    // SAFETY: the driver's own entry for this buffer, with a range inside it.
    let status = unsafe { (c.map)(c.ptr, SCOPED, access, c.byte_offset, length, &mut mapped.mapping) };
    if status != 0 {
        // Nothing is mapped: only the reference goes (what `iree_hal_buffer_map_range` does).
        mapped.mapping.contents.data = core::ptr::null_mut();
        drop(mapped);
        return Err(Failure::Status(status));
    }
    if mapped.mapping.contents.data.is_null() || (mapped.mapping.contents.data_length as u64) < length {
        return Err(Failure::Error(Error::runtime_error("the HAL mapped fewer bytes than asked")));
    }
    if c.memory_type & HOST_COHERENT == 0 && access & READ != 0 {
        if let Some(invalidate) = mapped.vtable().invalidate_range {
            let m = &mapped.mapping;
            // SAFETY: the entry of the buffer the mapping holds, on the mapped range.
            let status = unsafe { invalidate(m.buffer, m.impl_.byte_offset, length) };
            if status != 0 {
                return Err(Failure::Status(status));
            }
        }
    }
    Ok(mapped)
}

/// The first `length` bytes of `buffer`, to read while the result lives.
///
/// # Safety
/// `buffer` is a live `hal.buffer` reference of the call `cx` belongs to.
#[inline(always)]
pub unsafe fn read(cx: &Bound<'_>, buffer: VmRef, length: u64) -> Result<ReadBytes, Failure> {
    if length == 0 {
        return Ok(ReadBytes { data: core::ptr::null(), route: ReadRoute::Empty });
    }
    // SAFETY: the caller's contract.
    let Some(c) = (unsafe { checked(cx, &buffer) })? else {
        return copy_out(cx, buffer, length);
    };
    // The argument's buffer reference becomes the mapping's: nothing else needs it.
    let mapped = map(&c, buffer, READ, length)?;
    Ok(ReadBytes { data: mapped.mapping.contents.data, route: ReadRoute::Mapped(mapped) })
}

/// The copied route for reading: `hal.buffer.load`, 4 bytes a call.
fn copy_out(cx: &Bound<'_>, buffer: VmRef, length: u64) -> Result<ReadBytes, Failure> {
    let mut words = vec![0u64; length.div_ceil(8) as usize];
    let bytes = words.as_mut_ptr().cast::<u8>();
    let mut at = 0u64;
    while at < length {
        let n = (length - at).min(4) as usize;
        let value = cx.load(buffer.raw(), at, n)?.to_le_bytes();
        // SAFETY: `words` has `length` bytes; `at + n <= length`.
        unsafe { core::ptr::copy_nonoverlapping(value.as_ptr(), bytes.add(at as usize), n) };
        at += n as u64;
    }
    Ok(ReadBytes { data: bytes, route: ReadRoute::Copied(words) })
}

/// Writes `data` at the start of `buffer` (a new result buffer of at least that length).
///
/// # Safety
/// `buffer` is a live `hal.buffer` reference of the call `cx` belongs to.
pub unsafe fn write(cx: &Bound<'_>, buffer: &VmRef, data: &[u8]) -> Result<(), Failure> {
    let length = data.len() as u64;
    if length == 0 {
        return Ok(());
    }
    // SAFETY: the caller's contract.
    let Some(c) = (unsafe { checked(cx, buffer) })? else {
        return copy_in(cx, buffer, data);
    };
    // SAFETY: a live buffer; the new reference is the mapping's (the caller keeps its own).
    let mapped = map(&c, unsafe { VmRef::retain(buffer.raw()) }, DISCARD_WRITE, length)?;
    let m = &mapped.mapping;
    // SAFETY: `length` writable bytes, mapped for writing, not overlapping `data`.
    unsafe { core::ptr::copy_nonoverlapping(data.as_ptr(), m.contents.data, data.len()) };
    let mut flushed = 0;
    if c.memory_type & HOST_COHERENT == 0 {
        if let Some(flush) = mapped.vtable().flush_range {
            // SAFETY: the entry of the buffer the mapping holds, on the range just written.
            flushed = unsafe { flush(m.buffer, m.impl_.byte_offset, length) };
        }
    }
    match (flushed, mapped.unmap()) {
        (0, 0) => Ok(()),
        (0, s) | (s, _) => Err(Failure::Status(s)),
    }
}

/// The copied route for writing: `hal.buffer.store`, 4 bytes a call.
fn copy_in(cx: &Bound<'_>, buffer: &VmRef, data: &[u8]) -> Result<(), Failure> {
    for (i, chunk) in data.chunks(4).enumerate() {
        let mut word = [0u8; 4];
        word[..chunk.len()].copy_from_slice(chunk);
        cx.store(buffer.raw(), (i * 4) as u64, chunk.len(), u32::from_le_bytes(word))?;
    }
    Ok(())
}
