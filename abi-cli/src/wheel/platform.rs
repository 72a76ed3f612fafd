//! The platform tag of a wheel holding a library: read from the library's ELF headers (the
//! machine, its `DT_NEEDED` libraries and the symbol versions it requires from them) and
//! matched against the manylinux policies as `auditwheel show` matches them
//! (auditwheel 6.8's `manylinux-policy.json`, PEP 600): the oldest policy whose library
//! set holds every needed library and whose symbol-version limits hold every required
//! version, else `linux_<arch>`, which pip installs locally and PyPI refuses.

use object::read::elf::{Dyn as _, ElfFile, FileHeader};
use object::{Architecture, Endianness, FileKind, Object};

/// What decides a library's platform tag.
#[derive(Debug)]
pub struct Needs {
    /// The wheel tag's machine part (`x86_64`, `aarch64`, ...).
    pub arch: &'static str,
    /// The `DT_NEEDED` sonames.
    pub needed: Vec<String>,
    /// `(library, version)` pairs from `.gnu.version_r`, e.g. `("libm.so.6", "GLIBC_2.35")`;
    /// those of the dynamic loader are left out, as auditwheel leaves them.
    pub versions: Vec<(String, String)>,
}

/// The tag `--platform-tag` asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Requested {
    /// The oldest manylinux policy the library satisfies, else `linux`.
    Auto,
    /// `linux_<arch>`: installable here, refused by PyPI.
    Linux,
    /// `manylinux_2_<minor>_<arch>`: refused when the library needs more than it allows.
    Manylinux(u32),
}

impl std::str::FromStr for Requested {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let manylinux = s.strip_prefix("manylinux_2_").and_then(|m| m.parse().ok());
        match (s, manylinux) {
            ("auto", _) => Ok(Requested::Auto),
            ("linux", _) => Ok(Requested::Linux),
            (_, Some(minor)) => Ok(Requested::Manylinux(minor)),
            _ => Err(format!(
                "`{s}` is not a platform tag: use auto, linux or manylinux_2_<minor> (e.g. manylinux_2_17)"
            )),
        }
    }
}

/// A manylinux policy: the glibc minor version it names and the newest version of each
/// symbol-version family it allows (auditwheel's lists are cumulative, so a maximum says
/// the same); the allowed libraries are [`LIBRARIES`] plus, from 2.12 and 2.24,
/// libexpat and libmvec.
struct Policy {
    glibc: u32,
    /// (family, newest allowed); a family absent here is allowed in no version.
    limits: &'static [(&'static str, &'static str)],
}

