/* A hand-written IREE VM dynamic module `hand` with one function, total (`0r_f`): the sum of
 * a rank-1 f32 tensor (`tensor<?xf32>`, a `!hal.buffer_view` ref), left to right as Rust's
 * `iter().sum()` adds. It is the floor the generated module (examples/iree-kit, `kit.total`)
 * is measured against by scripts/bench-iree.sh. Like the generated module it links no IREE
 * code: the module interface mirrors IREE 3.13's (docs/IREE-DYNAMIC-MODULE.md, as in
 * hand_module.c), and the tensor is read the way /work/shared/IREE-TENSORS.md found to work:
 *   - the module depends on `hal` (version >= 6) and imports five of its VM functions, which
 *     the context resolves at load (a changed name or calling convention fails there);
 *   - per call: the argument's ref type must read "hal.buffer_view"; its element type
 *     (FLOAT_32), rank (1) and dim 0 come from the imports; `hal.buffer_view.buffer` gives
 *     an owned buffer ref whose `hal.buffer.length` must equal the mirrored
 *     iree_hal_buffer_t's byte_length (a canary for the layout below); the buffer is mapped
 *     through its driver vtable as iree_hal_buffer_map_range would (host-visible memory
 *     only), summed, unmapped, and the buffer ref released.
 * It does what a careful C author would and returns bare status codes; an import's failure
 * passes through with the HAL's message. The buffer layout is hand-mirrored from
 * runtime/src/iree/hal/buffer.h and resource.h and pinned by the asserts below. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef uintptr_t iree_status_t;
enum {
  OK = 0, INVALID_ARGUMENT = 3, NOT_FOUND = 5, FAILED_PRECONDITION = 9, OUT_OF_RANGE = 11,
  UNIMPLEMENTED = 12, INTERNAL = 13,
};
enum { LINKAGE_IMPORT = 1, LINKAGE_EXPORT = 2, LINKAGE_EXPORT_OPTIONAL = 4 };

/* ---- the VM module interface (as in hand_module.c) ---- */
typedef struct { const char* data; size_t size; } string_view_t;
typedef struct { string_view_t key, value; } string_pair_t;
typedef struct { uint8_t* data; size_t data_length; } byte_span_t;
typedef struct { void* self; void* ctl; } allocator_t;
typedef struct module_t module_t;
typedef struct { module_t* module; uint16_t linkage; uint16_t ordinal; } function_t;
typedef struct { string_view_t calling_convention; } function_signature_t;
typedef struct {
  uint32_t version;
  size_t attr_count, import_function_count, export_function_count, internal_function_count;
} module_signature_t;
typedef struct { function_t function; byte_span_t arguments, results; } function_call_t;
typedef struct { string_view_t name; uint32_t minimum_version; uint32_t flags; } module_dependency_t;
typedef iree_status_t (*dependency_callback_t)(void* user_data, const module_dependency_t*);

struct module_t {
  void* self;
  int32_t ref_count;
  void (*destroy)(void*);
  string_view_t (*name)(void*);
  module_signature_t (*signature)(void*);
  iree_status_t (*enumerate_dependencies)(void*, dependency_callback_t, void*);
  iree_status_t (*get_module_attr)(void*, size_t, string_pair_t*);
  iree_status_t (*lookup_function)(void*, uint32_t, string_view_t, const function_signature_t*, function_t*);
  iree_status_t (*get_function)(void*, uint32_t, size_t, function_t*, string_view_t*, function_signature_t*);
  void* get_function_attr;
  void* resolve_source_location;
  iree_status_t (*alloc_state)(void*, allocator_t, void**);
  void (*free_state)(void*, void*);
  iree_status_t (*fork_state)(void*, void*, allocator_t, void**);
  iree_status_t (*resolve_import)(void*, void*, size_t, const function_t*, const function_signature_t*);
  iree_status_t (*notify)(void*, void*, int);
  iree_status_t (*begin_call)(void*, void*, function_call_t);
  iree_status_t (*resume_call)(void*, void*, byte_span_t);
};

