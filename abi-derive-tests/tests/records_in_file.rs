//! The records tools read without running a binary are in its file on every target: this
//! test binary reads its own file (ELF, Mach-O or PE) and finds the export, class, method and
//! IREE records of the items below. A linker that collects unreferenced sections (GNU ld's
//! `--gc-sections` on Windows drops them, `#[used]` or not) fails it; so does a record
//! placed in no section, or in one of another name than tools look for.

use abi_core::schema::{parse_class_records, parse_export_records, parse_iree_records};
use abi_core::Obj;

/// A counter.
#[derive(abi_core::Object, Debug)]
#[abi(type_key = "tests.RecordedCounter")]
pub struct RecordedCounter {
    /// Its count.
    #[abi(get)]
    pub count: i64,
}

#[abi_core::methods]
impl RecordedCounter {
    /// A counter at `count`.
    #[abi(init)]
    pub fn new(count: i64) -> Self {
        RecordedCounter { count }
    }
    /// The count plus `n`.
    pub fn plus(&self, n: i64) -> i64 {
        self.count + n
    }
}

/// A counter made by an export.
#[abi_core::export_fn]
fn recorded_counter(count: i64) -> Obj<RecordedCounter> {
    Obj::new(RecordedCounter::new(count))
}

/// Adds, for IREE too.
#[abi_core::export_fn(iree)]
fn recorded_add(a: i32, b: i32) -> i32 {
    a + b
}

abi_core::iree_module!("recorded");

/// The bytes of the section holding the records `kind` (`exports`, `classes` or `iree`) in
/// this test's own file, under the name the file's format gives it.
fn own_section(kind: &str) -> Vec<u8> {
    use object::{Object, ObjectSection};
    let (elf, macho, pe) = match kind {
        "exports" => (
            abi_shared::EXPORT_RECORDS_SECTION,
            abi_shared::EXPORT_RECORDS_SECTION_MACHO,
            abi_shared::EXPORT_RECORDS_SECTION_PE,
        ),
        "classes" => (
            abi_shared::CLASS_RECORDS_SECTION,
            abi_shared::CLASS_RECORDS_SECTION_MACHO,
            abi_shared::CLASS_RECORDS_SECTION_PE,
        ),
        _ => (
            abi_shared::IREE_RECORDS_SECTION,
            abi_shared::IREE_RECORDS_SECTION_MACHO,
            abi_shared::IREE_RECORDS_SECTION_PE,
        ),
    };
    let bytes = std::fs::read(std::env::current_exe().unwrap()).unwrap();
    let file = object::File::parse(&*bytes).unwrap();
    let name = match file.format() {
        object::BinaryFormat::MachO => macho.split_once(',').unwrap().1,
        object::BinaryFormat::Pe | object::BinaryFormat::Coff => pe,
        _ => elf,
    };
    let section = file.section_by_name(name).unwrap_or_else(|| panic!("no section {name} in this test's file"));
    section.data().unwrap().to_vec()
}

#[test]
fn export_records_are_in_the_file() {
    let exports = parse_export_records(&own_section("exports")).unwrap();
    let names: Vec<&str> = exports.iter().map(|e| e.name.as_str()).collect();
    assert!(names.contains(&"recorded_counter") && names.contains(&"recorded_add"), "{names:?}");
}

#[test]
fn class_and_method_records_are_in_the_file() {
    let classes = parse_class_records(&own_section("classes")).unwrap();
    let class = classes.iter().find(|c| c.key == "tests.RecordedCounter").expect("the class record");
    assert_eq!(class.fields.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(), ["count"]);
    let methods: Vec<&str> = class.methods.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(methods, ["__ffi_init__", "plus"]);
}

#[test]
fn iree_records_are_in_the_file() {
    let iree = parse_iree_records(&own_section("iree")).unwrap();
    assert_eq!(iree.modules.iter().map(|m| m.name.as_str()).collect::<Vec<_>>(), ["recorded"]);
    assert_eq!(
        iree.functions.iter().map(|f| (f.name.as_str(), f.cconv.as_str())).collect::<Vec<_>>(),
        [("recorded_add", "0ii_i")]
    );
}

/// The linker's lists (distributed slices) kept their elements too: the type's method table
/// and the IREE function.
#[test]
fn linked_entries_are_in_the_binary() {
    use abi_core::Object;
    let counter = recorded_counter(2);
    assert_eq!(counter.plus(3), 5);
    let api = abi_core::__private::own_runtime_table().types;
    let index = RecordedCounter::type_index().unwrap();
    // SAFETY: a registered type index.
    let info = unsafe { &*(api.get_type_info)(index) };
    assert_eq!(info.num_methods, 2, "the type's method table: __ffi_init__ and plus");
    assert!(abi_core::iree::IREE_FUNCTIONS.iter().any(|f| f.name == "recorded_add"));
}
