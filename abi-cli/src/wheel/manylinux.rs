//! The platform tag of a Linux (ELF) library: read from its headers (the machine, its
//! `DT_NEEDED` libraries, the symbol versions it requires and the symbols it imports) and
//! matched against the manylinux policies as `auditwheel show` matches them (PEP 600): the
//! oldest policy whose library set holds every needed library, whose symbol versions hold
//! every required version, and which forbids none of the imported symbols, else
//! `linux_<arch>`, which pip installs locally and PyPI refuses.
//!
//! The policies are auditwheel's own (`manylinux-policy.json` beside this file, written by
//! `scripts/manylinux-policy.py` from the auditwheel the test suite pins, and checked
//! against it by `tests/python/test_wheel.py`), for the machines tvm_ffi ships wheels for:
//! x86_64 and aarch64.

use std::collections::{BTreeMap, BTreeSet};

use object::read::elf::{Dyn as _, ElfFile, FileHeader};
use object::{Architecture, Endianness, FileKind, Object, ObjectSymbol};

use super::platform::Requested;

/// auditwheel's policies, cut to x86_64 and aarch64.
const POLICIES_JSON: &str = include_str!("manylinux-policy.json");

/// What decides an ELF library's platform tag.
#[derive(Debug, Default)]
pub struct Needs {
    /// The wheel tag's machine part (`x86_64`, `aarch64`, ...).
    pub arch: &'static str,
    /// The `DT_NEEDED` sonames.
    pub needed: Vec<String>,
    /// `(library, version)` pairs from `.gnu.version_r`, e.g. `("libm.so.6", "GLIBC_2.35")`;
    /// those of the dynamic loader are left out, as auditwheel leaves them.
    pub versions: Vec<(String, String)>,
    /// The imported symbols: `(name, version)`, the version `None` when unversioned; weak
    /// imports are left out (auditwheel counts them optional).
    pub imports: Vec<(String, Option<String>)>,
}

/// A manylinux policy, as auditwheel's table has it.
#[derive(Debug)]
struct Policy {
    /// `manylinux_2_17`.
    name: String,
    /// Its legacy names (`manylinux2014`), written beside the PEP 600 tag for older pips.
    aliases: Vec<String>,
    /// Per machine, per symbol-version family (`GLIBC`), the versions it allows (`2.17`);
    /// a family it does not list is not checked, as auditwheel does.
    versions: BTreeMap<String, BTreeMap<String, BTreeSet<String>>>,
    /// The libraries a wheel's library may need.
    libraries: BTreeSet<String>,
    /// Per library, symbols it may not import (`*` for all).
    forbidden: BTreeMap<String, BTreeSet<String>>,
}

/// The policies, oldest (auditwheel's highest priority) first.
fn policies() -> Vec<Policy> {
    let table: serde_json::Value = serde_json::from_str(POLICIES_JSON).expect("manylinux-policy.json is JSON");
    let strings = |v: &serde_json::Value| -> BTreeSet<String> {
        v.as_array().into_iter().flatten().filter_map(|s| s.as_str().map(str::to_owned)).collect()
    };
    let map_of = |v: &serde_json::Value| -> BTreeMap<String, BTreeSet<String>> {
        v.as_object().into_iter().flatten().map(|(k, v)| (k.clone(), strings(v))).collect()
    };
    let mut out: Vec<(i64, Policy)> = table
        .as_array()
        .expect("manylinux-policy.json is a list")
        .iter()
        .map(|p| {
            let name = p["name"].as_str().expect("a policy has a name").to_owned();
            let versions = p["symbol_versions"].as_object().into_iter().flatten();
            let policy = Policy {
                aliases: strings(&p["aliases"]).into_iter().collect(),
                versions: versions.map(|(arch, families)| (arch.clone(), map_of(families))).collect(),
                libraries: strings(&p["lib_whitelist"]),
                forbidden: map_of(&p["blacklist"]),
                name,
            };
            (p["priority"].as_i64().unwrap_or_default(), policy)
        })
        .collect();
    out.sort_by_key(|(priority, _)| -priority);
    out.into_iter().map(|(_, p)| p).collect()
}

