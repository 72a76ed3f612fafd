/* A fake array framework for tests/python/test_fake_framework.py: a DLPack exchange API
 * table (what PyTorch gives tvm_ffi) whose tensor allocator and current stream are this
 * file's, so the environment a callee sees can be checked on a machine without a GPU.
 *
 * The Python <-> DLPack converters are those of a base table (tvm_ffi's
 * DLTensorTestWrapper's), results counted on their way back; the allocator hands out malloc'd host memory and counts its
 * allocations and frees; the current stream of a non-CPU device is 0xC0FFEE + device id.
 * fake_device_tensor() makes a DLPack tensor on any device with a fake data pointer that
 * nothing dereferences. Built by the test with gcc against the wheel's headers. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <dlpack/dlpack.h>

static DLPackExchangeAPI api;
static DLPackManagedTensorToPyObjectNoSync base_to_py;
static int allocs, frees, results;

static void free_managed(DLManagedTensorVersioned* m) {
  free(m->dl_tensor.data);
  free(m->dl_tensor.shape);
  free(m);
  frees++;
}

static int fake_alloc(DLTensor* prototype, DLManagedTensorVersioned** out, void* error_ctx,
                      void (*set_error)(void*, const char*, const char*)) {
  int64_t numel = 1;
  for (int i = 0; i < prototype->ndim; i++) numel *= prototype->shape[i];
  size_t bytes = (size_t)numel * ((prototype->dtype.bits * prototype->dtype.lanes + 7) / 8);
  DLManagedTensorVersioned* m = calloc(1, sizeof(*m));
  int64_t* shape = malloc(sizeof(int64_t) * (prototype->ndim > 0 ? prototype->ndim : 1));
  /* Not zeroed: the callee must not read memory it did not write. 0xAB marks it. */
  void* data = malloc(bytes > 0 ? bytes : 1);
  if (!m || !shape || !data) {
    set_error(error_ctx, "MemoryError", "fake framework: out of memory");
    return -1;
  }
  memset(data, 0xAB, bytes);
  memcpy(shape, prototype->shape, sizeof(int64_t) * prototype->ndim);
  m->version.major = DLPACK_MAJOR_VERSION;
  m->version.minor = DLPACK_MINOR_VERSION;
  m->deleter = free_managed;
  m->dl_tensor = *prototype;
  m->dl_tensor.data = data;
  m->dl_tensor.shape = shape;
  m->dl_tensor.strides = NULL;
  m->dl_tensor.byte_offset = 0;
  allocs++;
  *out = m;
  return 0;
}

static int fake_stream(DLDeviceType device_type, int32_t device_id, void** out_stream) {
  *out_stream = device_type == kDLCPU ? NULL : (void*)(uintptr_t)(0xC0FFEE + device_id);
  return 0;
}

/* Results handed back to Python go through here (counted), then the base converter. */
static int fake_to_py(DLManagedTensorVersioned* tensor, void** out_py_object) {
  results++;
  return base_to_py(tensor, out_py_object);
}

/* The table, built on `base`'s converters; its address is the framework's
 * `__dlpack_c_exchange_api__`. */
DLPackExchangeAPI* fake_api(const DLPackExchangeAPI* base) {
  api = *base;
  api.header.prev_api = NULL;
  api.managed_tensor_allocator = fake_alloc;
  api.current_work_stream = fake_stream;
  base_to_py = base->managed_tensor_to_py_object_no_sync;
  api.managed_tensor_to_py_object_no_sync = fake_to_py;
  return &api;
}

int fake_allocs(void) { return allocs; }
int fake_frees(void) { return frees; }
int fake_results(void) { return results; }

static void free_device_tensor(DLManagedTensor* m) {
  free(m->dl_tensor.shape);
  free(m);
}

/* A float32 vector of `n` on (device_type, device_id) at the fake address `address`, for
 * a legacy "dltensor" capsule (what tvm_ffi.from_dlpack asks for first). */
DLManagedTensor* fake_device_tensor_at(int device_type, int device_id, int64_t n, uint64_t address) {
  DLManagedTensor* m = calloc(1, sizeof(*m));
  int64_t* shape = malloc(sizeof(int64_t));
  shape[0] = n;
  m->deleter = free_device_tensor;
  m->dl_tensor.data = (void*)(uintptr_t)address;
  m->dl_tensor.device.device_type = (DLDeviceType)device_type;
  m->dl_tensor.device.device_id = device_id;
  m->dl_tensor.ndim = 1;
  m->dl_tensor.dtype.code = kDLFloat;
  m->dl_tensor.dtype.bits = 32;
  m->dl_tensor.dtype.lanes = 1;
  m->dl_tensor.shape = shape;
  return m;
}

/* fake_device_tensor_at, at 0x10000. */
DLManagedTensor* fake_device_tensor(int device_type, int device_id, int64_t n) {
  return fake_device_tensor_at(device_type, device_id, n, 0x10000);
}
