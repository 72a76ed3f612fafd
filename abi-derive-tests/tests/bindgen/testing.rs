//! Rust bindings to the globals under `testing.`, written by `abi bindgen` from the metadata they publish:
//! every call is checked against it when bound. Do not edit; regenerate with
//! `abi bindgen --load libtvm_ffi_testing.so --globals testing. -o testing.rs`.

/// The global functions under `testing.`.
#[abi_core::import(TestingGlobals)]
extern "C" {
    #[abi(name = "testing.TestIntPairSum")]
    fn test_int_pair_sum(arg0: TestIntPair) -> i64;
    #[abi(name = "testing.add_one")]
    fn add_one(arg0: i64) -> i64;
    /// Unchecked: it is registered as packed (no signature published); declared with one `Any` argument (call the function itself
    /// for other counts).
    #[abi(name = "testing.apply", unchecked)]
    fn apply(arg0: abi_core::Any) -> abi_core::Any;
    /// Unchecked: it is registered as packed (no signature published); declared with one `Any` argument (call the function itself
    /// for other counts).
    #[abi(name = "testing.echo", unchecked)]
    fn echo(arg0: abi_core::Any) -> abi_core::Any;
    #[abi(name = "testing.enum_variant_get")]
    fn enum_variant_get(arg0: &str) -> Enum;
    #[abi(name = "testing.get_add_one_c_symbol")]
    fn get_add_one_c_symbol() -> i64;
    #[abi(name = "testing.get_mlir_add_one_c_symbol")]
    fn get_mlir_add_one_c_symbol() -> i64;
    #[abi(name = "testing.make_array_with_mixed")]
    fn make_array_with_mixed(arg0: abi_core::Tensor, arg1: i64) -> Vec<abi_core::Any>;
    #[abi(name = "testing.make_array_with_tensor")]
    fn make_array_with_tensor(arg0: abi_core::Tensor) -> Vec<abi_core::Any>;
    #[abi(name = "testing.make_dict_with_tensor")]
    fn make_dict_with_tensor(arg0: abi_core::Tensor) -> abi_core::Dict<String, abi_core::Any>;
    #[abi(name = "testing.make_empty_array_with_tensor_input")]
    fn make_empty_array_with_tensor_input(arg0: abi_core::Tensor) -> Vec<abi_core::Any>;
    #[abi(name = "testing.make_list_with_tensor")]
    fn make_list_with_tensor(arg0: abi_core::Tensor, arg1: i64) -> abi_core::List<abi_core::Any>;
    #[abi(name = "testing.make_map_with_tensor")]
    fn make_map_with_tensor(
        arg0: abi_core::Tensor,
    ) -> std::collections::HashMap<String, abi_core::Any>;
    #[abi(name = "testing.make_nested_array_with_tensor")]
    fn make_nested_array_with_tensor(arg0: abi_core::Tensor) -> Vec<abi_core::Any>;
    #[abi(name = "testing.make_nested_map_with_tensor")]
    fn make_nested_map_with_tensor(
        arg0: abi_core::Tensor,
        arg1: abi_core::Tensor,
    ) -> std::collections::HashMap<String, abi_core::Any>;
    #[abi(name = "testing.make_unregistered_object")]
    fn make_unregistered_object() -> abi_core::Reflected;
    #[abi(name = "testing.make_visit_region_graph")]
    fn make_visit_region_graph(arg0: bool) -> abi_core::Any;
    /// Unchecked: it is registered as packed (no signature published); declared with one `Any` argument (call the function itself
    /// for other counts).
    #[abi(name = "testing.nop", unchecked)]
    fn nop(arg0: abi_core::Any) -> abi_core::Any;
    #[abi(name = "testing.object_use_count")]
    fn object_use_count(arg0: abi_core::Reflected) -> i64;
    #[abi(name = "testing.optional_tensor_view_has_value")]
    fn optional_tensor_view_has_value(arg0: Option<abi_core::Tensor>) -> bool;
    #[abi(name = "testing.run_check_signal")]
    fn run_check_signal(arg0: i64);
    #[abi(name = "testing.schema_arr_map_opt")]
    fn schema_arr_map_opt(
        arg0: Vec<Option<i64>>,
        arg1: std::collections::HashMap<String, Vec<i64>>,
        arg2: Option<&str>,
    ) -> std::collections::HashMap<String, Vec<i64>>;
    #[abi(name = "testing.schema_id_any")]
    fn schema_id_any(arg0: abi_core::Any) -> abi_core::Any;
    #[abi(name = "testing.schema_id_arr")]
    fn schema_id_arr(arg0: Vec<abi_core::Any>) -> Vec<abi_core::Any>;
    #[abi(name = "testing.schema_id_arr_int")]
    fn schema_id_arr_int(arg0: Vec<i64>) -> Vec<i64>;
    #[abi(name = "testing.schema_id_arr_obj")]
    fn schema_id_arr_obj(arg0: Vec<abi_core::Reflected>) -> Vec<abi_core::Reflected>;
    #[abi(name = "testing.schema_id_arr_str")]
    fn schema_id_arr_str(arg0: Vec<String>) -> Vec<String>;
    #[abi(name = "testing.schema_id_bool")]
    fn schema_id_bool(arg0: bool) -> bool;
    #[abi(name = "testing.schema_id_bytes")]
    fn schema_id_bytes(arg0: &[u8]) -> Vec<u8>;
    #[abi(name = "testing.schema_id_device")]
    fn schema_id_device(arg0: abi_core::Device) -> abi_core::Device;
    #[abi(name = "testing.schema_id_dict_str_int")]
    fn schema_id_dict_str_int(arg0: abi_core::Dict<String, i64>) -> abi_core::Dict<String, i64>;
    #[abi(name = "testing.schema_id_dict_str_str")]
    fn schema_id_dict_str_str(
        arg0: abi_core::Dict<String, String>,
    ) -> abi_core::Dict<String, String>;
    #[abi(name = "testing.schema_id_dltensor")]
    fn schema_id_dltensor(arg0: abi_core::Tensor) -> abi_core::Tensor;
    #[abi(name = "testing.schema_id_dtype")]
    fn schema_id_dtype(arg0: abi_core::DataType) -> abi_core::DataType;
    #[abi(name = "testing.schema_id_float")]
    fn schema_id_float(arg0: f64) -> f64;
    #[abi(name = "testing.schema_id_func")]
    fn schema_id_func(arg0: abi_core::Function) -> abi_core::Function;
    #[abi(name = "testing.schema_id_func_typed")]
    fn schema_id_func_typed(
        arg0: abi_core::TypedFunction<fn(i64, f64, abi_core::Function)>,
    ) -> abi_core::TypedFunction<fn(i64, f64, abi_core::Function)>;
    #[abi(name = "testing.schema_id_int")]
    fn schema_id_int(arg0: i64) -> i64;
    #[abi(name = "testing.schema_id_list_int")]
    fn schema_id_list_int(arg0: abi_core::List<i64>) -> abi_core::List<i64>;
    #[abi(name = "testing.schema_id_list_obj")]
    fn schema_id_list_obj(
        arg0: abi_core::List<abi_core::Reflected>,
    ) -> abi_core::List<abi_core::Reflected>;
    #[abi(name = "testing.schema_id_list_str")]
    fn schema_id_list_str(arg0: abi_core::List<String>) -> abi_core::List<String>;
    #[abi(name = "testing.schema_id_map")]
    fn schema_id_map(arg0: abi_core::Map) -> abi_core::Map;
    #[abi(name = "testing.schema_id_map_str_int")]
    fn schema_id_map_str_int(
        arg0: std::collections::HashMap<String, i64>,
    ) -> std::collections::HashMap<String, i64>;
    #[abi(name = "testing.schema_id_map_str_obj")]
    fn schema_id_map_str_obj(
        arg0: std::collections::HashMap<String, abi_core::Reflected>,
    ) -> std::collections::HashMap<String, abi_core::Reflected>;
    #[abi(name = "testing.schema_id_map_str_str")]
    fn schema_id_map_str_str(
        arg0: std::collections::HashMap<String, String>,
    ) -> std::collections::HashMap<String, String>;
    #[abi(name = "testing.schema_id_object")]
    fn schema_id_object(arg0: abi_core::Reflected) -> abi_core::Reflected;
    #[abi(name = "testing.schema_id_opt_int")]
    fn schema_id_opt_int(arg0: Option<i64>) -> Option<i64>;
    #[abi(name = "testing.schema_id_opt_obj")]
    fn schema_id_opt_obj(arg0: Option<abi_core::Reflected>) -> Option<abi_core::Reflected>;
    #[abi(name = "testing.schema_id_opt_str")]
    fn schema_id_opt_str(arg0: Option<&str>) -> Option<String>;
    #[abi(name = "testing.schema_id_string")]
    fn schema_id_string(arg0: &str) -> String;
    #[abi(name = "testing.schema_id_tensor")]
    fn schema_id_tensor(arg0: abi_core::Tensor) -> abi_core::Tensor;
    #[abi(name = "testing.schema_id_variant_int_str")]
    fn schema_id_variant_int_str(
        arg0: abi_core::Variant2<i64, String>,
    ) -> abi_core::Variant2<i64, String>;
    #[abi(name = "testing.schema_no_args")]
    fn schema_no_args() -> i64;
    #[abi(name = "testing.schema_no_args_no_return")]
    fn schema_no_args_no_return();
    #[abi(name = "testing.schema_no_return")]
    fn schema_no_return(arg0: i64);
    /// Unchecked: it is registered as packed (no signature published); declared with one `Any` argument (call the function itself
    /// for other counts).
    #[abi(name = "testing.schema_packed", unchecked)]
    fn schema_packed(arg0: abi_core::Any) -> abi_core::Any;
    #[abi(name = "testing.schema_tensor_view_input")]
    fn schema_tensor_view_input(arg0: abi_core::Tensor);
    #[abi(name = "testing.schema_variant_mix")]
    fn schema_variant_mix(
        arg0: abi_core::Variant3<i64, String, Vec<i64>>,
    ) -> abi_core::Variant3<i64, String, Vec<i64>>;
    #[abi(name = "testing.test_raise_error")]
    fn test_raise_error(arg0: &str, arg1: &str);
}

