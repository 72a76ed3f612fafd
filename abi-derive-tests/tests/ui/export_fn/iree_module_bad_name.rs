// A module name programs cannot import from (`<module>.<function>`).

abi_core::iree_module!("my-lib");

fn main() {}