_Static_assert(sizeof(function_call_t) == 48, "iree_vm_function_call_t is 48 bytes");
_Static_assert(sizeof(module_t) == 144, "iree_vm_module_t is 144 bytes");
_Static_assert(offsetof(module_t, begin_call) == 128, "begin_call at offset 128");
_Static_assert(sizeof(module_dependency_t) == 24, "iree_vm_module_dependency_t is 24 bytes");

/* ---- refs (vm/ref.h): {ptr, type}; type = descriptor | counter offset in int32 units ---- */
typedef struct { void* ptr; uintptr_t type; } ref_t;
typedef struct { void (*destroy)(void*); string_view_t type_name; } ref_descriptor_t; /* leading fields */
_Static_assert(sizeof(ref_t) == 16, "iree_vm_ref_t is 16 bytes");
_Static_assert(offsetof(ref_descriptor_t, type_name) == 8, "type_name at offset 8");

static const ref_descriptor_t* ref_descriptor(uintptr_t type) { return (const ref_descriptor_t*)(type & ~(uintptr_t)7); }

/* Releases an owned ref: the VM's iree_vm_ref_release. */
static void ref_release(ref_t r) {
  if (!r.ptr) return;
  int32_t* counter = (int32_t*)r.ptr + (r.type & 7);
  if (__atomic_fetch_sub(counter, 1, __ATOMIC_ACQ_REL) == 1) {
    const ref_descriptor_t* d = ref_descriptor(r.type);
    if (d->destroy) d->destroy(r.ptr);
  }
}

/* ---- the HAL buffer (hal/resource.h, hal/buffer.h) ---- */
typedef struct hal_buffer_t hal_buffer_t;
typedef struct {
  byte_span_t contents;
  hal_buffer_t* buffer;
  struct {
    uint64_t byte_offset;
    uint16_t allowed_access;
    uint32_t is_persistent : 1;
    uint32_t reserved_flags : 31;
    uint64_t reserved[1];
  } impl;
} hal_buffer_mapping_t;
typedef struct {
  void (*recycle)(hal_buffer_t*);
  void (*destroy)(hal_buffer_t*);
  iree_status_t (*map_range)(hal_buffer_t*, uint32_t mapping_mode, uint16_t memory_access,
                             uint64_t local_byte_offset, uint64_t local_byte_length, hal_buffer_mapping_t*);
  iree_status_t (*unmap_range)(hal_buffer_t*, uint64_t local_byte_offset, uint64_t local_byte_length,
                               hal_buffer_mapping_t*);
  iree_status_t (*invalidate_range)(hal_buffer_t*, uint64_t, uint64_t);
  iree_status_t (*flush_range)(hal_buffer_t*, uint64_t, uint64_t);
} hal_buffer_vtable_t;
struct hal_buffer_t {
  struct { int32_t ref_count; const void* vtable; } resource;
  hal_buffer_t* allocated_buffer;
  uint64_t allocation_size;
  uint64_t byte_offset;
  uint64_t byte_length;
  struct { void* device; uint64_t queue_affinity; uint32_t flags, reserved; } placement;
  void* pooling_allocator;
  uint32_t preserve_count;
  uint32_t memory_type;
  uint32_t allowed_usage;
  uint16_t allowed_access;
  uint16_t reserved;
  uint32_t flags;
};
_Static_assert(offsetof(hal_buffer_t, resource.vtable) == 8, "resource vtable at 8");
_Static_assert(offsetof(hal_buffer_t, allocated_buffer) == 16, "allocated_buffer at 16");
_Static_assert(offsetof(hal_buffer_t, allocation_size) == 24, "allocation_size at 24");
_Static_assert(offsetof(hal_buffer_t, byte_offset) == 32, "byte_offset at 32");
_Static_assert(offsetof(hal_buffer_t, byte_length) == 40, "byte_length at 40");
_Static_assert(offsetof(hal_buffer_t, pooling_allocator) == 72, "pooling_allocator at 72");
_Static_assert(offsetof(hal_buffer_t, memory_type) == 84, "memory_type at 84");
_Static_assert(offsetof(hal_buffer_t, allowed_access) == 92, "allowed_access at 92");
_Static_assert(sizeof(hal_buffer_mapping_t) == 48, "iree_hal_buffer_mapping_t is 48 bytes");
_Static_assert(offsetof(hal_buffer_mapping_t, impl.allowed_access) == 32, "impl.allowed_access at 32");
_Static_assert(offsetof(hal_buffer_mapping_t, impl.reserved) == 40, "impl.reserved at 40");
_Static_assert(offsetof(hal_buffer_vtable_t, map_range) == 16, "map_range at 16");

