//! The platform tag of a macOS (Mach-O) library: `macosx_<major>_<minor>_<arch>`, the
//! version read from the library's own minimum-OS load command (`LC_BUILD_VERSION`'s
//! `minos`, or `LC_VERSION_MIN_MACOSX` from linkers and targets before macOS 10.14) and
//! written as pip matches it: pip (its vendored `packaging.tags.mac_platforms`) accepts
//! `macosx_10_<minor>` for each minor of 10, but only `macosx_<major>_0` from macOS 11 on,
//! so 11.3 is written `macosx_11_0`; arm64 exists from 11.0, so an older arm64 minimum is
//! written `macosx_11_0` too.

use object::macho;
use object::read::macho::{MachHeader, MachOFile64};
use object::Endianness;

/// What decides a Mach-O library's platform tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Needs {
    /// The wheel tag's machine part: `arm64` or `x86_64`.
    pub arch: &'static str,
    /// The minimum macOS version, `(major, minor)`.
    pub minos: (u32, u32),
}

/// Reads the machine and the minimum macOS version from a 64-bit Mach-O library.
pub fn needs(bytes: &[u8]) -> Result<Needs, String> {
    let file = MachOFile64::<Endianness>::parse(bytes).map_err(|e| format!("has unreadable Mach-O headers: {e}"))?;
    let endian = file.endian();
    let arch = match file.macho_header().cputype(endian) {
        macho::CPU_TYPE_ARM64 => "arm64",
        macho::CPU_TYPE_X86_64 => "x86_64",
        other => return Err(format!("is a Mach-O library for CPU type {other:#x}: macOS wheels are arm64 or x86_64")),
    };
    let fail = |e: object::Error| format!("has unreadable Mach-O load commands: {e}");
    let mut commands = file.macho_load_commands().map_err(fail)?;
    while let Some(command) = commands.next().map_err(fail)? {
        match command.cmd() {
            macho::LC_BUILD_VERSION => {
                let build = command.data::<macho::BuildVersionCommand<Endianness>>().map_err(fail)?;
                let platform = build.platform.get(endian);
                if platform != macho::PLATFORM_MACOS {
                    return Err(format!(
                        "is built for Apple platform {platform} (LC_BUILD_VERSION), not macOS (1): abi wheel writes macOS wheels"
                    ));
                }
                return Ok(Needs { arch, minos: version(build.minos.get(endian)) });
            }
            macho::LC_VERSION_MIN_MACOSX => {
                let min = command.data::<macho::VersionMinCommand<Endianness>>().map_err(fail)?;
                return Ok(Needs { arch, minos: version(min.version.get(endian)) });
            }
            macho::LC_VERSION_MIN_IPHONEOS | macho::LC_VERSION_MIN_TVOS | macho::LC_VERSION_MIN_WATCHOS => {
                return Err("is built for iOS, tvOS or watchOS, not macOS: abi wheel writes macOS wheels".into());
            }
            _ => {}
        }
    }
    Err("names no minimum macOS version (no LC_BUILD_VERSION or LC_VERSION_MIN_MACOSX load command)".into())
}

/// Whether a 64-bit Mach-O file carries a code signature (an `LC_CODE_SIGNATURE` load
/// command; an ad hoc one counts): macOS on arm64 runs no unsigned executable.
pub fn is_signed(bytes: &[u8]) -> Result<bool, String> {
    let file = MachOFile64::<Endianness>::parse(bytes).map_err(|e| format!("has unreadable Mach-O headers: {e}"))?;
    let fail = |e: object::Error| format!("has unreadable Mach-O load commands: {e}");
    let mut commands = file.macho_load_commands().map_err(fail)?;
    while let Some(command) = commands.next().map_err(fail)? {
        if command.cmd() == macho::LC_CODE_SIGNATURE {
            return Ok(true);
        }
    }
    Ok(false)
}

/// `X.Y.Z` encoded in nibbles `xxxx.yy.zz`, as `(X, Y)`.
fn version(encoded: u32) -> (u32, u32) {
    (encoded >> 16, (encoded >> 8) & 0xff)
}

/// `macosx_<major>_<minor>_<arch>`, rounded as pip matches it.
pub fn tag(needs: &Needs) -> String {
    let (major, minor) = match (needs.arch, needs.minos) {
        // No arm64 Mac runs less than 11.0.
        ("arm64", (major, _)) if major < 11 => (11, 0),
        (_, (major, _)) if major >= 11 => (major, 0),
        // pip matches no x86_64 tag below 10.4 (`_mac_binary_formats`).
        (_, (10, minor)) => (10, minor.max(4)),
        (_, _) => (10, 4),
    };
    format!("macosx_{major}_{minor}_{}", needs.arch)
}

