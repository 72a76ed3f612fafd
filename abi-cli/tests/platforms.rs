//! The `abi` command on macOS (Mach-O) and Windows (PE) libraries, made here on Linux: a
//! real fixture library's record sections and exported symbols go, byte for byte, into a
//! small `no_std` crate placed under the section names of the other formats, and the
//! toolchain's rust-lld links it into a dylib (ld64 flavour, for arm64 and x86_64) and a
//! DLL (lld-link flavour), as `cargo build` does on those systems. `inspect`, `stubs`,
//! `diff` and `wheel` must read them as they read the Linux library; a damaged one is an
//! error line, never a crash. Needs the rustup targets `aarch64-apple-darwin`,
//! `x86_64-apple-darwin` and `x86_64-pc-windows-msvc` (scripts/ensure-tools.sh adds them).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use abi_derive_tests::{fixture_library, target_dir};
use object::{Object, ObjectSection, ObjectSymbol};

mod support;

use support::{abi, path, text};

/// The targets a library is relinked for, and the file name each gives `lib<name>`.
#[derive(Clone, Copy, Debug)]
enum Target {
    MacArm64,
    MacX86_64,
    WindowsMsvc,
}

use Target::*;

impl Target {
    fn triple(self) -> &'static str {
        match self {
            MacArm64 => "aarch64-apple-darwin",
            MacX86_64 => "x86_64-apple-darwin",
            WindowsMsvc => "x86_64-pc-windows-msvc",
        }
    }

    fn file_name(self, name: &str) -> String {
        match self {
            MacArm64 | MacX86_64 => format!("lib{name}.dylib"),
            WindowsMsvc => format!("{name}.dll"),
        }
    }

    /// The record sections' names in the target's format, in the order of [`ELF_RECORDS`].
    fn sections(self) -> [&'static str; 3] {
        match self {
            MacArm64 | MacX86_64 => [
                abi_shared::EXPORT_RECORDS_SECTION_MACHO,
                abi_shared::CLASS_RECORDS_SECTION_MACHO,
                abi_shared::IREE_RECORDS_SECTION_MACHO,
            ],
            WindowsMsvc => [
                abi_shared::EXPORT_RECORDS_SECTION_PE,
                abi_shared::CLASS_RECORDS_SECTION_PE,
                abi_shared::IREE_RECORDS_SECTION_PE,
            ],
        }
    }
}

const ELF_RECORDS: [&str; 3] =
    [abi_shared::EXPORT_RECORDS_SECTION, abi_shared::CLASS_RECORDS_SECTION, abi_shared::IREE_RECORDS_SECTION];

/// The linker that ships with the toolchain.
fn rust_lld() -> &'static Path {
    static LLD: OnceLock<PathBuf> = OnceLock::new();
    LLD.get_or_init(|| {
        let ask = |args: &[&str]| {
            let out = Command::new("rustc").args(args).current_dir(env!("CARGO_MANIFEST_DIR")).output().unwrap();
            String::from_utf8(out.stdout).unwrap()
        };
        let host = ask(&["-vV"]).lines().find_map(|l| l.strip_prefix("host: ").map(str::to_owned)).unwrap();
        let lld = PathBuf::from(ask(&["--print", "sysroot"]).trim()).join(format!("lib/rustlib/{host}/bin/rust-lld"));
        assert!(lld.exists(), "{} is missing: the toolchain's rust-lld links the test libraries", lld.display());
        lld
    })
}

/// What to put into a relinked library.
struct Relink<'a> {
    /// The Linux library whose records and exports it takes.
    from: &'a Path,
    /// Its name (`lib<name>.dylib`, `<name>.dll`).
    name: &'a str,
    target: Target,
    /// `MACOSX_DEPLOYMENT_TARGET` (the minimum macOS the linker writes).
    macos: Option<&'a str>,
    /// Whether to carry the record sections (without them, metadata is only reachable by
    /// calling the library's functions).
    records: bool,
    /// The folder to build in.
    dir: &'a str,
}

