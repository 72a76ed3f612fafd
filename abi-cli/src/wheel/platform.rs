//! The platform tag of a wheel holding a library, read from the library itself: its
//! object format says the operating system, and each has its own rule (a file each):
//! Linux's manylinux policies ([`manylinux`]), macOS's minimum version ([`macos`]),
//! Windows' machine ([`windows`]).

use object::FileKind;

use super::{macos, manylinux, windows};

/// The tag `--platform-tag` asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Requested {
    /// The tag the library fits: on Linux the oldest manylinux policy it satisfies, else
    /// `linux`; on macOS and Windows the only one.
    Auto,
    /// `linux_<arch>`: installable here, refused by PyPI.
    Linux,
    /// A manylinux policy by name (`manylinux_2_17`, or its alias `manylinux2014`): refused
    /// when the library needs more than it allows.
    Policy(String),
}

impl std::str::FromStr for Requested {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "auto" => Ok(Requested::Auto),
            "linux" => Ok(Requested::Linux),
            _ if manylinux::is_policy_name(s) => Ok(Requested::Policy(s.to_owned())),
            _ => Err(format!(
                "`{s}` is not a platform tag: use auto, linux, manylinux_2_<minor> (e.g. manylinux_2_17) or manylinux2014"
            )),
        }
    }
}

/// What decides a library's platform tag.
#[derive(Debug)]
pub enum Needs {
    /// A Linux library.
    Elf(manylinux::Needs),
    /// A macOS library.
    MachO(macos::Needs),
    /// A Windows library: its tag.
    Pe(&'static str),
}

/// Reads what decides the tag from a library's bytes.
pub fn needs(bytes: &[u8]) -> Result<Needs, String> {
    match FileKind::parse(bytes) {
        Ok(FileKind::Elf32 | FileKind::Elf64) => manylinux::needs(bytes).map(Needs::Elf),
        Ok(FileKind::MachO64) => macos::needs(bytes).map(Needs::MachO),
        Ok(FileKind::Pe32 | FileKind::Pe64) => windows::tag(bytes).map(Needs::Pe),
        _ => {
            Err("is not an ELF, Mach-O (64-bit) or PE library: wheels hold libraries for Linux, macOS or Windows"
                .into())
        }
    }
}

/// What the platform tag cannot say about where the wheel works (said as warnings; the
/// wheel is still written).
pub fn warnings(needs: &Needs) -> Vec<String> {
    match needs {
        Needs::MachO(macho) => macos::warnings(macho),
        Needs::Elf(_) | Needs::Pe(_) => Vec::new(),
    }
}

/// The platform tag for `needs`, or why the requested one does not fit.
pub fn tag(needs: &Needs, requested: &Requested) -> Result<String, String> {
    let (system, tag) = match needs {
        Needs::Elf(elf) => return manylinux::tag(elf, requested),
        Needs::MachO(macho) => ("macOS", macos::tag(macho)),
        Needs::Pe(tag) => ("Windows", (*tag).to_owned()),
    };
    let asked = match requested {
        Requested::Auto => return Ok(tag),
        Requested::Linux => "linux",
        Requested::Policy(name) => name.as_str(),
    };
    Err(format!(
        "`--platform-tag {asked}` is a Linux tag and this is a {system} library: leave --platform-tag at auto, which reads its tag ({tag}) from the library"
    ))
}
