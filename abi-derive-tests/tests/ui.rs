//! Compile-time suites of the macros (`#[export_fn]`, `#[derive(AbiStruct)]`,
//! `#[derive(AbiEnum)]`, `#[derive(AbiError)]`, `#[import]`,
//! `#[derive(Object)]` with `#[methods]`): misuse fails with the diagnostics committed
//! next to each case (`.stderr`; `TRYBUILD=overwrite` refreshes them), and the accepted
//! signatures compile and run.

#[test]
fn export_fn_misuse_fails_to_compile() {
    trybuild::TestCases::new().compile_fail("tests/ui/export_fn/*.rs");
}

#[test]
fn export_fn_accepts_ordinary_signatures() {
    trybuild::TestCases::new().pass("tests/ui/export_fn_pass/*.rs");
}

#[test]
fn abi_struct_misuse_fails_to_compile() {
    trybuild::TestCases::new().compile_fail("tests/ui/abi_struct/*.rs");
}

#[test]
fn abi_enum_misuse_fails_to_compile() {
    trybuild::TestCases::new().compile_fail("tests/ui/abi_enum/*.rs");
}

#[test]
fn abi_error_misuse_fails_to_compile() {
    trybuild::TestCases::new().compile_fail("tests/ui/abi_error/*.rs");
}

#[test]
fn import_misuse_fails_to_compile() {
    trybuild::TestCases::new().compile_fail("tests/ui/import/*.rs");
}

#[test]
fn generated_code_is_hygienic() {
    trybuild::TestCases::new().pass("tests/ui/hygiene/*.rs");
}

#[test]
fn object_misuse_fails_to_compile() {
    trybuild::TestCases::new().compile_fail("tests/ui/object/*.rs");
}
