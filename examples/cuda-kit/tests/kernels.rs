//! The kernels, checked without a GPU. kernels/kernels.ptx must be exactly what NVRTC 13.0
//! writes for kernels/kernels.cu (so the two never drift apart), and the source must
//! compile to machine code for the cards the example targets (the assembler inside NVRTC,
//! as the driver runs it on the PTX when the module loads), without register spills.
//!
//! The NVRTC tests need `libnvrtc.so.13` on the library path: PyPI's nvidia-cuda-nvrtc
//! 13.0, which `scripts/test-cuda-kit.sh` installs in `.venv-cuda` and runs them with
//! (`--ignored`). `CUDA_KIT_BLESS=1` makes the first one rewrite kernels.ptx.

use std::path::PathBuf;

use cuda_kit::launch::{Kernel, BLOCK};
use cudarc::nvrtc::{compile_ptx_with_opts, result, sys, CompileOptions};

/// The PTX's virtual architecture: the oldest CUDA 13 still compiles for (Turing). The
/// driver compiles it for the actual card when the module loads.
const ARCH: &str = "compute_75";

fn kernels_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("kernels")
}

fn source() -> String {
    std::fs::read_to_string(kernels_dir().join("kernels.cu")).unwrap()
}

fn committed_ptx() -> String {
    std::fs::read_to_string(kernels_dir().join("kernels.ptx")).unwrap()
}

fn nvrtc_version() -> (i32, i32) {
    let (mut major, mut minor) = (0, 0);
    // SAFETY: writes two ints.
    unsafe { sys::nvrtcVersion(&mut major, &mut minor) }.result().unwrap();
    (major, minor)
}

#[test]
#[ignore = "needs libnvrtc.so.13 (PyPI's nvidia-cuda-nvrtc): scripts/test-cuda-kit.sh runs it"]
fn the_committed_ptx_is_nvrtcs_output_for_the_source() {
    assert_eq!(nvrtc_version(), (13, 0), "the PTX is NVRTC 13.0's (PTX ISA 9.0, loaded by CUDA 13 drivers)");
    let opts = CompileOptions { arch: Some(ARCH), name: Some("kernels.cu".into()), ..Default::default() };
    let ptx = compile_ptx_with_opts(source(), opts).unwrap_or_else(|e| panic!("{e}")).to_src();
    if std::env::var_os("CUDA_KIT_BLESS").is_some() {
        std::fs::write(kernels_dir().join("kernels.ptx"), &ptx).unwrap();
    }
    assert!(
        ptx == committed_ptx(),
        "kernels/kernels.ptx is not NVRTC's output for kernels.cu: run this test with CUDA_KIT_BLESS=1 and commit it"
    );
}

/// Compiles the source to machine code for `arch` with the assembler's report, and returns
/// NVRTC's log.
fn compile_to_cubin(arch: &str) -> String {
    let src = std::ffi::CString::new(source()).unwrap();
    let prog = result::create_program(&src, None).unwrap();
    let options = [format!("--gpu-architecture={arch}"), "--ptxas-options=-v".to_owned()];
    // SAFETY: a program just created, destroyed below; the log and CUBIN buffers are sized
    // by NVRTC's own size calls.
    unsafe {
        let compiled = result::compile_program(prog, &options);
        let log = result::get_program_log(prog).unwrap();
        let log = std::ffi::CStr::from_ptr(log.as_ptr()).to_string_lossy().into_owned();
        compiled.unwrap_or_else(|e| panic!("{arch}: {e:?}\n{log}"));
        let mut size = 0usize;
        sys::nvrtcGetCUBINSize(prog, &mut size).result().unwrap();
        assert!(size > 0, "{arch}: no machine code");
        let mut cubin = vec![0 as core::ffi::c_char; size];
        sys::nvrtcGetCUBIN(prog, cubin.as_mut_ptr()).result().unwrap();
        result::destroy_program(prog).unwrap();
        log
    }
}

#[test]
#[ignore = "needs libnvrtc.so.13 (PyPI's nvidia-cuda-nvrtc): scripts/test-cuda-kit.sh runs it"]
fn the_kernels_assemble_for_turing_ampere_and_hopper_without_spilling() {
    for arch in ["sm_75", "sm_80", "sm_90"] {
        let log = compile_to_cubin(arch);
        for kernel in [Kernel::Add, Kernel::Sum] {
            assert!(
                log.contains(&format!("'{}' for '{arch}'", kernel.name())),
                "{arch}: no report for {kernel:?}:\n{log}"
            );
        }
        let spills: Vec<&str> = log
            .lines()
            .filter(|l| l.contains("spill") && !l.contains("0 bytes spill stores, 0 bytes spill loads"))
            .collect();
        assert!(spills.is_empty(), "{arch}: spills: {spills:?}");
    }
}

#[test]
fn the_ptx_has_the_kernels_the_launches_name_with_the_block_they_use() {
    let ptx = committed_ptx();
    assert!(ptx.contains(".version 9.0\n") && ptx.contains(&format!(".target {}\n", ARCH.replace("compute", "sm"))));
    for kernel in [Kernel::Add, Kernel::Sum] {
        let entry = format!(".visible .entry {}(", kernel.name());
        let at = ptx.find(&entry).unwrap_or_else(|| panic!("no {entry} in kernels.ptx"));
        let header = &ptx[at..at + ptx[at..].find('{').unwrap()];
        assert!(header.contains(&format!(".maxntid {BLOCK}, 1, 1")), "{}: {header}", kernel.name());
    }
}
