//! Rust bindings to the globals under `ffi.`, written by `abi bindgen` from the metadata they publish:
//! every call is checked against it when bound. Do not edit; regenerate with
//! `abi bindgen --globals ffi. -o ffi.rs`.

/// The global functions under `ffi.`.
#[abi_core::import(FfiGlobals)]
extern "C" {
    /// Unchecked: it is registered as packed (no signature published); declared with one `Any` argument (call the function itself
    /// for other counts).
    #[abi(name = "ffi.Array", unchecked)]
    fn array(arg0: abi_core::Any) -> abi_core::Any;
    #[abi(name = "ffi.ArrayContains")]
    fn array_contains(arg0: Vec<abi_core::Any>, arg1: abi_core::Any) -> bool;
    #[abi(name = "ffi.ArrayGetItem")]
    fn array_get_item(arg0: Vec<abi_core::Any>, arg1: i64) -> abi_core::Any;
    #[abi(name = "ffi.ArraySize")]
    fn array_size(arg0: Vec<abi_core::Any>) -> i64;
    #[abi(name = "ffi.Bytes")]
    fn bytes(arg0: &[u8]) -> Vec<u8>;
    #[abi(name = "ffi.ContainerFindFirstNonCPUDevice")]
    fn container_find_first_non_cpu_device(arg0: abi_core::Any) -> abi_core::Device;
    #[abi(name = "ffi.DeepCopy")]
    fn deep_copy(arg0: abi_core::Any) -> abi_core::Any;
    /// Unchecked: it is registered as packed (no signature published); declared with one `Any` argument (call the function itself
    /// for other counts).
    #[abi(name = "ffi.Dict", unchecked)]
    fn dict(arg0: abi_core::Any) -> abi_core::Any;
    #[abi(name = "ffi.DictClear")]
    fn dict_clear(arg0: abi_core::Map);
    #[abi(name = "ffi.DictCount")]
    fn dict_count(arg0: abi_core::Map, arg1: abi_core::Any) -> i64;
    #[abi(name = "ffi.DictErase")]
    fn dict_erase(arg0: abi_core::Map, arg1: abi_core::Any);
    #[abi(name = "ffi.DictForwardIterFunctor")]
    fn dict_forward_iter_functor(arg0: abi_core::Map) -> abi_core::Function;
    #[abi(name = "ffi.DictGetItem")]
    fn dict_get_item(arg0: abi_core::Map, arg1: abi_core::Any) -> abi_core::Any;
    #[abi(name = "ffi.DictGetItemOrMissing")]
    fn dict_get_item_or_missing(arg0: abi_core::Map, arg1: abi_core::Any) -> abi_core::Any;
    #[abi(name = "ffi.DictSetItem")]
    fn dict_set_item(arg0: abi_core::Map, arg1: abi_core::Any, arg2: abi_core::Any);
    #[abi(name = "ffi.DictSize")]
    fn dict_size(arg0: abi_core::Map) -> i64;
    #[abi(name = "ffi.FromJSONGraph")]
    fn from_json_graph(arg0: abi_core::Any) -> abi_core::Any;
    #[abi(name = "ffi.FromJSONGraphString")]
    fn from_json_graph_string(arg0: &str) -> abi_core::Any;
    #[abi(name = "ffi.FunctionFromExternC")]
    fn function_from_extern_c(
        arg0: *mut core::ffi::c_void,
        arg1: *mut core::ffi::c_void,
        arg2: *mut core::ffi::c_void,
    ) -> abi_core::Function;
    #[abi(name = "ffi.FunctionListGlobalNamesFunctor")]
    fn function_list_global_names_functor() -> abi_core::Function;
    #[abi(name = "ffi.FunctionRemoveGlobal")]
    fn function_remove_global(arg0: &str) -> bool;
    #[abi(name = "ffi.GetFirstStructuralMismatch")]
    fn get_first_structural_mismatch(
        arg0: abi_core::Any,
        arg1: abi_core::Any,
        arg2: bool,
        arg3: bool,
    ) -> Option<(AccessPath, AccessPath)>;
    #[abi(name = "ffi.GetGlobalFuncMetadata")]
    fn get_global_func_metadata(arg0: &str) -> String;
    #[abi(name = "ffi.GetInvalidObject")]
    fn get_invalid_object() -> abi_core::Reflected;
    #[abi(name = "ffi.GetKwargsObject")]
    fn get_kwargs_object() -> abi_core::Reflected;
    #[abi(name = "ffi.GetRegisteredTypeKeys")]
    fn get_registered_type_keys() -> Vec<String>;
    /// Unchecked: it is registered as packed (no signature published); declared with one `Any` argument (call the function itself
    /// for other counts).
    #[abi(name = "ffi.List", unchecked)]
    fn list(arg0: abi_core::Any) -> abi_core::Any;
    #[abi(name = "ffi.ListAppend")]
    fn list_append(arg0: abi_core::List<abi_core::Any>, arg1: abi_core::Any);
    #[abi(name = "ffi.ListClear")]
    fn list_clear(arg0: abi_core::List<abi_core::Any>);
    #[abi(name = "ffi.ListContains")]
    fn list_contains(arg0: abi_core::List<abi_core::Any>, arg1: abi_core::Any) -> bool;
    #[abi(name = "ffi.ListErase")]
    fn list_erase(arg0: abi_core::List<abi_core::Any>, arg1: i64);
    #[abi(name = "ffi.ListEraseRange")]
    fn list_erase_range(arg0: abi_core::List<abi_core::Any>, arg1: i64, arg2: i64);
    #[abi(name = "ffi.ListGetItem")]
    fn list_get_item(arg0: abi_core::List<abi_core::Any>, arg1: i64) -> abi_core::Any;
    #[abi(name = "ffi.ListInsert")]
    fn list_insert(arg0: abi_core::List<abi_core::Any>, arg1: i64, arg2: abi_core::Any);
    #[abi(name = "ffi.ListPop")]
    fn list_pop(arg0: abi_core::List<abi_core::Any>, arg1: i64) -> abi_core::Any;
    #[abi(name = "ffi.ListReplaceSlice")]
    fn list_replace_slice(
        arg0: abi_core::List<abi_core::Any>,
        arg1: i64,
        arg2: i64,
        arg3: abi_core::List<abi_core::Any>,
    );
    #[abi(name = "ffi.ListReserve")]
    fn list_reserve(arg0: abi_core::List<abi_core::Any>, arg1: i64);
    #[abi(name = "ffi.ListReverse")]
    fn list_reverse(arg0: abi_core::List<abi_core::Any>);
    #[abi(name = "ffi.ListSetItem")]
    fn list_set_item(arg0: abi_core::List<abi_core::Any>, arg1: i64, arg2: abi_core::Any);
    #[abi(name = "ffi.ListSize")]
    fn list_size(arg0: abi_core::List<abi_core::Any>) -> i64;
    #[abi(name = "ffi.MakeFieldGetter")]
    fn make_field_getter(arg0: i64) -> i64;
    #[abi(name = "ffi.MakeFieldSetter")]
    fn make_field_setter(arg0: i64, arg1: i64, arg2: i64) -> abi_core::Function;
    /// Unchecked: it is registered as packed (no signature published); declared with one `Any` argument (call the function itself
    /// for other counts).
    #[abi(name = "ffi.MakeObjectFromPackedArgs", unchecked)]
    fn make_object_from_packed_args(arg0: abi_core::Any) -> abi_core::Any;
    /// Unchecked: it is registered as packed (no signature published); declared with one `Any` argument (call the function itself
    /// for other counts).
    #[abi(name = "ffi.Map", unchecked)]
    fn map(arg0: abi_core::Any) -> abi_core::Any;
    #[abi(name = "ffi.MapCount")]
    fn map_count(arg0: abi_core::Map, arg1: abi_core::Any) -> i64;
    #[abi(name = "ffi.MapForwardIterFunctor")]
    fn map_forward_iter_functor(arg0: abi_core::Map) -> abi_core::Function;
    #[abi(name = "ffi.MapGetItem")]
    fn map_get_item(arg0: abi_core::Map, arg1: abi_core::Any) -> abi_core::Any;
    #[abi(name = "ffi.MapGetItemOrMissing")]
    fn map_get_item_or_missing(arg0: abi_core::Map, arg1: abi_core::Any) -> abi_core::Any;
    #[abi(name = "ffi.MapSize")]
    fn map_size(arg0: abi_core::Map) -> i64;
    #[abi(name = "ffi.Module.load_from_file.so")]
    fn module_load_from_file_so(arg0: &str, arg1: &str) -> Module;
    #[abi(name = "ffi.ModuleClearImports")]
    fn module_clear_imports(arg0: Module);
    #[abi(name = "ffi.ModuleGetFunction")]
    fn module_get_function(arg0: Module, arg1: &str, arg2: bool) -> Option<abi_core::Function>;
    #[abi(name = "ffi.ModuleGetFunctionDoc")]
    fn module_get_function_doc(arg0: Module, arg1: &str, arg2: bool) -> Option<String>;
    #[abi(name = "ffi.ModuleGetFunctionMetadata")]
    fn module_get_function_metadata(arg0: Module, arg1: &str, arg2: bool) -> Option<String>;
    #[abi(name = "ffi.ModuleGetKind")]
    fn module_get_kind(arg0: Module) -> String;
    #[abi(name = "ffi.ModuleGetPropertyMask")]
    fn module_get_property_mask(arg0: Module) -> i64;
    #[abi(name = "ffi.ModuleGetWriteFormats")]
    fn module_get_write_formats(arg0: Module) -> Vec<String>;
    #[abi(name = "ffi.ModuleGlobalsAdd")]
    fn module_globals_add(arg0: Module);
    #[abi(name = "ffi.ModuleGlobalsRemove")]
    fn module_globals_remove(arg0: Module);
    #[abi(name = "ffi.ModuleImplementsFunction")]
    fn module_implements_function(arg0: Module, arg1: &str, arg2: bool) -> bool;
    #[abi(name = "ffi.ModuleImportModule")]
    fn module_import_module(arg0: Module, arg1: Module);
    #[abi(name = "ffi.ModuleInspectSource")]
    fn module_inspect_source(arg0: Module, arg1: &str) -> String;
    #[abi(name = "ffi.ModuleLoadFromFile")]
    fn module_load_from_file(arg0: &str) -> Module;
    #[abi(name = "ffi.ModuleWriteToFile")]
    fn module_write_to_file(arg0: Module, arg1: &str, arg2: &str);
    #[abi(name = "ffi.RecursiveEq")]
    fn recursive_eq(arg0: abi_core::Any, arg1: abi_core::Any) -> bool;
    #[abi(name = "ffi.RecursiveGe")]
    fn recursive_ge(arg0: abi_core::Any, arg1: abi_core::Any) -> bool;
    #[abi(name = "ffi.RecursiveGt")]
    fn recursive_gt(arg0: abi_core::Any, arg1: abi_core::Any) -> bool;
    #[abi(name = "ffi.RecursiveHash")]
    fn recursive_hash(arg0: abi_core::Any) -> i64;
    #[abi(name = "ffi.RecursiveLe")]
    fn recursive_le(arg0: abi_core::Any, arg1: abi_core::Any) -> bool;
    #[abi(name = "ffi.RecursiveLt")]
    fn recursive_lt(arg0: abi_core::Any, arg1: abi_core::Any) -> bool;
    #[abi(name = "ffi.ReprPrint")]
    fn repr_print(arg0: abi_core::Any) -> String;
    /// Unchecked: it is registered as packed (no signature published); declared with one `Any` argument (call the function itself
    /// for other counts).
    #[abi(name = "ffi.Shape", unchecked)]
    fn shape(arg0: abi_core::Any) -> abi_core::Any;
    #[abi(name = "ffi.String")]
    fn string(arg0: &str) -> String;
    #[abi(name = "ffi.StructuralEqual")]
    fn structural_equal(arg0: abi_core::Any, arg1: abi_core::Any, arg2: bool, arg3: bool) -> bool;
    #[abi(name = "ffi.StructuralHash")]
    fn structural_hash(arg0: abi_core::Any, arg1: bool, arg2: bool) -> i64;
    #[abi(name = "ffi.StructuralKey")]
    fn structural_key(arg0: abi_core::Any) -> StructuralKey;
    #[abi(name = "ffi.StructuralKeyEqual")]
    fn structural_key_equal(arg0: abi_core::Any, arg1: abi_core::Any) -> bool;
    #[abi(name = "ffi.StructuralMap")]
    fn structural_map(
        arg0: abi_core::Any,
        arg1: Vec<(i64, abi_core::Function)>,
        arg2: Vec<(i64, abi_core::Function)>,
        arg3: i64,
    ) -> abi_core::Any;
    #[abi(name = "ffi.StructuralMutate")]
    fn structural_mutate(
        arg0: abi_core::Any,
        arg1: Vec<(i64, abi_core::Function, bool)>,
    ) -> abi_core::Any;
    #[abi(name = "ffi.StructuralMutatorDefRegionKind")]
    fn structural_mutator_def_region_kind(arg0: StructuralMutator) -> i64;
    #[abi(name = "ffi.StructuralMutatorDefaultMutate")]
    fn structural_mutator_default_mutate(
        arg0: StructuralMutator,
        arg1: abi_core::Any,
    ) -> abi_core::Any;
    #[abi(name = "ffi.StructuralMutatorMutate")]
    fn structural_mutator_mutate(arg0: StructuralMutator, arg1: abi_core::Any) -> abi_core::Any;
    #[abi(name = "ffi.StructuralMutatorVarRemapGet")]
    fn structural_mutator_var_remap_get(
        arg0: StructuralMutator,
        arg1: abi_core::Any,
    ) -> abi_core::Any;
    #[abi(name = "ffi.StructuralMutatorVarRemapSet")]
    fn structural_mutator_var_remap_set(
        arg0: StructuralMutator,
        arg1: abi_core::Any,
        arg2: abi_core::Any,
    );
    #[abi(name = "ffi.StructuralMutatorWithDefRegionKind")]
    fn structural_mutator_with_def_region_kind(
        arg0: StructuralMutator,
        arg1: i64,
        arg2: abi_core::Function,
    ) -> abi_core::Any;
    #[abi(name = "ffi.StructuralVisit")]
    fn structural_visit(
        arg0: abi_core::Any,
        arg1: Vec<(i64, abi_core::Function)>,
    ) -> Option<VisitInterrupt>;
    #[abi(name = "ffi.StructuralVisitorDefRegionKind")]
    fn structural_visitor_def_region_kind(arg0: StructuralVisitor) -> i64;
    #[abi(name = "ffi.StructuralVisitorDefaultVisit")]
    fn structural_visitor_default_visit(
        arg0: StructuralVisitor,
        arg1: abi_core::Any,
    ) -> Option<VisitInterrupt>;
    #[abi(name = "ffi.StructuralVisitorVisit")]
    fn structural_visitor_visit(
        arg0: StructuralVisitor,
        arg1: abi_core::Any,
    ) -> Option<VisitInterrupt>;
    #[abi(name = "ffi.StructuralVisitorWithDefRegionKind")]
    fn structural_visitor_with_def_region_kind(
        arg0: StructuralVisitor,
        arg1: i64,
        arg2: abi_core::Function,
    ) -> abi_core::Any;
    #[abi(name = "ffi.StructuralWalk")]
    fn structural_walk(
        arg0: abi_core::Any,
        arg1: Vec<(i64, abi_core::Function)>,
        arg2: Vec<(i64, abi_core::Function)>,
        arg3: i64,
    ) -> Option<VisitInterrupt>;
    /// Unchecked: it is registered as packed (no signature published); declared with one `Any` argument (call the function itself
    /// for other counts).
    #[abi(name = "ffi.SystemLib", unchecked)]
    fn system_lib(arg0: abi_core::Any) -> abi_core::Any;
    #[abi(name = "ffi.ToJSONGraph")]
    fn to_json_graph(arg0: abi_core::Any, arg1: abi_core::Any) -> abi_core::Any;
    #[abi(name = "ffi.ToJSONGraphString")]
    fn to_json_graph_string(arg0: abi_core::Any, arg1: abi_core::Any) -> String;
    #[abi(name = "ffi.VisitErrorContext.FindAccessPaths")]
    fn visit_error_context_find_access_paths(
        arg0: abi_core::Reflected,
        arg1: VisitErrorContext,
        arg2: bool,
    ) -> Vec<AccessPath>;
    #[abi(name = "ffi.VisitInterrupt")]
    fn visit_interrupt(arg0: abi_core::Any) -> VisitInterrupt;
    #[abi(name = "ffi._PyClassRegisterTypeAttrColumns")]
    fn py_class_register_type_attr_columns(arg0: i64, arg1: i64);
    #[abi(name = "ffi._RegisterFFIInit")]
    fn register_ffi_init(arg0: i64);
    #[abi(name = "ffi.json.Parse")]
    fn json_parse(arg0: &str) -> abi_core::Any;
    #[abi(name = "ffi.json.Stringify")]
    fn json_stringify(arg0: abi_core::Any, arg1: Option<i64>) -> String;
}

