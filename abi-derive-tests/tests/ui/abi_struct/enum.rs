#[derive(abi_core::AbiStruct)]
enum Shape {
    Circle,
    Square,
}

fn main() {}
