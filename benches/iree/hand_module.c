/* A hand-written IREE VM dynamic module `hand` with one function, add_i32 (`0ii_i`): the
 * floor the generated module (examples/iree-kit, `kit.add_i32`) is measured against by
 * scripts/bench-iree.sh through iree-benchmark-module. Like the generated module it links
 * no IREE code: the structs below mirror IREE 3.13's interface (docs/IREE-DYNAMIC-MODULE.md)
 * and abi-core/src/iree/abi.rs. It does what a careful C author would: checks the import's
 * calling convention at lookup and the buffer sizes on each call, and returns bare codes. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef uintptr_t iree_status_t;
enum { OK = 0, INVALID_ARGUMENT = 3, NOT_FOUND = 5, OUT_OF_RANGE = 11, UNIMPLEMENTED = 12 };
enum { LINKAGE_EXPORT = 2, LINKAGE_EXPORT_OPTIONAL = 4 };

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

struct module_t {
  void* self;
  int32_t ref_count;
  void (*destroy)(void*);
  string_view_t (*name)(void*);
  module_signature_t (*signature)(void*);
  iree_status_t (*enumerate_dependencies)(void*, void*, void*);
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

static const char kName[] = "hand";
static const char kFunction[] = "add_i32";
static const char kCconv[] = "0ii_i";
static char state_token;

static int equals(string_view_t v, const char* s, size_t n) { return v.size == n && memcmp(v.data, s, n) == 0; }

static void destroy(void* self) { free(self); }
static string_view_t name(void* self) { (void)self; return (string_view_t){kName, sizeof kName - 1}; }
static module_signature_t signature(void* self) { (void)self; return (module_signature_t){0, 0, 0, 1, 0}; }
static iree_status_t enumerate_dependencies(void* self, void* cb, void* user) { (void)self; (void)cb; (void)user; return OK; }
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
  (void)self; (void)st; (void)i; (void)f; (void)s;
  return OUT_OF_RANGE;
}
static iree_status_t notify(void* self, void* state, int signal) { (void)self; (void)state; (void)signal; return OK; }
static iree_status_t resume_call(void* self, void* stack, byte_span_t r) { (void)self; (void)stack; (void)r; return UNIMPLEMENTED; }

static iree_status_t begin_call(void* self, void* stack, function_call_t call) {
  (void)self; (void)stack;
  if (call.function.ordinal != 0 || call.arguments.data_length != 8 || call.results.data_length != 4 ||
      !call.arguments.data || !call.results.data)
    return INVALID_ARGUMENT;
  int32_t a, b;
  memcpy(&a, call.arguments.data, 4);
  memcpy(&b, call.arguments.data + 4, 4);
  int32_t sum = (int32_t)((uint32_t)a + (uint32_t)b);
  memcpy(call.results.data, &sum, 4);
  return OK;
}

__attribute__((visibility("default"))) iree_status_t iree_vm_dynamic_module_create(
    uint32_t max_version, void* instance, size_t param_count, const string_pair_t* params,
    allocator_t host_allocator, module_t** out_module) {
  (void)instance; (void)param_count; (void)params; (void)host_allocator;
  if (max_version != 1 || !out_module) return INVALID_ARGUMENT;
  module_t* m = calloc(1, sizeof *m);
  if (!m) return 8; /* RESOURCE_EXHAUSTED */
  *m = (module_t){
      .self = m, .ref_count = 1, .destroy = destroy, .name = name, .signature = signature,
      .enumerate_dependencies = enumerate_dependencies, .get_module_attr = get_module_attr,
      .lookup_function = lookup_function, .get_function = get_function, .alloc_state = alloc_state,
      .free_state = free_state, .fork_state = fork_state, .resolve_import = resolve_import,
      .notify = notify, .begin_call = begin_call, .resume_call = resume_call,
  };
  *out_module = m;
  return OK;
}
