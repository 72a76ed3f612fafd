//! One runtime per process: where this library's runtime services live ([`discovery`]: a
//! tvm-ffi host's, its opener's, or the embedded ones), the table an opener hands to the
//! libraries it opens ([`attach`]), keeping a library loaded ([`pin`]), the linker's lists
//! ([`linked`]), maps and lists, whose layout belongs to the runtime that made them
//! ([`map`], [`list`]), and
//! the embedded runtime's streams and tensor allocator ([`environment`]).

pub mod attach;
pub mod discovery;
pub mod environment;
pub mod linked;
pub mod list;
pub mod map;
pub mod pin;
pub mod tvm_ffi_version;