abi_core::reflected_type! {
    /// An object of `ffi.Module`.
    pub struct Module = "ffi.Module";
}

impl Module {
    /// imports_
    pub fn imports_(&self) -> abi_core::Result<Vec<abi_core::Any>> {
        abi_core::Reflected::get(self, "imports_")
    }
}

abi_core::reflected_type! {
    /// An object of `ffi.StructuralKey`.
    pub struct StructuralKey = "ffi.StructuralKey";
}

impl StructuralKey {
    /// Makes a `ffi.StructuralKey` with the type's constructor (`__ffi_init__`).
    pub fn new(arg0: abi_core::Any) -> abi_core::Result<StructuralKey> {
        let arg0 = abi_core::Any::from_value(arg0)?;
        abi_core::Reflected::call_static("ffi.StructuralKey", "__ffi_init__", &[arg0.view()])
    }

    /// hash_i64
    pub fn hash_i64(&self) -> abi_core::Result<i64> {
        abi_core::Reflected::get(self, "hash_i64")
    }

    /// key
    pub fn key(&self) -> abi_core::Result<abi_core::Any> {
        abi_core::Reflected::get(self, "key")
    }
}

abi_core::reflected_type! {
    /// An object of `ffi.StructuralMutator`.
    pub struct StructuralMutator = "ffi.StructuralMutator";
}