/// Links the library `relink` describes; returns its path.
fn relink(relink: &Relink<'_>) -> PathBuf {
    let dir = target_dir().join("abi-cli-platforms").join(relink.dir).join(relink.target.triple());
    std::fs::create_dir_all(&dir).unwrap();
    let bytes = std::fs::read(relink.from).unwrap();
    let elf = object::File::parse(&*bytes).unwrap();
    let mut source =
        String::from("#![no_std]\n#[panic_handler]\nfn panic(_: &core::panic::PanicInfo<'_>) -> ! {\n    loop {}\n}\n");
    for (i, (elf_name, name)) in ELF_RECORDS.iter().zip(relink.target.sections()).enumerate() {
        let Some(section) = elf.section_by_name(elf_name).filter(|_| relink.records) else { continue };
        let data = section.data().unwrap();
        std::fs::write(dir.join(format!("records{i}.bin")), data).unwrap();
        source.push_str(&format!(
            "#[used]\n#[link_section = \"{name}\"]\nstatic RECORDS{i}: [u8; {}] = *include_bytes!(\"records{i}.bin\");\n",
            data.len()
        ));
    }
    let mut n = 0;
    for symbol in elf.dynamic_symbols().filter(|s| s.is_definition()) {
        let name = symbol.name().unwrap();
        if name.starts_with(abi_shared::SHIM_PREFIX) && symbol.kind() == object::SymbolKind::Text {
            // Distinct bodies, so no linker folds two into one address.
            n += 1;
            source.push_str(&format!("#[no_mangle]\npub extern \"C\" fn {name}() -> u32 {{\n    {n}\n}}\n"));
        }
    }
    // A data symbol with the shims' prefix is no export, on every platform.
    source.push_str("#[no_mangle]\npub static __tvm_ffi_not_a_function: u32 = 7;\n");
    std::fs::write(dir.join("lib.rs"), source).unwrap();
    let out = dir.join(relink.target.file_name(relink.name));
    let mut rustc = Command::new("rustc");
    rustc.current_dir(env!("CARGO_MANIFEST_DIR")).args([
        "--edition=2021",
        "--crate-type=cdylib",
        "-Cpanic=abort",
        "--target",
        relink.target.triple(),
    ]);
    rustc.arg(format!("-Clinker={}", rust_lld().display()));
    match relink.target {
        MacArm64 | MacX86_64 => {
            // No SDK here, nor needed by a `no_std` library: an empty one silences rustc's
            // search for it.
            rustc.args(["-Clinker-flavor=ld64.lld", "-Clink-arg=-undefined", "-Clink-arg=dynamic_lookup"]);
            rustc.env("SDKROOT", &dir).env("MACOSX_DEPLOYMENT_TARGET", relink.macos.unwrap_or("11.0"));
        }
        // No import libraries here: a library calling nothing needs none.
        WindowsMsvc => {
            rustc.args(["-Clinker-flavor=lld-link", "-Clink-arg=/NOENTRY", "-Clink-arg=/NODEFAULTLIB"]);
        }
    }
    let made = rustc.arg(dir.join("lib.rs")).arg("-o").arg(&out).output().expect("run rustc");
    assert!(
        made.status.success(),
        "linking {} for {} failed (is the target installed? `rustup target add {}`; scripts/ensure-tools.sh adds it):\n{}",
        relink.name,
        relink.target.triple(),
        relink.target.triple(),
        String::from_utf8_lossy(&made.stderr)
    );
    out
}

/// `from` relinked for `target` with its records, the minimum macOS at its default.
fn relinked(from: &Path, name: &str, target: Target, dir: &str) -> PathBuf {
    relink(&Relink { from, name, target, macos: None, records: true, dir })
}

const TARGETS: [Target; 3] = [MacArm64, MacX86_64, WindowsMsvc];

/// `abi <args> <lib>`'s stdout and stderr with the library's path written `LIB`.
fn run_on(args: &[&str], lib: &Path) -> (Option<i32>, String, String) {
    let mut all = args.to_vec();
    all.push(path(lib));
    let out = abi(&all);
    let (stdout, stderr) = text(&out);
    (out.status.code(), stdout.replace(path(lib), "LIB"), stderr.replace(path(lib), "LIB"))
}

