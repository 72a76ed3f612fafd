//! Call-cost benchmarks: every packed-call case next to its floor, measured by criterion
//! (`benches/calls.rs`) and by instruction counts under callgrind (`src/bin/icount.rs`,
//! driven by `scripts/bench.sh`). See `benches/README.md` for the method and results.

pub mod cases;
pub mod exported;
pub mod floor;

pub use cases::{case, Budget, Case, Worlds, CASES};

/// Loads libtvm_ffi into the process for good, visible to the host bridge (as under a
/// Python or C++ host), and checks that the runtime now serves this process.
pub fn load_tvm_ffi(path: &str) {
    use libloading::os::unix::{Library, RTLD_GLOBAL, RTLD_NOW};
    // SAFETY: loading libtvm_ffi runs its static constructors, which is what every host does.
    let lib = unsafe { Library::open(Some(path), RTLD_NOW | RTLD_GLOBAL) }
        .unwrap_or_else(|e| panic!("cannot load {path}: {e}"));
    core::mem::forget(lib);
    assert!(abi_core::host::has_tvm_ffi_runtime(), "{path} loaded but the host bridge does not see it");
}

#[cfg(test)]
mod tests {
    use abi_core::{Any, RawAny, SafeCall};

    fn call(f: SafeCall, args: &[Any]) -> Result<Any, abi_core::Error> {
        let raw: Vec<RawAny> = args.iter().map(|a| *a.as_raw()).collect();
        let mut out = RawAny::NONE;
        // SAFETY: live slots borrowed from `args`, a writable result slot.
        let rc = unsafe { f(core::ptr::null_mut(), raw.as_ptr(), raw.len() as i32, &mut out) };
        if rc == 0 {
            // SAFETY: success transfers the result.
            Ok(unsafe { Any::from_raw(out) })
        } else {
            Err(abi_core::host::take_raised().expect("an error is raised"))
        }
    }

    fn export(name: &str) -> SafeCall {
        abi_core::find_export(name).unwrap().safe_call
    }

    fn v<T: abi_core::IntoAny>(x: T) -> Any {
        Any::from_value(x).unwrap()
    }

    #[test]
    fn hand_written_and_generated_shims_agree() {
        for (f, name) in [(super::floor::hand_add as SafeCall, "hand"), (export("add"), "export")] {
            assert_eq!(call(f, &[v(40i64), v(2i64)]).unwrap().to::<i64>().unwrap(), 42, "{name}");
            assert_eq!(call(f, &[v(1i64), v("x")]).unwrap_err().kind(), "TypeError", "{name}");
            assert_eq!(call(f, &[v(1i64)]).unwrap_err().kind(), "TypeError", "{name}");
        }
        let args = [v(1i64), v(2i64), v(true), v(3i64)];
        for f in [super::floor::hand_mixed4 as SafeCall, export("mixed4")] {
            assert_eq!(call(f, &args).unwrap().to::<f64>().unwrap(), 6.0);
            assert!(call(f, &[v(1i64), v(2.5), v(true), v(1i64 << 40)]).is_err());
        }
        for f in [super::floor::hand_greet as SafeCall, export("greet")] {
            let out = call(f, &[v("abc")]).unwrap();
            // A heap Str object (10 bytes), NUL-terminated as the ABI requires.
            assert_eq!(out.type_index(), abi_core::ffi::type_index::STR);
            assert_eq!(out.to::<String>().unwrap(), "hello, abc");
            assert_eq!(call(f, &[]).unwrap_err().kind(), "TypeError");
            assert_eq!(call(f, &[v(1i64)]).unwrap_err().kind(), "TypeError");
        }
    }

    #[test]
    fn every_case_runs() {
        for c in super::CASES.iter().filter(|c| c.worlds.includes(false)) {
            (c.run)(3);
            assert!(super::case(c.floor).is_some(), "{} has no floor", c.name);
        }
        assert!(abi_core::host::take_raised().is_none());
    }
}