abi_core::reflected_type! {
    /// An object of `ffi.StructuralVisitor`.
    pub struct StructuralVisitor = "ffi.StructuralVisitor";
}

abi_core::reflected_type! {
    /// An object of `ffi.VisitErrorContext`.
    pub struct VisitErrorContext = "ffi.VisitErrorContext";
}

impl VisitErrorContext {
    /// prev_error_context
    pub fn prev_error_context(&self) -> abi_core::Result<Option<abi_core::Reflected>> {
        abi_core::Reflected::get(self, "prev_error_context")
    }

    /// reverse_visit_pattern
    pub fn reverse_visit_pattern(&self) -> abi_core::Result<abi_core::List<abi_core::Reflected>> {
        abi_core::Reflected::get(self, "reverse_visit_pattern")
    }
}

abi_core::reflected_type! {
    /// An object of `ffi.VisitInterrupt`.
    pub struct VisitInterrupt = "ffi.VisitInterrupt";
}

impl VisitInterrupt {
    /// value
    pub fn value(&self) -> abi_core::Result<abi_core::Any> {
        abi_core::Reflected::get(self, "value")
    }
}

abi_core::reflected_type! {
    /// An object of `ffi.reflection.AccessPath`.
    pub struct AccessPath = "ffi.reflection.AccessPath";
}

