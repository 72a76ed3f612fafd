//! `abi inspect --no-load`, `diff --no-load`, `stubs --no-load` on a whole library file
//! (ELF, Mach-O, PE): a listing or an error, never a panic, never loading. A listing
//! writes its Python package.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(listing) = abi_cli::read::read_bytes(Path::new("fuzzed.so"), data, false) {
        let _ = abi_cli::stubs::files(&listing, "pkg").expect("a valid package name");
    }
});