#[test]
fn inspect_reads_mach_o_and_pe_libraries_as_it_reads_the_linux_one() {
    for (package, name) in
        [("abi-mathlib", "mathlib"), ("abi-objects-lib", "abi_objects_lib"), ("iree-kit", "iree_kit")]
    {
        let linux = fixture_library(package, name);
        for target in TARGETS {
            let lib = relinked(&linux, name, target, "inspect");
            for args in [&["inspect"][..], &["inspect", "--json"], &["inspect", "--no-load"]] {
                let want = run_on(args, &linux);
                assert_eq!(want.0, Some(0), "{args:?} on {}: {}", linux.display(), want.2);
                let got = run_on(args, &lib);
                assert_eq!(got, want, "{args:?} on {}", lib.display());
            }
        }
    }
}

#[test]
fn stubs_of_mach_o_and_pe_libraries_are_those_of_the_linux_one() {
    let linux = fixture_library("abi-objects-lib", "abi_objects_lib");
    let out = target_dir().join("abi-cli-platforms").join("stubs");
    let written = |lib: &Path, folder: &str| {
        let dir = out.join(folder);
        let made = abi(&["stubs", path(lib), "--package", "objects", "-o", path(&dir)]);
        assert!(made.status.success(), "{}", text(&made).1);
        let file_name = lib.file_name().unwrap().to_str().unwrap();
        ["__init__.py", "__init__.pyi"]
            .map(|f| std::fs::read_to_string(dir.join("objects").join(f)).unwrap().replace(file_name, "LIBRARY_FILE"))
    };
    let want = written(&linux, "linux");
    for target in TARGETS {
        let lib = relinked(&linux, "abi_objects_lib", target, "stubs");
        assert_eq!(written(&lib, target.triple()), want, "{}", lib.display());
    }
}

#[test]
fn diff_reads_mach_o_and_pe_libraries() {
    let (v1, v2) = (fixture_library("abi-api-v1", "api_v1"), fixture_library("abi-api-v2", "api_v2"));
    let linux = abi(&["diff", "--json", path(&v1), path(&v2)]);
    assert_eq!(linux.status.code(), Some(1), "{}", text(&linux).1);
    for target in TARGETS {
        let (old, new) = (relinked(&v1, "api_v1", target, "diff"), relinked(&v2, "api_v2", target, "diff"));
        let out = abi(&["diff", "--json", path(&old), path(&new)]);
        let paths =
            |out: &Output, old: &Path, new: &Path| text(out).0.replace(path(old), "OLD").replace(path(new), "NEW");
        assert_eq!(out.status.code(), Some(1), "{}", text(&out).1);
        assert_eq!(paths(&out, &old, &new), paths(&linux, &v1, &v2), "{target:?}");
        // The same library in two formats has not changed.
        let same = abi(&["diff", path(&v1), path(&new)]);
        assert_eq!(same.status.code(), Some(1));
        let same = abi(&["diff", path(&v2), path(&new)]);
        assert_eq!(text(&same).0.lines().last(), Some("0 breaking, 0 compatible change(s)"), "{target:?}");
    }
}

#[test]
fn a_library_of_another_platform_needing_loading_is_refused_in_one_line() {
    let linux = fixture_library("abi-mathlib", "mathlib");
    for target in TARGETS {
        let lib = relink(&Relink { from: &linux, name: "mathlib", target, macos: None, records: false, dir: "bare" });
        let (code, _, stderr) = run_on(&["inspect"], &lib);
        let kind = if matches!(target, WindowsMsvc) { "a PE (Windows) library" } else { "a Mach-O (macOS) library" };
        assert_eq!(code, Some(2));
        assert_eq!(
            stderr,
            format!("abi: error: LIB publishes its metadata only as functions, and {kind} cannot be loaded here to call them\n")
        );
        let (code, _, stderr) = run_on(&["inspect", "--no-load"], &lib);
        assert_eq!(code, Some(2));
        assert!(stderr.contains("publishes its metadata only as functions: reading it means loading"), "{stderr}");
    }
}