impl AccessPath {
    /// depth
    pub fn depth(&self) -> abi_core::Result<i64> {
        abi_core::Reflected::get(self, "depth")
    }

    /// parent
    pub fn parent(&self) -> abi_core::Result<Option<abi_core::Reflected>> {
        abi_core::Reflected::get(self, "parent")
    }

    /// step
    pub fn step(&self) -> abi_core::Result<Option<AccessStep>> {
        abi_core::Reflected::get(self, "step")
    }

    /// _array_item
    pub fn _array_item(&self, arg1: i64) -> abi_core::Result<AccessPath> {
        let arg1 = abi_core::Any::from_value(arg1)?;
        abi_core::Reflected::call(self, "_array_item", &[arg1.view()])
    }

    /// _array_item_missing
    pub fn _array_item_missing(&self, arg1: i64) -> abi_core::Result<AccessPath> {
        let arg1 = abi_core::Any::from_value(arg1)?;
        abi_core::Reflected::call(self, "_array_item_missing", &[arg1.view()])
    }

    /// _attr
    pub fn _attr(&self, arg1: String) -> abi_core::Result<AccessPath> {
        let arg1 = abi_core::Any::from_value(arg1)?;
        abi_core::Reflected::call(self, "_attr", &[arg1.view()])
    }