/// The x86_64 policies, oldest first. Other machines have their own limits, not
/// transcribed here: for them `auto` gives `linux_<arch>` (`auditwheel repair` retags it).
const POLICIES: &[Policy] = &[
    Policy { glibc: 5, limits: &[("GLIBC", "2.5"), ("CXXABI", "1.3.1"), ("GCC", "4.2.0"), ("GLIBCXX", "3.4.8")] },
    Policy {
        glibc: 12,
        limits: &[("GLIBC", "2.12"), ("CXXABI", "1.3.3"), ("GCC", "4.3.0"), ("GLIBCXX", "3.4.13"), ("ZLIB", "1.2.2.4")],
    },
    Policy {
        glibc: 17,
        limits: &[("GLIBC", "2.17"), ("CXXABI", "1.3.7"), ("GCC", "4.8.0"), ("GLIBCXX", "3.4.19"), ("ZLIB", "1.2.5.2")],
    },
    Policy {
        glibc: 24,
        limits: &[
            ("GLIBC", "2.24"),
            ("CXXABI", "1.3.10"),
            ("GCC", "4.8.0"),
            ("GLIBCXX", "3.4.22"),
            ("LIBATOMIC", "1.2"),
            ("ZLIB", "1.2.5.2"),
        ],
    },
    Policy {
        glibc: 26,
        limits: &[
            ("GLIBC", "2.26"),
            ("CXXABI", "1.3.10"),
            ("GCC", "4.8.0"),
            ("GLIBCXX", "3.4.22"),
            ("LIBATOMIC", "1.2"),
            ("ZLIB", "1.2.5.2"),
        ],
    },
    Policy {
        glibc: 27,
        limits: &[
            ("GLIBC", "2.27"),
            ("CXXABI", "1.3.11"),
            ("GCC", "7.0.0"),
            ("GLIBCXX", "3.4.24"),
            ("LIBATOMIC", "1.2"),
            ("ZLIB", "1.2.9"),
        ],
    },
    Policy {
        glibc: 28,
        limits: &[
            ("GLIBC", "2.28"),
            ("CXXABI", "1.3.11"),
            ("GCC", "7.0.0"),
            ("GLIBCXX", "3.4.24"),
            ("LIBATOMIC", "1.2"),
            ("ZLIB", "1.2.9"),
        ],
    },
    Policy {
        glibc: 31,
        limits: &[
            ("GLIBC", "2.31"),
            ("CXXABI", "1.3.12"),
            ("GCC", "7.0.0"),
            ("GLIBCXX", "3.4.28"),
            ("LIBATOMIC", "1.2"),
            ("ZLIB", "1.2.9"),
        ],
    },
    Policy {
        glibc: 34,
        limits: &[
            ("GLIBC", "2.34"),
            ("CXXABI", "1.3.13"),
            ("GCC", "7.0.0"),
            ("GLIBCXX", "3.4.29"),
            ("LIBATOMIC", "1.2"),
            ("ZLIB", "1.2.9"),
        ],
    },
    Policy {
        glibc: 35,
        limits: &[
            ("GLIBC", "2.35"),
            ("CXXABI", "1.3.13"),
            ("GCC", "12.0.0"),
            ("GLIBCXX", "3.4.30"),
            ("LIBATOMIC", "1.2"),
            ("ZLIB", "1.2.9"),
        ],
    },
    Policy {
        glibc: 36,
        limits: &[
            ("GLIBC", "2.36"),
            ("CXXABI", "1.3.13"),
            ("GCC", "12.0.0"),
            ("GLIBCXX", "3.4.30"),
            ("LIBATOMIC", "1.2"),
            ("ZLIB", "1.2.9"),
        ],
    },
    Policy {
        glibc: 37,
        limits: &[
            ("GLIBC", "2.36"),
            ("CXXABI", "1.3.13"),
            ("GCC", "12.0.0"),
            ("GLIBCXX", "3.4.30"),
            ("LIBATOMIC", "1.2"),
            ("ZLIB", "1.2.12"),
        ],
    },
    Policy {
        glibc: 38,
        limits: &[
            ("GLIBC", "2.38"),
            ("CXXABI", "1.3.13"),
            ("GCC", "12.0.0"),
            ("GLIBCXX", "3.4.30"),
            ("LIBATOMIC", "1.2"),
            ("ZLIB", "1.2.12"),
        ],
    },
    Policy {
        glibc: 39,
        limits: &[
            ("GLIBC", "2.39"),
            ("CXXABI", "1.3.15"),
            ("GCC", "14.0.0"),
            ("GLIBCXX", "3.4.33"),
            ("LIBATOMIC", "1.2"),
            ("ZLIB", "1.2.12"),
        ],
    },
    Policy {
        glibc: 40,
        limits: &[
            ("GLIBC", "2.40"),
            ("CXXABI", "1.3.15"),
            ("GCC", "14.0.0"),
            ("GLIBCXX", "3.4.33"),
            ("LIBATOMIC", "1.2"),
            ("ZLIB", "1.2.12"),
        ],
    },
    Policy {
        glibc: 41,
        limits: &[
            ("GLIBC", "2.41"),
            ("CXXABI", "1.3.15"),
            ("GCC", "14.0.0"),
            ("GLIBCXX", "3.4.33"),
            ("LIBATOMIC", "1.2"),
            ("ZLIB", "1.2.12"),
        ],
    },
];

/// The libraries every manylinux policy allows a wheel's library to need.
const LIBRARIES: &[&str] = &[
    "libatomic.so.1",
    "libgcc_s.so.1",
    "libstdc++.so.6",
    "libm.so.6",
    "libanl.so.1",
    "libdl.so.2",
    "librt.so.1",
    "libc.so.6",
    "libnsl.so.1",
    "libutil.so.1",
    "libpthread.so.0",
    "libX11.so.6",
    "libXext.so.6",
    "libXrender.so.1",
    "libICE.so.6",
    "libSM.so.6",
    "libGL.so.1",
    "libgobject-2.0.so.0",
    "libgthread-2.0.so.0",
    "libglib-2.0.so.0",
    "libresolv.so.2",
    "libz.so.1",
];

