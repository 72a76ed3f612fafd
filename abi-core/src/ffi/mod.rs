//! The C contract as plain data (docs/ABI.md): type indices, `DLDataType`/`DLDevice`, and
//! the raw layouts of values, object headers and cells, with their sizes and offsets
//! asserted at compile time. This is what a hand-written packed function works with; the
//! rest of the crate builds ownership and conversions on top of it.

mod dtype;
mod env_api;
mod layout;
pub mod result_sink;
mod runtime_table;
pub mod type_index;
pub mod type_table;

pub use dtype::{code, code_name, device_type, DataType, Device};
pub use env_api::{DLManagedTensorVersioned, DLPackVersion, EnvApi, SetError, StreamHandle, TensorAllocator};
pub use layout::{
    cell_ptr, BigIntCell, ByteArray, DLTensor, Deleter, FunctionCell, ObjectHeader, RawAny, RawValue, SafeCall,
    SeqCell, BIG_INT_WORDS_OFFSET, CELL_OFFSET, DELETER_BOTH, DELETER_STRONG, DELETER_WEAK, INITIAL_REF_COUNT,
    STRONG_MASK, WEAK_UNIT,
};
pub use result_sink::ResultSink;
pub use runtime_table::{
    HostApi, RuntimeTable, ATTACH_ALREADY_RUNNING, ATTACH_OK, ATTACH_VERSION_MISMATCH, RUNTIME_TABLE_BASE_SIZE,
};