    /// _attr_missing
    pub fn _attr_missing(&self, arg1: String) -> abi_core::Result<AccessPath> {
        let arg1 = abi_core::Any::from_value(arg1)?;
        abi_core::Reflected::call(self, "_attr_missing", &[arg1.view()])
    }

    /// _extend
    pub fn _extend(&self, arg1: AccessStep) -> abi_core::Result<AccessPath> {
        let arg1 = abi_core::Any::from_value(arg1)?;
        abi_core::Reflected::call(self, "_extend", &[arg1.view()])
    }

    /// _is_prefix_of
    pub fn _is_prefix_of(&self, arg1: AccessPath) -> abi_core::Result<bool> {
        let arg1 = abi_core::Any::from_value(arg1)?;
        abi_core::Reflected::call(self, "_is_prefix_of", &[arg1.view()])
    }

    /// _map_item
    pub fn _map_item(&self, arg1: abi_core::Any) -> abi_core::Result<AccessPath> {
        let arg1 = abi_core::Any::from_value(arg1)?;
        abi_core::Reflected::call(self, "_map_item", &[arg1.view()])
    }

    /// _map_item_missing
    pub fn _map_item_missing(&self, arg1: abi_core::Any) -> abi_core::Result<AccessPath> {
        let arg1 = abi_core::Any::from_value(arg1)?;
        abi_core::Reflected::call(self, "_map_item_missing", &[arg1.view()])
    }

    /// _path_equal
    pub fn _path_equal(&self, arg1: AccessPath) -> abi_core::Result<bool> {
        let arg1 = abi_core::Any::from_value(arg1)?;
        abi_core::Reflected::call(self, "_path_equal", &[arg1.view()])
    }

    /// _root
    pub fn _root() -> abi_core::Result<AccessPath> {
        abi_core::Reflected::call_static("ffi.reflection.AccessPath", "_root", &[])
    }

    /// _to_steps
    pub fn _to_steps(&self) -> abi_core::Result<Vec<AccessStep>> {
        abi_core::Reflected::call(self, "_to_steps", &[])
    }
}

abi_core::reflected_type! {
    /// An object of `ffi.reflection.AccessStep`.
    pub struct AccessStep = "ffi.reflection.AccessStep";
}

impl AccessStep {
    /// key
    pub fn key(&self) -> abi_core::Result<abi_core::Any> {
        abi_core::Reflected::get(self, "key")
    }

    /// kind
    pub fn kind(&self) -> abi_core::Result<i64> {
        abi_core::Reflected::get(self, "kind")
    }
}