/// Reads what decides the tag from a library's bytes.
pub fn needs(bytes: &[u8]) -> Result<Needs, String> {
    let read = match FileKind::parse(bytes) {
        Ok(FileKind::Elf64) => read::<object::elf::FileHeader64<Endianness>>(bytes),
        Ok(FileKind::Elf32) => read::<object::elf::FileHeader32<Endianness>>(bytes),
        _ => return Err("is not an ELF library: wheels are built for Linux libraries only".into()),
    };
    read.map_err(|e| format!("has unreadable ELF headers: {e}"))
}

fn read<H: FileHeader<Endian = Endianness>>(bytes: &[u8]) -> Result<Needs, String> {
    let file = ElfFile::<H>::parse(bytes).map_err(|e| e.to_string())?;
    let arch = match (file.architecture(), file.is_little_endian()) {
        (Architecture::X86_64, _) => "x86_64",
        (Architecture::I386, _) => "i686",
        (Architecture::Aarch64, _) => "aarch64",
        (Architecture::Arm, _) => "armv7l",
        (Architecture::PowerPc64, true) => "ppc64le",
        (Architecture::PowerPc64, false) => "ppc64",
        (Architecture::S390x, _) => "s390x",
        (Architecture::Riscv64, _) => "riscv64",
        (Architecture::LoongArch64, _) => "loongarch64",
        (other, _) => return Err(format!("machine {other:?} has no wheel platform tag")),
    };
    let (endian, sections) = (file.endian(), file.elf_section_table());
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    let mut needed = Vec::new();
    if let Some((entries, strings)) = sections.dynamic(endian, bytes).map_err(|e| e.to_string())? {
        let strings = sections.strings(endian, bytes, strings).map_err(|e| e.to_string())?;
        for entry in entries.iter().filter(|d| d.tag32(endian) == Some(object::elf::DT_NEEDED)) {
            needed.push(text(entry.string(endian, strings).map_err(|e| e.to_string())?));
        }
    }
    let mut versions = Vec::new();
    if let Some((mut needs, strings)) = sections.gnu_verneed(endian, bytes).map_err(|e| e.to_string())? {
        let strings = sections.strings(endian, bytes, strings).map_err(|e| e.to_string())?;
        while let Some((need, mut aux)) = needs.next().map_err(|e| e.to_string())? {
            let library = text(need.file(endian, strings).map_err(|e| e.to_string())?);
            while let Some(version) = aux.next().map_err(|e| e.to_string())? {
                let version = text(version.name(endian, strings).map_err(|e| e.to_string())?);
                if !is_loader(&library) {
                    versions.push((library.clone(), version));
                }
            }
        }
    }
    Ok(Needs { arch, needed, versions })
}

/// The dynamic loader, whose versions auditwheel does not check.
fn is_loader(soname: &str) -> bool {
    soname.starts_with("ld-linux") || soname == "ld64.so.1" || soname == "ld64.so.2"
}

/// The platform tag for `needs`, or why the requested one does not fit.
pub fn tag(needs: &Needs, requested: &Requested) -> Result<String, String> {
    let arch = needs.arch;
    match requested {
        Requested::Linux => Ok(format!("linux_{arch}")),
        Requested::Auto => Ok(policies(arch)
            .find(|p| fits(needs, p).is_ok())
            .map_or_else(|| format!("linux_{arch}"), |p| format!("manylinux_2_{}_{arch}", p.glibc))),
        Requested::Manylinux(minor) => {
            let policy = policies(arch).find(|p| p.glibc == *minor).ok_or_else(|| {
                let known: Vec<String> = policies(arch).map(|p| format!("manylinux_2_{}", p.glibc)).collect();
                match known.is_empty() {
                    true => format!("manylinux tags are checked for x86_64 only; tag this {arch} library `linux` and retag it with `auditwheel repair`"),
                    false => format!("manylinux_2_{minor} is not a manylinux policy; known: {}", known.join(", ")),
                }
            })?;
            fits(needs, policy)
                .map(|()| format!("manylinux_2_{minor}_{arch}"))
                .map_err(|why| format!("the library does not fit manylinux_2_{minor}: {why}"))
        }
    }
}

fn policies(arch: &str) -> impl Iterator<Item = &'static Policy> {
    let known: &[Policy] = if arch == "x86_64" { POLICIES } else { &[] };
    known.iter()
}

