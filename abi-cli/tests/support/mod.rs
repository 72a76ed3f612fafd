//! Running the `abi` binary from the CLI's integration tests.

use std::path::Path;
use std::process::{Command, Output};

/// Runs `abi args...` and waits for it.
pub fn abi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_abi")).args(args).output().expect("run abi")
}

/// A finished command's stdout and stderr, as text.
pub fn text(out: &Output) -> (String, String) {
    (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// `p` as a command-line argument.
pub fn path(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}
