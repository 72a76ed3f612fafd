//! Rust bindings to `libabi_interop_lib.so`, written by `abi bindgen` from the metadata they publish:
//! every call is checked against it when bound. Do not edit; regenerate with
//! `abi bindgen libabi_interop_lib.so --no-load -o interop_lib.rs`.

/// The exports of `libabi_interop_lib.so`.
#[abi_core::import(AbiInteropLib)]
extern "C" {
    /// Adds two integers.
    fn add(a: i64, b: i64) -> i64;
    /// Length in bytes of a borrowed byte string.
    fn byte_len(data: &[u8]) -> u64;
    /// Calls `f(x)` and returns what it returns; its failure comes back unchanged.
    fn call_fn(f: abi_core::Function, x: i64) -> abi_core::Any;
    /// How many calls [`count_call`] and [`count_call_released`] counted.
    fn calls_counted() -> i64;
    /// How many calls of [`count_call_released`] had another call of it inside at the same time.
    fn calls_met() -> i64;
    /// Counts a call, and returns `text` repeated `times` times (a new string each call);
    /// raises `ValueError` for `times` outside `0..=1000`.
    fn count_call(text: &str, times: i64) -> String;
    /// [`count_call`] (the same count, result and `ValueError`), but Python callers release the
    /// GIL while it runs (`gil = "release"`; a string and a number alone would keep it), so
    /// Python threads are inside it at once: each call waits up to 100 microseconds for another
    /// to come in (its body alone is too short for threads to meet), and [`calls_met`] counts
    /// those that met one.
    fn count_call_released(text: &str, times: i64) -> String;
    /// How many times each interpolation occurs in `modes`, and the border each would pick.
    fn count_interps(modes: Vec<Interp>) -> (std::collections::HashMap<Interp, i64>, Vec<Border>);
    /// The sampling `mode` and `border` describe, with the `fallback` interpolation if any.
    fn describe_sampling(mode: Interp, border: Border, fallback: Option<Interp>) -> String;
    fn echo_any(x: abi_core::Any) -> abi_core::Any;
    fn echo_bf16(x: abi_core::half::bf16) -> abi_core::half::bf16;
    fn echo_bool(x: bool) -> bool;
    fn echo_bytes(x: &[u8]) -> Vec<u8>;
    fn echo_device(x: abi_core::Device) -> abi_core::Device;
    fn echo_dtype(x: abi_core::DataType) -> abi_core::DataType;
    fn echo_f16(x: abi_core::half::f16) -> abi_core::half::f16;
    fn echo_f32(x: f32) -> f32;
    fn echo_f64(x: f64) -> f64;
    fn echo_i16(x: i16) -> i16;
    fn echo_i32(x: i32) -> i32;
    fn echo_i64(x: i64) -> i64;
    fn echo_i8(x: i8) -> i8;
    fn echo_ints(x: Vec<i64>) -> Vec<i64>;
    fn echo_map(
        x: std::collections::HashMap<String, i64>,
    ) -> std::collections::HashMap<String, i64>;
    fn echo_opt(x: Option<i64>) -> Option<i64>;
    fn echo_opt_u64(x: Option<u64>) -> Option<u64>;
    fn echo_pair(x: (i64, String)) -> (i64, String);
    fn echo_shape(x: abi_core::Shape) -> abi_core::Shape;
    fn echo_string(x: &str) -> String;
    fn echo_strs(x: Vec<String>) -> Vec<String>;
    fn echo_tensor(x: abi_core::Tensor) -> abi_core::Tensor;
    fn echo_u16(x: u16) -> u16;
    fn echo_u32(x: u32) -> u32;
    fn echo_u64(x: u64) -> u64;
    fn echo_u64s(x: Vec<u64>) -> Vec<u64>;
    fn echo_u8(x: u8) -> u8;
    /// The area of `s` (a polygon's by the shoelace formula).
    fn figure_area(s: Figure) -> f64;
    /// Greets `name` (borrowed, zero-copy).
    fn greet(name: &str) -> String;
    /// The largest of `figures` by area, if any, and every figure by its variant's name.
    fn largest_figure(
        figures: Vec<Figure>,
    ) -> (
        Option<Figure>,
        std::collections::HashMap<String, Vec<Figure>>,
    );
    /// A new shape from `dims`.
    fn make_shape(dims: Vec<i64>) -> abi_core::Shape;
    /// The interpolation after `mode`, wrapping round.
    fn next_interp(mode: Interp) -> Interp;
    /// Panics with `message`; Python raises `RuntimeError`.
    fn panics(message: &str) -> i64;
    /// Raises an error of `kind` with `message`: a Python `Exception` of the class registered
    /// for `kind`.
    fn raise_kind(kind: &str, message: &str);
    /// Waits, for at most 10 seconds, until `parties` calls (this one among them) are inside it
    /// at once, then returns the sum of `x`; raises `TimeoutError` when they did not meet. Python
    /// threads meet here only if each releases the GIL while it waits, which a call taking an
    /// array does.
    fn rendezvous(x: abi_core::Tensor, parties: i64) -> f64;
    /// A salutation for `name`, or None when it is empty.
    fn salute(name: &str) -> Option<String>;
    /// Twice `index`, an index into an image of `len` samples: refuses a size of zero or less,
    /// an index outside it, and the index -7 (an internal error).
    fn sample_at(index: i64, len: i64) -> i64;
    /// `s` scaled by `k` (a polygon's label gets `*k`); `None` scales nothing.
    fn scale_figure(s: Figure, k: f64) -> Figure;
    /// The number of elements of a tensor object (a `Tensor` parameter takes only an object:
    /// hosts passing a bare `DLTensor*` are refused).
    fn tensor_numel(x: abi_core::Tensor) -> i64;
    /// Sum of a float64 tensor's elements; other dtypes raise `TypeError`, and data outside host
    /// memory `ValueError`.
    fn tensor_sum(x: abi_core::Tensor) -> f64;
    /// `x`, a 1-D float32 vector, as bfloat16, a dtype numpy lacks: a numpy caller gets numpy's
    /// refusal of it, through either route. Other dtypes and ranks raise `TypeError`.
    fn to_bf16(x: abi_core::Tensor) -> abi_core::Tensor;
    /// `u64::MAX`, which Python reads as 18446744073709551615 (above `i64::MAX`: an integer
    /// object crosses).
    fn u64_max() -> u64;
    /// Waits for the library's lock and returns how many holds it has seen. It may wait on a
    /// thread that holds the lock inside a Python callback, which needs the GIL to finish: so
    /// Python callers release the GIL while it runs (`gil = "release"`).
    fn wait_for_lock() -> i64;
    /// The total weight `weights` gives the interpolations of `modes` (0 for one it leaves out).
    fn weigh_interps(modes: Vec<Interp>, weights: std::collections::HashMap<Interp, f64>) -> f64;
    /// Holds the library's lock while it calls `f()` (a Python callback, say); returns how many
    /// holds the lock has seen, this one included.
    fn with_lock_held(f: abi_core::Function) -> i64;
    /// Takes no arguments.
    fn zero_args() -> i64;
}

