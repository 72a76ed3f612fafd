//! The launch configuration of each kernel: which function, its grid and block, and the
//! stream it is queued on. Built before the driver is touched, so the configuration a call
//! would use can be checked on a machine without a GPU (`cuda_kit.launches`).

use core::fmt;

use abi_core::env::Stream;

/// Threads per block, as the kernels' `CUDA_KIT_BLOCK` (kernels/kernels.cu): `sum_f32`'s
/// shared array has this many slots.
pub const BLOCK: u32 = 256;

/// The most blocks an elementwise launch uses; its grid-stride loop covers the rest.
pub const MAX_GRID: u32 = 8192;

/// The most partial sums the first pass of a reduction writes (its second pass sums them
/// with one block).
pub const MAX_PARTIALS: u32 = 1024;

/// A kernel of kernels/kernels.ptx.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// `add_f32(x, y, out, n)`.
    Add,
    /// `sum_f32(x, n, out)`: one pass of the two-pass sum.
    Sum,
}

impl Kernel {
    /// The function's name in the PTX module.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Add => "add_f32",
            Kernel::Sum => "sum_f32",
        }
    }
}

/// One kernel launch: `kernel<<<grid, block, shared_bytes, stream>>>` over 1-D grids.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Launch {
    /// The function.
    pub kernel: Kernel,
    /// Blocks.
    pub grid: u32,
    /// Threads per block.
    pub block: u32,
    /// Dynamic shared memory (the kernels use static shared memory only).
    pub shared_bytes: u32,
    /// The caller's stream (`env::stream` of the tensors' device); null is CUDA's legacy
    /// default stream.
    pub stream: Stream,
}

impl fmt::Display for Launch {
    /// CUDA's spelling: `add_f32<<<4, 256, 0, 0xc0ffef>>>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (name, grid, block, shared) = (self.kernel.name(), self.grid, self.block, self.shared_bytes);
        write!(f, "{name}<<<{grid}, {block}, {shared}, {:#x}>>>", self.stream.as_ptr() as usize)
    }
}

/// Blocks of [`BLOCK`] threads for `n` items, between 1 and `most`.
fn blocks(n: u64, most: u32) -> u32 {
    let wanted = n.div_ceil(u64::from(BLOCK));
    wanted.clamp(1, u64::from(most)) as u32
}

/// The launch of an elementwise kernel over `n` items on `stream`: none when `n` is 0.
pub fn elementwise(kernel: Kernel, n: u64, stream: Stream) -> Option<Launch> {
    (n > 0).then(|| Launch { kernel, grid: blocks(n, MAX_GRID), block: BLOCK, shared_bytes: 0, stream })
}

/// The launches of the sum of `n` items on `stream`: one block writing the result when
/// one block covers `n` (always at least one launch, so an empty sum writes 0); else a
/// first pass writing one partial sum per block, then one block summing those.
pub fn reduction(n: u64, stream: Stream) -> (Launch, Option<Launch>) {
    let first = Launch { kernel: Kernel::Sum, grid: blocks(n, MAX_PARTIALS), block: BLOCK, shared_bytes: 0, stream };
    let second = (first.grid > 1).then_some(Launch { grid: 1, ..first });
    (first, second)
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Stream = Stream::NULL;

    #[test]
    fn elementwise_grids_cover_n_up_to_the_cap_and_nothing_launches_for_none() {
        assert_eq!(elementwise(Kernel::Add, 0, S), None);
        let grid = |n| elementwise(Kernel::Add, n, S).unwrap().grid;
        assert_eq!(
            [grid(1), grid(256), grid(257), grid(256 * 8192), grid(256 * 8192 + 1), grid(u64::MAX)],
            [1, 1, 2, 8192, 8192, 8192]
        );
    }

    #[test]
    fn a_reduction_is_one_launch_when_one_block_covers_n_else_two() {
        let (first, second) = reduction(0, S);
        assert_eq!((first.grid, second), (1, None), "an empty sum still writes its 0");
        assert_eq!(reduction(256, S).1, None);
        let (first, second) = reduction(257, S);
        assert_eq!((first.grid, second.map(|l| l.grid)), (2, Some(1)));
        assert_eq!(reduction(u64::MAX, S).0.grid, MAX_PARTIALS);
    }

    #[test]
    fn a_launch_reads_as_cuda_writes_it() {
        let launch = elementwise(Kernel::Add, 1000, Stream::from_ptr(0xc0ffef as *mut _)).unwrap();
        assert_eq!(launch.to_string(), "add_f32<<<4, 256, 0, 0xc0ffef>>>");
        assert_eq!(reduction(10, S).0.to_string(), "sum_f32<<<1, 256, 0, 0x0>>>");
    }
}
