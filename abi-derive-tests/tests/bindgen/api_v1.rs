//! Rust bindings to `libapi_v1.so`, written by `abi bindgen` from the metadata they publish:
//! every call is checked against it when bound. Do not edit; regenerate with
//! `abi bindgen libapi_v1.so --no-load -o api_v1.rs`.

/// The exports of `libapi_v1.so`.
#[abi_core::import(ApiV1)]
extern "C" {
    /// The area of a `w` by `h` rectangle.
    fn area(w: f64, h: f64) -> f64;
    /// param_added_with_default: v2 adds `by` with a default.
    fn bump(x: i64) -> i64;
    /// export_removed.
    fn dropped(x: i64, y: i64) -> i64;
    /// callback_changed.
    fn each(f: abi_core::TypedFunction<fn(i64) -> i64>) -> i64;
    /// struct_fields_changed (added).
    fn extent(s: Size) -> f64;
    /// param_added.
    fn grow(x: i64) -> i64;
    /// param_widened in width: f32 in v1, f64 in v2.
    fn halve(x: f32) -> f64;
    /// result_narrowed in width: f64 in v1, f32 in v2.
    fn mean(x: f64) -> f64;
    /// optional_made_required.
    fn need(v: Option<i64>) -> i64;
    /// struct_fields_changed (reordered).
    fn norm(p: Point) -> f64;
    /// export_renamed: v2 calls it `new_name`.
    fn old_name(x: i64) -> i64;
    /// op_backward_changed: v2 names `op_grad_b`.
    fn op_backward(x: abi_core::Tensor, y: abi_core::Tensor);
    /// A backward of `op_backward`.
    fn op_grad_a(x: abi_core::Tensor, dy: abi_core::Tensor, dx: abi_core::Tensor);
    /// Another backward of `op_backward`.
    fn op_grad_b(x: abi_core::Tensor, dy: abi_core::Tensor, dx: abi_core::Tensor);
    /// op_output_removed: v2 drops `hi`.
    fn op_outputs(x: abi_core::Tensor, lo: abi_core::Tensor, hi: abi_core::Tensor);
    /// op_rule_changed: v2 makes `y` `[x.0, 3]`.
    fn op_rule(x: abi_core::Tensor, y: abi_core::Tensor);
    /// default_removed: v2 makes `width` required.
    fn pad(s: &str, width: i64) -> String;
    /// positional_param_renamed: v2 renames the expanded `p` (its slots `p.a`, `p.b`).
    fn pair_sum(p_a: f64, p_b: f64) -> f64;
    /// param_renamed.
    fn rename_param(count: i64) -> i64;
    /// default_added: v2 gives `n` a default.
    fn repeat(s: &str, n: i64) -> String;
    /// result_changed.
    fn result(x: i64) -> i64;
    /// default_changed: 2 digits in v1, 3 in v2.
    fn round_to(x: f64, digits: i32) -> f64;
    /// param_removed.
    fn shrink(x: i64, by: i64) -> i64;
    /// param_narrowed in width: i64 in v1, u8 in v2 (300 no longer fits).
    fn sides_of(n: i64) -> i64;
    /// result_widened: i32 in v1, i64 in v2.
    fn small(x: i32) -> i32;
    /// params_reordered.
    fn span(lo: i64, hi: f64) -> f64;
    /// param_narrowed.
    fn store(v: abi_core::Any) -> i64;
    /// global_renamed: `api.version` in v1, `api.release` in v2.
    fn version() -> i64;
    /// param_widened (to Optional).
    fn widen(v: i64) -> i64;
}

/// The struct `Point`, as the library declares it.
#[derive(Clone, Debug, PartialEq, abi_core::AbiStruct)]
pub struct Point {
    /// `x`.
    pub x: f64,
    /// `y`.
    pub y: f64,
}

/// The struct `Size`, as the library declares it.
#[derive(Clone, Debug, PartialEq, abi_core::AbiStruct)]
pub struct Size {
    /// `w`.
    pub w: f64,
    /// `h`.
    pub h: f64,
}