/// Whether the library fits `policy`; the first reason it does not.
fn fits(needs: &Needs, policy: &Policy) -> Result<(), String> {
    for soname in needs.needed.iter().filter(|n| !is_loader(n)) {
        let allowed = LIBRARIES.contains(&soname.as_str())
            || (soname == "libexpat.so.1" && policy.glibc >= 12)
            || (soname == "libmvec.so.1" && policy.glibc >= 24);
        if !allowed {
            return Err(format!("it needs {soname}, which is not in the manylinux library set"));
        }
    }
    for (library, version) in &needs.versions {
        let Some((family, number)) = version.split_once('_') else { continue };
        if !POLICIES.iter().any(|p| p.limits.iter().any(|(f, _)| *f == family)) {
            continue; // a family no policy limits (auditwheel checks only the ones it lists)
        }
        let newest = policy.limits.iter().find(|(f, _)| *f == family).map(|(_, v)| *v);
        let allowed = match (newest, number) {
            (Some(_), "ABI_DT_RELR") => policy.glibc >= 36,
            (Some(_), "TM_1") => policy.glibc >= 17,
            (Some(newest), number) => version_le(number, newest),
            (None, _) => false,
        };
        if !allowed {
            return Err(format!("it needs {version} from {library}"));
        }
    }
    Ok(())
}

/// `a <= b` for dotted numeric versions (`2.2.5 <= 2.17`).
fn version_le(a: &str, b: &str) -> bool {
    let parts = |v: &str| v.split('.').map(|p| p.parse::<u64>().unwrap_or(u64::MAX)).collect::<Vec<_>>();
    parts(a) <= parts(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn needs(needed: &[&str], versions: &[(&str, &str)]) -> Needs {
        Needs {
            arch: "x86_64",
            needed: needed.iter().map(|s| s.to_string()).collect(),
            versions: versions.iter().map(|(l, v)| (l.to_string(), v.to_string())).collect(),
        }
    }

    #[test]
    fn the_oldest_policy_that_holds_every_version_is_chosen() {
        let lib = needs(
            &["libgcc_s.so.1", "libm.so.6", "libc.so.6", "ld-linux-x86-64.so.2"],
            &[("libm.so.6", "GLIBC_2.35"), ("libc.so.6", "GLIBC_2.2.5"), ("libgcc_s.so.1", "GCC_4.2.0")],
        );
        assert_eq!(tag(&lib, &Requested::Auto).unwrap(), "manylinux_2_35_x86_64");
        let old = needs(&["libc.so.6"], &[("libc.so.6", "GLIBC_2.14")]);
        assert_eq!(tag(&old, &Requested::Auto).unwrap(), "manylinux_2_17_x86_64");
        // GCC_7.0.0 alone needs 2.27.
        let gcc = needs(&["libgcc_s.so.1"], &[("libgcc_s.so.1", "GCC_7.0.0")]);
        assert_eq!(tag(&gcc, &Requested::Auto).unwrap(), "manylinux_2_27_x86_64");
    }

    #[test]
    fn a_library_outside_the_set_or_a_too_new_glibc_is_linux() {
        let foreign = needs(&["libc.so.6", "libssl.so.3"], &[]);
        assert_eq!(tag(&foreign, &Requested::Auto).unwrap(), "linux_x86_64");
        let future = needs(&["libc.so.6"], &[("libc.so.6", "GLIBC_2.99")]);
        assert_eq!(tag(&future, &Requested::Auto).unwrap(), "linux_x86_64");
        assert_eq!(tag(&foreign, &Requested::Linux).unwrap(), "linux_x86_64");
    }

    #[test]
    fn a_requested_policy_the_library_exceeds_is_refused_with_the_reason() {
        let lib = needs(&["libm.so.6"], &[("libm.so.6", "GLIBC_2.35")]);
        assert_eq!(tag(&lib, &Requested::Manylinux(39)).unwrap(), "manylinux_2_39_x86_64");
        let err = tag(&lib, &Requested::Manylinux(17)).unwrap_err();
        assert_eq!(err, "the library does not fit manylinux_2_17: it needs GLIBC_2.35 from libm.so.6");
        assert!(tag(&lib, &Requested::Manylinux(3)).unwrap_err().contains("is not a manylinux policy"));
        assert!("manylinux2014".parse::<Requested>().is_err());
    }
}