#[test]
fn a_universal_mach_o_file_is_refused_naming_the_way_out() {
    let thin = relinked(&fixture_library("abi-mathlib", "mathlib"), "mathlib", MacArm64, "universal");
    let dylib = std::fs::read(&thin).unwrap();
    // A fat header (big-endian) naming one arm64 slice at 4096, as `lipo -create` writes it.
    let mut fat = Vec::new();
    for word in [0xcafe_babe_u32, 1, 0x0100_000c, 0, 4096, dylib.len() as u32, 12] {
        fat.extend_from_slice(&word.to_be_bytes());
    }
    fat.resize(4096, 0);
    fat.extend_from_slice(&dylib);
    let universal = thin.with_file_name("libuniversal.dylib");
    std::fs::write(&universal, fat).unwrap();
    for args in [&["inspect"][..], &["wheel", "--package", "p", "--version", "1", "-o", "/nonexistent"]] {
        let mut all = args.to_vec();
        all.insert(1, path(&universal));
        let out = abi(&all);
        assert_eq!(out.status.code(), Some(2));
        assert_eq!(
            text(&out).1.replace(path(&universal), "LIB"),
            "abi: error: LIB is a universal (fat) Mach-O file, which abi does not read: build one architecture \
             (cargo build --target aarch64-apple-darwin) or take one out (lipo -thin arm64)\n"
        );
    }
}

/// Builds a wheel of `lib`; returns its file name, the names inside and the warnings.
fn wheel(lib: &Path, dir: &str, extra: &[&str]) -> Result<(String, Vec<String>, String), String> {
    let out = target_dir().join("abi-cli-platforms").join("wheels").join(dir);
    let _ = std::fs::remove_dir_all(&out);
    let mut args = vec!["wheel", path(lib), "--package", "mathlib", "--version", "1.0", "-o", path(&out)];
    args.extend_from_slice(extra);
    let made = abi(&args);
    let (stdout, stderr) = text(&made);
    if !made.status.success() {
        assert_eq!(made.status.code(), Some(2));
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        return Err(stderr);
    }
    let written = PathBuf::from(stdout.trim().strip_prefix("wrote ").unwrap());
    let mut zip = zip::ZipArchive::new(std::fs::File::open(&written).unwrap()).unwrap();
    let names = (0..zip.len()).map(|i| zip.by_index(i).unwrap().name().to_owned()).collect();
    Ok((written.file_name().unwrap().to_str().unwrap().to_owned(), names, stderr))
}

#[test]
fn wheels_are_tagged_from_the_minimum_macos_and_the_windows_machine() {
    let linux = fixture_library("abi-mathlib", "mathlib");
    // (target, MACOSX_DEPLOYMENT_TARGET, tag): 10.12 is LC_VERSION_MIN_MACOSX, the others
    // LC_BUILD_VERSION; from 11 on pip matches only macosx_<major>_0, which is warned
    // about, as x86_64 (no tvm_ffi wheel) is.
    let build_only = "abi: warning: x86_64 macOS is build-only";
    let rounded = "abi: warning: the library's minimum macOS is 11.3, tagged macosx_11_0";
    for (target, macos, tag, warned) in [
        (MacX86_64, "10.12", "macosx_10_12_x86_64", &[build_only][..]),
        (MacX86_64, "11.3", "macosx_11_0_x86_64", &[build_only, rounded][..]),
        (MacArm64, "11.0", "macosx_11_0_arm64", &[][..]),
        (MacArm64, "11.3", "macosx_11_0_arm64", &[rounded][..]),
        (
            MacArm64,
            "14.2",
            "macosx_14_0_arm64",
            &["abi: warning: the library's minimum macOS is 14.2, tagged macosx_14_0"][..],
        ),
    ] {
        let dir = format!("macos-{macos}");
        let lib =
            relink(&Relink { from: &linux, name: "mathlib", target, macos: Some(macos), records: true, dir: &dir });
        let (name, files, warnings) = wheel(&lib, &dir, &[]).unwrap();
        assert_eq!(name, format!("mathlib-1.0-py3-none-{tag}.whl"));
        assert_eq!(warnings.lines().count(), warned.len(), "{macos}: {warnings}");
        for (line, start) in warnings.lines().zip(warned) {
            assert!(line.starts_with(start), "{macos}: {line}");
        }
        assert!(files.contains(&"mathlib/libmathlib.dylib".to_owned()), "{files:?}");
        assert!(files.contains(&"mathlib/__init__.pyi".to_owned()), "{files:?}");
    }
    let dll = relinked(&linux, "mathlib", WindowsMsvc, "wheel");
    let (name, files, warnings) = wheel(&dll, "windows", &[]).unwrap();
    assert_eq!(warnings, "");
    assert_eq!(name, "mathlib-1.0-py3-none-win_amd64.whl");
    assert!(files.contains(&"mathlib/mathlib.dll".to_owned()), "{files:?}");
    // A Linux tag asked for a macOS or Windows library is refused.
    let dylib = relinked(&linux, "mathlib", MacArm64, "wheel");
    for (lib, system, tag) in [(&dylib, "macOS", "macosx_11_0_arm64"), (&dll, "Windows", "win_amd64")] {
        let refused = wheel(lib, "refused", &["--platform-tag", "manylinux2014"]).unwrap_err();
        assert_eq!(
            refused,
            format!("abi: error: `--platform-tag manylinux2014` is a Linux tag and this is a {system} library: leave --platform-tag at auto, which reads its tag ({tag}) from the library\n")
        );
    }
}

