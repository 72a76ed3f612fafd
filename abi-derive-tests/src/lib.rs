//! Test support for the abi macros (tests live in `tests/`).
