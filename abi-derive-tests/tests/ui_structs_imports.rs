//! Compile-fail suites of `#[derive(AbiStruct)]` and `#[import]`: one concern per file,
//! expected diagnostics in the committed `.stderr` files (`TRYBUILD=overwrite` refreshes).

#[test]
fn abi_struct_misuse_fails_to_compile() {
    trybuild::TestCases::new().compile_fail("tests/ui/abi_struct/*.rs");
}

#[test]
fn import_misuse_fails_to_compile() {
    trybuild::TestCases::new().compile_fail("tests/ui/import/*.rs");
}