/// Reads what decides the tag from an ELF library's bytes.
pub fn needs(bytes: &[u8]) -> Result<Needs, String> {
    let read = match FileKind::parse(bytes) {
        Ok(FileKind::Elf64) => read::<object::elf::FileHeader64<Endianness>>(bytes),
        Ok(FileKind::Elf32) => read::<object::elf::FileHeader32<Endianness>>(bytes),
        _ => return Err("is not an ELF library".into()),
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
    let table = sections.versions(endian, bytes).map_err(|e| e.to_string())?;
    let mut imports = Vec::new();
    for symbol in file.dynamic_symbols().filter(|s| s.is_undefined() && !s.is_weak()) {
        let Ok(name) = symbol.name() else { continue };
        let version = match &table {
            Some(table) => table
                .version(table.version_index(endian, symbol.index()))
                .map_err(|e| e.to_string())?
                .map(|v| text(v.name())),
            None => None,
        };
        imports.push((name.to_owned(), version));
    }
    Ok(Needs { arch, needed, versions, imports })
}

/// The dynamic loader, whose versions auditwheel does not check.
fn is_loader(soname: &str) -> bool {
    soname.starts_with("ld-linux") || soname == "ld64.so.1" || soname == "ld64.so.2"
}

/// Whether `s` names a manylinux policy's tag (`manylinux_2_<minor>` or a legacy alias);
/// which ones exist is decided when the library's machine is known.
pub fn is_policy_name(s: &str) -> bool {
    s.strip_prefix("manylinux_2_").is_some_and(|m| m.parse::<u32>().is_ok())
        || ["manylinux1", "manylinux2010", "manylinux2014"].contains(&s)
}

/// The platform tag for `needs`, or why the requested one does not fit. A policy with a
/// legacy alias is written as the pair older pips need: `manylinux_2_17_x86_64.manylinux2014_x86_64`.
pub fn tag(needs: &Needs, requested: &Requested) -> Result<String, String> {
    let arch = needs.arch;
    let policies: Vec<Policy> = policies().into_iter().filter(|p| p.versions.contains_key(arch)).collect();
    match requested {
        Requested::Linux => Ok(format!("linux_{arch}")),
        Requested::Auto => Ok(policies
            .iter()
            .find(|p| fits(needs, p).is_ok())
            .map_or_else(|| format!("linux_{arch}"), |p| policy_tag(p, arch))),
        Requested::Policy(name) => {
            let policy = policies.iter().find(|p| p.name == *name || p.aliases.contains(name)).ok_or_else(|| {
                if policies.is_empty() {
                    return format!(
                        "manylinux tags are checked for x86_64 and aarch64 only; tag this {arch} library `linux` and retag it with `auditwheel repair`"
                    );
                }
                let known: Vec<String> = policies
                    .iter()
                    .map(|p| p.aliases.iter().fold(p.name.clone(), |all, alias| format!("{all} ({alias})")))
                    .collect();
                format!("{name} is not a manylinux policy for {arch}; known: {}", known.join(", "))
            })?;
            fits(needs, policy)
                .map(|()| policy_tag(policy, arch))
                .map_err(|why| format!("the library does not fit {name}: {why}"))
        }
    }
}

/// `manylinux_2_17_x86_64.manylinux2014_x86_64`: the policy's tag and its aliases'.
fn policy_tag(policy: &Policy, arch: &str) -> String {
    std::iter::once(&policy.name).chain(&policy.aliases).map(|n| format!("{n}_{arch}")).collect::<Vec<_>>().join(".")
}

/// Whether the library fits `policy`; the first reason it does not.
fn fits(needs: &Needs, policy: &Policy) -> Result<(), String> {
    for soname in needs.needed.iter().filter(|n| !is_loader(n)) {
        if !policy.libraries.contains(soname) {
            return Err(format!("it needs {soname}, which is not in the manylinux library set"));
        }
    }
    let allowed = &policy.versions[needs.arch];
    // Every version the policy lacks; the newest is named first, since a build for an older
    // glibc must get rid of it too.
    let mut over: Vec<(&str, &str, Vec<u32>)> = Vec::new();
    for (library, version) in &needs.versions {
        // auditwheel splits at the first `_`: GLIBC_2.17, CXXABI_TM_1, GLIBC_ABI_DT_RELR.
        let Some((family, number)) = version.split_once('_') else { continue };
        let Some(numbers) = allowed.get(family) else { continue };
        if !numbers.contains(number) {
            let key = number.split('.').map(|part| part.parse().unwrap_or(0)).collect();
            over.push((library, version, key));
        }
    }
    over.sort_by(|a, b| b.2.cmp(&a.2));
    if let Some((library, version, _)) = over.first() {
        let users: Vec<&str> = needs
            .imports
            .iter()
            .filter(|(_, v)| v.as_deref() == Some(*version))
            .map(|(name, _)| name.as_str())
            .collect();
        let users = match users.len() {
            0 => " (for weak imports only)".to_owned(),
            1..=4 => format!(" ({})", users.join(", ")),
            n => format!(" ({}, and {} more)", users[..3].join(", "), n - 3),
        };
        let others: Vec<&str> = over[1..].iter().map(|(_, v, _)| *v).collect();
        let others = if others.is_empty() { String::new() } else { format!("; also {}", others.join(", ")) };
        return Err(format!("it needs {version} from {library}{users}{others}"));
    }
    for (library, symbols) in policy.forbidden.iter().filter(|(l, _)| needs.needed.contains(l)) {
        if let Some((name, _)) = needs.imports.iter().find(|(n, _)| symbols.contains("*") || symbols.contains(n)) {
            return Err(format!("it imports {name}, which the policy forbids from {library}"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn needs(arch: &'static str, needed: &[&str], versions: &[(&str, &str)], imports: &[(&str, &str)]) -> Needs {
        let owned = |(a, b): &(&str, &str)| (a.to_string(), b.to_string());
        Needs {
            arch,
            needed: needed.iter().map(|s| s.to_string()).collect(),
            versions: versions.iter().map(owned).collect(),
            imports: imports.iter().map(|(n, v)| (n.to_string(), Some(v.to_string()))).collect(),
        }
    }

    #[test]
    fn the_table_is_auditwheels_oldest_first() {
        let all = policies();
        let minors: Vec<&str> = all.iter().map(|p| p.name.trim_start_matches("manylinux_2_")).collect();
        assert_eq!(
            minors,
            ["5", "12", "17", "24", "26", "27", "28", "31", "34", "35", "36", "37", "38", "39", "40", "41"]
        );
        let aarch64: Vec<&str> =
            all.iter().filter(|p| p.versions.contains_key("aarch64")).map(|p| p.name.as_str()).collect();
        assert_eq!(aarch64.first(), Some(&"manylinux_2_17"), "aarch64 begins with manylinux2014");
        assert_eq!(all[2].aliases, ["manylinux2014"]);
    }

    #[test]
    fn the_oldest_policy_that_holds_every_version_is_chosen() {
        let lib = needs(
            "x86_64",
            &["libgcc_s.so.1", "libm.so.6", "libc.so.6", "ld-linux-x86-64.so.2"],
            &[("libm.so.6", "GLIBC_2.35"), ("libc.so.6", "GLIBC_2.2.5"), ("libgcc_s.so.1", "GCC_4.2.0")],
            &[("hypot", "GLIBC_2.35")],
        );
        assert_eq!(tag(&lib, &Requested::Auto).unwrap(), "manylinux_2_35_x86_64");
        // manylinux2014's glibc: the pair older pips read.
        let old = needs("x86_64", &["libc.so.6"], &[("libc.so.6", "GLIBC_2.14")], &[]);
        assert_eq!(tag(&old, &Requested::Auto).unwrap(), "manylinux_2_17_x86_64.manylinux2014_x86_64");
        let oldest = needs("x86_64", &["libc.so.6"], &[("libc.so.6", "GLIBC_2.2.5")], &[]);
        assert_eq!(tag(&oldest, &Requested::Auto).unwrap(), "manylinux_2_5_x86_64.manylinux1_x86_64");
        // GCC_7.0.0 alone needs 2.27.
        let gcc = needs("x86_64", &["libgcc_s.so.1"], &[("libgcc_s.so.1", "GCC_7.0.0")], &[]);
        assert_eq!(tag(&gcc, &Requested::Auto).unwrap(), "manylinux_2_27_x86_64");
        // Versions outside the numbers: x86_64's CXXABI_FLOAT128 arrives with 2.24.
        let float128 = needs("x86_64", &["libstdc++.so.6"], &[("libstdc++.so.6", "CXXABI_FLOAT128")], &[]);
        assert_eq!(tag(&float128, &Requested::Auto).unwrap(), "manylinux_2_24_x86_64");
    }

    #[test]
    fn aarch64_has_its_own_policies() {
        // aarch64's glibc begins at 2.17: its oldest policy is manylinux2014.
        let base = needs("aarch64", &["libc.so.6"], &[("libc.so.6", "GLIBC_2.17")], &[]);
        assert_eq!(tag(&base, &Requested::Auto).unwrap(), "manylinux_2_17_aarch64.manylinux2014_aarch64");
        // GLIBC_2.18 is in aarch64's manylinux2014 (not in x86_64's)...
        let tls = needs("aarch64", &["libc.so.6"], &[("libc.so.6", "GLIBC_2.18")], &[]);
        assert_eq!(tag(&tls, &Requested::Auto).unwrap(), "manylinux_2_17_aarch64.manylinux2014_aarch64");
        let x86 = needs("x86_64", &["libc.so.6"], &[("libc.so.6", "GLIBC_2.18")], &[]);
        assert_eq!(tag(&x86, &Requested::Auto).unwrap(), "manylinux_2_24_x86_64");
        // ...but a strong import of __cxa_thread_atexit_impl is forbidden there.
        let forbidden = needs(
            "aarch64",
            &["libc.so.6"],
            &[("libc.so.6", "GLIBC_2.18")],
            &[("__cxa_thread_atexit_impl", "GLIBC_2.18")],
        );
        assert_eq!(tag(&forbidden, &Requested::Auto).unwrap(), "manylinux_2_24_aarch64");
        let refused = tag(&forbidden, &Requested::Policy("manylinux2014".into())).unwrap_err();
        assert_eq!(
            refused,
            "the library does not fit manylinux2014: it imports __cxa_thread_atexit_impl, which the policy forbids from libc.so.6"
        );
        // GCC_11.0 is aarch64's (x86_64 has no such version).
        let gcc = needs("aarch64", &["libgcc_s.so.1"], &[("libgcc_s.so.1", "GCC_11.0")], &[]);
        assert_eq!(tag(&gcc, &Requested::Auto).unwrap(), "manylinux_2_34_aarch64");
        let x86_gcc = needs("x86_64", &["libgcc_s.so.1"], &[("libgcc_s.so.1", "GCC_11.0")], &[]);
        assert_eq!(tag(&x86_gcc, &Requested::Auto).unwrap(), "linux_x86_64");
        // A plain build on a glibc 2.34+ machine.
        let plain = needs("aarch64", &["libc.so.6"], &[("libc.so.6", "GLIBC_2.34")], &[("dlsym", "GLIBC_2.34")]);
        assert_eq!(tag(&plain, &Requested::Auto).unwrap(), "manylinux_2_34_aarch64");
    }

    #[test]
    fn a_library_outside_the_set_or_a_too_new_glibc_is_linux() {
        let foreign = needs("x86_64", &["libc.so.6", "libssl.so.3"], &[], &[]);
        assert_eq!(tag(&foreign, &Requested::Auto).unwrap(), "linux_x86_64");
        let future = needs("x86_64", &["libc.so.6"], &[("libc.so.6", "GLIBC_2.99")], &[]);
        assert_eq!(tag(&future, &Requested::Auto).unwrap(), "linux_x86_64");
        assert_eq!(tag(&foreign, &Requested::Linux).unwrap(), "linux_x86_64");
        let riscv = needs("riscv64", &["libc.so.6"], &[("libc.so.6", "GLIBC_2.27")], &[]);
        assert_eq!(tag(&riscv, &Requested::Auto).unwrap(), "linux_riscv64");
        let err = tag(&riscv, &Requested::Policy("manylinux_2_31".into())).unwrap_err();
        assert!(err.starts_with("manylinux tags are checked for x86_64 and aarch64 only"), "{err}");
    }

    #[test]
    fn a_requested_policy_the_library_exceeds_is_refused_naming_the_symbols() {
        let lib = needs("x86_64", &["libm.so.6"], &[("libm.so.6", "GLIBC_2.35")], &[("hypot", "GLIBC_2.35")]);
        assert_eq!(tag(&lib, &Requested::Policy("manylinux_2_39".into())).unwrap(), "manylinux_2_39_x86_64");
        let err = tag(&lib, &Requested::Policy("manylinux_2_17".into())).unwrap_err();
        assert_eq!(err, "the library does not fit manylinux_2_17: it needs GLIBC_2.35 from libm.so.6 (hypot)");
        let err = tag(&lib, &Requested::Policy("manylinux2014".into())).unwrap_err();
        assert_eq!(err, "the library does not fit manylinux2014: it needs GLIBC_2.35 from libm.so.6 (hypot)");
        let many: Vec<(&str, &str)> = ["a", "b", "c", "d", "e"].iter().map(|n| (*n, "GLIBC_2.34")).collect();
        let lib = needs("x86_64", &["libc.so.6"], &[("libc.so.6", "GLIBC_2.34")], &many);
        let err = tag(&lib, &Requested::Policy("manylinux_2_28".into())).unwrap_err();
        assert!(err.ends_with("it needs GLIBC_2.34 from libc.so.6 (a, b, c, and 2 more)"), "{err}");
        // The newest version first, even when only weak imports need an older one; the
        // others after it.
        let versions = [("libc.so.6", "GLIBC_2.18"), ("libc.so.6", "GLIBC_2.34"), ("libc.so.6", "GLIBC_2.30")];
        let plain = needs("x86_64", &["libc.so.6"], &versions, &[("dlopen", "GLIBC_2.34"), ("gettid", "GLIBC_2.30")]);
        let err = tag(&plain, &Requested::Policy("manylinux2014".into())).unwrap_err();
        assert!(err.ends_with("it needs GLIBC_2.34 from libc.so.6 (dlopen); also GLIBC_2.30, GLIBC_2.18"), "{err}");
        let weak = needs("x86_64", &["libc.so.6"], &[("libc.so.6", "GLIBC_2.18")], &[]);
        let err = tag(&weak, &Requested::Policy("manylinux2014".into())).unwrap_err();
        assert!(err.ends_with("it needs GLIBC_2.18 from libc.so.6 (for weak imports only)"), "{err}");
        let err = tag(&lib, &Requested::Policy("manylinux_2_3".into())).unwrap_err();
        assert!(
            err.starts_with("manylinux_2_3 is not a manylinux policy for x86_64; known: manylinux_2_5 (manylinux1), ")
        );
        // A fitting alias is written as the pair.
        let old = needs("aarch64", &["libc.so.6"], &[("libc.so.6", "GLIBC_2.17")], &[]);
        let pair = tag(&old, &Requested::Policy("manylinux_2_17".into())).unwrap();
        assert_eq!(pair, "manylinux_2_17_aarch64.manylinux2014_aarch64");
        assert!(
            is_policy_name("manylinux2014") && is_policy_name("manylinux_2_28") && !is_policy_name("manylinux2015")
        );
    }
}
