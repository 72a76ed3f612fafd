// A variant's field must convert both ways: the error is on the field's type.
#[derive(abi_core::AbiEnum)]
enum Event {
    Started { at: std::time::Instant },
    Stopped,
}

fn main() {}