/// The enum `Border`, as the library declares it: each value crosses as its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, abi_core::AbiEnum)]
pub enum Border {
    /// "clamp-to-edge".
    #[abi(rename = "clamp-to-edge")]
    ClampToEdge,
    /// "mirrored-repeat".
    #[abi(rename = "mirrored-repeat")]
    MirroredRepeat,
}

/// The enum `Interp`, as the library declares it: each value crosses as its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, abi_core::AbiEnum)]
pub enum Interp {
    /// "nearest".
    #[abi(rename = "nearest")]
    Nearest,
    /// "bilinear".
    #[abi(rename = "bilinear")]
    Bilinear,
    /// "cubic".
    #[abi(rename = "cubic")]
    Bicubic,
}

/// The enum with data `Figure`, as the library declares it: a value crosses as a tuple of its
/// variant's name then its fields, and registers nothing in the process (no type keys).
#[derive(Clone, Debug, PartialEq, abi_core::AbiEnum)]
pub enum Figure {
    /// "Circle".
    #[abi(rename = "Circle")]
    Circle {
        /// `r`.
        r: f64,
    },
    /// "Rect".
    #[abi(rename = "Rect")]
    Rect {
        /// `w`.
        w: f64,
        /// `h`.
        h: f64,
    },
    /// "Polygon".
    #[abi(rename = "Polygon")]
    Polygon(Vec<(f64, f64)>, String),
    /// "Empty".
    #[abi(rename = "Empty")]
    Empty,
}

/// The error kinds of `SamplingError`, as the library declares them.
///
/// What the sampling functions refuse.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SamplingError {
    /// "abi_interop_lib.SamplingError.BadSize".
    /// A size of zero or less.
    BadSize,
    /// "abi_interop_lib.SamplingError.OutOfRange".
    /// An index outside the image.
    OutOfRange,
    /// "abi_interop_lib.SamplingError.Internal".
    /// Anything else.
    Internal,
}

impl SamplingError {
    /// The kind of `error`, when it is one of these.
    pub fn of(error: &abi_core::Error) -> Option<SamplingError> {
        match error.kind() {
            "abi_interop_lib.SamplingError.BadSize" => Some(SamplingError::BadSize),
            "abi_interop_lib.SamplingError.OutOfRange" => Some(SamplingError::OutOfRange),
            "abi_interop_lib.SamplingError.Internal" => Some(SamplingError::Internal),
            _ => None,
        }
    }
}