/// `abi <command> <lib> <rest>`: exit 0 or an error line with exit 2, never a crash.
fn never_crashes(lib: &Path, command: &str, rest: &[&str], what: &str) -> Option<i32> {
    let mut args = vec![command, path(lib)];
    args.extend_from_slice(rest);
    let out = abi(&args);
    let (_, stderr) = text(&out);
    match out.status.code() {
        Some(0) => {}
        Some(2) => assert!(stderr.starts_with("abi: error: ") && stderr.lines().count() == 1, "{what}: {stderr}"),
        other => panic!("{what}: `abi {command}` ended with {other:?}: {stderr}"),
    }
    out.status.code()
}

#[test]
fn damaged_mach_o_and_pe_files_are_one_error_line_never_a_crash() {
    let linux = fixture_library("abi-mathlib", "mathlib");
    let out = target_dir().join("abi-cli-platforms").join("damaged-wheels");
    let wheel_args = ["--package", "p", "--version", "1", "-o", path(&out)];
    for target in [MacArm64, WindowsMsvc] {
        let lib = relinked(&linux, "mathlib", target, "damaged");
        assert_eq!(never_crashes(&lib, "inspect", &["--no-load"], "intact"), Some(0));
        let bytes = std::fs::read(&lib).unwrap();
        let damaged = lib.with_extension("damaged");
        // Cut at a spread of lengths: the headers, a load command or section table, the
        // section data, the symbol or export table at the end. Every cut loses something
        // read, so every one is an error.
        let mut cuts: Vec<usize> = (1..16).map(|i| bytes.len() * i / 16).collect();
        cuts.extend([4, 16, 24, 32, 64, 100, 200, 300, 400]);
        for cut in cuts {
            std::fs::write(&damaged, &bytes[..cut]).unwrap();
            let what = format!("{target:?} cut at {cut} of {}", bytes.len());
            assert_eq!(never_crashes(&damaged, "inspect", &["--no-load"], &what), Some(2), "{what}");
        }
        // Headers, load commands and section tables (in the first 896 bytes: the dylib's
        // load commands end at 864, the DLL's section table at 504) with one word of all
        // ones: sizes, offsets, counts and versions out of range. `wheel` reads the file as
        // `inspect` does, then its platform: that second reading is tried where the first
        // passes.
        for at in (0..896.min(bytes.len() - 4)).step_by(8) {
            let mut corrupt = bytes.clone();
            corrupt[at..at + 4].copy_from_slice(&[0xff; 4]);
            std::fs::write(&damaged, &corrupt).unwrap();
            let what = format!("{target:?} with ones at {at}");
            if never_crashes(&damaged, "inspect", &["--no-load"], &what) == Some(0) {
                never_crashes(&damaged, "wheel", &wheel_args, &what);
            }
        }
    }
}