/// What the tag cannot say about where the wheel works: x86_64 macOS has no tvm_ffi wheel
/// to install beside it, and a minimum above `N.0` from macOS 11 on is tagged `N_0`.
pub fn warnings(needs: &Needs) -> Vec<String> {
    let mut said = Vec::new();
    if needs.arch == "x86_64" {
        said.push(
            "x86_64 macOS is build-only: apache-tvm-ffi publishes no x86_64 macOS wheel (0.1.15.post2 has \
             macosx_11_0_arm64 only), so pip finds no apache-tvm-ffi to install beside this wheel"
                .to_owned(),
        );
    }
    said.extend(minimum_warning(needs));
    said
}

/// What the tag cannot say about the minimum macOS: pip matches only `macosx_N_0` from
/// macOS 11 on, so a minimum of 11.3 installs on 11.0 to 11.2 too, where it does not load
/// (nor run, for an executable).
pub fn minimum_warning(needs: &Needs) -> Option<String> {
    if let (major @ 11.., minor @ 1..) = needs.minos {
        return Some(format!(
            "the library's minimum macOS is {major}.{minor}, tagged macosx_{major}_0 (pip matches only \
             macosx_N_0 from macOS 11 on): pip also installs it on the macOS versions from {major}.0 below \
             {major}.{minor}, whose loader refuses it; \
             build with MACOSX_DEPLOYMENT_TARGET={major}.0 for an exact tag"
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_rounded_as_pip_matches_them() {
        let tag_of = |arch, minos| tag(&Needs { arch, minos });
        assert_eq!(tag_of("x86_64", (10, 12)), "macosx_10_12_x86_64");
        assert_eq!(tag_of("x86_64", (11, 3)), "macosx_11_0_x86_64");
        assert_eq!(tag_of("arm64", (11, 0)), "macosx_11_0_arm64");
        assert_eq!(tag_of("arm64", (11, 3)), "macosx_11_0_arm64");
        assert_eq!(tag_of("arm64", (14, 2)), "macosx_14_0_arm64");
        assert_eq!(tag_of("arm64", (10, 15)), "macosx_11_0_arm64");
        assert_eq!(tag_of("x86_64", (10, 2)), "macosx_10_4_x86_64");
    }

    /// A 64-bit arm64 Mach-O executable holding the load commands `(cmd, data)`.
    fn macho(commands: &[(u32, &[u8])]) -> Vec<u8> {
        let body: Vec<u8> = commands
            .iter()
            .flat_map(|(cmd, data)| {
                [cmd.to_le_bytes().as_slice(), &(8 + data.len() as u32).to_le_bytes(), data].concat()
            })
            .collect();
        let header = [
            0xfeed_facf_u32,
            macho::CPU_TYPE_ARM64,
            0,
            macho::MH_EXECUTE,
            commands.len() as u32,
            body.len() as u32,
            0,
            0,
        ];
        [header.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>(), body].concat()
    }

    #[test]
    fn a_code_signature_load_command_is_what_makes_an_executable_signed() {
        let uuid = (macho::LC_UUID, [7u8; 16].as_slice());
        let signature = (macho::LC_CODE_SIGNATURE, [0u8; 8].as_slice());
        assert_eq!(is_signed(&macho(&[uuid])), Ok(false));
        assert_eq!(is_signed(&macho(&[uuid, signature])), Ok(true));
        assert!(is_signed(b"not a Mach-O").is_err());
    }

    #[test]
    fn x86_64_and_rounded_minimums_are_warned_about() {
        let warned = |arch, minos| warnings(&Needs { arch, minos });
        assert!(warned("arm64", (11, 0)).is_empty());
        assert!(warned("arm64", (14, 0)).is_empty());
        let x86 = warned("x86_64", (10, 12));
        assert_eq!(x86.len(), 1);
        assert!(x86[0].starts_with("x86_64 macOS is build-only"), "{x86:?}");
        let rounded = warned("arm64", (11, 3));
        assert_eq!(rounded.len(), 1);
        assert!(rounded[0].starts_with("the library's minimum macOS is 11.3, tagged macosx_11_0"), "{rounded:?}");
        assert_eq!(warned("x86_64", (12, 1)).len(), 2);
        assert_eq!(version(0x000e_0200), (14, 2));
        assert_eq!(version(0x000a_0c00), (10, 12));
    }
}