enum { MEMORY_TYPE_HOST_VISIBLE = 1u << 1, MEMORY_ACCESS_READ = 1u << 0, MAPPING_MODE_SCOPED = 1u << 0 };
enum { ELEMENT_TYPE_FLOAT_32 = 0x21000020 };

/* ---- the module ---- */
static const char kName[] = "hand";
static const char kFunction[] = "total";
static const char kCconv[] = "0r_f";
static const char kBufferView[] = "hal.buffer_view";
static const char kHal[] = "hal";
enum { HAL_MINIMUM_VERSION = 6, DEPENDENCY_REQUIRED = 1 };

/* The imports, in the order get_function(IMPORT, i) reports them. */
enum { BUFFER_LENGTH, VIEW_BUFFER, VIEW_DIM, VIEW_ELEMENT_TYPE, VIEW_RANK, IMPORT_COUNT };
static const struct { const char* name; const char* cconv; } kImports[IMPORT_COUNT] = {
    [BUFFER_LENGTH] = {"hal.buffer.length", "0r_I"},
    [VIEW_BUFFER] = {"hal.buffer_view.buffer", "0r_r"},
    [VIEW_DIM] = {"hal.buffer_view.dim", "0ri_I"},
    [VIEW_ELEMENT_TYPE] = {"hal.buffer_view.element_type", "0r_i"},
    [VIEW_RANK] = {"hal.buffer_view.rank", "0r_i"},
};

/* begin_call receives no module state: the resolved imports live in the module, so one
 * context per module instance. */
typedef struct {
  module_t base;
  function_t imports[IMPORT_COUNT];
} hand_t;
static char state_token;

static int equals(string_view_t v, const char* s, size_t n) { return v.size == n && memcmp(v.data, s, n) == 0; }
static string_view_t view(const char* s) { return (string_view_t){s, strlen(s)}; }

static void destroy(void* self) { free(self); }
static string_view_t name(void* self) { (void)self; return (string_view_t){kName, sizeof kName - 1}; }
static module_signature_t signature(void* self) { (void)self; return (module_signature_t){0, 0, IMPORT_COUNT, 1, 0}; }
static iree_status_t enumerate_dependencies(void* self, dependency_callback_t cb, void* user) {
  (void)self;
  const module_dependency_t hal = {{kHal, sizeof kHal - 1}, HAL_MINIMUM_VERSION, DEPENDENCY_REQUIRED};
  return cb(user, &hal);
}
static iree_status_t get_module_attr(void* self, size_t i, string_pair_t* out) { (void)self; (void)i; (void)out; return OUT_OF_RANGE; }

static iree_status_t lookup_function(void* self, uint32_t linkage, string_view_t fname,
                                     const function_signature_t* expected, function_t* out) {
  if ((linkage != LINKAGE_EXPORT && linkage != LINKAGE_EXPORT_OPTIONAL) || !equals(fname, kFunction, sizeof kFunction - 1))
    return NOT_FOUND;
  if (expected && expected->calling_convention.size && !equals(expected->calling_convention, kCconv, sizeof kCconv - 1))
    return INVALID_ARGUMENT;
  if (!out) return INVALID_ARGUMENT;
  *out = (function_t){(module_t*)self, LINKAGE_EXPORT, 0};
  return OK;
}

static iree_status_t get_function(void* self, uint32_t linkage, size_t ordinal, function_t* out,
                                  string_view_t* out_name, function_signature_t* out_sig) {
  if (linkage == LINKAGE_IMPORT) {
    if (ordinal >= IMPORT_COUNT) return OUT_OF_RANGE;
    if (out) *out = (function_t){(module_t*)self, LINKAGE_IMPORT, (uint16_t)ordinal};
    if (out_name) *out_name = view(kImports[ordinal].name);
    if (out_sig) *out_sig = (function_signature_t){view(kImports[ordinal].cconv)};
    return OK;
  }
  if ((linkage != LINKAGE_EXPORT && linkage != LINKAGE_EXPORT_OPTIONAL) || ordinal != 0) return OUT_OF_RANGE;
  if (out) *out = (function_t){(module_t*)self, LINKAGE_EXPORT, 0};
  if (out_name) *out_name = (string_view_t){kFunction, sizeof kFunction - 1};
  if (out_sig) *out_sig = (function_signature_t){{kCconv, sizeof kCconv - 1}};
  return OK;
}

