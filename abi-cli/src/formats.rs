//! Where each object format keeps what `abi` reads from a library file: the exported
//! symbols and the record sections. ELF (Linux) lists exports in its dynamic symbol table
//! and names sections freely; Mach-O (macOS) lists them among its external symbols, each
//! with a leading `_`, and names sections `segment,section`; PE (Windows) lists them in
//! its export table and names sections in 8 bytes. The section names are abi-shared's.

use object::{BinaryFormat, Object, ObjectSection, ObjectSymbol, SectionKind};

/// One of the record sections a library built with abi carries.
#[derive(Debug, Clone, Copy)]
pub enum Records {
    /// Every export's name, metadata, signature and docs.
    Exports,
    /// The object classes and their methods.
    Classes,
    /// The IREE module and functions.
    Iree,
}

impl Records {
    /// The section's name in `format`; Mach-O's as `segment,section`.
    fn section_name(self, format: BinaryFormat) -> &'static str {
        use abi_shared as names;
        match (self, format) {
            (Records::Exports, BinaryFormat::MachO) => names::EXPORT_RECORDS_SECTION_MACHO,
            (Records::Classes, BinaryFormat::MachO) => names::CLASS_RECORDS_SECTION_MACHO,
            (Records::Iree, BinaryFormat::MachO) => names::IREE_RECORDS_SECTION_MACHO,
            (Records::Exports, BinaryFormat::Pe) => names::EXPORT_RECORDS_SECTION_PE,
            (Records::Classes, BinaryFormat::Pe) => names::CLASS_RECORDS_SECTION_PE,
            (Records::Iree, BinaryFormat::Pe) => names::IREE_RECORDS_SECTION_PE,
            (Records::Exports, _) => names::EXPORT_RECORDS_SECTION,
            (Records::Classes, _) => names::CLASS_RECORDS_SECTION,
            (Records::Iree, _) => names::IREE_RECORDS_SECTION,
        }
    }
}

/// The bytes of the file's `records` section; `None` when it has none.
pub fn records<'data>(file: &object::File<'data>, records: Records) -> Result<Option<&'data [u8]>, String> {
    let name = records.section_name(file.format());
    let section = match name.split_once(',') {
        // Mach-O: matched by section name; the segment is where a linker put it (`__DATA`,
        // or another it moves data to), which a reader need not know.
        Some((_, section)) => file.sections().find(|s| s.name() == Ok(section)),
        None => file.section_by_name(name),
    };
    let what = match records {
        Records::Exports => "export",
        Records::Classes => "class",
        Records::Iree => "IREE",
    };
    section.map(|s| s.data().map_err(|e| format!("unreadable {what} records: {e}"))).transpose()
}

/// A symbol the library exports.
#[derive(Debug)]
pub struct Exported {
    /// Its name as C spells it (no Mach-O `_`).
    pub name: String,
    /// Whether it is code (a function), not data.
    pub code: bool,
}

/// The symbols the library defines and exports whose names start with `__tvm_ffi_` (the
/// only ones abi reads). The exported names of a file of `file_size` bytes may come to no
/// more bytes than it holds: symbols may share one name's bytes, and 3,000 symbols naming
/// one megabyte would otherwise be read (and copied) as 3 gigabytes.
pub fn exported(file: &object::File<'_>, file_size: usize) -> Result<Vec<Exported>, String> {
    let mut names: Vec<(&str, bool)> = Vec::new();
    let mut named = 0usize;
    let mut count = |len: usize| {
        named += len;
        match named > file_size {
            true => {
                Err(format!("its exported symbols name more bytes than the file's {file_size}: symbols share names"))
            }
            false => Ok(()),
        }
    };
    if file.format() == BinaryFormat::Elf {
        // A name that is not UTF-8 cannot be one of abi's.
        for s in file.dynamic_symbols().filter(|s| s.is_definition()) {
            if let Ok(name) = s.name() {
                count(name.len())?;
                names.push((name, s.kind() == object::SymbolKind::Text));
            }
        }
    } else {
        let exports = file.exports().map_err(|e| format!("unreadable export table: {e}"))?;
        let code_at = |address: u64| {
            file.sections()
                .any(|s| s.kind() == SectionKind::Text && address >= s.address() && address - s.address() < s.size())
        };
        for e in &exports {
            count(e.name().len())?;
            let Ok(name) = std::str::from_utf8(e.name()) else { continue };
            // Mach-O prefixes every C symbol with `_`; a name without one is no C name.
            let name = match file.format() {
                BinaryFormat::MachO => match name.strip_prefix('_') {
                    Some(name) => name,
                    None => continue,
                },
                _ => name,
            };
            names.push((name, code_at(e.address())));
        }
    }
    names.retain(|(name, _)| name.starts_with(abi_shared::SHIM_PREFIX));
    Ok(names.into_iter().map(|(name, code)| Exported { name: name.to_owned(), code }).collect())
}

/// What the platform this `abi` runs on loads: a library of another format can be read
/// but not loaded.
pub fn loadable(file: &object::File<'_>) -> bool {
    let native = if cfg!(target_vendor = "apple") {
        BinaryFormat::MachO
    } else if cfg!(windows) {
        BinaryFormat::Pe
    } else {
        BinaryFormat::Elf
    };
    file.format() == native
}

/// How users name the file's format and platform.
pub fn describe(format: BinaryFormat) -> &'static str {
    match format {
        BinaryFormat::Elf => "an ELF (Linux) library",
        BinaryFormat::MachO => "a Mach-O (macOS) library",
        BinaryFormat::Pe => "a PE (Windows) library",
        _ => "a library of another format",
    }
}
