//! The platform tag of a Windows (PE) library: the machine as Python's
//! `sysconfig.get_platform()` spells it (`win_amd64`, `win_arm64`, `win32`), which pip
//! matches with no version.

use object::{Architecture, Object};

/// The tag for a PE library's machine.
pub fn tag(bytes: &[u8]) -> Result<&'static str, String> {
    let file = object::File::parse(bytes).map_err(|e| format!("has unreadable PE headers: {e}"))?;
    match file.architecture() {
        Architecture::X86_64 => Ok("win_amd64"),
        Architecture::Aarch64 => Ok("win_arm64"),
        Architecture::I386 => Ok("win32"),
        other => Err(format!("is a PE library for machine {other:?}, which has no wheel platform tag")),
    }
}
