//! Test support for the abi macros: calling exports through their symbols, and building
//! the example cdylibs the tests load.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

use abi_core::{Any, RawAny, SafeCall};

/// Calls the export `name` linked into this binary through its C shim, exactly as a host
/// does: borrowed argument slots, an owned result, the raised error on failure.
pub fn call_export(name: &str, args: &[Any]) -> abi_core::Result<Any> {
    let export = abi_core::find_export(name).unwrap_or_else(|| panic!("export `{name}` is not linked"));
    let raw: Vec<RawAny> = args.iter().map(|a| *a.as_raw()).collect();
    // SAFETY: `raw.len()` live slots borrowed from `args`, which outlive the call.
    unsafe { call_raw(export.safe_call, &raw) }
}

/// Calls `shim` with raw slots; a non-zero return must have raised an error.
///
/// # Safety
/// Every slot must be valid for the callee to borrow for the duration of the call.
pub unsafe fn call_raw(shim: SafeCall, raw: &[RawAny]) -> abi_core::Result<Any> {
    let mut out = RawAny::NONE;
    // SAFETY: the caller vouches for the slots; `out` is a writable result slot.
    let rc = unsafe { shim(core::ptr::null_mut(), raw.as_ptr(), raw.len() as i32, &mut out) };
    if rc == 0 {
        // SAFETY: success transfers ownership of the result to the caller.
        Ok(unsafe { Any::from_raw(out) })
    } else {
        Err(abi_core::host::take_raised().expect("a non-zero return must set an error"))
    }
}

/// The workspace root.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("workspace root").to_owned()
}

/// The directory cargo builds into (it honours `CARGO_TARGET_DIR` and `.cargo/config`), as
/// `cargo metadata` reports it; asked once.
pub fn target_dir() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
        let out = Command::new(cargo)
            .args(["metadata", "--format-version", "1", "--no-deps"])
            .current_dir(workspace_root())
            .output()
            .expect("run cargo metadata");
        assert!(out.status.success(), "cargo metadata failed: {}", String::from_utf8_lossy(&out.stderr));
        let meta: serde_json::Value = serde_json::from_slice(&out.stdout).expect("cargo metadata prints JSON");
        PathBuf::from(meta["target_directory"].as_str().expect("target_directory"))
    })
    .clone()
}

/// The file a cdylib whose library is named `lib_name` is built into on this target:
/// `libmathlib.so`, `libmathlib.dylib`, `mathlib.dll`.
pub fn library_file_name(lib_name: &str) -> String {
    format!("{}{lib_name}{}", std::env::consts::DLL_PREFIX, std::env::consts::DLL_SUFFIX)
}

/// Builds the cdylib of `package` (debug) and returns its path. It builds into its own
/// target directory so that a running `cargo test` never waits on its own build lock.
///
/// With `ABI_FIXTURE_DIR` set, the libraries were built beforehand into that directory and
/// are taken from there: a test run under an emulator (wine) has no cargo to build them.
pub fn fixture_library(package: &str, lib_name: &str) -> PathBuf {
    if let Some(dir) = std::env::var_os("ABI_FIXTURE_DIR") {
        let path = PathBuf::from(dir).join(library_file_name(lib_name));
        assert!(
            path.exists(),
            "{} missing: ABI_FIXTURE_DIR names a directory of built libraries ({package})",
            path.display()
        );
        return path;
    }
    static BUILT: OnceLock<Mutex<Vec<String>>> = OnceLock::new();
    let root = workspace_root();
    let target = target_dir().join("fixtures");
    // Sanitizer runs build fixtures for an explicit target so proc-macros stay plain.
    let triple = std::env::var("ABI_FIXTURE_TARGET").ok();
    let out_dir = match &triple {
        Some(t) => target.join(t).join("debug"),
        None => target.join("debug"),
    };
    let path = out_dir.join(library_file_name(lib_name));
    let mut built = BUILT.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    if !built.iter().any(|p| p == package) {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
        let mut cmd = Command::new(cargo);
        cmd.args(["build", "--quiet", "-p", package, "--target-dir"]).arg(&target).current_dir(&root);
        if let Some(t) = &triple {
            cmd.args(["--target", t]);
        }
        let status = cmd.status().expect("run cargo build for a fixture library");
        assert!(status.success(), "building {package} failed");
        built.push(package.to_owned());
    }
    assert!(path.exists(), "{} missing after building {package}", path.display());
    path
}

/// A bare `DLTensor*` argument over float32 memory the test owns, as TVM's TIR passes
/// one: the shape and strides it states, and the slot a host would pass.
#[derive(Debug)]
pub struct BareF32Tensor {
    dl: abi_core::DLTensor,
    // Vecs, not boxes: moving a box into the struct would invalidate the pointers taken
    // (Stacked Borrows retags a moved box); a Vec's buffer stays put.
    _shape: Vec<i64>,
    _strides: Option<Vec<i64>>,
}

impl BareF32Tensor {
    /// The tensor at `base` + `byte_offset` with `shape` and `strides` (in elements; `None`
    /// states none, compact row-major).
    pub fn new(base: *mut f32, byte_offset: u64, shape: &[i64], strides: Option<&[i64]>) -> BareF32Tensor {
        let mut shape = shape.to_vec();
        let mut strides = strides.map(<[i64]>::to_vec);
        let dl = abi_core::DLTensor {
            data: base.cast(),
            device: abi_core::Device::CPU,
            ndim: shape.len() as i32,
            dtype: abi_core::DataType { code: abi_core::ffi::code::FLOAT, bits: 32, lanes: 1 },
            shape: shape.as_mut_ptr(),
            strides: strides.as_mut().map_or(core::ptr::null_mut(), |s| s.as_mut_ptr()),
            byte_offset,
        };
        BareF32Tensor { dl, _shape: shape, _strides: strides }
    }

    /// The argument slot a host passes for it.
    pub fn view(&self) -> abi_core::AnyView<'_> {
        // SAFETY: the DLTensor and what it points to outlive the view (the tests keep both).
        let slot = abi_core::IntoArg::into_slot(unsafe { abi_core::TensorView::from_dl(&self.dl) }).unwrap();
        // SAFETY: as above.
        unsafe { abi_core::AnyView::from_raw(slot) }
    }
}

/// SplitMix64: a small seedable generator, good enough to spread the inputs of the
/// hostile-call and damaged-file suites, the same on every run.
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// The next number.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number below `n` (not 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// An index below `len` (not 0).
    pub fn index(&mut self, len: usize) -> usize {
        self.below(len as u64) as usize
    }

    /// One of `items` (not empty).
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.index(items.len())]
    }
}
