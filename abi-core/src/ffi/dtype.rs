//! `DLDataType` and `DLDevice`, stored inline in an [`crate::Any`].

use core::fmt;

use static_assertions::{assert_eq_size, const_assert_eq};

/// DLPack type codes.
pub mod code {
    /// Signed integer.
    pub const INT: u8 = 0;
    /// Unsigned integer.
    pub const UINT: u8 = 1;
    /// IEEE float.
    pub const FLOAT: u8 = 2;
    /// Opaque handle.
    pub const OPAQUE_HANDLE: u8 = 3;
    /// bfloat16.
    pub const BFLOAT: u8 = 4;
    /// Complex.
    pub const COMPLEX: u8 = 5;
    /// Boolean.
    pub const BOOL: u8 = 6;
}

/// `DLDataType`: element type of a tensor.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DataType {
    /// One of [`code`].
    pub code: u8,
    /// Bits per lane.
    pub bits: u8,
    /// Vector lanes (1 for scalars).
    pub lanes: u16,
}

assert_eq_size!(DataType, u32);
const_assert_eq!(core::mem::offset_of!(DataType, code), 0);
const_assert_eq!(core::mem::offset_of!(DataType, bits), 1);
const_assert_eq!(core::mem::offset_of!(DataType, lanes), 2);

impl DataType {
    /// A scalar data type.
    pub const fn new(code: u8, bits: u8) -> DataType {
        DataType { code, bits, lanes: 1 }
    }

    /// Bytes per element, rounding bits up.
    pub const fn size_bytes(&self) -> usize {
        (self.bits as usize * self.lanes as usize).div_ceil(8)
    }

    /// Whether numpy's `same_kind` casting takes this dtype to `to`: from a kind to the same
    /// kind or a later one of bool, unsigned integer, signed integer, float (`bfloat16` a
    /// float), so `float64` to `float32`, `int64` to `int8`, `uint8` to `int32` and any
    /// integer to any float, but no float to an integer and no signed integer to an
    /// unsigned one. Only the dtypes numpy has (plus `bfloat16`), scalars: `bool`, integers
    /// of 8 to 64 bits, floats of 16 to 64.
    pub const fn casts_same_kind(self, to: DataType) -> bool {
        const fn kind(d: DataType) -> Option<u8> {
            if d.lanes != 1 {
                return None;
            }
            match (d.code, d.bits) {
                (code::BOOL, 8) => Some(0),
                (code::UINT, 8 | 16 | 32 | 64) => Some(1),
                (code::INT, 8 | 16 | 32 | 64) => Some(2),
                (code::FLOAT, 16 | 32 | 64) | (code::BFLOAT, 16) => Some(3),
                _ => None,
            }
        }
        match (kind(self), kind(to)) {
            (Some(from), Some(to)) => from <= to,
            _ => false,
        }
    }
}

/// The name of a DLPack type code, as dtype strings start (`float` of `float32`).
pub const fn code_name(code: u8) -> &'static str {
    match code {
        code::INT => "int",
        code::UINT => "uint",
        code::FLOAT => "float",
        code::OPAQUE_HANDLE => "handle",
        code::BFLOAT => "bfloat",
        code::COMPLEX => "complex",
        code::BOOL => "bool",
        _ => "unknown",
    }
}

impl DataType {
    /// Reads a dtype string as [`Display`](fmt::Display) writes it (`float32`, `uint8`,
    /// `bfloat16`, `bool`, `float32x4`); `None` for anything else.
    pub fn parse(text: &str) -> Option<DataType> {
        let (scalar, lanes) = match text.rsplit_once('x') {
            // `float32x4`, `boolx4`; not the `x` of `complex64`.
            Some((scalar, lanes))
                if scalar.ends_with(|c: char| c.is_ascii_digit()) || scalar == code_name(code::BOOL) =>
            {
                (scalar, lanes.parse::<u16>().ok().filter(|&l| l > 1)?)
            }
            _ => (text, 1),
        };
        let digits = scalar.find(|c: char| c.is_ascii_digit()).unwrap_or(scalar.len());
        let (name, bits) = scalar.split_at(digits);
        let code = (0..=code::BOOL).find(|&c| code_name(c) == name)?;
        let bits = match (code, bits) {
            (code::BOOL, "") => 8,
            (_, bits) => bits.parse::<u8>().ok().filter(|&b| b > 0)?,
        };
        Some(DataType { code, bits, lanes })
    }
}

/// `float32`, `uint8`, `bfloat16`, `float32x4`; `bool` for 8-bit booleans, as tvm-ffi and
/// numpy spell it.
impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(code_name(self.code))?;
        if !(self.code == code::BOOL && self.bits == 8) {
            write!(f, "{}", self.bits)?;
        }
        if self.lanes != 1 {
            write!(f, "x{}", self.lanes)?;
        }
        Ok(())
    }
}

/// DLPack device types.
pub mod device_type {
    /// Host CPU.
    pub const CPU: i32 = 1;
    /// CUDA GPU.
    pub const CUDA: i32 = 2;
    /// Pinned CUDA host memory.
    pub const CUDA_HOST: i32 = 3;
    /// Vulkan.
    pub const VULKAN: i32 = 7;
    /// Metal.
    pub const METAL: i32 = 8;
    /// ROCm.
    pub const ROCM: i32 = 10;
    /// CUDA managed memory.
    pub const CUDA_MANAGED: i32 = 13;
    /// oneAPI.
    pub const ONE_API: i32 = 14;
}

/// `DLDevice`: where a tensor's memory lives.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Device {
    /// One of [`device_type`].
    pub device_type: i32,
    /// Device ordinal.
    pub device_id: i32,
}

assert_eq_size!(Device, u64);
const_assert_eq!(core::mem::offset_of!(Device, device_type), 0);
const_assert_eq!(core::mem::offset_of!(Device, device_id), 4);

impl Device {
    /// The host CPU.
    pub const CPU: Device = Device { device_type: device_type::CPU, device_id: 0 };

    /// A device of `device_type` (one of [`device_type`]) and ordinal `device_id`.
    pub const fn new(device_type: i32, device_id: i32) -> Device {
        Device { device_type, device_id }
    }

    /// Whether the host can read and write its memory directly: CPU, pinned CUDA host
    /// memory and CUDA managed memory.
    pub const fn is_host_accessible(&self) -> bool {
        matches!(self.device_type, device_type::CPU | device_type::CUDA_HOST | device_type::CUDA_MANAGED)
    }
}

/// `cpu:0`, `cuda:1`: the names `tvm_ffi.device(...)` reads.
impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self.device_type {
            device_type::CPU => "cpu",
            device_type::CUDA => "cuda",
            device_type::CUDA_HOST => "cuda_host",
            device_type::VULKAN => "vulkan",
            device_type::METAL => "metal",
            device_type::ROCM => "rocm",
            device_type::CUDA_MANAGED => "cuda_managed",
            device_type::ONE_API => "oneapi",
            other => return write!(f, "device type {other}:{}", self.device_id),
        };
        write!(f, "{name}:{}", self.device_id)
    }
}