static iree_status_t alloc_state(void* self, allocator_t a, void** out) {
  (void)self; (void)a;
  if (!out) return INVALID_ARGUMENT;
  *out = &state_token;
  return OK;
}
static void free_state(void* self, void* state) { (void)self; (void)state; }
static iree_status_t fork_state(void* self, void* state, allocator_t a, void** out) { (void)state; return alloc_state(self, a, out); }

static iree_status_t resolve_import(void* self, void* st, size_t i, const function_t* f, const function_signature_t* s) {
  (void)st;
  hand_t* m = self;
  if (i >= IMPORT_COUNT || !f || !f->module) return OUT_OF_RANGE;
  /* The context matched the declared convention unless the target left its own empty;
   * insist on it here, since every call below relies on the buffer layouts it implies. */
  if (!s || !equals(s->calling_convention, kImports[i].cconv, strlen(kImports[i].cconv))) return INVALID_ARGUMENT;
  m->imports[i] = *f;
  return OK;
}
static iree_status_t notify(void* self, void* state, int signal) { (void)self; (void)state; (void)signal; return OK; }
static iree_status_t resume_call(void* self, void* stack, byte_span_t r) { (void)self; (void)stack; (void)r; return UNIMPLEMENTED; }

/* Calls import `fn` on the caller's stack; `rets` must be zeroed by the caller. */
static iree_status_t call_import(const function_t* fn, void* stack, void* args, size_t nargs, void* rets, size_t nrets) {
  if (!fn->module) return FAILED_PRECONDITION; /* never resolved */
  return fn->module->begin_call(fn->module->self, stack,
                                (function_call_t){*fn, {args, nargs}, {rets, nrets}});
}

/* Sums a mapped host-visible buffer: sequential f32 adds, as Rust's `iter().sum()`. */
static float sum_f32(const float* p, size_t n) {
  float s = 0.0f;
  for (size_t i = 0; i < n; ++i) s += p[i];
  return s;
}

/* The mapped part of total: it takes over the owned buffer ref and releases it. As
 * iree_hal_buffer_map_range/unmap_range do: a scoped mapping holds a reference to the
 * buffer (here the owned one, handed over), the driver may swap mapping.buffer for the buffer backing the bytes (a transient
 * buffer hands over its committed one), and unmapping goes through that buffer's vtable
 * and releases it. */
static iree_status_t total_of_buffer(ref_t buffer_ref, uint64_t length, int64_t dim, float* out) {
  hal_buffer_t* buffer = buffer_ref.ptr;
  iree_status_t refused = OK;
  if (length != buffer->byte_length) refused = INTERNAL; /* the mirrored layout is wrong */
  else if ((uint64_t)dim > length / sizeof(float)) refused = OUT_OF_RANGE;
  else if (!(buffer->memory_type & MEMORY_TYPE_HOST_VISIBLE)) refused = INVALID_ARGUMENT;
  else if (!(buffer->allowed_access & MEMORY_ACCESS_READ)) refused = INVALID_ARGUMENT;
  if (refused) {
    ref_release(buffer_ref);
    return refused;
  }
  const hal_buffer_vtable_t* vt = buffer->resource.vtable;
  hal_buffer_mapping_t mapping;
  memset(&mapping, 0, sizeof mapping);
  mapping.buffer = buffer;
  mapping.impl.byte_offset = buffer->byte_offset;
  mapping.impl.allowed_access = MEMORY_ACCESS_READ;
  mapping.contents.data_length = length;
  iree_status_t status = vt->map_range(buffer, MAPPING_MODE_SCOPED, MEMORY_ACCESS_READ,
                                       mapping.impl.byte_offset, mapping.contents.data_length, &mapping);
  if (status) {
    ref_release(buffer_ref);
    return status;
  }
  const uint8_t* data = mapping.contents.data;
  if (!data || mapping.contents.data_length < (uint64_t)dim * sizeof(float) || ((uintptr_t)data & (sizeof(float) - 1)))
    status = INTERNAL;
  else
    *out = sum_f32((const float*)data, (size_t)dim);
  hal_buffer_t* held = mapping.buffer;
  if (data) {
    const hal_buffer_vtable_t* held_vt = held->resource.vtable;
    iree_status_t unmapped = held_vt->unmap_range(held, mapping.impl.byte_offset,
                                                  mapping.contents.data_length, &mapping);
    if (!status) status = unmapped;
  }
  ref_release((ref_t){held, buffer_ref.type});
  return status;
}

