struct NotAbi;

#[derive(abi_core::AbiStruct)]
struct Holder {
    ok: i64,
    bad: NotAbi,
}

fn main() {}
