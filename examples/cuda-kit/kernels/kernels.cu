// The kernels of examples/cuda-kit, compiled ahead to PTX (kernels.ptx beside this file, by
// NVRTC 13.0 for compute_75: tests/kernels.rs checks the two agree). The Rust side
// (src/launch.rs) launches them with blocks of CUDA_KIT_BLOCK threads.
#define CUDA_KIT_BLOCK 256

// out[i] = x[i] + y[i], grid-stride: any grid covers any n.
extern "C" __global__ void __launch_bounds__(CUDA_KIT_BLOCK)
add_f32(const float* __restrict__ x, const float* __restrict__ y, float* __restrict__ out, unsigned long long n) {
  unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    out[i] = x[i] + y[i];
  }
}

// out[blockIdx.x] = the sum of this block's grid-stride share of x[0..n): one pass of a
// deterministic two-pass sum (the second pass runs it with one block over the partials).
// With n == 0 it writes 0.
extern "C" __global__ void __launch_bounds__(CUDA_KIT_BLOCK)
sum_f32(const float* __restrict__ x, unsigned long long n, float* __restrict__ out) {
  __shared__ float partial[CUDA_KIT_BLOCK];
  float acc = 0.0f;
  unsigned long long stride = (unsigned long long)gridDim.x * CUDA_KIT_BLOCK;
  for (unsigned long long i = (unsigned long long)blockIdx.x * CUDA_KIT_BLOCK + threadIdx.x; i < n; i += stride) {
    acc += x[i];
  }
  partial[threadIdx.x] = acc;
  __syncthreads();
  for (unsigned int half = CUDA_KIT_BLOCK / 2; half > 0; half >>= 1) {
    if (threadIdx.x < half) {
      partial[threadIdx.x] += partial[threadIdx.x + half];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    out[blockIdx.x] = partial[0];
  }
}