abi_core::reflected_type! {
    /// An object of `ffi.Enum`.
    pub struct Enum = "ffi.Enum";
}

impl Enum {
    /// Canonical integer index.
    pub fn _int_index(&self) -> abi_core::Result<i64> {
        abi_core::Reflected::get(self, "_int_index")
    }

    /// Canonical string index.
    pub fn _str_index(&self) -> abi_core::Result<String> {
        abi_core::Reflected::get(self, "_str_index")
    }
}

abi_core::reflected_type! {
    /// An object of `testing.TestIntPair`.
    pub struct TestIntPair = "testing.TestIntPair";
}

impl TestIntPair {
    /// Makes a `testing.TestIntPair` with the type's constructor (`__ffi_init__`).
    pub fn new(arg0: i64, arg1: i64) -> abi_core::Result<TestIntPair> {
        let arg0 = abi_core::Any::from_value(arg0)?;
        let arg1 = abi_core::Any::from_value(arg1)?;
        abi_core::Reflected::call_static(
            "testing.TestIntPair",
            "__ffi_init__",
            &[arg0.view(), arg1.view()],
        )
    }

    /// Field `a`
    pub fn a(&self) -> abi_core::Result<i64> {
        abi_core::Reflected::get(self, "a")
    }

    /// Field `b`
    pub fn b(&self) -> abi_core::Result<i64> {
        abi_core::Reflected::get(self, "b")
    }

    /// Method to compute sum of a and b
    pub fn sum(&self) -> abi_core::Result<i64> {
        abi_core::Reflected::call(self, "sum", &[])
    }
}