static iree_status_t begin_call(void* self, void* stack, function_call_t call) {
  hand_t* m = self;
  if (call.function.ordinal != 0 || call.arguments.data_length != sizeof(ref_t) || call.results.data_length != sizeof(float) ||
      !call.arguments.data || !call.results.data)
    return INVALID_ARGUMENT;
  ref_t view_ref;
  memcpy(&view_ref, call.arguments.data, sizeof view_ref); /* borrowed: the caller releases it */
  if (!view_ref.ptr || !view_ref.type || !equals(ref_descriptor(view_ref.type)->type_name, kBufferView, sizeof kBufferView - 1))
    return INVALID_ARGUMENT;

  iree_status_t status;
  int32_t element_type = 0, rank = 0;
  if ((status = call_import(&m->imports[VIEW_ELEMENT_TYPE], stack, &view_ref, sizeof view_ref, &element_type, sizeof element_type)))
    return status;
  if ((uint32_t)element_type != ELEMENT_TYPE_FLOAT_32) return INVALID_ARGUMENT;
  if ((status = call_import(&m->imports[VIEW_RANK], stack, &view_ref, sizeof view_ref, &rank, sizeof rank))) return status;
  if (rank != 1) return INVALID_ARGUMENT;
  struct { ref_t r0; int32_t i1; } dim_args = {view_ref, 0};
  int64_t dim = 0;
  if ((status = call_import(&m->imports[VIEW_DIM], stack, &dim_args, sizeof dim_args, &dim, sizeof dim))) return status;
  if (dim < 0) return INVALID_ARGUMENT;
  ref_t buffer_ref = {0, 0}; /* owned */
  if ((status = call_import(&m->imports[VIEW_BUFFER], stack, &view_ref, sizeof view_ref, &buffer_ref, sizeof buffer_ref)))
    return status;
  if (!buffer_ref.ptr) return INVALID_ARGUMENT;
  int64_t length = 0;
  float total = 0.0f;
  status = call_import(&m->imports[BUFFER_LENGTH], stack, &buffer_ref, sizeof buffer_ref, &length, sizeof length);
  if (!status)
    status = total_of_buffer(buffer_ref, (uint64_t)length, dim, &total); /* releases buffer_ref */
  else
    ref_release(buffer_ref);
  if (!status) memcpy(call.results.data, &total, sizeof total);
  return status;
}

__attribute__((visibility("default"))) iree_status_t iree_vm_dynamic_module_create(
    uint32_t max_version, void* instance, size_t param_count, const string_pair_t* params,
    allocator_t host_allocator, module_t** out_module) {
  (void)instance; (void)param_count; (void)params; (void)host_allocator;
  if (max_version != 1 || !out_module) return INVALID_ARGUMENT;
  hand_t* m = calloc(1, sizeof *m);
  if (!m) return 8; /* RESOURCE_EXHAUSTED */
  m->base = (module_t){
      .self = m, .ref_count = 1, .destroy = destroy, .name = name, .signature = signature,
      .enumerate_dependencies = enumerate_dependencies, .get_module_attr = get_module_attr,
      .lookup_function = lookup_function, .get_function = get_function, .alloc_state = alloc_state,
      .free_state = free_state, .fork_state = fork_state, .resolve_import = resolve_import,
      .notify = notify, .begin_call = begin_call, .resume_call = resume_call,
  };
  *out_module = &m->base;
  return OK;
}
